"""Device-generic view kernels (CompositeExplicitAutograd): each computes the result's
sizes, strides and storage offset from the input's metadata and returns `make_view`,
which shares the input's storage. Nothing is copied, so they serve CPU and Meta alike.

    >>> x = ember.from_numpy(np.arange(6.0)).view(2, 3)
    >>> y = transpose(x, 0, 1)
    >>> y.shape, y.stride(), y.untyped_storage() is x.untyped_storage()
    (ember.Size([3, 2]), (1, 3), True)

Error types and messages follow torch (ATen's TensorShape.cpp).
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from ember.core.alloc import storage_nbytes
from ember.core.sym import index_or_symint
from ember.core.tensor import contiguous_strides, make_view
from ember.kernels.common import _view_rules as R

_index = operator.index

# a start/end/index argument as an int; a SymInt stays symbolic (a dynamic-shape trace:
# `x[: x.shape[0] - 1]`), its range checks become guards
_bound = index_or_symint


def _drop(seq, d):
    return seq[:d] + seq[d + 1:]


# --- view, view(dtype), as_strided -------------------------------------------------------
def view(self, size):
    """`x.view(3, -1)`: same data, new shape; needs strides compatible with the shape.

    >>> ember.from_numpy(np.zeros((2, 3))).view(-1).stride()
    (1,)
    """
    old_shape, a = self._shape, self._np
    old_stride = self._stride or self.stride()
    if a is not None:
        try:
            shape, stride, contiguous = _CONTIGUOUS_VIEWS[old_shape, size]
        except (KeyError, TypeError):   # (TypeError: a list, or symbolic sizes, unhashable)
            pass
        else:
            for n in size:      # (2.0 finds 2's entry: it gets int_list's TypeError below)
                if n.__class__ is not int:
                    break
            else:
                if old_stride == contiguous:
                    return make_view(self, shape, stride, self._offset, arr=a.reshape(shape))
    numel = 1
    for n in old_shape:
        numel *= n
    shape = R.view_shape(size, numel)
    if a is not None and numel and old_stride == contiguous_strides(old_shape):
        # exactly contiguous (size-1 dims included): NumPy's reshape is the same view
        stride = contiguous_strides(shape)
        if size.__class__ is tuple and len(_CONTIGUOUS_VIEWS) < 4096 and all(
                n.__class__ is int for n in size):
            _CONTIGUOUS_VIEWS[old_shape, size] = shape, stride, old_stride
        return make_view(self, shape, stride, self._offset, arr=a.reshape(shape))
    stride = R.compute_stride(old_shape, old_stride, shape)
    if stride is None:
        raise RuntimeError(R.VIEW_ERROR)
    return make_view(self, shape, stride, self._offset, arr=_reshaped_array(a, shape))


# (a contiguous input's shape, view's size argument of plain ints) -> the view's shape and
# strides, and the input's strides: a repeated view of a contiguous tensor (an attention
# head split, every step) skips the shape arithmetic
_CONTIGUOUS_VIEWS = {}


def reshape_alias(self, size, stride):
    """torch's _reshape_alias: reshape's view of a tensor whose strides allow one (computed
    by reshape: `compute_stride`), with self's storage offset.

    >>> x = ember.from_numpy(np.zeros((2, 3, 4))).transpose(0, 1)
    >>> ember.ops.aten._reshape_alias(x, (3, 2, 2, 2), (4, 12, 2, 1)).stride()
    (4, 12, 2, 1)
    """
    shape, stride = tuple(R.int_list(size)), tuple(R.int_list(stride))
    arr = _reshaped_array(self._np, shape)
    if arr is None or arr.strides != tuple(map(arr.itemsize.__mul__, stride)):
        # not reshape's own call: as_strided's checks of sizes, strides and bounds
        return as_strided(self, shape, stride, None)
    return make_view(self, shape, stride, self._offset, arr=arr)


def _reshaped_array(a, shape):
    """NumPy's view of `a` reshaped to `shape` (which its strides allow), or None when NumPy
    would copy or `shape` has another number of elements (or a negative size)."""
    if a is None or not a.size or math.prod(shape) != a.size or min(shape, default=0) < 0:
        return None
    arr = a.reshape(shape)
    if arr.base is a or (a.base is not None and arr.base is a.base):
        return arr
    return None


def unsafe_view(self, size):
    """torch's _unsafe_view: view's layout and errors over self's storage, but a plain
    tensor, not a tracked view (no _base): reshape's copy and matmul's result, whose input
    nothing else holds.

    >>> ember._unsafe_view(ember.from_numpy(np.zeros(6)), (2, 3))._is_view()
    False
    """
    v = view(self, size)
    v._base = None
    return v


def view_dtype(self, dtype):
    """`x.view(ember.int16)`: the same bytes read as another dtype. A different itemsize
    scales the last dim (which must have stride 1), the other strides and the offset.

    >>> ember.from_numpy(np.zeros((2, 3), np.float32)).view(ember.int16).shape
    ember.Size([2, 6])
    """
    old_size, new_size = self._dtype.itemsize, dtype.itemsize
    shape, stride, offset = self._shape, self.stride(), self._offset
    if new_size != old_size:
        what = (f"to view {self._dtype.scalar_name} as "
                f"{dtype.scalar_name} (different element sizes)")
        if not shape:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if new_size < old_size:
            ratio = old_size // new_size
            if stride[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
            shape = shape[:-1] + (shape[-1] * ratio,)
            stride = tuple(s * ratio for s in stride[:-1]) + (1,)
            offset *= ratio
        else:
            ratio = new_size // old_size
            if shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, "
                                   f"but got {shape[-1]}")
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, "
                                   f"but got {offset}")
            if stride[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
            for d, s in enumerate(stride[:-1]):
                if s % ratio:
                    raise RuntimeError(f"self.stride({d}) must be divisible by {ratio} {what}, "
                                       f"but got {s}")
            shape = shape[:-1] + (shape[-1] // ratio,)
            stride = tuple(s // ratio for s in stride[:-1]) + (1,)
            offset //= ratio
    v = make_view(self, shape, stride, offset, dtype)
    v._base = None  # like torch: view(dtype) is not differentiable, so not a tracked view
    return v


def as_strided(self, size, stride, storage_offset):
    """A view with explicit sizes, strides and offset (in elements), bounds-checked
    against the storage; `storage_offset=None` keeps self's offset.

    >>> as_strided(ember.from_numpy(np.arange(4.0)), (3, 2), (1, 1), None).stride()
    (1, 1)
    """
    size, stride = R.int_list(size), R.int_list(stride)
    offset = self._offset if storage_offset is None else _index(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, "
                           f"got strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} "
                           f"and strides={list(stride)}")
    itemsize = self._dtype.itemsize
    needed = storage_nbytes(size, stride, itemsize)
    if needed:
        needed += offset * itemsize
        available = self.untyped_storage().nbytes()
        if needed > available:
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                               f"offset {offset}, and itemsize {itemsize} requiring a storage "
                               f"size of {needed} are out of bounds for storage of size "
                               f"{available}")
    return make_view(self, size, stride, offset)


# --- reordering dims ---------------------------------------------------------------------
def permute(self, dims):
    """Reorders the dims: `x.permute(2, 0, 1)`.

    >>> ember.from_numpy(np.zeros((2, 3, 4))).permute(2, 0, 1).shape
    ember.Size([4, 2, 3])
    """
    ndim = len(self._shape)
    try:
        order, pick = _PERMUTATIONS[ndim, dims]
        for d in dims:          # (2.0 finds 2's entry: it gets int_list's TypeError)
            if d.__class__ is not int:
                order, pick = _permutation(dims, ndim)
                break
    except (KeyError, TypeError):       # (TypeError: a list, or a symbolic dim, unhashable)
        order, pick = _permutation(dims, ndim)
    a = self._np
    return make_view(self, pick(self._shape), pick(self._stride or self.stride()), self._offset,
                     arr=None if a is None else a.transpose(order))


_PERMUTATIONS = {}      # (ndim, dims) -> _permutation's result, for dims of plain ints


def _permutation(dims, ndim):
    """permute's dims wrapped, with torch's checks, and a function that reorders a tuple
    by them (a plain-int `dims` tuple is remembered: the next call skips the checks)."""
    key = dims
    dims = R.int_list(dims)
    if len(dims) != ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {ndim} is not equal to len(dims) = {len(dims)}")
    wrapped = []
    for d in dims:      # in order, as torch: [0, 0, 9] is a duplicate before it is out of range
        d = R.wrap(d, ndim)
        if d in wrapped:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        wrapped.append(d)
    order = tuple(wrapped)
    pick = operator.itemgetter(*order) if ndim > 1 else tuple   # (itemgetter(d) gives no tuple)
    if key.__class__ is tuple and len(_PERMUTATIONS) < 4096 and all(d.__class__ is int for d in key):
        _PERMUTATIONS[ndim, key] = order, pick
    return order, pick


def transpose(self, dim0, dim1):
    """Swaps two dims.

    >>> ember.from_numpy(np.zeros((2, 3))).transpose(0, -1).stride()
    (1, 3)
    """
    ndim = len(self._shape)
    # (plain ints in range, the common call: no generic wrapping)
    d0 = dim0 % ndim if dim0.__class__ is int and -ndim <= dim0 < ndim else R.wrap(dim0, ndim)
    d1 = dim1 % ndim if dim1.__class__ is int and -ndim <= dim1 < ndim else R.wrap(dim1, ndim)
    a = self._np
    if d0 == d1:   # also the 0-d case, where both wrap to 0
        return make_view(self, self._shape, self._stride or self.stride(), self._offset, arr=a)
    shape, stride = list(self._shape), list(self._stride or self.stride())
    shape[d0], shape[d1] = shape[d1], shape[d0]
    stride[d0], stride[d1] = stride[d1], stride[d0]
    return make_view(self, shape, stride, self._offset,
                     arr=None if a is None else a.swapaxes(d0, d1))


def t(self):
    """Transposes a 2-D tensor; 0-D and 1-D tensors come back as they are (as a view)."""
    ndim = len(self._shape)
    if ndim == 2:   # a Linear layer's weight, every call: no generic dim wrapping
        (n, m), (s0, s1), a = self._shape, self._stride or self.stride(), self._np
        return make_view(self, (m, n), (s1, s0), self._offset, arr=None if a is None else a.T)
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return transpose(self, 0, ndim - 1 if ndim else 0)


# --- adding and removing size-1 dims -----------------------------------------------------
def unsqueeze(self, dim):
    """Inserts a size-1 dim at `dim` (which may be `ndim`, or negative).

    >>> ember.from_numpy(np.zeros((2, 3))).unsqueeze(-1).shape
    ember.Size([2, 3, 1])
    """
    ndim = len(self._shape)
    d = dim % (ndim + 1) if dim.__class__ is int and -ndim <= dim <= ndim else R.wrap(dim, ndim + 1)
    stride = self._stride or self.stride()
    new_stride = 1 if d >= ndim else self._shape[d] * stride[d]
    shape = self._shape[:d] + (1,) + self._shape[d:]
    a = self._np
    if a is not None:
        a = a[None] if d == 0 else a.reshape(shape)
    return make_view(self, shape, stride[:d] + (new_stride,) + stride[d:], self._offset, arr=a)


def _with_unit_dims(a, shape):
    """The NumPy view of `a` with size-1 dims added or removed (a reshape that never
    copies: the other dims keep their order and strides), None without an array."""
    return None if a is None else a.reshape(shape)


def _squeeze_dims(self, dims):
    """The view without the size-1 dims among `dims` (wrapped)."""
    shape, stride = self._shape, self._stride or self.stride()
    keep = [d for d in range(len(shape)) if shape[d] != 1 or d not in dims]
    new_shape = tuple(shape[d] for d in keep)
    return make_view(self, new_shape, tuple(stride[d] for d in keep), self._offset,
                     arr=_with_unit_dims(self._np, new_shape))


def _without_dim(self, d):
    """The view without dim `d` (of size 1)."""
    shape, stride, a = self._shape, self._stride or self.stride(), self._np
    new_shape = shape[:d] + shape[d + 1:]
    return make_view(self, new_shape, stride[:d] + stride[d + 1:], self._offset,
                     arr=None if a is None else a.reshape(new_shape))


def squeeze(self):
    """Removes every size-1 dim.

    >>> ember.from_numpy(np.zeros((1, 2, 1))).squeeze().shape
    ember.Size([2])
    """
    return _squeeze_dims(self, range(len(self._shape)))


def squeeze_dim(self, dim):
    """Removes `dim` if its size is 1; otherwise the view has self's shape."""
    ndim = len(self._shape)
    d = dim % ndim if dim.__class__ is int and -ndim <= dim < ndim else R.wrap(dim, ndim)
    if ndim and self._shape[d] == 1:
        return _without_dim(self, d)
    return make_view(self, self._shape, self._stride or self.stride(), self._offset, arr=self._np)


