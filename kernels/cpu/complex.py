"""CPU kernels of the complex ops, over NumPy; layouts and checks come from
kernels/meta/complex.py.

    >>> from ember.core.tensor import from_array
    >>> angle(from_array(np.array([1j, -1.0]))).numpy()
    array([1.57079633, 3.14159265])
"""
from __future__ import annotations

import numpy as np

from ember.kernels.cpu._pointwise import _run
from ember.kernels.meta import complex as M
from ember.kernels.meta import unary as MU


def real_valued(fn, self):
    """`fn` of a complex tensor into a tensor of its real dtype (abs)."""
    return _run(fn, M.abs_layout(self), (self,), self._dtype)


def conj_physical(self):
    """The complex conjugate as a new tensor (_conj_physical)."""
    return _run(np.conjugate, MU.same_layout(self), (self,), self._dtype)


def angle(self):
    """The argument of each element: atan2(imag, real); for reals 0, pi for negatives,
    NaN kept (torch's)."""
    lay = M.angle_layout(self)
    if self._dtype.is_complex:
        return _run(np.angle, lay, (self,), self._dtype)
    return _run(lambda a: np.where(np.isnan(a), a, np.where(a < 0, np.pi, 0.0)), lay, (self,))


def _sgn(a):
    """z / |z|, 0 for 0 (torch's sgn); the sign of a real array."""
    if a.dtype.kind != "c":
        return np.sign(a)
    m = np.abs(a)
    return np.where(m == 0, 0, a / np.where(m == 0, 1, m))


def sgn(self):
    if not self._dtype.is_complex:
        return self.sign()
    return _run(_sgn, MU.same_layout(self), (self,), self._dtype)


def polar(abs, angle):
    """abs * (cos(angle) + i sin(angle))."""
    lay = M.pair_layout(abs, angle)
    return _run(lambda r, t: r * np.cos(t) + 1j * (r * np.sin(t)), lay, (abs, angle),
                abs._dtype)


def complex(real, imag):
    """real + i imag."""
    lay = M.pair_layout(real, imag)
    return _run(lambda r, i: r + 1j * i, lay, (real, imag), real._dtype)
