"""stack: every tensor gets a new dim at `dim`, then cat joins them along it.

    >>> ember.stack([ember.zeros(2), ember.ones(2)], dim=1).tolist()
    [[0.0, 1.0], [0.0, 1.0]]
"""
from ember._generated import ops as _ops
from ember.core.shapes import wrap_dim


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
    unsqueeze = _ops._entry_unsqueeze   # (the entries: no bindings to go through)
    return _ops._entry_cat([unsqueeze(t, dim) for t in tensors], dim)
