"""cat, index and index_put_ on Meta tensors, and the shared layout rules the CPU kernels
use: cat's dtype promotion and shape checks, and advanced indexing's output shape and
strides (torch's TensorIterator rule, so `x.t()[idx]` keeps a transposed layout).

    >>> x = ember.empty(4, 5, device="meta")
    >>> x[:, ember.tensor([[0, 1]], device="meta")].shape
    ember.Size([4, 1, 2])
"""
import warnings

from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.core.shapes import (
    broadcast_shapes,
    broadcast_strides,
    expand_strides,
    infer_dense_strides,
    is_non_overlapping_and_dense,
    tensor_iterator_perm,
    wrap_dim,
)
from ember.core.tensor import channels_last, channels_last_strides, contiguous_strides
from ember.kernels.common._view_rules import compute_stride

# --- cat -----------------------------------------------------------------------------


def _skipped(t) -> bool:
    """torch's legacy rule: 1-D empty tensors are ignored by cat's shape checks."""
    return len(t._shape) == 1 and t._shape[0] == 0


def cat_layout(tensors, dim, meta=False):
    """(kept tensors, wrapped dim, shape, strides, dtype) of `cat(tensors, dim)`.

    meta: raise like torch's Meta kernel, an IndexError when the first tensor is 0-d."""
    if len(tensors) == 0:
        raise ValueError("ember.cat(): expected a non-empty list of Tensors")
    dev, dt = tensors[0]._device, tensors[0]._dtype
    promote = False
    kept = []      # (position, tensor) of those the shape checks do not skip
    for i, t in enumerate(tensors):
        if t._device is not dev and t._device != dev:
            raise RuntimeError("Expected all tensors to be on the same device, but found at "
                               f"least two devices, {dev} and {t._device}!")
        s = t._shape
        if not s:
            err = IndexError if meta and not tensors[0]._shape else RuntimeError
            raise err(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        promote = promote or t._dtype is not dt
        if not _skipped(t):
            kept.append((i, t))
    if promote:
        dt = D.result_type(*tensors)
    if not kept:
        return [], 0, (0,), (1,), dt
    first = kept[0][1]._shape
    dim = wrap_dim(dim, len(first))
    size = 0
    for i, t in kept:
        s = t._shape
        if len(s) != len(first):
            raise RuntimeError("Tensors must have same number of dimensions: got "
                               f"{len(first)} and {len(s)}")
        if s != first and (s[:dim] != first[:dim] or s[dim + 1:] != first[dim + 1:]):
            for d, (a, b) in enumerate(zip(first, s)):
                if d != dim and a != b:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension "
                                       f"{dim}. Expected size {a} but got size {b} for tensor "
                                       f"number {i} in the list.")
        size += s[dim]
    shape = first[:dim] + (size,) + first[dim + 1:]
    use_cl = len(shape) == 4 and all(t.suggest_memory_format() is channels_last for t in tensors)
    strides = channels_last_strides(shape) if use_cl else contiguous_strides(shape)
    return [t for _, t in kept], dim, shape, strides, dt


def cat(tensors, dim):
    _, _, shape, strides, dt = cat_layout(tensors, dim, meta=True)
    return empty_meta(shape, dt, strides)


# --- advanced indexing: the plan --------------------------------------------------------
_INDEX_DTYPES = (D.int64, D.int32, D.uint8, D.bool_)


class IndexPlan:
    """What `self[indices]` reads.

    `entries` has one item per indexed dim of self (a mask gives one per mask dim): None
    (whole dim) or (shape, strides, index array or None for a mask, is_int32);
    `numpy_index` is the matching NumPy index (masks stay bool arrays, which NumPy reads
    as their nonzero indices, like torch); `shape` and `strides` describe the result.
    """
    __slots__ = ("entries", "numpy_index", "shape", "strides")


