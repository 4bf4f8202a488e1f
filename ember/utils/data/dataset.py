"""Datasets: map-style (`Dataset`, `TensorDataset`, `Subset`, `ConcatDataset`,
`StackDataset`), iterable (`IterableDataset`, `ChainDataset`) and `random_split`,
with torch.utils.data's names, behaviour and errors.

    >>> ds = TensorDataset(ember.arange(6.).reshape(3, 2), ember.tensor([0, 1, 0]))
    >>> len(ds), ds[1]
    (3, (tensor([2., 3.]), tensor(1)))
    >>> [len(part) for part in random_split(ds, [2, 1])]
    [2, 1]
"""
from __future__ import annotations

import bisect
import itertools
import math
import warnings

import ember

__all__ = [
    "ChainDataset", "ConcatDataset", "Dataset", "IterableDataset", "StackDataset", "Subset",
    "TensorDataset", "random_split",
]


class Dataset:
    """A map from keys (usually 0..len-1) to samples: subclasses define `__getitem__`
    and usually `__len__`; they may define `__getitems__(indices)` returning the list of
    samples of a batch, which `DataLoader` then uses instead of one `__getitem__` each."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])

    def __class_getitem__(cls, item):  # Dataset[int] in annotations, like torch's Generic
        return cls


class IterableDataset(Dataset):
    """A stream of samples: subclasses define `__iter__` (and optionally `__len__`).

    >>> class Count(IterableDataset):
    ...     def __iter__(self):
    ...         return iter(range(3))
    >>> list(Count() + Count())
    [0, 1, 2, 0, 1, 2]
    """

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the rows of tensors that share their first dimension.

    >>> TensorDataset(ember.zeros(4, 2), ember.ones(4))[0]
    (tensor([0., 0.]), tensor(1.))
    """

    def __init__(self, *tensors) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)

    def _collated_getter(self):
        """`indices -> default_collate([self[i] for i in indices])` in one indexing per
        tensor (`t[index_tensor]` stacks the rows), or None when a subclass changed
        `__getitem__`. `DataLoader` uses it when collating with `default_collate`."""
        if type(self).__getitem__ is not TensorDataset.__getitem__:
            return None
        tensors, as_index = self.tensors, ember.as_tensor

        def get_batch(indices):
            index = as_index(indices, dtype=ember.int64)
            return [tensor[index] for tensor in tensors]
        return get_batch


class StackDataset(Dataset):
    """Zips datasets of equal length: samples are tuples (`*args`) or dicts (`**kwargs`).

    >>> StackDataset(range(3), range(10, 13))[1]
    (1, 11)
    >>> StackDataset(x=range(3), y=range(10, 13))[2]
    {'x': 2, 'y': 12}
    """

    def __init__(self, *args, **kwargs) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or"
                "``dict``- (via ``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = args or list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(dataset) for dataset in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args or kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices: list):
        named = isinstance(self.datasets, dict)
        parts = self.datasets.items() if named else enumerate(self.datasets)
        columns = {key: _fetch_many(dataset, indices) for key, dataset in parts}
        if named:
            return [{key: column[i] for key, column in columns.items()}
                    for i in range(len(indices))]
        return list(zip(*columns.values())) if columns else []

    def __len__(self) -> int:
        return self._length


def _fetch_many(dataset, indices: list) -> list:
    """`[dataset[i] for i in indices]`, through `__getitems__` when the dataset has it."""
    getitems = getattr(dataset, "__getitems__", None)
    if not callable(getitems):
        return [dataset[i] for i in indices]
    items = getitems(indices)
    if len(items) != len(indices):
        raise ValueError(
            f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(items)}")
    return items


class ConcatDataset(Dataset):
    """Datasets one after another.

    >>> ds = ConcatDataset([range(3), range(10, 12)])
    >>> len(ds), ds[3], ds[-1]
    (5, 10, 11)
    """

    @staticmethod
    def cumsum(sequence) -> list:
        return list(itertools.accumulate(len(e) for e in sequence))

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError(  # noqa: TRY004  (torch's type)
                    "ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx - (self.cumulative_sizes[dataset_idx - 1] if dataset_idx else 0)
        return self.datasets[dataset_idx][sample_idx]


class ChainDataset(IterableDataset):
    """Iterable datasets one after another (chained lazily)."""

    def __init__(self, datasets) -> None:
        self.datasets = datasets

    def _checked(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError(  # noqa: TRY004  (torch's type)
                    "ChainDataset only supports IterableDataset")
            yield d

    def __iter__(self):
        for d in self._checked():
            yield from d

    def __len__(self) -> int:
        return sum(len(d) for d in self._checked())


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order.

    >>> Subset(range(10, 20), [5, 0])[0]
    15
    """

    def __init__(self, dataset, indices) -> None:
        self.dataset = dataset
        self.indices = indices
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list) -> list:
        return _fetch_many(self.dataset, [self.indices[i] for i in indices])

    def __len__(self) -> int:
        return len(self.indices)

    def _collated_getter(self):
        """Like `TensorDataset._collated_getter`, through the index map (None when a
        subclass changed `__getitems__` or the wrapped dataset has no such getter)."""
        inner = getattr(self.dataset, "_collated_getter", None)
        get_inner = inner() if inner is not None else None
        if get_inner is None or type(self).__getitems__ is not Subset.__getitems__:
            return None
        subset_indices = self.indices

        def get_batch(indices):
            return get_inner([subset_indices[i] for i in indices])
        return get_batch


def random_split(dataset, lengths, generator=None) -> list[Subset]:
    """Splits `dataset` into non-overlapping random `Subset`s of the given lengths, or of
    fractions of its length that sum to 1 (the remainder goes round-robin from the first
    split). `generator` defaults to the global generator (`ember.manual_seed`).

    >>> g = ember.Generator().manual_seed(0)
    >>> [len(s) for s in random_split(range(10), [0.3, 0.7], generator=g)]
    [3, 7]
    """
    if generator is None:
        generator = ember.default_generator
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(len(dataset), lengths)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = ember.randperm(sum(lengths), generator=generator).tolist()
    ends = itertools.accumulate(lengths)
    return [Subset(dataset, indices[end - length:end]) for end, length in zip(ends, lengths)]


def _lengths_from_fractions(total: int, fractions) -> list[int]:
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(total * frac))
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. "
                          f"This might result in an empty dataset.", stacklevel=3)
    return lengths
