"""Meta kernels of the shape family: repeat, flip, roll, tril/triu, index_select,
gather, scatter*, topk, sort, and the data-dependent ones (masked_select, nonzero,
_unique2, unique_dim) that raise NotImplementedError like torch's Meta device.

The `*_layout` / `check_*` functions are shared with kernels/cpu/shape.py, so both
backends give the same shapes, strides, dtypes and errors.

    >>> x = ember.empty(3, 4, device="meta")
    >>> x.repeat(2, 2, 1).shape
    ember.Size([2, 6, 4])
"""
from __future__ import annotations

import warnings

from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.core.factory_args import like_strides
from ember.core.shapes import broadcast_shapes
from ember.kernels.common._view_rules import int_list, wrap, wrap_list


def _meta(shape, dt, strides=None):
    return empty_meta(tuple(shape), dt, strides)


def preserve_strides(t) -> tuple:
    """empty_like(t)'s strides: t's own when dense, else dense in t's dim order."""
    return like_strides(t._shape, t.stride(), None)


# --- repeat, flip, roll, tril / triu ---------------------------------------------------------
def repeat_shape(self, repeats) -> tuple:
    repeats = int_list(repeats)
    if len(repeats) < len(self._shape):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    padded = (1,) * (len(repeats) - len(self._shape)) + tuple(self._shape)
    shape = tuple(p * r for p, r in zip(padded, repeats))
    for n in shape:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(shape)}")
    return shape


def repeat(self, repeats):
    return _meta(repeat_shape(self, repeats), self._dtype)


def flip_dims(self, dims) -> tuple:
    return wrap_list(dims, len(self._shape))


def flip(self, dims):
    flip_dims(self, dims)
    return _meta(self._shape, self._dtype, preserve_strides(self))


