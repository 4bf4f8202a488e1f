"""ember.utils.data: datasets, samplers, collation and `DataLoader`, like torch.utils.data.

    >>> from ember.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(ember.arange(6.).reshape(3, 2), ember.tensor([0, 1, 0]))
    >>> [y.tolist() for x, y in DataLoader(ds, batch_size=2)]
    [[0, 1], [0]]
"""
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "default_collate", "default_convert",
    "get_worker_info", "random_split",
]
