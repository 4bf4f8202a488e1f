"""ember's CUDA kernel families: time per call and effective bandwidth.

    .venv/bin/python benchmarks/cuda.py --emulator        # the CPU emulator (no GPU needed)
    .venv/bin/python benchmarks/cuda.py [--hbm-gbs 2000]  # a GPU with CuPy (and torch.cuda)

On a GPU each family runs at a size where memory traffic dominates; the table gives ember's
time next to torch.cuda's and CuPy's, and ember's bandwidth from the bytes each element
moves on paper (BYTES below) as a fraction of the HBM peak. Under the emulator the sizes are
small: the numbers say how long the CUDA tests take, not how fast a GPU is.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse
import statistics
import time

import numpy as np

import ember
from ember.cuda import _driver, _runtime

try:
    import torch
except ImportError:
    torch = None
try:
    import cupy
except ImportError:
    cupy = None

# Global-memory bytes per element (float32) each kernel moves, on paper.
BYTES = {
    "fill": 4,                 # write
    "cast f32->f16": 6,        # read 4, write 2
    "unary exp": 8,            # read 4, write 4
    "binary add (broadcast)": 8,   # read 4 (+ a broadcast row, cached), write 4
    "binary add": 12,          # read 4 + 4, write 4
    "where": 13,               # read 1 + 4 + 4, write 4
    "sum (rows)": 4,           # read once; the outputs are negligible
    "argmax (rows)": 4,
    "softmax (rows)": 16,      # three passes over the row (max, sum, write) + write
    "softmax backward": 20,    # g and y read twice, gi written
    "index_select (rows)": 8,  # read the selected rows, write them
    "dropout": 9,              # read 4, write 4, mask 1
    "uniform_": 4,             # write
    "matmul": None,            # compute-bound: reported in GFLOP/s
}


def cases(n: int, rows: int, mm: int):
    """(name, ember fn, torch fn or None, cupy fn or None, elements or flops)."""
    dev = "cuda"
    x = ember.randn(n, device=dev)
    y = ember.randn(n, device=dev)
    r = ember.randn(n // rows, device=dev)
    m = x > 0
    g = ember.randn(rows, n // rows, device=dev)
    idx = ember.randint(0, rows, (rows,)).cuda()
    a, b = ember.randn(mm, mm, device=dev), ember.randn(mm, mm, device=dev)
    out = [
        ("fill", lambda: x.fill_(1.0), n),
        ("cast f32->f16", lambda: x.to(ember.float16), n),
        ("unary exp", lambda: x.exp(), n),
        ("binary add", lambda: x + y, n),
        ("binary add (broadcast)", lambda: x.view(rows, -1) + r, n),
        ("where", lambda: ember.where(m, x, y), n),
        ("sum (rows)", lambda: g.sum(1), n),
        ("argmax (rows)", lambda: g.argmax(1), n),
        ("softmax (rows)", lambda: g.softmax(1), n),
        ("softmax backward", lambda: ember.ops.aten._softmax_backward_data.default(
            g, g, 1, ember.float32), n),
        ("index_select (rows)", lambda: g.index_select(0, idx), n),
        ("dropout", lambda: ember.ops.aten.native_dropout.default(x, 0.5, True), n),
        ("uniform_", lambda: x.uniform_(), n),
        ("matmul", lambda: a @ b, 2 * mm ** 3),
    ]
    refs = {}
    if torch is not None and torch.cuda.is_available():
        tx, ty = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        tg, ta = torch.randn(rows, n // rows, device="cuda"), torch.randn(mm, mm, device="cuda")
        refs = {"unary exp": lambda: tx.exp(), "binary add": lambda: tx + ty,
                "sum (rows)": lambda: tg.sum(1), "softmax (rows)": lambda: tg.softmax(1),
                "matmul": lambda: ta @ ta, "fill": lambda: tx.fill_(1.0)}
    crefs = {}
    if cupy is not None and _runtime.driver() is not None and _runtime.driver().name == "cupy":
        cx = cupy.random.standard_normal(n, dtype=cupy.float32)
        cg = cx.reshape(rows, -1)
        crefs = {"unary exp": lambda: cupy.exp(cx), "binary add": lambda: cx + cx,
                 "sum (rows)": lambda: cg.sum(1)}
    return [(name, fn, refs.get(name), crefs.get(name), size) for name, fn, size in out]


def timed(fn, sync, repeat: int) -> float:
    """Median seconds of one call (synchronised)."""
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--emulator", action="store_true", help="run on the CPU emulator")
    p.add_argument("--hbm-gbs", type=float, default=None, help="the GPU's HBM peak in GB/s")
    p.add_argument("--repeat", type=int, default=None)
    args = p.parse_args()
    if args.emulator:
        _runtime.set_driver(_driver.EmulatorDriver())
    if not ember.cuda.is_available():
        raise SystemExit("no CUDA device: run with --emulator, or on a GPU with CuPy")
    emu = _runtime.driver().name == "emulator"
    n, rows, mm = (1 << 16, 64, 64) if emu else (1 << 24, 4096, 4096)
    repeat = args.repeat or (3 if emu else 20)
    sync = ember.cuda.synchronize
    tsync = torch.cuda.synchronize if torch is not None and torch.cuda.is_available() else sync
    print(f"driver: {_runtime.driver().name}; {n} elements ({rows} rows), matmul {mm}^3")
    print(f"{'family':24} {'ember ms':>10} {'torch ms':>10} {'cupy ms':>9} {'B/elem':>7} "
          f"{'ember GB/s':>11} {'Melem/s':>9}")
    for name, fn, tfn, cfn, size in cases(n, rows, mm):
        t = timed(fn, sync, repeat)
        tt = timed(tfn, tsync, repeat) if tfn else None
        ct = timed(cfn, sync, repeat) if cfn else None
        nbytes = BYTES.get(name)
        gbs = f"{nbytes * size / t / 1e9:11.2f}" if nbytes else f"{size / t / 1e9:8.2f}GF"
        if nbytes and args.hbm_gbs:
            gbs += f" ({100 * nbytes * size / t / 1e9 / args.hbm_gbs:.0f}%)"
        rate = f"{size / t / 1e6:9.2f}" if nbytes else ""
        print(f"{name:24} {t * 1e3:10.2f} {tt * 1e3 if tt else float('nan'):10.2f} "
              f"{ct * 1e3 if ct else float('nan'):9.2f} {nbytes or '':>7} {gbs} {rate}")
    np.seterr(all="ignore")


if __name__ == "__main__":
    main()
