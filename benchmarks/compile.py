"""What ember.compile gives: in one run, as ratios,

- `a*b+c` on 10M float32 compiled by the inductor backend (one fused numba loop) against
  NumPy's eager `a*b+c` (two passes and a temporary), with the kernel serial and parallel;
- the digits MLP (64-128-10, batch 64) training step (forward and cross-entropy compiled
  as one module, backward, SGD momentum or Adam) eager and compiled with the "eager",
  "aot_eager" (AOT autograd: a forward and a backward graph under one autograd node) and
  "inductor" (those graphs lowered to generated NumPy code with fused numba kernels)
  backends, and with the optimizer's step compiled too (inductor), and the whole step
  (zero_grad, forward, backward, step) compiled as one function into one graph, ember
  next to torch's eager step, timed in interleaved rounds;
- the guard check a compiled call pays (a tiny function, the MLP module);
- Adam/AdamW's step over 2M parameters, eager and compiled, next to torch's;
- the compile time of that step (its first call), in a fresh process with an empty kernel
  cache (cold) and again with the cache filled (warm: numba loads the kernels from disk);
- a summary of issue 17's four numbers (also in the JSON, `issue17`).

    .venv/bin/python benchmarks/compile.py [--json out.json] [--timer cpu] [--parts abc,mlp]

`--timer cpu` times the process's CPU time instead of the wall clock (steadier on a
machine other processes load).
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import timeit

import numpy as np
from harness import TIMERS, Table, measure, torch, warm_allocator

import ember


def setup(lib, backend=None, compile_step=False, whole=False, adam=False):
    """The training step; `compile_step`: the optimizer's step compiled too (one fused
    loop over the parameters, grads and momentum buffers); `whole`: the whole step
    (zero_grad, forward, backward, optimizer step) compiled as one function; `adam`: Adam
    instead of SGD momentum (its step count a tensor in the compiled step)."""
    lib.manual_seed(0)
    nn = lib.nn

    class WithLoss(nn.Module):       # the loss is compiled too: its backward joins the graph
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))

        def forward(self, x, y):
            return nn.functional.cross_entropy(self.net(x), y)
    model = WithLoss()
    run = lib.compile(model, backend=backend) if backend and not whole else model
    opt = lib.optim.Adam(model.parameters(), lr=1e-3) if adam else \
        lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    update = lib.compile(opt.step, backend=backend) if compile_step else opt.step
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((64, 64)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, 64))

    def step(x, y):
        opt.zero_grad()
        loss = run(x, y)
        loss.backward()
        update()
        return loss
    step = lib.compile(step, backend=backend) if whole else step
    return lambda: step(x, y)


def fused_abc(table, timer, n=10_000_000):
    """a*b+c on n float32: NumPy eager, ember eager, ember compiled (serial and parallel
    kernel) and torch eager, in interleaved rounds (load noise hits all alike)."""
    from ember._inductor import config
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(n).astype(np.float32) for _ in range(3)]
    a, b, c = arrays
    ta, tb, tc = (ember.tensor(x) for x in arrays)
    steps = {"numpy": lambda: a * b + c, "ember eager": lambda: ta * tb + tc}
    default = config.parallel_threshold
    for label, threshold in (("serial", n + 1), ("parallel", 0)):
        config.parallel_threshold = threshold         # (read when the kernel is generated)
        f = ember.compile(lambda a, b, c: a * b + c)
        f(ta, tb, tc)
        steps[f"compiled {label}"] = lambda f=f: f(ta, tb, tc)
    config.parallel_threshold = default
    if torch is not None:
        pa, pb, pc = (torch.from_numpy(x) for x in arrays)
        steps["torch"] = lambda: pa * pb + pc
    res = interleaved(steps, timer, rounds=15, number=5)
    for label in steps:
        if label not in ("numpy", "torch"):
            table.add(f"a*b+c 10M f32 {label}", res[label], res["numpy"], res.get("torch"))


def guard_overhead(table, timer):
    """What a compiled call pays before its graph runs: the generated guard check of a tiny
    function (one tensor argument), of the MLP module (its parameters, submodules and
    hooks) and of its compiled SGD step (parameter groups, grads, momentum buffers)."""
    from ember._dynamo.eval_frame import _compiled
    x = ember.ones(4)
    ember._dynamo.reset()
    f = ember.compile(lambda x: x + 1, backend="eager")
    f(x)
    entry = next(c for c in _compiled if c.entries).entries[0]
    table.add("guard check, tiny fn", measure(lambda: entry.guards.check((x,), {}), timer=timer),
              None, None)
    step = setup(ember, "inductor")
    step()
    module_entry = next(c for c in _compiled if c.module is not None and c.entries).entries[0]
    rng = np.random.default_rng(0)
    xs = (ember.tensor(rng.standard_normal((64, 64)).astype(np.float32)),
          ember.tensor(rng.integers(0, 10, 64)))
    assert module_entry.guards.check(xs, {}) is not None      # (a hit is what is timed)
    table.add("guard check, MLP module", measure(lambda: module_entry.guards.check(xs, {}),
                                                 number=5000, timer=timer), None, None)
    ember._dynamo.reset()
    step = setup(ember, "inductor", compile_step=True)
    for _ in range(2):                      # (the first step creates the momentum buffers)
        step()
    opt_entry = next(c for c in _compiled if c.module is None and c.entries).entries[-1]
    assert opt_entry.guards.check((), {}) is not None
    table.add("guard check, SGD step (4 params)", measure(
        lambda: opt_entry.guards.check((), {}), number=5000, timer=timer), None, None)


def interleaved(steps, timer, rounds=12, number=50):
    """{name: (median, min, max) us per call} of each step over `rounds` rounds that time
    every step in turn, so a load that changes during the run weighs on all of them alike
    (the ratios to torch's step are of the same rounds)."""
    for step in steps.values():
        step()              # (a compiled optimizer step captures on its second call: the
        step()              # first one creates the optimizer state, eagerly)
    times = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            times[name].append(timeit.timeit(step, number=number, timer=timer) / number * 1e6)
    return {name: (statistics.median(t), min(t), max(t)) for name, t in times.items()}


_FIRST_STEP = """
import sys, time
sys.path.insert(0, {here!r})
import compile as bench, ember
step = bench.setup(ember, "inductor")
t0 = time.perf_counter()
step()
print((time.perf_counter() - t0) * 1e6)
"""


def compile_times(table):
    """The MLP step's first call (capture, AOT autograd, lowering, numba) in a new
    process: with an empty kernel cache, then with the one the first process filled."""
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, EMBER_INDUCTOR_CACHE_DIR=cache)
        for label in ("cold", "warm"):
            out = subprocess.run([sys.executable, "-c", _FIRST_STEP.format(here=here)],
                                 env=env, capture_output=True, text=True, check=True)
            t = float(out.stdout.split()[-1])
            table.add(f"MLP step compile {label} cache", (t, t, t), None, None, unit="ms")


