"""`ember.nn.parallel`: DataParallel as on a torch build without GPUs (a pass-through to
the wrapped module) and DistributedDataParallel over ember.distributed."""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
