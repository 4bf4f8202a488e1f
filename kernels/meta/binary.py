"""Meta kernels of the binary family: add, sub, mul, div, pow, comparisons, where,
clamp, masked_fill, rsub, floor_divide, remainder, fmod, maximum/minimum, atan2,
logical_*, bitwise_*, lerp, addcmul/addcdiv and their in-place forms.

Each functional op has a `*_layout` function returning a `Layout` (shape, strides,
dtype, after torch's checks); the Meta kernel allocates it, and the CPU kernel
(kernels/cpu/binary.py) uses the same function off its fast path, so both backends
always agree.

    >>> from ember.core.alloc import empty_meta
    >>> out = add(empty_meta((2, 1), ember.float32), empty_meta((3,), ember.int64), 1)
    >>> out.shape, out.dtype, out.device
    (ember.Size([2, 3]), ember.float32, device(type='meta'))
    >>> remainder(empty_meta((2, 1), ember.int32), empty_meta((3,), ember.int64)).shape
    ember.Size([2, 3])
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.shapes import broadcast_shapes, expand_strides, meta_elementwise_strides
from ember.core.tensor import Tensor, contiguous_strides
from ember.kernels.common import _pointwise as P
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.meta._pointwise import (
    NUMBER,
    Layout,
    _inplace,
    _layout,
    _meta,
    clamp_number_layout,
)

_CPP_NAMES = P.CPP_NAMES  # (lerp's dtype messages)

ADDCDIV_INT_MESSAGE = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
    "be implemented as (input + value * ember.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes.")


def _dt(x):
    return x._dtype if hasattr(x, "_dtype") else D.scalar_default_dtype(x)


# --- layouts (shared with the CPU kernels) ---------------------------------------------------
def mul_layout(self, other) -> Layout:
    """add, sub and mul (alpha already folded in): promoted dtype, broadcast shape."""
    return promote_layout(self, other)


def sub_layout(self, other) -> Layout:
    """sub: mul_layout after torch's bool check."""
    P.check_bool_sub(self, other)
    return mul_layout(self, other)


def div_layout(self, other) -> Layout:
    dt = P.float_result(D.result_type(self, other))
    return _layout(dt, self, other, cast_to=dt)


def div_mode_layout(self, other, rounding_mode) -> Layout:
    P.check_div_mode(rounding_mode, D.result_type(self, other))
    return div_layout(self, other) if rounding_mode is None else mul_layout(self, other)


def pow_layout(self, exponent) -> Layout:
    """A Scalar exponent is no operand of torch's (unary) TensorIterator: a channels-last
    or dense self takes the fast setup as in `x.neg()`."""
    dt = P.pow_dtype(self, exponent)
    return _layout(dt, self, *P.tensors_of(exponent), cast_to=dt)


def pow_scalar_layout(self, exponent) -> Layout:
    """torch computes `scalar ** t` into a fresh contiguous tensor."""
    P.check_same_device(exponent)
    return Layout(exponent._shape, contiguous_strides(exponent._shape),
                  P.pow_dtype(self, exponent))


def compare_layout(self, other) -> Layout:
    return _layout(D.bool_, self, other, cast_to=D.result_type(self, other))


def where_layout(condition, self, other) -> Layout:
    P.check_where_condition(condition)
    dt = P.where_dtype(self, other)
    return _layout(dt, condition, self, other, cast_to=(D.bool_, dt, dt),
                   zero_dim_numbers=True)


def clamp_layout(self, min=None, max=None) -> Layout:
    dt = P.clamp_dtype(self, min, max)
    if self._device.type == "meta" and not P.tensors_of(min, max):
        return clamp_number_layout(self, dt, min is not None, max is not None)
    return _layout(dt, self, *P.tensors_of(min, max), cast_to=dt)



def masked_fill_layout(self, mask, value) -> Layout:
    """torch clones the broadcast self contiguously, then fills: a contiguous result."""
    P.check_bool_mask(mask)
    P.check_fill_value(value)
    P.check_same_device(self, mask)
    shape = P.broadcast_shapes(self._shape, mask._shape)
    return Layout(shape, contiguous_strides(shape), self._dtype)


