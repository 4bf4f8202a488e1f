"""Pointwise math ops that torch decomposes (CompositeImplicitAutograd): ldexp is
self * 2**other, float_power is pow in float64, sgn of a real
tensor is sign, positive is self (autograd comes from the ops they call).

    >>> ember.ldexp(ember.tensor([1., 2.]), ember.tensor([3, 4]))
    tensor([ 8., 32.])
"""
import numpy as np

import ember
from ember.dispatch.argcheck import wrap_number


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


def special_xlogy(self, other):
    """torch.special.xlogy is xlogy."""
    return ember.xlogy(self, other)


def _rounded(x, dt):
    """A Python number as the op computes with it: rounded to the result's float dtype
    first (torch's TensorIterator casts the wrapped scalar: 1e39 is inf in float32)."""
    if isinstance(x, ember.Tensor) or not dt.is_floating_point or isinstance(x, bool):
        return x
    with np.errstate(over="ignore"):
        return float(np.array(x, np.float64).astype(dt.np))


def _wrapped(name):
    """The Scalar overloads of the binary op ember.<name>: the Python number becomes a wrapped
    number (it promotes like one, as torch's `wrapped_scalar_tensor`), then the Tensor one."""
    def kernel(a, b):
        like = a if isinstance(a, ember.Tensor) else b
        dt = ember.result_type(a, b)
        return getattr(ember, name)(wrap_number(_rounded(a, dt), like),
                                    wrap_number(_rounded(b, dt), like))
    kernel.__name__ = f"{name}_scalar"
    return kernel


def xlogy_scalar_(self, other):
    return self.xlogy_(wrap_number(_rounded(other, self.dtype), self))


special_chebyshev_polynomial_t_scalar = _wrapped("special_chebyshev_polynomial_t")
special_chebyshev_polynomial_u_scalar = _wrapped("special_chebyshev_polynomial_u")
special_chebyshev_polynomial_v_scalar = _wrapped("special_chebyshev_polynomial_v")
special_chebyshev_polynomial_w_scalar = _wrapped("special_chebyshev_polynomial_w")
special_shifted_chebyshev_polynomial_t_scalar = _wrapped("special_shifted_chebyshev_polynomial_t")
special_shifted_chebyshev_polynomial_u_scalar = _wrapped("special_shifted_chebyshev_polynomial_u")
special_shifted_chebyshev_polynomial_v_scalar = _wrapped("special_shifted_chebyshev_polynomial_v")
special_shifted_chebyshev_polynomial_w_scalar = _wrapped("special_shifted_chebyshev_polynomial_w")
special_hermite_polynomial_h_scalar = _wrapped("special_hermite_polynomial_h")
special_hermite_polynomial_he_scalar = _wrapped("special_hermite_polynomial_he")
special_laguerre_polynomial_l_scalar = _wrapped("special_laguerre_polynomial_l")
special_legendre_polynomial_p_scalar = _wrapped("special_legendre_polynomial_p")
