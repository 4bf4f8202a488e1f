"""What capturing a program costs: ember.fx next to torch.fx in the same process.

    .venv/bin/python benchmarks/fx.py [--json out.json]

Rows: symbolic_trace of the digits MLP (64-128-10) and of a 50-layer MLP (width 64, ReLU
between layers); make_fx (real tensors) of their forward, and of one training step
(forward, cross entropy, autograd.grad of every parameter) of the digits MLP; then one
forward of the traced GraphModule against the eager module (batch 64), which shows what
the generated code adds at run time. The NumPy column is empty: there is no NumPy
counterpart to tracing.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse
import importlib

import numpy as np
from harness import Table, measure, torch

import ember


def mlp(lib, depth, width=64, inputs=64, classes=10):
    nn = lib.nn
    if depth == 2:
        return nn.Sequential(nn.Linear(inputs, 128), nn.ReLU(), nn.Linear(128, classes))
    layers = []
    for i in range(depth):
        layers += [nn.Linear(inputs if i == 0 else width, width), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(width, classes))


def _make_fx(lib):
    return importlib.import_module(f"{lib.__name__}.fx.experimental.proxy_tensor").make_fx


def _step(lib, model):
    params = list(model.parameters())

    def step(x, y):
        loss = lib.nn.functional.cross_entropy(model(x), y)
        return lib.autograd.grad(loss, params)
    return step


def rows(table, name, depth):
    libs = {"ember": ember}
    if torch is not None:
        libs["torch"] = torch
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((64, 64)).astype(np.float32)
    y_np = rng.integers(0, 10, 64)
    models = {k: mlp(lib, depth) for k, lib in libs.items()}
    xs = {k: lib.tensor(x_np) for k, lib in libs.items()}
    ys = {k: lib.tensor(y_np) for k, lib in libs.items()}
    number = 20 if depth > 2 else 100

    def timed(fn_of_lib, n=number):
        return {k: measure(lambda k=k: fn_of_lib(k), number=n, repeat=5) for k in libs}

    trace = timed(lambda k: libs[k].fx.symbolic_trace(models[k]))
    table.add(f"symbolic_trace {name}", trace["ember"], None, trace.get("torch"))
    make = timed(lambda k: _make_fx(libs[k])(models[k])(xs[k]), max(number // 4, 5))
    table.add(f"make_fx forward {name}", make["ember"], None, make.get("torch"))
    if depth == 2:
        step = timed(lambda k: _make_fx(libs[k])(_step(libs[k], models[k]))(xs[k], ys[k]),
                     max(number // 4, 5))
        table.add(f"make_fx train step {name}", step["ember"], None, step.get("torch"))
    for k, lib in libs.items():
        with lib.no_grad():
            gm = lib.fx.symbolic_trace(models[k])
            traced = measure(lambda gm=gm, k=k: gm(xs[k]), number=200, repeat=7)
            eager = measure(lambda k=k: models[k](xs[k]), number=200, repeat=7)
        libs[k] = (lib, traced, eager)
    table.add(f"GraphModule fwd {name}", libs["ember"][1], None,
              libs["torch"][1] if "torch" in libs else None)
    table.add(f"eager fwd {name}", libs["ember"][2], None,
              libs["torch"][2] if "torch" in libs else None)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="benchmarks/last_run_fx.json")
    args = ap.parse_args(argv)
    table = Table(34)
    rows(table, "digits MLP", 2)
    rows(table, "50-layer MLP", 50)
    table.write_json(args.json)


if __name__ == "__main__":
    main()
