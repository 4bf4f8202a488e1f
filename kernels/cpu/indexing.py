"""cat, index (advanced indexing) and index_put_ on CPU tensors, with NumPy.

Layouts and checks come from kernels/meta/indexing.py; NumPy's advanced indexing has
the same rule as torch for where the indexed dims go (first when separated).

    >>> x = ember.arange(12).view(3, 4)
    >>> x[ember.tensor([2, 0])].tolist()
    [[8, 9, 10, 11], [0, 1, 2, 3]]
"""
import numpy as np

from ember.core.alloc import empty_cpu
from ember.core.tensor import from_array

from ..meta import indexing as _meta
from .conv import add_rows_at


def cat(tensors, dim):
    """`ember.cat(tensors, dim)`: promotes dtypes like torch; 1-D empty tensors are skipped."""
    kept, dim, shape, strides, dt = _meta.cat_layout(tensors, dim)
    out = empty_cpu(shape, dt, strides)
    if kept:
        np.concatenate([t._np for t in kept], axis=dim, out=out._np, casting="unsafe")
    return out


def _count_nonzero(mask):
    return int(np.count_nonzero(mask._np))


def _check_bounds(self, plan):
    """IndexError for an index outside its dim (torch numbers the index tensors)."""
    k = 0
    for d, e in enumerate(plan.entries):
        if e is None:
            continue
        a, n = e[2], self._shape[d]
        if a is not None and a.size and (a.max() >= n or a.min() < -n):
            bad = a[(a >= n) | (a < -n)].flat[0]
            raise IndexError(f"index {bad} is out of bounds for dimension {k} with size {n}")
        k += 1


def index(self, indices):
    """`self[indices]` for a list of optional index tensors (None = whole dim).

    Integer tensors broadcast together; bool/uint8 masks stand for their nonzero indices.
    Returns a new tensor laid out like torch's (following self's dim order).
    """
    plan = _meta.index_plan(self, indices, _count_nonzero)
    if 0 in plan.shape:  # nothing is read, so nothing is checked (like torch)
        return empty_cpu(plan.shape, self._dtype, plan.strides)
    _check_bounds(self, plan)
    if all(e is None for e in plan.entries):  # only Nones: NumPy would give a view
        res = self._np
    else:
        res = self._np[plan.numpy_index]
        if res.strides == tuple(s * res.itemsize for s in plan.strides):  # the usual case
            return from_array(res, self._dtype)
    out = empty_cpu(plan.shape, self._dtype, plan.strides)
    out._np[...] = res
    return out


def _add_at(a, idx, v, shape):
    """np.add.at(a, idx, v); an index of dim 0 only (an integer array: index's backward, an
    embedding lookup's) into a C-contiguous array adds whole rows, in add.at's order
    (first to last, so the same values), with conv.add_rows_at's compiled loop."""
    if len(idx) == 1 and idx[0].__class__ is np.ndarray and idx[0].dtype.kind in "iu" \
            and a.ndim and a.flags.c_contiguous and v.shape == tuple(shape):
        i = idx[0].reshape(-1)
        add_rows_at(a.reshape(len(a), -1), i, v.reshape(i.size, -1))
    else:
        np.add.at(a, idx, v)


def index_put_(self, indices, values, accumulate):
    """`self[indices] = values` in place; accumulate=True adds (duplicates add up).

    values must have self's dtype and broadcast to the indexed shape (torch's checks),
    except one-element values with a single mask, which act like masked_fill_.
    """
    plan = _meta.index_plan(self, indices, _count_nonzero, with_strides=False)
    v = values._np
    if accumulate or not _meta.can_masked_fill(indices, values):
        _meta.check_index_put(self, values, plan.shape)
    elif v.dtype != self._np.dtype:
        v = v.astype(self._np.dtype)
    if 0 in plan.shape:
        return self
    _check_bounds(self, plan)
    idx = plan.numpy_index
    if accumulate:
        _add_at(self._np, idx, v, plan.shape)
    else:
        self._np[idx] = v.reshape(()) if v.size == 1 else v
    return self
