"""CPU kernels of the shape family, vectorised NumPy: repeat, flip, roll,
tril/triu, index_select, gather, scatter*, masked_select, nonzero, sort, topk, unique.

Checks and layouts come from kernels/meta/shape.py.

    >>> ember.tensor([3, 1, 2]).sort().indices.tolist()
    [1, 2, 0]
"""
from __future__ import annotations

import warnings

import numpy as np

from ember.core import dtype as D
from ember.core.alloc import empty_cpu
from ember.core.factory_args import checked_scalar
from ember.core.tensor import Tensor, from_array
from ember.kernels.common._errors import not_implemented_for

from ..meta import shape as _m

_HALF = (D.float16, D.bfloat16)


def _emit(arr, dt, strides=None):
    """A new tensor holding `arr` (copied) with the given strides (None: contiguous)."""
    out = empty_cpu(arr.shape, dt, strides)
    out._np[...] = arr
    return out


def _fresh(arr, dt):
    """Wraps a freshly computed array (contiguous copy unless it already is one)."""
    return from_array(np.asarray(arr, order="C"), dt)


def _as1d(a):
    """0-d arrays as 1-element 1-d ones (views), so dim 0 works like torch's."""
    return a.reshape(1) if a.ndim == 0 else a


# --- repeat, flip, roll, tril / triu ---------------------------------------------------------
def repeat(self, repeats):
    shape = _m.repeat_shape(self, repeats)
    repeats = _m.int_list(repeats)
    padded = (1,) * (len(repeats) - len(self._shape)) + tuple(self._shape)
    if 0 in shape:
        return empty_cpu(shape, self._dtype)
    return _fresh(np.tile(self._np.reshape(padded), repeats), self._dtype)


def flip(self, dims):
    dims = _m.flip_dims(self, dims)
    a = self._np
    res = np.flip(a, dims) if dims and a.ndim else a
    return _emit(res, self._dtype, _m.preserve_strides(self))


def roll(self, shifts, dims):
    shifts, dims = _m.roll_args(self, shifts, dims)
    a = self._np
    if a.size == 0:
        return _emit(a, self._dtype, _m.preserve_strides(self))
    if dims is None:
        res = np.roll(a.reshape(-1), shifts[0]).reshape(a.shape)
    else:
        res = np.roll(a, shifts, dims)
    return _fresh(res, self._dtype)


def _tri_mask(fn, a, k):
    """The elements tril/triu keep, over a's last two dims."""
    n, m = a.shape[-2:]
    return np.tri(n, m, k, dtype=bool) if fn == "tril" else ~np.tri(n, m, k - 1, dtype=bool)


def _tri(fn, a, k):
    if a.size == 0:
        return a.copy()
    return np.where(_tri_mask(fn, a, k), a, np.zeros((), a.dtype))


def _tri_into(fn, self, k):
    """In place: only the dropped elements are written (zeros), as torch's kernel, so an
    expanded self (whose elements share memory) reads 0 wherever one of them is dropped."""
    a = self._np
    if a.size:
        a[..., ~_tri_mask(fn, a, k)] = 0
    return self


def tril(self, diagonal):
    _m.check_tri(self, "tril")
    return _fresh(_tri("tril", self._np, int(diagonal)), self._dtype)


def triu(self, diagonal):
    _m.check_tri(self, "triu")
    return _fresh(_tri("triu", self._np, int(diagonal)), self._dtype)


def tril_(self, diagonal):
    _m.check_tri(self, "tril")
    return _tri_into("tril", self, int(diagonal))


def triu_(self, diagonal):
    _m.check_tri(self, "triu")
    return _tri_into("triu", self, int(diagonal))


# --- index_select, gather, scatter ---------------------------------------------------------------
def index_select(self, dim, index):
    dim, shape = _m.index_select_layout(self, dim, index)
    idx = index._np.reshape(-1).astype(np.int64, copy=False)
    if not self._shape and idx.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{idx.size} value(s)")
    n = self._shape[dim] if self._shape else 1
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    if 0 in shape:
        return empty_cpu(shape, self._dtype)
    res = np.take(_as1d(self._np), idx, axis=dim)
    return _fresh(res.reshape(shape), self._dtype)


