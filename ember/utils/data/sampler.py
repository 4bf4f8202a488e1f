"""Samplers: which indices a `DataLoader` fetches, in which order, grouped how.

Random samplers draw from an `ember.Generator` (NumPy's PCG64), so a seed fixes the
order, but the order differs from torch's for the same seed.

    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    >>> g = ember.Generator().manual_seed(0)
    >>> sorted(RandomSampler(range(4), generator=g))
    [0, 1, 2, 3]
"""
from __future__ import annotations

import itertools

import ember

__all__ = [
    "BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
]


class Sampler:
    """Base class: subclasses define `__iter__` (indices or lists of indices) and, when
    they know it, `__len__`."""

    def __init__(self, data_source=None) -> None:
        pass

    def __iter__(self):
        raise NotImplementedError

    def __class_getitem__(cls, item):  # Sampler[int] in annotations, like torch's Generic
        return cls


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _seeded_generator(generator):
    """`generator`, or (when None) a new one seeded from the global generator, as torch
    does, so that `ember.manual_seed` fixes the order."""
    if generator is not None:
        return generator
    seed = int(ember.empty((), dtype=ember.int64).random_().item())
    return ember.Generator().manual_seed(seed)


_DRAWS_AT_ONCE = 32  # indices RandomSampler draws per call with replacement (torch's)


class RandomSampler(Sampler):
    """A random permutation of the indices (repeated or cut to `num_samples`), or with
    `replacement=True`, `num_samples` independent uniform draws.

    >>> g = ember.Generator().manual_seed(0)
    >>> len(list(RandomSampler(range(3), replacement=True, num_samples=7, generator=g)))
    7
    """

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None,
                 generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        """Draws lazily, as torch: with replacement 32 indices at a time, else one
        permutation at a time (so `num_samples=10**10` costs nothing up front); the
        generator is seeded at the first index."""
        n = len(self.data_source)
        generator = _seeded_generator(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // _DRAWS_AT_ONCE):
                yield from ember.randint(high=n, size=(_DRAWS_AT_ONCE,), dtype=ember.int64,
                                         generator=generator).tolist()
            yield from ember.randint(high=n, size=(self.num_samples % _DRAWS_AT_ONCE,),
                                     dtype=ember.int64, generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from ember.randperm(n, generator=generator).tolist()
        if self.num_samples % n:
            yield from ember.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (without replacement)."""

    def __init__(self, indices, generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in ember.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class _InfiniteConstantSampler(Sampler):
    """None forever: the placeholder sampler of a DataLoader over an IterableDataset."""

    def __iter__(self):
        return itertools.repeat(None)


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of `batch_size` (the last one shorter,
    or dropped with `drop_last=True`).

    >>> list(BatchSampler(range(5), batch_size=2, drop_last=True))
    [[0, 1], [2, 3]]
    """

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(  # noqa: TRY004  (torch's type)
                f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices, size = iter(self.sampler), self.batch_size
        if self.drop_last:
            yield from map(list, zip(*[indices] * size))
            return
        batch = list(itertools.islice(indices, size))
        while batch:
            yield batch
            batch = list(itertools.islice(indices, size))

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