# --- Meta kernels --------------------------------------------------------------------------
def add(self, other, alpha=1):
    P.check_alpha(D.result_type(self, other), alpha)
    return _meta(mul_layout(self, other))


def sub(self, other, alpha=1):
    P.check_bool_sub(self, other)
    return add(self, other, alpha)


def mul(self, other):
    return _meta(mul_layout(self, other))


def div(self, other):
    return _meta(div_layout(self, other))


def div_mode(self, other, rounding_mode):
    return _meta(div_mode_layout(self, other, rounding_mode))


def pow(self, exponent):
    return _meta(pow_layout(self, exponent))


def pow_scalar(self, exponent):
    return _meta(pow_scalar_layout(self, exponent))


def _compare(self, other):
    return _meta(compare_layout(self, other))


eq = ne = lt = le = gt = ge = _compare


def where(condition, self, other):
    return _meta(where_layout(condition, self, other))


def clamp(self, min=None, max=None):
    return _meta(clamp_layout(self, min, max))


def masked_fill(self, mask, value):
    return _meta(masked_fill_layout(self, mask, value))


# --- in place -------------------------------------------------------------------------
def add_(self, other, alpha=1):
    dt = D.result_type(self, other)
    _inplace(self, dt, other)
    P.check_alpha(dt, alpha)
    return self


def sub_(self, other, alpha=1):
    P.check_bool_sub(self, other)
    return add_(self, other, alpha)


def mul_(self, other):
    return _inplace(self, D.result_type(self, other), other)


def div_(self, other):
    return _inplace(self, P.float_result(D.result_type(self, other)), other)


def div_mode_(self, other, rounding_mode):
    P.check_div_mode(rounding_mode, D.result_type(self, other))
    return div_(self, other) if rounding_mode is None else mul_(self, other)


def clamp_(self, min=None, max=None):
    P.check_same_device(self, *P.tensors_of(min, max))
    P.check_inplace(self, P.clamp_dtype(self, min, max), *P.tensors_of(min, max), cpp_name=True)
    return self


def masked_fill_(self, mask, value):
    P.check_bool_mask(mask)
    P.check_fill_value(value)
    return _inplace(self, self._dtype, mask)


# --- dtype rules ---------------------------------------------------------------------------
def rsub_dtype(self, other, alpha) -> D.dtype:
    P.check_bool_sub(other, self)
    dt = D.result_type(self, other)
    P.check_alpha(dt, alpha)
    return dt


def no_bool_dtype(kernel, self, other) -> D.dtype:
    """remainder / fmod: promoted dtype, no bool loop."""
    dt = D.result_type(self, other)
    if dt is D.bool_:
        raise not_implemented_for(kernel, dt)
    return dt


def bitwise_dtype(kernel, self, other, bool_ok=True) -> D.dtype:
    dt = D.result_type(self, other)
    if dt.category >= D.FLOAT or (dt is D.bool_ and not bool_ok):
        raise not_implemented_for(kernel, dt)
    return dt


def check_lerp(self, end, weight, kernel) -> D.dtype:
    for name, t in (("end", end), ("weight", weight)):
        if hasattr(t, "_dtype") and t._dtype is not self._dtype and (name == "end" or t.dim()):
            raise RuntimeError(f"expected dtype {_CPP_NAMES[self._dtype.name]} for `{name}` but "
                               f"got dtype {_CPP_NAMES[t._dtype.name]}")
    # a 0-d weight of another dtype joins the type promotion (lerp(bool, bool, 0-d half)
    # computes in half)
    dt = D.result_type(self, end, weight) if hasattr(weight, "_dtype") else self._dtype
    if dt.category < D.FLOAT:
        raise not_implemented_for(kernel, dt)
    return dt


def addcmul_dtype(self, tensor1, tensor2) -> D.dtype:
    dt = D.result_type(self, tensor1, tensor2)
    if dt is D.bool_:
        raise not_implemented_for("addcmul_cpu_out", dt)
    return dt


