"""Backward helpers of views, joining, indexing and shape ops."""
from __future__ import annotations

import math

import ember

from .common import grad_to_dtype, grad_where, reduce_to


def permute_backward(grad, dims):
    """permute's gradient: grad permuted by the inverse permutation."""
    n = len(dims)
    inverse = [0] * n
    for i, d in enumerate(dims):
        inverse[d % n] = i
    return grad.permute(inverse)


def slice_backward(grad, shape, dim, start, end, step):
    """slice's gradient: zeros of the input's shape with grad in the sliced part."""
    out = grad.new_zeros(tuple(shape))
    out.slice(dim, start, end, step).copy_(grad)
    return out


def select_backward(grad, shape, dim, index):
    """select's gradient: zeros of the input's shape with grad at `index` along `dim`."""
    out = grad.new_zeros(tuple(shape))
    out.select(dim, index).copy_(grad)
    return out


def diagonal_backward(grad, shape, offset, dim1, dim2):
    """diagonal's gradient: zeros of the input's shape with grad on that diagonal."""
    out = grad.new_zeros(tuple(shape))
    out.diagonal(offset, dim1, dim2).copy_(grad)
    return out


def cat_tensors_backward(grad, sizes, dtypes, dim):
    """cat's gradient: the slice of grad each input filled (legacy empty 1-D inputs,
    which cat skips, get empty gradients)."""
    ref = next((s for s in sizes if tuple(s) != (0,)), None)
    if ref is not None:
        dim = dim % len(ref)
    out, start = [], 0
    for shape, dtype in zip(sizes, dtypes):
        if tuple(shape) == (0,):
            out.append(grad.new_zeros((0,), dtype=dtype))
            continue
        n = shape[dim]
        out.append(grad_to_dtype(grad.narrow(dim, start, n), dtype))
        start += n
    return out


def stack_tensors_backward(grad, dim, dtypes):
    """stack's gradient: input i's is grad's slice i along the new dim (in its dtype)."""
    return [grad_to_dtype(grad.select(dim, i), dtype) for i, dtype in enumerate(dtypes)]


def index_backward(grad, shape, indices):
    """index's gradient: grad added (repeats accumulate) into zeros at the indexed places."""
    return grad.new_zeros(tuple(shape)).index_put(indices, grad, True)


def index_put_self_backward(grad, indices, accumulate):
    """index_put's gradient for self: grad, with the overwritten places zeroed unless
    accumulating."""
    if accumulate:
        return grad
    return grad.index_put(indices, grad.new_zeros(()), False)


def as_strided_backward(grad, in_shape, in_stride, in_offset, size, stride, storage_offset):
    """Gradient of as_strided: scatter-add `grad` into the input's storage positions
    (overlapping outputs accumulate), then read the input's elements back; where input
    elements share a position (an expanded input), each takes its share of that
    position's gradient (torch's), so that summing them back gives it once."""
    if storage_offset is None:
        storage_offset = in_offset
    out_idx = _storage_indices(size, stride, storage_offset, grad.device)
    in_idx = _storage_indices(in_shape, in_stride, in_offset, grad.device)
    extent = 1 + max(_max_index(size, stride, storage_offset),
                     _max_index(in_shape, in_stride, in_offset))
    flat = grad.new_zeros((extent,))
    flat = flat.index_put((out_idx.reshape(-1),), grad.reshape(-1), True)
    if _maybe_overlapping(in_shape, in_stride):
        count = grad.new_zeros((extent,)).index_put(
            (in_idx.reshape(-1),), grad.new_ones(()).expand(in_idx.numel()), True)
        return flat[in_idx] / count[in_idx]
    return flat[in_idx]


def _maybe_overlapping(shape, stride) -> bool:
    """torch's _maybe_overlapping_memory, from the layout alone (no data-dependent check,
    so symbolic tracing works): in increasing stride order, a stride not beyond the span of
    the smaller ones may revisit a position.

    >>> _maybe_overlapping((3, 4), (4, 1)), _maybe_overlapping((3, 4), (0, 1))
    (False, True)
    """
    span = 0
    for n, st in sorted(zip(shape, stride), key=lambda d: d[1]):
        if st <= span:
            return True
        span += st * (n - 1)
    return False


def _max_index(shape, stride, offset):
    if 0 in tuple(shape):
        return offset
    return offset + sum((n - 1) * s for n, s in zip(shape, stride))


def _storage_indices(shape, stride, offset, device):
    """The storage index of every element of a strided layout, as an int64 tensor."""
    idx = ember.full(tuple(shape), offset, dtype=ember.int64, device=device)
    for d, (n, s) in enumerate(zip(shape, stride)):
        view = [1] * len(shape)
        view[d] = n
        idx = idx + ember.arange(n, dtype=ember.int64, device=device).view(view) * s
    return idx


def _ints(x):
    return [x] if isinstance(x, int) else [int(v) for v in x]


def repeat_backward(grad, repeats, shape):
    """repeat's gradient: the tiles summed back onto the input (leading new dims too)."""
    repeats, shape = _ints(repeats), tuple(shape)
    if 0 in repeats:    # torch's early zeros (no split to reshape to, whatever the others)
        return grad.new_zeros(shape)
    lead = len(repeats) - len(shape)
    if lead:
        grad = grad.sum(list(range(lead)))
    if not shape:
        return grad
    split = []
    for r, n in zip(repeats[lead:], shape):
        split += [r, n]
    return grad.reshape(split).sum(list(range(0, 2 * len(shape), 2)))


def roll_backward(grad, shifts, dims):
    """roll's gradient: grad rolled back by the opposite shifts."""
    return grad.roll([-s for s in _ints(shifts)], _ints(dims))


