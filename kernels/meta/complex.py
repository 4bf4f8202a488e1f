"""Meta kernels (layouts and torch's dtype checks) of the complex ops, shared with
kernels/cpu/complex.py.

    >>> from ember.core.alloc import empty_meta
    >>> polar(empty_meta((2,), D.float64), empty_meta((2,), D.float64)).dtype
    ember.complex128
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.tensor import contiguous_strides
from ember.kernels.common import _pointwise as P
from ember.kernels.meta._pointwise import Layout, _layout, _meta


def angle_layout(self) -> Layout:
    """angle: real result; integral inputs give the default float dtype. torch computes a
    complex input's angle into a complex temporary and copies it out: contiguous."""
    if self._dtype.is_complex:
        P.check_same_device(self)
        return Layout(self._shape, contiguous_strides(self._shape), self._dtype.to_real())
    dt = P.float_result(self._dtype)
    return _layout(dt, self, cast_to=dt)


def abs_layout(self) -> Layout:
    """abs of a complex tensor: its real dtype."""
    return _layout(self._dtype.to_real(), self)


def pair_layout(first, second) -> Layout:
    """polar(abs, angle) / complex(real, imag): two float tensors of one dtype, broadcast,
    giving its complex dtype."""
    a, b = first._dtype, second._dtype
    if a not in (D.float16, D.float32, D.float64) or b not in (D.float16, D.float32, D.float64):
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{a.scalar_name} and {b.scalar_name}")
    if a is not b:
        raise RuntimeError(f"Expected object of scalar type {a.scalar_name} but got scalar type "
                           f"{b.scalar_name} for second argument")
    return _layout(a.to_complex(), first, second)


def angle(self):
    return _meta(angle_layout(self))


def polar(abs, angle):
    return _meta(pair_layout(abs, angle))


complex = polar
