"""CUDA indexing kernels: cat (copies into slices), index_select, gather, embedding and its
backward, scatter and scatter_add (indexing.cu; atomics for the adds). Out-of-range indices
are flagged by the kernels and raise torch's errors on the host.

    >>> ember.arange(5.).cuda().index_select(0, ember.tensor([4, 0]).cuda()).cpu()  # doctest: +SKIP
    tensor([4., 0.])
"""
import numpy as np

from ember.core import dtype as D
from ember.core.tensor import contiguous_strides
from ember.kernels.cuda import _launch as L
from ember.kernels.cuda import pointwise as _pw
from ember.kernels.cuda.copy import copy_
from ember.kernels.meta import conv as MC
from ember.kernels.meta import shape as MS
from ember.kernels.meta.indexing import cat_layout

_SCATTER_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64")


def cat(tensors, dim):
    kept, dim, shape, strides, dt = cat_layout(tensors, dim)
    dev = L.cuda_device(*tensors)
    out = L.empty(dev, shape, strides, dt)
    start = 0
    for t in kept:
        n = t._shape[dim]
        copy_(out.narrow(dim, start, n), t, False)
        start += n
    return out


def _as_1d(t):
    return t.reshape(1) if t.dim() == 0 else t


def _gather(out, src, dim, index, index_strides, message, error):
    """out[p] = src[p with coordinate dim replaced by index[p]] over out's shape; an index
    out of range raises error(message(index))."""
    n = out.numel()
    if n == 0:
        return
    dev = out._device
    idx = L.to_device_dtype(index, D.int64, dev)
    src_st = list(src.stride())
    src_st[dim] = 0
    buf = L.layout_buffer(dev, out._shape, [out.stride(), src_st, index_strides(idx)])
    bad = L.bad_index_flag(dev)
    L.launch("indexing", f"gather_{src._dtype.name}", n,
             (np.int64(n), buf, out.data_ptr(), src.data_ptr(), idx.data_ptr(),
              np.int64(src.stride(dim)), np.int64(src._shape[dim]), bad.data_ptr()))
    L.raise_if_bad(bad, message, error)


def index_select(self, dim, index):
    dim, shape = MS.index_select_layout(self, dim, index)
    if not self._shape and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{index.numel()} value(s)")
    out = L.empty(self._device, shape, contiguous_strides(shape), self._dtype)
    src = _as_1d(self)
    _gather(_as_1d(out), src, dim, index,
            lambda i: [i.stride(0) if d == dim and i.dim() else 0 for d in range(src.dim())],
            lambda b: "index out of range in self", IndexError)
    return out


def gather(self, dim, index, sparse_grad):
    dim = MS.check_gather(self, dim, index)
    out = L.empty(self._device, index._shape, contiguous_strides(index._shape), self._dtype)
    src = _as_1d(self)
    _gather(_as_1d(out), src, dim, _as_1d(index), lambda i: list(i.stride()),
            lambda b: f"index {b} is out of bounds for dimension {dim} with size "
                      f"{src._shape[dim]}", RuntimeError)
    return out


def embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
    MC.embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)
    rows = index_select(weight, 0, indices.reshape(-1))
    return rows.view(*indices._shape, weight._shape[1])


def _scatter_into(self, dim, index, src, add=True, skip=L.NO_BAD_INDEX, message=None):
    """self[... index ...] += src (add: atomics, repeated indices add up) or = src over
    index's shape; src is a tensor or a number. Types without CUDA atomics add in int32 and
    cast back (wrapping like torch's)."""
    if add and self._dtype.name not in _SCATTER_DTYPES:
        wide = copy_(L.empty(self._device, self._shape, contiguous_strides(self._shape),
                             D.int32), self, False)
        return copy_(self, _scatter_into(wide, dim, index, src, add, skip, message), False)
    n = index.numel()
    if n == 0:
        return self
    dev = self._device
    idx = L.to_device_dtype(index, D.int64, dev)
    src = L.to_device_dtype(src, self._dtype, dev)
    self_st = list(self.stride())
    self_st[dim] = 0
    src_st = src.stride() if src.dim() else (0,) * idx.dim()
    buf = L.layout_buffer(dev, idx._shape, [self_st, idx.stride(), src_st])
    bad = L.bad_index_flag(dev)
    L.launch("indexing", f"{'scatter_add' if add else 'scatter'}_{self._dtype.name}", n,
             (np.int64(n), buf, self.data_ptr(), idx.data_ptr(), src.data_ptr(),
              np.int64(self.stride(dim)), np.int64(self._shape[dim]), np.int64(skip),
              bad.data_ptr()))
    L.raise_if_bad(bad, message or (lambda b: f"index {b} is out of bounds for dimension {dim} "
                                    f"with size {self._shape[dim]}"), RuntimeError)
    return self


def _scatter_kernel(name, add):
    """scatter_add_ / scatter_ (src a tensor or, for scatter_, a number)."""
    def kernel(self, dim, index, src):
        dim = MS.check_scatter(name, self, dim, index, src)
        if self.dim() == 0:
            _scatter_into(self.reshape(1), 0, _as_1d(index),
                          _as_1d(src) if hasattr(src, "_dtype") else src, add)
            return self
        return _scatter_into(self, dim, index, src, add)
    kernel.__name__ = kernel.__qualname__ = name + "_"
    return kernel


def _scatter_copy(inplace):
    def kernel(self, dim, index, src):
        MS.check_scatter(inplace.__name__[:-1], self, dim, index, src)
        out = copy_(L.empty(self._device, self._shape, contiguous_strides(self._shape),
                            self._dtype), self, False)
        return inplace(out, dim, index, src)
    kernel.__name__ = kernel.__qualname__ = inplace.__name__[:-1]
    return kernel


scatter_add_ = _scatter_kernel("scatter_add", True)
scatter_ = _scatter_kernel("scatter", False)
scatter_add = _scatter_copy(scatter_add_)
scatter = _scatter_copy(scatter_)


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    """Rows of grad_output summed into the rows `indices` name (padding_idx skipped)."""
    MC.embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
                                scale_grad_by_freq)
    d = grad_output._shape[-1]
    gw = L.fill(L.empty(grad_output._device, (num_weights, d), (d, 1), grad_output._dtype), 0)
    idx = indices.reshape(-1)
    g = grad_output.reshape(-1, d)
    skip = padding_idx if padding_idx >= 0 else L.NO_BAD_INDEX
    if scale_grad_by_freq and idx.numel():   # each row divided by how often its index occurs
        counts = L.fill(L.empty(gw._device, (num_weights,), (1,), gw._dtype), 0)
        _scatter_into(counts, 0, idx, L.fill(L.empty(gw._device, idx._shape, (1,),
                                                         gw._dtype), 1), True, skip)
        freq = index_select(counts, 0, L.to_device_dtype(idx, D.int64, gw._device))
        g = _pw.div(g, freq.view(-1, 1))
    if idx.numel():
        _scatter_into(gw, 0, idx.view(-1, 1).expand(idx.numel(), d), g, True,
                      skip, lambda b: "index out of range in self")
    return gw
