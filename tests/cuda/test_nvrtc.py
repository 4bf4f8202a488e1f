"""Every kernels/cuda/*.cu compiles with NVRTC (as CuPy compiles it) to cubin for sm_80 and
sm_90, on a machine without a GPU (the nvidia-cuda-nvrtc wheel). Results are cached by
source hash, so only a changed source pays NVRTC's time again."""
from concurrent.futures import ThreadPoolExecutor

import pytest

from ember.cuda import _nvrtc, _toolchain

try:
    _nvrtc._lib()
    _toolchain.cuda_include_dir()
except OSError as e:  # pragma: no cover - the wheels are test dependencies
    pytest.skip(str(e), allow_module_level=True)


ARCHS = ("sm_80", "sm_90")


@pytest.fixture(scope="module", autouse=True)
def compiled_in_parallel():
    """Compiles every (source, arch) on two threads first (NVRTC is thread-safe and ctypes
    releases the GIL); the tests then find the cached results, or compile again and report
    the error."""
    def attempt(job):
        try:
            _nvrtc.check_compiles(*job)
        except RuntimeError:
            pass
    jobs = [(p, a) for p in _toolchain.sources().values() for a in ARCHS]
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(attempt, jobs))


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", sorted(_toolchain.sources()))
def test_kernel_source_compiles_for_gpus(name, arch):
    _nvrtc.check_compiles(_toolchain.sources()[name], arch)


def test_a_compile_error_reports_nvrtc_log(tmp_path):
    bad = tmp_path / "bad.cu"
    bad.write_text('extern "C" __global__ void k(float* x) { x[0] = undefined_name; }\n')
    with pytest.raises(RuntimeError, match="undefined_name"):
        _nvrtc.compile_cuda(bad, "sm_80")
