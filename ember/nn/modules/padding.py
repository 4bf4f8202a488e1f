"""Padding layers over F.pad: ZeroPad, ConstantPad, ReflectionPad, ReplicationPad and
CircularPad in 1, 2 and 3 d. An int pads every side; a tuple lists (left, right, top,
bottom, front, back) from the last dim back, as F.pad does.

    >>> ember.nn.ReflectionPad2d((1, 1, 2, 0))(ember.randn(1, 3, 4, 4)).shape
    ember.Size([1, 3, 6, 6])
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
    "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
    "ZeroPad3d",
]


class _PadNd(Module):
    """F.pad(input, self.padding, mode) (subclasses set _dims and _mode)."""

    _dims = 0
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        n = 2 * self._dims
        self.padding = (padding,) * n if isinstance(padding, int) else tuple(padding)
        if len(self.padding) != n:
            raise ValueError(f"padding must be an int or a tuple of {n} ints")

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


def _layer(base, dims, mode, doc):
    name = {"constant": "ConstantPad", "reflect": "ReflectionPad", "replicate": "ReplicationPad",
            "circular": "CircularPad", "zeros": "ZeroPad"}[mode] + f"{dims}d"
    return type(name, (base,), {"_dims": dims, "_mode": "constant" if mode == "zeros" else mode,
                                "__module__": __name__, "__doc__": doc})


ConstantPad1d = _layer(_ConstantPadNd, 1, "constant", "Pad the last dim with a value.")
ConstantPad2d = _layer(_ConstantPadNd, 2, "constant", "Pad the last 2 dims with a value.")
ConstantPad3d = _layer(_ConstantPadNd, 3, "constant", "Pad the last 3 dims with a value.")
ZeroPad1d = _layer(_ZeroPadNd, 1, "zeros", "Pad the last dim with zeros.")
ZeroPad2d = _layer(_ZeroPadNd, 2, "zeros", "Pad the last 2 dims with zeros.")
ZeroPad3d = _layer(_ZeroPadNd, 3, "zeros", "Pad the last 3 dims with zeros.")
ReflectionPad1d = _layer(_PadNd, 1, "reflect", "Pad the last dim with its reflection.")
ReflectionPad2d = _layer(_PadNd, 2, "reflect", "Pad the last 2 dims with their reflection.")
ReflectionPad3d = _layer(_PadNd, 3, "reflect", "Pad the last 3 dims with their reflection.")
ReplicationPad1d = _layer(_PadNd, 1, "replicate", "Pad the last dim with its edge values.")
ReplicationPad2d = _layer(_PadNd, 2, "replicate", "Pad the last 2 dims with edge values.")
ReplicationPad3d = _layer(_PadNd, 3, "replicate", "Pad the last 3 dims with edge values.")
CircularPad1d = _layer(_PadNd, 1, "circular", "Pad the last dim by wrapping around.")
CircularPad2d = _layer(_PadNd, 2, "circular", "Pad the last 2 dims by wrapping around.")
CircularPad3d = _layer(_PadNd, 3, "circular", "Pad the last 3 dims by wrapping around.")
