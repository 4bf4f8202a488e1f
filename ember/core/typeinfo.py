"""`ember.finfo` / `ember.iinfo`: numeric limits of a dtype, as torch reports them.

    >>> ember.finfo(ember.bfloat16).eps
    0.0078125
    >>> ember.iinfo(ember.uint8).max
    255
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from . import dtype as D


class finfo:
    """Limits of a floating dtype (the default dtype when none is given); a complex dtype
    reports its real parts' dtype (complex64: float32), as torch."""

    def __init__(self, type: D.dtype | None = None):
        dt = D.get_default_dtype() if type is None else type
        if isinstance(dt, D.dtype):
            dt = dt.to_real()
        if not isinstance(dt, D.dtype) or dt.category != D.FLOAT:
            raise TypeError("ember.finfo() requires a floating point input type. Use "
                            "ember.iinfo to handle 'ember.finfo'")
        info = ml_dtypes.finfo(dt.np) if dt is D.bfloat16 else np.finfo(dt.np)
        self.dtype = dt.name
        self.bits = dt.itemsize * 8
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)  # torch: 10^-digits10

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer (or bool) dtype."""

    def __init__(self, type: D.dtype):
        if not isinstance(type, D.dtype) or type.category >= D.FLOAT:
            raise TypeError("ember.iinfo() requires an integer input type. Use ember.finfo to "
                            "handle 'ember.iinfo'")
        info = np.iinfo(np.uint8 if type is D.bool_ else type.np)
        self.dtype = type.name
        self.bits = type.itemsize * 8
        self.min = 0 if type is D.bool_ else int(info.min)
        self.max = 1 if type is D.bool_ else int(info.max)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
