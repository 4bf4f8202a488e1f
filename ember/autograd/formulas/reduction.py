"""Backward helpers of the reductions: mean, amax/amin, prod, cumulative ops, norms, ..."""
from __future__ import annotations

import math

import ember
from ember.core.factory_args import real_scalar

from .common import (
    conj,
    expand_grad,
    grad_to_dtype,
    grad_where,
    reduce_to,
    reduced_count,
    scalar_value,
    scale,
    unsqueeze_to,
    zero_where,
)


def mean_backward(grad, shape, dims, keepdim, dtype):
    """The gradient of a mean over `dims` (None or []: all): grad / count, broadcast back,
    computed in grad's dtype (a `mean(dtype=)`'s) and then cast to the input's, like torch."""
    g = expand_grad(grad, shape, dims, keepdim)
    return grad_to_dtype(ember.ops.aten.div.Scalar(g, reduced_count(shape, dims)), dtype)


def amax_backward(grad, self, result, dims, keepdim):
    """The gradient of amax: shared evenly by the elements equal to the maximum."""
    if not keepdim:
        grad = unsqueeze_to(grad, dims, self.ndim)
        result = unsqueeze_to(result, dims, self.ndim)
    mask = result == self
    return (grad / mask.sum(dims, keepdim=True)) * mask




def _flip(x, d):
    """x reversed along dim d (torch's reversed cumsum flips too)."""
    return x.flip([d])


def _isnan(x):
    return ember.isnan(x)


def _abs(x):
    return x.abs()     # its gradient is sign(x): 0 at 0, like torch's


def _sgn(x):
    """sgn(x) (x / |x| for complex), whose gradient is zero (torch's sgn)."""
    return x.sgn()


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
    x = conj(grad_to_dtype(self, grad.dtype))        # (complex: the conjugate products)
    result = conj(grad_to_dtype(result, grad.dtype))
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
    """torch's var_backward: (2 / (N - correction) * grad) * (self - mean)."""
    c = 1.0 if correction is None else real_scalar(correction)
    if self.ndim == 0 or dim is None:
        dof = self.numel() - c
        if dof <= 0:
            special = ember.where(self == self.mean(), self.new_full((), math.nan),
                                  self.new_full((), math.inf))
            return grad * special
        return scale(grad, 2.0 / dof) * (self - self.mean())
    dims = [dim] if isinstance(dim, int) else list(dim)
    if not keepdim and self.ndim > 1:
        grad = unsqueeze_to(grad, dims, self.ndim)
    n = 1
    for d in dims:
        n *= self.shape[d]
    dof = n - c
    factor = 2.0 / dof if dof != 0 else math.inf
    # (torch's order: the factor scales grad first, so an infinite factor (dim=[] counts no
    # elements) multiplies grad alone, and a double backward sums finite terms before it)
    return scale(grad, factor) * (self - self.mean(dims, keepdim=True))


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
    """grad * conj(exp(self - logsumexp))."""
    grad = _keep_dims(grad, dim, self.ndim, keepdim)
    result = _keep_dims(result, dim, self.ndim, keepdim)
    return grad * conj((self - result).exp())


def norm_backward(grad, self, ord, norm, dim, keepdim, cast=True):
    """torch's norm_backward (linalg_vector_norm): subgradient 0 at 0 for every order, the
    gradient of max/min |x| shared by ties for +-inf, none (None) for ord 0. `cast=False`
    keeps the promoted dtype of self's and norm's (renorm_backward's float64 norm)."""
    p = float(scalar_value(ord))
    dtype = self.dtype
    if self.is_complex() and self.dtype.to_real() is not norm.dtype:   # dtype=: |x| as the norm's
        self = self.to(norm.dtype.to_complex())
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
    return grad_to_dtype(g, dtype) if cast else g


# the accumulation dtype torch's CPU kernels use (at::toAccumulateType on the CPU)
_CPU_ACC = {"float16": "float32", "bfloat16": "float32", "float32": "float64",
            "complex32": "complex64", "complex64": "complex128"}