def squeeze_dims(self, dim):
    """Removes those of the listed dims whose size is 1."""
    return _squeeze_dims(self, R.wrap_list(dim, len(self._shape)))


# --- broadcasting ------------------------------------------------------------------------
def expand(self, size, implicit):
    """Broadcasts size-1 dims (stride 0) and adds leading dims; -1 keeps a dim's size.

    >>> ember.from_numpy(np.zeros((3, 1))).expand(2, -1, 4).stride()
    (0, 1, 0)
    """
    shape, stride = self._shape, self._stride or self.stride()
    try:
        new_shape, new_stride = _EXPANSIONS[shape, stride, size]
        for n in size:      # (2.0 finds 2's entry: it gets int_list's TypeError below)
            if n.__class__ is not int:
                break
        else:
            return make_view(self, new_shape, new_stride, self._offset,
                             arr=_expanded_array(self._np, new_shape, new_stride))
    except (KeyError, TypeError):   # (TypeError: a list, or symbolic sizes, unhashable)
        pass
    new_shape, new_stride = _expansion(self, size)
    if size.__class__ is tuple and len(_EXPANSIONS) < 4096 and all(
            n.__class__ is int for n in size + shape + stride):
        _EXPANSIONS[shape, stride, size] = new_shape, new_stride
    return make_view(self, new_shape, new_stride, self._offset,
                     arr=_expanded_array(self._np, new_shape, new_stride))


