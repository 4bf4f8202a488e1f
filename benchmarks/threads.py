"""Pins NumPy's BLAS (OpenBLAS/MKL/OpenMP) to `--threads N` threads before NumPy loads:
import this module first. --threads wins over the environment's OPENBLAS_NUM_THREADS &
co.; without it their value is kept (the same for all three), else 1. `harness.Table`
gives torch the same number, so every row compares like with like.

    import threads  # noqa: F401  (first: before NumPy reads the environment)
"""
from __future__ import annotations

import os
import sys

BLAS_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def requested(argv) -> str | None:
    """The value of --threads N / --threads=N in argv, or None."""
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--threads="):
            return a.split("=", 1)[1]
    return None


def configure(argv, environ) -> int:
    """Sets every BLAS variable of `environ` to --threads N when argv gives it (over any
    value already set), else to the first one already set, else 1; returns N."""
    n = requested(argv)
    if n is None:
        n = next((environ[v] for v in BLAS_VARS if environ.get(v)), "1")
    for var in BLAS_VARS:
        environ[var] = n
    return int(n)


THREADS = configure(sys.argv[1:], os.environ)
