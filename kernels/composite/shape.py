"""Decompositions of the shape family into other ember ops: tile (repeat),
argsort/msort (sort), take_along_dim (gather), rot90/fliplr/flipud (flip), splits and stacks,
diag/diag_embed, repeat_interleave (index_select), meshgrid (view + expand).

    >>> ember.tile(ember.tensor([1, 2]), (2,)).tolist()
    [1, 2, 1, 2]
"""
import itertools
import warnings

import numpy as np

import ember
from ember.core.shapes import wrap_dim


def tile(self, dims):
    """`ember.tile(x, dims)`: repeat, with dims padded by leading 1s to self's rank."""
    dims = list(dims)
    if len(dims) < self.dim():
        dims = [1] * (self.dim() - len(dims)) + dims
    return self.repeat(dims)


def argsort(self, dim, descending):
    return ember.ops.aten.sort.default(self, dim, descending)[1]


def argsort_stable(self, stable, dim, descending):
    return ember.ops.aten.sort.stable(self, stable=stable, dim=dim, descending=descending)[1]


def take_along_dim(self, indices, dim):
    """gather along dim after broadcasting self and indices over the other dims; dim=None
    reads the flattened self. Like torch, indices along a dim wrap around its size (-1 is
    the last, size the first)."""
    if dim is None:
        return self.view(-1).gather(0, indices.view(-1))
    if self.dim() != indices.dim():
        raise RuntimeError("ember.take_along_dim(): input and indices should have the same number "
                           f"of dimensions, but got {self.dim()} dimensions for input, and "
                           f"{indices.dim()} dimensions for indices")
    if indices.dtype is not ember.int64:
        raise RuntimeError("ember.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype.scalar_name}")
    dim = wrap_dim(dim, self.dim())
    if self.dim() == 0:   # (torch: the wrapped dim's later use on the 0-d tensors)
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    sizes = list(self.shape)
    sizes[dim] = indices.shape[dim]
    shape = list(ember.broadcast_shapes(sizes, indices.shape))
    n = self.shape[dim]
    if n == 0 and indices.numel():
        raise RuntimeError("ZeroDivisionError")
    idx = indices.expand(shape).remainder(max(n, 1))
    shape[dim] = n
    return self.expand(shape).gather(dim, idx)


def argwhere(self):
    return self.nonzero()


def fliplr(self):
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return self.flip([1])


def flipud(self):
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return self.flip([0])


def rot90(self, k, dims):
    """Rotation by 90 degrees k times in the plane of dims (torch's flip/transpose steps)."""
    dims = list(dims)
    total = self.dim()
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if total < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {total}")
    d0, d1 = dims
    w0, w1 = wrap_dim(d0, total), wrap_dim(d1, total)   # torch's IndexError first
    if w0 == w1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    k = k % 4
    if k == 1:
        return self.flip([d1]).transpose(d0, d1)
    if k == 2:
        return self.flip(dims)
    if k == 3:
        return self.flip([d0]).transpose(d0, d1)
    return self.clone(memory_format=ember.contiguous_format)


def msort(self):
    return ember.ops.aten.sort.default(self, 0)[0]


# --- aliases, splits, stacks (torch's CompositeImplicitAutograd decompositions) -------------------
def swapaxes(self, axis0, axis1):
    return self.transpose(axis0, axis1)


def swapdims(self, dim0, dim1):
    return self.transpose(dim0, dim1)


def moveaxis_intlist(self, source, destination):
    return self.movedim(source, destination)


def moveaxis(self, source, destination):
    return self.movedim(source, destination)


def ravel(self):
    return self.contiguous().view(-1)


def narrow_copy(self, dim, start, length):
    return self.narrow(dim, start, length).clone(memory_format=ember.contiguous_format)


def _split_input(self):
    if self.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           f"tensor with {self.dim()} dims")


def tensor_split_sections(self, sections, dim):
    _split_input(self)
    d = wrap_dim(dim, self.dim())
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    size = self.shape[d]
    base, extra = divmod(size, sections)
    out, start = [], 0
    for i in range(sections):
        n = base + 1 if i < extra else base
        out.append(self.slice(d, start, start + n))
        start += n
    return out


def tensor_split_indices(self, indices, dim):
    _split_input(self)
    d = wrap_dim(dim, self.dim())
    out, start = [], 0
    for end in indices:
        out.append(self.slice(d, start, end))
        start = end
    out.append(self.slice(d, start, self.shape[d]))
    return out


