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


# ---------------------------------------------------------------- reduction (issue 4)
def _flip(x, d):
    """x reversed along dim d (an index op, so it stays differentiable)."""
    n = x._shape[d]
    idx = ember.arange(n - 1, -1, -1, device=x.device)
    return x[(slice(None),) * d + (idx,)]


def _isnan(x):
    return x != x  # noqa: PLR0124  (NaN is the only value unequal to itself)


def _abs(x):
    return ember.where(x < 0, -x, x)


def _sgn(x):
    """sign(x) as a constant (comparisons carry no gradient), like torch's sgn."""
    return (x > 0).to(x.dtype) - (x < 0).to(x.dtype)


def _keep_dims(grad, dims, ndim, keepdim):
    return grad if keepdim or ndim == 0 else unsqueeze_to(grad, dims, ndim)


def _prod_safe_zeros_backward(grad, inp, d):
    """prod's gradient where the input may hold zeros: the product of the elements before
    and after each one along `d` (exclusive cumulative products, no division)."""
    n = inp._shape[d]
    if inp.numel() == 0:
        return grad.expand(inp.shape)
    ones_shape = list(inp.shape)
    ones_shape[d] = 1
    ones = inp.new_ones(tuple(ones_shape))
    before = ember.cat([ones, inp.narrow(d, 0, n - 1)], d).cumprod(d)
    after = _flip(ember.cat([ones, _flip(inp.narrow(d, 1, n - 1), d)], d).cumprod(d), d)
    return grad * (before * after)


def prod_backward(grad, self, result, dim=None, keepdim=False):
    """Gradient of prod (torch's prod_backward): grad * result / self when no element is 0;
    else the product of the other elements (zero where a slice holds two zeros)."""
    dtype = self.dtype
    x = grad_to_dtype(self, grad.dtype)
    result = grad_to_dtype(result, grad.dtype)
    if x.ndim == 0:
        return grad_to_dtype(grad, dtype)
    if dim is None:
        if bool((x != 0).all()):
            return grad_to_dtype(grad * (result / x), dtype)
        if int((x == 0).sum()) > 1:
            return ember.zeros_like(x, dtype=dtype)
        g = _prod_safe_zeros_backward(grad, x.reshape(-1), 0).reshape(x.shape)
        return grad_to_dtype(g, dtype)
    d = dim % x.ndim
    if not keepdim:
        grad, result = grad.unsqueeze(d), result.unsqueeze(d)
    if bool((x != 0).all()):
        return grad_to_dtype(grad * (result / x), dtype)
    return grad_to_dtype(_prod_safe_zeros_backward(grad, x, d), dtype)


def value_selecting_reduction_backward(grad, dim, indices, shape, keepdim):
    """max.dim / min.dim: grad goes to the selected index of each slice, zeros elsewhere."""
    ndim = len(shape)
    if ndim == 0:
        return grad
    d = dim % ndim
    if not keepdim:
        grad, indices = grad.unsqueeze(d), indices.unsqueeze(d)
    view = [1] * ndim
    view[d] = shape[d]
    pos = ember.arange(shape[d], device=grad.device).view(view)
    return grad_where(pos == indices, grad)


def evenly_distribute_backward(grad, self, result):
    """max() / min(): grad shared evenly by the elements equal to the result (the NaNs
    when the result is NaN)."""
    mask = _isnan(self) if bool(_isnan(result)) else (self == result)
    return grad_where(mask, grad / mask.sum())


def minmax_other_backward(grad, self, other, lose, shape, dtype):
    """max/min(self, other): the gradient is halved at ties, zero where this input lost."""
    g = ember.where(self == other, grad / 2, grad)
    return reduce_to(zero_where(lose, g), shape, dtype)


def var_backward(grad, self, dim, correction, keepdim):
    """torch's var_backward: 2 / (N - correction) * grad * (self - mean)."""
    c = 1.0 if correction is None else float(scalar_value(correction))
    if self.ndim == 0 or dim is None:
        dof = self.numel() - c
        if dof <= 0:
            special = ember.where(self == self.mean(), self.new_full((), math.nan),
                                  self.new_full((), math.inf))
            return grad * special
        return scale(grad * (self - self.mean()), 2.0 / dof)
    dims = [dim] if isinstance(dim, int) else list(dim)
    if not keepdim and self.ndim > 1:
        grad = unsqueeze_to(grad, dims, self.ndim)
    n = 1
    for d in dims:
        n *= self.shape[d]
    dof = n - c
    factor = 2.0 / dof if dof != 0 else math.inf
    return scale(grad * (self - self.mean(dims, keepdim=True)), factor)


