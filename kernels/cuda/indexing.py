"""CUDA indexing kernels: cat (copies into slices), index_select, gather, embedding and its
backward, scatter and scatter_add (indexing.cu; atomics for the adds), advanced indexing
(index, index_put_ with accumulate: one element offset per index position, then the gather
and scatter kernels) and masks (nonzero, masked_select, masked_scatter_ through a running
count of the mask). Out-of-range indices raise torch's errors on the host.

    >>> ember.arange(5.).cuda().index_select(0, ember.tensor([4, 0]).cuda()).cpu()  # doctest: +SKIP
    tensor([4., 0.])
"""
import math

import numpy as np

from ember.core import dtype as D
from ember.core.tensor import contiguous_strides
from ember.cuda import _runtime
from ember.kernels.cuda import _launch as L
from ember.kernels.cuda import pointwise as _pw
from ember.kernels.cuda import reduction as _red
from ember.kernels.cuda import scan as _scan
from ember.kernels.cuda.copy import contiguous_on_device, copy_
from ember.kernels.meta import conv as MC
from ember.kernels.meta import indexing as MI
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


# --------------------------------------------------------------------------- masks
def _mask_positions(mask, shape):
    """(mask broadcast to shape as a contiguous bool tensor, its inclusive running count,
    the number of Trues: one 8-byte copy to the host, as torch's CUDA syncs here too)."""
    m = contiguous_on_device(mask.expand(shape), shape, D.bool_)
    pos = _scan.cumsum(m.reshape(-1), 0, D.int64)
    return m, pos, (int(pos[-1].item()) if pos.numel() else 0)


def nonzero(self):
    """(count, ndim) int64 coordinates of the non-zeros, column-major like torch's."""
    dev, shape = self._device, self._shape
    m, pos, count = _mask_positions(self, shape)
    out = L.empty(dev, (count, len(shape)), (1, max(count, 1)), D.int64)
    if count and shape:
        L.launch("indexing", "nonzero_coords", m.numel(),
                 (np.int64(m.numel()), _runtime.constant_buffer(_runtime.device_index(dev),
                                                                (len(shape), *shape)),
                  m.data_ptr(), pos.data_ptr(), out.data_ptr(), np.int64(count)))
    return out


def masked_select(self, mask):
    shape = MS.check_masked_select(self, mask)
    m, pos, count = _mask_positions(mask, shape)
    out = L.empty(self._device, (count,), (1,), self._dtype)
    if count:
        buf = L.layout_buffer(self._device, shape, [L.broadcast_strides(self, shape)])
        L.launch("indexing", f"masked_select_{self._dtype.name}", m.numel(),
                 (np.int64(m.numel()), buf, out.data_ptr(), self.data_ptr(), m.data_ptr(),
                  pos.data_ptr()))
    return out


def masked_scatter_(self, mask, source):
    """self's elements where mask is True take source's elements in order."""
    MS.check_masked_scatter(self, mask, source)
    m, pos, count = _mask_positions(mask, self._shape)
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if count:
        src = contiguous_on_device(source)
        buf = L.layout_buffer(self._device, self._shape, [self.stride()])
        L.launch("indexing", f"masked_scatter_{self._dtype.name}", m.numel(),
                 (np.int64(m.numel()), buf, self.data_ptr(), m.data_ptr(), pos.data_ptr(),
                  src.data_ptr()))
    return self


