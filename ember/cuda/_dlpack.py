"""DLPack and `__cuda_array_interface__` for CUDA tensors: `Tensor.__dlpack__` hands a
`dltensor` capsule (kDLCUDA) to CuPy, JAX or torch; `ember.from_dlpack` wraps another
library's CUDA memory (a DLPack capsule or a `__cuda_array_interface__` object) in an ember
tensor without a copy, keeping the producer's buffer alive until the storage dies.

    >>> y = ember.from_dlpack(cupy.arange(3))          # doctest: +SKIP
"""
from __future__ import annotations

import ctypes
import itertools

import numpy as np

from ..core import dtype as D
from ..core.tensor import contiguous_strides

KDL_CUDA = 2
_CODES = {"bool": (6, 8), "uint8": (1, 8), "int8": (0, 8), "int16": (0, 16), "int32": (0, 32),
          "int64": (0, 64), "float16": (2, 16), "bfloat16": (4, 16), "float32": (2, 32),
          "float64": (2, 64)}
_DTYPES = {v: k for k, v in _CODES.items()}


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32),
                ("dtype", _DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _Managed(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Managed))
_Managed._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                     ("deleter", _DELETER)]

_api = ctypes.pythonapi
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                                 ctypes.c_void_p)(("PyCapsule_New", _api))
_capsule_get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))
_capsule_rename = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", _api))
_capsule_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))
_capsule_get_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))

_exported: dict[int, tuple] = {}   # manager_ctx -> what the capsule keeps alive
_ids = itertools.count(1)


@_DELETER
def _delete(managed):
    _exported.pop(managed.contents.manager_ctx, None)


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):
    """A capsule nobody consumed frees its tensor (a consumer renames it first)."""
    if _capsule_valid_raw(capsule, b"dltensor"):
        managed = ctypes.cast(_capsule_get_raw(capsule, b"dltensor"), ctypes.POINTER(_Managed))
        managed.contents.deleter(managed)


def to_capsule(t):
    """A `dltensor` capsule viewing CUDA tensor t (shape and element strides; no copy)."""
    code, bits = _CODES[t._dtype.name]
    shape = (ctypes.c_int64 * max(t.dim(), 1))(*t._shape)
    strides = (ctypes.c_int64 * max(t.dim(), 1))(*t.stride())
    ctx = next(_ids)
    m = _Managed()
    m.dl_tensor = _DLTensor(t.data_ptr(), _Device(KDL_CUDA, t._device.index or 0), t.dim(),
                            _DataType(code, bits, 1), shape, strides, 0)
    m.manager_ctx, m.deleter = ctx, _delete
    _exported[ctx] = (t, m, shape, strides)
    return _capsule_new(ctypes.addressof(m), b"dltensor",
                        ctypes.cast(_capsule_destructor, ctypes.c_void_p))


class ForeignBuffer:
    """The owner of a CUDA storage whose memory another library allocated: its `release`
    runs when the storage dies (the DLPack deleter, or dropping the producer object)."""

    __slots__ = ("__weakref__", "block", "keep", "ptr", "release")

    def __init__(self, ptr, keep=None, release=None):
        self.ptr, self.keep, self.release, self.block = ptr, keep, release, None

    def __del__(self):
        if self.release is not None:
            self.release()
            self.release = None


def _wrap(ptr, shape, strides, dtype_name, device_id, owner):
    """An ember CUDA tensor over foreign memory at ptr."""
    from ..core.alloc import storage_nbytes
    from ..core.device import device as device_cls
    from ..core.storage import Storage
    from ..core.tensor import make_tensor
    dt = getattr(D, dtype_name if dtype_name != "bool" else "bool_")
    nbytes = storage_nbytes(shape, strides, dt.itemsize)
    return make_tensor(Storage(owner, nbytes, device_cls("cuda", device_id)), tuple(shape),
                       tuple(strides), 0, dt)


def from_capsule(capsule):
    """The ember CUDA tensor sharing a kDLCUDA `dltensor` capsule's memory (consumes it)."""
    managed = ctypes.cast(_capsule_get(capsule, b"dltensor"), ctypes.POINTER(_Managed))
    _capsule_rename(capsule, b"used_dltensor")
    dl = managed.contents.dl_tensor
    if dl.device.device_type != KDL_CUDA:
        raise BufferError(f"from_dlpack: expected a CUDA (kDLCUDA) capsule, got device type "
                          f"{dl.device.device_type}")
    key = (dl.dtype.code, dl.dtype.bits)
    if key not in _DTYPES or dl.dtype.lanes != 1:
        raise BufferError(f"from_dlpack: unsupported DLPack dtype (code {dl.dtype.code}, "
                          f"{dl.dtype.bits} bits, {dl.dtype.lanes} lanes)")
    shape = tuple(dl.shape[i] for i in range(dl.ndim))
    strides = tuple(dl.strides[i] for i in range(dl.ndim)) if dl.strides else \
        contiguous_strides(shape)

    def release():
        if managed.contents.deleter:
            managed.contents.deleter(managed)
    owner = ForeignBuffer((dl.data or 0) + dl.byte_offset, release=release)
    return _wrap(owner.ptr, shape, strides, _DTYPES[key], dl.device.device_id, owner)


def from_cuda_array_interface(obj):
    """The ember CUDA tensor sharing a `__cuda_array_interface__` object's memory (the
    object is kept alive with the storage)."""
    cai = obj.__cuda_array_interface__
    np_dt = np.dtype(cai["typestr"])
    dt = D.from_numpy_dtype(np_dt)
    shape = tuple(cai["shape"])
    strides = cai.get("strides")
    if strides is None:
        strides = contiguous_strides(shape)
    else:
        if any(s % np_dt.itemsize for s in strides):
            raise BufferError("from_dlpack: strides that are not whole elements")
        strides = tuple(s // np_dt.itemsize for s in strides)
    from . import _runtime
    return _wrap(cai["data"][0], shape, strides, dt.name, _runtime.device_index(None),
                 ForeignBuffer(cai["data"][0], keep=obj))
