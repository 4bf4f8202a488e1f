"""Rules shared by the CPU and Meta pointwise kernels: result dtypes, device and
in-place checks, and output layout (so both backends agree on shape/dtype/strides).
"""
from __future__ import annotations

import itertools

import numpy as np

from ember.core import dtype as D
from ember.core.factory_args import checked_scalar, like_strides, real_scalar
from ember.core.outputs import check_cast, check_output_shape
from ember.core.shapes import (
    broadcast_shapes,
    elementwise_strides,
    is_non_overlapping_and_dense,
    meta_elementwise_strides,
)
from ember.core.tensor import Tensor, _is_contiguous, channels_last_strides, contiguous_strides
from ember.kernels.common._errors import not_implemented_for

HALF = (D.float16, D.bfloat16)  # computed in float32 (torch's opmath) by the CPU kernels


def check_same_device(*tensors) -> None:
    """torch's rule: all tensor operands on one device (0-dim CPU tensors excepted)."""
    first = None
    for t in tensors:
        if t.__class__ is not Tensor and not isinstance(t, Tensor):
            continue
        if first is None:
            first = t
        elif t._device != first._device:
            cpu_scalar = (t._device.type == "cpu" and t.dim() == 0) or (
                first._device.type == "cpu" and first.dim() == 0)
            if not cpu_scalar:
                raise RuntimeError(f"Tensor on device {t._device} is not on the expected device "
                                   f"{first._device}!")


def tensors_of(*xs):
    return [x for x in xs if isinstance(x, Tensor)]


def out_layout(*operands, cast_to=None, zero_dim_numbers=False):
    """(shape, strides) of a pointwise result over tensors and numbers.

    `cast_to`: the dtype torch's TensorIterator casts the inputs to on the CPU (its common
    dtype), or one dtype (or None) per operand. On the CPU torch makes each input of another
    dtype a `.to(common)` copy before it lays out the result, and that copy is dense: an
    expanded or sliced input no longer steers the result's dim order; so do torch's Meta
    references (their type promotion converts first). CUDA casts inside the kernel, so its
    layout reads the inputs as they are. Meta follows torch's references
    (meta_elementwise_strides); `zero_dim_numbers`: numbers are 0-d operands there (where).

    >>> b = ember.zeros(4, 3).t()
    >>> a = ember.zeros(3, 1, dtype=ember.int64).expand(3, 4)
    >>> (a + b).stride()     # (a is cast to float32 first: a dense copy leads)
    (4, 1)
    >>> a = ember.zeros(3, 1).expand(3, 4)    # (no cast: b leads)
    >>> (a + b).stride()
    (1, 3)
    """
    ts = tensors_of(*operands)
    shape = ts[0]._shape
    strides = contiguous_strides(shape)
    if all(t._shape == shape and t.stride() == strides for t in ts):  # the common case
        return shape, strides
    # (a 0-d CPU tensor, a wrapped number, may come with tensors of another device)
    device_type = next((t._device.type for t in ts if t._shape or t._device.type != "cpu"),
                       "cpu")
    if cast_to is None or device_type == "cuda":
        layouts = [(t._shape, t.stride()) for t in ts]
    else:
        targets = cast_to if isinstance(cast_to, tuple) else (cast_to,) * len(operands)
        layouts = [_cast_copy_layout(x, dt) for x, dt in zip(operands, targets)
                   if isinstance(x, Tensor)]
    if device_type == "meta":
        shape = broadcast_shapes(*(t._shape for t in ts))
        return shape, meta_elementwise_strides(
            shape, _reference_operands(operands, layouts, zero_dim_numbers))
    if 1 not in shape and all(t._shape == shape for t in ts) and \
            _row_major(layouts[0][1]):
        return shape, strides
    if len(ts) == len(operands) and all(t._shape == shape for t in ts):
        fast = _fast_setup_strides(shape, [st for _, st in layouts])
        if fast is not None:
            return shape, fast
    shape = broadcast_shapes(*(t._shape for t in ts))
    return shape, elementwise_strides(shape, layouts)