def renorm_backward(grad, self, p, dim, maxnorm):
    """torch's renorm_backward: the norms (and grad's projections on self) in the CPU
    accumulation dtype, float64 for float32, so a float32 |x| ** 256 that overflows the
    forward's float32 norm is finite here; then maxnorm / n * (grad - nb / n), n = norm +
    1e-7, nb the norm's gradient, in the slices whose norm is above maxnorm.

        >>> x = ember.tensor([[3.0, 4.0]], requires_grad=True)
        >>> ember.autograd.grad(x.renorm(2, 0, 1.0).sum(), x)[0]
        tensor([[ 0.0320, -0.0240]])
    """
    dim = dim % self.ndim
    others = [d for d in range(self.ndim) if d != dim]
    acc = getattr(ember, _CPU_ACC.get(self.dtype.name, self.dtype.name))
    real = acc.to_real() if acc.is_complex else acc
    norm = ember.linalg.vector_norm(self, p, others, keepdim=True, dtype=acc)
    projection = conj(self) * grad
    if projection.is_complex():
        projection = ember.real(projection)
    projection = projection.sum(others, keepdim=True, dtype=real)
    nb = norm_backward(projection, self, p, norm, others, True, cast=False)
    invnorm = (norm + 1e-7).reciprocal()
    grad_norm = maxnorm * invnorm * (grad - invnorm * nb)
    return ember.where(norm > maxnorm, grad_norm.to(grad.dtype), grad)


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
    x = conj(grad_to_dtype(self, grad.dtype))        # (complex: the conjugate products)
    if bool((x != 0).all()):
        w = conj(grad_to_dtype(result, grad.dtype)) * grad
        return grad_to_dtype(_flip(_flip(w, d).cumsum(d), d) / x, dtype)
    xl, gl = x.movedim(d, -1), grad.movedim(d, -1)
    r = ember.arange(n, device=x.device)
    table = ember.where(r.view(n, 1) == r.view(1, n), x.new_ones(()), xl.unsqueeze(-2))
    prods = table.cumprod(-1)        # [..., i, k] = prod of x_j for j <= k, j != i
    upper = r.view(n, 1) <= r.view(1, n)
    g = (grad_where(upper, prods) * gl.unsqueeze(-2)).sum(-1)
    return grad_to_dtype(g.movedim(-1, d), dtype)


# --- issue 22: nansum, cummax/cummin, logcumsumexp, aminmax ---------------------------------
def nansum_backward(grad, self, dim, keepdim):
    """grad broadcast back, 0 at the NaNs."""
    g = expand_grad(grad, self.shape, dim, keepdim)
    return grad_to_dtype(g * self.isnan().logical_not(), self.dtype)


def cummaxmin_backward(grad, self, indices, dim):
    """Each output's gradient to the element it took its value from."""
    if self.dim() == 0:
        return grad
    return ember.zeros_like(grad).scatter_add(dim, indices, grad)


def _reverse_logcumsumexp(x, dim):
    return x.flip([dim]).logcumsumexp(dim).flip([dim])


def logcumsumexp_backward(grad, self, result, dim):
    """exp(x_i) sum_{j >= i} grad_j exp(-result_j), summed in log space for the positive and
    the negative parts of grad (torch's, after TensorFlow's); the parts' missing terms are the
    lowest finite value, not -inf, so that the double backward meets no inf - inf."""
    if self.dim() == 0 or grad.numel() == 0:
        return grad
    log_abs = grad.abs().log()
    lowest = log_abs.new_full((), ember.finfo(grad.dtype).min)
    pos = ember.where(grad > 0, log_abs, lowest)
    neg = ember.where(grad < 0, log_abs, lowest)
    return ((_reverse_logcumsumexp(pos - result, dim) + self).exp()
            - (_reverse_logcumsumexp(neg - result, dim) + self).exp())


def aminmax_backward(grad_min, grad_max, self, min, max, dim, keepdim):
    """amin's and amax's gradients (ties share evenly), added."""
    dims = [] if dim is None else [dim]
    return (amax_backward(grad_min, self, min, dims, keepdim)
            + amax_backward(grad_max, self, max, dims, keepdim))
