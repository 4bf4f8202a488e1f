"""Collation: turning a list of samples into a batch (`default_collate`), and converting
NumPy data to tensors without batching (`default_convert`), as torch.utils.data does.

    >>> default_collate([(ember.tensor([1., 2.]), 0), (ember.tensor([3., 4.]), 1)])
    [tensor([[1., 2.],
            [3., 4.]]), tensor([0, 1])]
    >>> default_collate([{"x": 1.5}, {"x": 2.5}])
    {'x': tensor([1.5000, 2.5000], dtype=ember.float64)}

`collate(batch, collate_fn_map=...)` is the general walker: it looks up the first
element's type in `collate_fn_map` (exact type first, then `isinstance` in insertion
order), and otherwise recurses into mappings, named tuples and sequences.
"""
from __future__ import annotations

import collections.abc
import copy
import re

import numpy as np

import ember
from ember.core.tensor import Tensor

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

_STRING_OR_OBJECT_ARRAY = re.compile(r"[SaUO]")  # NumPy dtype kinds that are no numbers
_ERROR_FORMAT = ("default_collate: batch must contain tensors, numpy arrays, numbers, "
                 "dicts or lists; found {}")


def collate(batch, *, collate_fn_map=None):
    """Collates `batch` (a list of samples of the same structure) into one batch."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    def each(samples):
        return collate(samples, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: each([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(each(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        elem_size = len(elem)
        if any(len(sample) != elem_size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [each(samples) for samples in zip(*batch)]
        return _rebuild_sequence(elem, columns)
    raise TypeError(_ERROR_FORMAT.format(elem_type))


def _rebuild_mapping(like, items: dict):
    """A mapping of `like`'s type holding `items` (a plain dict if the type refuses)."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(items)
            return clone
        return type(like)(items)
    except TypeError:
        return items


def _rebuild_sequence(like, items: list):
    """A sequence of `like`'s type holding `items` (tuples become lists, like torch)."""
    if isinstance(like, tuple):
        return items
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return ember.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if _STRING_OR_OBJECT_ARRAY.search(elem.dtype.str) is not None:
        raise TypeError(_ERROR_FORMAT.format(elem.dtype))
    return collate([ember.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return ember.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return ember.tensor(batch, dtype=ember.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return ember.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stacks samples into a batch: tensors are stacked on a new first dimension, NumPy
    arrays and scalars become tensors, Python ints an int64 tensor (bools a bool tensor),
    floats a float64 tensor; strings and bytes stay a list; dicts, named tuples and
    sequences are collated field by field (tuples come back as lists, like torch).

    >>> default_collate([0, 1, 2])
    tensor([0, 1, 2])
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data):
    """Converts NumPy arrays and scalars (also inside mappings, named tuples and
    sequences) into tensors, without adding a batch dimension; everything else is
    returned as it is. The DataLoader's collate function when batching is off.

    >>> default_convert([np.array([0, 1]), 2])
    [tensor([0, 1]), 2]
    """
    data_type = type(data)
    if isinstance(data, ember.Tensor):
        return data
    if data_type.__module__ == "numpy" and data_type.__name__ not in ("str_", "string_"):
        if (data_type.__name__ == "ndarray"
                and _STRING_OR_OBJECT_ARRAY.search(data.dtype.str) is not None):
            return data
        return ember.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return data_type(*(default_convert(d) for d in data))
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data