def _reference_operands(operands, layouts, zero_dim_numbers):
    """The (shape, strides) torch's Meta references lay out, from the tensor operands'
    `layouts`: 0-d CPU tensors and wrapped numbers (`2 - t`) are left out, as numbers are
    (torch's `1 - t` is rsub with the number itself), except
    with `zero_dim_numbers` (where's Scalar overloads make a number a 0-d tensor on the
    device, an operand)."""
    tensor_layouts = iter(layouts)
    out = []
    for x in operands:
        if isinstance(x, Tensor):
            layout = next(tensor_layouts)
            if x._shape or not (x._device.type == "cpu" or getattr(x, "_wrapped_number", False)):
                out.append(layout)
        elif zero_dim_numbers and x is not None:
            out.append(((), ()))
    return out


def _row_major(stride) -> bool:
    """Strides that fall strictly from the first dim to the last (a slice of a contiguous
    tensor, say). When the first operand has them, every operand has the result's shape
    and no dim has size 1, TensorIterator keeps the dims in order (the first operand
    decides the order, and the fast setup cannot apply): a contiguous result. Deciding
    this here spares the general layout, the slow part of a small op on a slice."""
    return bool(stride) and stride[-1] > 0 and all(a > b for a, b in itertools.pairwise(stride))


def row_major_view(t) -> bool:
    """A non-empty tensor without size-1 dims whose strides fall strictly from the first
    dim to the last (a slice of a contiguous tensor along its last dims): a pointwise
    result it leads, among operands of its shape, is contiguous (see _row_major), and
    NumPy computes one in C order from it."""
    shape = t._shape
    return 1 not in shape and 0 not in shape and _row_major(t.stride())


def _fast_setup_strides(shape, strides_list):
    """The result strides of TensorIterator's fast setup, which it takes when every operand
    has one shape (a number is an operand of another shape): contiguous when all are,
    channels_last when all are, the operands' own strides when all are dense with equal
    strides; None otherwise. (torch's Meta results come from its Python references
    instead: meta_elementwise_strides.)"""
    if 0 in shape or all(_is_contiguous(shape, st, range(len(shape) - 1, -1, -1))
                         for st in strides_list):
        return contiguous_strides(shape)
    if len(shape) == 4 and all(_is_contiguous(shape, st, (1, 3, 2, 0)) for st in strides_list):
        return channels_last_strides(shape)
    first = strides_list[0]
    if is_non_overlapping_and_dense(shape, first) and all(st == first for st in strides_list):
        return first
    return None


def _cast_copy_layout(t, dt):
    """(shape, strides) of `t.to(dt)` (preserve_format): t's own when it needs no cast."""
    stride = t.stride()
    if dt is None or t._dtype is dt:
        return t._shape, stride
    return t._shape, like_strides(t._shape, stride, None)


def float_result(dt: D.dtype) -> D.dtype:
    """exp/log/div: integral and bool inputs give the default float dtype."""
    return dt if dt.category >= D.FLOAT else D.get_default_dtype()


def scalar_arg(value, dt: D.dtype):
    """A Scalar argument (clamp's bounds, masked_fill's value, ...) converted to the dtype
    `dt` its kernel uses it in, with torch's checked conversion (checked_scalar: "value
    cannot be converted to type int8_t without overflow"); tensors pass through."""
    return value if isinstance(value, Tensor) else checked_scalar(value, dt)


def real_bounds(*bounds) -> list:
    """clamp's Scalar bounds of a floating self, a complex one read as a double (torch's
    kernel: "value cannot be converted to type double without overflow" for an imaginary
    part); tensors, None and real numbers pass through."""
    return [real_scalar(b) if b.__class__ is complex else b for b in bounds]


def opmath_dtype(dt: D.dtype) -> D.dtype:
    """The type torch's kernels compute float16/bfloat16 in (and convert Scalars to)."""
    return D.float32 if dt in HALF else dt


def opmath_scalars(dt: D.dtype, *values) -> list:
    """A float kernel's Scalar arguments (softplus's beta, elu's alpha, ...) converted to the
    dtype it computes `dt` in, with torch's check ("value cannot be converted to type float
    without overflow"), which holds for empty inputs too."""
    odt = opmath_dtype(dt)
    return [scalar_arg(v, odt) for v in values]


def fill_value(value, dt: D.dtype):
    """masked_fill's value for a `dt` tensor: a 0-d tensor is read with .item(), then both
    take torch's checked conversion (uint8 refuses 300 and NaN, even on an empty tensor)."""
    return checked_scalar(value.item() if isinstance(value, Tensor) else value, dt)


