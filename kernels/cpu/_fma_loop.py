"""Fused multiply-add compiled by numba: `x * y + z` rounded once, through LLVM's
`llvm.fma` (the processor's FMA instruction, or libm's exact `fma` where it has none), as
torch's vectorized add/sub/addcmul kernels compute it.

`fma_scalar` serves large operands (an optimizer's weight decay and update over a whole
layer), where the NumPy emulation in binary.py makes several passes; both give the same
bits. `llvm_fma` is the scalar intrinsic the inductor's generated kernels call. This module
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
    for i in range(x.size):
        out[i] = llvm_fma(x[i], y, z[i])


def fma_scalar(x: np.ndarray, y, z: np.ndarray) -> np.ndarray:
    """x * y + z for C-contiguous float32/float64 arrays of one shape and dtype and a
    number y (converted to that dtype)."""
    out = np.empty(x.shape, x.dtype)
    _loop(x.reshape(-1), x.dtype.type(y), z.reshape(-1), out.reshape(-1))
    return out
