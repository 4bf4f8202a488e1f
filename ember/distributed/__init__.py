"""`ember.distributed`: torch.distributed's process groups and collectives, on MPI
(mpi4py with the mpich wheel) for CPU tensors and NCCL (cupy.cuda.nccl) for CUDA ones.

Start the processes with the launcher (`python -m ember.distributed.run --nproc-per-node 2
train.py`, like torchrun) or with mpiexec, then in each:

    import ember.distributed as dist
    dist.init_process_group("mpi")
    t = ember.ones(3) * dist.get_rank()
    dist.all_reduce(t)                    # the sum over the ranks, on every rank
"""
from .distributed_c10d import *
from .distributed_c10d import __all__ as __all__
