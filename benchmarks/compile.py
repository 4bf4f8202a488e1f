"""What ember.compile gives today: the digits MLP (64-128-10, batch 64) training step
(forward, cross-entropy, backward, SGD) eager and compiled with the "eager" and
"aot_eager" (AOT autograd: a forward and a backward graph in one autograd Function)
backends, ember next to torch's eager step. The compiled graphs run their aten ops one by
one through the dispatcher (no fusing code generator yet), so this measures what capture
costs today: guard checks, the graphs' calls through OpOverload binding, functionalization
and decomposition. The NumPy column is empty.

    .venv/bin/python benchmarks/compile.py [--json out.json]
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse

import numpy as np
from harness import Table, measure, torch

import ember


def setup(lib, backend=None):
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    run = lib.compile(model, backend=backend) if backend else model
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((64, 64)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, 64))

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(run(x), y)
        loss.backward()
        opt.step()
    return step


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="benchmarks/last_run_compile.json")
    args = ap.parse_args(argv)
    table = Table(34)
    t_eager = measure(setup(torch), number=50, repeat=5) if torch is not None else None
    for label, backend in (("eager", None), ("compiled backend=eager", "eager"),
                           ("compiled backend=aot_eager", "aot_eager")):
        table.add(f"MLP train step {label}", measure(setup(ember, backend), number=50,
                                                      repeat=5), None, t_eager)
    table.write_json(args.json)


if __name__ == "__main__":
    main()
