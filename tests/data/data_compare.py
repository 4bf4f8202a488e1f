"""Comparing the batches of ember.utils.data and torch.utils.data: `plain(x)` turns
tensors into (dtype name, shape, values) and keeps the container types, so two batches
compare with ==."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def plain(x):
    """A comparable picture of `x`: tensors as ("tensor", dtype, shape, values); lists,
    tuples, dicts and named tuples keep their type (named tuples by class name)."""
    if isinstance(x, (ember.Tensor, torch.Tensor)):
        values = np.asarray(x.detach().numpy()).tolist()
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), values)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__, tuple(plain(v) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(plain(v) for v in x)
    if isinstance(x, dict):
        return (type(x).__name__, {k: plain(v) for k, v in x.items()})
    return x


def flat_indices(batches) -> list:
    """The sample indices of a loader over TensorDataset(arange(n)), in order."""
    return [i for (batch,) in batches for i in batch.tolist()]


def counting_stream(base, n: int):
    """An iterable dataset (a subclass of `base`, ember's or torch's IterableDataset)
    yielding 0..n-1, with a len."""
    class Counting(base):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n

    return Counting()
