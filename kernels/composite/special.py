"""Pointwise math ops that torch decomposes (CompositeImplicitAutograd): ldexp is
self * 2**other, float_power is pow in float64, sgn of a real
tensor is sign, positive is self (autograd comes from the ops they call).

    >>> ember.ldexp(ember.tensor([1., 2.]), ember.tensor([3, 4]))
    tensor([ 8., 32.])
"""
import ember


def ldexp(self, other):
    return ember.mul(self, ember.pow(2.0, other))


def _float64(x):
    return x.to(ember.float64) if isinstance(x, ember.Tensor) else x


def float_power(self, exponent):
    """pow with both operands in float64 (Tensor_Tensor, Tensor_Scalar and Scalar)."""
    return ember.pow(_float64(self), _float64(exponent))


def positive(self):
    if self.dtype == ember.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self