def tensor_split_tensor(self, tensor_indices_or_sections, dim):
    _split_input(self)
    t = tensor_indices_or_sections
    if t.device.type != "cpu":
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to be on cpu, but "
                           f"it's on {t.device}")
    if t.dtype is not ember.int64:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of "
                           f"long, but got {t.dtype.scalar_name}")
    if t.dim() > 1:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                           "zero-dimensional or one-dimensional tensor, but got a tensor with "
                           f"{t.dim()} dims")
    if t.dim() == 0:
        return tensor_split_sections(self, int(t.item()), dim)
    return tensor_split_indices(self, [int(v) for v in t.tolist()], dim)


def _xsplit_check(self, name, ndim, dim, sections=None):
    if self.dim() < ndim:
        raise RuntimeError(f"ember.{name} requires a tensor with at least {ndim} dimension, but "
                           f"got a tensor with {self.dim()} dimensions!")
    if sections is not None and (sections == 0 or self.shape[dim] % sections != 0):
        raise RuntimeError(f"ember.{name} attempted to split along dimension {dim}, but the size "
                           f"of the dimension {self.shape[dim]} is not divisible by the split_size "
                           f"{sections}!")


def hsplit_int(self, sections):
    dim = 0 if self.dim() == 1 else 1
    _xsplit_check(self, "hsplit", 1, dim, sections)
    return tensor_split_sections(self, sections, dim)


def hsplit_array(self, indices):
    _xsplit_check(self, "hsplit", 1, 0)
    return tensor_split_indices(self, indices, 0 if self.dim() == 1 else 1)


def vsplit_int(self, sections):
    _xsplit_check(self, "vsplit", 2, 0, sections)
    return tensor_split_sections(self, sections, 0)


def vsplit_array(self, indices):
    _xsplit_check(self, "vsplit", 2, 0)
    return tensor_split_indices(self, indices, 0)


def dsplit_int(self, sections):
    _xsplit_check(self, "dsplit", 3, 2, sections)
    return tensor_split_sections(self, sections, 2)


def dsplit_array(self, indices):
    _xsplit_check(self, "dsplit", 3, 2)
    return tensor_split_indices(self, indices, 2)


def atleast_1d(self):
    return self.reshape(1) if self.dim() == 0 else self


def atleast_2d(self):
    if self.dim() == 0:
        return self.reshape(1, 1)
    return self.unsqueeze(0) if self.dim() == 1 else self


def atleast_3d(self):
    if self.dim() == 0:
        return self.reshape(1, 1, 1)
    if self.dim() == 1:
        return self.unsqueeze(0).unsqueeze(-1)
    return self.unsqueeze(-1) if self.dim() == 2 else self


def atleast_1d_sequence(tensors):
    return [atleast_1d(t) for t in tensors]


def atleast_2d_sequence(tensors):
    return [atleast_2d(t) for t in tensors]


def atleast_3d_sequence(tensors):
    return [atleast_3d(t) for t in tensors]


def _nonempty(tensors, name):
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


def hstack(tensors):
    _nonempty(tensors, "hstack")
    rep = atleast_1d_sequence(tensors)
    return ember.cat(rep, 0 if rep[0].dim() == 1 else 1)


def vstack(tensors):
    _nonempty(tensors, "vstack")
    return ember.cat(atleast_2d_sequence(tensors), 0)


def row_stack(tensors):
    return vstack(tensors)


def dstack(tensors):
    _nonempty(tensors, "dstack")
    return ember.cat(atleast_3d_sequence(tensors), 2)


def column_stack(tensors):
    _nonempty(tensors, "column_stack")
    return hstack([t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors])


# --- diagonals ------------------------------------------------------------------------------------
def diag_embed(self, offset, dim1, dim2):
    """A new tensor whose (dim1, dim2) diagonal at offset holds self's last dim."""
    n = self.dim() + 1
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = abs(offset) + self.shape[-1]
    sizes = list(self.shape[:-1])
    sizes.insert(min(d1, d2), size)
    sizes.insert(max(d1, d2), size)
    out = self.new_zeros(sizes)
    out.diagonal(offset, d1, d2).copy_(self)
    return out


def diag(self, diagonal):
    if self.dim() not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.dim()}D")
    if self.dim() == 1:
        return diag_embed(self, diagonal, -2, -1)
    return self.diagonal(diagonal).clone(memory_format=ember.contiguous_format)


def diagflat(self, offset):
    return diag(self.contiguous().view(-1), offset)


