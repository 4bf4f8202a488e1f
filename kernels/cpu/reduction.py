"""Reductions on CPU tensors with NumPy: sum, mean, amax, argmax.

Results are fresh C-contiguous arrays (NumPy would otherwise follow a transposed
input's memory order). Like torch's CPU kernels, float16/bfloat16 sums and means
accumulate in float32 and cast back.

    >>> ember.tensor([[1, 2], [3, 4]]).sum(0)
    tensor([4, 6])
"""
import numpy as np

from ember.core import dtype as D
from ember.core.tensor import from_array

from ..meta import reduction as _meta

_F32 = np.dtype(np.float32)


def _acc_dtype(dt):
    """The NumPy dtype a reduction producing `dt` accumulates in."""
    return _F32 if dt is D.float16 or dt is D.bfloat16 else dt.np


def _add_reduce(a, axis, keepdim, out_shape, acc):
    """np.add.reduce of `a` (cast to `acc` on the fly when exact) into a contiguous array."""
    if a.dtype != acc and not np.can_cast(a.dtype, acc, "safe"):
        a = a.astype(acc)
    out = np.empty(out_shape, acc)
    np.add.reduce(a, axis=axis, dtype=acc, out=out, keepdims=keepdim)
    return out


def sum(self, dtype):
    """`x.sum(dtype=None)`: a 0-d tensor (int64 for bool/integer inputs)."""
    dt = self._dtype
    if dtype is None and (dt is D.float32 or dt is D.float64):  # the common case, one call
        return from_array(np.asarray(np.add.reduce(self._np, axis=None)), dt)
    return sum_dim(self, None, False, dtype)


def sum_dim(self, dim, keepdim, dtype):
    """`x.sum(dim, keepdim, dtype=None)`. The input is cast to the result dtype first
    (as torch does), so `[1.5, 2.5].sum(dtype=int32)` is 3."""
    axis, shape = _meta.reduce_layout(self, dim, keepdim)
    dt = _meta.sum_dtype(self._dtype, dtype)
    a = self._np
    if a.dtype != dt.np and not np.can_cast(a.dtype, dt.np, "safe"):
        a = a.astype(dt.np)
    out = _add_reduce(a, axis, keepdim, shape, _acc_dtype(dt))
    if out.dtype != dt.np:
        out = out.astype(dt.np)
    return from_array(out, dt)


def mean(self, dtype):
    return mean_dim(self, None, False, dtype)


def mean_dim(self, dim, keepdim, dtype):
    """`x.mean(dim, keepdim, dtype=None)`: sum (float32 for half types) / count."""
    dt = _meta.mean_dtype(self._dtype, dtype)
    axis, shape = _meta.reduce_layout(self, dim, keepdim)
    count = 1
    for d in axis:
        count *= self._shape[d]
    out = _add_reduce(self._np, axis, keepdim, shape, _acc_dtype(dt))
    with np.errstate(invalid="ignore", divide="ignore"):  # an empty mean is nan, no warning
        np.true_divide(out, count, out=out)
    if out.dtype != dt.np:
        out = out.astype(dt.np)
    return from_array(out, dt)


def amax(self, dim, keepdim):
    """`x.amax(dim=[], keepdim=False)`: the maximum over `dim` (all dims for []); NaN wins."""
    axis, shape = _meta.reduce_layout(self, dim, keepdim)
    _meta.check_amax(self, dim, axis)
    out = np.empty(shape, self._dtype.np)
    np.maximum.reduce(self._np, axis=axis, out=out, keepdims=keepdim)
    return from_array(out, self._dtype)


def argmax(self, dim, keepdim):
    """`x.argmax(dim=None, keepdim=False)`: int64 index of the first maximum (NaN counts as
    the maximum); dim=None indexes the flattened tensor."""
    d, shape = _meta.argmax_layout(self, dim, keepdim)
    a = self._np
    if d is None or a.ndim == 0:
        return from_array(np.full(shape, np.argmax(a), np.int64), D.int64)
    out = np.empty(shape, np.int64)
    np.argmax(a, axis=d, out=out, keepdims=keepdim)
    return from_array(out, D.int64)
