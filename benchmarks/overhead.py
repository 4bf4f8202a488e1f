"""Per-op overhead of small ops: ember next to NumPy and torch in the same run.

    .venv/bin/python benchmarks/overhead.py [--json out.json] [--threads 1]

Each case is timed in many repetitions of a tight loop; the table shows the median
microseconds per call (min-max over repetitions) and the ratios ember/torch and
ember/NumPy. Timings are never asserted in tests; they are reported here.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse

import numpy as np
from harness import Table, measure, torch

import ember


def _per_shape_cases(s, a, b, a_np, b_np, ta, tb):
    """The elementwise and reduction rows for one shape (its operands bound here)."""
    t = torch is not None
    return [
        (f"a + b ({s})", lambda: a + b, lambda: np.add(a_np, b_np), (lambda: ta + tb) if t else None),
        (f"add(a, b) ({s})", lambda: ember.add(a, b), lambda: np.add(a_np, b_np),
         (lambda: torch.add(ta, tb)) if t else None),
        (f"a * 2.0 ({s})", lambda: a * 2.0, lambda: np.multiply(a_np, 2.0),
         (lambda: ta * 2.0) if t else None),
        (f"a.sum() ({s})", lambda: a.sum(), lambda: a_np.sum(), (lambda: ta.sum()) if t else None),
        (f"a.exp() ({s})", lambda: a.exp(), lambda: np.exp(a_np), (lambda: ta.exp()) if t else None),
    ]


def cases():
    """(name, ember fn, numpy fn, torch fn) for each measured operation."""
    out = []
    for shape in [(4,), (64, 64)]:
        a_np = np.random.rand(*shape).astype(np.float32)
        b_np = np.random.rand(*shape).astype(np.float32)
        a, b = ember.from_numpy(a_np.copy()), ember.from_numpy(b_np.copy())
        ta = tb = None
        if torch is not None:
            ta, tb = torch.from_numpy(a_np.copy()), torch.from_numpy(b_np.copy())
        s = "x".join(map(str, shape))
        out += _per_shape_cases(s, a, b, a_np, b_np, ta, tb)
    m_np = np.random.rand(64, 64).astype(np.float32)
    m = ember.from_numpy(m_np.copy())
    tm = torch.from_numpy(m_np.copy()) if torch else None
    out.append(("view: m.t() (64x64)", lambda: m.t(), lambda: m_np.T,
                (lambda: tm.t()) if torch else None))
    out.append(("view: m[1] (64x64)", lambda: m[1], lambda: m_np[1],
                (lambda: tm[1]) if torch else None))
    out.append(("view: m.view(-1) (64x64)", lambda: m.view(-1), lambda: m_np.reshape(-1),
                (lambda: tm.view(-1)) if torch else None))
    out.append(("mm (64x64)", lambda: m @ m, lambda: m_np @ m_np,
                (lambda: tm @ tm) if torch else None))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="also write the results to this JSON file")
    ap.add_argument("--threads", type=int, help="threads of torch and of NumPy's BLAS "
                    "(read by threads.py; default: OPENBLAS_NUM_THREADS & co., else 1)")
    ap.add_argument("--number", type=int, default=20000)
    args = ap.parse_args(argv)
    table = Table(28)
    for name, e, n, t in cases():
        table.add(name, measure(e, args.number), measure(n, args.number),
                  measure(t, args.number) if t else None)
    table.write_json(args.json)
    return table.rows


if __name__ == "__main__":
    main()