def check_alpha(dt: D.dtype, alpha) -> None:
    """torch's alpha_check, which meta kernels run too: a bool alpha only for bool
    results, a float alpha only for floating or complex ones, a complex alpha only for
    complex ones."""
    if alpha is True or alpha is False:
        if dt is not D.bool_:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, (float, complex)) and dt.category != D.FLOAT and not dt.is_complex:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if isinstance(alpha, complex) and not dt.is_complex:
        raise RuntimeError("Complex alpha only supported for complex results.")


def alpha_value(dt: D.dtype, alpha, negate=False):
    """add/sub/rsub's alpha checked like torch's and converted to the computation dtype
    `dt` (checked_scalar: "value cannot be converted to type int8_t without overflow");
    rounded to float32 for float32/complex64 results and to float16/bfloat16 for theirs
    (torch multiplies by that value). `negate`: sub and rsub, which torch runs as add
    with -alpha, so -alpha is what must fit (sub(int32, int32, alpha=2**31) works).

    >>> alpha_value(ember.int32, 2**31, negate=True)
    -2147483648
    """
    check_alpha(dt, alpha)
    if negate and alpha is not True and alpha is not False:
        alpha = -alpha
    value = checked_scalar(alpha, dt)
    if dt in HALF:
        return float(np.float32(value).astype(dt.np))
    if dt is D.float32:
        return float(np.float32(value))
    if dt is D.complex64:
        return complex(np.complex64(value))
    return value


def check_bool_sub(a, b) -> None:
    da, db = _dtype_of(a), _dtype_of(b)
    if da is D.bool_ and db is D.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if da is D.bool_ or db is D.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def check_bool_neg(t) -> None:
    if t._dtype is D.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def _dtype_of(x):
    return x._dtype if isinstance(x, Tensor) else D.scalar_default_dtype(x)


# torch's C++ type names (some messages name the dtype so)
CPP_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
             "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
             "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
             "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def check_inplace(self, result_dtype: D.dtype, *others, cpp_name=False) -> None:
    """An in-place op must keep self's shape and be able to cast the result to self's dtype
    (`cpp_name`: the message names self's dtype in C++, like torch's clamp_ with numbers)."""
    check_cast(result_dtype, self._dtype, CPP_NAMES[self._dtype.name] if cpp_name else None)
    ts = tensors_of(*others)
    if ts:
        check_output_shape(self, broadcast_shapes(self._shape, *(t._shape for t in ts)))


def check_bool_mask(mask, op="masked_fill_") -> None:
    if mask._dtype is not D.bool_:
        raise RuntimeError(f"{op} only supports boolean masks, but got mask with dtype "
                           f"{CPP_NAMES[mask._dtype.name]}")


def check_fill_value(value, op="masked_fill_") -> None:
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"{op} only supports a 0-dimensional value tensor, but got tensor "
                           f"with {value.dim()} dimension(s).")


def check_where_condition(condition) -> None:
    if condition._dtype is D.uint8:
        import warnings
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and "
                      "will be removed in a future version of PyTorch. Use a boolean condition "
                      "instead.", UserWarning, stacklevel=4)
    elif condition._dtype is not D.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition._dtype.scalar_name}")


def where_dtype(self, other) -> D.dtype:
    return D.result_type(self, other)


def clamp_dtype(self, lo, hi) -> D.dtype:
    if lo is None and hi is None:
        raise RuntimeError("ember.clamp: At least one of 'min' or 'max' must not be None")
    # (torch's manual promotion: a floating self's dtype is kept, floating being the
    # highest clamp supports, so complex bounds without an imaginary part clamp it)
    dt = self._dtype if self._dtype.category == D.FLOAT and not tensors_of(lo, hi) else \
        D.result_type(self, *[v for v in (lo, hi) if v is not None])
    if dt is D.bool_:
        name = "clamp" if lo is not None and hi is not None else "clamp_min" if hi is None \
            else "clamp_max"
        raise not_implemented_for(f"{name}_scalar_cpu", dt)
    return dt


def pow_dtype(base, exponent) -> D.dtype:
    dt = D.result_type(base, exponent)
    if dt is D.bool_ and (isinstance(exponent, Tensor) or exponent not in (0, 1)):
        raise not_implemented_for("pow", dt)
    if dt.category == D.INT and not isinstance(exponent, Tensor) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return dt


def check_div_mode(rounding_mode, dt: D.dtype = None) -> None:
    if rounding_mode is not None and (dt is D.bool_ or dt is not None and dt.is_complex):
        raise not_implemented_for(f"div_{rounding_mode}_cpu", dt)
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                         f"found '{rounding_mode}'")
