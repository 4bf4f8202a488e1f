"""Complex views and conjugation written with other ops (CompositeImplicitAutograd), as
torch: `real`/`imag` select from `view_as_real`, and a real tensor is its own real part
and conjugate.

    >>> z = ember.tensor([1 + 2j, 3 - 1j])
    >>> real(z), imag(z), conj(z)
    (tensor([1., 3.]), tensor([ 2., -1.]), tensor([1.-2.j, 3.+1.j]))

`conj` of a complex tensor is a lazy view with the conjugate bit (`_conj`, see
ember/dispatch/conjugate.py); `resolve_conj` materialises it.
"""
from __future__ import annotations

import ember


def _pairs(self):
    """view_as_real of self's stored values (a conjugate view's unconjugated ones)."""
    return ember.view_as_real(ember.ops.aten._conj.default(self) if self.is_conj() else self)


def real(self):
    """The real parts (a view of a complex tensor; self for a real one)."""
    if not self._dtype.is_complex:
        return self
    return _pairs(self).select(-1, 0)


def imag(self):
    """The imaginary parts of a complex tensor: a view, except of a conjugate view (torch
    returns a lazily negated view there; ember, which has no negative bit, a new tensor)."""
    if not self._dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    parts = _pairs(self).select(-1, 1)
    return parts.neg() if self.is_conj() else parts


def conj(self):
    """The complex conjugate: a view with the conjugate bit (self for a real tensor)."""
    return ember.ops.aten._conj.default(self) if self._dtype.is_complex else self


def conj_physical(self):
    """The complex conjugate as a new tensor (self for a real tensor, as torch)."""
    return ember.ops.aten._conj_physical.default(self) if self._dtype.is_complex else self


def resolve_neg(self):
    """self: ember has no negative bit (torch's lazy negation), so nothing to resolve."""
    return self


def resolve_conj(self):
    """A conjugate-bit tensor's values materialised (a new tensor); self otherwise."""
    if not self.is_conj():
        return self
    return ember.ops.aten._conj_physical.default(ember.ops.aten._conj.default(self))
