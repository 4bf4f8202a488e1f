"""Shared timing and reporting for the benchmark scripts: medians with min-max of many
repetitions, one table with ember/torch and ember/NumPy ratios, optional JSON.

    >>> table = Table("case")
    >>> table.add("a + b", measure(f_ember), measure(f_numpy), measure(f_torch))
    >>> table.write_json("out.json")
"""
from __future__ import annotations

import threads  # first: pins the BLAS threads before NumPy loads

# isort: split
import json
import os
import statistics
import sys
import time
import timeit

import numpy as np

try:
    import torch
except ImportError:  # torch is optional: its columns are left empty
    torch = None

TIMERS = {"wall": time.perf_counter, "cpu": time.process_time}


def measure(fn, number=20000, repeat=15, timer=time.perf_counter):
    """Median and (min, max) of microseconds per call; None for a missing `fn`."""
    if fn is None:
        return None
    fn()
    times = [t / number * 1e6 for t in timeit.repeat(fn, number=number, repeat=repeat,
                                                      timer=timer)]
    return statistics.median(times), min(times), max(times)


def warm_allocator():
    """Allocate and free one 24 MiB array first. glibc serves big blocks by mmap (fresh,
    page-faulting memory each call) until a freed mmap block raises its threshold: without
    this, whichever library allocated big arrays first speeds up the other one's calls
    (torch's conv2d took 2x longer in a process where nothing big had been freed yet).
    Same allocator state for every library: a like-for-like comparison."""
    a = np.ones(6 << 20, np.float32)
    del a


def fmt(r, scale=1.0):
    return "-" if r is None else f"{r[0] / scale:7.2f} ({r[1] / scale:.2f}-{r[2] / scale:.2f})"


class Table:
    """Prints one row per case as it is measured; keeps them for JSON. torch runs on
    as many threads as NumPy's BLAS (`threads.THREADS`)."""

    def __init__(self, width=28, unit="us"):
        self.width = width
        self.rows = []
        if torch is not None:
            torch.set_num_threads(threads.THREADS)
        print(f"{'case':{width}} {'ember ' + unit:>24} {'numpy ' + unit:>24} "
              f"{'torch ' + unit:>24} {'e/torch':>8} {'e/numpy':>8}")

    def add(self, name, re, rn, rt, unit="us"):
        """One row (results in microseconds); `unit="ms"` prints it in milliseconds."""
        ratio_t = re[0] / rt[0] if re and rt else None
        ratio_n = re[0] / rn[0] if re and rn else None
        self.rows.append({"case": name, "ember_us": re, "numpy_us": rn, "torch_us": rt,
                          "ember_over_torch": ratio_t, "ember_over_numpy": ratio_n})
        scale = 1000.0 if unit == "ms" else 1.0
        label = f"{name} [ms]" if unit == "ms" else name
        print(f"{label:{self.width}} {fmt(re, scale):>24} {fmt(rn, scale):>24} "
              f"{fmt(rt, scale):>24} {(f'{ratio_t:.2f}' if ratio_t else '-'):>8} "
              f"{(f'{ratio_n:.2f}' if ratio_n else '-'):>8}", flush=True)

    def write_json(self, path, **extra):
        """The rows, library versions, thread settings and any `extra` fields."""
        if path:
            with open(path, "w") as f:
                json.dump({"python": sys.version.split()[0], "numpy": np.__version__,
                           "torch": getattr(torch, "__version__", None),
                           "threads": {"torch": torch.get_num_threads() if torch else None,
                                       **{v: os.environ.get(v) for v in threads.BLAS_VARS}},
                           **extra, "rows": self.rows}, f, indent=2)
