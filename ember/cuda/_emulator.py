"""The CUDA emulator: ember's .cu sources compiled by the host C++ compiler with a shim header
(kernels/cuda/emulator.h) and run on the CPU, with CuPy's RawModule/RawKernel call convention.

Each module is compiled once per source hash into `$EMBER_CUDA_CACHE` (default
~/.cache/ember/cuda-emulator) and loaded with ctypes. A launch passes every argument as a
pointer plus its byte size, like cuLaunchKernel: device pointers are `int` addresses (the
emulator's device memory is host memory), scalars must be NumPy scalars of the kernel
parameter's type (a wrong width is a TypeError, as it would be a wrong answer on a GPU).

    >>> mod = Module.load("elementwise")          # doctest: +SKIP
    >>> mod.get_function("fill_float32")((1,), (256,), (n, meta, out, np.float32(1)))  # doctest: +SKIP
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import numpy as np

from . import _toolchain

CXX = os.environ.get("CXX", "g++")
# no _FORTIFY_SOURCE: its longjmp check rejects the jumps between fiber stacks
CXXFLAGS = ["-std=c++20", "-O1", "-fPIC", "-shared", "-w", "-U_FORTIFY_SOURCE"]
_KERNEL_RE = re.compile(r'extern\s+"C"\s+__ember_global__\s+void\s+(\w+)\s*\(')
_lock = threading.RLock()   # the emulator's scheduler state is global: one launch at a time
_modules: dict[str, Module] = {}

# Thread order between barriers: "fwd" or "rev" (a kernel that misses a __syncthreads gives
# different results in the two orders). Tests flip it; EMBER_CUDA_EMULATOR_ORDER sets it.
order = [os.environ.get("EMBER_CUDA_EMULATOR_ORDER", "fwd")]


def available() -> bool:
    """Whether the emulator can compile here: a host C++ compiler and NVIDIA's headers."""
    if shutil.which(CXX) is None:
        return False
    try:
        _toolchain.cuda_include_dir()
    except OSError:
        return False
    return True


def cache_dir() -> Path:
    d = os.environ.get("EMBER_CUDA_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "ember", "cuda-emulator")
    return Path(d)


def _flags() -> list[str]:
    shim = _toolchain.KERNEL_DIR / "emulator.h"
    return [*CXXFLAGS, f"-I{_toolchain.KERNEL_DIR}", f"-I{_toolchain.cuda_include_dir()}",
            "-include", str(shim)]


def _run(cmd: list[str]) -> str:
    r = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"CUDA emulator: {' '.join(cmd[:1])} failed:\n{r.stderr[-6000:]}")
    return r.stdout


def compile_source(path: Path) -> tuple[Path, list[str]]:
    """Compiles one .cu (cached by the hash of the source, ember's headers and the flags);
    returns the shared library and the names of its kernels."""
    src = path.read_text()
    flags = _flags()
    key = hashlib.sha256("\0".join([src, _toolchain.headers_digest(), CXX, *flags]).encode())
    out = cache_dir() / f"{path.stem}-{key.hexdigest()[:20]}"
    so, names_file = out.with_suffix(".so"), out.with_suffix(".kernels")
    if so.exists() and names_file.exists():
        return so, names_file.read_text().split()
    out.parent.mkdir(parents=True, exist_ok=True)
    # The kernel names: from the preprocessed source, where __global__ is still visible.
    pre = _run([CXX, "-E", "-P", "-DEMBER_EMULATOR_SCAN", "-std=c++20", *flags[len(CXXFLAGS):], "-x", "c++",
                str(path)])
    names = _KERNEL_RE.findall(pre)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        unit = Path(tmp) / f"{path.stem}.cpp"
        unit.write_text(f'#include "{path}"\n' + "".join(
            f"EMBER_EMULATOR_EXPORT({n})\n" for n in names))
        _run([CXX, *flags, "-x", "c++", str(unit), "-o", str(Path(tmp) / "k.so")])
        os.replace(Path(tmp) / "k.so", so)
    names_file.write_text("\n".join(names))
    return so, names


class Module:
    """A compiled kernel module (cupy.RawModule's interface: get_function)."""

    def __init__(self, path: Path):
        so, names = compile_source(path)
        self.path = path
        self.lib = ctypes.CDLL(str(so))
        self.names = names
        self._kernels: dict[str, Kernel] = {}

    @staticmethod
    def load(name: str) -> Module:
        """The module of kernels/cuda/<name>.cu, compiled on first use."""
        with _lock:
            m = _modules.get(name)
            if m is None:
                m = _modules[name] = Module(_toolchain.sources()[name])
            return m

    @staticmethod
    def from_source(source: str) -> Module:
        """The module of a generated source (written under the cache directory by hash)."""
        key = "source:" + hashlib.sha256(source.encode()).hexdigest()[:20]
        with _lock:
            m = _modules.get(key)
            if m is None:
                path = cache_dir() / "generated" / f"{key[7:]}.cu"
                if not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    tmp = path.with_suffix(f".{os.getpid()}.tmp")
                    tmp.write_text(source)
                    os.replace(tmp, path)
                m = _modules[key] = Module(path)
            return m

    def get_function(self, name: str) -> Kernel:
        k = self._kernels.get(name)
        if k is None:
            if name not in self.names:
                raise AttributeError(f"{self.path.name} has no kernel '{name}'")
            k = self._kernels[name] = Kernel(self, name)
        return k


def _dim3(d):
    d = (d,) if isinstance(d, int) else tuple(d)
    return (ctypes.c_uint * 3)(*(d + (1,) * (3 - len(d))))


class Kernel:
    """One `extern "C" __global__` function: kernel(grid, block, args, shared_mem=0).
    `fibers=False` runs each thread as a plain call (kernels without barriers or warp
    calls; one that synchronises anyway is an error)."""

    def __init__(self, module: Module, name: str):
        self.name = name
        self.fn = getattr(module.lib, f"ember_launch_{name}")
        self.fn.restype = ctypes.c_int

    def __call__(self, grid, block, args, shared_mem=0, fibers=True):
        keep, ptrs, sizes = [], [], []
        for a in args:
            if isinstance(a, np.generic):
                c = ctypes.create_string_buffer(a.tobytes(), a.itemsize)
            elif isinstance(a, int) and not isinstance(a, bool):  # a device pointer
                c = ctypes.c_void_p(a)
            else:
                raise TypeError(f"{self.name}: argument {len(keep)} is a {type(a).__name__}; "
                                "pass a device pointer (int) or a NumPy scalar of the kernel "
                                "parameter's type")
            keep.append(c)
            ptrs.append(ctypes.cast(ctypes.pointer(c), ctypes.c_void_p))
            sizes.append(ctypes.sizeof(c))
        n = len(args)
        mode = (1 if fibers else 0) | (2 if order[0] == "rev" else 0)
        with _lock:
            rc = self.fn(_dim3(grid), _dim3(block), ctypes.c_size_t(shared_mem),
                         (ctypes.c_void_p * max(n, 1))(*ptrs),
                         (ctypes.c_size_t * max(n, 1))(*sizes), n, mode)
        if rc <= -1000:
            i = -1000 - rc
            raise TypeError(f"{self.name}: argument {i} has {sizes[i]} bytes, not the size of "
                            "the kernel's parameter")
        if rc:
            raise RuntimeError(f"{self.name}: launch failed: " + {
                -1: "wrong number of arguments", -2: "block size out of [1, 1024]",
                -3: "the kernel synchronises: launch it with fibers",
                -4: "deadlock (see stderr)"}.get(rc, f"error {rc}"))
