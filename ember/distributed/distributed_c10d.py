"""Process groups and collectives, torch.distributed's API on MPI (CPU) and NCCL (CUDA).

The processes are started by `mpiexec` (or `python -m ember.distributed.run`, which runs
it); `init_process_group` joins MPI's world. Each collective first checks, unless
EMBER_DISTRIBUTED_CHECK=0, that every rank of the group runs the same one on the same
shapes and dtypes: one 16-byte MAX all-reduce of a CRC of (op, shapes, dtypes, root) and
its negation. Only when the CRCs differ are the full descriptions gathered, so every rank
raises the same error naming each rank's call instead of hanging or reducing garbage.
"""
from __future__ import annotations

import atexit
import os
import pickle
import socket
import sys
import zlib
from datetime import timedelta

import numpy as np

import ember

from ..core.dtype import ALL_DTYPES as _DTYPES
from . import _mpi
from ._mpi import DistBackendError, DistError, Work
from .constants import Backend, RedOpType, ReduceOp, default_pg_timeout

_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


class ProcessGroup:
    """A set of ranks with their own MPI communicator (and NCCL one, made on first use)."""

    def __init__(self, comm, ranks, backend, timeout, global_rank):
        self._comm, self._ranks, self._backend = comm, list(ranks), Backend(backend)
        self._timeout, self._global_rank = timeout, global_rank
        self._nccl = None

    def rank(self) -> int:
        return self._comm.Get_rank()

    def size(self) -> int:
        return len(self._ranks)

    def name(self) -> str:
        return str(self._backend)

    def __repr__(self):
        return f"ProcessGroup(ranks={self._ranks}, backend={self._backend!r})"

    def _timeout_seconds(self, timeout=None) -> float:
        t = self._timeout if timeout is None else timeout
        return t.total_seconds() if isinstance(t, timedelta) else float(t)

    def _group_rank(self, global_rank, what) -> int:
        if global_rank is None:
            return 0
        if self is _world.default and not 0 <= global_rank < self.size():
            raise RuntimeError(f"{what}: invalid root rank: {global_rank}")
        if global_rank not in self._ranks:
            raise ValueError(f"Global rank {global_rank} is not part of group {self}")
        return self._ranks.index(global_rank)


class GroupMember:
    """`GroupMember.WORLD` (the default group once initialised) and the marker
    `new_group` returns on ranks outside the new group."""
    WORLD = None
    NON_GROUP_MEMBER = object()


group = GroupMember


class _World:
    def __init__(self):
        self.default: ProcessGroup | None = None
        self.groups: list = []


_world = _World()


# --- set-up --------------------------------------------------------------------------------------
def is_available() -> bool:
    """True when mpi4py can be imported (MPI then comes from the mpich wheel)."""
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available() -> bool:
    return is_available()


def is_gloo_available() -> bool:
    """"gloo" is accepted and runs on MPI, so this is `is_available()`."""
    return is_available()


def is_nccl_available() -> bool:
    try:
        from cupy.cuda import nccl  # noqa: F401
    except (ImportError, OSError, RuntimeError):
        return False
    return True


def is_initialized() -> bool:
    return _world.default is not None


