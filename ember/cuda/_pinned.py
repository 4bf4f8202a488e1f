"""Pinned (page-locked) host memory: `Tensor.pin_memory()`, `Tensor.is_pinned()` and the
DataLoader's `pin_memory=True`. Blocks come from the driver (CuPy: cudaHostAlloc through
`cupy.cuda.alloc_pinned_memory`; the emulator: ordinary host memory, which is what device
memory is there) and are registered by address, so `is_pinned` answers for any view, as
torch's host allocator does.

    >>> ember.ones(3).pin_memory().is_pinned()      # doctest: +SKIP
    True
"""
from __future__ import annotations

import weakref

import numpy as np

from . import _runtime

NO_ACCELERATOR = "Cannot access accelerator device when none is available."
_blocks: dict[int, int] = {}   # start address -> end address of live pinned blocks


def host_buffer(nbytes: int) -> np.ndarray:
    """A pinned uint8 host array of nbytes, registered until it is garbage."""
    drv = _runtime.driver()
    if drv is None:
        raise RuntimeError(NO_ACCELERATOR)
    n = max(nbytes, 1)
    raw = drv.host_alloc(n)
    start = raw.ctypes.data
    _blocks[start] = start + n
    weakref.finalize(raw, _blocks.pop, start, None)
    return raw[:nbytes]   # a view: raw lives as long as it


def is_pinned_address(ptr: int) -> bool:
    return any(start <= ptr < end for start, end in _blocks.items())


def pin(t):
    """A copy of CPU tensor t in pinned memory, with t's shape and strides (t itself when
    it is pinned already)."""
    from ..core.alloc import storage_nbytes
    from ..core.storage import Storage
    from ..core.tensor import make_tensor
    if t._device.type != "cpu":
        raise RuntimeError(f"cannot pin '{t.type()}' only dense CPU tensors can be pinned")
    if _runtime.driver() is None:
        raise RuntimeError(NO_ACCELERATOR)
    if is_pinned(t):
        return t
    shape, stride = t._shape, t.stride()
    nbytes = storage_nbytes(shape, stride, t._dtype.itemsize)
    out = make_tensor(Storage.of_array(host_buffer(nbytes)), shape, stride, 0, t._dtype)
    out._np[...] = t._np
    return out


def is_pinned(t) -> bool:
    return (t._device.type == "cpu" and _runtime.driver() is not None and bool(_blocks)
            and is_pinned_address(t.untyped_storage().data_ptr()))


def pin_batch(batch):
    """Every tensor in a DataLoader batch (nested lists, tuples, dicts, namedtuples, objects
    with a pin_memory method) pinned."""
    if hasattr(batch, "pin_memory") and callable(batch.pin_memory):
        return batch.pin_memory()
    if isinstance(batch, dict):
        return type(batch)({k: pin_batch(v) for k, v in batch.items()})
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(pin_batch(v) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(pin_batch(v) for v in batch)
    return batch