def _check_bounds(idx, dim, n):
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)].flat[0]
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {n}")


def _full_index(idx, dim):
    """The NumPy index addressing, for each element of `idx`, position idx along `dim` and
    the element's own position along the other dims."""
    nd = idx.ndim
    out = []
    for d, n in enumerate(idx.shape):
        if d == dim:
            out.append(idx)
        else:
            out.append(np.arange(n).reshape([n if k == d else 1 for k in range(nd)]))
    return tuple(out)


def gather(self, dim, index, sparse_grad):
    dim = _m.check_gather(self, dim, index)
    if index.numel() == 0:
        return empty_cpu(index._shape, self._dtype)
    a = _as1d(self._np)
    idx = _as1d(index._np).astype(np.int64, copy=False)
    _check_bounds(idx, dim, a.shape[dim])
    res = a[_full_index(idx, dim)]
    return _fresh(res.reshape(index._shape), self._dtype)


def _scatter_into(a, dim, index, src, reduce=None):
    """Writes src (a tensor or a number) into the NumPy array `a` at index along dim;
    reduce "add"/"multiply" accumulates (repeated indices add up)."""
    if index.numel() == 0:
        return
    a = _as1d(a)
    idx = _as1d(index._np).astype(np.int64, copy=False)
    _check_bounds(idx, dim, a.shape[dim])
    where = _full_index(idx, dim)
    if hasattr(src, "_dtype"):
        s = _as1d(src._np)
        vals = s[tuple(slice(0, n) for n in idx.shape)]
    else:  # a Scalar value: torch's checked conversion
        vals = np.asarray(checked_scalar(src, D.from_numpy_dtype(a.dtype))).astype(a.dtype)
    if reduce is None:
        a[where] = vals
    elif reduce == "add":
        if a.dtype == np.bool_:
            np.logical_or.at(a, where, vals)
        else:
            np.add.at(a, where, vals)
    else:
        if a.dtype == np.bool_:
            np.logical_and.at(a, where, vals)
        else:
            np.multiply.at(a, where, vals)


def _copy_of(self):
    return _emit(self._np, self._dtype)


def scatter(self, dim, index, src):
    dim = _m.check_scatter("scatter", self, dim, index, src)
    out = _copy_of(self)
    _scatter_into(out._np, dim, index, src)
    return out


def scatter_reduce(self, dim, index, src, reduce):
    dim = _m.check_scatter("scatter", self, dim, index, src, reduce)
    out = _copy_of(self)
    _scatter_into(out._np, dim, index, src, reduce)
    return out


def scatter_(self, dim, index, src):
    dim = _m.check_scatter("scatter", self, dim, index, src)
    _scatter_into(self._np, dim, index, src)
    return self


def scatter_reduce_(self, dim, index, src, reduce):
    dim = _m.check_scatter("scatter", self, dim, index, src, reduce)
    _scatter_into(self._np, dim, index, src, reduce)
    return self


def scatter_add(self, dim, index, src):
    dim = _m.check_scatter("scatter_add", self, dim, index, src)
    out = _copy_of(self)
    _scatter_into(out._np, dim, index, src, "add")
    return out


def scatter_add_(self, dim, index, src):
    dim = _m.check_scatter("scatter_add", self, dim, index, src)
    _scatter_into(self._np, dim, index, src, "add")
    return self


def _lowest(dt):
    return -np.inf if dt.kind == "f" or dt == D.bfloat16.np else (
        False if dt == np.bool_ else np.iinfo(dt).min)


def _highest(dt):
    return np.inf if dt.kind == "f" or dt == D.bfloat16.np else (
        True if dt == np.bool_ else np.iinfo(dt).max)


_UFUNC_TWO = {"sum": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum,
              "mean": np.add, "max": np.maximum, "min": np.minimum}


