"""NVRTC (what CuPy compiles RawModules with) through ctypes, to check that every kernel
source compiles for real GPUs on a machine without one (the `nvidia-cuda-nvrtc` wheel).

    >>> cubin = compile_cuda(_toolchain.sources()["elementwise"], arch="sm_90")  # doctest: +SKIP
"""
from __future__ import annotations

import ctypes
import functools
import glob
import hashlib
import os
from pathlib import Path

from . import _toolchain

# The options ember's CuPy driver compiles with, beside the arch and include folders.
OPTIONS = ("-std=c++17", "-default-device")


@functools.cache
def _lib() -> ctypes.CDLL:
    dirs = []
    try:
        import nvidia
        dirs = [os.path.join(p, sub, "lib") for p in nvidia.__path__
                for sub in ("cu13", "cu12", "cuda_nvrtc")]
    except ImportError:
        pass
    for d in dirs:
        libs = [f for f in sorted(glob.glob(os.path.join(d, "libnvrtc.so.*")))
                if ".alt." not in f]
        if not libs:
            continue
        for b in glob.glob(os.path.join(d, "libnvrtc-builtins.so.*")):  # dlopened by name
            if ".alt." not in b:
                ctypes.CDLL(b, mode=ctypes.RTLD_GLOBAL)
        return ctypes.CDLL(libs[0])
    raise OSError("libnvrtc not found: pip install nvidia-cuda-nvrtc")


def check_compiles(path, arch: str) -> None:
    """compile_cuda, remembered: a marker in the emulator's cache dir per (source hash, arch)
    spares later sessions the ~40 s NVRTC takes for a large module."""
    from ._emulator import cache_dir
    key = hashlib.sha256("\0".join([Path(path).read_text(), _toolchain.headers_digest(), arch,
                                     *OPTIONS]).encode()).hexdigest()[:20]
    marker = cache_dir() / f"nvrtc-{os.path.basename(path)}-{arch}-{key}.ok"
    if not marker.exists():
        compile_cuda(path, arch)
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()


def compile_cuda(path, arch: str = "sm_80") -> bytes:
    """Compiles one .cu file to a cubin for `arch` (sm_XX: ptxas runs too, so register and
    shared-memory limits are checked); RuntimeError with NVRTC's log on failure."""
    lib = _lib()
    code = Path(path).read_text()
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), code.encode(), os.path.basename(path).encode(),
                              0, None, None):
        raise RuntimeError("nvrtcCreateProgram failed")
    try:
        opts = [f"--gpu-architecture={arch}", *OPTIONS, f"-I{_toolchain.KERNEL_DIR}",
                f"-I{_toolchain.cuda_include_dir()}"]
        rc = lib.nvrtcCompileProgram(prog, len(opts),
                                     (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts]))
        n = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
        log = ctypes.create_string_buffer(n.value)
        lib.nvrtcGetProgramLog(prog, log)
        if rc:
            raise RuntimeError(f"NVRTC could not compile {path} for {arch}:\n"
                               f"{log.value.decode(errors='replace')[-6000:]}")
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(n))
        cubin = ctypes.create_string_buffer(n.value)
        lib.nvrtcGetCUBIN(prog, cubin)
        return cubin.raw
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
