"""CUDA runtime state: the driver, the current device and stream, one caching allocator per
device, and the device buffers that CUDA storages own.

    >>> t = empty_cuda(ember.device("cuda", 0), (2, 3), (3, 1), ember.float32)  # doctest: +SKIP
    >>> t.untyped_storage().nbytes()  # doctest: +SKIP
    24
"""
from __future__ import annotations

import collections
import contextlib
import itertools
import threading

import numpy as np

from . import _driver
from ._allocator import CachingAllocator

_UNSET = object()


class _State(threading.local):
    def __init__(self):
        self.device = 0      # the current device index (per thread, like torch)
        self.streams = {}    # device -> current Stream


_tls = _State()
_driver_box = [_UNSET]
_allocators: dict[int, CachingAllocator] = {}
_constants: collections.OrderedDict = collections.OrderedDict()   # (device, values) -> ptr
MAX_CONSTANTS = 4096
_stream_ids = itertools.count(1)


def driver():
    """The active driver or None (detected once; tests switch it with set_driver)."""
    d = _driver_box[0]
    if d is _UNSET:
        d = _driver_box[0] = _driver.detect()
    return d


def set_driver(d):
    """Installs a driver (or None) and returns the previous one; allocators start afresh."""
    old = _driver_box[0]
    _clear_constants()
    _driver_box[0] = d
    _allocators.clear()
    _tls.device = 0
    _tls.streams = {}
    return None if old is _UNSET else old


@contextlib.contextmanager
def using(d):
    """Runs a block with driver `d` (an EmulatorDriver, or None for "no device"), then puts
    the previous driver and its allocators back (tests)."""
    old, old_allocators = _driver_box[0], dict(_allocators)
    set_driver(d)
    try:
        yield d
    finally:
        _clear_constants()
        _driver_box[0] = old
        _allocators.clear()
        _allocators.update(old_allocators)


def constant_buffer(device: int, values: tuple) -> int:
    """A device array of int64 `values` (kernel layouts), cached by value: a training loop's
    launches reuse theirs without a copy. Taken from the driver directly, like torch's
    kernel arguments, so memory stats count tensors only."""
    key = (device, values)
    ptr = _constants.get(key)
    if ptr is not None:
        _constants.move_to_end(key)
        return ptr
    drv = require_driver()
    arr = np.array(values, np.int64)
    ptr = drv.malloc(arr.nbytes)
    drv.htod(ptr, arr)
    _constants[key] = ptr
    if len(_constants) > MAX_CONSTANTS:
        drv.free(_constants.popitem(last=False)[1])
    return ptr


def _clear_constants():
    d = _driver_box[0]
    if d is not None and d is not _UNSET:
        for ptr in _constants.values():
            d.free(ptr)
    _constants.clear()


def require_driver():
    d = driver()
    if d is None:
        raise RuntimeError("No CUDA GPUs are available")
    return d


def device_index(device=None) -> int:
    """A device argument (None, int, 'cuda:1', ember.device) -> its index, checked."""
    from ..core.device import device as device_cls
    if device is None:
        return _tls.device
    if isinstance(device, int):
        i = device
    else:
        d = device_cls(device)
        if d.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {d}")
        i = _tls.device if d.index is None else d.index
    n = require_driver().device_count
    if not 0 <= i < n:
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {i}, "
                           f"{n} device{'s' if n != 1 else ''} available)")
    return i


def set_device(i: int) -> None:
    _tls.device = i


def allocator(device: int) -> CachingAllocator:
    a = _allocators.get(device)
    if a is None:
        a = _allocators[device] = CachingAllocator(require_driver(), device)
    return a


DEFAULT_SEED = 67280421310721   # torch's default CUDA seed
_rng: dict[int, list] = {}       # device -> [seed, offset] of its Philox generator


def rng_state(device: int) -> list:
    st = _rng.get(device)
    if st is None:
        st = _rng[device] = [DEFAULT_SEED, 0]
    return st


def philox_step(device: int, increment: int = 1) -> tuple[int, int]:
    """(seed, offset) for one random kernel; later kernels get fresh offsets (each element
    draws from its own Philox block, so one offset per call is enough)."""
    st = rng_state(device)
    seed, offset = st
    st[1] += increment
    return seed, offset


class Stream:
    """A CUDA stream (the emulator runs every launch at once, so all streams are ordered)."""

    def __init__(self, device=None, priority: int = 0, *, _id=None):
        self.device_index = device_index(device)
        self.priority = priority
        self.cuda_stream = next(_stream_ids) if _id is None else _id

    @property
    def device(self):
        from ..core.device import device
        return device("cuda", self.device_index)

    def synchronize(self) -> None:
        require_driver().synchronize()

    def query(self) -> bool:
        return True

    def wait_stream(self, stream) -> None:
        pass

    def wait_event(self, event) -> None:
        pass

    def record_event(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.cuda_stream, self.device_index) == (
            other.cuda_stream, other.device_index)

    def __hash__(self):
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self):
        return (f"<ember.cuda.Stream device=cuda:{self.device_index} "
                f"cuda_stream={self.cuda_stream:#x}>")


def default_stream(device=None) -> Stream:
    return Stream(device, _id=0)


def current_stream(device=None) -> Stream:
    i = device_index(device)
    s = _tls.streams.get(i)
    return s if s is not None else default_stream(i)


def set_stream(stream: Stream) -> None:
    streams = dict(_tls.streams)
    streams[stream.device_index] = stream
    _tls.streams = streams


class Event:
    """A marker in a stream; `elapsed_time` in milliseconds between two timed events."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False):
        self.enable_timing = enable_timing
        self._time = None

    def record(self, stream=None) -> None:
        stream = stream or current_stream()
        self._time = require_driver().record_event(stream.cuda_stream)

    def query(self) -> bool:
        return self._time is None or require_driver().event_done(self._time)

    def synchronize(self) -> None:
        require_driver().synchronize()

    def wait(self, stream=None) -> None:
        pass

    def elapsed_time(self, end: Event) -> float:
        if not (self.enable_timing and end.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end._time - self._time) / 1e6


class DeviceBuffer:
    """The owner of a CUDA storage's bytes: a block of the device's caching allocator, given
    back when the storage dies."""

    __slots__ = ("__weakref__", "allocator", "block", "nbytes", "ptr")

    def __init__(self, device: int, nbytes: int):
        self.block, self.ptr = None, 0
        self.allocator = allocator(device)
        self.nbytes = nbytes
        if nbytes:
            self.block = self.allocator.malloc(nbytes, current_stream(device).cuda_stream)
            self.ptr = self.block.ptr

    def __del__(self):
        if self.block is not None:
            self.allocator.free(self.block)
            self.block = None


def empty_cuda(device, shape, stride, dt):
    """An uninitialised CUDA tensor with the given layout (ember.backends.allocator_for)."""
    from ..core.alloc import storage_nbytes
    from ..core.device import device as device_cls
    from ..core.storage import Storage
    from ..core.tensor import make_tensor
    i = device_index(device)
    nbytes = storage_nbytes(shape, stride, dt.itemsize)
    return make_tensor(Storage(DeviceBuffer(i, nbytes), nbytes, device_cls("cuda", i)),
                       tuple(shape), tuple(stride), 0, dt)
