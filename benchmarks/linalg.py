"""torch.linalg on 1024-sized inputs: ember next to NumPy (the LAPACK call underneath) and
torch, in one run.

    .venv/bin/python benchmarks/linalg.py [--json out.json] [--threads 1] [--n 1024]

Rows: linalg.solve of a well-conditioned (n x n) float64 system with 16 right-hand sides
(NumPy: np.linalg.solve), linalg.svd (full_matrices=False) of an (n x n) float32 matrix
(NumPy: np.linalg.svd), and linalg.solve + backward (NumPy: the two solves the gradient
needs), and linalg.eig of a general (eig_n x eig_n) float64 matrix (NumPy: np.linalg.eig;
`--eig-n`, default 256: geev is ~20x slower than a solve). torch runs MKL, NumPy its
OpenBLAS, on the same number of threads, `--threads`
(default 1: OPENBLAS_NUM_THREADS etc. are set unless already set, torch.set_num_threads).
`--timer cpu` times the process's CPU time instead of the wall clock.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse

import numpy as np
from harness import TIMERS, Table, measure, torch, warm_allocator

import ember


def _arrays(n):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)) + n ** 0.5 * np.eye(n)
    b = rng.standard_normal((n, 16))
    s = rng.standard_normal((n, n)).astype(np.float32)
    return a, b, s


def _solve(lib, a, b):
    def run():
        with lib.no_grad():
            return lib.linalg.solve(a, b)
    return run


def _svd(lib, s):
    def run():
        with lib.no_grad():
            return lib.linalg.svd(s, full_matrices=False)
    return run


def _eig(lib, g):
    def run():
        with lib.no_grad():
            return lib.linalg.eig(g)
    return run


def _solve_backward(lib, a, b):
    def run():
        a.grad = b.grad = None
        lib.linalg.solve(a, b).sum().backward()
    return run


def _numpy_solve_backward(a, b):
    def run():
        x = np.linalg.solve(a, b)
        gb = np.linalg.solve(a.T, np.ones_like(x))
        return x, gb, -gb @ x.T
    return run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="also write the results to this JSON file")
    ap.add_argument("--number", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--n", type=int, default=1024, help="matrix size")
    ap.add_argument("--eig-n", type=int, default=256, help="matrix size of linalg.eig")
    ap.add_argument("--threads", type=int, help="threads of torch and of NumPy's BLAS "
                    "(read by threads.py; default: OPENBLAS_NUM_THREADS & co., else 1)")
    ap.add_argument("--timer", choices=("wall", "cpu"), default="wall")
    args = ap.parse_args(argv)
    warm_allocator()
    n = args.n
    a, b, s = _arrays(n)
    ea, eb, es = (ember.from_numpy(x.copy()) for x in (a, b, s))
    ta, tb, ts = (torch.from_numpy(x.copy()) for x in (a, b, s)) if torch else (None,) * 3
    ga, gb = (ember.from_numpy(x.copy()).requires_grad_() for x in (a, b))
    tga, tgb = (torch.from_numpy(x.copy()).requires_grad_() for x in (a, b)) if torch else \
        (None, None)
    table = Table(40)

    def m(fn):
        return measure(fn, args.number, args.repeat, TIMERS[args.timer])
    table.add(f"linalg.solve ({n},{n}) f64, 16 rhs", m(_solve(ember, ea, eb)),
              m(lambda: np.linalg.solve(a, b)), m(_solve(torch, ta, tb) if torch else None),
              unit="ms")
    table.add(f"linalg.svd ({n},{n}) f32 reduced", m(_svd(ember, es)),
              m(lambda: np.linalg.svd(s, full_matrices=False)),
              m(_svd(torch, ts) if torch else None), unit="ms")
    table.add(f"linalg.solve fwd+bwd ({n},{n}) f64", m(_solve_backward(ember, ga, gb)),
              m(_numpy_solve_backward(a, b)),
              m(_solve_backward(torch, tga, tgb) if torch else None), unit="ms")
    g = np.random.default_rng(1).standard_normal((args.eig_n, args.eig_n))
    table.add(f"linalg.eig ({args.eig_n},{args.eig_n}) f64", m(_eig(ember, ember.from_numpy(g))),
              m(lambda: np.linalg.eig(g)),
              m(_eig(torch, torch.from_numpy(g)) if torch else None), unit="ms")
    table.write_json(args.json, timer=args.timer)
    return table.rows


if __name__ == "__main__":
    main()
