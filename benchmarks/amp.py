"""What autocast costs: ember next to torch (CPU autocast, bfloat16) and NumPy by hand.

    .venv/bin/python benchmarks/amp.py [--json out.json]

Rows: `linear(x, w, b)` with x (64, 64), w (128, 64) requiring grad, in float32 and
under autocast (a listed op: the wrapper casts x, w and b; w's and b's casts come from
the weight cache after the first call); `a + b` on (4,) under autocast (an op that is not
listed: the autocast key falls through); entering and leaving an autocast region.
The NumPy column does the same arithmetic by hand (bfloat16 rounding via ml_dtypes).
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse

import ml_dtypes
import numpy as np
from harness import Table, measure, torch

import ember

BF16 = ml_dtypes.bfloat16


def _numpy_linear(x, w, b, low):
    if not low:
        return lambda: x @ w.T + b
    def run():
        lx, lw, lb = x.astype(BF16), w.astype(BF16), b.astype(BF16)
        return (lx.astype(np.float32) @ lw.astype(np.float32).T + lb).astype(BF16)
    return run


def _timed(lib, fn, number, amp):
    """measure(fn) inside one autocast region (so the weight cache is warm), or outside."""
    if lib is None:
        return None
    if not amp:
        return measure(fn, number=number)
    with lib.autocast("cpu"):
        return measure(fn, number=number)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="benchmarks/last_run_amp.json")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 64)).astype(np.float32)
    w = rng.standard_normal((128, 64)).astype(np.float32)
    b = rng.standard_normal(128).astype(np.float32)
    a4 = rng.standard_normal(4).astype(np.float32)
    e = {"x": ember.tensor(x), "w": ember.tensor(w, requires_grad=True),
         "b": ember.tensor(b, requires_grad=True), "a": ember.tensor(a4)}
    t = {}
    if torch is not None:
        t = {"x": torch.tensor(x), "w": torch.tensor(w, requires_grad=True),
             "b": torch.tensor(b, requires_grad=True), "a": torch.tensor(a4)}
    tlib = torch
    table = Table(34)

    for name, amp in (("linear (64,64)x(128,64) float32", False),
                      ("linear under autocast (bf16)", True)):
        table.add(name, _timed(ember, lambda: ember.linear(e["x"], e["w"], e["b"]), 2000, amp),
                  measure(_numpy_linear(x, w, b, amp), number=2000),
                  _timed(tlib, lambda: torch.nn.functional.linear(t["x"], t["w"], t["b"]),
                         2000, amp))
    table.add("a + b (4,) under autocast", _timed(ember, lambda: e["a"] + e["a"], 20000, True),
              measure(lambda: a4 + a4), _timed(tlib, lambda: t["a"] + t["a"], 20000, True))

    def enter_exit(lib):
        def run():
            with lib.autocast("cpu"):
                pass
        return run
    table.add("with autocast('cpu'): pass", measure(enter_exit(ember), number=5000),
              measure(lambda: None, number=5000),
              measure(enter_exit(tlib), number=5000) if tlib else None)
    table.write_json(args.json)


if __name__ == "__main__":
    main()