# (shape, strides, expand's size argument of plain ints) -> the expanded shape and strides:
# a repeated expand (a bias, a mask, a reduction's gradient) skips the checks
_EXPANSIONS = {}


def _expansion(self, size):
    """expand's shape and strides, with torch's checks and errors."""
    sizes = size if size.__class__ is tuple else R.int_list(size)   # (checked one by one below)
    shape = self._shape
    # a 0-d tensor (a sum's gradient); (each size compared alone: min() of symbolic sizes
    # would guard on their order)
    if not shape:
        sizes = R.int_list(sizes)
        if all(n >= 0 for n in sizes):
            return tuple(sizes), (0,) * len(sizes)
    stride = self._stride or self.stride()
    ndim, tensor_dim = len(sizes), len(shape)
    if ndim < tensor_dim:
        raise RuntimeError(f"expand({_type_string(self)}{{{list(shape)}}}, size="
                           f"{list(R.int_list(sizes))}): the number of sizes provided ({ndim}) "
                           f"must be greater or equal to the number of dimensions in the tensor "
                           f"({tensor_dim})")
    new_shape, new_stride = [0] * ndim, [0] * ndim
    for i in range(ndim - 1, -1, -1):
        dim = i - (ndim - tensor_dim)
        target = sizes[i]
        if target.__class__ is not int:
            target = R.int_list((target,))[0]
        if dim < 0:
            if target == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            n = 1
            # a new leading dim of size 1 gets the stride a contiguous layout would give
            st = new_shape[i + 1] * new_stride[i + 1] if i + 1 < ndim and tensor_dim else 0
        else:
            n, st = shape[dim], stride[dim]
            if target == -1:
                target = n
        if target < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {target}: "
                               f"{list(R.int_list(sizes))}")
        if n != target:
            if n != 1:
                raise RuntimeError(f"The expanded size of the tensor ({target}) must match the "
                                   f"existing size ({n}) at non-singleton dimension {i}.  "
                                   f"Target sizes: {list(R.int_list(sizes))}.  Tensor sizes: "
                                   f"{list(shape)}")
            n, st = target, 0
        new_shape[i], new_stride[i] = n, st
    return tuple(new_shape), tuple(new_stride)


