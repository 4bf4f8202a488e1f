"""`ember.cuda`: torch.cuda's surface over ember's CUDA runtime.

A device exists when CuPy sees a GPU, or under the CPU emulator (EMBER_CUDA_EMULATOR=1,
kernels/cuda compiled for the host). Without either, it behaves as torch built without a
GPU: seeding and cache calls do nothing, memory counters read 0, device calls raise.

>>> import ember
>>> ember.cuda.is_available() in (True, False)
True
>>> ember.cuda.manual_seed_all(0)
"""
from . import _runtime, amp
from ._allocator import OutOfMemoryError
from ._runtime import Event, Stream

__all__ = ["Event", "OutOfMemoryError", "Stream", "amp", "current_device", "current_stream",
           "default_stream", "device", "device_count", "empty_cache", "get_device_name",
           "get_device_properties", "is_available", "manual_seed", "manual_seed_all",
           "max_memory_allocated", "max_memory_reserved", "mem_get_info", "memory_allocated",
           "memory_reserved", "memory_stats", "memory_summary", "reset_peak_memory_stats",
           "set_device", "stream", "synchronize"]

def _no_device():
    raise RuntimeError("No CUDA GPUs are available")


def is_available() -> bool:
    return _runtime.driver() is not None


def is_initialized() -> bool:
    return bool(_runtime._allocators)


def device_count() -> int:
    d = _runtime.driver()
    return d.device_count if d is not None else 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return is_available()


def current_device() -> int:
    _runtime.require_driver()
    return _runtime._tls.device


def set_device(device) -> None:
    _runtime.set_device(_runtime.device_index(device))


class device:
    """Context manager that makes `device` current: `with ember.cuda.device(1): ...`."""

    def __init__(self, device):
        self.idx = -1 if device is None else _runtime.device_index(device)
        self.prev = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev = _runtime._tls.device
            _runtime.set_device(self.idx)

    def __exit__(self, *exc):
        if self.prev >= 0:
            _runtime.set_device(self.prev)
        return False


def synchronize(device=None) -> None:
    _runtime.require_driver().synchronize()


def get_device_name(device=None) -> str:
    return get_device_properties(device).name


class _DeviceProperties:
    def __init__(self, props: dict):
        self.__dict__.update(props)

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}"
                f", total_memory={self.total_memory >> 20}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    i = _runtime.device_index(device)
    return _DeviceProperties(_runtime.require_driver().properties(i))


def get_device_capability(device=None) -> tuple[int, int]:
    p = get_device_properties(device)
    return p.major, p.minor


# --- streams and events -------------------------------------------------------------------
current_stream = _runtime.current_stream
default_stream = _runtime.default_stream
set_stream = _runtime.set_stream


class stream:
    """Context manager that makes `stream` current on its device (None: no change)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev = None

    def __enter__(self):
        if self.stream is not None:
            self.prev = current_stream(self.stream.device_index)
            set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self.prev is not None:
            set_stream(self.prev)
        return False


# --- random -------------------------------------------------------------------------------
def manual_seed(seed: int) -> None:
    """Seeds the current device's Philox generator (nothing to seed without a device)."""
    seed = int(seed)
    if is_available():
        _runtime.rng_state(_runtime._tls.device)[:] = [seed & (2 ** 64 - 1), 0]


def manual_seed_all(seed: int) -> None:
    seed = int(seed)
    for i in range(device_count()):
        _runtime.rng_state(i)[:] = [seed & (2 ** 64 - 1), 0]


def seed() -> None:
    """Seeds the current device with a random number."""
    if is_available():
        import random
        manual_seed(random.getrandbits(63))


def seed_all() -> None:
    if is_available():
        import random
        manual_seed_all(random.getrandbits(63))


def initial_seed() -> int:
    _runtime.require_driver()
    return _runtime.rng_state(_runtime._tls.device)[0]


def get_rng_state(device="cuda"):
    """The generator's state as a uint8 tensor (seed and offset, 8 bytes each, like torch)."""
    import numpy as np

    import ember
    st = _runtime.rng_state(_runtime.device_index(device))
    return ember.tensor(list(np.array(st, np.uint64).view(np.uint8)), dtype=ember.uint8)


def set_rng_state(new_state, device="cuda") -> None:
    import numpy as np
    st = np.asarray(new_state.tolist(), np.uint8).view(np.uint64)
    _runtime.rng_state(_runtime.device_index(device))[:] = [int(st[0]), int(st[1])]


# --- memory -------------------------------------------------------------------------------
def _alloc_of(device):
    return _runtime.allocator(_runtime.device_index(device))


def _stat(name: str, field: str, device) -> int:
    if not is_available():
        return 0
    return getattr(_alloc_of(device).stats[name][0], field)


def memory_allocated(device=None) -> int:
    return _stat("allocated_bytes", "current", device)


def max_memory_allocated(device=None) -> int:
    return _stat("allocated_bytes", "peak", device)


def memory_reserved(device=None) -> int:
    return _stat("reserved_bytes", "current", device)


def max_memory_reserved(device=None) -> int:
    return _stat("reserved_bytes", "peak", device)


def memory_stats(device=None) -> dict:
    """torch.cuda.memory_stats's keys ('allocated_bytes.all.current', ...); {} without a device."""
    return _alloc_of(device).memory_stats() if is_available() else {}


def reset_peak_memory_stats(device=None) -> None:
    _alloc_of(device).reset_peak_stats()


def reset_accumulated_memory_stats(device=None) -> None:
    _alloc_of(device).reset_accumulated_stats()


def empty_cache() -> None:
    """Returns the cached, wholly free segments of every device to the driver."""
    for a in list(_runtime._allocators.values()):
        a.empty_cache()


def mem_get_info(device=None) -> tuple[int, int]:
    _runtime.device_index(device)
    return _runtime.require_driver().mem_get_info()


def memory_snapshot() -> list[dict]:
    return _snapshot()["segments"]


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """torch.cuda.memory_summary's table of the allocator's statistics."""
    from ._summary import summary
    i = _runtime.device_index(device)
    return summary(memory_stats(i), i, abbreviated)


class memory:
    """`ember.cuda.memory._record_memory_history` / `_snapshot` (torch's private spelling)."""

    @staticmethod
    def _record_memory_history(enabled="all", context="all", stacks="all",
                               max_entries: int = 100000, device=None) -> None:
        _alloc_of(device).record_history(bool(enabled), max_entries)

    @staticmethod
    def _snapshot(device=None) -> dict:
        """Segments and trace in torch's snapshot format (pickle it for pytorch.org/memory_viz)."""
        segments, traces = [], []
        for i, a in sorted(_runtime._allocators.items()):
            segments += a.segments()
            while len(traces) <= i:
                traces.append([])
            traces[i] = list(a.history or [])
        return {"segments": segments, "device_traces": traces}

    @staticmethod
    def _dump_snapshot(filename: str = "dump_snapshot.pickle") -> None:
        import pickle
        with open(filename, "wb") as f:
            pickle.dump(memory._snapshot(), f)


_record_memory_history = memory._record_memory_history
_snapshot = memory._snapshot
