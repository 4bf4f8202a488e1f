"""Fused multiply-add compiled by numba: `x * y + z` rounded once, through LLVM's
`llvm.fma` (the processor's FMA instruction, or libm's exact `fma` where it has none), as
torch's vectorized add/sub/addcmul kernels compute it.

`fma_scalar` serves C-contiguous operands of one shape with a number for y (an optimizer's
weight decay and update over a whole layer), `fma_ufunc` everything else (broadcast
operands, an array y, any strides: a NumPy ufunc, 3x slower than the contiguous loop,
5-7x faster than binary.py's NumPy emulation); all give the emulation's bits. `llvm_fma` is the scalar intrinsic the inductor's generated kernels call. This module
imports numba: binary.py imports it on first use only; the loop is cached on disk.

    >>> x = np.ones(3, np.float32); fma_scalar(x, 0.5, x)
    array([1.5, 1.5, 1.5], dtype=float32)
"""
from __future__ import annotations

import numba
import numpy as np
from numba.extending import intrinsic


@intrinsic
def llvm_fma(typingctx, x, y, z):
    """x * y + z rounded once, for three floats of one numba type."""
    def codegen(context, builder, signature, args):
        return builder.fma(*args)
    return x(x, x, x), codegen


@numba.njit(cache=True, nogil=True)
def _loop(x, y, z, out):
    xf, zf, of = x.reshape(-1), z.reshape(-1), out.reshape(-1)
    for i in range(xf.size):
        of[i] = llvm_fma(xf[i], y, zf[i])


@numba.njit(cache=True, nogil=True)
def _loop_inplace(x, y, z):
    # (its own loop: with out aliasing z, LLVM's runtime alias check would take the
    # scalar loop, 2-3x slower)
    xf, zf = x.reshape(-1), z.reshape(-1)
    for i in range(xf.size):
        zf[i] = llvm_fma(xf[i], y, zf[i])


@numba.vectorize(["float32(float32, float32, float32)", "float64(float64, float64, float64)"],
                 cache=True)
def fma_ufunc(x, y, z):
    """x * y + z rounded once, as a ufunc: broadcasting, any strides, `out=`."""
    return llvm_fma(x, y, z)


def fma_scalar(x: np.ndarray, y, z: np.ndarray) -> np.ndarray:
    """x * y + z for C-contiguous float32/float64 arrays of one shape and dtype and a
    number y (converted to that dtype)."""
    out = np.empty(x.shape, x.dtype)
    _loop(x, x.dtype.type(y), z, out)
    return out


def fma_inplace(x: np.ndarray, y, z: np.ndarray) -> None:
    """z = x * y + z in place, as fma_scalar (an optimizer's update; a y that is already a
    NumPy scalar of x's dtype is not converted again)."""
    t = x.dtype.type
    _loop_inplace(x, y if y.__class__ is t else t(y), z)
