"""Python indexing of tensors, `t[index]` and `t[index] = value`, with torch's rules.

Basic indexing (ints, slices with a positive step, None, Ellipsis) returns a view that
shares storage; indices that are tensors, lists or bools ("advanced" indexing) give a
copy through the `index` op, and assignment through them uses `index_put_`:

    >>> x = ember.arange(12).view(3, 4)
    >>> x[1].tolist(), x[:, 1:3].shape, x[None, ..., 0].shape
    ([4, 5, 6, 7], ember.Size([3, 2]), ember.Size([1, 3]))
    >>> x[[0, 2], 1].tolist()      # advanced: a copy
    [1, 9]
    >>> x[x > 9] = 0               # a mask: index_put_

Everything runs through ember ops (select, slice, unsqueeze, index, copy_, fill_, ...),
so Meta tensors and autograd work as for any op.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._generated.ops import (
    _entry__to_copy,
    _entry_alias,
    _entry_copy_,
    _entry_expand,
    _entry_fill__Scalar,
    _entry_fill__Tensor,
    _entry_index_put_,
    _entry_index_Tensor,
    _entry_scalar_tensor,
    _entry_select_int,
    _entry_slice_Tensor,
    _entry_unsqueeze,
    _entry_view,
)
from ..overrides import NO_OVERRIDE, handle_torch_function, tf_state
from . import dtype as D
from . import sym
from .alloc import empty_strided_on
from .tensor import Tensor, from_array

_MASK_DTYPES = (D.bool_, D.uint8)
_SEQUENCE_ITEMS = (slice, Tensor, list, tuple, range, np.ndarray)
_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
              "Variables are valid indices (got {})")


# --- t[index] -----------------------------------------------------------------------------
def getitem(t: Tensor, index):
    """`t[index]`: a view for basic indices, a copy when any index is advanced."""
    if tf_state[0]:
        r = handle_torch_function(Tensor.__getitem__, (t, index), (t, index))
        if r is not NO_OVERRIDE:
            return r
    tp = type(index)
    if tp is int:
        shape = t._shape
        if shape and -shape[0] <= index < shape[0]:    # (else _select raises torch's error)
            return _entry_select_int(t, 0, index)
        return _select(t, 0, index, 0)
    if tp is slice:
        return _slice(t, 0, index)
    if index is None:
        return _entry_unsqueeze(t, 0)
    if index is Ellipsis:
        return _entry_alias(t)
    if tp is bool:
        r = _entry_unsqueeze(t, 0)
        return _entry_index_Tensor(r, [_bool_index(r, index)])
    if tp is tuple and len(index) <= len(t._shape):
        for it in index:
            if it.__class__ is not slice and it.__class__ is not int:
                break
        else:
            return _apply_ints_and_slices(t, index)
    elif tp is not tuple and _is_int(index):
        return _select(t, 0, int(index), 0)
    result, adv = _apply(t, _as_items(index))
    if adv is None:
        return _entry_alias(t) if result is t else result
    return _entry_index_Tensor(result, adv)


# --- t[index] = value -------------------------------------------------------------------------
def setitem(t: Tensor, index, value) -> None:
    """`t[index] = value` for a number or a tensor (broadcast to the indexed shape).

    Basic targets are written with copy_/fill_ on the view; advanced ones with index_put_
    (a tensor value must then have t's dtype, like torch).
    """
    if tf_state[0]:
        r = handle_torch_function(Tensor.__setitem__, (t, index, value), (t, index, value))
        if r is not NO_OVERRIDE:
            return
    if not isinstance(value, Tensor) and not _is_number(value):
        raise TypeError(f"can't assign a {type(value).__name__} to a {t.dtype} tensor")
    tp = type(index)
    if tp is int:
        return _copy_to(_select(t, 0, index, 0), value)
    if tp is slice:
        return _copy_to(_slice(t, 0, index), value)
    if index is False:
        return None
    if index is Ellipsis:
        return _copy_to(t, value)
    if index is None or index is True:
        return _copy_to(_entry_unsqueeze(t, 0), value)
    if tp is not tuple and _is_int(index):
        return _copy_to(_select(t, 0, int(index), 0), value)
    result, adv = _apply(t, _as_items(index))
    if adv is None:
        return _copy_to(result, value)
    if isinstance(value, Tensor):
        value = _strip_leading_ones(value)
    else:
        value = _entry_scalar_tensor(value, t._dtype, None, t._device, None)
    _entry_index_put_(result, adv, value, False)
    return None


def _copy_to(dst, src):
    """torch's copy_to: copy_ for equal shapes, fill_ for numbers and 0-d CPU tensors,
    else broadcast src (leading 1s dropped) to dst."""
    if not isinstance(src, Tensor):
        _entry_fill__Scalar(dst, src)
    elif dst._shape == src._shape:
        _entry_copy_(dst, src, False)
    elif not src._shape and src._device.type == "cpu":
        _entry_fill__Tensor(dst, src)
    else:
        _entry_copy_(dst, _entry_expand(_strip_leading_ones(src), dst._shape, False), False)


def _strip_leading_ones(v):
    shape = v._shape
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return _entry_view(v, shape[i:]) if i else v


# --- the pieces -------------------------------------------------------------------------------
def _select(t, dim, i, real_dim):
    """t.select(dim, i) with torch's IndexErrors (`real_dim` is the index's position)."""
    shape = t._shape
    if not shape and i == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    size = shape[dim] if dim < len(shape) else 0
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for dimension {real_dim} with size {size}")
    return _entry_select_int(t, dim, i)


def _slice(t, dim, s):
    """t.slice(dim, start, stop, step) for a Python slice; steps must be positive."""
    step = s.step
    if step is None:
        step = 1
    else:
        step = _slice_int(step)
        if step == 0:
            raise ValueError("slice step cannot be zero")
        if step < 0:
            raise ValueError("step must be greater than zero")
    start, stop = s.start, s.stop
    if start is None:
        start = 0
    elif start.__class__ is not int:
        start = _slice_int(start)
    if stop is not None and stop.__class__ is not int:
        stop = _slice_int(stop)
    if not t._shape:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    return _entry_slice_Tensor(t, dim, start, stop, step)


def _slice_int(x):
    try:
        return sym.index_or_symint(x)      # (a SymInt bound stays symbolic)
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ "
                        "method") from None


def _apply_ints_and_slices(t, items):
    """`t[items]` for a tuple of ints and slices, no more than t has dims (the common index,
    `x[:, -1]`, `x[:, :n]`): what _apply does for it, in one pass."""
    result, dim = t, 0
    for i, it in enumerate(items):
        if it.__class__ is int:
            result = _select(result, dim, it, i)
            continue
        start, stop = it.start, it.stop
        if it.step is not None or (start is not None and start.__class__ is not int) or (
                stop is not None and stop.__class__ is not int):
            result = _slice(result, dim, it)
        elif start is not None or stop is not None:     # (`:` alone keeps the dim as it is)
            result = _entry_slice_Tensor(result, dim, 0 if start is None else start, stop, 1)
        dim += 1
    return _entry_alias(t) if result is t else result


def _apply(t, items):
    """Applies the basic indices in `items` to t as views; returns (view, advanced index
    list for the index op or None). Masks cover as many dims as they have."""
    ndim = len(t._shape)
    specified = ellipses = 0
    for it in items:
        if it is Ellipsis:
            ellipses += 1
            continue
        if it is None or type(it) is bool or type(it) is np.bool_:
            continue
        if isinstance(it, Tensor) and it._dtype in _MASK_DTYPES:
            specified += len(it._shape)
        else:
            specified += 1
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if ellipses > 1:  # (torch reads past the sizes here; NumPy's rule is clearer)
        raise IndexError("an index can only have a single ellipsis ('...')")
    result, dim = t, 0
    adv, covered = None, 0  # the index list, and how many dims its entries cover
    for i, it in enumerate(items):
        tp = type(it)
        if tp is int:
            result = _select(result, dim, it, i)
            continue
        if tp is slice:
            full = it.start is None and it.stop is None and it.step is None
            if not (full and dim < len(result._shape)):
                result = _slice(result, dim, it)
            dim += 1
            continue
        if it is None:
            result = _entry_unsqueeze(result, dim)
            dim += 1
            continue
        if it is Ellipsis:
            dim += ndim - specified
            continue
        if tp is bool or tp is np.bool_:
            result = _entry_unsqueeze(result, dim)
            idx = _bool_index(result, bool(it))
        elif isinstance(it, Tensor):
            idx = it
        elif _is_int(it):
            result = _select(result, dim, int(it), i)
            continue
        elif isinstance(it, (list, tuple, range, np.ndarray)):
            idx = _sequence_index(it, result)
        else:
            try:
                k = sym.index_or_symint(it)
            except TypeError:
                raise IndexError(_BAD_INDEX.format(type(it).__name__)) from None
            result = _select(result, dim, k, i)
            continue
        if not idx._shape and idx._dtype.category != D.FLOAT:  # 0-d integer / bool tensor
            if idx._dtype in _MASK_DTYPES:
                result = _entry_unsqueeze(result, dim)
                idx = _bool_index(result, bool(idx.item()))
            else:
                result = _select(result, dim, int(idx.item()), i)
                continue
        if adv is None:
            adv = []
        while covered < dim:
            adv.append(None)
            covered += 1
        if idx._device != result._device:
            idx = _entry__to_copy(idx, None, None, result._device, None, False, None)
        adv.append(idx)
        n = len(idx._shape) if idx._dtype in _MASK_DTYPES else 1
        covered += n
        dim += n
    return result, adv


def _bool_index(like, flag):
    """A Python bool as an index of the new size-1 dim: int64 [0] (True) or [] (False)."""
    n = 1 if flag else 0
    if like._device.type == "cpu":
        return from_array(np.zeros(n, np.int64), D.int64)
    t = empty_strided_on(like._device, (n,), (1,), D.int64)
    return _entry_fill__Scalar(t, 0) if n else t


def _sequence_index(seq, like):
    """A list (or NumPy array) index as a tensor: bool stays a mask, numbers become int64."""
    try:
        a = np.asarray(seq)
    except ValueError as e:
        raise IndexError(f"could not convert the index {seq!r} to a tensor: {e}") from None
    if a.dtype != np.bool_:
        if a.size and a.dtype.kind not in "iuf":
            bad = next((x for x in a.ravel() if not isinstance(x, (int, float, np.number))), seq)
            raise RuntimeError(f"Could not infer dtype of {type(bad).__name__}")
        a = a.astype(np.int64)
    t = from_array(a)
    if like._device.type != "cpu":
        t = _entry__to_copy(t, None, None, like._device, None, False, None)
    return t


def _as_items(index) -> tuple:
    """The index as a tuple of items: torch (like old NumPy) reads a short list holding a
    slice, None, Ellipsis, a sequence or a tensor as a tuple of indices."""
    if type(index) is tuple:
        return index
    if isinstance(index, (list, tuple)) and len(index) < 32:
        for it in index:
            if it is None or it is Ellipsis or isinstance(it, _SEQUENCE_ITEMS):
                warnings.warn("Using a non-tuple sequence for multidimensional indexing is "
                              "deprecated; use x[tuple(seq)] instead of x[seq].", UserWarning,
                              stacklevel=4)
                return tuple(index)
    return (index,)


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _is_number(x) -> bool:
    return isinstance(x, (int, float, complex, np.integer, np.floating, np.complexfloating,
                          np.bool_))
