"""`ember.cuda`: the CPU-safe surface of `torch.cuda`.

The CUDA backend is not built yet, so no device is ever available. What a script calls
unconditionally still works as on a torch build without a GPU: seeding and cache calls
do nothing, memory counters read 0; whatever needs a device raises.

>>> import ember
>>> ember.cuda.is_available(), ember.cuda.device_count()
(False, 0)
>>> ember.cuda.manual_seed_all(0)
"""
from . import amp  # noqa: F401


def _no_device():
    raise RuntimeError("No CUDA GPUs are available")


def is_available() -> bool:
    return False


def is_initialized() -> bool:
    return False


def device_count() -> int:
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Seeds the current device's generator; without a device there is nothing to seed."""
    int(seed)


def manual_seed_all(seed: int) -> None:
    int(seed)


def seed() -> None:
    pass


def seed_all() -> None:
    pass


def empty_cache() -> None:
    pass


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


def synchronize(device=None) -> None:
    _no_device()


def current_device() -> int:
    _no_device()


def set_device(device) -> None:
    _no_device()


def get_device_name(device=None) -> str:
    _no_device()


def get_rng_state(device="cuda"):
    _no_device()


def initial_seed() -> int:
    _no_device()
