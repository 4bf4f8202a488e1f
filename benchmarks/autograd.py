"""Autograd round trip and grad-mode costs: ember next to torch and NumPy by hand.

    .venv/bin/python benchmarks/autograd.py [--json out.json] [--threads 1]

Rows: forward + backward of `relu(x*w + b).sum()` on (4,) and (64, 64) (leaves x, w,
b require grad; their .grad is reset each time), and `a + b` on (4,) under no_grad
and under inference_mode. The NumPy column is the same computation written by hand
(forward, mask, three gradient products): the floor a Python framework could reach.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse

import numpy as np
from harness import Table, measure, torch

import ember


def round_trip(lib, x, w, b):
    def run():
        x.grad = w.grad = b.grad = None
        lib.relu(x * w + b).sum().backward()
    return run


def numpy_round_trip(x, w, b):
    def run():
        pre = x * w + b
        out = np.maximum(pre, 0).sum()
        mask = (pre > 0).astype(x.dtype)
        return out, mask * w, mask * x, mask
    return run


def _mode_case(lib, mode, a, b):
    def run():
        with mode():
            return a + b
    return run


def cases():
    out = []
    for shape in [(4,), (64, 64)]:
        s = "x".join(map(str, shape))
        arrays = [np.random.rand(*shape).astype(np.float32) - 0.3 for _ in range(3)]
        e = [ember.from_numpy(a.copy()).requires_grad_() for a in arrays]
        t = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays] if torch else None
        out.append((f"relu(x*w+b).sum() fwd+bwd ({s})", round_trip(ember, *e),
                    numpy_round_trip(*arrays), round_trip(torch, *t) if torch else None))
    a_np, b_np = np.random.rand(4).astype(np.float32), np.random.rand(4).astype(np.float32)
    a, b = ember.from_numpy(a_np.copy()), ember.from_numpy(b_np.copy())
    ta, tb = (torch.from_numpy(a_np.copy()), torch.from_numpy(b_np.copy())) if torch else (0, 0)
    for label, emode, tmode in [("no_grad", ember.no_grad, getattr(torch, "no_grad", None)),
                                ("inference_mode", ember.inference_mode,
                                 getattr(torch, "inference_mode", None))]:
        out.append((f"with {label}: a + b (4)", _mode_case(ember, emode, a, b),
                    lambda: np.add(a_np, b_np), _mode_case(torch, tmode, ta, tb) if torch else None))
    return out


def _add(lib, a, b):
    return a + b


def inside(mode_e, mode_t, a, b, ta, tb, a_np, b_np, number, body=_add, **timing):
    """`body(lib, a, b)` (by default `a + b`) measured with the mode entered once around
    the timing loop (`timing`: measure's repeat and timer)."""
    with mode_e():
        re = measure(lambda: body(ember, a, b), number, **timing)
    rt = None
    if torch is not None:
        with mode_t():
            rt = measure(lambda: body(torch, ta, tb), number, **timing)
    return re, measure(lambda: body(np, a_np, b_np), number, **timing), rt


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="also write the results to this JSON file")
    ap.add_argument("--threads", type=int, help="threads of torch and of NumPy's BLAS "
                    "(read by threads.py; default: OPENBLAS_NUM_THREADS & co., else 1)")
    ap.add_argument("--number", type=int, default=3000)
    args = ap.parse_args(argv)
    table = Table(36)
    for name, e, n, t in cases():
        table.add(name, measure(e, args.number), measure(n, args.number),
                  measure(t, args.number) if t else None)
    a_np, b_np = np.random.rand(4).astype(np.float32), np.random.rand(4).astype(np.float32)
    a, b = ember.from_numpy(a_np.copy()), ember.from_numpy(b_np.copy())
    ta, tb = (torch.from_numpy(a_np.copy()), torch.from_numpy(b_np.copy())) if torch else (0, 0)
    # the same op on a weight that requires grad: no_grad still passes the Autograd
    # key (which checks the grad mode); inference_mode skips it
    w = ember.from_numpy(b_np.copy()).requires_grad_()
    tw = torch.from_numpy(b_np.copy()).requires_grad_() if torch else 0
    for label, me, mt in [("no_grad", ember.no_grad, getattr(torch, "no_grad", None)),
                          ("inference_mode", ember.inference_mode,
                           getattr(torch, "inference_mode", None))]:
        table.add(f"a + b inside {label} (4)",
                  *inside(me, mt, a, b, ta, tb, a_np, b_np, args.number * 10))
        table.add(f"a + w(requires_grad) inside {label}",
                  *inside(me, mt, a, w, ta, tw, a_np, b_np, args.number * 10))
    table.write_json(args.json)
    return table.rows


if __name__ == "__main__":
    main()
