"""The CuPy driver's wiring, with a stand-in `cupy` module (no GPU here): raw memory through
cupy.cuda.runtime, kernels through cupy.RawModule over the same .cu sources and options that
NVRTC checks, device pointers passed as uint64 scalars (CuPy would take a Python int for an
int64 value)."""
import sys
import types

import numpy as np

from ember.cuda import _driver, _nvrtc, _toolchain


def fake_cupy(calls):
    rt = types.SimpleNamespace(
        getDeviceCount=lambda: 2, malloc=lambda n: calls.append(("malloc", n)) or 4096,
        free=lambda p: calls.append(("free", p)), memGetInfo=lambda: (10, 20),
        memcpy=lambda *a: calls.append(("memcpy", a[2], a[3])), memcpyHostToDevice=1,
        memcpyDeviceToHost=2, memcpyDeviceToDevice=3, CUDARuntimeError=RuntimeError,
        deviceSynchronize=lambda: calls.append(("sync",)))

    class RawModule:
        def __init__(self, path=None, code="", options=()):
            calls.append(("module", code[:40], tuple(options)))

        def get_function(self, name):
            return lambda grid, block, args, shared_mem=0: calls.append(
                ("launch", name, grid, block, args, shared_mem))
    return types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=rt), RawModule=RawModule)


def test_cupy_driver_wiring(monkeypatch):
    calls = []
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy(calls))
    d = _driver.CupyDriver()
    assert d.device_count == 2 and d.malloc(100) == 4096 and d.mem_get_info() == (10, 20)
    d.htod(4096, np.zeros(3, np.float32))
    d.free(4096)
    k = d.kernel("elementwise", "fill_float32")
    k((1,), (256,), (np.int64(3), 8192, 4096, np.float32(1)))
    assert calls[:3] == [("malloc", 100), ("memcpy", 12, 1), ("free", 4096)]
    kind, code, options = calls[3]
    assert kind == "module" and options == (*_nvrtc.OPTIONS, f"-I{_toolchain.KERNEL_DIR}")
    assert code == _toolchain.sources()["elementwise"].read_text()[:40]
    launch = calls[4]
    assert launch[:4] == ("launch", "fill_float32", (1,), (256,))
    args = launch[4]
    assert [type(a) for a in args] == [np.int64, np.uint64, np.uint64, np.float32]
