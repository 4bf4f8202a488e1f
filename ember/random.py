"""Random number generators: `ember.Generator`, `ember.manual_seed`, the default generator
and its state (`get_rng_state`, `set_rng_state`, `fork_rng`).

A Generator wraps NumPy's PCG64 bit generator, so the same seed always gives the same
numbers (they differ from torch's, which uses a Mersenne Twister).

    >>> g = ember.Generator().manual_seed(0)
    >>> a = ember.rand(3, generator=g)
    >>> _ = g.manual_seed(0)
    >>> ember.rand(3, generator=g).tolist() == a.tolist()
    True
"""
from __future__ import annotations

import contextlib
import os

import numpy as np

from .core.device import device as _device

DEFAULT_SEED = 67280421310721  # torch's default CPU seed
_MASK64 = (1 << 64) - 1
_STATE_NBYTES = 16 + 16 + 1 + 4 + 8  # state, inc, has_uint32, uinteger, initial seed


class Generator:
    """A seeded source of random numbers for `ember.rand(..., generator=g)` and friends.

    >>> g = ember.Generator(device="cpu")
    >>> g.manual_seed(42).initial_seed()
    42
    """

    def __init__(self, device="cpu"):
        dev = _device(device)
        if dev.type == "meta":
            raise RuntimeError("META device type not an accelerator.")
        self.device = dev
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed) -> Generator:
        """Reseeds the generator (any int in [-2**63, 2**64); negatives wrap like torch)."""
        seed = int(seed)
        if not -(1 << 63) <= seed <= _MASK64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed & _MASK64
        self._rng = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def seed(self) -> int:
        """Reseeds from OS entropy and returns the new seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        """The generator state as a uint8 tensor (give it back to `set_state`)."""
        from .core.tensor import from_array
        st = self._rng.bit_generator.state
        raw = (st["state"]["state"].to_bytes(16, "little") + st["state"]["inc"].to_bytes(16, "little")
               + bytes([st["has_uint32"]]) + int(st["uinteger"]).to_bytes(4, "little")
               + self._seed.to_bytes(8, "little"))
        return from_array(np.frombuffer(raw, np.uint8).copy())

    def set_state(self, new_state) -> Generator:
        """Restores a state from `get_state()` (a uint8 tensor, or the same bytes)."""
        from .core.tensor import Tensor
        if isinstance(new_state, Tensor):
            if new_state.dtype.name != "uint8":
                raise TypeError(f"expected a ember.ByteTensor, but got a tensor of dtype "
                                f"{new_state.dtype}")
            raw = np.ascontiguousarray(new_state.numpy(force=True)).tobytes()
        elif isinstance(new_state, (bytes, bytearray)):
            raw = bytes(new_state)
        else:
            raise TypeError(f"expected a ember.ByteTensor, but got {type(new_state).__name__}")
        if len(raw) != _STATE_NBYTES:
            raise RuntimeError(f"Expected a PCG64 generator state of size {_STATE_NBYTES} but "
                               f"found the input RNG state size to be {len(raw)}")
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(raw[0:16], "little"),
                      "inc": int.from_bytes(raw[16:32], "little")},
            "has_uint32": raw[32],
            "uinteger": int.from_bytes(raw[33:37], "little"),
        }
        self._rng = rng
        self._seed = int.from_bytes(raw[37:45], "little")
        return self

    def clone_state(self) -> Generator:
        """A new generator in this one's state (they then draw the same numbers)."""
        g = Generator(self.device)
        return g.set_state(self.get_state())

    def __repr__(self):
        return f"<ember.Generator object at {hex(id(self))}>"


default_generator = Generator()


def manual_seed(seed) -> Generator:
    """Seeds the default generator and returns it.

    >>> ember.manual_seed(0) is ember.random.default_generator
    True
    """
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seeds the default generator from OS entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Restores the default generator's state on exit (torch.random.fork_rng; ember has
    only the CPU generator, so `devices` is accepted and ignored).

    >>> with ember.random.fork_rng():
    ...     _ = ember.rand(3)
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)

