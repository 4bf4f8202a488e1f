"""Backward helpers of the binary family: div, pow, clamp, maximum/minimum, atan2."""
from __future__ import annotations

import cmath
import math

import ember

from .common import (
    conj,
    conjugate,
    grad_to_dtype,
    grad_where,
    reduce_to,
    scalar_value,
    scale,
    zero_where,
    zeros_for,
)


def scalar_over(value, tensor):
    """`value / tensor` as torch's formulas compute it (C++ `Scalar / Tensor` is
    `empty_like(tensor).fill_(value).div_(tensor)`): a number that overflows tensor's
    dtype raises fill_'s error instead of giving inf (addcdiv's backward).

    >>> scalar_over(2.0, ember.tensor([4.0, 0.5]))
    tensor([0.5000, 4.0000])
    """
    return ember.empty_like(tensor).fill_(value).div_(tensor)


def div_self_backward(grad, other, shape, dtype, rounding_mode=None):
    """d(self / other)/d(self) = 1 / other; zero for rounding divisions (like torch)."""
    if rounding_mode is not None:
        return zeros_for(grad, shape, dtype)
    if isinstance(other, ember.Tensor):
        return reduce_to(grad / conj(other), shape, dtype)
    return grad_to_dtype(ember.ops.aten.div.Scalar(grad, conjugate(other)), dtype)


def div_other_backward(grad, self, other, rounding_mode=None):
    """d(self / other)/d(other) = -self / other**2; zero for rounding divisions."""
    if rounding_mode is not None:
        return zeros_for(grad, other.shape, other.dtype)
    return reduce_to(grad.neg() * conj((self / other) / other), other.shape, other.dtype)


def pow_backward(grad, self, exponent):
    """d(self ** exponent)/d(self) for a Python-number exponent (zero for exponent 0)."""
    exponent = scalar_value(exponent)
    if exponent == 0:
        return ember.zeros_like(self)
    return grad * conj(scale(self.pow(exponent - 1), exponent))


def pow_backward_self(grad, self, exponent):
    """d(self ** exponent)/d(self) = exponent * self ** (exponent - 1), 0 where exponent == 0."""
    if not isinstance(exponent, ember.Tensor):     # a Python number for the exponent
        return reduce_to(pow_backward(grad, self, exponent), self.shape, self.dtype)
    g = grad * conj(exponent * self.pow(exponent - 1))
    return reduce_to(zero_where(exponent == 0, g), self.shape, self.dtype)


def pow_backward_exponent(grad, self, exponent, result):
    """d(self ** exponent)/d(exponent) = result * log(self), 0 where self == 0 <= exponent.
    The log reads 1 there (not 0), so no NaN appears, in double backward either."""
    base = grad_to_dtype(self, result.dtype) if isinstance(self, ember.Tensor) else self
    cond = (base == 0) * _nonnegative(exponent)
    log_base = zero_where(cond, ember.where(cond, base.new_ones(()), base).log())
    return reduce_to(grad * conj(result * log_base), exponent.shape, exponent.dtype)


def _nonnegative(exponent):
    """exponent >= 0 (a complex exponent: real and >= 0), where 0 ** exponent is finite."""
    if exponent.is_complex():
        return (ember.imag(exponent) == 0) * (ember.real(exponent) >= 0)
    return exponent >= 0


def _log_of_number(x):
    """torch's Scalar log: NaN for a negative real, -inf for 0, the principal complex log."""
    if isinstance(x, complex):
        return complex(-math.inf, 0.0) if x == 0 else cmath.log(x)
    return math.log(x) if x > 0 else -math.inf if x == 0 else math.nan


def pow_scalar_backward(grad, base, exponent, result):
    """d(base ** exponent)/d(exponent) = result * log(base) for a Python-number base (a
    complex log for a complex exponent, NaN for a negative base otherwise; for base 0: 0
    where exponent >= 0, else result * -inf), like torch.

    >>> e = ember.tensor([0.5], requires_grad=True)
    >>> ember.autograd.grad(ember.pow(-2.0, e), e, ember.ones(1))[0]
    tensor([nan])
    """
    base = scalar_value(base)
    if exponent.is_complex():
        base = complex(base)
    if base == 0:   # (result read as 1 where masked: no 0 * -inf reaches double backward;
        # grad times the masked factor, as torch, so d/dgrad is 0 there, not 0 * -inf)
        masked = _nonnegative(exponent)
        safe = ember.where(masked, result.new_ones(()), result)
        g = grad * conj(zero_where(masked, scale(safe, -math.inf)))
    else:
        g = grad * conj(scale(result, _log_of_number(base)))
    return grad_to_dtype(g, exponent.dtype)


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


def max_min_backward(grad, self, other, loses):
    """maximum / minimum: grad where this input wins, half of it on ties (like torch), 0
    where `loses`."""
    return ember.where(self == other, grad / 2, grad).masked_fill(loses, 0)


def atan2_backward(grad, self, other):
    """d atan2(self, other) = (other, -self) / (self ** 2 + other ** 2); 0 at the origin
    (like torch)."""
    denom = self * self + other * other
    at_origin = denom == 0
    recip = zero_where(at_origin, 1 / ember.where(at_origin, denom.new_ones(()), denom))
    g_self = reduce_to(grad * other * recip, self.shape, self.dtype)
    g_other = reduce_to((grad * self * recip).neg(), other.shape, other.dtype)
    return g_self, g_other
