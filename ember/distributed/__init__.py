"""`ember.distributed`: torch.distributed's process groups and collectives, on MPI
(mpi4py with the mpich wheel) for CPU tensors and NCCL (cupy.cuda.nccl) for CUDA ones.

Start the processes with the launcher (`python -m ember.distributed.run --nproc-per-node 2
train.py`, like torchrun) or with mpiexec, then in each:

    import ember.distributed as dist
    dist.init_process_group("mpi")
    t = ember.ones(3) * dist.get_rank()
    dist.all_reduce(t)                    # the sum over the ranks, on every rank

Failures: each collective checks that the ranks agree on it (distributed_c10d's
docstring); every wait polls, so the group's `timeout` holds and a rank on the same host
that died makes the others raise DistBackendError at once (ranks on other hosts: through
the timeout, so lower it from its 30 minutes to fail fast there).

Scaling out, the script stays the same: `--nnodes M --hosts h1,...,hM` makes the launcher
start the ranks over the hosts through mpiexec (ssh), and MPICH moves data through shared
memory within a host and the network (TCP, or InfiniBand through UCX/libfabric) between
hosts. CUDA tensors go to NCCL (one communicator per group, its id sent over MPI), which
uses NVLink/PCIe within a host and InfiniBand/RoCE between hosts; one rank per GPU, picked
by LOCAL_RANK. DistributedDataParallel's buckets trade latency for overlap: a smaller
bucket starts its all-reduce earlier in backward, but each bucket pays the collective's
fixed latency once (time ~ buckets * latency + bytes / bandwidth), and whatever is left of
the last bucket's all-reduce when backward ends is not hidden. MPICH advances non-blocking
collectives only inside MPI calls: DDP polls at each gradient hook, so the overlap comes at
hook granularity (MPIR_CVAR_ASYNC_PROGRESS=1 gives MPI a progress thread, at a core's cost).
"""
from .distributed_c10d import *
from .distributed_c10d import __all__ as __all__
