"""The CPU backend: MPI through mpi4py (the mpich wheel's libmpi, started by mpiexec).

Every operation is MPI's non-blocking form (Iallreduce, Ibcast, ...) returning a `Work`;
`Work.wait` polls it with `Request.Testall`, so a wait honours the group's timeout and
notices a peer process that died (on this host) instead of blocking inside MPI forever.
Buffers are C-contiguous NumPy arrays; float16/bfloat16 reduce in float32 (MPI has no
such types), bool reduces as uint8 with logical or/and.
"""
from __future__ import annotations

import os
import time
from typing import ClassVar

import numpy as np

from .constants import RedOpType

_MPI = None


def mpi():
    """mpi4py's MPI module (imported on first use: importing it initialises MPI)."""
    global _MPI
    if _MPI is None:
        import mpi4py
        mpi4py.rc.initialize = True
        from mpi4py import MPI
        _MPI = MPI
    return _MPI


class DistError(RuntimeError):
    """Base of ember.distributed's errors (torch.distributed.DistError)."""
    __module__ = "ember.distributed"


class DistBackendError(DistError):
    """A collective failed in the backend: a timeout or a peer that died."""
    __module__ = "ember.distributed"


class _State:
    broken = False        # a wait gave up with requests in flight: skip MPI_Finalize at exit
    pids: ClassVar[dict] = {}       # global rank -> pid of the ranks on this host


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


class Work:
    """An operation in flight (torch's `Work`): `wait()` blocks until it completes (or
    raises on timeout / dead peer), then runs its finishing steps (copy-backs)."""

    def __init__(self, group, requests, what, finish=(), steps=(), statuses=None):
        self._group, self._reqs, self._what = group, list(requests), what
        self._statuses = statuses
        self._finish, self._steps = list(finish), list(steps)
        self._done = False
        self._result = None

    def is_completed(self) -> bool:
        if not self._done and not self._steps and mpi().Request.Testall(self._reqs,
                                                                       self._statuses):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self._done

    def wait(self, timeout=None) -> bool:
        if self._done:
            return True
        seconds = self._group._timeout_seconds(timeout)
        while True:
            poll(self._group, self._reqs, self._what, seconds, self._statuses)
            if not self._steps:
                break
            self._reqs, self._statuses = list(self._steps.pop(0)()), None     # the next stage
        self._complete()
        return True

    def result(self):
        self.wait()
        return self._result

    def _complete(self):
        for fn in self._finish:
            r = fn()
            if r is not None:
                self._result = r
        self._finish, self._done = [], True


def poll(group, reqs, what, seconds, statuses=None):
    """Drives `reqs` to completion (filling `statuses`); DistBackendError after `seconds` or
    when a peer on this host has exited (the wait would never end)."""
    MPI = mpi()
    start = time.monotonic()
    next_check = start + 0.05
    while not MPI.Request.Testall(reqs, statuses):
        now = time.monotonic()
        if now - start < 0.05:      # a collective's usual wait: yield the core to the peers
            os.sched_yield()
            continue
        if now >= next_check:
            next_check = now + 0.05
            dead = [r for r in group._ranks if r in _State.pids and not _alive(_State.pids[r])]
            if dead:
                _State.broken = True
                raise DistBackendError(
                    f"[Rank {group._global_rank}] {what}: rank {dead[0]} (pid "
                    f"{_State.pids[dead[0]]}) exited before taking part; the process group "
                    "cannot complete this operation")
        if now - start > seconds:
            _State.broken = True
            raise DistBackendError(
                f"[Rank {group._global_rank}] {what}: Timed out waiting {int(seconds * 1000)}ms "
                "for the operation to complete (a rank did not reach it)")
        time.sleep(min(1e-3, (now - start) / 100))


# --- buffers -------------------------------------------------------------------------------------
_MPI_OP = {RedOpType.SUM: "SUM", RedOpType.AVG: "SUM", RedOpType.PRODUCT: "PROD",
           RedOpType.MIN: "MIN", RedOpType.MAX: "MAX", RedOpType.BAND: "BAND",
           RedOpType.BOR: "BOR", RedOpType.BXOR: "BXOR"}
_BOOL_OP = {RedOpType.SUM: "LOR", RedOpType.MAX: "LOR", RedOpType.BOR: "LOR",
            RedOpType.PRODUCT: "LAND", RedOpType.MIN: "LAND", RedOpType.BAND: "LAND",
            RedOpType.BXOR: "LXOR"}


def raw(a: np.ndarray):
    """`a` as MPI bytes (for operations that only move data: any dtype, bfloat16 too)."""
    return [a.view(np.uint8).reshape(-1), mpi().BYTE]


def reducible(a: np.ndarray, op):
    """(buffer MPI reduces, MPI op, copy-back or None) for reducing `a` with `op`."""
    MPI = mpi()
    if a.dtype == np.bool_:
        return a.view(np.uint8), getattr(MPI, _BOOL_OP[op]), None
    if a.dtype.itemsize == 2 and a.dtype.kind == "f" or a.dtype.name == "bfloat16":
        wide = a.astype(np.float32)
        return wide, getattr(MPI, _MPI_OP[op]), lambda: a.__setitem__(..., wide)
    return a, getattr(MPI, _MPI_OP[op]), None


