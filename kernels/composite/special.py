"""Pointwise math ops that torch decomposes (CompositeImplicitAutograd): ldexp is
self * 2**other, float_power is pow in float64, sgn of a real
tensor is sign, positive is self (autograd comes from the ops they call).

    >>> ember.ldexp(ember.tensor([1., 2.]), ember.tensor([3, 4]))
    tensor([ 8., 32.])
"""
import ember


def ldexp(self, other):
    return ember.mul(self, ember.pow(2.0, other))


def _is_complex(x):
    return x.dtype.is_complex if isinstance(x, ember.Tensor) else isinstance(x, complex)


def float_power(self, exponent):
    """pow with both operands in float64, or complex128 when one is complex (Tensor_Tensor,
    Tensor_Scalar and Scalar)."""
    dt = ember.complex128 if _is_complex(self) or _is_complex(exponent) else ember.float64
    return ember.pow(*(x.to(dt) if isinstance(x, ember.Tensor) else x for x in (self, exponent)))


def positive(self):
    if self.dtype == ember.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self
