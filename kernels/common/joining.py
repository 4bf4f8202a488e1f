"""stack (CompositeExplicitAutograd, one StackBackward0 node as torch): every tensor gets a
new dim at `dim`, then cat joins them along it, below autograd.

    >>> ember.stack([ember.zeros(2), ember.ones(2)], dim=1).tolist()
    [[0.0, 1.0], [0.0, 1.0]]
"""
import numpy as np

from ember._generated import ops as _ops
from ember.core.shapes import wrap_dim
from ember.core.tensor import from_array


def stack(tensors, dim):
    """`ember.stack(tensors, dim)`: all tensors must have the same shape (dtypes promote)."""
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._shape
    dim = wrap_dim(dim, len(shape) + 1)
    for i, t in enumerate(tensors):
        if t._shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(shape)} at entry 0 and {list(t._shape)} at entry {i}")
    if len(shape) <= 2:     # a result of 3 dims or fewer is contiguous whatever the inputs
        arrays = _cpu_arrays_of_one_dtype(tensors)
        if arrays is not None:
            out = np.empty(shape[:dim] + (len(arrays),) + shape[dim:], arrays[0].dtype)
            return from_array(np.stack(arrays, axis=dim, out=out), tensors[0]._dtype)
    unsqueeze = _ops._entry_unsqueeze   # (the entries: no bindings to go through)
    return _ops._entry_cat([unsqueeze(t, dim) for t in tensors], dim)


def _cpu_arrays_of_one_dtype(tensors):
    """The tensors' NumPy arrays when all are CPU tensors of the first one's dtype (no
    promotion to do), else None. (Conjugated inputs arrive resolved: the Conjugate key's
    fallback runs before this kernel.)"""
    dtype = tensors[0]._dtype
    arrays = []
    for t in tensors:
        a = t._np
        if a is None or t._dtype is not dtype or t._device.type != "cpu":
            return None
        arrays.append(a)
    return arrays