def _expanded_array(a, shape, stride):
    """The NumPy array of an expanded view of the C-contiguous array `a` (its elements all
    lie inside `a`: the new dims have stride 0); None when `a` is not C-contiguous or the
    view is empty (make_view then finds it the general way)."""
    if a is None or 0 in shape or not a.flags.c_contiguous:
        return None
    try:    # (positional arguments: NumPy parses keyword arguments for ~0.6 us)
        return np.ndarray(shape, a.dtype, a, 0, tuple(map(a.itemsize.__mul__, stride)))
    except ValueError:      # more bytes than NumPy spans: make_view raises torch's way
        return None


def _type_string(self):
    """torch's legacy type name for messages: 'ember.FloatTensor'."""
    return f"ember.{self._dtype.scalar_name}Tensor"


# --- slicing and indexing ----------------------------------------------------------------
_py_slice = builtins.slice  # this module's `slice` is the kernel
_ALL = _py_slice(None)


def slice(self, dim, start, end, step):
    """`x[:, start:end:step]` along `dim`; start/end are clamped like Python slices.

    >>> slice(ember.from_numpy(np.arange(10.0)), 0, -4, None, 2).shape
    ember.Size([2])
    """
    ndim = len(self._shape)
    if ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = dim % ndim if dim.__class__ is int and -ndim <= dim < ndim else R.wrap(dim, ndim)
    if step.__class__ is not int:
        step = _index(step)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    n = self._shape[d]
    start = 0 if start is None else start if start.__class__ is int else _bound(start)
    end = n if end is None else end if end.__class__ is int else _bound(end)
    if start < 0:
        start += n
    if end < 0:
        end += n
    start = min(max(start, 0), n)
    end = min(max(end, start), n)
    stride = self._stride or self.stride()
    shape, new_stride = list(self._shape), list(stride)
    shape[d] = (end - start + step - 1) // step
    new_stride[d] *= step
    a = self._np
    if a is not None:       # (no `...` needed: a slice never gives a NumPy scalar)
        s = _py_slice(start, end, step)
        a = a[s] if d == 0 else a[_ALL, s] if d == 1 else a[(_ALL,) * d + (s,)]
    return make_view(self, shape, new_stride, self._offset + start * stride[d], arr=a)