def roll_args(self, shifts, dims) -> tuple:
    """(shifts, wrapped dims); dims=[] with one shift rolls the flattened tensor (dims None)."""
    shifts, dims = int_list(shifts), int_list(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(dims) == 0 and len(shifts) == 1:
        return shifts, None
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if 0 in self._shape:   # (torch returns an empty self's clone before reading its dims)
        return shifts, dims
    ndim = len(self._shape)
    if ndim == 0:  # torch reads self.size(dim), which takes no dim of a 0-d tensor
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    return shifts, tuple(wrap(d, ndim) for d in dims)


def roll(self, shifts, dims):
    roll_args(self, shifts, dims)
    if self.numel() == 0:  # torch returns self.clone()
        return _meta(self._shape, self._dtype, preserve_strides(self))
    return _meta(self._shape, self._dtype)


def check_tri(self, name):
    if len(self._shape) < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


def tril(self, diagonal):
    check_tri(self, "tril")
    return _meta(self._shape, self._dtype)


def triu(self, diagonal):
    check_tri(self, "triu")
    return _meta(self._shape, self._dtype)


def tril_(self, diagonal):
    check_tri(self, "tril")
    return self


def triu_(self, diagonal):
    check_tri(self, "triu")
    return self


# --- index_select, gather, scatter ---------------------------------------------------------------
def index_select_layout(self, dim, index) -> tuple:
    """(wrapped dim, result shape) after torch's checks."""
    ndim = len(self._shape)
    dim = wrap(dim, ndim)
    if len(index._shape) > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._dtype not in (D.int64, D.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if not ndim:
        return dim, ()
    n = index.numel()
    return dim, self._shape[:dim] + (n,) + self._shape[dim + 1:]


def index_select(self, dim, index):
    _, shape = index_select_layout(self, dim, index)
    return _meta(shape, self._dtype)


def _shape_or_1(t):
    return tuple(t._shape) if t._shape else (1,)


def check_gather(self, dim, index) -> int:
    ndim = len(self._shape)
    dim = wrap(dim, ndim)
    if index._dtype not in (D.int64, D.int32) and index.numel():   # torch: empty passes
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if index.numel() == 0:
        return dim
    if max(len(index._shape), 1) != max(ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    ss, isz = _shape_or_1(self), _shape_or_1(index)
    for d in range(len(ss)):
        if d != dim and isz[d] > ss[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{list(index._shape)} to be no larger than self "
                               f"{list(self._shape)} apart from dimension {dim}")
    return dim


def gather(self, dim, index, sparse_grad):
    check_gather(self, dim, index)
    return _meta(index._shape, self._dtype)


_SCATTER_REDUCE = ("add", "multiply")


def check_scatter(name, self, dim, index, src, reduce=None) -> int:
    """torch's scatter / scatter_add checks (src a tensor or a number); the wrapped dim.
    (torch's messages say scatter() for scatter_add and scatter_reduce too.)"""
    name = "scatter"
    ndim = len(self._shape)
    dim = wrap(dim, ndim)
    if index._dtype not in (D.int64, D.int32) and index.numel():   # torch: empty passes
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    is_tensor = hasattr(src, "_dtype")
    if is_tensor and src._dtype is not self._dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
    if reduce is not None and is_tensor:
        warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and "
                      "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                      "instead for more reduction options.", UserWarning, stacklevel=4)
    if index.numel() == 0:
        _check_reduce(reduce, _SCATTER_REDUCE)
        return dim
    if max(len(index._shape), 1) != max(ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if is_tensor and max(len(src._shape), 1) != max(ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    ss, isz = _shape_or_1(self), _shape_or_1(index)
    bad = any(d != dim and isz[d] > ss[d] for d in range(len(ss)))
    if is_tensor:
        srs = _shape_or_1(src)
        if bad or any(isz[d] > srs[d] for d in range(len(ss))):
            raise RuntimeError(f"Expected index {list(index._shape)} to be no larger than self "
                               f"{list(self._shape)} apart from dimension {dim} and to be no "
                               f"larger size than src {list(src._shape)}")
    elif bad:
        raise RuntimeError(f"Expected index {list(index._shape)} to be no larger than self "
                           f"{list(self._shape)} apart from dimension {dim}")
    _check_reduce(reduce, _SCATTER_REDUCE)
    return dim


# torch checks the reduce string after the shapes and after an in-place call's overlap check
# (ember/dispatch/registration.py lets its error lose to the overlap error)
REDUCE_ERROR = "reduce argument must be either "


def _check_reduce(reduce, allowed):
    if reduce is not None and reduce not in allowed:
        raise RuntimeError(REDUCE_ERROR + ("add or multiply." if allowed is _SCATTER_REDUCE else
                                           f"sum, prod, mean, amax or amin, got {reduce}"))


def scatter(self, dim, index, src):
    check_scatter("scatter", self, dim, index, src)
    return _meta(self._shape, self._dtype)


def scatter_reduce(self, dim, index, src, reduce):
    check_scatter("scatter", self, dim, index, src, reduce)
    return _meta(self._shape, self._dtype)


def scatter_(self, dim, index, src):
    check_scatter("scatter", self, dim, index, src)
    return self


def scatter_reduce_(self, dim, index, src, reduce):
    check_scatter("scatter", self, dim, index, src, reduce)
    return self


def scatter_add(self, dim, index, src):
    check_scatter("scatter_add", self, dim, index, src)
    return _meta(self._shape, self._dtype)


def scatter_add_(self, dim, index, src):
    check_scatter("scatter_add", self, dim, index, src)
    return self


_REDUCE_TWO = ("sum", "prod", "mean", "amax", "amin", "max", "min")  # max/min: legacy names


def check_scatter_reduce_two(self, dim, index, src, reduce) -> int:
    dim = check_scatter("scatter_reduce", self, dim, index, src)
    _check_reduce(reduce, _REDUCE_TWO)
    return dim


def scatter_reduce_two(self, dim, index, src, reduce, include_self):
    check_scatter_reduce_two(self, dim, index, src, reduce)
    return _meta(self._shape, self._dtype)


def scatter_reduce_two_(self, dim, index, src, reduce, include_self):
    check_scatter_reduce_two(self, dim, index, src, reduce)
    return self


# --- masked_select, nonzero, unique: data-dependent shapes --------------------------------------
def _dynamic(op):
    raise NotImplementedError(f"aten::{op}: attempted to run this operator with Meta tensors, "
                              "but its output shape depends on the data")


def check_masked_select(self, mask) -> tuple:
    if mask._dtype is not D.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    return broadcast_shapes(mask._shape, self._shape)  # (torch's order, for its message)


def masked_select(self, mask):
    check_masked_select(self, mask)
    _dynamic("masked_select")


def nonzero(self):
    _dynamic("nonzero")


def nonzero_static(self, size, fill_value=-1):
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    return _meta((size, len(self._shape)), D.int64)


def nonzero_out(self, out):
    _dynamic("nonzero")


def unique2(self, sorted, return_inverse, return_counts):
    _dynamic("_unique2")


def check_unique_dim(self, dim) -> int:
    ndim = len(self._shape)
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    dim = wrap(dim, ndim)
    if any(n == 0 for d, n in enumerate(self._shape) if d != dim):
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    return dim


def unique_dim(self, dim, sorted, return_inverse, return_counts):
    _dynamic("unique_dim")   # before any check, like torch (no Meta kernel)


# --- sort, topk ----------------------------------------------------------------------------------
def sort_dim(self, dim) -> int:
    ndim = len(self._shape)
    return wrap(dim, ndim)


def sort(self, dim, descending):
    sort_dim(self, dim)
    strides = preserve_strides(self)
    return _meta(self._shape, self._dtype, strides), _meta(self._shape, D.int64, strides)


def sort_stable(self, stable, dim, descending):
    return sort(self, dim, descending)


def topk_layout(self, k, dim) -> tuple:
    """(wrapped dim, result shape) after torch's checks."""
    dim = sort_dim(self, dim)
    size = self._shape[dim] if self._shape else 1
    if k < 0 or k > size:
        raise RuntimeError("selected index k out of range")
    if not self._shape:
        return dim, ()
    return dim, self._shape[:dim] + (k,) + self._shape[dim + 1:]


def topk(self, k, dim, largest, sorted):
    _, shape = topk_layout(self, k, dim)
    return _meta(shape, self._dtype), _meta(shape, D.int64)




# --- index_add, index_copy, index_fill_, masked_scatter_, take, put_ ----------------------------
def check_index_add(self, dim, index, source) -> int:
    ndim = len(self._shape)
    dim = wrap(dim, ndim)
    if len(index._shape) > 1:
        raise IndexError("index_add_(): Index is supposed to be a vector, but got dim: "
                         f"{len(index._shape)} with type: {index._dtype.scalar_name} and size: "
                         f"{list(index._shape)}")
    if index._dtype not in (D.int64, D.int32):
        raise RuntimeError("index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{index._dtype.scalar_name}")
    if self._dtype is not source._dtype:
        raise RuntimeError(f"index_add_(): self ({self._dtype.scalar_name}) and source "
                           f"({source._dtype.scalar_name}) must have the same scalar type")
    if source._shape and dim >= len(source._shape):
        raise RuntimeError(f"index_add_(): Indexing dim {dim} is out of bounds of the source "
                           f"tensor with dim {len(source._shape)}")
    n = index.numel()
    src_n = source._shape[dim] if source._shape else 1
    if ndim > 0 and n != src_n:
        raise RuntimeError(f"index_add_(): Number of indices ({n}) should be equal to "
                           f"source.size(dim): ({src_n}), for dim: {dim}")
    ok = len(source._shape) == ndim and all(
        a == b for d, (a, b) in enumerate(zip(self._shape, source._shape)) if d != dim)
    if ndim > 1 and not ok:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(self._shape)} "
                           f"source.shape = {list(source._shape)}")
    return dim


def index_add(self, dim, index, source, alpha):
    check_index_add(self, dim, index, source)
    return _meta(self._shape, self._dtype)


def index_add_(self, dim, index, source, alpha):
    check_index_add(self, dim, index, source)
    return self


def _drop_dim(shape, dim):
    return list(shape[:dim]) + list(shape[dim + 1:]) if shape else []


def check_index_copy(self, dim, index, source, count_error=RuntimeError) -> int:
    """torch's index_copy checks. The index count is its CPU kernel's check (an IndexError,
    after an in-place call's overlap check), its meta function's RuntimeError."""
    ndim = len(self._shape)
    dim = wrap(dim, ndim)
    if len(index._shape) >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got "
                         f"{len(index._shape)})")
    n = index.numel()
    sdim = len(source._shape)
    if sdim == 0 and n != 1:
        raise IndexError("index_copy_(): When source is scalar, index should have one element "
                         f"(got {n})")
    if sdim != ndim and sdim != 0 and ndim != 0:
        raise IndexError("index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({sdim}), "
                         f"destination dimensionality ({ndim})")
    if index._dtype is not D.int64:
        raise RuntimeError("index_copy_(): Expected a long tensor for index, but got "
                           f"{index._dtype.scalar_name}")
    if self._dtype is not source._dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {self._dtype.scalar_name} and (source) "
                           f"{source._dtype.scalar_name}")
    a, b = _drop_dim(self._shape, dim), _drop_dim(source._shape, dim)
    if a != b:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {' '.join(map(str, a))} at "
                           f"dimension {dim} and source slice shape: {' '.join(map(str, b))} "
                           "at dimension 0.")
    if sdim and n != source._shape[dim]:
        raise count_error(f"index_copy_(): Number of indices ({n}) should be equal to "
                          f"source.size(dim) ({source._shape[dim]})")
    return dim


