"""conv2d forward + backward: ember next to torch (and the same NumPy im2col by hand).

    .venv/bin/python benchmarks/conv.py [--json out.json] [--threads 1]

Input (32, 16, 28, 28), 32 filters 3x3, padding 1, with bias; input, weight and bias
require grad (their .grad is reset each time) and the output's sum is backpropagated.
Rows: forward only (no_grad) and forward + backward. The NumPy column runs the kernels'
own im2col / col2im functions without ember's dispatch and autograd: the floor of this
implementation. torch and NumPy's BLAS run on the same number of threads, `--threads`
(default 1: OPENBLAS_NUM_THREADS etc. are set unless already set, torch.set_num_threads):
a like-for-like comparison. `--timer cpu` times the process's CPU time instead of the
wall clock (steadier on a busy machine; with one thread, the time of the computation).
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse

import numpy as np
from harness import TIMERS, Table, measure, torch, warm_allocator

import ember
from ember.kernels.cpu import conv as K

SHAPE_X, SHAPE_W = (32, 16, 28, 28), (32, 16, 3, 3)


def _arrays():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPE_X).astype(np.float32)
    w = (rng.standard_normal(SHAPE_W) * 0.1).astype(np.float32)
    b = rng.standard_normal(SHAPE_W[0]).astype(np.float32)
    return x, w, b


def _forward(lib, x, w, b):
    def run():
        with lib.no_grad():
            return lib.conv2d(x, w, b, padding=1)
    return run


def _round_trip(lib, x, w, b):
    def run():
        x.grad = w.grad = b.grad = None
        lib.conv2d(x, w, b, padding=1).sum().backward()
    return run


def _numpy_forward(x, w, b):
    def run():
        return K.conv_forward(x, w, (1, 1), (1, 1), (1, 1), 1, x.shape[2:], b)
    return run


def _numpy_round_trip(x, w, b):
    def run():
        y = K.conv_forward(x, w, (1, 1), (1, 1), (1, 1), 1, x.shape[2:], b)
        y.sum()
        g = np.ones_like(y)
        gx = K.conv_input_grad(g, w, x.shape[2:], (1, 1), (1, 1), (1, 1), 1)
        gw = K.conv_weight_grad(x, g, w.shape[2:], (1, 1), (1, 1), (1, 1), 1)
        return gx, gw, g.sum(axis=(0, 2, 3))
    return run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="also write the results to this JSON file")
    ap.add_argument("--number", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--threads", type=int, help="threads of torch and of NumPy's BLAS "
                    "(read by threads.py; default: OPENBLAS_NUM_THREADS & co., else 1)")
    ap.add_argument("--timer", choices=("wall", "cpu"), default="wall")
    args = ap.parse_args(argv)
    warm_allocator()
    x, w, b = _arrays()
    e = [ember.from_numpy(a.copy()).requires_grad_() for a in (x, w, b)]
    t = [torch.from_numpy(a.copy()).requires_grad_() for a in (x, w, b)] if torch else None
    table = Table(40)

    def m(fn):
        return measure(fn, args.number, args.repeat, TIMERS[args.timer])
    table.add("conv2d fwd (32,16,28,28) 32x3x3 p1", m(_forward(ember, *e)),
              m(_numpy_forward(x, w, b)), m(_forward(torch, *t) if torch else None))
    table.add("conv2d fwd+bwd (32,16,28,28) 32x3x3 p1", m(_round_trip(ember, *e)),
              m(_numpy_round_trip(x, w, b)), m(_round_trip(torch, *t) if torch else None))
    table.write_json(args.json, timer=args.timer)
    return table.rows


if __name__ == "__main__":
    main()