def addcdiv_dtype(self, tensor1, tensor2) -> D.dtype:
    if _dt(tensor1).category < D.FLOAT and _dt(tensor2).category < D.FLOAT:
        raise RuntimeError(ADDCDIV_INT_MESSAGE)
    return D.result_type(self, tensor1, tensor2)


# --- layouts ---------------------------------------------------------------------------------
def rsub_layout(self, other, alpha=1) -> Layout:
    """torch computes rsub as sub(other, self): `other` leads the layout."""
    dt = rsub_dtype(self, other, alpha)
    return _layout(dt, other, self, cast_to=dt)


def floor_divide_layout(self, other) -> Layout:
    return div_mode_layout(self, other, "floor")


def remainder_layout(self, other) -> Layout:
    lay = promote_layout(self, other)
    no_bool_dtype("remainder_cpu", self, other)
    return lay


def fmod_layout(self, other) -> Layout:
    lay = promote_layout(self, other)
    no_bool_dtype("fmod_cpu", self, other)
    return lay


def promote_layout(self, other) -> Layout:
    """maximum / minimum and most binary ops: the promoted dtype, which the inputs are cast
    to, and the broadcast shape."""
    dt = D.result_type(self, other)
    return _layout(dt, self, other, cast_to=dt)


def atan2_layout(self, other) -> Layout:
    return div_layout(self, other)


def logical_layout(self, other) -> Layout:
    common = D.result_type(self, other)
    if self._device.type != "meta":
        return _layout(D.bool_, self, other, cast_to=common)
    # torch's Meta is its reference: the operands converted to the common dtype, expanded
    # to the result's shape, then (a != 0) & (b != 0): each side laid out alone first
    P.check_same_device(self, other)
    shape = broadcast_shapes(self._shape, other._shape)
    sides = []
    for t in (self, other):
        stride = expand_strides(*P._cast_copy_layout(t, common), shape)
        sides.append((shape, stride if common is D.bool_ else
                      meta_elementwise_strides(shape, [(shape, stride)])))
    return Layout(shape, meta_elementwise_strides(shape, sides), D.bool_)


def bitwise_layout(kernel, bool_ok=True):
    def layout(self, other) -> Layout:
        lay = promote_layout(self, other)  # shapes are checked first
        bitwise_dtype(kernel, self, other, bool_ok)
        return lay
    return layout


bitwise_and_layout = bitwise_layout("bitwise_and_cpu")
bitwise_or_layout = bitwise_layout("bitwise_or_cpu")
bitwise_xor_layout = bitwise_layout("bitwise_xor_cpu")
lshift_layout = bitwise_layout("lshift_cpu", bool_ok=False)
rshift_layout = bitwise_layout("rshift_cpu", bool_ok=False)


def lerp_layout(self, end, weight) -> Layout:
    if hasattr(weight, "_dtype"):
        dt = check_lerp(self, end, weight, "lerp_kernel_tensor")
        return _layout(dt, self, end, weight, cast_to=dt)
    dt = check_lerp(self, end, weight, "lerp_kernel_scalar")
    return _layout(dt, self, end, cast_to=dt)


def addcmul_layout(self, tensor1, tensor2, value=1) -> Layout:
    dt = addcmul_dtype(self, tensor1, tensor2)
    return _layout(dt, self, tensor1, tensor2, cast_to=dt)


def addcdiv_layout(self, tensor1, tensor2, value=1) -> Layout:
    dt = addcdiv_dtype(self, tensor1, tensor2)
    return _layout(dt, self, tensor1, tensor2, cast_to=dt)


# --- functional Meta kernels --------------------------------------------------------------
def rsub(self, other, alpha=1):
    return _meta(rsub_layout(self, other, alpha))


def _pointwise(*operands):
    """(shape, strides) of a pointwise reference over operand layouts (shape, strides)."""
    shape = broadcast_shapes(*(x[0] for x in operands))
    return shape, meta_elementwise_strides(shape, list(operands))


