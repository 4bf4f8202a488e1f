"""The argument rules every factory kernel shares (CPU, Meta and device-generic):
`check_size`, `factory_dtype`, `check_layout`, `memory_format_of`, `like_strides` (the
layout of `empty_like` / `clone` / `_to_copy` results), `checked_scalar` (torch's
overflow-checked Scalar conversion of fill/full/scalar_tensor) and `arange_params`.

    >>> check_size((2, 3)), factory_dtype(None)
    ((2, 3), ember.float32)
"""
from __future__ import annotations

import math
import operator

import ml_dtypes
import numpy as np

from . import dtype as D
from . import sym
from .shapes import infer_dense_strides, is_non_overlapping_and_dense
from .tensor import MEMORY_FORMATS, _MemoryFormat, channels_last_strides, contiguous_strides


def check_size(size, name="empty") -> tuple:
    """A `SymInt[] size` argument as a tuple of Python ints; torch's negative-size error.

    >>> check_size([2, 3])
    (2, 3)
    """
    if size.__class__ is tuple and all(n.__class__ is int and 0 <= n <= _INT64_MAX for n in size):
        return size  # the common case, already valid
    if isinstance(size, int):
        size = (size,)
    try:
        shape = tuple(map(sym.index_or_symint if sym.SYM_INT_TYPES else operator.index, size))
    except TypeError:
        bad = next((s for s in size if not is_index(s)), size)
        pos = list(size).index(bad) + 1 if bad is not size else 1
        raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {pos} "
                        f"with error \"type must be tuple of ints,but got "
                        f"{type(bad).__name__}\"") from None
    for i, n in enumerate(shape):
        if n.__class__ is int and n > _INT64_MAX:  # torch's C++ int64_t cannot hold it
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos "
                            f"{i + 1} with error \"Overflow when unpacking long long\"")
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(shape)}")
    return shape


_INT64_MAX = 2 ** 63 - 1


def is_index(x) -> bool:
    try:
        operator.index(x)
        return True
    except TypeError:
        return False


def check_strided(size, stride):
    """empty_strided's checks: as many strides as sizes, none negative."""
    shape = check_size(size, "empty_strided")
    stride = tuple(s if sym.is_symint(s) else int(s) for s in stride)   # (SymInts kept)
    if len(stride) != len(shape):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality "
                           f"of strides ({len(stride)})")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and "
                           f"strides={list(stride)}")
    return shape, stride


def factory_dtype(dtype) -> D.dtype:
    """`dtype=None` means the default floating dtype."""
    if dtype is None:
        return D._default[0]
    if not isinstance(dtype, D.dtype):
        raise TypeError(f"dtype must be an ember.dtype, not {type(dtype).__name__}")
    return dtype


def check_layout(layout) -> None:
    """ember tensors are strided: `layout` may be None or strided."""
    if layout is not None and str(layout).rpartition(".")[2] != "strided":
        raise RuntimeError(f"ember supports only the strided layout, got layout={layout}")


_PRESERVE = MEMORY_FORMATS["preserve_format"]
_CONTIGUOUS = MEMORY_FORMATS["contiguous_format"]


def memory_format_of(memory_format):
    """A MemoryFormat argument (None, an ember.*_format object or its name) as the object;
    None stays None (which means preserve_format for *_like/clone/_to_copy)."""
    if memory_format is None:
        return None
    if isinstance(memory_format, _MemoryFormat):
        return memory_format
    name = str(memory_format).rpartition(".")[2]
    try:
        return MEMORY_FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown memory format {memory_format!r}") from None


def format_strides(shape, memory_format) -> tuple:
    """Dense strides of `shape` in contiguous_format or channels_last (NHWC)."""
    mf = memory_format_of(memory_format)
    if mf is None or mf is _CONTIGUOUS:
        return contiguous_strides(shape)
    if mf.name == "channels_last":
        if len(shape) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        return channels_last_strides(shape)
    raise RuntimeError("unsupported memory format Preserve")


def like_strides(shape, stride, memory_format) -> tuple:
    """Strides of a new tensor laid out like (shape, stride) under `memory_format`
    (empty_like, clone, _to_copy): preserve_format (or None) keeps a dense layout as is and
    keeps the dim order of a non-dense one; other formats give their dense strides.

    >>> like_strides((3, 2), (1, 3), None), like_strides((3, 2), (1, 3), "contiguous_format")
    ((1, 3), (2, 1))
    """
    mf = memory_format_of(memory_format)
    if mf is None or mf is _PRESERVE:
        if is_non_overlapping_and_dense(shape, stride):
            return tuple(stride)
        return infer_dense_strides(shape, stride)
    return format_strides(shape, mf)


# torch's C++ type names in "value cannot be converted to type X without overflow"
_CPP_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
              "int64": "int64_t", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "float32": "float", "float64": "double", "bool": "bool"}
_FLOAT_MAX = {D.float16: 65504.0, D.bfloat16: float(ml_dtypes.finfo(ml_dtypes.bfloat16).max),
              D.float32: float(np.finfo(np.float32).max)}


def scalar_value(value):
    """A Scalar argument (Python/NumPy number or 0-d tensor) as a Python number."""
    t = type(value)
    if t is int:
        return D.check_int_range(value)
    if t is float or t is bool:
        return value
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value)
    if isinstance(value, (np.complexfloating, complex)):
        return complex(value)
    if hasattr(value, "_dtype") and value.dim() == 0:
        return value.item()
    if sym.is_sym_scalar(value):          # (a SymInt/SymFloat of a dynamic-shape trace)
        return value
    raise TypeError(f"expected a number, got {type(value).__name__}")


