"""What ember.compile gives today: the digits MLP (64-128-10, batch 64) training step
(forward and cross-entropy compiled as one module, backward, SGD) eager and compiled with
the "eager", "aot_eager" (AOT autograd: a forward and a backward graph in one autograd
Function) and "inductor" (those graphs lowered to generated NumPy code, no fused loops
yet) backends, ember next to torch's eager step. The NumPy column is empty.

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

    class WithLoss(nn.Module):       # the loss is compiled too: its backward joins the graph
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))

        def forward(self, x, y):
            return nn.functional.cross_entropy(self.net(x), y)
    model = WithLoss()
    run = lib.compile(model, backend=backend) if backend else model
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((64, 64)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, 64))

    def step():
        opt.zero_grad()
        loss = run(x, y)
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
                           ("compiled backend=aot_eager", "aot_eager"),
                           ("compiled backend=inductor", "inductor")):
        table.add(f"MLP train step {label}", measure(setup(ember, backend), number=50,
                                                      repeat=5), None, t_eager)
    table.write_json(args.json)


if __name__ == "__main__":
    main()