def _scatter_reduce_two_into(self, a, dim, index, src, reduce, include_self):
    if reduce == "mean" and self._dtype is D.bool_:
        # torch's kernel has no bool mean; with no index its count division (a floor
        # division for integral types) refuses bool instead
        raise not_implemented_for("div_floor_cpu" if index.numel() == 0 else
                                  "scatter_gather_tensor_cpu_reduce_mean", D.bool_)
    if index.numel() == 0:
        return
    a = _as1d(a)
    idx = _as1d(index._np).astype(np.int64, copy=False)
    _check_bounds(idx, dim, a.shape[dim])
    where = _full_index(idx, dim)
    vals = _as1d(src._np)[tuple(slice(0, n) for n in idx.shape)]
    half = self._dtype in _HALF
    work = a.astype(np.float32) if half else a
    if half:
        vals = vals.astype(np.float32)
    if not include_self:
        ident = {"sum": 0, "mean": 0, "prod": 1, "amax": _lowest(work.dtype),
                 "max": _lowest(work.dtype), "amin": _highest(work.dtype),
                 "min": _highest(work.dtype)}[reduce]
        work[where] = ident
    ufunc = _UFUNC_TWO[reduce]
    if work.dtype == np.bool_:
        ufunc = {np.add: np.logical_or, np.multiply: np.logical_and}.get(ufunc, ufunc)
    ufunc.at(work, where, vals)
    if reduce == "mean":
        count = np.full(work.shape, 1 if include_self else 0, np.int64)
        np.add.at(count, where, 1)
        count[count == 0] = 1
        if work.dtype.kind in "iub":
            work[...] = np.floor_divide(work, count).astype(work.dtype)
        else:
            work[...] = (work / count).astype(work.dtype)
    if half:
        a[...] = work


def scatter_reduce_two(self, dim, index, src, reduce, include_self):
    dim = _m.check_scatter_reduce_two(self, dim, index, src, reduce)
    out = _copy_of(self)
    _scatter_reduce_two_into(self, out._np, dim, index, src, reduce, include_self)
    return out


def scatter_reduce_two_(self, dim, index, src, reduce, include_self):
    dim = _m.check_scatter_reduce_two(self, dim, index, src, reduce)
    _scatter_reduce_two_into(self, self._np, dim, index, src, reduce, include_self)
    return self


# --- masked_select, nonzero, unique ----------------------------------------------------------------
def masked_select(self, mask):
    shape = _m.check_masked_select(self, mask)
    a = np.broadcast_to(self._np, shape)
    m = np.broadcast_to(mask._np, shape)
    return _fresh(a[m], self._dtype)


def nonzero(self):
    a = self._np
    idx = np.argwhere(a).astype(np.int64)   # (n, ndim)
    n = idx.shape[0]
    out = empty_cpu(idx.shape, D.int64, (1, max(n, 1)))   # torch's column-major layout
    out._np[...] = idx
    return out


def nonzero_static(self, size, fill_value=-1):
    """nonzero's first `size` rows (row-major, unlike nonzero), padded with fill_value."""
    _m.nonzero_static(self, size, fill_value)
    idx = np.argwhere(self._np)[:size]
    out = np.full((size, self.dim()), fill_value, np.int64)
    out[:len(idx)] = idx
    return _fresh(out, D.int64)


def nonzero_out(self, out):
    """nonzero's out=: like torch, an out of another shape is resized to the column-major
    layout the functional result has."""
    res = nonzero(self)
    if out._dtype is not D.int64:
        raise RuntimeError("nonzero: Expected out tensor to have scalar type Long but got "
                           f"scalar type {out._dtype.scalar_name}")
    if tuple(out._shape) != res._shape:
        if out.numel():
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out._shape)}, which does not match the required output shape "
                          f"{list(res._shape)}. This behavior is deprecated.", UserWarning,
                          stacklevel=3)
        out._np, out._shape, out._stride, out._offset = res._np, res._shape, res._stride, 0
        out._storage = res.untyped_storage()
        out._contig = None   # (the old array's mark: no longer holds, nor keeps it alive)
        return out
    out._np[...] = res._np
    return out


def _sortable(a, dt):
    """float16/bfloat16 as float32 (same order, exact) for NumPy's sorts."""
    return a.astype(np.float32) if dt in _HALF else a


def _empty_index():
    return from_array(np.zeros(0, np.int64), D.int64)


