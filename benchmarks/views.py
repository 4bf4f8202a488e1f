"""Per-call cost of the view family (view, reshape, t, permute, squeeze, detach, indexing,
split, expand) on a non-leaf that requires grad, grad mode on: ember next to torch (one
thread) and NumPy's equivalent, in interleaved rounds, CPU time.

    .venv/bin/python benchmarks/views.py [--rounds 9] [--number 4000] [--only view,t]
                                         [--json out.json]

Each round times every case once per library, one after the other, so load on the
machine falls on all three alike; the table shows the median microseconds per call over
the rounds (min-max) and the ratios ember/torch and ember/NumPy.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse
import statistics
import time

import numpy as np
from harness import Table, torch

import ember


def cases(lib):
    """{name: fn} over a (8, 64, 128) float32 non-leaf `y = x * 1` (x requires grad) and a
    (128, 128) leaf `w` that requires grad; `lib` is ember, torch or NumPy (no autograd)."""
    if lib is np:
        y = np.random.rand(8, 64, 128).astype(np.float32)
        w = np.random.rand(128, 128).astype(np.float32)
    else:
        x = lib.randn(8, 64, 128, requires_grad=True)
        y = x * 1
        w = lib.randn(128, 128, requires_grad=True)
    split = (lambda: np.split(y, 2, axis=2)) if lib is np else (lambda: y.split(64, dim=2))
    return {
        "y.view(512, 128)": (lambda: y.reshape(512, 128)) if lib is np else (lambda: y.view(512, 128)),
        "y.view(-1)": (lambda: y.reshape(-1)) if lib is np else (lambda: y.view(-1)),
        "y.reshape(8, 64, 4, 32)": lambda: y.reshape(8, 64, 4, 32),
        "w.t()": (lambda: w.T) if lib is np else (lambda: w.t()),
        "y.transpose(1, 2)": (lambda: y.swapaxes(1, 2)) if lib is np else (lambda: y.transpose(1, 2)),
        "y.permute(0, 2, 1)": (lambda: y.transpose(0, 2, 1)) if lib is np else (lambda: y.permute(0, 2, 1)),
        "y.unsqueeze(0)": (lambda: y[None]) if lib is np else (lambda: y.unsqueeze(0)),
        "y.squeeze(0)": (lambda: y.squeeze(0) if y.shape[0] == 1 else y.view()) if lib is np
        else (lambda: y.squeeze(0)),
        "y.detach()": (lambda: y.view()) if lib is np else (lambda: y.detach()),
        "y[0]": lambda: y[0],
        "y[:, :32]": lambda: y[:, :32],
        "y.split(64, dim=2)": split,
        "w.expand(8, 128, 128)": (lambda: np.broadcast_to(w, (8, 128, 128))) if lib is np
        else (lambda: w.expand(8, 128, 128)),
    }


def per_call_us(fn, number):
    start = time.process_time()
    for _ in range(number):
        fn()
    return (time.process_time() - start) / number * 1e6


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--number", type=int, default=4000, help="calls per timing")
    p.add_argument("--only", default="", help="comma-separated substrings of case names")
    p.add_argument("--json", default=None)
    p.add_argument("--threads", default=None, help="(read by threads.py)")
    args = p.parse_args(argv)
    libs = [("ember", ember), ("numpy", np)] + ([("torch", torch)] if torch is not None else [])
    table = Table(width=26)         # (sets torch's thread count: one, as NumPy's BLAS)
    by_lib = {name: cases(lib) for name, lib in libs}
    names = [n for n in by_lib["ember"]
             if not args.only or any(s in n for s in args.only.split(","))]
    times = {(lib, n): [] for lib, _ in libs for n in names}
    for fn in (f for lib, _ in libs for f in by_lib[lib].values()):
        fn()                                      # warm: caches filled, kernels chosen
    for _ in range(args.rounds):
        for n in names:
            for lib, _ in libs:
                times[lib, n].append(per_call_us(by_lib[lib][n], args.number))

    def summary(lib, n):
        if (lib, n) not in times:
            return None
        t = times[lib, n]
        return statistics.median(t), min(t), max(t)

    for n in names:
        table.add(n, summary("ember", n), summary("numpy", n), summary("torch", n))
    table.write_json(args.json, timer="cpu", rounds=args.rounds, number=args.number)


if __name__ == "__main__":
    main()
