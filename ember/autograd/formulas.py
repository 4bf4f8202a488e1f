"""Helpers that backward formulas in schema/derivatives.yaml may call.

Formulas are Python expressions over ember ops, so every helper here is written in
ember ops too: backward stays differentiable (double backward by construction).
codegen reads this module with `ast` (no import) to learn the names formulas may use;
a helper decorated with `@forward_value` is evaluated in the forward pass when all
its arguments are inputs, and only its result is saved (e.g. `to_args_sizes(tensors)`).

    >>> sum_to_size(ember.ones(2, 3), (3,))
    tensor([2., 2., 2.])
"""
from __future__ import annotations

import ember


def forward_value(fn):
    """Marks a helper whose call on inputs is computed at forward time and saved."""
    fn.forward_value = True
    return fn


# --- values computed at forward time ---------------------------------------------------------
@forward_value
def to_args_sizes(tensors):
    """The shapes of a tensor list (what `cat`'s backward needs, not the tensors)."""
    return [t.shape for t in tensors]


@forward_value
def to_args_dtypes(tensors):
    return [t.dtype for t in tensors]


# --- shape helpers ----------------------------------------------------------------------------
def sum_to_size(grad, shape):
    """Sums a broadcast gradient back to `shape` (the inverse of broadcasting).

    >>> sum_to_size(ember.ones(4, 2, 3), (2, 1)).shape
    ember.Size([2, 1])
    """
    shape = tuple(shape)
    gshape = tuple(grad.shape)
    if gshape == shape:
        return grad
    lead = len(gshape) - len(shape)
    dims = list(range(lead))
    for i, n in enumerate(shape):
        if n == 1 and gshape[lead + i] != 1:
            dims.append(lead + i)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if lead:
        grad = grad.view(shape)
    return grad


def unsqueeze_to(grad, dims, ndim):
    """Re-inserts the reduced `dims` (as size-1 dims) of a `keepdim=False` reduction."""
    if ndim == 0:
        return grad
    dims = [dims] if isinstance(dims, int) else list(dims or range(ndim))
    for d in sorted(d % ndim for d in dims):
        grad = grad.unsqueeze(d)
    return grad


def expand_grad(grad, shape, dims=None, keepdim=True):
    """The gradient of a sum over `dims`: broadcast `grad` back to the input `shape`."""
    if not keepdim:
        grad = unsqueeze_to(grad, dims, len(shape))
    return grad.expand(shape)


def reduced_count(shape, dims):
    """How many input elements fed each output element of a reduction over `dims`."""
    if dims is None or len(dims) == 0:
        dims = range(len(shape))
    n = 1
    for d in dims:
        n *= shape[d % len(shape)] if shape else 1
    return n


def grad_to_dtype(grad, dtype):
    """Casts a gradient back to an input's dtype (ops with `dtype=` or type promotion)."""
    return grad if grad.dtype == dtype else grad.to(dtype)


def scalar_value(x):
    """A Python number from a Scalar argument (formulas multiply by it)."""
    return x.item() if isinstance(x, ember.Tensor) else x


def maybe_multiply(grad, alpha):
    """grad * alpha, skipping the multiply when alpha is 1."""
    return grad if alpha == 1 else grad * alpha


def threshold_backward(grad, result, threshold):
    """Gradient of relu/threshold: grad where result > threshold, else 0."""
    return grad * (result > threshold)


def as_strided_backward(grad, in_shape, in_stride, in_offset, size, stride, storage_offset):
    """Gradient of as_strided: scatter-add `grad` into the input's storage positions
    (overlapping outputs accumulate), then read the input's elements back."""
    if storage_offset is None:
        storage_offset = in_offset
    out_idx = _storage_indices(size, stride, storage_offset, grad.device)
    in_idx = _storage_indices(in_shape, in_stride, in_offset, grad.device)
    extent = 1 + max(_max_index(size, stride, storage_offset),
                     _max_index(in_shape, in_stride, in_offset))
    flat = grad.new_zeros((extent,))
    flat = flat.index_put((out_idx.reshape(-1),), grad.reshape(-1), True)
    return flat[in_idx]


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
