"""View-like ops written with other ember ops (CompositeImplicitAutograd), so they work
on every backend.

    >>> x = ember.arange(24.0).view(2, 3, 4)
    >>> x.flatten(1).shape, x.movedim(0, -1).shape, [c.shape[1] for c in x.chunk(2, 1)]
    (ember.Size([2, 12]), ember.Size([3, 4, 2]), [2, 1])

Error types and messages follow torch.
"""
from __future__ import annotations

import operator
import warnings

import ember
from ember._generated import ops as _ops
from ember.core.sym import index_or_symint
from ember.core.tensor import contiguous_strides
from ember.dispatch import keys as K
from ember.dispatch.tls import state as _tls
from ember.kernels.common import _view_rules as R

_index = operator.index


def reshape(self, shape):
    """A view when the strides allow one (see `view`), else a contiguous copy reshaped.

    >>> y = ember.arange(6.0).view(2, 3).t().reshape(6)     # copied: not a view
    >>> y.is_contiguous(), y._is_view()
    (True, False)
    """
    old_shape, old_stride = self._shape, self._stride or self.stride()
    if old_stride == contiguous_strides(old_shape):
        return _ops._entry_view(self, shape)     # (view resolves the shape, with its errors)
    numel = 1
    for n in old_shape:
        numel *= n
    shape = R.view_shape(shape, numel)
    stride = R.compute_stride(old_shape, old_stride, shape)
    if stride is None:
        # torch's copy: clone, then _unsafe_view (a plain tensor, UnsafeViewBackward0)
        copy = _ops._entry_clone(self, ember.contiguous_format)
        return _ops._entry__unsafe_view(copy, shape)
    if _subclass_like(self):
        return _ops._entry_view(self, shape)     # (the entry: no overload to resolve)
    return _ops._entry__reshape_alias(self, shape, stride)     # (torch's ReshapeAliasBackward0)


_SUBCLASS_KEYS = K.PYTHON_BIT | K.bit(K.Functionalize)


def _subclass_like(t) -> bool:
    """torch's isTensorSubclassLike, as reshape reads it: a __torch_dispatch__ subclass or a
    functional tensor, or any dispatch mode (or pre-dispatch tracing) active: those see
    view rather than the internal _reshape_alias."""
    return bool(t._ks & _SUBCLASS_KEYS or _tls.dispatch_modes
                or _tls.masks[0] & _TRACING_KEYS)


_TRACING_KEYS = K.PYTHON_BIT | K.bit(K.PreDispatch)


def view_as(self, other):
    """`self.view(other.shape)`."""
    return self.view(other.shape)


def reshape_as(self, other):
    """`self.reshape(other.shape)`."""
    return self.reshape(other.shape)


def adjoint(self):
    """The conjugate transpose of the last two dims."""
    if self.dim() == 1:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of "
                           "matrices. Got 1-D tensor.")
    if self.dim() == 0:
        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning, stacklevel=2)
        return self.conj()      # (a real self itself, as torch: no view, no node)
    return self.transpose(-2, -1).conj()


def expand_as(self, other):
    """`self.expand(other.shape)`."""
    return self.expand(other.shape)


def narrow(self, dim, start, length):
    """`length` elements of `dim` from `start` (which may be negative).

    >>> ember.arange(5.0).narrow(0, -3, 2).tolist()
    [2.0, 3.0]
    """
    if self.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    start, length = index_or_symint(start), index_or_symint(length)    # (SymInts kept)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    n = self.size(dim)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], "
                         f"but got {start})")
    if start < 0:
        start += n
    if start > n - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return ember.slice(self, dim, start, start + length, 1)


def split_sizes(self, split_size, dim=0):
    """`x.split([1, 2])`: the list form of split is split_with_sizes.

    >>> [p.shape for p in ember.arange(3).split([1, 2])]
    [ember.Size([1]), ember.Size([2])]
    """
    return ember.split_with_sizes(self, split_size, dim)


def chunk(self, chunks, dim):
    """At most `chunks` pieces of ceil(size / chunks) along `dim` (fewer when the size
    does not fill them).

    >>> [c.numel() for c in ember.arange(5.0).chunk(4)]
    [2, 2, 1]
    """
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    chunks = _index(chunks)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = self.size(dim)
    split_size = -(-n // chunks)
    if n == 0:
        # split() would give a single piece; torch gives `chunks` empty pieces
        return ember.split_with_sizes(self, [0] * chunks, dim)
    return ember.split(self, split_size, dim)


def unsafe_split(self, split_size, dim=0):
    """torch's unsafe_split: split's pieces (torch leaves them untracked as views)."""
    return ember.split(self, split_size, dim)


def unsafe_split_with_sizes(self, split_sizes, dim=0):
    return ember.split_with_sizes(self, split_sizes, dim)


def unsafe_chunk(self, chunks, dim=0):
    return chunk(self, chunks, dim)


def flatten(self, start_dim, end_dim):
    """Merges dims start_dim..end_dim into one (a view when possible, like reshape).
    A 0-d tensor becomes 1-d; when there is nothing to merge, self is returned.

    >>> ember.zeros(2, 3, 4).flatten(0, 1).shape
    ember.Size([6, 4])
    """
    ndim = len(self._shape)
    start, end = R.wrap(start_dim, ndim), R.wrap(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if ndim == 0:
        return _ops._entry_reshape(self, (1,))
    if start == end:
        return self
    shape = self._shape
    merged = 1
    for n in shape[start:end + 1]:
        merged *= n
    return _ops._entry_reshape(self, shape[:start] + (merged,) + shape[end + 1:])


def unflatten(self, dim, sizes):
    """Splits `dim` into `sizes` (one may be -1).

    >>> ember.zeros(2, 12).unflatten(1, (3, -1)).shape
    ember.Size([2, 3, 4])
    """
    ndim = len(self._shape)
    d = R.wrap(dim, ndim)
    sizes = R.int_list(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if ndim == 0:
        raise RuntimeError("unflatten got an unexpected error:\n"
                           "Dimension specified as 0 but tensor has no dimensions")
    n = self._shape[d]
    try:
        inferred = R.infer_size(sizes, n)
    except RuntimeError as e:
        if "is invalid for input of size" in str(e):
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to "
                               f"the size of dim {d} ({n}) in the input tensor") from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    shape = self._shape
    return _ops._entry_view(self, shape[:d] + inferred + shape[d + 1:])


def movedim_intlist(self, source, destination):
    """Moves the dims `source` to the positions `destination`; the others keep their
    order. A permute.

    >>> ember.zeros(2, 3, 4).movedim([0, 1], [2, 0]).shape
    ember.Size([3, 4, 2])
    """
    src, dst = R.int_list(source), R.int_list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({list(dst)} dims)")
    ndim = self.dim()
    nsrc = [R.wrap(d, ndim) for d in src]
    ndst = [R.wrap(d, ndim) for d in dst]
    if len(set(nsrc)) != len(nsrc):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(src)})")
    if len(set(ndst)) != len(ndst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(dst)})")
    if ndim == 0:
        return self.alias()
    order = [None] * ndim
    for s, d in zip(nsrc, ndst):
        order[d] = s
    rest_src = iter(d for d in range(ndim) if d not in nsrc)
    order = [next(rest_src) if o is None else o for o in order]
    return self.permute(order)


def movedim(self, source, destination):
    """`movedim` of a single dim."""
    return movedim_intlist(self, [source], [destination])
