"""Pins NumPy's BLAS (OpenBLAS/MKL/OpenMP) to `--threads N` threads (default 1) before
NumPy loads: import this module first. `harness.Table` gives torch the same number, so
every row compares like with like.

    import threads  # noqa: F401  (first: before NumPy reads the environment)
"""
from __future__ import annotations

import os
import sys

BLAS_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def requested(argv) -> str:
    """The value of --threads N / --threads=N in argv, else "1"."""
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--threads="):
            return a.split("=", 1)[1]
    return "1"


for _var in BLAS_VARS:
    os.environ.setdefault(_var, requested(sys.argv[1:]))

THREADS = int(os.environ["OPENBLAS_NUM_THREADS"])
