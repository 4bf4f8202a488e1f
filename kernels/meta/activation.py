"""Meta kernels of the activation ops (gelu, silu, softplus, leaky_relu, elu, hardtanh,
threshold, clamp_min/clamp_max and their backward helpers): torch's checks, result
dtype and TensorIterator layout. The CPU kernels (kernels/cpu/activation.py) call the
same `*_layout` functions, so both backends agree and raise the same errors.

    >>> gelu(ember.empty(2, 3, device="meta"), "none").shape
    ember.Size([2, 3])
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.factory_args import checked_scalar, like_strides, real_scalar
from ember.core.outputs import check_cast
from ember.core.shapes import broadcast_shapes, elementwise_strides, wrap_dim
from ember.core.tensor import Tensor, contiguous_strides
from ember.core.typeinfo import finfo
from ember.kernels.common import _pointwise as P
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.meta._pointwise import (
    Layout,
    _layout,
    _meta,
    clamp_number_layout,
    where_number_strides,
)


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
    if is_result and not real_scalar(slope) >= 0:   # (NaN too, as torch's check)
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
    """torch's CPU/CUDA hardtanh writes into `empty_like(self)` (a dense self's strides as
    they are, size-1 dims too); its Meta result is its reference's, clamp's."""
    if self._dtype is D.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if self._device.type == "meta":     # (its reference: clamp)
        return clamp_number_layout(self, self._dtype, True, True)
    return Layout(self._shape, like_strides(self._shape, self.stride(), None), self._dtype)


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
    if self._device.type == "meta" and not isinstance(bound, Tensor):
        return clamp_number_layout(self, dt, name == "clamp_min", name == "clamp_max")
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
def relu(self):
    """torch's Meta relu is its reference `where(x <= 0, 0, x)`: the 0-d zero is an operand
    of the layout (a dense self with odd size-1 strides may keep them)."""
    return _meta(Layout(self._shape, where_number_strides(self._shape, self.stride(), True),
                        self._dtype))


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


# --- hardswish / hardsigmoid / mish / hardshrink / softshrink --------------------------------
def hardswish(self):
    return _meta(float_unary_layout(self, "hardswish_cpu"))


def hardswish_(self):
    hardswish(self)
    return self


def hardswish_backward(grad_output, self):
    return _meta(float_backward_layout(grad_output, self, "hardswish_backward_cpu"))


def hardsigmoid(self):
    return _meta(float_unary_layout(self, "hardsigmoid_cpu"))


def hardsigmoid_(self):
    hardsigmoid(self)
    return self


def hardsigmoid_backward(grad_output, self):
    return _meta(float_backward_layout(grad_output, self, "hardsigmoid_backward"))


def mish(self):
    return _meta(float_unary_layout(self, "mish_cpu"))


def mish_(self):
    mish(self)
    return self


def mish_backward_layout(grad_output, self) -> Layout:
    """mish_backward writes into a tensor of self's dtype (torch's borrowing_binary_op):
    computed in the promoted dtype, which must cast to self's."""
    common = _float_dtype("mish_backward_cpu", grad_output, self)
    check_cast(common, self._dtype)
    return _layout(self._dtype, grad_output, self)


def mish_backward(grad_output, self):
    return _meta(mish_backward_layout(grad_output, self))


def hardshrink(self, lambd=0.5):
    return _meta(float_unary_layout(self, "hardshrink_cpu"))


def shrink_backward_layout(grad_output, self) -> Layout:
    return float_backward_layout(grad_output, self, "shrink_backward_cpu")


def hardshrink_backward(grad_out, self, lambd):
    return _meta(shrink_backward_layout(grad_out, self))


def softshrink_layout(self, lambd) -> Layout:
    """softshrink: floating inputs, lambd in [0, the dtype's largest value]."""
    layout = float_unary_layout(self, "softshrink_check")
    dt = self._dtype
    lambd = real_scalar(lambd)
    top = finfo(dt).max
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype "
                           f"{dt.scalar_name}, but found {lambd:g}")
    return layout


def softshrink(self, lambd=0.5):
    return _meta(softshrink_layout(self, lambd))


def softshrink_backward(grad_output, self, lambd):
    return _meta(shrink_backward_layout(grad_output, self))


# --- glu ---------------------------------------------------------------------------------------
def glu_dim(self, dim: int) -> int:
    """glu's checks: not 0-d, an even size along the (wrapped) dim."""
    if self.dim() == 0:
        raise RuntimeError("glu does not support 0-dimensional tensors")
    dim = wrap_dim(dim, self.dim())
    size = self._shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    return dim


def glu_layout(self, dim: int) -> Layout:
    """glu's result: self's halves' shape, laid out like them (TensorIterator over views)."""
    dim = glu_dim(self, dim)       # (torch's meta checks, then its kernel's dtype)
    dt = _float_dtype("glu_cpu", self)
    shape = list(self._shape)
    shape[dim] //= 2
    shape = tuple(shape)
    return Layout(shape, elementwise_strides(shape, [(shape, self.stride())]), dt)


