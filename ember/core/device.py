"""Devices: `ember.device("cpu")`, `ember.device("cuda", 0)`, `ember.device("meta")`.

    >>> ember.device("cuda:1")
    device(type='cuda', index=1)
"""
from __future__ import annotations

from typing import ClassVar

DEVICE_TYPES = ("cpu", "cuda", "meta")


class device:
    """Where a tensor's data lives. Instances are interned: one object per (type, index)."""

    __slots__ = ("_str", "index", "type")
    _cache: ClassVar[dict] = {}

    def __new__(cls, type_or_str, index=None):
        if isinstance(type_or_str, device):
            if index is not None:
                raise TypeError("device(): an index cannot be given with a device object")
            return type_or_str
        key = (type_or_str, index)
        hit = cls._cache.get(key)
        if hit is not None:
            return hit
        if isinstance(type_or_str, int) and index is None:  # ember.device(0) is cuda:0
            t, i = "cuda", type_or_str
        elif isinstance(type_or_str, str):
            t, _, rest = type_or_str.partition(":")
            i = index
            if rest:
                if index is not None:
                    raise RuntimeError(f"type (string) must not include an index because index "
                                       f"was passed explicitly: {type_or_str}")
                if not rest.isdigit():
                    raise RuntimeError(f"Invalid device string: '{type_or_str}'")
                i = int(rest)
        else:
            raise TypeError(f"device() received an invalid combination of arguments: {type_or_str!r}")
        if t not in DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start "
                               f"of device string: {type_or_str}")
        if i is not None and (not isinstance(i, int) or i < 0):
            raise RuntimeError(f"Device index must not be negative, got {i}")
        canon = cls._cache.get((t, i))
        if canon is None:
            canon = object.__new__(cls)
            object.__setattr__(canon, "type", t)
            object.__setattr__(canon, "index", i)
            object.__setattr__(canon, "_str", t if i is None else f"{t}:{i}")
            cls._cache[(t, i)] = canon
        cls._cache[key] = canon
        return canon

    def __setattr__(self, name, value):
        raise AttributeError("device objects are immutable")

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self._str

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")
META = device("meta")


def as_device(d) -> device | None:
    """Normalises a `device=` argument (str, int, device or None)."""
    if d is None or d.__class__ is device:
        return d
    return device(d)
