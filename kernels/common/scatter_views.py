"""slice_scatter, select_scatter, diagonal_scatter and as_strided_scatter for every device
(shape family): a copy of self keeping its strides and storage offset (torch's
clone_preserve_strides), with `src` copied into the view the op names.

    >>> ember.select_scatter(ember.zeros(2, 2), ember.ones(2), 0, 0).tolist()
    [[1.0, 1.0], [0.0, 0.0]]
"""
from __future__ import annotations

import ember


def _clone_preserve_strides(self):
    """A copy of self's whole storage viewed like self (same strides and offset); a plain
    clone when self has internal overlap (expanded dims)."""
    if any(s == 0 and n > 1 for n, s in zip(self._shape, self.stride())):
        return self.clone()
    n = self.untyped_storage().nbytes() // self._dtype.itemsize
    full = self.as_strided((n,), (1,), 0).clone()
    return full.as_strided(self._shape, self.stride(), self.storage_offset())


def _check_src(view, src):
    if tuple(view._shape) != tuple(src._shape):
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._shape)}, slice size = {list(view._shape)}")


def _scatter(self, src, view_of):
    """A strides-preserving copy of self with src copied into view_of(copy); the arguments
    are checked on a view of self first (torch's order)."""
    _check_src(view_of(self), src)
    out = _clone_preserve_strides(self)
    view_of(out).copy_(src)
    return out


def slice_scatter(self, src, dim, start, end, step):
    return _scatter(self, src, lambda t: t.slice(dim, start, end, step))


def select_scatter(self, src, dim, index):
    return _scatter(self, src, lambda t: t.select(dim, index))


def diagonal_scatter(self, src, offset, dim1, dim2):
    return _scatter(self, src, lambda t: t.diagonal(offset, dim1, dim2))


def as_strided_scatter(self, src, size, stride, storage_offset):
    if self.requires_grad and not self.is_contiguous():   # torch's backward assumes it
        raise RuntimeError("!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT "
                           "FAILED: as_strided_scatter is currently only supported for "
                           "contiguous inputs")
    out = _clone_preserve_strides(self)
    view = out.as_strided(size, stride, storage_offset)
    _check_src(view, src)
    view.copy_(src)
    return out


# --- out-of-place forms of in-place indexing ops ---------------------------------------------------
def index_fill(self, dim, index, value):
    """A copy of self (same layout) with the indexed slices along dim set to value."""
    return self.clone().index_fill_(dim, index, value)


def masked_scatter(self, mask, source):
    """self and mask broadcast together, copied contiguously, then masked_scatter_."""
    shape = tuple(ember.broadcast_shapes(self._shape, mask._shape))
    return self.expand(shape).clone(memory_format=ember.contiguous_format).masked_scatter_(
        mask.expand(shape), source)


def put(self, index, source, accumulate):
    return self.clone().put_(index, source, accumulate)
