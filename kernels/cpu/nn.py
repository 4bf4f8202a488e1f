"""CPU kernels of the nn family (issue 4): dot, mv, baddbmm, softmax, normalisation and
loss ops, vectorised NumPy. float16/bfloat16 compute in float32 and round once.

    >>> ember.dot(ember.ones(3), ember.ones(3))
    tensor(3.)
"""
from __future__ import annotations

import numpy as np

from ember.core import dtype as D
from ember.core.tensor import from_array
from ember.kernels.common._errors import not_implemented_for

from ..meta import nn as _meta
from .linalg import _acc, _as, _finish, _matmul_into, _scalar


# --------------------------------------------------------------------------- linear algebra
def dot(self, tensor):
    """The inner product of two 1-D tensors (a 0-d result)."""
    _meta.check_dot(self, tensor)
    dt = self._dtype
    if dt is D.bool_:
        raise not_implemented_for("dot", dt)
    acc = _acc(dt)
    out = np.asarray(np.dot(_as(self._np, acc), _as(tensor._np, acc)))
    return _finish(np.array(out, dtype=acc), dt)


def mv(self, vec):
    """The (n x k) matrix times (k,) vector product."""
    shape = _meta.check_mv(self, vec)
    dt = self._dtype
    if dt is D.bool_:
        raise not_implemented_for("addmv_impl_cpu", dt)
    return _finish(_matmul_into(shape, self._np, vec._np, dt), dt)


def _baddbmm_array(self, batch1, batch2, beta, alpha, shape):
    dt = self._dtype
    if dt is D.bool_:
        raise not_implemented_for("baddbmm", dt)
    alpha, beta = _scalar(alpha, dt), _scalar(beta, dt)
    if alpha == 0:
        out = np.zeros(shape, _acc(dt))
    else:
        out = _matmul_into(shape, batch1._np, batch2._np, dt)
        if alpha != 1:
            out *= alpha
    if beta != 0:     # beta=0 ignores self (NaN included), like BLAS
        s = _as(self._np, out.dtype)
        out += s if beta == 1 else s * beta
    return out


def baddbmm(self, batch1, batch2, beta, alpha):
    """`beta * self + alpha * (batch1 @ batch2)`, self broadcast to (b, n, p)."""
    shape = _meta.check_baddbmm(self, batch1, batch2)
    return _finish(_baddbmm_array(self, batch1, batch2, beta, alpha, shape), self._dtype)


def baddbmm_(self, batch1, batch2, beta, alpha):
    shape = _meta.check_baddbmm(self, batch1, batch2, inplace=True)
    out = _baddbmm_array(self, batch1, batch2, beta, alpha, shape)
    self._np[...] = out.astype(self._dtype.np, copy=False)
    return self


# --------------------------------------------------------------------------- softmax
def _float_view(t):
    """t's values in the computation dtype (float32 for half types), at least 1-D."""
    a = t._np
    if t._dtype is D.float16 or t._dtype is D.bfloat16:
        a = a.astype(np.float32)
    return a.reshape(1) if a.ndim == 0 else a


def _result(arr, t, dt=None):
    dt = dt or t._dtype
    return from_array(np.array(arr.reshape(t._shape), dtype=dt.np, order="C"), dt)


def _check_float(kind, t, d):
    if t._dtype.category != D.FLOAT and t.numel() != 0:
        raise not_implemented_for(_meta.softmax_kernel_name(kind, t, d), t._dtype)


def softmax_forward(self, dim, half_to_float):
    """exp(x - max) / sum(exp(x - max)) along dim."""
    d = _meta.check_softmax(self, dim, half_to_float)
    _check_float("softmax", self, d)
    a = _float_view(self)
    if a.size == 0:
        return _result(a.copy(), self)
    e = np.exp(a - a.max(axis=d, keepdims=True))
    e /= e.sum(axis=d, keepdims=True)
    return _result(e, self)


def log_softmax_forward(self, dim, half_to_float):
    """x - max - log(sum(exp(x - max))) along dim."""
    d = _meta.check_softmax(self, dim, half_to_float)
    _check_float("log_softmax", self, d)
    a = _float_view(self)
    if a.size == 0:
        return _result(a.copy(), self)
    shifted = a - a.max(axis=d, keepdims=True)
    shifted -= np.log(np.exp(shifted).sum(axis=d, keepdims=True))
    return _result(shifted, self)


def softmax_backward_data(grad_output, output, dim, input_dtype):
    """output * (grad - sum(grad * output)) along dim."""
    d = _meta.check_softmax_backward(grad_output, output, dim, input_dtype)
    _check_float("softmax_backward", grad_output, d)
    g, y = _float_view(grad_output), _float_view(output)
    gy = g * y
    return _result(gy - y * gy.sum(axis=d, keepdims=True), grad_output)


def log_softmax_backward_data(grad_output, output, dim, input_dtype):
    """grad - exp(output) * sum(grad) along dim."""
    d = _meta.check_softmax_backward(grad_output, output, dim, input_dtype)
    _check_float("log_softmax_backward", grad_output, d)
    g, y = _float_view(grad_output), _float_view(output)
    return _result(g - np.exp(y) * g.sum(axis=d, keepdims=True), grad_output)
