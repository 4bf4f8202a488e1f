"""What the profiler's observer hook costs: off (one check per op) and on.

    .venv/bin/python benchmarks/profiler.py [--json out.json]

Rows: `a + b` on (4,) through the generated entry as it is (one `observers.active is
not None` check) and through the same entry rebuilt without that check (the machinery
removed), so their difference is the hook's whole cost when no profiler runs; the check
alone in a loop; `a + b` under a running profiler (ember.profiler / torch.profiler);
and the digits MLP epoch (nn + SGD, 23 steps) unprofiled and profiled, with
record_shapes and profile_memory as well. torch's columns are torch's own numbers.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse
import inspect
import timeit

import numpy as np
from harness import Table, measure, torch
from suite import digits_batches, module_epoch

import ember
import ember.profiler
from ember._generated import ops as generated_ops
from ember.dispatch import observers


def unobserved_entry(name):
    """The generated `_entry_<name>` rebuilt from its source without the observer check."""
    fn = getattr(generated_ops, f"_entry_{name}")
    lines = inspect.getsource(fn).splitlines()
    i = next(i for i, line in enumerate(lines) if "_obs.active" in line)
    src = "\n".join(lines[:i] + lines[i + 2:])
    scope = {}
    exec(compile(src, "<unobserved>", "exec"), vars(generated_ops), scope)  # noqa: S102
    return scope[fn.__name__]


def check_ns():
    """Nanoseconds of the check itself: a loop with it minus the same loop without."""
    n = 200000
    with_check = timeit.repeat("if o.active is not None: pass", globals={"o": observers},
                               number=n, repeat=15)
    without = timeit.repeat("pass", number=n, repeat=15)
    return (min(with_check) - min(without)) / n * 1e9


def profiled(fn, lib, **opts):
    """`fn` run inside a profile (a fresh one for each call, as a training loop would)."""
    prof = ember.profiler if lib is ember else torch.profiler

    def run():
        with prof.profile(**opts):
            fn()
    return run


def tiny_rows(table):
    a, b = ember.ones(4), ember.ones(4)
    an, bn = np.ones(4, np.float32), np.ones(4, np.float32)
    ta, tb = (torch.ones(4), torch.ones(4)) if torch else (None, None)
    entry, bare = generated_ops._entry_add_Tensor, unobserved_entry("add_Tensor")
    # alternated, best of 3 each: the machine's load drifts more than the hook costs
    runs = [(measure(lambda: entry(a, b, 1)), measure(lambda: bare(a, b, 1))) for _ in range(3)]
    np_add = measure(lambda: np.add(an, bn))
    t_add = measure((lambda: ta + tb) if torch else None)
    table.add("a + b (4,), entry with hook", min(r[0] for r in runs), np_add, t_add)
    table.add("a + b (4,), entry without hook", min(r[1] for r in runs), np_add, t_add)
    print(f"{'the check alone':34} {check_ns():7.1f} ns")

    def loop(x, y):
        def run():
            for _ in range(1000):
                x + y
        return run
    table.add("1000 x (a + b), profiled", measure(profiled(loop(a, b), ember), 5),
              measure(loop(an, bn), 5),
              measure(profiled(loop(ta, tb), torch) if torch else None, 5), unit="ms")


def mlp_rows(table):
    batches = digits_batches()
    epoch = module_epoch(ember, batches)
    t_epoch = module_epoch(torch, batches) if torch else None
    table.add("MLP epoch", measure(epoch, 3), None, measure(t_epoch, 3), unit="ms")
    table.add("MLP epoch, profiled", measure(profiled(epoch, ember), 3), None,
              measure(profiled(t_epoch, torch) if torch else None, 3), unit="ms")
    opts = {"record_shapes": True, "profile_memory": True}
    table.add("MLP epoch, shapes+memory", measure(profiled(epoch, ember, **opts), 3), None,
              measure(profiled(t_epoch, torch, **opts) if torch else None, 3), unit="ms")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="benchmarks/last_run_profiler.json")
    args = ap.parse_args(argv)
    table = Table(34)
    tiny_rows(table)
    mlp_rows(table)
    table.write_json(args.json)


if __name__ == "__main__":
    main()
