"""Allocating kernel outputs: uninitialised tensors with a given layout on a device.

    >>> empty_strided_on(META, (2, 3), (1, 2), ember.float32).stride()
    (1, 2)
"""
from __future__ import annotations

import numpy as np

from .device import CPU, META
from .storage import Storage
from .tensor import contiguous_strides, from_array, make_tensor


def storage_nbytes(shape, stride, itemsize: int) -> int:
    """Bytes a layout needs: 0 when any size is 0, else (1 + max offset) * itemsize."""
    if any(n == 0 for n in shape):
        return 0
    return (1 + sum((n - 1) * s for n, s in zip(shape, stride))) * itemsize


def empty_cpu(shape, dt, stride=None):
    shape = tuple(shape)
    if stride is None or tuple(stride) == contiguous_strides(shape):
        return from_array(np.empty(shape, dt.np), dt)
    nbytes = storage_nbytes(shape, stride, dt.itemsize)
    return make_tensor(Storage.of_array(np.empty(nbytes, np.uint8)), shape, tuple(stride), 0, dt)


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


__all__ = ["CPU", "META", "empty_cpu", "empty_meta", "empty_strided_on", "storage_nbytes"]
