"""Making tensors from data, and the argument rules every factory kernel shares.

Public: `ember.tensor`, `ember.as_tensor`, `ember.from_numpy`, `ember.from_dlpack`, the
legacy `ember.Tensor(...)` constructor and the default device.

    >>> ember.tensor([[1, 2], [3, 4]]).dtype
    ember.int64
    >>> ember.from_numpy(np.ones(3)).dtype
    ember.float64

Kernel helpers (CPU, Meta and device-generic kernels use the same rules): `check_size`,
`factory_dtype`, `check_layout`, `memory_format_of`, `like_strides` (the layout of
`empty_like` / `clone` / `_to_copy` results), `checked_scalar` (torch's overflow-checked
Scalar conversion of fill/full/scalar_tensor) and `arange_params`.
"""
from __future__ import annotations

import math
import operator
import warnings
from itertools import chain

import ml_dtypes
import numpy as np

from . import dtype as D
from .device import CPU, as_device
from .device import device as _device
from .shapes import infer_dense_strides, is_non_overlapping_and_dense
from .tensor import (
    MEMORY_FORMATS,
    Size,
    Tensor,
    _MemoryFormat,
    channels_last_strides,
    contiguous_strides,
    from_array,
    shallow_copy,
)

_default_device = [CPU]


def default_device():
    """The device of factories called without `device=` (BackendSelect uses it)."""
    return _default_device[0]


def get_default_device():
    return _default_device[0]


def set_default_device(d):
    _default_device[0] = _device(d) if d is not None else CPU


# --- factory arguments ------------------------------------------------------------------
def check_size(size, name="empty") -> tuple:
    """A `SymInt[] size` argument as a tuple of Python ints; torch's negative-size error.

    >>> check_size([2, 3])
    (2, 3)
    """
    if isinstance(size, int):
        size = (size,)
    try:
        shape = tuple(map(operator.index, size))
    except TypeError:
        bad = next((s for s in size if not _is_index(s)), size)
        pos = list(size).index(bad) + 1 if bad is not size else 1
        raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {pos} "
                        f"with error \"type must be tuple of ints,but got "
                        f"{type(bad).__name__}\"") from None
    for n in shape:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(shape)}")
    return shape


def _is_index(x) -> bool:
    try:
        operator.index(x)
        return True
    except TypeError:
        return False


def check_strided(size, stride):
    """empty_strided's checks: as many strides as sizes, none negative."""
    shape = check_size(size, "empty_strided")
    stride = tuple(int(s) for s in stride)
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
              "float32": "float"}
_FLOAT_MAX = {D.float16: 65504.0, D.bfloat16: float(ml_dtypes.finfo(ml_dtypes.bfloat16).max),
              D.float32: float(np.finfo(np.float32).max)}


def scalar_value(value):
    """A Scalar argument (Python/NumPy number or 0-d tensor) as a Python number."""
    t = type(value)
    if t is int or t is float or t is bool:
        return value
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value)
    if hasattr(value, "_dtype") and value.dim() == 0:
        return value.item()
    raise TypeError(f"expected a number, got {type(value).__name__}")


def scalar_category_dtype(value) -> D.dtype:
    """The dtype `full` infers from its fill value: bool, int64 or the default float."""
    if hasattr(value, "_dtype"):
        c = value._dtype.category
    else:
        c = D.scalar_category(value)
    return D.bool_ if c == D.BOOL else D.int64 if c == D.INT else D._default[0]


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


def arange_params(start, end, step, dtype):
    """(length, dtype, start, step) of `arange`, after torch's checks and length rule.

    start/step are truncated to ints for integer dtypes (torch converts the Scalars to
    the accumulate type); the length comes from doubles, except for int64.
    >>> arange_params(0, 1, 0.3, None)[:2]
    (4, ember.float32)
    """
    start, end, step = scalar_value(start), scalar_value(end), scalar_value(step)
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


def _num(x: float) -> str:
    return str(int(x)) if x.is_integer() else str(x)


# --- ember.tensor and friends -------------------------------------------------------------
def _np_dtype_error(np_dtype) -> TypeError:
    return TypeError(f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only "
                     "supported types are: float64, float32, float16, bfloat16, int64, int32, "
                     "int16, int8, uint8, and bool.")


def _ember_dtype_of_np(np_dtype) -> D.dtype:
    try:
        return D._BY_NP[np.dtype(np_dtype)]
    except KeyError:
        raise _np_dtype_error(np_dtype) from None