# --- repeat_interleave ------------------------------------------------------------------------------
def repeat_interleave_self_tensor(self, repeats, dim, output_size):
    x = self
    if dim is None:
        x, dim = self.flatten(), 0
    d = wrap_dim(dim, x.dim())
    n = x.shape[d] if x.dim() else 1
    if repeats.dim() == 0 or (repeats.dim() == 1 and repeats.shape[0] == 1):
        repeats = repeats.reshape(1).expand(n)
    elif repeats.dim() == 1:
        if repeats.shape[0] != n:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.shape[0]} and input.size({dim}) = "
                               f"{n}")
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    return x.index_select(dim, ember.repeat_interleave(repeats, output_size=output_size))


def repeat_interleave_self_int(self, repeats, dim, output_size):
    r = ember.full((1,), repeats, dtype=ember.int64, device=self.device)
    if output_size is None:    # known without reading data (so fakes and graphs have it)
        n = self.numel() if dim is None else (
            self.shape[wrap_dim(dim, self.dim())] if self.dim() else 1)
        output_size = n * repeats
    return repeat_interleave_self_tensor(self, r, dim, output_size)


# --- meshgrid ------------------------------------------------------------------------------------
def meshgrid(tensors):
    warnings.warn("ember.meshgrid: in an upcoming release, it will be required to pass the "
                  "indexing argument.", UserWarning, stacklevel=4)
    return meshgrid_indexing(tensors, "ij")


def meshgrid_indexing(tensors, indexing):
    """Grids of the 0-d/1-d inputs, each viewed along its own dim and expanded ('xy'
    swaps the first two, like NumPy's default)."""
    n = len(tensors)
    if n == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for a, b in itertools.pairwise(tensors):
        if a.dtype is not b.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if a.device != b.device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    refs = list(tensors)
    swap = indexing == "xy" and n >= 2
    if indexing not in ("xy", "ij"):
        raise RuntimeError('ember.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f"{indexing}")
    if swap:
        refs[0], refs[1] = refs[1], refs[0]
    for t in refs:
        if t.dim() > 1:
            raise RuntimeError("ember.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    shape = [t.numel() for t in refs]
    grids = []
    for i, t in enumerate(refs):
        view = [1] * n
        view[i] = -1
        grids.append(t.view(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


# --- broadcasting --------------------------------------------------------------------------------
def broadcast_to(self, size):
    return self.expand(size)


def broadcast_tensors(tensors):
    """The tensors expanded to their broadcast shape; those already of that shape come back
    themselves (torch's expand_outplace: no expand, no view, no ExpandBackward0).

    >>> a = ember.zeros(2, 3)
    >>> b, c = ember.broadcast_tensors(a, ember.zeros(3))
    >>> b is a, c.shape
    (True, ember.Size([2, 3]))
    """
    shape = tuple(ember.broadcast_shapes(*[t._shape for t in tensors]))
    return [t if tuple(t._shape) == shape else t.expand(shape) for t in tensors]


def cartesian_prod(tensors):
    """Every combination of one element from each 1-d tensor, as rows."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid_indexing(tensors, "ij")
    return ember.stack([g.flatten() for g in grids], 1)


# --- block_diag, combinations ----------------------------------------------------------------------
def block_diag(tensors):
    """The inputs (0-d as 1x1, 1-d as one row) on the diagonal of a zero matrix, in the
    promoted dtype."""
    if len(tensors) == 0:
        return ember.empty((1, 0))
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError("ember.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.dim()} dimensions")
        mats.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
    dt = mats[0].dtype
    for m in mats[1:]:
        dt = ember.promote_types(dt, m.dtype)
    out = mats[0].new_zeros((sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)),
                            dtype=dt)
    r = c = 0
    for m in mats:
        out.narrow(0, r, m.shape[0]).narrow(1, c, m.shape[1]).copy_(m)
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def combinations(self, r, with_replacement):
    """The length-r combinations of a 1-d tensor's elements, as rows (torch's order)."""
    if self.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(self.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return self.new_empty((0,))
    n = self.shape[0]
    grids = np.meshgrid(*[np.arange(n)] * r, indexing="ij")
    mask = np.ones(grids[0].shape, bool)
    for a, b in itertools.pairwise(grids):
        mask &= (a <= b) if with_replacement else (a < b)
    idx = np.stack([g[mask] for g in grids], 1).astype(np.int64)
    return self[ember.tensor(idx, device=self.device)]
