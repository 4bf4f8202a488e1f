"""`DataLoader`: batches from a dataset, with torch.utils.data.DataLoader's arguments,
defaults, errors and batch structure, loading in the calling process.

    >>> from ember.utils.data import TensorDataset
    >>> ds = TensorDataset(ember.arange(10.), ember.arange(10))
    >>> loader = DataLoader(ds, batch_size=4, shuffle=True,
    ...                     generator=ember.Generator().manual_seed(0))
    >>> len(loader), [len(y) for x, y in loader]
    (3, [4, 4, 2])

There are no worker processes: `num_workers > 0` warns and loads in the main process
(the batches are the same; `worker_init_fn` is not called, `get_worker_info()` is None).
With `default_collate`, a `TensorDataset` (or a `Subset` of one) is indexed once per
tensor with the whole batch of indices instead of once per sample, which gives the same
batch.
"""
from __future__ import annotations

import itertools
import warnings

from ...cuda import _pinned, _runtime
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _InfiniteConstantSampler

__all__ = ["DataLoader", "get_worker_info"]


def get_worker_info():
    """Information about the current loader worker: always None (ember loads in the
    calling process)."""


_FROZEN_AFTER_INIT = frozenset(
    ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers"))


class DataLoader:
    """Iterates over `dataset` in batches of `batch_size` samples (in order, or shuffled
    with `generator` when `shuffle=True`), collated by `collate_fn`. `sampler` gives the
    order of indices, `batch_sampler` whole batches of indices; `batch_size=None` turns
    batching off (then each sample goes through `default_convert`)."""

    _initialized = False

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler=None, batch_sampler=None, num_workers: int = 0, collate_fn=None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                              multiprocessing_context)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None \
            else prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self.persistent_workers = persistent_workers
        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            sampler = (_InfiniteConstantSampler() if self._is_iterable
                       else RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_convert if batch_sampler is None else default_collate
        self.collate_fn = collate_fn
        self._initialized = True

    def __setattr__(self, attr, val) -> None:
        if self._initialized and attr in _FROZEN_AFTER_INIT:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(attr, val)

    def __iter__(self):
        if self.pin_memory and self.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used "
                          f"as the device,ignore pin_memory_device='{self.pin_memory_device}'.",
                          stacklevel=2)
        if self.pin_memory and _runtime.driver() is None:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=2)
        if self.num_workers > 0:
            warnings.warn(f"ember's DataLoader has no worker processes: num_workers="
                          f"{self.num_workers} loads in the main process", stacklevel=2)
        if self._is_iterable:
            return _LoaderIterator(self._iterable_batches(), self)
        if self.batch_sampler is None:
            dataset, convert = self.dataset, self.collate_fn
            return _LoaderIterator((convert(dataset[i]) for i in self.sampler), self)
        fetch = _batch_fetcher(self.dataset, self.collate_fn)
        return _LoaderIterator(map(fetch, self.batch_sampler), self)

    def _iterable_batches(self):
        samples, collate_fn = iter(self.dataset), self.collate_fn
        if self.batch_size is None:
            yield from map(collate_fn, samples)
            return
        while True:
            batch = list(itertools.islice(samples, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield collate_fn(batch)

    def __len__(self) -> int:
        if self._is_iterable:
            length = len(self.dataset)
            if self.batch_size is None:
                return length
            return length // self.batch_size if self.drop_last else -(-length // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


class _LoaderIterator:
    """One pass over a DataLoader (an iterator with the loader's `len`)."""

    __slots__ = ("_batches", "_loader", "_num_yielded")

    def __init__(self, batches, loader) -> None:
        self._batches = batches
        self._loader = loader
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __next__(self):
        batch = next(self._batches)
        self._num_yielded += 1
        if self._loader.pin_memory and _runtime.driver() is not None:
            batch = _pinned.pin_batch(batch)
        return batch

    def __len__(self) -> int:
        return len(self._loader)


def _batch_fetcher(dataset, collate_fn):
    """A function from a list of indices to the collated batch: the dataset's one-shot
    getter when collating with `default_collate`, else `__getitems__` or one
    `__getitem__` per index, then `collate_fn`."""
    if collate_fn is default_collate:
        collated_getter = getattr(dataset, "_collated_getter", None)
        get_batch = collated_getter() if collated_getter is not None else None
        if get_batch is not None:
            return get_batch
    getitems = getattr(dataset, "__getitems__", None)
    if getitems:
        return lambda indices: collate_fn(getitems(indices))
    return lambda indices: collate_fn([dataset[i] for i in indices])


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                          multiprocessing_context) -> None:
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if multiprocessing_context is not None and num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading "
                         f"(num_workers > 0), but got num_workers={num_workers}")


def _check_iterable_options(shuffle, sampler, batch_sampler) -> None:
    if shuffle not in {False, None}:
        raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                         f"option, but got shuffle={shuffle}")
    if sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                         f"option, but got sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler "
                         f"option, but got batch_sampler={batch_sampler}")
