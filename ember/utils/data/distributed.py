"""DistributedSampler: each rank's share of a dataset, in torch's order (torch's module
path: torch.utils.data.distributed)."""
from __future__ import annotations

import math

import numpy as np

from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _torch_randperm(n: int, seed: int) -> list[int]:
    """torch.randperm(n) on a CPU generator seeded with `seed`: torch's Fisher-Yates over
    its MT19937 stream (init_genrand of the low 32 bits of the seed), so the order is
    torch's exactly."""
    key = np.empty(624, np.uint32)
    key[0] = seed & 0xFFFFFFFF
    for i in range(1, 624):     # MT19937's init_genrand
        prev = int(key[i - 1])
        key[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF
    bits = np.random.MT19937()
    bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
    draws = bits.random_raw(max(n - 1, 0)).tolist()
    idx = list(range(n))
    for i in range(n - 1):
        z = i + draws[i] % (n - i)
        idx[i], idx[z] = idx[z], idx[i]
    return idx


class DistributedSampler(Sampler):
    """The share of `dataset`'s indices that rank `rank` of `num_replicas` reads: padded
    (or, with drop_last, cut) to a multiple of `num_replicas`, then every
    `num_replicas`-th index from `rank`. With shuffle, the order is torch's for the same
    `seed + epoch` (call `set_epoch` each epoch).

    >>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
    [1, 3, 0]
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            import ember.distributed as dist
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        if drop_last and len(dataset) % num_replicas != 0:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        indices = _torch_randperm(n, self.seed + self.epoch) if self.shuffle else list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch, which offsets the shuffle's seed."""
        self.epoch = epoch