def index_copy(self, dim, index, source):
    check_index_copy(self, dim, index, source)
    return _meta(self._shape, self._dtype)


def index_copy_(self, dim, index, source):
    check_index_copy(self, dim, index, source)
    return self


def check_index_fill(self, dim, index, value) -> int:
    """torch's order: a tensor value's dims (int_Tensor, which then calls int_Scalar), the
    index dtype, a complex value, the dim, the index's dims."""
    if hasattr(value, "_dtype") and value._shape:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {len(value._shape)} dimension(s).")
    if index._dtype is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    complex_value = value._dtype.is_complex if hasattr(value, "_dtype") else \
        isinstance(value, complex)
    if complex_value and not self._dtype.is_complex:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not "
                           "supported")
    dim = wrap(dim, len(self._shape))
    if len(index._shape) > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    return dim


def index_fill_(self, dim, index, value):
    check_index_fill(self, dim, index, value)
    return self


def check_masked_scatter(self, mask, source):
    if self._dtype is not source._dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{self._dtype.scalar_name} and {source._dtype.scalar_name}")
    if mask._dtype is D.uint8:
        warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is "
                      "now deprecated,please use a mask with dtype torch.bool instead.",
                      UserWarning, stacklevel=4)
    if mask._dtype is not D.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask._dtype.scalar_name}")


