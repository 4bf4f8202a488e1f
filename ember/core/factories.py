"""Making tensors from data: `ember.tensor`, `ember.as_tensor`, `ember.from_numpy`,
`ember.from_dlpack`, the legacy `ember.Tensor(...)` constructor and the default device.
(The argument rules factory kernels share live in `factory_args`.)

    >>> ember.tensor([[1, 2], [3, 4]]).dtype
    ember.int64
    >>> ember.from_numpy(np.ones(3)).dtype
    ember.float64

"""
from __future__ import annotations

import warnings
from itertools import chain

import numpy as np

from ..dispatch.tls import grad_disabled
from ..dispatch.tls import state as _tls
from . import dtype as D
from .device import CPU, as_device
from .device import device as _device
from .factory_args import check_size, is_index
from .tensor import (
    Size,
    Tensor,
    from_array,
    shallow_copy,
)

_default_device = [CPU]


def default_device():
    """The device of factories called without `device=` (BackendSelect uses it)."""
    return _default_device[0]


def get_default_device():
    return _default_device[0]


def set_default_device(device):
    _default_device[0] = _device(device) if device is not None else CPU


# --- ember.tensor and friends -------------------------------------------------------------
_ember_dtype_of_np = D.from_numpy_dtype


def from_numpy(ndarray):
    """A CPU tensor sharing `ndarray`'s memory (writes show through both ways).

    >>> a = np.zeros(3); t = ember.from_numpy(a); a[0] = 1; t[0].item()
    1.0
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {_type_name(ndarray)})")
    dt = _ember_dtype_of_np(ndarray.dtype)
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


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A tensor sharing the memory of an object with `__dlpack__` (NumPy arrays, torch CPU
    tensors, ember tensors, CuPy and other CUDA arrays), a DLPack capsule of CUDA memory or
    a `__cuda_array_interface__` object; copy=True gives a copy instead, on `device`.

    >>> t = ember.from_dlpack(np.arange(3))
    """
    if isinstance(ext_tensor, Tensor):
        if ext_tensor.requires_grad:
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
        out = shallow_copy(ext_tensor)
    elif type(ext_tensor).__name__ == "PyCapsule":
        from ember.cuda import _dlpack
        out = _dlpack.from_capsule(ext_tensor)
    elif hasattr(ext_tensor, "__dlpack_device__") and hasattr(ext_tensor, "__dlpack__") and \
            ext_tensor.__dlpack_device__()[0] == 2:   # kDLCUDA
        from ember.cuda import _dlpack
        out = _dlpack.from_capsule(ext_tensor.__dlpack__())
    elif hasattr(ext_tensor, "__cuda_array_interface__"):
        from ember.cuda import _dlpack
        out = _dlpack.from_cuda_array_interface(ext_tensor)
    elif not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError(f"from_dlpack: expected an object with __dlpack__, got "
                        f"{_type_name(ext_tensor)}")
    else:
        out = from_numpy(np.from_dlpack(ext_tensor))
    if device is not None and _device(device) != out.device:
        d = _device(device)
        if copy and d.type in ("cpu", "cuda"):
            return out.to(d, copy=True)
        where = "CPU" if out.device == CPU else str(out.device)
        raise RuntimeError(f"from_dlpack: ember shares memory on the {where} only, got device {d}")
    return out.clone() if copy else out


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
    if _tls.dispatch_modes:   # let the modes see the new constant (FakeTensorMode fakes it)
        from ..dispatch.dispatcher import ops
        t = ops.aten.lift_fresh.default(t)
    if requires_grad:
        factory_requires_grad(t)
    return t


def factory_requires_grad(t):
    """`requires_grad=True` given to a factory (torch's capitalised message)."""
    if not (t.is_floating_point() or t.is_complex()):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    return t.requires_grad_()


def _copy_tensor(t, dtype, dev):
    """A detached copy of `t` with another dtype/device (keeps its layout)."""
    from .. import _generated
    with grad_disabled():
        r = _generated.ops._entry__to_copy(t, dtype or t.dtype, None, dev or t.device, None,
                                           False, None)
    if r is t or r._ag is not None:
        r = shallow_copy(r)
    return r


def _array_from_data(data, dtype) -> np.ndarray:
    """A fresh NumPy array (in the ember dtype) holding `data`."""
    if isinstance(data, range):
        data = list(data)
    elif not isinstance(data, (list, tuple, np.ndarray, np.generic, bool, int, float, complex)):
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
        build = (D.int64, D.float64, D.complex128)[inferred.category - 1]
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


_PY_SCALAR_DTYPES = {bool: lambda: D.bool_, int: lambda: D.int64, float: lambda: D._default[0],
                     complex: D.get_default_complex_dtype}


def _leaf_dtype(x) -> D.dtype:
    if isinstance(x, (np.ndarray, np.generic)):  # read by value: any byte order (torch)
        return _ember_dtype_of_np(x.dtype.newbyteorder("="))
    if isinstance(x, bool):
        return D.bool_
    if isinstance(x, int):
        return D.int64
    if isinstance(x, float):
        return D._default[0]
    if isinstance(x, complex):
        return D.get_default_complex_dtype()
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
    if all(is_index(a) and not isinstance(a, (bool, np.bool_)) for a in args) or (
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