def scalar_category_dtype(value) -> D.dtype:
    """The dtype `full` infers from its fill value: bool, int64, the default float or the
    default complex dtype."""
    if hasattr(value, "_dtype"):
        c = value._dtype.category
    else:
        c = D.scalar_category(value)
    return D._default_of_category(c)


def checked_scalar(value, dt: D.dtype):
    """`value` converted to `dt` like torch's checked Scalar conversion (fill_, full,
    scalar_tensor): integers truncate floats toward zero and raise on overflow (uint8
    also takes negatives down to -255, wrapping); float16/bfloat16/float32 raise on
    finite values beyond their range (inf and nan pass).

    >>> checked_scalar(2.7, ember.int32), checked_scalar(-1, ember.uint8)
    (2, 255)
    """
    v = scalar_value(value)
    cat = dt.category
    if isinstance(v, complex) or cat == D.COMPLEX:
        return _checked_complex(complex(v), dt)
    if cat == D.BOOL or type(v) is bool:
        return bool(v) if cat == D.BOOL else (int(v) if cat == D.INT else float(v))
    if cat == D.INT:
        info = np.iinfo(dt.np)
        if isinstance(v, float):
            if not (info.min <= v <= info.max):  # also catches nan and inf
                raise RuntimeError(f"value cannot be converted to type {_CPP_NAMES[dt.name]} "
                                   "without overflow")
            return int(v)
        lo = -info.max if info.min == 0 else info.min
        if not lo <= v <= info.max:
            raise RuntimeError(f"value cannot be converted to type {_CPP_NAMES[dt.name]} "
                               "without overflow")
        return v & info.max if v < 0 and info.min == 0 else v
    v = float(v)
    fmax = _FLOAT_MAX.get(dt)
    if fmax is not None and abs(v) > fmax and not math.isinf(v):
        raise RuntimeError(f"value cannot be converted to type {_CPP_NAMES[dt.name]} "
                           "without overflow")
    return v


def real_scalar(value) -> float:
    """A Scalar parameter read as a double, as torch's `Scalar.toDouble()`: a complex one only
    without an imaginary part ("value cannot be converted to type double without overflow").

    >>> real_scalar(2 + 0j), real_scalar(True)
    (2.0, 1.0)
    """
    return float(checked_scalar(value, D.float64))


def _checked_complex(v: complex, dt: D.dtype):
    """A complex Scalar converted to `dt`: a real dtype takes it only without an imaginary
    part, complex64 only with parts in float32's range (torch's checked_convert)."""
    if dt is D.complex64 and any(abs(x) > _FLOAT_MAX[D.float32] and not math.isinf(x)
                                 for x in (v.real, v.imag)):
        raise RuntimeError("value cannot be converted to type c10::complex<float> without "
                           "overflow")
    if dt.is_complex:
        return v
    if dt is D.bool_:
        return v != 0
    if v.imag != 0:
        raise RuntimeError(f"value cannot be converted to type {_CPP_NAMES[dt.name]} without "
                           "overflow")
    return checked_scalar(v.real, dt)


def arange_params(start, end, step, dtype):
    """(length, dtype, start, step) of `arange`, after torch's checks and length rule.

    start/step are truncated to ints for integer dtypes (torch converts the Scalars to
    the accumulate type); the length comes from doubles, except for int64.
    >>> arange_params(0, 1, 0.3, None)[:2]
    (4, ember.float32)
    """
    start, end, step = scalar_value(start), scalar_value(end), scalar_value(step)
    if sym.SYM_SCALAR_TYPES and any(map(sym.is_sym_scalar, (start, end, step))):
        return _symbolic_arange_params(start, end, step, dtype)
    if dtype is None:
        integral = all(isinstance(x, int) for x in (start, end, step))
        dtype = D.int64 if integral else D._default[0]
    dstart, dend, dstep = float(start), float(end), float(step)
    if dstep == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(dstart) and math.isfinite(dend)):
        raise RuntimeError(f"unsupported range: {_num(dstart)} -> {_num(dend)}")
    if not ((dstep > 0 and dend >= dstart) or (dstep < 0 and dend <= dstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype.category == D.FLOAT:
        n = math.ceil((dend - dstart) / dstep)
        return n, dtype, dstart, dstep
    istart, iend, istep = int(start), int(end), int(step)
    if dtype is D.int64:
        if istep == 0:
            raise ValueError("step must be nonzero")
        sgn = 1 if istep > 0 else -1
        n = (iend - istart + istep - sgn) // istep
    else:
        n = math.ceil((dend - dstart) / dstep)
    if n < 0:
        raise RuntimeError("invalid size, possible overflow?")
    return n, dtype, istart, istep


def _symbolic_arange_params(start, end, step, dtype):
    """arange_params when a bound is a SymInt (`arange(x.shape[0])` traced with dynamic
    shapes): integer bounds and step give a symbolic length (the sign checks become
    guards); a symbolic float bound is specialised to its value.

    >>> from ember.fx.experimental.symbolic_shapes import ShapeEnv
    >>> s0 = ShapeEnv().create_symint(5)
    >>> arange_params(1, s0, 2, None)[:2]
    (FloorDiv(s0, 2), ember.int64)
    """
    if not all(isinstance(x, int) or sym.is_symint(x) for x in (start, end, step)):
        return arange_params(*(float(x) if sym.is_sym_scalar(x) else x
                               for x in (start, end, step)), dtype)
    if dtype is None:
        dtype = D.int64
    step = int(step)                      # (a symbolic step: specialised)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = (end - start + step - (1 if step > 0 else -1)) // step     # ceil((end - start) / step)
    return n, dtype, start, step


def _num(x: float) -> str:
    return str(int(x)) if x.is_integer() else str(x)
