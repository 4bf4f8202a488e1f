"""The CUDA backend: NCCL through cupy.cuda.nccl (one communicator per process group, its
unique id broadcast over the group's MPI communicator). Untested here: no GPU."""
from __future__ import annotations

import pickle

from . import _mpi
from .constants import RedOpType


class NcclWork:
    """A NCCL call queued on the current stream; `wait()` waits for its event, polling so
    that the group's timeout holds."""

    def __init__(self, group, event, finish=()):
        self._group, self._event, self._finish = group, event, list(finish)

    def is_completed(self) -> bool:
        return self._event.done

    def wait(self, timeout=None) -> bool:
        import time
        seconds, start = self._group._timeout_seconds(timeout), time.monotonic()
        while not self._event.done:
            if time.monotonic() - start > seconds:
                _mpi._State.broken = True
                raise _mpi.DistBackendError(f"NCCL operation timed out after {seconds}s")
            time.sleep(1e-4)
        for fn in self._finish:
            fn()
        self._finish = []
        return True


class NcclComm:
    def __init__(self, group):
        import cupy
        from cupy.cuda import nccl
        self.cupy, self.nccl, self.group = cupy, nccl, group
        uid = nccl.get_unique_id() if group.rank() == 0 else None
        uid = pickle.loads(_mpi.broadcast_bytes(
            group, pickle.dumps(uid) if group.rank() == 0 else None, 0, "NCCL init"))
        self.comm = nccl.NcclCommunicator(group.size(), uid, group.rank())
        self.types = {"float16": nccl.NCCL_FLOAT16, "float32": nccl.NCCL_FLOAT32,
                      "float64": nccl.NCCL_FLOAT64, "int32": nccl.NCCL_INT32,
                      "int64": nccl.NCCL_INT64, "int8": nccl.NCCL_INT8, "uint8": nccl.NCCL_UINT8,
                      "bool": nccl.NCCL_UINT8, "bfloat16": getattr(nccl, "NCCL_BFLOAT16", None)}
        self.ops = {RedOpType.SUM: nccl.NCCL_SUM, RedOpType.PRODUCT: nccl.NCCL_PROD,
                    RedOpType.MIN: nccl.NCCL_MIN, RedOpType.MAX: nccl.NCCL_MAX,
                    RedOpType.AVG: getattr(nccl, "NCCL_AVG", None)}

    def _args(self, t, op=None):
        kind = self.types.get(t.dtype.name)
        if kind is None or (op is not None and self.ops.get(op) is None):
            raise RuntimeError(f"NCCL: unsupported dtype {t.dtype} or op {op}")
        return kind, (self.ops[op] if op is not None else None)

    def _run(self, t, call, async_op):
        c = t if t.is_contiguous() else t.contiguous()
        stream = self.cupy.cuda.get_current_stream()
        call(c, stream.ptr)
        event = stream.record()
        work = NcclWork(self.group, event, [] if c is t else [lambda: t.copy_(c)])
        if async_op:
            return work
        work.wait()
        return None

    def all_reduce(self, t, op, async_op):
        kind, nop = self._args(t, op)
        return self._run(t, lambda c, s: self.comm.allReduce(
            c.data_ptr(), c.data_ptr(), c.numel(), kind, nop, s), async_op)

    def broadcast(self, t, root, async_op):
        kind, _ = self._args(t)
        return self._run(t, lambda c, s: self.comm.bcast(c.data_ptr(), c.numel(), kind, root, s),
                         async_op)

    def all_gather(self, out, inp, async_op):
        kind, _ = self._args(inp)
        src = inp.contiguous()
        return self._run(out, lambda c, s: self.comm.allGather(
            src.data_ptr(), c.data_ptr(), src.numel(), kind, s), async_op)

    def reduce_scatter(self, out, inp, op, async_op):
        kind, nop = self._args(out, op)
        src = inp.contiguous()
        return self._run(out, lambda c, s: self.comm.reduceScatter(
            src.data_ptr(), c.data_ptr(), c.numel(), kind, nop, s), async_op)