# --------------------------------------------------------------------------- index, index_put_
def _index_layout(self, indices):
    """Advanced indexing as one element offset into self per broadcast index position:
    (offsets, the indexed shape, self's strides over it (0 along the index dims), the
    offsets' strides over it). The index dims replace the indexed ones in place, or go first
    when those are not adjacent (torch's rule). Masks become their nonzero columns;
    out-of-range indices raise torch's IndexError."""
    per_dim = []
    for t in indices:
        if t is not None and t._device != self._device:   # CPU indices move over, as in torch
            t = copy_(L.empty(self._device, t._shape, contiguous_strides(t._shape), t._dtype),
                      t, False)
        if t is None:
            per_dim.append(None)
        elif t._dtype in (D.bool_, D.uint8):
            if t.dim() == 0:
                raise NotImplementedError("indexing with a 0-d mask is not implemented for CUDA")
            nz = nonzero(t)
            per_dim.extend(nz[:, j] for j in range(t.dim()))
        else:
            per_dim.append(t)
    per_dim += [None] * (self.dim() - len(per_dim))
    pos = [d for d, t in enumerate(per_dim) if t is not None]
    offsets = None
    for k, d in enumerate(pos):
        i, n = L.to_device_dtype(per_dim[d], D.int64, self._device), self._shape[d]
        if i.numel():
            lo, hi = int(_red.min_all(i).item()), int(_red.max_all(i).item())
            if lo < -n or hi >= n:
                bad = hi if hi >= n else lo
                raise IndexError(f"index {bad} is out of bounds for dimension {k} with size {n}")
        wrapped = _pw.add(i, _pw.mul(_pw.lt(i, 0), n))
        term = _pw.mul(wrapped, self.stride(d))
        offsets = term if offsets is None else _pw.add(offsets, term)
    rest = [d for d in range(self.dim()) if per_dim[d] is None]
    before = pos[0] if pos[-1] - pos[0] + 1 == len(pos) else 0
    lead, tail = rest[:before], rest[before:]
    nb = offsets.dim()
    shape = tuple(self._shape[d] for d in lead) + offsets._shape + \
        tuple(self._shape[d] for d in tail)
    self_st = [self.stride(d) for d in lead] + [0] * nb + [self.stride(d) for d in tail]
    off_st = [0] * len(lead) + list(offsets.stride()) + [0] * len(tail)
    return offsets, shape, self_st, off_st


def _write_at(self, offsets, shape, self_st, off_st, values, add):
    """self[... offsets ...] (+)= values over the indexed shape (scatter kernels, stride 1)."""
    n = math.prod(shape)
    if n == 0:
        return self
    dev = self._device
    buf = L.layout_buffer(dev, shape, [self_st, off_st, L.broadcast_strides(values, shape)])
    L.launch("indexing", f"{'scatter_add' if add else 'scatter'}_{self._dtype.name}", n,
             (np.int64(n), buf, self.data_ptr(), offsets.data_ptr(), values.data_ptr(),
              np.int64(1), np.int64(2 ** 62), np.int64(L.NO_BAD_INDEX),
              L.bad_index_flag(dev).data_ptr()))
    return self


def _plan(self, indices, with_strides):
    """The Meta rules' index plan (checks, result layout); masks counted on the device."""
    indices = [t.to(D.bool_) if t is not None and t._dtype is D.uint8 else t for t in indices]
    return MI.index_plan(self, indices, lambda m: int(_red.sum(m, D.int64).item()),
                         with_strides)


def index(self, indices):
    """self[indices]: a gather through the element offsets of the index positions."""
    plan = _plan(self, indices, True)
    out = L.empty(self._device, plan.shape, plan.strides, self._dtype)
    if out.numel() == 0:
        return out
    if all(t is None for t in indices):
        return copy_(out, self, False)
    offsets, shape, self_st, off_st = _index_layout(self, indices)
    buf = L.layout_buffer(self._device, shape, [out.stride(), self_st, off_st])
    n = out.numel()
    L.launch("indexing", f"gather_{self._dtype.name}", n,
             (np.int64(n), buf, out.data_ptr(), self.data_ptr(), offsets.data_ptr(),
              np.int64(1), np.int64(2 ** 62), L.bad_index_flag(self._device).data_ptr()))
    return out


def index_put_(self, indices, values, accumulate):
    """self[indices] = values (accumulate: +=, repeated positions add up, atomics); types
    without CUDA atomics accumulate in an int32 copy."""
    plan = _plan(self, indices, False)
    if accumulate or not MI.can_masked_fill(indices, values):
        MI.check_index_put(self, values, plan.shape)
    if 0 in plan.shape:
        return self
    if accumulate and self._dtype.name not in _SCATTER_DTYPES:
        wide = contiguous_on_device(self, None, D.int32)
        index_put_(wide, indices, L.to_device_dtype(values, D.int32, self._device), True)
        return copy_(self, wide, False)
    if values._device.type != "cuda":   # the masked_fill shortcut's one-element CPU value
        values = values.reshape(())
    values = L.to_device_dtype(values, self._dtype, self._device)
    if all(t is None for t in indices):
        return _pw.add_(self, values) if accumulate else copy_(self, values, False)
    return _write_at(self, *_index_layout(self, indices), values, accumulate)