def from_numpy(ndarray):
    """A CPU tensor sharing `ndarray`'s memory (writes show through both ways).

    >>> a = np.zeros(3); t = ember.from_numpy(a); a[0] = 1; t[0].item()
    1.0
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {_type_name(ndarray)})")
    dt = _ember_dtype_of_np(ndarray.dtype.newbyteorder("=") if ndarray.dtype.byteorder not in
                            ("=", "|") else ndarray.dtype)
    if not ndarray.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. "
                         "Conversion between byte orders is currently not supported.")
    isz = ndarray.itemsize
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors "
                         "with negative strides are not currently supported. (You can probably "
                         "work around this by making a copy of your array  with array.copy().) ")
    if any(s % isz for s in ndarray.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. "
                         "Copy the numpy array to reallocate the memory.")
    if not ndarray.flags.writeable:
        warnings.warn("The given NumPy array is not writable, and ember does not support "
                      "non-writable tensors. This means writing to this tensor will result in "
                      "undefined behavior. You may want to copy the array to protect its data "
                      "or make it writable before converting it to a tensor.", UserWarning,
                      stacklevel=2)
    t = from_array(ndarray, dt)
    t._stride = tuple(st // isz for st in ndarray.strides)  # NumPy's, even for empty arrays
    return t


def _type_name(x) -> str:
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def from_dlpack(ext_tensor):
    """A tensor sharing the memory of any object with `__dlpack__` (NumPy arrays, torch
    CPU tensors, ember tensors).

    >>> t = ember.from_dlpack(np.arange(3))
    """
    if isinstance(ext_tensor, Tensor):
        if ext_tensor.requires_grad:
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
        return shallow_copy(ext_tensor)
    if not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError(f"from_dlpack: expected an object with __dlpack__, got "
                        f"{_type_name(ext_tensor)}")
    return from_numpy(np.from_dlpack(ext_tensor))


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data` (nested lists/tuples of numbers, NumPy arrays
    and scalars, tensors). Without `dtype`: bools -> bool, ints -> int64, any float ->
    the default dtype; NumPy data keeps its dtype.

    >>> ember.tensor([[1, 2.5], [3, 4]])
    tensor([[1.0000, 2.5000],
            [3.0000, 4.0000]])
    """
    if dtype is not None and not isinstance(dtype, D.dtype):
        raise TypeError(f"tensor(): argument 'dtype' must be ember.dtype, not "
                        f"{type(dtype).__name__}")
    dev = as_device(device)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
                      ".requires_grad_(True), rather than ember.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        t = _copy_tensor(data, dtype, dev)
    else:
        arr = _array_from_data(data, dtype)
        t = from_array(arr, _ember_dtype_of_np(arr.dtype))
        dev = dev or _default_device[0]
        if dev.type != "cpu":
            t = _copy_tensor(t, None, dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _copy_tensor(t, dtype, dev):
    """A detached copy of `t` with another dtype/device (keeps its layout)."""
    from .. import _generated
    from ..autograd import no_grad
    with no_grad():
        r = _generated.ops._entry__to_copy(t, dtype or t.dtype, None, dev or t.device, None,
                                           False, None)
    if r is t or r._ag is not None:
        r = shallow_copy(r)
    return r


def _array_from_data(data, dtype) -> np.ndarray:
    """A fresh NumPy array (in the ember dtype) holding `data`."""
    if isinstance(data, range):
        data = list(data)
    elif not isinstance(data, (list, tuple, np.ndarray, np.generic, bool, int, float)):
        if data is None:
            raise RuntimeError("Could not infer dtype of NoneType")
        if isinstance(data, str) or not (hasattr(data, "__array__") or
                                         hasattr(data, "__array_interface__")):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        data = np.asarray(data)
    if isinstance(data, (np.ndarray, np.generic)):
        target = _ember_dtype_of_np(data.dtype) if dtype is None else dtype
        with np.errstate(invalid="ignore", over="ignore"):
            return np.array(data, dtype=target.np, order="K", copy=True)
    inferred = _infer_dtype(data)
    # Build at full precision when converting afterwards (torch converts each Python value).
    build = inferred
    if dtype is not None and dtype is not inferred and inferred.category != D.BOOL:
        build = D.float64 if inferred.category == D.FLOAT else D.int64
    try:
        arr = np.array(data, dtype=build.np)
    except ValueError:
        _raise_ragged(data)
        raise
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    if dtype is not None and dtype is not build:
        if dtype.category == D.INT and build.category != D.BOOL:
            _check_fits(arr, dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            arr = arr.astype(dtype.np)
    return arr


def _infer_dtype(data) -> D.dtype:
    """torch's dtype inference: promote_types over the leaves of nested sequences, where
    a Python bool/int/float counts as bool/int64/default float and NumPy scalars, arrays
    and tensors count as their own dtype."""
    if not isinstance(data, (list, tuple)):
        return _leaf_dtype(data)
    level, leaves = [data], []
    while level:
        items = list(chain.from_iterable(level))
        kinds = set(map(type, items))
        if kinds <= {list, tuple}:
            level = items
            continue
        if not any(issubclass(k, (list, tuple)) for k in kinds):
            leaves.extend(items)
            break
        level = [x for x in items if isinstance(x, (list, tuple))]
        leaves.extend(x for x in items if not isinstance(x, (list, tuple)))
    if not leaves:
        return D._default[0]
    out = None
    for k in set(map(type, leaves)):
        if k in _PY_SCALAR_DTYPES:
            ds = [_PY_SCALAR_DTYPES[k]()]
        elif issubclass(k, np.generic):
            ds = [_ember_dtype_of_np(np.dtype(k))]
        else:
            ds = [_leaf_dtype(x) for x in leaves if type(x) is k]
        for d in ds:
            out = d if out is None else D.promote_types(out, d)
    return out


_PY_SCALAR_DTYPES = {bool: lambda: D.bool_, int: lambda: D.int64, float: lambda: D._default[0]}


def _leaf_dtype(x) -> D.dtype:
    if isinstance(x, (np.ndarray, np.generic)):
        return _ember_dtype_of_np(x.dtype)
    if isinstance(x, bool):
        return D.bool_
    if isinstance(x, int):
        return D.int64
    if isinstance(x, float):
        return D._default[0]
    if hasattr(x, "_dtype"):
        if x.numel() != 1:
            raise TypeError("only one element tensors can be converted to Python scalars")
        return x._dtype
    if x is None:
        raise RuntimeError("Could not infer dtype of NoneType")
    raise TypeError(f"new(): invalid data type '{type(x).__name__}'")


def _raise_ragged(data):
    """torch's error for nested sequences whose lengths disagree."""
    sizes = []
    x = data
    while isinstance(x, (list, tuple)):
        sizes.append(len(x))
        if not x:
            break
        x = x[0]

    def walk(seq, dim):
        if dim == len(sizes):
            if isinstance(seq, (list, tuple)):
                raise TypeError(f"'{type(seq).__name__}' object cannot be interpreted as a number")
            return
        if not isinstance(seq, (list, tuple)):
            raise TypeError("not a sequence")
        if len(seq) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                             f"(got {len(seq)})")
        for item in seq:
            walk(item, dim + 1)
    walk(data, 0)


def _check_fits(arr: np.ndarray, dt: D.dtype) -> None:
    """ember.tensor(data, dtype=<int type>) raises when a value does not fit (torch)."""
    if arr.size == 0:
        return
    info = np.iinfo(dt.np)
    lo = -info.max if info.min == 0 and arr.dtype.kind in "iu" else info.min
    with np.errstate(invalid="ignore"):
        bad = (arr < lo) | (arr > info.max)
        if arr.dtype.kind == "f":
            bad |= np.isnan(arr)
    if bad.any():
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")


def as_tensor(data, dtype=None, device=None):
    """Like `ember.tensor`, but shares memory when it can (tensors and NumPy arrays of the
    same dtype on the same device come back without a copy).

    >>> a = np.zeros(2); ember.as_tensor(a)[0] = 5; a[0]
    np.float64(5.0)
    """
    dev = as_device(device)
    if isinstance(data, Tensor):
        if (dtype is None or dtype is data.dtype) and (dev is None or dev == data.device):
            return data
        return _copy_tensor(data, dtype, dev)
    if isinstance(data, np.ndarray) and (dev or _default_device[0]).type == "cpu":
        if dtype is None or dtype.np == data.dtype:
            return from_numpy(data)
        if any(s < 0 for s in data.strides):
            from_numpy(data)  # raises torch's negative-stride error
    return tensor(data, dtype=dtype, device=dev)


def legacy_tensor(*args, device=None, **kwargs):
    """`ember.Tensor(...)`: `Tensor(2, 3)` is uninitialised with the default dtype,
    `Tensor([1, 2])` copies data into the default dtype, `Tensor()` is empty.

    >>> ember.Tensor(2, 3).shape, ember.Tensor([1, 2]).dtype
    (ember.Size([2, 3]), ember.float32)
    """
    if kwargs:
        raise TypeError(f"new() received an invalid combination of arguments - got unexpected "
                        f"keyword argument '{next(iter(kwargs))}'")
    dev = as_device(device)
    if dev is not None and dev.type != "cpu":
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                           f"{dev.type} was passed")
    dt = D._default[0]
    from .. import _generated
    if not args:
        return _generated.ops._entry_empty_memory_format((0,), dt, None, CPU, None, None)
    if len(args) == 1 and isinstance(args[0], Tensor):
        return shallow_copy(args[0])
    if all(_is_index(a) and not isinstance(a, (bool, np.bool_)) for a in args) or (
            len(args) == 1 and isinstance(args[0], Size)):
        size = args[0] if isinstance(args[0], Size) else args
        return _generated.ops._entry_empty_memory_format(check_size(size), dt, None, CPU,
                                                         None, None)
    if len(args) == 1:
        data = args[0]
        if not isinstance(data, (list, tuple, np.ndarray, range)):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return tensor(data, dtype=dt)
    raise TypeError("new() received an invalid combination of arguments")