def _avg(buf, n):
    np.divide(buf, n, out=buf)      # (AVG is refused on integer dtypes, as torch)


# --- operations on C-contiguous arrays (group: the ProcessGroup, comm: its communicator) ----------
def all_reduce(group, a, op):
    buf, mop, back = reducible(a, op)
    req = group._comm.Iallreduce(mpi().IN_PLACE, buf, mop)
    finish = [lambda: _avg(buf, group.size())] if op == RedOpType.AVG else []
    return Work(group, [req], "all_reduce", finish + ([back] if back else []))


def reduce(group, a, op, root):
    buf, mop, back = reducible(a, op)
    MPI = mpi()
    mine = group.rank() == root
    req = group._comm.Ireduce(MPI.IN_PLACE if mine else buf, buf if mine else None, mop, root)
    finish = [lambda: _avg(buf, group.size())] if op == RedOpType.AVG and mine else []
    return Work(group, [req], "reduce", finish + ([back] if back and mine else []))


def broadcast(group, a, root):
    return Work(group, [group._comm.Ibcast(raw(a), root)], "broadcast")


def all_gather(group, a, out):
    return Work(group, [group._comm.Iallgather(raw(a), raw(out))], "all_gather")


def gather(group, a, out, root):
    return Work(group, [group._comm.Igather(raw(a), raw(out) if out is not None else None, root)],
                "gather")


def scatter(group, src, a, root):
    return Work(group, [group._comm.Iscatter(raw(src) if src is not None else None, raw(a), root)],
                "scatter")


def reduce_scatter(group, src, out, op):
    buf, mop, _ = reducible(src, op)
    dst, _, back = reducible(out, op)
    req = group._comm.Ireduce_scatter_block(buf, dst, mop)
    finish = [lambda: _avg(dst, group.size())] if op == RedOpType.AVG else []
    return Work(group, [req], "reduce_scatter", finish + ([back] if back else []))


def barrier(group):
    return Work(group, [group._comm.Ibarrier()], "barrier")


def all_gather_bytes(group, data: bytes, what) -> list[bytes]:
    """Every rank's `data` (any length), in rank order."""
    n = group.size()
    sizes = np.zeros(n, np.int64)
    poll(group, [group._comm.Iallgather(np.array([len(data)], np.int64), sizes)], what,
         group._timeout_seconds())
    out = np.empty(int(sizes.sum()), np.uint8)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    mine = np.frombuffer(data, np.uint8) if data else np.empty(0, np.uint8)
    MPI = mpi()
    poll(group, [group._comm.Iallgatherv([mine, MPI.BYTE], [out, (sizes, offsets), MPI.BYTE])],
         what, group._timeout_seconds())
    return [out[o:o + s].tobytes() for o, s in zip(offsets, sizes)]


def broadcast_bytes(group, data: bytes | None, root, what) -> bytes:
    """`data` of rank `root` on every rank."""
    size = np.array([len(data) if data is not None else 0], np.int64)
    poll(group, [group._comm.Ibcast(size, root)], what, group._timeout_seconds())
    buf = np.frombuffer(bytearray(data), np.uint8) if data is not None else \
        np.empty(int(size[0]), np.uint8)
    poll(group, [group._comm.Ibcast([buf, mpi().BYTE], root)], what, group._timeout_seconds())
    return buf.tobytes()


# --- point to point: a small header (dtype, shape) then the payload, so a mismatch is named -------
_HEADER = 10        # int64s: dtype code, itemsize, numel, ndim, up to 6 sizes


def header(code, itemsize, shape):
    h = np.full(_HEADER, -1, np.int64)
    h[:4] = code, itemsize, int(np.prod(shape, dtype=np.int64)), len(shape)
    h[4:4 + min(len(shape), 6)] = shape[:6]
    return h


def send(group, a, h, dst, tag):
    comm = group._comm
    work = Work(group, [comm.Isend(h, dst, 2 * tag), comm.Isend(raw(a), dst, 2 * tag + 1)],
                "send")
    work._buffers = (h, a)      # alive until the sends complete
    return work


def recv(group, a, expect, src, tag, describe):
    """Receives into `a`; `expect` is the header this rank's tensor has, `describe(h)`
    renders a header for the error. The Work's result is the sender's group rank."""
    MPI = mpi()
    h, status = np.empty(_HEADER, np.int64), MPI.Status()
    source = MPI.ANY_SOURCE if src is None else src
    req = group._comm.Irecv(h, source, 2 * tag)
    got = []

    def payload():
        sender = status.Get_source()
        if not np.array_equal(h, expect):     # take the payload off the queue, then raise
            poll(group, [group._comm.Irecv([np.empty(h[1] * h[2], np.uint8), MPI.BYTE], sender,
                                           2 * tag + 1)], "recv", group._timeout_seconds())
            raise DistError(f"[Rank {group._global_rank}] recv: rank {group._ranks[sender]} "
                            f"sent {describe(h)} but the receiving tensor is {describe(expect)}")
        got.append(sender)
        return [group._comm.Irecv(raw(a), sender, 2 * tag + 1)]
    return Work(group, [req], "recv", [lambda: got[0]], steps=[payload], statuses=[status])