def glu(self, dim=-1):
    return _meta(glu_layout(self, dim))


def check_same_dtype(expected: D.dtype, *tensors) -> None:
    """torch's TensorIterator without type promotion: "Found dtype X but expected Y"."""
    for t in tensors:
        if t._dtype is not expected:
            raise RuntimeError(f"Found dtype {t._dtype.scalar_name} but expected "
                               f"{expected.scalar_name}")


def glu_backward_layout(grad_output, self, dim: int) -> Layout:
    """glu_backward: self's shape and dtype, contiguous; grad_output must have self's
    (floating) dtype and its halves' shape."""
    dim = glu_dim(self, dim)
    dt = self._dtype
    if dt.category != D.FLOAT:      # (torch's sigmoid into a self-typed gradient)
        check_cast(D.get_default_dtype(), dt)
    check_same_dtype(dt, grad_output)
    half = list(self._shape)
    half[dim] //= 2
    if tuple(grad_output._shape) != tuple(half):
        broadcast_shapes(tuple(half), grad_output._shape)   # torch's message when they differ
        raise RuntimeError(f"shape '{list(half)}' is invalid for input of size "
                           f"{grad_output.numel()}")
    return Layout(self._shape, contiguous_strides(self._shape), dt)


def glu_backward(grad_output, self, dim):
    return _meta(glu_backward_layout(grad_output, self, dim))


# --- log_sigmoid -------------------------------------------------------------------------------
def log_sigmoid_forward_layout(self) -> Layout:
    """The output and the buffer: contiguous tensors of self's (floating) dtype."""
    dt = _float_dtype("log_sigmoid_cpu", self)
    return Layout(self._shape, contiguous_strides(self._shape), dt)


def log_sigmoid_forward(self):
    layout = log_sigmoid_forward_layout(self)
    return _meta(layout), _meta(layout)


def log_sigmoid_backward_layout(grad_output, self, buffer) -> Layout:
    """self's dtype (grad_output and buffer must share it); laid out like grad_output when
    it has the broadcast shape (torch writes into empty_like(grad_output))."""
    dt = self._dtype
    check_same_dtype(dt, grad_output, buffer)
    _float_dtype("log_sigmoid_backward_cpu", self)
    layout = _layout(dt, self, buffer, grad_output)
    if tuple(layout._shape) == tuple(grad_output._shape):
        return _layout(dt, grad_output)
    return layout


def log_sigmoid_backward(grad_output, self, buffer):
    return _meta(log_sigmoid_backward_layout(grad_output, self, buffer))


# --- prelu's kernel ----------------------------------------------------------------------------
def prelu_layout(self, weight, kernel="prelu_cpu") -> Layout:
    """_prelu_kernel: self and weight broadcast, in self's (floating) dtype; weight's must
    match (torch's TensorIterator refuses to promote it)."""
    dt = self._dtype
    if dt.category != D.FLOAT:
        raise not_implemented_for(kernel, dt)
    if weight._dtype is not dt:
        raise RuntimeError(f"Found dtype {weight._dtype.scalar_name} but expected "
                           f"{dt.scalar_name}")
    return _layout(dt, self, weight)


def prelu_kernel(self, weight):
    return _meta(prelu_layout(self, weight))


def prelu_kernel_backward_layout(grad_output, self, weight) -> Layout:
    """Both gradients (self's and weight's, before autograd sums the latter to weight's
    shape) have the broadcast layout of self, weight and grad_output."""
    layout = prelu_layout(self, weight, "prelu_backward_cpu")
    return _layout(layout._dtype, self, weight, grad_output)


def prelu_kernel_backward(grad_output, self, weight):
    layout = prelu_kernel_backward_layout(grad_output, self, weight)
    return _meta(layout), _meta(layout)


# --- rrelu_with_noise ------------------------------------------------------------------------
def check_rrelu(self, noise, lower, upper, training) -> None:
    """rrelu_with_noise's checks: noise like self, lower <= upper."""
    if tuple(noise._shape) != tuple(self._shape):
        raise RuntimeError("noise tensor shape must match self tensor shape. Got self.shape = "
                           f"{list(self._shape)} noise.shape = {list(noise._shape)}")
    if noise._dtype is not self._dtype:
        raise RuntimeError(f"expected scalar type {self._dtype.scalar_name} but found "
                           f"{noise._dtype.scalar_name}")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    kernel = "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu"
    _float_dtype(kernel, self)


def rrelu_with_noise(self, noise, lower=0.125, upper=1 / 3, training=False, generator=None):
    check_rrelu(self, noise, lower, upper, training)
    return _meta(float_unary_layout(self, "rrelu_with_noise_out_cpu"))


def rrelu_with_noise_(self, noise, lower=0.125, upper=1 / 3, training=False, generator=None):
    check_rrelu(self, noise, lower, upper, training)
    return self
