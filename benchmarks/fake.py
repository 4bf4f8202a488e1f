"""What running on fake tensors costs: ember's FakeTensorMode next to torch's.

    .venv/bin/python benchmarks/fake.py [--json out.json]

Rows: one forward (batch 64) of the digits MLP (64-128-10) and of a 50-layer MLP (width
64, ReLU between layers) with fake inputs and parameters; "cold" builds a new mode each
call (every op misses the dispatch cache), "cached" reuses one mode (the ops hit it).
Then the same forward on real tensors, the eager cost fakes stand in for, and a
(2^20 x 2^20) matmul, which fakes do without allocating. The NumPy column is empty.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse
import copy
import importlib

import numpy as np
from fx import mlp
from harness import Table, measure, torch

import ember


def _fake_module(lib):
    return importlib.import_module(f"{lib.__name__}._subclasses.fake_tensor")


def _fake_forward(lib, model, x_np, mode=None):
    ft = _fake_module(lib)
    mode = mode or ft.FakeTensorMode()
    with ft.FakeCopyMode(mode):
        fake_model = copy.deepcopy(model)
    fake_x = mode.from_tensor(lib.tensor(x_np))

    def run():
        with mode:
            return fake_model(fake_x)
    return run


def rows(table, name, depth):
    libs = {"ember": ember}
    if torch is not None:
        libs["torch"] = torch
    x_np = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    models = {k: mlp(lib, depth) for k, lib in libs.items()}
    n = 20 if depth > 2 else 200

    def timed(fn_of_lib, number=n):
        return {k: measure(fn_of_lib(k), number=number, repeat=5) for k in libs}

    cold = timed(lambda k: lambda: _fake_forward(libs[k], models[k], x_np)(), max(n // 4, 5))
    table.add(f"fake fwd cold {name}", cold["ember"], None, cold.get("torch"))
    cached = timed(lambda k: _fake_forward(libs[k], models[k], x_np))
    table.add(f"fake fwd cached {name}", cached["ember"], None, cached.get("torch"))
    real = {}
    for k, lib in libs.items():
        x = lib.tensor(x_np)
        with lib.no_grad():
            real[k] = measure(lambda k=k, x=x: models[k](x), number=n, repeat=5)
    table.add(f"real fwd (no_grad) {name}", real["ember"], None, real.get("torch"))


def huge_matmul(table):
    def run(lib):
        mode = _fake_module(lib).FakeTensorMode()

        def go():
            with mode:
                w = lib.empty(2 ** 20, 2 ** 20)
                return w @ w
        return go
    res = {k: measure(run(lib), number=200, repeat=5)
           for k, lib in (("ember", ember), ("torch", torch)) if lib is not None}
    table.add("fake (2^20)^2 matmul", res["ember"], None, res.get("torch"))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="benchmarks/last_run_fake.json")
    args = ap.parse_args(argv)
    table = Table(34)
    rows(table, "digits MLP", 2)
    rows(table, "50-layer MLP", 50)
    huge_matmul(table)
    table.write_json(args.json)


if __name__ == "__main__":
    main()
