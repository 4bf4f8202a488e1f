"""Where a training step's time goes (issue 20's per-op breakdown).

    .venv/bin/python benchmarks/profile_step.py [--variant raw|nn|gpt|resnet] [--steps 230]
                                                [--top 25] [--torch]

Two views of the same steps (the digits MLP epoch in raw ops + manual SGD or nn +
optim.SGD, see suite.py; or one of the real programs' steps, see programs.py):
1. per aten op and autograd node, from ember.profiler (self time, calls, time per call);
   with --torch, torch.profiler's table of the same steps in torch next to it;
2. per layer of ember, from cProfile's self time grouped by file: the generated bindings
   and dispatcher entries, the Autograd kernels and backward nodes, the engine, the
   tensor core, the NumPy kernels, NumPy itself, the benchmark's own loop.
Both profilers add their own cost per call; the shares, not the absolute times, are the
point (on a busy machine the wall times of single calls swing 2x). The unprofiled time
per step is printed first.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse
import cProfile
import pstats
import timeit

from programs import gpt_step, resnet_step
from suite import digits_batches, module_epoch, raw_epoch

import ember
import ember.profiler

# (label, path fragment): the first fragment found in a function's file names its layer
LAYERS = [
    ("generated bindings + dispatcher entries", "generated/functions.py"),
    ("generated bindings + dispatcher entries", "generated/tensor_methods.py"),
    ("generated bindings + dispatcher entries", "generated/ops.py"),
    ("generated Autograd kernels + backward nodes", "generated/autograd.py"),
    ("backward formula helpers", "ember/autograd/formulas"),
    ("autograd engine + graph", "ember/autograd/"),
    ("dispatcher", "ember/dispatch/"),
    ("tensor core (wrapping, views)", "ember/core/"),
    ("nn modules + functional", "ember/nn/"),
    ("optimizer", "ember/optim/"),
    ("CPU kernels (Python)", "kernels/cpu/"),
    ("shared kernels (meta, common, composite)", "kernels/"),
    ("NumPy (Python parts)", "numpy/"),
    ("benchmark loop", "benchmarks/"),
]


def layer_of(filename: str) -> str:
    if filename.startswith(("~", "<")):
        return "C builtins (NumPy ufuncs, BLAS, dict/list ops)"
    for label, fragment in LAYERS:
        if fragment in filename:
            return label
    return "other Python"


def by_layer(stats: pstats.Stats):
    """Self seconds per layer, largest first."""
    totals = {}
    for (filename, _, _), (_, _, tottime, _, _) in stats.stats.items():
        label = layer_of(filename)
        totals[label] = totals.get(label, 0.0) + tottime
    return sorted(totals.items(), key=lambda kv: -kv[1])


def workload(lib, variant, batches):
    """(a function running some steps, the steps it runs) for `lib` (ember or torch)."""
    if variant == "gpt":
        return gpt_step(lib), 1
    if variant == "resnet":
        return resnet_step(lib), 1
    if variant == "raw":    # (the functions suite.py's rows use)
        linear, loss = ((ember.linear, ember.cross_entropy_loss) if lib is ember else
                        (lib.nn.functional.linear, lib.nn.functional.cross_entropy))
        return raw_epoch(lib, linear, loss, batches), len(batches)
    epoch = module_epoch(lib, batches)
    return epoch, len(batches)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", choices=("raw", "nn", "gpt", "resnet"), default="raw")
    ap.add_argument("--steps", type=int, default=230, help="steps profiled (rounded to epochs; "
                    "gpt/resnet: 1 step per call)")
    ap.add_argument("--top", type=int, default=25, help="rows of the per-op table")
    ap.add_argument("--torch", action="store_true", help="torch.profiler's table of the same "
                    "steps in torch too")
    args = ap.parse_args(argv)
    batches = digits_batches() if args.variant in ("raw", "nn") else None
    epoch, per_call = workload(ember, args.variant, batches)
    epochs = max(1, args.steps // per_call)
    steps = epochs * per_call
    epoch()
    best = min(timeit.repeat(epoch, number=1, repeat=15))
    print(f"{args.variant}: {best / per_call * 1e6:.1f} us per step unprofiled "
          f"({best * 1e3:.2f} ms per call of {per_call} steps)\n")

    with ember.profiler.profile() as prof:
        for _ in range(epochs):
            epoch()
    print(f"1. per op and node (ember.profiler, {steps} steps)")
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=args.top))
    if args.torch:
        import torch
        torch_epoch, _ = workload(torch, args.variant, batches)
        torch_epoch()
        with torch.profiler.profile() as tprof:
            for _ in range(epochs):
                torch_epoch()
        print(f"   torch, the same {steps} steps (torch.profiler)")
        print(tprof.key_averages().table(sort_by="self_cpu_time_total", row_limit=args.top))

    profiler = cProfile.Profile()
    profiler.runcall(lambda: [epoch() for _ in range(epochs)])
    stats = pstats.Stats(profiler)
    total = sum(t for _, t in by_layer(stats))
    print(f"\n2. per layer (cProfile self time, {steps} steps; {total / steps * 1e6:.1f} us "
          "per profiled step)")
    for label, seconds in by_layer(stats):
        print(f"  {label:46} {seconds / steps * 1e6:8.1f} us/step {seconds / total:7.1%}")
    print("\n   top functions by self time:")
    stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
