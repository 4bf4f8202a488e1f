"""CUDA sort and topk over sort.cu's rank kernel (stable; NaN sorts above everything; the
descending order keeps equal elements in index order, as ember's CPU kernel and torch's
stable sort do). Shapes, strides and errors come from the Meta rules.

    >>> ember.tensor([3., 1., 2.]).cuda().sort().values.cpu()     # doctest: +SKIP
    tensor([1., 2., 3.])
"""
import numpy as np

from ember.core import dtype as D
from ember.core.tensor import contiguous_strides
from ember.kernels.cuda import _launch as L
from ember.kernels.meta import shape as MS


def _ranked(val, idx, self, dim, k, descending):
    """The first k elements of each row of self along dim, in order, into val and idx."""
    if val.numel() == 0:
        return val, idx
    d = dim if self.dim() else 0
    rows, buf, strides = L.rows_layout([val, idx, self], d)
    n = self._shape[d] if self.dim() else 1
    L.launch("sort", f"sort_{self._dtype.name}", rows * n,
             (np.int64(rows), np.int64(n), np.int64(k), buf, *map(np.int64, strides),
              val.data_ptr(), idx.data_ptr(), self.data_ptr(), np.int32(bool(descending))))
    return val, idx


def sort(self, dim, descending):
    vals, idx = MS.sort(self, dim, descending)
    d = MS.sort_dim(self, dim)
    n = self._shape[d] if self.dim() else 1
    return _ranked(L.empty_like_meta(vals, self._device), L.empty_like_meta(idx, self._device),
                   self, d, n, descending)


def sort_stable(self, stable, dim, descending):
    return sort(self, dim, descending)


def topk(self, k, dim, largest, sorted):
    """The k largest (smallest) along dim, always sorted (as the CPU kernel returns them)."""
    d, shape = MS.topk_layout(self, k, dim)
    dev = self._device
    vals = L.empty(dev, shape, contiguous_strides(shape), self._dtype)
    idx = L.empty(dev, shape, contiguous_strides(shape), D.int64)
    # a 0-d tensor gives its element for k=0 too, like torch
    return _ranked(vals, idx, self, d, k if self.dim() else 1, largest)
