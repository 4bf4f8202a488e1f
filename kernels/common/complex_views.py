"""Device-generic views between complex tensors and their real pairs (view_as_real,
view_as_complex): the same storage read with the real or the complex dtype, strides
scaled by two, with torch's checks.

    >>> z = ember.tensor([1 + 2j, 3 - 1j])
    >>> view_as_real(z), view_as_real(z).stride()
    (tensor([[ 1.,  2.],
            [ 3., -1.]]), (2, 1))
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.tensor import make_view
from ember.dispatch import keys as K


def view_as_real(self):
    """A complex tensor's (real, imag) pairs as a last dim of size 2 (a view)."""
    if not self._dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if self._ks & K.CONJ_BIT:
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To "
                           "resolve the conjugate tensor so you can view it as real, use "
                           "self.resolve_conj(); however, be warned that the resulting tensor "
                           "will NOT alias the original.")
    return make_view(self, (*self._shape, 2), (*(2 * s for s in self.stride()), 1),
                     2 * self._offset, self._dtype.to_real())


def view_as_complex(self):
    """A float tensor whose last dim holds (real, imag) pairs read as complex (a view)."""
    dt = self._dtype
    if dt not in (D.float32, D.float64):
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {dt.scalar_name}")
    if not self._shape:
        raise RuntimeError("Input tensor must have one or more dimensions")
    stride = self.stride()
    if self._shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return make_view(self, self._shape[:-1], tuple(s // 2 for s in stride[:-1]),
                     self._offset // 2, dt.to_complex())


def conj_view(self):
    """`_conj`: a view of self with the conjugate bit flipped (ember.dispatch.conjugate);
    complex tensors only (torch asserts; `conj` gives real tensors back unchanged)."""
    if not self._dtype.is_complex:
        raise RuntimeError(f"_conj expects a complex tensor, but got {self._dtype.scalar_name}")
    v = make_view(self, self._shape, self.stride(), self._offset)
    v._ks ^= K.CONJ_BIT
    return v
