"""Decompositions of the shape family (issue 4): tile (into repeat), argsort (into sort).

    >>> ember.tile(ember.tensor([1, 2]), (2,)).tolist()
    [1, 2, 1, 2]
"""
import ember


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
