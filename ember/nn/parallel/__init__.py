"""`ember.nn.parallel`: DataParallel as on a torch build without GPUs, a pass-through to
the wrapped module (DistributedDataParallel arrives with ember.distributed)."""
from .data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]
