"""Decompositions of the shape family (issue 4): tile (into repeat), argsort (into sort).

    >>> ember.tile(ember.tensor([1, 2]), (2,)).tolist()
    [1, 2, 1, 2]
"""
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
    reads the flattened self."""
    if dim is None:
        return self.view(-1).gather(0, indices.view(-1))
    dim = dim % self.dim() if self.dim() else 0
    if self.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number "
                           f"of dimensions, but got {self.dim()} dimensions for input, and "
                           f"{indices.dim()} dimensions for indices")
    if indices.dtype is not ember.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype.scalar_name}")
    sizes = list(self.shape)
    sizes[dim] = indices.shape[dim]
    shape = list(ember.broadcast_shapes(sizes, indices.shape))
    idx = indices.expand(shape)
    shape[dim] = self.shape[dim]
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
