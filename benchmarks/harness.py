"""Shared timing and reporting for the benchmark scripts: medians with min-max of many
repetitions, one table with ember/torch and ember/NumPy ratios, optional JSON.

    >>> table = Table("case")
    >>> table.add("a + b", measure(f_ember), measure(f_numpy), measure(f_torch))
    >>> table.write_json("out.json")
"""
from __future__ import annotations

import json
import statistics
import sys
import timeit

import numpy as np

try:
    import torch
except ImportError:  # torch is optional: its columns are left empty
    torch = None


def measure(fn, number=20000, repeat=15):
    """Median and (min, max) of microseconds per call."""
    fn()
    times = [t / number * 1e6 for t in timeit.repeat(fn, number=number, repeat=repeat)]
    return statistics.median(times), min(times), max(times)


def fmt(r):
    return "-" if r is None else f"{r[0]:7.2f} ({r[1]:.2f}-{r[2]:.2f})"


class Table:
    """Prints one row per case as it is measured; keeps them for JSON."""

    def __init__(self, width=28):
        self.width = width
        self.rows = []
        if torch is not None:
            torch.set_num_threads(1)
        print(f"{'case':{width}} {'ember us':>22} {'numpy us':>22} {'torch us':>22} "
              f"{'e/torch':>8} {'e/numpy':>8}")

    def add(self, name, re, rn, rt):
        ratio_t = re[0] / rt[0] if rt else None
        ratio_n = re[0] / rn[0]
        self.rows.append({"case": name, "ember_us": re, "numpy_us": rn, "torch_us": rt,
                          "ember_over_torch": ratio_t, "ember_over_numpy": ratio_n})
        print(f"{name:{self.width}} {fmt(re):>22} {fmt(rn):>22} {fmt(rt):>22} "
              f"{(f'{ratio_t:.2f}' if ratio_t else '-'):>8} {ratio_n:8.2f}")

    def write_json(self, path):
        if path:
            with open(path, "w") as f:
                json.dump({"python": sys.version.split()[0], "numpy": np.__version__,
                           "torch": getattr(torch, "__version__", None), "rows": self.rows},
                          f, indent=2)
