"""Names torch.distributed exports: reduction ops, backends, the default timeout."""
from __future__ import annotations

from datetime import timedelta
from enum import Enum

default_pg_timeout = timedelta(minutes=30)


class RedOpType(int, Enum):
    """The reduction of a collective (torch's ReduceOp.RedOpType)."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9


class ReduceOp:
    """`ReduceOp.SUM`, `ReduceOp.AVG`, ... as in torch.distributed."""
    RedOpType = RedOpType
    SUM, AVG, PRODUCT, MIN, MAX = (RedOpType.SUM, RedOpType.AVG, RedOpType.PRODUCT,
                                   RedOpType.MIN, RedOpType.MAX)
    BAND, BOR, BXOR, PREMUL_SUM, UNUSED = (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR,
                                           RedOpType.PREMUL_SUM, RedOpType.UNUSED)

    def __new__(cls, op=RedOpType.SUM):
        return RedOpType(op)


class Backend(str):
    """A backend name, lower-cased: "mpi" (CPU tensors), "nccl" (CUDA tensors); "gloo"
    is accepted and runs on MPI, so torch code that asks for Gloo runs unchanged."""
    UNDEFINED, GLOO, NCCL, MPI = "undefined", "gloo", "nccl", "mpi"
    backend_list = (UNDEFINED, GLOO, NCCL, MPI)

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise TypeError(f"Backend constructor parameter must be string-ish, but got: {name!r}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return super().__new__(cls, value)