def _env_int(*names):
    for n in names:
        if os.environ.get(n, "") != "":
            return int(os.environ[n])
    return -1


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Joins the job's processes into the default group. `rank`/`world_size` come from the
    arguments, else RANK/WORLD_SIZE (the launcher, torchrun) or mpiexec's PMI_RANK/PMI_SIZE;
    they must agree with MPI's world, since MPI (started by mpiexec) does the rendezvous:
    `init_method` ("env://", "tcp://host:port", "file://...") is accepted for
    compatibility only."""
    if _world.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    if init_method is not None and not str(init_method).startswith(("env://", "tcp://", "file://")):
        raise ValueError(f"No rendezvous handler for {str(init_method).split('://')[0]}://")
    backend = _resolve_backend(backend)
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")
    if not is_available():
        raise RuntimeError("ember.distributed needs mpi4py: pip install 'ember[distributed]' "
                           "(mpich + mpi4py)")
    MPI = _mpi.mpi()
    world = MPI.COMM_WORLD
    world_size = world_size if world_size != -1 else _env_int("WORLD_SIZE", "PMI_SIZE",
                                                              "OMPI_COMM_WORLD_SIZE")
    rank = rank if rank != -1 else _env_int("RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK")
    if world_size == -1:
        world_size = world.Get_size()
    if rank == -1:
        rank = world.Get_rank()
    if world_size != world.Get_size() or rank != world.Get_rank():
        raise ValueError(
            f"init_process_group: rank {rank} of world_size {world_size} does not match MPI's "
            f"world (rank {world.Get_rank()} of {world.Get_size()}): start the processes with "
            "`python -m ember.distributed.run --nproc-per-node N script.py` or mpiexec")
    comm, ready = world.Idup()      # (non-blocking: a rank that never comes times out)
    pg = ProcessGroup(comm, range(world_size), backend, timeout or default_pg_timeout, rank)
    _mpi.poll(pg, [ready], "init_process_group", pg._timeout_seconds())
    here = socket.gethostname()
    peers = [pickle.loads(b) for b in _mpi.all_gather_bytes(
        pg, pickle.dumps((here, os.getpid())), "init_process_group")]
    _mpi._State.pids = {r: pid for r, (host, pid) in enumerate(peers)
                        if host == here and r != rank}
    _world.default = GroupMember.WORLD = pg
    _world.groups = [pg]
    _install_exit_guard()


def _resolve_backend(backend):
    if backend is None:
        return Backend.MPI
    names = [b.split(":")[-1] for b in str(backend).split(",")]
    for name in names:
        if Backend(name) not in (Backend.MPI, Backend.GLOO, Backend.NCCL):
            raise ValueError(f"Invalid backend: '{name}' (ember.distributed has mpi, nccl; "
                             "gloo runs on mpi)")
    if Backend(names[0]) == Backend.NCCL and len(names) == 1 and not _has_gpu():
        raise RuntimeError("ProcessGroupNCCL is only supported with GPUs, no GPUs found!")
    return Backend(names[0]) if len(names) == 1 else str(backend)


def _has_gpu():
    return is_nccl_available() and ember.cuda.is_available()


def _install_exit_guard():
    """A rank that dies of an exception, or whose wait gave up with MPI requests in flight,
    exits without MPI_Finalize (which would wait for the peers forever); the peers then
    see it gone and raise."""
    if getattr(_install_exit_guard, "done", False):
        return
    _install_exit_guard.done = True
    previous = sys.excepthook

    def hook(*exc):
        _mpi._State.broken = True
        previous(*exc)
    sys.excepthook = hook

    def guard():
        if _mpi._State.broken:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(1)
    atexit.register(guard)


def _default():
    if _world.default is None:
        raise ValueError(_NOT_INIT)
    return _world.default


def _pg(group):
    """The ProcessGroup for `group` (None: the default), or None on a non-member rank."""
    d = _default()
    if group is None:
        return d
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"expected a ProcessGroup, got {type(group).__name__}")
    return group


def destroy_process_group(group=None):
    """Frees `group`'s communicators; with no argument, every group's (then
    init_process_group may be called again)."""
    if _world.default is None:
        raise ValueError(_NOT_INIT)
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    for pg in list(_world.groups) if group is None else [_pg(group)]:
        pg._comm.Free()
        _world.groups.remove(pg)
    if group is None or group is _world.default:
        _world.default = GroupMember.WORLD = None
        _world.groups = []


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None):
    """A group of `ranks` (all ranks when None). Every rank of the world must call it;
    ranks outside get GroupMember.NON_GROUP_MEMBER."""
    d = _default()
    ranks = sorted(range(d.size()) if ranks is None else ranks)
    for r in ranks:
        if not 0 <= r < d.size():
            raise ValueError("Invalid rank: " + str(r) + f" (world size is {d.size()})")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: duplicate ranks in {ranks}")
    me = d.rank()
    _fingerprint(d, f"new_group(ranks={ranks})")     # (Split blocks: first check everyone came)
    MPI = _mpi.mpi()
    comm = d._comm.Split(0 if me in ranks else MPI.UNDEFINED, me)
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm, ranks, _resolve_backend(backend) if backend else d._backend,
                      timeout or d._timeout, me)
    _world.groups.append(pg)
    return pg


def get_rank(group=None) -> int:
    pg = _pg(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None) -> int:
    pg = _pg(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None):
    pg = _pg(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return pg._backend


def get_process_group_ranks(group) -> list:
    return list(_pg(group)._ranks)


def get_global_rank(group, group_rank: int) -> int:
    return _pg(group)._ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    return _pg(group)._group_rank(global_rank, "get_group_rank")


# --- checks --------------------------------------------------------------------------------------
def _check_tensor(t, name):
    if not isinstance(t, ember.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"ember.Tensor but got {type(t)} instead.")
    if t.device.type not in ("cpu", "cuda"):
        raise ValueError(f"ember.distributed: tensors on {t.device.type} are not supported")


def _check_list(ts, name):
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, ember.Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        "List[ember.Tensor] but got " + str(type(ts)) + " instead.")


def _check_op(op, dtype):
    op = RedOpType(op)
    if op in (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR) and dtype.is_floating_point:
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op == RedOpType.AVG and not dtype.is_floating_point:
        raise RuntimeError("result type Float can't be cast to the desired output type "
                           f"{dtype.scalar_name}")
    if op in (RedOpType.PREMUL_SUM, RedOpType.UNUSED):
        raise ValueError(f"ember.distributed does not support ReduceOp.{op.name}")
    return op


def _describe(name, tensors, root):
    shapes = ", ".join(f"[{', '.join(map(str, t.shape))}]" for t in tensors)
    dtypes = ", ".join(t.dtype.scalar_name for t in tensors)
    text = f"{name}(TensorShape={shapes}, TensorDtypes={dtypes}"
    return text + (f", Root={root})" if root is not None else ")")


def _fingerprint(pg, name, tensors=(), root=None):
    """Raises the same DistError on every rank when the ranks disagree on the collective,
    its shapes, dtypes or root (see the module docstring)."""
    if os.environ.get("EMBER_DISTRIBUTED_CHECK", "1") == "0" or pg.size() == 1:
        return
    text = _describe(name, tensors, root)
    crc = zlib.crc32(text.encode())
    v = np.array([crc, -crc], np.int64)
    _mpi.poll(pg, [pg._comm.Iallreduce(_mpi.mpi().IN_PLACE, v, _mpi.mpi().MAX)], name,
              pg._timeout_seconds())
    if v[0] == -v[1]:
        return
    seen = [b.decode() for b in _mpi.all_gather_bytes(pg, text.encode(), name)]
    me = pg.rank()
    other = next(i for i, s in enumerate(seen) if s != text)
    raise DistError(f"Detected mismatch between collectives on ranks. Rank {pg._ranks[me]} is "
                    f"running collective: {text}, but Rank {pg._ranks[other]} is running "
                    f"collective: {seen[other]}")


# --- buffers -------------------------------------------------------------------------------------
def _host(t):
    """(C-contiguous array over `t`'s data, copy-back or None)."""
    if _on_cuda(t):
        raise RuntimeError("ember.distributed: this operation takes CPU tensors (NCCL runs "
                           "all_reduce, broadcast, all_gather_into_tensor, reduce_scatter_tensor)")
    a = t.numpy(force=True)
    if a.flags.c_contiguous:
        return a, None
    c = np.ascontiguousarray(a)
    return c, lambda: a.__setitem__(..., c)


def _finish(work, *fns, async_op=False):
    work._finish.extend(f for f in fns if f is not None)
    if async_op:
        return work
    work.wait()
    return None


def _on_cuda(t):
    return t.device.type == "cuda"


def _nccl(pg):
    if pg._nccl is None:
        if not _has_gpu():
            raise RuntimeError("ember.distributed: CUDA tensors need NCCL (cupy) and a GPU")
        from ._nccl import NcclComm
        pg._nccl = NcclComm(pg)
    return pg._nccl


# --- collectives ---------------------------------------------------------------------------------
def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `tensor` over the group in place, on every rank."""
    _check_tensor(tensor, "tensor")
    op = _check_op(op, tensor.dtype)
    pg = _pg(group)
    if pg is None:
        return None
    _fingerprint(pg, f"all_reduce[{op.name}]", [tensor])
    return _all_reduce(pg, tensor, op, async_op)


def _all_reduce(pg, tensor, op, async_op):
    if _on_cuda(tensor):
        return _nccl(pg).all_reduce(tensor, op, async_op)
    a, back = _host(tensor)
    return _finish(_mpi.all_reduce(pg, a, op), back, async_op=async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduces `tensor` over the group into rank `dst`'s `tensor`."""
    _check_tensor(tensor, "tensor")
    op = _check_op(op, tensor.dtype)
    pg = _pg(group)
    if pg is None:
        return None
    root = group_dst if group_dst is not None else pg._group_rank(dst, "reduce")
    _fingerprint(pg, f"reduce[{op.name}]", [tensor], root)
    a, back = _host(tensor)
    return _finish(_mpi.reduce(pg, a, op, root), back, async_op=async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copies rank `src`'s `tensor` into every rank's `tensor`."""
    _check_tensor(tensor, "tensor")
    pg = _pg(group)
    if pg is None:
        return None
    root = group_src if group_src is not None else pg._group_rank(src, "broadcast")
    _fingerprint(pg, "broadcast", [tensor], root)
    if _on_cuda(tensor):
        return _nccl(pg).broadcast(tensor, root, async_op)
    a, back = _host(tensor)
    return _finish(_mpi.broadcast(pg, a, root), back, async_op=async_op)


def _check_outputs(what, tensors, like, n):
    if len(tensors) != n:
        raise RuntimeError(f"{what}: invalid output tensor list at index 0 (expected length {n}, "
                           f"got {len(tensors)})")
    for i, t in enumerate(tensors):
        if t.dtype != like.dtype:
            raise RuntimeError(f"{what}: invalid tensor type at index {i} (expected "
                               f"{like.dtype.scalar_name}, got {t.dtype.scalar_name})")
        if t.shape != like.shape:
            raise RuntimeError(f"{what}: invalid tensor size at index {i} (expected "
                               f"({', '.join(map(str, like.shape))}), got "
                               f"({', '.join(map(str, t.shape))}))")


def _spread(out, tensors):
    """Copies the rows of `out` into `tensors` (a step run when the Work completes)."""
    def run():
        for row, t in zip(out, tensors):
            t.numpy(force=True)[...] = row
    return run


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's `tensor`, in rank order, into `tensor_list` on every rank."""
    _check_list(tensor_list, "tensor_list")
    _check_tensor(tensor, "tensor")
    pg = _pg(group)
    if pg is None:
        return None
    _check_outputs("allgather", tensor_list, tensor, pg.size())
    _fingerprint(pg, "all_gather", [tensor])
    a, _ = _host(tensor)
    out = np.empty((pg.size(), *a.shape), a.dtype)
    return _finish(_mpi.all_gather(pg, a, out), _spread(out, tensor_list), async_op=async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's `input_tensor`, concatenated (or stacked) in rank order, into
    `output_tensor`."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    pg = _pg(group)
    if pg is None:
        return None
    if output_tensor.dtype != input_tensor.dtype:
        raise RuntimeError("output tensor must have the same type as input tensor")
    if output_tensor.numel() != pg.size() * input_tensor.numel():
        raise RuntimeError("output tensor size must be equal to world_size times input tensor "
                           f"size (got {output_tensor.numel()}, expected {pg.size()} * "
                           f"{input_tensor.numel()})")
    _fingerprint(pg, "all_gather_into_tensor", [input_tensor])
    if _on_cuda(output_tensor):
        return _nccl(pg).all_gather(output_tensor, input_tensor, async_op)
    a, _ = _host(input_tensor)
    out, back = _host(output_tensor)
    return _finish(_mpi.all_gather(pg, a, out), back, async_op=async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `input_list[i]` over the ranks into rank i's `output`."""
    _check_tensor(output, "output")
    _check_list(input_list, "input_list")
    op = _check_op(op, output.dtype)
    pg = _pg(group)
    if pg is None:
        return None
    _check_outputs("reduce_scatter", input_list, output, pg.size())
    _fingerprint(pg, f"reduce_scatter[{op.name}]", [output])
    src = np.stack([t.numpy(force=True) for t in input_list]) if input_list else None
    out, back = _host(output)
    return _finish(_mpi.reduce_scatter(pg, src, out, op), back, async_op=async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `input` (world_size chunks along its first dimension) over the ranks; rank i
    gets chunk i in `output`."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    op = _check_op(op, output.dtype)
    pg = _pg(group)
    if pg is None:
        return None
    if output.dtype != input.dtype:
        raise RuntimeError("input tensor must have the same type as output tensor")
    if input.numel() != pg.size() * output.numel():
        raise RuntimeError("input tensor must be the same size as output size times world size "
                           f"(got {input.numel()}, expected {pg.size()} * {output.numel()})")
    _fingerprint(pg, f"reduce_scatter_tensor[{op.name}]", [input])
    if _on_cuda(output):
        return _nccl(pg).reduce_scatter(output, input, op, async_op)
    src, _ = _host(input)
    out, back = _host(output)
    return _finish(_mpi.reduce_scatter(pg, src, out, op), back, async_op=async_op)


def _root_list(pg, lst, root, name, role):
    if pg.rank() == root and not lst:
        raise ValueError(f"Argument ``{name}`` must be specified on {role} rank.")
    if pg.rank() != root and lst:
        raise ValueError(f"Argument ``{name}`` must NOT be specified on non-{role} ranks.")


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Every rank's `tensor`, in rank order, into `gather_list` on rank `dst`."""
    _check_tensor(tensor, "tensor")
    pg = _pg(group)
    if pg is None:
        return None
    root = group_dst if group_dst is not None else pg._group_rank(dst, "gather")
    _root_list(pg, gather_list, root, "gather_list", "destination")
    if gather_list:
        _check_list(gather_list, "gather_list")
        _check_outputs("gather", gather_list, tensor, pg.size())
    _fingerprint(pg, "gather", [tensor], root)
    a, _ = _host(tensor)
    out = np.empty((pg.size(), *a.shape), a.dtype) if gather_list else None
    return _finish(_mpi.gather(pg, a, out, root),
                   _spread(out, gather_list) if gather_list else None, async_op=async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Rank `src`'s `scatter_list[i]` into rank i's `tensor`."""
    _check_tensor(tensor, "tensor")
    pg = _pg(group)
    if pg is None:
        return None
    root = group_src if group_src is not None else pg._group_rank(src, "scatter")
    _root_list(pg, scatter_list, root, "scatter_list", "source")
    if scatter_list:
        _check_list(scatter_list, "scatter_list")
        _check_outputs("scatter", scatter_list, tensor, pg.size())
    _fingerprint(pg, "scatter", [tensor], root)
    src_arr = np.stack([t.numpy(force=True) for t in scatter_list]) if scatter_list else None
    out, back = _host(tensor)
    return _finish(_mpi.scatter(pg, src_arr, out, root), back, async_op=async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Returns when every rank of the group has reached it."""
    pg = _pg(group)
    if pg is None:
        return None
    _fingerprint(pg, "barrier")
    return _finish(_mpi.barrier(pg), async_op=async_op)


# --- point to point ------------------------------------------------------------------------------
def _header(t):
    return _mpi.header(_DTYPES.index(t.dtype), t.dtype.itemsize, list(t.shape))


def _render(h):
    dt = _DTYPES[int(h[0])].scalar_name if 0 <= h[0] < len(_DTYPES) else "?"
    dims = [str(int(s)) for s in h[4:4 + min(int(h[3]), 6)]] + ["..."] * (int(h[3]) > 6)
    return f"a {dt} tensor of shape [{', '.join(dims)}]"


def _peer(pg, rank, role):
    if rank == pg._global_rank:
        raise ValueError(f"Invalid {role} rank: {role} rank should not be the same as the rank "
                         "of the current process.")
    return pg._group_rank(rank, "send" if role == "destination" else "recv")


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Starts sending `tensor` to rank `dst`; returns a Work."""
    _check_tensor(tensor, "tensor")
    pg = _pg(group)
    if pg is None:
        return None
    peer = group_dst if group_dst is not None else _peer(pg, dst, "destination")
    a, _ = _host(tensor)
    return _mpi.send(pg, a, _header(tensor), peer, tag)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Starts receiving into `tensor` from rank `src` (any rank when None); returns a Work
    whose result() is the sender's group rank."""
    _check_tensor(tensor, "tensor")
    pg = _pg(group)
    if pg is None:
        return None
    peer = group_src if group_src is not None else (
        None if src is None else _peer(pg, src, "source"))
    a, back = _host(tensor)
    work = _mpi.recv(pg, a, _header(tensor), peer, tag, _render)
    if back:
        work._finish.insert(0, back)
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends `tensor` to rank `dst` (returns when the send buffer may be reused)."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into `tensor` from rank `src` (any rank when None); returns the sender's
    global rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    return _pg(group)._ranks[work.result()]


class P2POp:
    """One isend/irecv for batch_isend_irecv."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed."
                             "isend`` or ``torch.distributed.irecv``.")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag
        self.group_peer = group_peer


def batch_isend_irecv(p2p_op_list):
    """Starts every op of the list; returns their Works."""
    return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]


# --- Python objects (pickled) --------------------------------------------------------------------
def all_gather_object(object_list, obj, group=None):
    """Every rank's picklable `obj`, in rank order, into `object_list`."""
    pg = _pg(group)
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list must have {pg.size()} entries "
                         f"(the group size), got {len(object_list)}")
    _fingerprint(pg, "all_gather_object")
    for i, b in enumerate(_mpi.all_gather_bytes(pg, pickle.dumps(obj), "all_gather_object")):
        object_list[i] = pickle.loads(b)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Rank `src`'s `object_list` entries into every rank's `object_list` (same length)."""
    pg = _pg(group)
    if pg is None:
        return
    root = group_src if group_src is not None else pg._group_rank(src, "broadcast")
    _fingerprint(pg, "broadcast_object_list", root=root)
    data = pickle.dumps(list(object_list)) if pg.rank() == root else None
    got = pickle.loads(_mpi.broadcast_bytes(pg, data, root, "broadcast_object_list"))
    if len(got) != len(object_list):
        raise ValueError(f"broadcast_object_list: rank {pg._ranks[root]} sent {len(got)} "
                         f"objects, object_list has {len(object_list)}")
    object_list[:] = got


__all__ = [
    "Backend", "DistBackendError", "DistError", "GroupMember", "P2POp", "ProcessGroup",
    "ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce",
    "barrier", "batch_isend_irecv", "broadcast", "broadcast_object_list", "default_pg_timeout", "destroy_process_group",
    "gather", "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks",
    "get_rank", "get_world_size", "group", "init_process_group", "irecv", "is_available",
    "is_gloo_available", "is_initialized", "is_mpi_available", "is_nccl_available", "isend",
    "new_group", "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter", "send",
]