def check_index_types(self, indices):
    """Count and dtype checks shared by index and index_put_ (no data needed)."""
    if len(indices) > len(self._shape):
        raise IndexError(f"too many indices for tensor of dimension {len(self._shape)} "
                         f"(got {len(indices)})")
    for t in indices:
        if t is not None and t._dtype not in _INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def _check_mask(self, mask, start):
    shape = self._shape
    for j, n in enumerate(mask._shape):
        src = start + j
        if src >= len(shape) or n != shape[src]:
            raise IndexError(f"The shape of the mask {list(mask._shape)} at index {j} does not "
                             f"match the shape of the indexed tensor {list(shape)} at index {src}")


def index_plan(self, indices, count_nonzero=None, with_strides=True) -> IndexPlan:
    """Validates `indices` (torch's order and messages) and lays out the result.

    `count_nonzero(mask)` counts a bool/uint8 mask's True entries (CPU); without it a
    mask raises NotImplementedError, as the result's size depends on data.
    """
    check_index_types(self, indices)
    if len(indices) == 0:
        raise IndexError("at least one index must be provided")
    entries, np_index = [], []
    for t in indices:
        if t is None:
            entries.append(None)
            np_index.append(slice(None))
        elif _is_mask(t):
            if t._dtype is D.uint8:
                warnings.warn("indexing with dtype ember.uint8 is now deprecated, please use a "
                              "dtype ember.bool instead.", UserWarning, stacklevel=4)
            _check_mask(self, t, len(entries))
            if count_nonzero is None:
                raise NotImplementedError(
                    "aten::index with a boolean mask has a dynamic output shape (it depends on "
                    "the mask's values), so it cannot run on the Meta device")
            if t._shape:  # (a 0-d mask stands for no index, as in torch)
                n = count_nonzero(t)  # torch's nonzero() columns: (n,) with stride 1
                entries.extend([((n,), (1,), None, False)] * len(t._shape))
                np_index.append(t._np if t._dtype is D.bool_ else t._np.astype(bool))
        else:
            entries.append((t._shape, t.stride(), t._np, t._dtype is D.int32))
            np_index.append(t._np)
    plan = IndexPlan()
    plan.entries, plan.numpy_index = entries, tuple(np_index)
    key = (self._shape, self.stride(), with_strides,
           tuple(e if e is None else (e[0], e[1], e[3]) for e in entries))
    try:
        layout = _LAYOUTS.get(key)
    except TypeError:         # (symbolic sizes, a dynamic-shape trace: SymInts do not hash)
        layout = _layout(self, entries, with_strides)
    if layout is None:
        layout = _layout(self, entries, with_strides)
        if len(_LAYOUTS) >= 4096:
            _LAYOUTS.clear()
        _LAYOUTS[key] = layout
    plan.shape, plan.strides = layout
    return plan


# Layouts depend only on metadata and take a few microseconds of Python to work out,
# so the ones seen recently are kept: (shape, strides, with_strides, entries) -> layout.
_LAYOUTS = {}


def _layout(self, entries, with_strides):
    """Result shape (and strides) of advanced indexing, after torch's make_info."""
    shapes = [e[0] for e in entries if e is not None]
    if not shapes:  # only Nones: a copy of self
        if not with_strides:
            return self._shape, None
        return self._shape, _iter_output_strides(self._shape, [(self._shape, self.stride())])
    try:
        bshape = broadcast_shapes(*shapes)
    except RuntimeError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                         f"with shapes {', '.join(str(list(s)) for s in shapes)}") from None
    ndim = len(self._shape)
    items = entries + [None] * (ndim - len(entries))
    pos = [d for d, e in enumerate(items) if e is not None]
    src_shape, src_strides = self._shape, self.stride()
    if pos[-1] - pos[0] + 1 != len(pos):  # not adjacent: indexed dims go first
        order = pos + [d for d, e in enumerate(items) if e is None]
        src_shape = tuple(src_shape[d] for d in order)
        src_strides = tuple(src_strides[d] for d in order)
        before = 0
    else:
        before = pos[0]
    after = ndim - before - len(pos)
    indexed = [src_shape[d] for d in range(before, before + len(pos))]
    if 0 in indexed and 0 not in bshape:
        raise IndexError("index is out of bounds for dimension with size 0")
    nb = len(bshape)
    shape = src_shape[:before] + bshape + src_shape[ndim - after:]
    if not with_strides:
        return shape, None
    operands = [(shape, src_strides[:before] + (0,) * nb + src_strides[ndim - after:])]
    for e in entries:
        if e is None:
            continue
        ishape, istrides = e[0], e[1]
        if ishape != bshape:
            istrides, ishape = expand_strides(ishape, istrides, bshape), bshape
        if e[3] and not is_non_overlapping_and_dense(ishape, istrides):  # int32 .to(int64)
            istrides = infer_dense_strides(ishape, istrides)
        rshape = (1,) * before + bshape + (1,) * after
        operands.append((rshape, _view_strides(ishape, istrides, rshape)))
    return shape, _iter_output_strides(shape, operands)