def select(self, dim, index):
    """`x[:, index]` along `dim`: drops that dim.

    >>> select(ember.from_numpy(np.zeros((2, 3))), 1, -1).shape
    ember.Size([2])
    """
    ndim = len(self._shape)
    if ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = dim % ndim if dim.__class__ is int and -ndim <= dim < ndim else R.wrap(dim, ndim)
    if index.__class__ is not int:
        index = _bound(index)
    n = self._shape[d]
    if index < -n or index >= n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(self._shape)} at dimension {d}")
    if index < 0:
        index += n
    stride = self._stride or self.stride()
    a = self._np
    if a is None:
        arr = None
    elif d == 0 and ndim > 1:
        arr = a[index]
    else:
        arr = a[(_ALL,) * d + (index, ...)]    # (`...` keeps a 0-d view)
    if d == 0:
        return make_view(self, self._shape[1:], stride[1:], self._offset + index * stride[0],
                         arr=arr)
    return make_view(self, _drop(self._shape, d), _drop(stride, d),
                     self._offset + index * stride[d], arr=arr)


def diagonal(self, offset, dim1, dim2):
    """The diagonal of the (dim1, dim2) planes, appended as the last dim.

    >>> diagonal(ember.from_numpy(np.zeros((3, 4))), 1, 0, 1).shape
    ember.Size([3])
    """
    ndim = len(self._shape)
    d1, d2 = R.wrap(dim1, ndim), R.wrap(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = _index(offset)
    shape, stride = self._shape, self.stride()
    if offset >= 0:
        diag_size = max(min(shape[d1], shape[d2] - offset), 0)
    else:
        diag_size = max(min(shape[d1] + offset, shape[d2]), 0)
    storage_offset = self._offset
    if diag_size:
        storage_offset += offset * stride[d2] if offset >= 0 else -offset * stride[d1]
    lo, hi = min(d1, d2), max(d1, d2)
    new_shape = _drop(_drop(shape, hi), lo) + (diag_size,)
    new_stride = _drop(_drop(stride, hi), lo) + (stride[d1] + stride[d2],)
    return make_view(self, new_shape, new_stride, storage_offset)


# --- splitting ---------------------------------------------------------------------------
def _pieces(self, d, bounds):
    """Views of self along dim `d` for each (start, length) in bounds."""
    shape, stride = self._shape, self.stride()
    a, lead = self._np, (_ALL,) * d
    return tuple(make_view(self, shape[:d] + (length,) + shape[d + 1:], stride,
                           self._offset + start * stride[d],
                           arr=None if a is None else a[lead + (_py_slice(start, start + length),)])
                 for start, length in bounds)


def split(self, split_size, dim):
    """Pieces of `split_size` along `dim` (the last may be shorter), as a tuple of views.

    >>> [p.shape[0] for p in split(ember.from_numpy(np.zeros(5)), 2, 0)]
    [2, 2, 1]
    """
    if not self._shape:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    split_size = _index(split_size)
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    d = R.wrap(dim, len(self._shape))
    n = self._shape[d]
    if split_size == 0 and n != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {n}")
    num = max(-(-n // split_size), 1) if split_size else 1
    last = split_size - (split_size * num - n)
    return _pieces(self, d, [(i * split_size, split_size if i < num - 1 else last)
                             for i in range(num)])


def split_with_sizes(self, split_sizes, dim):
    """Pieces of the given sizes along `dim` (they must sum to its size).

    >>> [p.shape[0] for p in split_with_sizes(ember.from_numpy(np.zeros(5)), [1, 4], 0)]
    [1, 4]
    """
    if not self._shape:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    sizes = R.int_list(split_sizes)
    d = R.wrap(dim, len(self._shape))
    if any(s < 0 for s in sizes):
        raise RuntimeError("split_with_sizes expects split_sizes have only non-negative entries, "
                           f"but got split_sizes={list(sizes)}")
    n = self._shape[d]
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={list(sizes)}")
    starts = [0]
    for s in sizes[:-1]:
        starts.append(starts[-1] + s)
    return _pieces(self, d, zip(starts, sizes))


def unbind(self, dim):
    """Every index along `dim`, as a tuple of views without that dim.

    >>> len(unbind(ember.from_numpy(np.zeros((2, 3))), 1))
    3
    """
    d = R.wrap(dim, len(self._shape))
    if not self._shape:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    shape, stride = _drop(self._shape, d), _drop(self.stride(), d)
    step = self.stride()[d]
    return tuple(make_view(self, shape, stride, self._offset + i * step)
                 for i in range(self._shape[d]))


# --- aliases -----------------------------------------------------------------------------
def detach(self):
    """A tensor sharing self's storage (and version counter) without autograd history;
    like torch, it is not recorded as a view (`_base` is None). It shares self's NumPy
    array too (the same layout; the C-contiguity mark with it)."""
    a = self._np
    v = make_view(self, self._shape, self._stride or self.stride(), self._offset, arr=a)
    v._base = None
    if a is not None:
        v._contig = self._contig
    return v


def alias(self):
    """A view of self with the same layout."""
    return make_view(self, self._shape, self.stride(), self._offset)


# --- unfold (shape family) ----------------------------------------------------------
def unfold(self, dimension, size, step):
    """Windows of `size` every `step` along `dimension`, as a new last dim (a view).

    >>> ember.from_numpy(np.arange(5.0)).unfold(0, 2, 2).tolist()
    [[0.0, 1.0], [2.0, 3.0]]
    """
    ndim = len(self._shape)
    d = R.wrap(dimension, ndim)
    size, step = _index(size), _index(step)
    max_size = self._shape[d] if ndim else 1
    if size > max_size:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {max_size} but size is "
                           f"{size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    shape, stride = list(self._shape), list(self.stride())
    shape.append(size)
    stride.append(stride[d] if ndim else 1)
    if ndim:
        shape[d] = (shape[d] - size) // step + 1
        stride[d] *= step
    return make_view(self, tuple(shape), tuple(stride), self._offset)


# --- in-place metadata changes (torch's inplace_view ops) ----------------------------------
def _take_layout(self, view):
    """self becomes `view` (sizes, strides, offset) over the storage they share."""
    self._shape, self._stride, self._offset, self._np = (view._shape, view._stride, view._offset,
                                                         view._np)
    self._contig = view._contig
    return self


def t_(self):
    if self.dim() > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.dim()}D")
    return _take_layout(self, t(self))


def transpose_(self, dim0, dim1):
    return _take_layout(self, transpose(self, dim0, dim1))


def unsqueeze_(self, dim):
    return _take_layout(self, unsqueeze(self, dim))


def squeeze_(self):
    return _take_layout(self, squeeze(self))


def squeeze_dim_(self, dim):
    return _take_layout(self, squeeze_dim(self, dim))


def squeeze_dims_(self, dim):
    return _take_layout(self, squeeze_dims(self, dim))


def as_strided_(self, size, stride, storage_offset):
    return _take_layout(self, as_strided(self, size, stride, storage_offset))


def resize_(self, size, memory_format):
    """Contiguous sizes `size` over self's storage, grown (old bytes kept) when too small.

    >>> x = ember.zeros(2); x.resize_(2, 3).shape, x.stride()
    (ember.Size([2, 3]), (3, 1))
    """
    from ember.core.tensor import MEMORY_FORMATS, channels_last, channels_last_strides
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = tuple(R.int_list(size))
    if any(n < 0 for n in shape):
        raise RuntimeError("numel: integer multiplication overflow")   # (torch's words)
    fmt = MEMORY_FORMATS.get(memory_format, memory_format)
    stride = channels_last_strides(shape) if fmt is channels_last else contiguous_strides(shape)
    _grow_for(self, shape, stride, self._offset)
    return _take_layout(self, make_view(self, shape, stride, self._offset))


def _grow_for(t, shape, stride, offset):
    """Enlarges t's storage to hold a (shape, stride, offset) layout of t's dtype."""
    needed = storage_nbytes(shape, stride, t._dtype.itemsize)
    if needed:
        needed += offset * t._dtype.itemsize
    storage = t.untyped_storage()
    if needed > storage.nbytes():
        storage.grow_to(needed)


def set_source_tensor(self, source):
    """self shares source's storage and takes its sizes, strides and offset."""
    return set_source_tensor_storage_offset(self, source, source._offset, source._shape,
                                            source.stride())


def set_source_tensor_storage_offset(self, source, storage_offset, size, stride):
    from ember.core.tensor import _copy_layout
    from ember.kernels.common._pointwise import CPP_NAMES
    if source._dtype is not self._dtype and source.numel():
        raise RuntimeError(f"Could not set tensor of type {CPP_NAMES[source._dtype.name]} to "
                           f"a tensor of type {CPP_NAMES[self._dtype.name]}")
    size = tuple(R.int_list(size))
    stride = tuple(R.int_list(stride)) if len(stride) else contiguous_strides(size)
    if size:          # torch grows the shared storage (not for a 0-d result)
        _grow_for(source, size, stride, storage_offset)
    view = as_strided(source, size, stride, storage_offset)
    dtype = self._dtype
    _copy_layout(self, view)
    self._dtype = dtype       # (an empty source of another dtype: self keeps its own)
    return self


def set_empty(self):
    """self gets a fresh empty storage (sizes (0,))."""
    from ember.core.alloc import empty_strided_on
    from ember.core.tensor import _copy_layout
    _copy_layout(self, empty_strided_on(self.untyped_storage().device, (0,), (1,), self._dtype))
    return self


def lift_fresh(self):
    """ember.tensor's new constant, as the modes see it (itself)."""
    return self


def lift_fresh_copy(self):
    """A contiguous copy of the new constant (what make_fx records)."""
    from ember.core.tensor import contiguous_format
    return self.clone(memory_format=contiguous_format)