def _floor_divide_reference(a, b, dt) -> tuple:
    """Strides of torch's Meta floor_divide of layouts a and b (converted to `dt`): its
    reference's chain of pointwise ops (torch._refs._floor_divide_float / _integer), whose
    last where() puts `ne(b, 0)` first."""
    f = _pointwise
    shape = broadcast_shapes(a[0], b[0])        # (expanded to one shape first)
    a, b = ((shape, expand_strides(x[0], x[1], shape)) for x in (a, b))
    if dt.category != D.FLOAT:
        quotient = f(a, b)
        if dt is D.uint8 or dt is D.bool_:
            return quotient[1]
        offset = f(f(f(a), f(b)), f(f(a, b)))
        return f(quotient, f(offset))[1]
    mod = f(a, b)
    div = f(f(a, mod), b)
    mask = f(f(mod), f(f(a), f(b)))
    div = f(mask, f(div), div)
    floor = f(div)
    floor = f(f(f(div, floor)), f(floor), floor)
    basic = f(a, b)
    floor = f(f(div), floor, f(f(basic), NUMBER, NUMBER))
    return f(f(b), floor, basic)[1]


def floor_divide(self, other):
    lay = floor_divide_layout(self, other)
    if isinstance(other, Tensor) and isinstance(self, Tensor) and 0 not in lay._shape:
        a, b = (P._cast_copy_layout(t, lay._dtype) for t in (self, other))
        lay = Layout(lay._shape, _floor_divide_reference(a, b, lay._dtype), lay._dtype)
    return _meta(lay)


def remainder(self, other):
    return _meta(remainder_layout(self, other))


def fmod(self, other):
    return _meta(fmod_layout(self, other))


def maximum(self, other):
    return _meta(promote_layout(self, other))


minimum = maximum


def atan2(self, other):
    return _meta(atan2_layout(self, other))


def logical_and(self, other):
    return _meta(logical_layout(self, other))


logical_or = logical_xor = logical_and


def bitwise_and(self, other):
    return _meta(bitwise_and_layout(self, other))


def bitwise_or(self, other):
    return _meta(bitwise_or_layout(self, other))


def bitwise_xor(self, other):
    return _meta(bitwise_xor_layout(self, other))


def bitwise_left_shift(self, other):
    return _meta(lshift_layout(self, other))


def bitwise_right_shift(self, other):
    return _meta(rshift_layout(self, other))


def lerp(self, end, weight):
    return _meta(lerp_layout(self, end, weight))


def addcmul(self, tensor1, tensor2, value=1):
    return _meta(addcmul_layout(self, tensor1, tensor2, value))


def addcdiv(self, tensor1, tensor2, value=1):
    return _meta(addcdiv_layout(self, tensor1, tensor2, value))


# --- in place (bitwise: torch checks the cast before the dtype) ---------------------------
def bitwise_and_(self, other):
    _inplace(self, D.result_type(self, other), other)  # cast and shapes are checked first
    bitwise_dtype("bitwise_and_cpu", self, other)
    return self


def bitwise_or_(self, other):
    _inplace(self, D.result_type(self, other), other)  # cast and shapes are checked first
    bitwise_dtype("bitwise_or_cpu", self, other)
    return self


def bitwise_xor_(self, other):
    _inplace(self, D.result_type(self, other), other)  # cast and shapes are checked first
    bitwise_dtype("bitwise_xor_cpu", self, other)
    return self


def bitwise_left_shift_(self, other):
    _inplace(self, D.result_type(self, other), other)
    bitwise_dtype("lshift_cpu", self, other, bool_ok=False)
    return self


def bitwise_right_shift_(self, other):
    _inplace(self, D.result_type(self, other), other)
    bitwise_dtype("rshift_cpu", self, other, bool_ok=False)
    return self


def lerp_(self, end, weight):
    return _inplace(self, lerp_layout(self, end, weight)._dtype, end, *P.tensors_of(weight))


def addcmul_(self, tensor1, tensor2, value=1):
    return _inplace(self, addcmul_dtype(self, tensor1, tensor2), tensor1, tensor2)


def addcdiv_(self, tensor1, tensor2, value=1):
    return _inplace(self, addcdiv_dtype(self, tensor1, tensor2), tensor1, tensor2)