def masked_scatter_(self, mask, source):
    check_masked_scatter(self, mask, source)
    mask.expand(self._shape)   # torch's expand error when mask does not broadcast to self
    return self


def check_take(self, index, name="take"):
    if index._dtype is not D.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got "
                           f"{index._dtype.scalar_name}")


def take(self, index):
    check_take(self, index)
    return _meta(index._shape, self._dtype)


def check_put(self, index, source):
    check_take(self, index, "put_")
    if self._dtype is not source._dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {self._dtype.scalar_name} and source.dtype = "
                           f"{source._dtype.scalar_name}")
    if source.numel() != index.numel():
        raise IndexError("put_(): Expected source and index to have the same number of elements, "
                         f"but got source.numel() = {source.numel()}, index.numel() = "
                         f"{index.numel()}")


def put_(self, index, source, accumulate):
    check_put(self, index, source)
    return self


def unique_consecutive(self, return_inverse, return_counts, dim):
    _dynamic("unique_consecutive")


def check_repeat_interleave(repeats):
    if len(repeats._shape) != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats._dtype not in (D.int32, D.int64):
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{repeats._dtype.scalar_name}'")


def repeat_interleave_tensor(repeats, output_size):
    check_repeat_interleave(repeats)
    if output_size is None:
        _dynamic("repeat_interleave")
    return _meta((output_size,), repeats._dtype)


# --- searchsorted, bucketize -------------------------------------------------------------------
def check_searchsorted(sorted_sequence, self_shape, out_int32, right, side, sorter) -> bool:
    """torch's searchsorted checks; whether to search from the right."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError("ember.searchsorted(): side can only be 'left' or 'right' but got "
                               f"{side}")
        if side == "left" and right:
            raise RuntimeError("ember.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
    seq = sorted_sequence._shape
    if not seq:
        raise RuntimeError("ember.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if len(seq) != 1 and (len(seq) != len(self_shape) or seq[:-1] != tuple(self_shape)[:-1]):
        raise RuntimeError("ember.searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor must "
                           f"match, but we got boundaries tensor {list(seq)} and input value "
                           f"tensor {list(self_shape)}")
    if sorter is not None:
        if sorter._dtype is not D.int64:
            raise RuntimeError("ember.searchsorted(): sorter must be a tensor of long dtype but "
                               f"got dtype {sorter._dtype.scalar_name}")
        if sorter._shape != seq:
            raise RuntimeError("ember.searchsorted(): boundary and sorter must have the same "
                               f"size, but got boundary tensor {list(seq)}and got sorter tensor "
                               f"{list(sorter._shape)}")
    if sorted_sequence._dtype is D.bool_:
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    return bool(right) or side == "right"


def _search_dtype(out_int32):
    return D.int32 if out_int32 else D.int64


def searchsorted(sorted_sequence, self, out_int32, right, side, sorter):
    check_searchsorted(sorted_sequence, self._shape, out_int32, right, side, sorter)
    return _meta(self._shape, _search_dtype(out_int32))


def searchsorted_scalar(sorted_sequence, self, out_int32, right, side, sorter):
    check_searchsorted(sorted_sequence, (), out_int32, right, side, sorter)
    return _meta((), _search_dtype(out_int32))


def check_bucketize(boundaries):
    if len(boundaries._shape) != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{len(boundaries._shape)})")


def bucketize(self, boundaries, out_int32, right):
    check_bucketize(boundaries)
    return searchsorted(boundaries, self, out_int32, right, None, None)


def bucketize_scalar(self, boundaries, out_int32, right):
    check_bucketize(boundaries)
    return searchsorted_scalar(boundaries, self, out_int32, right, None, None)