def index_select_backward(grad, shape, dim, index):
    """index_select's gradient: grad added (repeats accumulate) into zeros at the rows read."""
    shape = tuple(shape)
    if not shape:       # a 0-d self's one window of size 1 (size 0: an empty one, grad 0)
        return grad.sum().reshape(())
    dim = dim % len(shape)
    return grad.new_zeros(shape).index_put([None] * dim + [index.reshape(-1)], grad, True)


def gather_backward(grad, shape, dim, index):
    """gather's gradient: grad scattered-added into zeros of the input's shape."""
    return grad.new_zeros(tuple(shape)).scatter_add(dim, index, grad)


def value_selecting_backward(grad, dim, indices, shape):
    """sort / topk: each value's gradient goes back to the position it came from."""
    return grad.new_zeros(tuple(shape)).scatter(dim, indices, grad)


def masked_select_backward(grad, self, mask):
    """masked_select's gradient: grad written at the mask's True places of zeros of the
    broadcast shape, then reduced to self's shape."""
    shape = tuple(ember.broadcast_shapes(self.shape, mask.shape))
    if not shape:    # 0-d: grad has 0 or 1 element
        out = grad_where(mask, grad.sum())
    else:
        out = grad.new_zeros(shape).index_put([mask.expand(shape)], grad, False)
    return reduce_to(out, self.shape, self.dtype)


def scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result):
    """torch's scatter_reduce_backward: (grad self, grad src) for sum, prod, mean, amax, amin."""
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError("Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' "
                           f"but got {reduce}.")
    if reduce == "sum":
        g_self, g_src = grad, grad.gather(dim, index)
    elif reduce == "prod":
        masked_self = self.masked_fill(self == 0, 1)
        masked_self_result = masked_self.scatter_reduce(dim, index, src, reduce,
                                                        include_self=include_self)
        g_self = grad * masked_self_result / masked_self
        src_zero = src == 0
        src_num_zeros = ember.zeros_like(self).scatter_add(
            dim, index, src_zero.to(self.dtype)).gather(dim, index)
        src_single_zero = src_zero * (src_num_zeros == 1)
        masked_src = src.masked_fill(src_single_zero, 1)
        masked_src_result = self.scatter_reduce(dim, index, masked_src, reduce,
                                                include_self=include_self)
        g_src = ember.where(src_single_zero, (grad * masked_src_result).gather(dim, index),
                            (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1))
    elif reduce == "mean":
        n = ember.ones_like(grad) if include_self else ember.zeros_like(grad)
        n = n.scatter_add(dim, index, ember.ones_like(src))
        n = n.masked_fill(n == 0, 1)
        g_self = grad / n
        g_src = grad.gather(dim, index) / n.gather(dim, index)
    else:  # amax / amin: ties share the gradient evenly
        value = result.gather(dim, index)
        self_is_result = (self == result).to(self.dtype)
        src_is_result = (src == value).to(self.dtype)
        share = grad / self_is_result.scatter_add(dim, index, src_is_result)
        g_self = self_is_result * share
        g_src = src_is_result * share.gather(dim, index)
    if not include_self:
        g_self = g_self.scatter(dim, index, 0)
    return g_self, g_src


def as_strided_scatter_backward(grad, in_shape, in_stride, size, stride, storage_offset):
    """torch's as_strided_scatter_backward (for contiguous inputs): grad with the scattered
    window zeroed."""
    g = grad.contiguous()
    buf = g.new_zeros(tuple(in_shape))
    out = buf.as_strided(tuple(in_shape), tuple(in_stride), 0)
    out.copy_(g)
    buf.as_strided(size, stride, 0 if storage_offset is None else storage_offset).fill_(0)
    return out


def index_source_backward(grad, dim, index, shape):
    """index_add / index_copy: the source's gradient is grad at the indexed slices."""
    g = grad.index_select(dim, index) if grad.dim() else grad
    return g.reshape(tuple(shape)) if g.numel() == math.prod(shape) else g.expand(tuple(shape))


def index_fill_value_backward(grad, dim, index, dtype):
    """index_fill's value gradient: the sum of grad over the filled (distinct) slices."""
    g = grad.index_select(dim, ember.unique(index.reshape(-1))) if grad.dim() else grad
    return grad_to_dtype(g.sum(), dtype)


def masked_scatter_source_backward(grad, mask, shape):
    """masked_scatter's source gradient: grad at the mask's True places, in order, padded
    with zeros to the source's size."""
    n = math.prod(shape)
    selected = grad.masked_select(mask)
    if selected.numel() < n:
        selected = ember.cat([selected, grad.new_zeros((n - selected.numel(),))])
    return selected.reshape(tuple(shape))


def put_self_backward(grad, index, source, accumulate):
    """put's self gradient: grad, zeroed at the overwritten places unless accumulating."""
    if accumulate:
        return grad
    return grad.put(index, ember.zeros_like(source), False)


def unfold_backward(grad, shape, dim, size, step):
    """unfold's gradient: each window's gradient added back at the positions it covers."""
    shape = tuple(shape)
    if not shape:       # a 0-d self's one window of size 1 (size 0: an empty one, grad 0)
        return grad.sum().reshape(())
    dim = dim % len(shape)
    windows = grad.shape[dim]
    pos = (ember.arange(windows, device=grad.device).view(-1, 1) * step
           + ember.arange(size, device=grad.device).view(1, -1)).reshape(-1)
    g = grad.movedim(-1, dim + 1).flatten(dim, dim + 1)
    return grad.new_zeros(shape).index_add(dim, pos, g)
