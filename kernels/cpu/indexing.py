"""cat, index (advanced indexing) and index_put_ on CPU tensors, with NumPy.

Layouts and checks come from kernels/meta/indexing.py; NumPy's advanced indexing has
the same rule as torch for where the indexed dims go (first when separated).

    >>> x = ember.arange(12).view(3, 4)
    >>> x[ember.tensor([2, 0])].tolist()
    [[8, 9, 10, 11], [0, 1, 2, 3]]
"""
import numpy as np

from ember.core.alloc import empty_cpu
from ember.core.tensor import contiguous_strides, from_array

from ..meta import indexing as _meta


def cat(tensors, dim):
    """`ember.cat(tensors, dim)`: promotes dtypes like torch; 1-D empty tensors are skipped."""
    kept, dim, shape, strides, dt = _meta.cat_layout(tensors, dim)
    out = empty_cpu(shape, dt, strides)
    if kept:
        np.concatenate([t._np for t in kept], axis=dim, out=out._np, casting="unsafe")
    return out


def _nonzero(mask):
    """The index arrays a bool/uint8 mask stands for (a 0-d mask stands for none)."""
    a = mask._np
    return np.nonzero(a) if a.ndim else ()


def _check_bounds(self, plan):
    """IndexError for an index outside its dim (torch numbers the index tensors)."""
    k = 0
    for d, e in enumerate(plan.entries):
        if e is None:
            continue
        a, n = e[2], self._shape[d]
        if a.size and (a.max() >= n or a.min() < -n):
            bad = a[(a >= n) | (a < -n)].flat[0]
            raise IndexError(f"index {bad} is out of bounds for dimension {k} with size {n}")
        k += 1


def index(self, indices):
    """`self[indices]` for a list of optional index tensors (None = whole dim).

    Integer tensors broadcast together; bool/uint8 masks stand for their nonzero indices.
    Returns a new tensor laid out like torch's (following self's dim order).
    """
    plan = _meta.index_plan(self, indices, _nonzero)
    _check_bounds(self, plan)
    res = self._np[plan.numpy_index()]
    shape, strides = plan.shape, plan.strides
    if strides == contiguous_strides(shape):
        return from_array(res if res.flags.c_contiguous else np.ascontiguousarray(res),
                          self._dtype)
    out = empty_cpu(shape, self._dtype, strides)
    out._np[...] = res
    return out


def index_put_(self, indices, values, accumulate):
    """`self[indices] = values` in place; accumulate=True adds (duplicates add up).

    values must have self's dtype and broadcast to the indexed shape (torch's checks),
    except one-element values with a single mask, which act like masked_fill_.
    """
    plan = _meta.index_plan(self, indices, _nonzero, with_strides=False)
    v = values._np
    if accumulate or not _meta.can_masked_fill(indices, values):
        _meta.check_index_put(self, values, plan.shape)
    elif v.dtype != self._np.dtype:
        v = v.astype(self._np.dtype)
    _check_bounds(self, plan)
    idx = plan.numpy_index()
    if accumulate:
        np.add.at(self._np, idx, v)
    else:
        self._np[idx] = v.reshape(()) if v.size == 1 else v
    return self
