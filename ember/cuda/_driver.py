"""The two CUDA drivers behind one interface: the emulator (EMBER_CUDA_EMULATOR=1: device
memory is host memory, kernels run on the CPU in stream order) and CuPy on a machine with a
GPU. The caching allocator and the kernels see only this interface:

    malloc(n) -> int / free(ptr)            raw device memory (MemoryError when out of it)
    mem_get_info() -> (free, total)
    htod(ptr, ndarray) / dtoh(ndarray, ptr) / dtod(dst, src, n)   copies (bytes)
    host_alloc(n) -> uint8 ndarray          pinned host memory
    kernel(module, name) -> callable(grid, block, args, fibers=)  a compiled kernel
    source_kernel(source, name) -> the same, of a generated source (ember.compile's)
    record_event(stream) -> event / event_done(event) / synchronize()
"""
from __future__ import annotations

import ctypes
import os
import time

import numpy as np

ALIGNMENT = 256  # cudaMalloc's alignment


class EmulatorDriver:
    """Kernels compiled for the CPU (ember/cuda/_emulator.py); launches run at once, so every
    stream is already in order and every event is complete when recorded."""

    name = "emulator"

    def __init__(self, devices: int = 1, memory: int | None = None):
        self.device_count = devices
        mb = int(os.environ.get("EMBER_CUDA_EMULATOR_MEMORY_MB", "16384"))
        self.capacity = memory if memory is not None else mb << 20
        self._buffers: dict[int, np.ndarray] = {}
        self.used = 0

    def malloc(self, n: int) -> int:
        if self.used + n > self.capacity:
            raise MemoryError(n)
        buf = np.empty(n + ALIGNMENT, np.uint8)
        ptr = -(-buf.ctypes.data // ALIGNMENT) * ALIGNMENT
        self._buffers[ptr] = buf
        self.used += n
        return ptr

    def free(self, ptr: int) -> None:
        buf = self._buffers.pop(ptr)
        self.used -= buf.size - ALIGNMENT

    def mem_get_info(self) -> tuple[int, int]:
        return self.capacity - self.used, self.capacity

    def total_memory(self) -> int:
        return self.capacity

    def htod(self, ptr: int, src: np.ndarray) -> None:
        ctypes.memmove(ptr, src.ctypes.data, src.nbytes)

    def dtoh(self, dst: np.ndarray, ptr: int) -> None:
        ctypes.memmove(dst.ctypes.data, ptr, dst.nbytes)

    def dtod(self, dst: int, src: int, n: int) -> None:
        ctypes.memmove(dst, src, n)

    def memset(self, ptr: int, value: int, n: int) -> None:
        ctypes.memset(ptr, value, n)

    def host_alloc(self, n: int) -> np.ndarray:
        """Pinned host memory: plain host memory here (device memory is host memory too)."""
        return np.empty(n, np.uint8)

    def kernel(self, module: str, name: str):
        from ._emulator import Module
        return Module.load(module).get_function(name)

    def source_kernel(self, source: str, name: str):
        """`name` of a generated CUDA source (ember.compile's fused kernels), compiled once
        per source hash; it may include kernels/cuda's headers."""
        from ._emulator import Module
        return Module.from_source(source).get_function(name)

    def record_event(self, stream):
        return time.perf_counter_ns()

    def event_done(self, event) -> bool:
        return True

    def synchronize(self) -> None:
        pass

    def properties(self, device: int) -> dict:
        return {"name": "ember CUDA emulator", "major": 8, "minor": 0,
                "total_memory": self.capacity, "multi_processor_count": 1}


class CupyDriver:
    """CuPy on a real GPU: cudaMalloc through the runtime, kernels through cupy.RawModule
    (the same .cu sources the emulator runs). Device pointers pass as uint64 scalars."""

    name = "cupy"

    def __init__(self):
        import cupy
        self.cupy = cupy
        self.rt = cupy.cuda.runtime
        self.device_count = self.rt.getDeviceCount()
        self._modules: dict[str, object] = {}

    def malloc(self, n: int) -> int:
        try:
            return self.rt.malloc(n)
        except self.rt.CUDARuntimeError as e:
            if "memory" in str(e).lower():
                raise MemoryError(n) from None
            raise

    def free(self, ptr: int) -> None:
        self.rt.free(ptr)

    def mem_get_info(self):
        return self.rt.memGetInfo()

    def total_memory(self) -> int:
        return self.rt.memGetInfo()[1]

    def htod(self, ptr, src):
        self.rt.memcpy(ptr, src.ctypes.data, src.nbytes, self.rt.memcpyHostToDevice)

    def dtoh(self, dst, ptr):
        self.rt.memcpy(dst.ctypes.data, ptr, dst.nbytes, self.rt.memcpyDeviceToHost)

    def dtod(self, dst, src, n):
        self.rt.memcpy(dst, src, n, self.rt.memcpyDeviceToDevice)

    def memset(self, ptr, value, n):
        self.rt.memset(ptr, value, n)

    def host_alloc(self, n: int) -> np.ndarray:
        """Page-locked host memory (cudaHostAlloc), alive as long as the array."""
        return np.frombuffer(self.cupy.cuda.alloc_pinned_memory(n), np.uint8, n)

    def kernel(self, module: str, name: str):
        from . import _nvrtc, _toolchain
        mod = self._modules.get(module)
        if mod is None:
            mod = self._modules[module] = self.cupy.RawModule(
                path=None, code=_toolchain.sources()[module].read_text(),
                options=(*_nvrtc.OPTIONS, f"-I{_toolchain.KERNEL_DIR}"))
        fn = mod.get_function(name)

        return self._launcher(fn)

    def source_kernel(self, source: str, name: str):
        from . import _nvrtc, _toolchain
        mod = self._modules.get(source)
        if mod is None:
            mod = self._modules[source] = self.cupy.RawModule(
                code=source, options=(*_nvrtc.OPTIONS, f"-I{_toolchain.KERNEL_DIR}"))
        return self._launcher(mod.get_function(name))

    @staticmethod
    def _launcher(fn):
        def launch(grid, block, args, shared_mem=0, fibers=True):
            fn(grid, block, tuple(np.uint64(a) if type(a) is int else a for a in args),
               shared_mem=shared_mem)
        return launch

    def record_event(self, stream):
        ev = self.cupy.cuda.Event()
        ev.record(stream)
        return ev

    def event_done(self, event) -> bool:
        return event.done

    def synchronize(self) -> None:
        self.rt.deviceSynchronize()

    def properties(self, device: int) -> dict:
        p = self.rt.getDeviceProperties(device)
        return {"name": p["name"].decode(), "major": p["major"], "minor": p["minor"],
                "total_memory": p["totalGlobalMem"],
                "multi_processor_count": p["multiProcessorCount"]}


def detect():
    """The driver this process uses: the emulator when EMBER_CUDA_EMULATOR=1, CuPy when it
    sees a GPU, else None (ember.cuda.is_available() is False)."""
    if os.environ.get("EMBER_CUDA_EMULATOR", "") not in ("", "0"):
        return EmulatorDriver(int(os.environ.get("EMBER_CUDA_EMULATOR_DEVICES", "1")))
    try:
        d = CupyDriver()
    except (ImportError, OSError, RuntimeError):  # no cupy / driver / device: no CUDA
        return None
    return d if d.device_count else None
