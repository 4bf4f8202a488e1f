"""CUDA matrix products: mm, bmm, addmm through matmul.cu's tiled shared-memory kernel (on a
GPU with CuPy, cuBLAS would be the fast path; this kernel is the emulator's and the
reference). Operands may have any strides.

    >>> (ember.ones(2, 3, device="cuda") @ ember.ones(3, 4, device="cuda")).cpu()  # doctest: +SKIP
"""
import numpy as np

from ember.core import dtype as D
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.cuda import _launch as L
from ember.kernels.cuda.copy import copy_
from ember.kernels.meta import linalg as ML

TILE = 16


def _strides3(t):
    """(batch, row, col) strides of a 2-d or 3-d operand (batch 0 for a matrix)."""
    st = t.stride()
    return (0, *st) if t.dim() == 2 else st


def _gemm(out, a, b, bias=None, alpha=1, beta=0):
    """out = beta * bias + alpha * a @ b; a (B?, M, K), b (B?, K, N), bias broadcast to out."""
    dt = out._dtype
    if dt is D.bool_:
        raise not_implemented_for("addmm_impl_cpu_", dt)
    batch = out._shape[0] if out.dim() == 3 else 1
    M, N = out._shape[-2], out._shape[-1]
    K = a._shape[-1]
    if out.numel() == 0:
        return out
    if bias is not None:
        bias = bias.expand(out._shape)
    st = [*_strides3(a), *_strides3(b), *_strides3(out),
          *(_strides3(bias) if bias is not None else (0, 0, 0))]
    buf = L._runtime.constant_buffer(L._runtime.device_index(out._device), tuple(st))
    grid = (-(-N // TILE), -(-M // TILE), batch)
    L.launch("matmul", f"gemm_{dt.name}", 0,
             (np.int64(M), np.int64(N), np.int64(K), buf, out.data_ptr(), a.data_ptr(),
              b.data_ptr(), bias.data_ptr() if bias is not None else 0,
              L.acc_scalar(dt, alpha), L.acc_scalar(dt, beta)),
             fibers=True, block=(TILE, TILE), grid=grid)
    return out


def mm(self, mat2):
    return _gemm(L.empty_like_meta(ML.mm(self, mat2), self._device), self, mat2)


def bmm(self, mat2):
    return _gemm(L.empty_like_meta(ML.bmm(self, mat2), self._device), self, mat2)


def addmm(self, mat1, mat2, beta, alpha):
    out = L.empty_like_meta(ML.addmm(self, mat1, mat2, beta, alpha), mat1._device)
    return _gemm(out, mat1, mat2, self if beta != 0 else None, alpha, beta)


def addmm_(self, mat1, mat2, beta, alpha):
    """addmm into a new buffer (self is the product's bias), copied into self."""
    ML.addmm_(self, mat1, mat2, beta, alpha)
    return copy_(self, addmm(self, mat1, mat2, beta, alpha), False)
