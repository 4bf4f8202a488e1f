"""Meta kernels of the activation ops (gelu, silu, softplus, leaky_relu, elu, hardtanh,
threshold, clamp_min/clamp_max and their backward helpers): torch's checks, result
dtype and TensorIterator layout. The CPU kernels (kernels/cpu/activation.py) call the
same `*_layout` functions, so both backends agree and raise the same errors.

    >>> gelu(ember.empty(2, 3, device="meta"), "none").shape
    ember.Size([2, 3])
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.factory_args import checked_scalar
from ember.kernels.common import _pointwise as P
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.meta._pointwise import Layout, _layout, _meta


def _float_dtype(kernel: str, *operands, complex_ok=False) -> D.dtype:
    """The promoted dtype of operands that torch only computes in floating point (or
    complex, `complex_ok`)."""
    dt = D.result_type(*operands) if len(operands) > 1 else operands[0]._dtype
    if dt.category != D.FLOAT and not (complex_ok and dt.is_complex):
        raise not_implemented_for(kernel, dt)
    return dt


def check_approximate(approximate) -> None:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def check_inplace_negative_slope(is_result, slope, what) -> None:
    if is_result and slope < 0:
        raise RuntimeError(f"In-place {what} backward calculation is triggered with a negative "
                           "slope which is not supported. This is caused by calling in-place "
                           "forward function with a negative slope, please call out-of-place "
                           "version instead.")


# --- layouts (shared with the CPU kernels) ---------------------------------------------------
def float_unary_layout(self, kernel: str) -> Layout:
    """gelu, silu, softplus, leaky_relu, elu: floating inputs only, same dtype."""
    return _layout(_float_dtype(kernel, self), self)


def float_backward_layout(grad_output, other, kernel: str, self_first=False,
                          complex_ok=False) -> Layout:
    """The *_backward ops: promoted (floating, or `complex_ok`) dtype, broadcast; the layout
    follows grad_output first, or the input first where torch's TensorIterator lists it
    first (leaky_relu_backward)."""
    dt = _float_dtype(kernel, grad_output, other, complex_ok=complex_ok)
    first, second = (other, grad_output) if self_first else (grad_output, other)
    return _layout(dt, first, second, cast_to=dt)


def hardtanh_layout(self) -> Layout:
    if self._dtype is D.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    return _layout(self._dtype, self)


def hardtanh_bounds(self, min_val, max_val):
    """torch's legacy rule: integral inputs take the bounds truncated to integers (no
    type promotion); unsigned ones refuse negative bounds."""
    if self._dtype.category == D.INT:
        lo, hi = checked_scalar(min_val, D.int64), checked_scalar(max_val, D.int64)
        if self._dtype is D.uint8 and (lo < 0 or hi < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
        return lo, hi
    return min_val, max_val


def threshold_layout(self) -> Layout:
    if self._dtype is D.bool_:
        raise not_implemented_for("threshold_cpu", self._dtype)
    return _layout(self._dtype, self)


def clamp_bound_dtype(self, bound, name: str) -> D.dtype:
    """clamp_min / clamp_max: promoted with the bound; bool only with a tensor bound."""
    dt = D.result_type(self, bound)
    if dt is D.bool_ and not hasattr(bound, "_dtype"):
        raise not_implemented_for(f"{name}_scalar_cpu", dt)
    return dt


def clamp_bound_layout(self, bound, name: str) -> Layout:
    dt = clamp_bound_dtype(self, bound, name)
    return _layout(dt, self, *P.tensors_of(bound), cast_to=dt)


def clamp_tensor_dtype(self, lo, hi) -> D.dtype:
    """clamp.Tensor: promoted with the tensor bounds (bool stays bool)."""
    if lo is None and hi is None:
        raise RuntimeError("ember.clamp: At least one of 'min' or 'max' must not be None")
    return D.result_type(self, *[v for v in (lo, hi) if v is not None])


def clamp_tensor_layout(self, lo, hi) -> Layout:
    dt = clamp_tensor_dtype(self, lo, hi)
    return _layout(dt, self, *P.tensors_of(lo, hi), cast_to=dt)


# --- Meta kernels --------------------------------------------------------------------------
def gelu(self, approximate="none"):
    check_approximate(approximate)
    return _meta(float_unary_layout(self, "GeluKernelImpl"))


def gelu_backward(grad_output, self, approximate="none"):
    check_approximate(approximate)
    return _meta(float_backward_layout(grad_output, self, "GeluBackwardKernelImpl"))


def silu(self):
    return _meta(float_unary_layout(self, "silu_cpu"))


def silu_(self):
    silu(self)
    return self


def silu_backward(grad_output, self):
    return _meta(float_backward_layout(grad_output, self, "silu_backward_cpu"))


def softplus(self, beta=1, threshold=20):
    return _meta(float_unary_layout(self, "softplus_cpu"))


def softplus_backward(grad_output, self, beta, threshold):
    return _meta(float_backward_layout(grad_output, self, "softplus_backward_cpu"))


def leaky_relu(self, negative_slope=0.01):
    return _meta(float_unary_layout(self, "leaky_relu_cpu"))


def leaky_relu_(self, negative_slope=0.01):
    leaky_relu(self, negative_slope)
    return self


def leaky_relu_backward(grad_output, self, negative_slope, self_is_result):
    check_inplace_negative_slope(self_is_result, negative_slope, "leakyReLu")
    return _meta(float_backward_layout(grad_output, self, "leaky_relu_backward_cpu", True))


def elu(self, alpha=1, scale=1, input_scale=1):
    return _meta(float_unary_layout(self, "elu_cpu"))


def elu_(self, alpha=1, scale=1, input_scale=1):
    elu(self, alpha, scale, input_scale)
    return self


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    check_inplace_negative_slope(is_result, alpha, "elu")
    return _meta(float_backward_layout(grad_output, self_or_result, "elu_backward_cpu"))


def hardtanh(self, min_val=-1, max_val=1):
    layout = hardtanh_layout(self)
    hardtanh_bounds(self, min_val, max_val)
    return _meta(layout)


def hardtanh_(self, min_val=-1, max_val=1):
    hardtanh(self, min_val, max_val)
    return self


def hardtanh_backward(grad_output, self, min_val, max_val):
    return _meta(float_backward_layout(grad_output, self, "hardshrink_backward_cpu"))


def threshold(self, threshold, value):
    return _meta(threshold_layout(self))


def threshold_(self, threshold, value):
    threshold_layout(self)
    return self


def sigmoid_backward(grad_output, output):
    return _meta(float_backward_layout(grad_output, output, "sigmoid_backward_cpu",
                                       complex_ok=True))


def tanh_backward(grad_output, output):
    return _meta(float_backward_layout(grad_output, output, "tanh_backward_cpu",
                                       complex_ok=True))


def clamp_min(self, min):
    return _meta(clamp_bound_layout(self, min, "clamp_min"))


def clamp_max(self, max):
    return _meta(clamp_bound_layout(self, max, "clamp_max"))


def check_bound_inplace(self, bound, name: str) -> D.dtype:
    """clamp_min_ / clamp_max_ with a number: the result dtype, castable to self's."""
    dt = clamp_bound_dtype(self, bound, name)
    P.check_inplace(self, dt, cpp_name=True)
    return dt


def clamp_min_(self, min):
    check_bound_inplace(self, min, "clamp_min")
    return self


def clamp_max_(self, max):
    check_bound_inplace(self, max, "clamp_max")
    return self


def clamp_tensor(self, min=None, max=None):
    return _meta(clamp_tensor_layout(self, min, max))


# --- relu's backward ---------------------------------------------------------------
def threshold_backward_layout(grad_output, self) -> Layout:
    dt = D.result_type(grad_output, self)
    if dt is D.bool_:
        raise P.not_implemented_for("threshold_cpu", dt)
    return _layout(dt, self, grad_output, cast_to=dt)  # torch's TensorIterator lists self first


def threshold_backward(grad_output, self, threshold):
    return _meta(threshold_backward_layout(grad_output, self))