def unique2(self, sorted, return_inverse, return_counts):
    a = _sortable(self._np, self._dtype).reshape(-1)
    vals, inv, counts = np.unique(a, return_inverse=True, return_counts=True, equal_nan=False)
    values = _fresh(vals.astype(self._dtype.np), self._dtype)
    inverse = (_fresh(inv.reshape(self._shape).astype(np.int64), D.int64) if return_inverse
               else _empty_index())
    cnt = _fresh(counts.astype(np.int64), D.int64) if return_counts else _empty_index()
    return values, inverse, cnt


def unique_dim(self, dim, sorted, return_inverse, return_counts):
    dim = _m.check_unique_dim(self, dim)
    a = _sortable(self._np, self._dtype)
    vals, inv, counts = np.unique(a, axis=dim, return_inverse=True, return_counts=True)
    # torch works on the tensor with `dim` moved first and moves it back (a strided view)
    moved = np.moveaxis(np.ascontiguousarray(np.moveaxis(vals, dim, 0)), 0, dim)
    strides = tuple(st // moved.itemsize for st in moved.strides) if moved.size else None
    return (_emit(moved.astype(self._dtype.np), self._dtype, strides),
            _fresh(inv.reshape(-1).astype(np.int64), D.int64),
            _fresh(counts.astype(np.int64), D.int64))


# --- sort, topk ------------------------------------------------------------------------------------
def _argsort(a, axis, descending):
    """Stable argsort along axis; descending keeps equal elements in their order too
    (NaN sorts above everything, like torch)."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    rev = np.argsort(np.flip(a, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(rev, axis)


def _sorted(self, dim, descending):
    a = _as1d(self._np)
    idx = _argsort(_sortable(a, self._dtype), dim, descending)
    return np.take_along_axis(a, idx, dim), idx


def sort(self, dim, descending):
    dim = _m.sort_dim(self, dim)
    strides = _m.preserve_strides(self)
    if self.numel() == 0:
        return empty_cpu(self._shape, self._dtype, strides), empty_cpu(self._shape, D.int64,
                                                                          strides)
    vals, idx = _sorted(self, dim, descending)
    return (_emit(vals.reshape(self._shape), self._dtype, strides),
            _emit(idx.reshape(self._shape), D.int64, strides))


def sort_stable(self, stable, dim, descending):
    return sort(self, dim, descending)


def topk(self, k, dim, largest, sorted):
    dim, shape = _m.topk_layout(self, k, dim)
    if 0 in shape:
        return empty_cpu(shape, self._dtype), empty_cpu(shape, D.int64)
    vals, idx = _sorted(self, dim, largest)
    n = shape[dim] if shape else 1  # a 0-d tensor gives its element for k=0 too, like torch
    take = tuple(slice(0, n) if d == dim else slice(None) for d in range(vals.ndim))
    return (_fresh(vals[take].reshape(shape), self._dtype),
            _fresh(idx[take].reshape(shape).astype(np.int64), D.int64))


# --- index_add, index_copy, index_fill_, masked_scatter_, take, put_ ----------------------------
def _along(dim, idx):
    """The NumPy index selecting positions `idx` along `dim` (whole other dims)."""
    return (slice(None),) * dim + (idx,)


def _source_slab(source, ndim):
    s = source._np
    return s.reshape(1) if ndim == 1 and s.ndim == 0 else s


def _index_add_into(a, dim, index, source, alpha):
    if index.numel() == 0:
        return
    a = _as1d(a)
    idx = index._np.reshape(-1).astype(np.int64, copy=False)
    _check_bounds(idx, dim, a.shape[dim])
    vals = _source_slab(source, a.ndim)
    if alpha != 1:
        vals = (vals * alpha).astype(a.dtype)
    if a.dtype == np.bool_:
        np.logical_or.at(a, _along(dim, idx), vals)
    else:
        np.add.at(a, _along(dim, idx), vals)


def index_add(self, dim, index, source, alpha):
    dim = _m.check_index_add(self, dim, index, source)
    out = _copy_of(self)
    _index_add_into(out._np, dim, index, source, alpha)
    return out


def index_add_(self, dim, index, source, alpha):
    dim = _m.check_index_add(self, dim, index, source)
    _index_add_into(self._np, dim, index, source, alpha)
    return self


def _index_copy_into(a, dim, index, source):
    if index.numel() == 0:
        return
    a = _as1d(a)
    idx = index._np.reshape(-1)
    n = a.shape[dim]
    if idx.min() < 0 or idx.max() >= n:
        bad = idx[(idx < 0) | (idx >= n)][0]
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {dim} "
                         f"with size {n}")
    a[_along(dim, idx)] = _source_slab(source, a.ndim)


def index_copy(self, dim, index, source):
    dim = _m.check_index_copy(self, dim, index, source, IndexError)
    out = _copy_of(self)
    _index_copy_into(out._np, dim, index, source)
    return out


def index_copy_(self, dim, index, source):
    dim = _m.check_index_copy(self, dim, index, source, IndexError)
    _index_copy_into(self._np, dim, index, source)
    return self


def index_fill_(self, dim, index, value):
    dim = _m.check_index_fill(self, dim, index, value)
    if index.numel() == 0:
        return self
    a = _as1d(self._np)
    idx = index._np.reshape(-1)
    n = a.shape[dim]
    if idx.min() < -n or idx.max() >= n:
        bad = idx[(idx < -n) | (idx >= n)][0]
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {n}")
    v = value._np if hasattr(value, "_dtype") else checked_scalar(value, self._dtype)
    with np.errstate(all="ignore"):   # a tensor value is cast like torch's (wraps, inf)
        a[_along(dim, idx)] = np.asarray(v).astype(a.dtype)
    return self


def masked_scatter_(self, mask, source):
    _m.check_masked_scatter(self, mask, source)
    m = np.broadcast_to(mask.expand(self._shape)._np, self._np.shape)
    n = int(np.count_nonzero(m))
    if n > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if n:
        self._np[m] = source._np.reshape(-1)[:n]
    return self


# torch's IndexError for indices into an empty self, by op
_EMPTY_SELF = {"take": "take(): tried to take from an empty tensor",
               "put_": "put_(): Tried to put elements into an empty tensor"}


def _flat_index(self, index, op):
    """index wrapped into [0, numel) with torch's IndexError, as a NumPy index into self."""
    n = self.numel()
    idx = index._np.reshape(-1)
    if n == 0 and idx.size:
        raise IndexError(_EMPTY_SELF[op])
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)][0]
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")
    idx = np.where(idx < 0, idx + n, idx)
    return np.unravel_index(idx, self._shape) if self._shape else (idx,)


