"""Allocating kernel outputs: uninitialised tensors with a given layout on a device.

    >>> empty_strided_on(META, (2, 3), (1, 2), ember.float32).stride()
    (1, 2)
"""
from __future__ import annotations

import math

import numpy as np

from . import dtype as D
from .device import CPU, META
from .storage import Storage
from .tensor import contiguous_strides, from_array, make_tensor


def storage_nbytes(shape, stride, itemsize: int) -> int:
    """Bytes a layout needs: 0 when any size is 0, else (1 + max offset) * itemsize."""
    if any(n == 0 for n in shape):
        return 0
    return (1 + sum((n - 1) * s for n, s in zip(shape, stride))) * itemsize


_INT64_MAX = 2 ** 63 - 1


def np_alloc(fn, shape, dt, *args) -> np.ndarray:
    """`fn(shape, *args, dt.np)` (np.empty, np.zeros, np.full, ...) with torch's errors, not
    NumPy's, for a size that cannot be allocated: its byte count overflowing int64, or more
    bytes than the machine has."""
    try:
        return fn(shape, *args, dt.np)
    except MemoryError:
        raise _alloc_error(shape, dt) from None
    except ValueError:  # NumPy's "array is too big", or another problem of the arguments
        if _nbytes(shape, dt) > _INT64_MAX:
            raise _alloc_error(shape, dt) from None
        raise


def _nbytes(shape, dt) -> int:
    return math.prod((shape,) if isinstance(shape, int) else shape) * dt.itemsize


def _alloc_error(shape, dt) -> RuntimeError:
    nbytes = _nbytes(shape, dt)
    if nbytes > _INT64_MAX:
        sizes = [shape] if isinstance(shape, int) else list(shape)
        return RuntimeError(f"Storage size calculation overflowed with sizes={sizes}")
    return RuntimeError("[enforce fail at alloc_cpu.cpp] err == 0. DefaultCPUAllocator: can't "
                        f"allocate memory: you tried to allocate {nbytes} bytes. Error code 12 "
                        "(Cannot allocate memory)")


def empty_cpu(shape, dt, stride=None):
    shape = tuple(shape)
    if stride is None or tuple(stride) == contiguous_strides(shape):
        return from_array(np_alloc(np.empty, shape, dt), dt)
    nbytes = storage_nbytes(shape, stride, dt.itemsize)
    return make_tensor(Storage.of_array(np_alloc(np.empty, nbytes, D.uint8)), shape,
                       tuple(stride), 0, dt)


def empty_meta(shape, dt, stride=None):
    shape = tuple(shape)
    stride = contiguous_strides(shape) if stride is None else tuple(stride)
    return make_tensor(Storage(None, storage_nbytes(shape, stride, dt.itemsize), META),
                       shape, stride, 0, dt)


def empty_strided_on(device, shape, stride, dt):
    """Dispatches allocation by device type: cpu and meta here, any other type to
    ember.backends (which has no backend yet, so it raises)."""
    t = device.type
    if t == "cpu":
        return empty_cpu(shape, dt, stride)
    if t == "meta":
        return empty_meta(shape, dt, stride)
    from ..backends import allocator_for
    return allocator_for(device)(shape, stride, dt)


__all__ = ["CPU", "META", "empty_cpu", "empty_meta", "empty_strided_on", "np_alloc",
           "storage_nbytes"]
