"""Fixtures of the CUDA tests: `cuda` runs a test module on the emulator's device (skipped
when the host has no C++ compiler or CUDA headers); the kernels compile once per source
hash (cached under ~/.cache/ember/cuda-emulator)."""
import pytest

from ember.cuda import _driver, _emulator, _runtime


@pytest.fixture(scope="module")
def cuda():
    if not _emulator.available():
        pytest.skip("the CUDA emulator needs g++ and the nvidia-cuda-runtime/crt/cccl headers")
    with _runtime.using(_driver.EmulatorDriver()) as d:
        yield d


@pytest.fixture
def no_cuda():
    with _runtime.using(None):
        yield