def optimizer_steps(table, timer, shapes=((1024, 1024), (1024,), (1024, 1024))):
    """Adam/AdamW's step over 2M float32 parameters: ember eager, `ember.compile(opt.step)`
    (one fused kernel per parameter, updating it and its moments in place) and torch's
    eager step, in interleaved rounds."""
    def make(lib, kind, compiled=False):
        rng = np.random.default_rng(0)
        params = [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(np.float32)))
                  for s in shapes]
        for p in params:
            p.grad = lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32))
        opt = getattr(lib.optim, kind)(params, lr=1e-3)
        return lib.compile(opt.step, backend="inductor") if compiled else opt.step
    for kind in ("Adam", "AdamW"):
        steps = {"eager": make(ember, kind), "compiled": make(ember, kind, True)}
        if torch is not None:
            steps["torch"] = make(torch, kind)
        res = interleaved(steps, timer, rounds=9, number=5)
        for label in ("eager", "compiled"):
            table.add(f"{kind} step 2M params {label}", res[label], None, res.get("torch"))


def summary(table):
    """The issue's four numbers (targets in brackets) from the rows measured."""
    rows = {r["case"]: r for r in table.rows}

    def ratio(case, key):
        r = rows.get(case)
        return None if r is None else r[key]

    def us(case):
        r = rows.get(case)
        return None if r is None else r["ember_us"][0]
    out = {
        "mlp_step_compiled_over_torch (<= 0.5)": {
            label: ratio(f"MLP train step SGD {label}", "ember_over_torch")
            for label in ("compiled backend=inductor", "inductor + opt.step",
                          "inductor whole step")},
        "abc_compiled_over_numpy (<= 0.7)": ratio("a*b+c 10M f32 compiled serial",
                                                 "ember_over_numpy"),
        "guard_check_tiny_fn_us (<= 3)": us("guard check, tiny fn"),
        "mlp_step_compile_ms": {label: None if us(f"MLP step compile {label} cache") is None
                                else us(f"MLP step compile {label} cache") / 1000
                                for label in ("cold", "warm")},
    }
    print("issue 17:")
    for k, v in out.items():
        print(f"  {k}: {v}")
    return out


PARTS = ("abc", "mlp", "adam", "guards", "compile")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="benchmarks/last_run_compile.json")
    ap.add_argument("--timer", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--parts", default=",".join(PARTS),
                    help=f"comma-separated subset of {', '.join(PARTS)} (default: all)")
    args = ap.parse_args(argv)
    parts = set(args.parts.split(","))
    if parts - set(PARTS):
        ap.error(f"unknown parts: {', '.join(sorted(parts - set(PARTS)))}")
    timer = TIMERS[args.timer]
    warm_allocator()
    table = Table(34)
    if "abc" in parts:
        fused_abc(table, timer)
    if "mlp" in parts:
        mlp_steps(table, timer)
    if "adam" in parts:
        optimizer_steps(table, timer)
    if "guards" in parts:
        guard_overhead(table, timer)
    if "compile" in parts:
        compile_times(table)
    table.write_json(args.json, timer=args.timer, issue17=summary(table))


def mlp_steps(table, timer):
    """The digits MLP training step, eager and compiled, SGD momentum and Adam, next to
    torch's eager step in interleaved rounds."""
    for optimizer in ("SGD", "Adam"):
        adam = optimizer == "Adam"
        steps = {label: setup(ember, adam=adam, **kw) for label, kw in (
            ("eager", {}), ("compiled backend=eager", {"backend": "eager"}),
            ("compiled backend=aot_eager", {"backend": "aot_eager"}),
            ("compiled backend=inductor", {"backend": "inductor"}),
            ("inductor + opt.step", {"backend": "inductor", "compile_step": True}),
            ("inductor whole step", {"backend": "inductor", "whole": True}))}
        if torch is not None:
            steps["torch"] = setup(torch, adam=adam)
        res = interleaved(steps, timer)
        for label in steps:
            if label != "torch":
                table.add(f"MLP train step {optimizer} {label}", res[label], None,
                          res.get("torch"))


if __name__ == "__main__":
    main()
