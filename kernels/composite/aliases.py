"""torch's alias ops (CompositeImplicitAutograd in its native_functions.yaml): each one calls
the op it names, so dtypes, errors and autograd are that op's.

    >>> ember.absolute(ember.tensor([-1., 2.]))
    tensor([1., 2.])
    >>> ember.greater(ember.tensor([1, 3]), 2)
    tensor([False,  True])
"""
import ember
from ember.kernels.composite import unmutated


def _alias(name):
    """A kernel that calls `ember.<name>` (or the method `<name>` for in-place-only ops)."""
    def kernel(self, *args, **kwargs):
        return getattr(self, name)(*args, **kwargs)
    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"Alias of `{name}`."
    return kernel


absolute = _alias("abs")
absolute_ = _alias("abs_")
arccos = _alias("acos")
arccos_ = _alias("acos_")
arcsin = _alias("asin")
arcsin_ = _alias("asin_")
arctan = _alias("atan")
arctan_ = _alias("atan_")
arccosh = _alias("acosh")
arccosh_ = _alias("acosh_")
arcsinh = _alias("asinh")
arcsinh_ = _alias("asinh_")
arctanh = _alias("atanh")
arctanh_ = _alias("atanh_")
arctan2 = _alias("atan2")
arctan2_ = _alias("atan2_")
negative = _alias("neg")
negative_ = _alias("neg_")
fix = _alias("trunc")
fix_ = _alias("trunc_")
clip = _alias("clamp")
clip_ = _alias("clamp_")
greater = _alias("gt")
greater_ = _alias("gt_")
greater_equal = _alias("ge")
greater_equal_ = _alias("ge_")
less = _alias("lt")
less_ = _alias("lt_")
less_equal = _alias("le")
less_equal_ = _alias("le_")
not_equal = _alias("ne")
not_equal_ = _alias("ne_")
swapaxes_ = _alias("transpose_")
swapdims_ = _alias("transpose_")


# torch's C++ aliases call the overload of their own kind (divide.Scalar calls div.Scalar),
# so autograd records that overload's node (DivBackward1): the overload by `other`'s type
# and whether a rounding mode was passed (None included)
_NO_MODE = object()


def _div_overload(packet, other, rounding_mode):
    tensor = isinstance(other, ember.Tensor)
    if rounding_mode is _NO_MODE:
        return packet.Tensor if tensor else packet.Scalar
    return packet.Tensor_mode if tensor else packet.Scalar_mode


def divide(self, other, rounding_mode=_NO_MODE):
    """Alias of `div` (true_divide too): div.Tensor, div.Scalar or their _mode overloads."""
    op = _div_overload(ember.ops.aten.div, other, rounding_mode)
    return op(self, other) if rounding_mode is _NO_MODE else op(self, other,
                                                                rounding_mode=rounding_mode)


def divide_(self, other, rounding_mode=_NO_MODE):
    op = _div_overload(ember.ops.aten.div_, other, rounding_mode)
    return op(self, other) if rounding_mode is _NO_MODE else op(self, other,
                                                                rounding_mode=rounding_mode)


true_divide = divide
true_divide_ = divide_


def multiply(self, other):
    """Alias of `mul`: mul.Tensor or mul.Scalar by `other`'s type."""
    mul = ember.ops.aten.mul
    return (mul.Tensor if isinstance(other, ember.Tensor) else mul.Scalar)(self, other)


def multiply_(self, other):
    return ember.ops.aten.mul_.Tensor(self, other)


def subtract(self, other, alpha=1):
    """Alias of `sub`: sub.Tensor or sub.Scalar by `other`'s type."""
    sub = ember.ops.aten.sub
    return (sub.Tensor if isinstance(other, ember.Tensor) else sub.Scalar)(self, other,
                                                                          alpha=alpha)


def subtract_(self, other, alpha=1):
    sub_ = ember.ops.aten.sub_
    return (sub_.Tensor if isinstance(other, ember.Tensor) else sub_.Scalar)(self, other,
                                                                            alpha=alpha)


def square(self):
    """pow(self, 2): a bool tensor squares to int64, like torch's."""
    return ember.pow(self, 2)


def square_(self):
    return self.pow_(2)


def concat(tensors, dim=0):
    return ember.cat(tensors, dim)


concatenate = concat


def sgn_(self):
    return self.copy_(ember.sgn(unmutated(self)))


def ldexp_(self, other):
    power = ember.pow(2.0, other)
    if not ember.can_cast(ember.result_type(self, power), self.dtype):
        raise RuntimeError(f"ldexp can't be cast to the desired output type {self.dtype.scalar_name}")
    return self.mul_(power)


def float_power_(self, exponent):
    """In-place float_power: self must already have the result's dtype (float64/complex128)."""
    complex_ = self.dtype.is_complex or (exponent.dtype.is_complex if isinstance(exponent, ember.Tensor)
                                         else isinstance(exponent, complex))
    dt = ember.complex128 if complex_ else ember.float64
    if self.dtype != dt:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.scalar_name} but "
                           f"the operation's result requires dtype {dt.scalar_name}")
    return self.pow_(exponent.to(dt) if isinstance(exponent, ember.Tensor) else exponent)


def multiply_scalar_(self, other):
    """Alias of `aten.mul_.Scalar` (which rounds the number to a half self's dtype first)."""
    return ember.ops.aten.mul_.Scalar(self, other)
