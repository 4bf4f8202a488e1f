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

import math

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
    """The dtypes of a tensor list."""
    return [t.dtype for t in tensors]


# --- shape helpers ----------------------------------------------------------------------------
def sum_to_size(grad, shape):
    """Sums a broadcast gradient back to `shape` (the inverse of broadcasting).

    >>> sum_to_size(ember.ones(4, 2, 3), (2, 1)).shape
    ember.Size([2, 1])
    """
    gshape = grad._shape
    if gshape == shape:
        return grad
    shape = tuple(shape)
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
    return grad if grad._dtype is dtype else grad.to(dtype)


def reduce_to(grad, shape, dtype):
    """A broadcast, type-promoted gradient back to an input's shape and dtype.

    >>> reduce_to(ember.ones(2, 3, dtype=ember.float64), (3,), ember.float32)
    tensor([2., 2., 2.])
    """
    if grad._shape == shape and grad._dtype is dtype:    # the common case: nothing to do
        return grad
    return grad_to_dtype(sum_to_size(grad, shape), dtype)


def scalar_value(x):
    """A Python number from a Scalar argument (formulas multiply by it)."""
    return x.item() if isinstance(x, ember.Tensor) else x


def scale(grad, s):
    """grad * s for a Python number `s` (mul.Scalar: keeps grad's dtype)."""
    return ember.ops.aten.mul.Scalar(grad, scalar_value(s))


def maybe_multiply(grad, alpha):
    """grad * alpha, skipping the multiply when alpha is 1."""
    return grad if alpha == 1 else scale(grad, alpha)


def grad_where(mask, grad):
    """grad where `mask`, else 0 (broadcast to both shapes; NaN grads stay out of the zeros)."""
    return ember.where(mask, grad, grad.new_zeros(()))


def zero_where(mask, grad):
    """0 where `mask`, else grad."""
    return ember.where(mask, grad.new_zeros(()), grad)


def zeros_for(grad, shape, dtype):
    """A zero gradient for an input of `shape` and `dtype` (no dependence on grad)."""
    return grad.new_zeros(tuple(shape), dtype=dtype)


# --- pointwise ops -----------------------------------------------------------------------------
def sigmoid_backward(grad, result):
    """Gradient of sigmoid from its output y: grad * (1 - y) * y."""
    return grad * (1 - result) * result


def tanh_backward(grad, result):
    """Gradient of tanh from its output y: grad * (1 - y * y)."""
    return grad * (1 - result * result)


def div_self_backward(grad, other, shape, dtype, rounding_mode=None):
    """d(self / other)/d(self) = 1 / other; zero for rounding divisions (like torch)."""
    if rounding_mode is not None:
        return zeros_for(grad, shape, dtype)
    if isinstance(other, ember.Tensor):
        return reduce_to(grad / other, shape, dtype)
    return grad_to_dtype(ember.ops.aten.div.Scalar(grad, other), dtype)


def div_other_backward(grad, self, other, rounding_mode=None):
    """d(self / other)/d(other) = -self / other**2; zero for rounding divisions."""
    if rounding_mode is not None:
        return zeros_for(grad, other.shape, other.dtype)
    return reduce_to(grad.neg() * ((self / other) / other), other.shape, other.dtype)


def pow_backward(grad, self, exponent):
    """d(self ** exponent)/d(self) for a Python-number exponent (zero for exponent 0)."""
    exponent = scalar_value(exponent)
    if exponent == 0:
        return ember.zeros_like(self)
    return grad * scale(self.pow(exponent - 1), exponent)


def pow_backward_self(grad, self, exponent):
    """d(self ** exponent)/d(self) = exponent * self ** (exponent - 1), 0 where exponent == 0."""
    if not isinstance(exponent, ember.Tensor):     # a Python number for the exponent
        return reduce_to(pow_backward(grad, self, exponent), self.shape, self.dtype)
    g = grad * (exponent * self.pow(exponent - 1))
    return reduce_to(zero_where(exponent == 0, g), self.shape, self.dtype)


