"""What functionalization costs: one training step of the digits MLP (64-128-10, batch 64:
forward, autograd.grad, in-place SGD update of the parameters), eager and through
`func.functionalize` (mutations removed; with views removed too), ember next to torch.

    .venv/bin/python benchmarks/functionalize.py [--json out.json]

The functionalized step mutates its parameter inputs, so each call also pays the
input-mutation epilogue (one copy_ per parameter). torch's functionalize does not compose
with autograd.grad inside it, so torch's functionalized rows take the gradients with
torch.func.grad (its supported composition). The NumPy column is empty.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse

import numpy as np
from harness import Table, measure, torch

import ember


def step_fn(lib, func_grad=False):
    F = lib.nn.functional

    def loss_of(x, y, w1, b1, w2, b2):
        return F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), y)

    def step(x, y, w1, b1, w2, b2):
        if func_grad:
            loss = loss_of(x, y, w1, b1, w2, b2)
            grads = lib.func.grad(loss_of, argnums=(2, 3, 4, 5))(x, y, w1, b1, w2, b2)
        else:
            loss = loss_of(x, y, w1, b1, w2, b2)
            grads = lib.autograd.grad(loss, (w1, b1, w2, b2))
        with lib.no_grad():
            for p, g in zip((w1, b1, w2, b2), grads):
                p.sub_(0.1 * g)
        return loss.detach()
    return step


def inputs(lib, requires_grad=True):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((64, 64)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, 64))
    params = [lib.tensor(rng.standard_normal(s).astype(np.float32) * 0.1)
              .requires_grad_(requires_grad)
              for s in ((128, 64), (128,), (10, 128), (10,))]
    return x, y, *params


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="benchmarks/last_run_functionalize.json")
    args = ap.parse_args(argv)
    libs = {"ember": ember, **({"torch": torch} if torch is not None else {})}
    table = Table(38)
    for label, remove in (("eager", None), ("functionalize(mutations)", "mutations"),
                          ("functionalize(mutations_and_views)", "mutations_and_views")):
        res = {}
        for k, lib in libs.items():
            func_grad = remove is not None and lib is torch
            fn = step_fn(lib, func_grad)
            if remove is not None:
                fn = lib.func.functionalize(fn, remove=remove)
            args_ = inputs(lib, requires_grad=not func_grad)
            res[k] = measure(lambda fn=fn, a=args_: fn(*a), number=50, repeat=5)
        table.add(f"MLP step {label}", res["ember"], None, res.get("torch"))
    table.write_json(args.json)


if __name__ == "__main__":
    main()