def take(self, index):
    _m.check_take(self, index)
    where = _flat_index(self, index, "take")
    if index.numel() == 0:
        return empty_cpu(index._shape, self._dtype)
    return _fresh(_as1d(self._np)[where].reshape(index._shape), self._dtype)


def put_(self, index, source, accumulate):
    _m.check_put(self, index, source)
    where = _flat_index(self, index, "put_")
    if index.numel() == 0:
        return self
    a = _as1d(self._np)
    vals = source._np.reshape(-1)
    if accumulate:
        if a.dtype == np.bool_:
            np.logical_or.at(a, where, vals)
        else:
            np.add.at(a, where, vals)
    else:
        a[where] = vals
    return self


def unique_consecutive(self, return_inverse, return_counts, dim):
    """The first of each run of equal elements (of equal slices along `dim`). As torch's,
    the inverse and the counts are empty unless asked for when the elements are flattened
    (no dim, or dim 0 of a 1-d self); the slices along a dim always come with both."""
    if dim is None or (dim == 0 and self.dim() == 1):
        a, dim = self._np.reshape(-1), None
    else:
        dim = _m.check_unique_dim(self, dim)
        a = np.moveaxis(self._np, dim, 0)
        return_inverse = return_counts = True
    n = a.shape[0]
    start = np.ones(n, bool)
    if n:
        flat = a.reshape(n, a[0].size)
        start[1:] = (flat[1:] != flat[:-1]).any(axis=1)
    if dim is None:
        values = _fresh(a[start], self._dtype)
    else:
        vals = np.moveaxis(np.ascontiguousarray(a[start]), 0, dim)
        values = _emit(vals, self._dtype,
                       tuple(st // vals.itemsize for st in vals.strides) if vals.size else None)
    group = np.cumsum(start) - 1
    counts = np.diff(np.append(np.flatnonzero(start), n))
    inverse = (_fresh(group.reshape(self._shape if dim is None else (n,)).astype(np.int64),
                      D.int64) if return_inverse else _empty_index())
    cnt = _fresh(counts.astype(np.int64), D.int64) if return_counts else _empty_index()
    return values, inverse, cnt


def repeat_interleave_tensor(repeats, output_size):
    """[0, 0, 1, 2, 2, 2] for repeats [2, 1, 3]: each index repeated its count."""
    _m.check_repeat_interleave(repeats)
    r = repeats._np.reshape(-1)
    if r.size and r.min() < 0:
        raise RuntimeError("repeats can not be negative")
    total = int(r.sum())
    if output_size is not None and output_size != total:
        raise RuntimeError("allocated size does not match required size")
    res = np.repeat(np.arange(r.size, dtype=repeats._dtype.np), r)
    return _fresh(res, repeats._dtype)


# --- searchsorted, bucketize -------------------------------------------------------------------
def _searchsorted_np(sorted_sequence, values, right, sorter, dtype):
    """Insertion points of `values` (a tensor or a Python number) into the last dim of
    sorted_sequence (1-d, or batched like values), both first converted to their common
    dtype like torch's (a number is a wrapped number: 255 into int8 boundaries is -1)."""
    ct = D.result_type(sorted_sequence, values).np
    seq = sorted_sequence._np.astype(ct)
    with np.errstate(over="ignore"):
        vals = (values._np if isinstance(values, Tensor) else np.array(values)).astype(ct)
    if sorter is not None:
        idx = sorter._np
        if idx.size and (idx.min() < 0 or idx.max() >= seq.shape[-1]):
            raise RuntimeError("ember.searchsorted(): sorter index out of range")
        seq = np.take_along_axis(seq, idx, -1)
    if ct.kind not in "iuf" or ct.itemsize < 4:   # bool, 8/16-bit: compared exactly as float64
        seq, vals = seq.astype(np.float64), vals.astype(np.float64)
    res = _bisect(seq, vals, right)
    return _fresh(res.astype(dtype.np), dtype)


def _bisect(seq, vals, right):
    """torch's binary search, vectorised over the values: the first position whose element
    is > val (right) or >= val (left), tested as torch tests it (`!(mid > val)`), so that a
    NaN inside the sequence sends the search where torch's goes (NumPy sorts NaN last)."""
    n = seq.shape[-1]
    lo, hi = np.zeros(vals.shape, np.int64), np.full(vals.shape, n, np.int64)
    with np.errstate(invalid="ignore"):
        while True:
            active = lo < hi
            if not active.any():
                return lo
            mid = lo + ((hi - lo) >> 1)
            at = np.minimum(mid, n - 1)
            m = seq[at] if seq.ndim == 1 else np.take_along_axis(seq, at, -1)
            go_right = active & ~((m > vals) if right else (m >= vals))
            lo = np.where(go_right, mid + 1, lo)
            hi = np.where(active & ~go_right, mid, hi)


def searchsorted(sorted_sequence, self, out_int32, right, side, sorter):
    right = _m.check_searchsorted(sorted_sequence, self._shape, out_int32, right, side, sorter)
    dt = _m._search_dtype(out_int32)
    if self.numel() == 0:
        return empty_cpu(self._shape, dt)
    return _searchsorted_np(sorted_sequence, self, right, sorter, dt)


def searchsorted_scalar(sorted_sequence, self, out_int32, right, side, sorter):
    right = _m.check_searchsorted(sorted_sequence, (), out_int32, right, side, sorter)
    value = self.item() if hasattr(self, "item") else self
    return _searchsorted_np(sorted_sequence, value, right, sorter, _m._search_dtype(out_int32))


def bucketize(self, boundaries, out_int32, right):
    _m.check_bucketize(boundaries)
    return searchsorted(boundaries, self, out_int32, right, None, None)


def bucketize_scalar(self, boundaries, out_int32, right):
    _m.check_bucketize(boundaries)
    return searchsorted_scalar(boundaries, self, out_int32, right, None, None)