def pow_backward_exponent(grad, self, exponent, result):
    """d(self ** exponent)/d(exponent) = result * log(self), 0 where self == 0 <= exponent.
    The log reads 1 there (not 0), so no NaN appears, in double backward either."""
    base = grad_to_dtype(self, result.dtype) if isinstance(self, ember.Tensor) else self
    cond = (base == 0) * (exponent >= 0)
    log_base = zero_where(cond, ember.where(cond, base.new_ones(()), base).log())
    return reduce_to(grad * (result * log_base), exponent.shape, exponent.dtype)


def pow_scalar_backward(grad, base, exponent, result):
    """d(base ** exponent)/d(exponent) = result * log(base) for a Python-number base
    (for base 0: 0 where exponent >= 0, else -inf)."""
    base = scalar_value(base)
    if base == 0:
        return grad * zero_where(exponent >= 0, result.new_full((), -math.inf))
    return grad * scale(result, math.log(base))


def clamp_backward(grad, self, min, max):
    """clamp with number bounds: grad where min <= self <= max (the bounds themselves
    included, like torch), else 0."""
    if min is not None and max is not None:
        return grad_where((self >= min) * (self <= max), grad)
    if min is not None:
        return grad_where(self >= min, grad)
    if max is not None:
        return grad_where(self <= max, grad)
    return grad


def clamp_backward_min_max(grad, self, min, max):
    """clamp with tensor bounds: (grad self, grad min, grad max) with torch's masks; when
    min > max the result is max, so max gets the gradient and min none."""
    g_self = g_min = g_max = None
    if min is not None and max is not None:
        g_self = grad_where((self >= min) * (self <= max), grad)
        g_min = grad_where((self < min) * (min < max), grad)
        g_max = grad_where((self > max) + (max < min), grad)
    elif min is not None:
        g_self = grad_where(self >= min, grad)
        g_min = grad_where(self < min, grad)
    elif max is not None:
        g_self = grad_where(self <= max, grad)
        g_max = grad_where(self > max, grad)
    else:
        g_self = grad
    g_self = reduce_to(g_self, self.shape, self.dtype)
    if g_min is not None:
        g_min = reduce_to(g_min, min.shape, min.dtype)
    if g_max is not None:
        g_max = reduce_to(g_max, max.shape, max.dtype)
    return g_self, g_min, g_max


def to_copy_backward(grad, dtype, device):
    """_to_copy's gradient: grad back to the input's dtype and device."""
    if grad.dtype == dtype and grad.device == device:
        return grad
    return grad.to(device=device, dtype=dtype)


# --- reductions --------------------------------------------------------------------------------
def mean_backward(grad, shape, dims, keepdim, dtype):
    """The gradient of a mean over `dims` (None or []: all): grad / count, broadcast back."""
    g = expand_grad(grad_to_dtype(grad, dtype), shape, dims, keepdim)
    return ember.ops.aten.div.Scalar(g, reduced_count(shape, dims))


def amax_backward(grad, self, result, dims, keepdim):
    """The gradient of amax: shared evenly by the elements equal to the maximum."""
    if not keepdim:
        grad = unsqueeze_to(grad, dims, self.ndim)
        result = unsqueeze_to(result, dims, self.ndim)
    mask = result == self
    return (grad / mask.sum(dims, keepdim=True)) * mask


# --- views -------------------------------------------------------------------------------------
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


# --- joining and indexing ----------------------------------------------------------------------
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


# ---------------------------------------------------------------- random (issue 4)
def dropout_grad_scale(p, train):
    """native_dropout's backward scale, as torch's derivatives.yaml has it: 1/(1-p) when
    train is True (0 for p == 1), else 1 (also for train=None, like torch)."""
    if train is None or not train:
        return 1.0
    return 0.0 if p == 1 else 1.0 / (1.0 - p)