def std_backward(result, grad, self, dim, correction, keepdim):
    """std = sqrt(var): grad / (2 std) (zero where std is 0), then var's gradient."""
    grad_var = zero_where(result == 0, grad / (result * 2))
    return var_backward(grad_var, self, dim, correction, keepdim)


def var_mean_backward(gvar, gmean, self, dim, correction, keepdim):
    g = var_backward(gvar, self, dim, correction, keepdim)
    dims = [dim] if isinstance(dim, int) else dim
    return g + mean_backward(gmean, self.shape, dims, keepdim, self.dtype)


def std_mean_backward(gstd, gmean, self, std, dim, correction, keepdim):
    g = std_backward(std, gstd, self, dim, correction, keepdim)
    dims = [dim] if isinstance(dim, int) else dim
    return g + mean_backward(gmean, self.shape, dims, keepdim, self.dtype)


def logsumexp_backward(grad, self, result, dim, keepdim):
    """grad * exp(self - logsumexp)."""
    grad = _keep_dims(grad, dim, self.ndim, keepdim)
    result = _keep_dims(result, dim, self.ndim, keepdim)
    return grad * (self - result).exp()


def norm_backward(grad, self, ord, norm, dim, keepdim):
    """torch's norm_backward (linalg_vector_norm): subgradient 0 at 0 for every order, the
    gradient of max/min |x| shared by ties for +-inf, none (None) for ord 0."""
    p = float(scalar_value(ord))
    dtype = self.dtype
    grad = _keep_dims(grad, dim, self.ndim, keepdim)
    norm = _keep_dims(norm, dim, self.ndim, keepdim)
    if p == 0.0:
        return None
    if p == 1.0:
        g = _sgn(self) * grad
    elif p == 2.0:
        g = grad * zero_where(norm == 0, self / norm)
    elif math.isinf(p):
        a = _abs(self)
        mask = ember.where(_isnan(a), a.new_ones((), dtype=ember.bool), a == norm)
        sums = mask.sum(dim, keepdim=True) if dim is not None else mask.sum()
        g = _sgn(self) * ((grad / sums) * mask)
    elif p < 1.0:
        zero = self == 0     # |x|^(p-1) is infinite at 0: read 1 there, then zero it
        safe = ember.where(zero, self.new_ones(()), _abs(self))
        scaled = zero_where(zero, _sgn(self) * safe.pow(p - 1))
        g = scaled * grad * norm.pow(1 - p)
    elif p < 2.0:
        g = _sgn(self) * _abs(self).pow(p - 1) * zero_where(norm == 0, grad / norm.pow(p - 1))
    else:
        g = self * _abs(self).pow(p - 2) * zero_where(norm == 0, grad / norm.pow(p - 1))
    return grad_to_dtype(g, dtype)


def cumsum_backward(grad, dim):
    """The reversed cumulative sum of grad along dim."""
    if grad.numel() <= 1 or grad.ndim == 0:
        return grad
    d = dim % grad.ndim
    if grad.shape[d] == 1:
        return grad
    return _flip(_flip(grad, d).cumsum(d), d)


def cumprod_backward(grad, self, dim, result):
    """cumprod's gradient: reversed cumsum(result * grad) / self without zeros; with zeros,
    sum_k grad_k * prod_{j <= k, j != i} x_j computed on an (n, n) product table."""
    dtype = self.dtype
    if self.numel() <= 1 or self.ndim == 0:
        return grad_to_dtype(grad, dtype)
    d = dim % self.ndim
    n = self.shape[d]
    if n == 1:
        return grad_to_dtype(grad, dtype)
    x = grad_to_dtype(self, grad.dtype)
    if bool((x != 0).all()):
        w = grad_to_dtype(result, grad.dtype) * grad
        return grad_to_dtype(_flip(_flip(w, d).cumsum(d), d) / x, dtype)
    xl, gl = x.movedim(d, -1), grad.movedim(d, -1)
    r = ember.arange(n, device=x.device)
    table = ember.where(r.view(n, 1) == r.view(1, n), x.new_ones(()), xl.unsqueeze(-2))
    prods = table.cumprod(-1)        # [..., i, k] = prod of x_j for j <= k, j != i
    upper = r.view(n, 1) <= r.view(1, n)
    g = (grad_where(upper, prods) * gl.unsqueeze(-2)).sum(-1)
    return grad_to_dtype(g.movedim(-1, d), dtype)