# --- stride rules (torch's TensorIterator, expand, view) ---------------------------------
def _iter_output_strides(shape, operands):
    """Strides TensorIterator gives a new output of `shape` from its input operands
    ((shape, strides) pairs, broadcast to `shape`)."""
    ndim = len(shape)
    if ndim <= 1:
        return contiguous_strides(shape)
    if all(s == shape for s, _ in operands) and all(_contiguous(s, st) for s, st in operands):
        return contiguous_strides(shape)
    perm = tensor_iterator_perm(shape, broadcast_strides(shape, operands))
    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous_strides(shape)
    strides = [0] * ndim
    acc = 1
    for d in perm:
        strides[d] = acc
        acc *= shape[d]
    return tuple(strides)


def _contiguous(shape, strides) -> bool:
    if 0 in shape:
        return True
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def _view_strides(oldshape, oldstride, newshape):
    """Strides of `view(newshape)` (torch's computeStride); contiguous when it must copy."""
    return compute_stride(oldshape, oldstride, newshape) or contiguous_strides(newshape)


# --- index_put_ ---------------------------------------------------------------------------
def can_masked_fill(indices, values) -> bool:
    """torch's shortcut: one mask plus a one-element CPU value becomes masked_fill_
    (so the value's dtype need not match)."""
    if values.numel() != 1 or values._device.type != "cpu":
        return False
    defined = [t for t in indices if t is not None]
    return len(defined) == 1 and _is_mask(defined[0])


def check_index_put(self, values, shape):
    """values must match self's dtype and broadcast to the indexed shape `shape`."""
    if values._dtype is not self._dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{self._dtype.scalar_name} for the destination and "
                           f"{values._dtype.scalar_name} for the source.")
    vs = values._shape
    ok = len(vs) <= len(shape) and all(
        v == 1 or v == s for v, s in zip(reversed(vs), reversed(shape)))
    if not ok:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(vs)} cannot be "
                           f"broadcast to indexing result of shape {list(shape)}")


def _is_mask(t) -> bool:
    return t is not None and (t._dtype is D.bool_ or t._dtype is D.uint8)


# --- kernels ----------------------------------------------------------------------------
def index(self, indices):
    """`self[indices]` on Meta: integer index tensors only (a mask's count is data).
    Like torch's Meta kernel, the index checks raise RuntimeError here."""
    try:
        plan = index_plan(self, indices)
    except IndexError as e:
        raise RuntimeError(str(e)) from None
    return empty_meta(plan.shape, self._dtype, plan.strides)


def index_put_(self, indices, values, accumulate):
    """Checks what can be checked without data; returns self."""
    try:
        _check_index_put_meta(self, indices, values, accumulate)
    except IndexError as e:
        raise RuntimeError(str(e)) from None
    return self


def _check_index_put_meta(self, indices, values, accumulate):
    check_index_types(self, indices)
    if any(_is_mask(t) for t in indices):
        start = 0
        for t in indices:
            if _is_mask(t):
                _check_mask(self, t, start)
            start += t.dim() if _is_mask(t) else 1
        return
    plan = index_plan(self, indices, with_strides=False)
    if accumulate or not can_masked_fill(indices, values):
        check_index_put(self, values, plan.shape)
