"""The benchmark suite (`make bench`): ember next to NumPy and torch in one process, one
table (median with min-max of many repetitions, ember/torch and ember/NumPy ratios) and
JSON (benchmarks/last_run_suite.json).

    .venv/bin/python benchmarks/suite.py [--threads 1] [--timer wall|cpu] [--repeat 15]

Rows: tiny-op overhead (add on (4,) and (64, 64); inside no_grad and inference_mode;
41 tiny ops `c = c * b + a` x20 under inference_mode; a forward that records a graph),
the autograd round trip relu(x*w+b).sum() forward + backward, a*b+c on 10M float32,
matmul 1024x1024 float32, one epoch of the digits MLP (64-128-10, batch 64, SGD lr 0.1,
cross entropy, sklearn's load_digits train split: 23 steps of forward, loss, zero_grad,
backward, step), the real programs' training steps (benchmarks/programs.py: a GPT block,
ResNet-18) and `import` in a fresh interpreter. The NumPy column is the same computation
by hand (import: `import numpy`; none for the programs).
NumPy's BLAS and torch run on `--threads` threads (default 1).
"""
from __future__ import annotations

import threads  # first: pins the BLAS threads before NumPy loads

# isort: split
import argparse
import os
import statistics
import subprocess
import sys

import numpy as np
from autograd import inside, numpy_round_trip, round_trip
from harness import TIMERS, Table, measure, torch, warm_allocator
from programs import gpt_step, resnet_step

import ember

LR = 0.1
BATCH = 64


# --- tiny ops ---------------------------------------------------------------------------------
def add_row(table, shape, timing):
    rng = np.random.default_rng(0)
    a_np, b_np = (rng.random(shape, dtype=np.float32) for _ in range(2))
    a, b = ember.from_numpy(a_np.copy()), ember.from_numpy(b_np.copy())
    ta, tb = (torch.from_numpy(a_np.copy()), torch.from_numpy(b_np.copy())) if torch else (0, 0)
    table.add(f"a + b {shape}", measure(lambda: a + b, 20000, **timing),
              measure(lambda: np.add(a_np, b_np), 20000, **timing),
              measure((lambda: ta + tb) if torch else None, 20000, **timing))


def tiny_op_rows(table, timing):
    add_row(table, (4,), timing)
    add_row(table, (64, 64), timing)
    rng = np.random.default_rng(0)
    a_np, b_np = rng.random(4, dtype=np.float32), rng.random(4, dtype=np.float32)
    a, b = ember.from_numpy(a_np.copy()), ember.from_numpy(b_np.copy())
    w = ember.from_numpy(b_np.copy()).requires_grad_()
    ta, tb = (torch.from_numpy(a_np.copy()), torch.from_numpy(b_np.copy())) if torch else (0, 0)
    tw = torch.from_numpy(b_np.copy()).requires_grad_() if torch else 0
    for label, me, mt in [("no_grad", ember.no_grad, getattr(torch, "no_grad", None)),
                          ("inference_mode", ember.inference_mode,
                           getattr(torch, "inference_mode", None))]:
        table.add(f"a + b inside {label} (4,)",
                  *inside(me, mt, a, b, ta, tb, a_np, b_np, 20000, **timing))
    table.add("41 tiny ops (c*b+a x20) inside inference_mode",
              *inside(ember.inference_mode, getattr(torch, "inference_mode", None), a, b, ta, tb,
                      a_np, b_np, 1000, **timing, body=chain))
    table.add("a + w(requires_grad) forward (4,)", measure(lambda: a + w, 20000, **timing),
              measure(lambda: np.add(a_np, b_np), 20000, **timing),
              measure((lambda: ta + tw) if torch else None, 20000, **timing))


def round_trip_rows(table, timing):
    rng = np.random.default_rng(0)
    for shape in [(4,), (64, 64)]:
        arrays = [rng.random(shape, dtype=np.float32) - 0.3 for _ in range(3)]
        e = [ember.from_numpy(a.copy()).requires_grad_() for a in arrays]
        t = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays] if torch else None
        table.add(f"relu(x*w+b).sum() fwd+bwd {shape}", measure(round_trip(ember, *e), 2000, **timing),
                  measure(numpy_round_trip(*arrays), 2000, **timing),
                  measure(round_trip(torch, *t) if torch else None, 2000, **timing))


def chain(lib, a, b):
    """`c = c * b + a` twenty times from c = a: 41 tiny ops (with the first)."""
    c = a * 1.0
    for _ in range(20):
        c = c * b + a
    return c


# --- large tensors ----------------------------------------------------------------------------
def large_rows(table, timing):
    rng = np.random.default_rng(0)
    a_np, b_np, c_np = (rng.random(10_000_000, dtype=np.float32) for _ in range(3))
    e = [ember.from_numpy(x) for x in (a_np, b_np, c_np)]
    t = [torch.from_numpy(x) for x in (a_np, b_np, c_np)] if torch else None
    table.add("a*b+c 10M float32", measure(lambda: e[0] * e[1] + e[2], 3, **timing),
              measure(lambda: a_np * b_np + c_np, 3, **timing),
              measure((lambda: t[0] * t[1] + t[2]) if torch else None, 3, **timing), unit="ms")
    m_np, n_np = (rng.random((1024, 1024), dtype=np.float32) for _ in range(2))
    m, n = ember.from_numpy(m_np), ember.from_numpy(n_np)
    tm, tn = (torch.from_numpy(m_np), torch.from_numpy(n_np)) if torch else (0, 0)
    table.add("matmul 1024x1024 float32", measure(lambda: m @ n, 2, **timing),
              measure(lambda: m_np @ n_np, 2, **timing),
              measure((lambda: tm @ tn) if torch else None, 2, **timing), unit="ms")


# --- the digits MLP epoch ---------------------------------------------------------------------
def digits_batches():
    """sklearn's digits, train split (1437 samples, 80%), scaled to [0, 1], in batches of 64."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    x, y = load_digits(return_X_y=True)
    x_train, _, y_train, _ = train_test_split(x, y, test_size=0.2, random_state=0)
    x_train = (x_train / 16.0).astype(np.float32)
    return [(x_train[i:i + BATCH], y_train[i:i + BATCH].astype(np.int64))
            for i in range(0, len(x_train), BATCH)]


def initial_weights():
    """(w1, b1, w2, b2) of the 64-128-10 MLP, like nn.Linear's default initialisation."""
    rng = np.random.default_rng(0)
    out = []
    for fan_in, fan_out in [(64, 128), (128, 10)]:
        bound = 1 / np.sqrt(fan_in)
        out += [rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32),
                rng.uniform(-bound, bound, fan_out).astype(np.float32)]
    return out


def raw_epoch(lib, linear, cross_entropy, batches):
    """The epoch in raw ops: linear, relu, cross entropy, backward, and an in-place SGD
    step under no_grad."""
    params = [lib.from_numpy(a).requires_grad_() for a in initial_weights()]
    data = [(lib.from_numpy(x), lib.from_numpy(t)) for x, t in batches]
    w1, b1, w2, b2 = params

    def epoch():
        for x, t in data:
            loss = cross_entropy(linear(lib.relu(linear(x, w1, b1)), w2, b2), t)
            for p in params:
                p.grad = None
            loss.backward()
            with lib.no_grad():
                for p in params:
                    p.sub_(p.grad, alpha=LR)
    return epoch


def module_epoch(lib, batches):
    """The epoch with nn.Sequential, nn.CrossEntropyLoss and optim.SGD (None when the
    library has no such modules yet)."""
    nn, optim = getattr(lib, "nn", None), getattr(lib, "optim", None)
    if not all(hasattr(nn, n) for n in ("Sequential", "Linear", "ReLU", "CrossEntropyLoss")) \
            or not hasattr(optim, "SGD"):
        return None
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    with lib.no_grad():
        for p, a in zip(model.parameters(), initial_weights()):
            p.copy_(lib.from_numpy(a))
    loss_fn, opt = nn.CrossEntropyLoss(), optim.SGD(model.parameters(), lr=LR)
    data = [(lib.from_numpy(x), lib.from_numpy(t)) for x, t in batches]

    def epoch():
        for x, t in data:
            loss = loss_fn(model(x), t)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return epoch


def numpy_epoch(batches):
    """The same epoch by hand in NumPy: forward, softmax cross entropy, the gradients of
    both layers, SGD."""
    w1, b1, w2, b2 = initial_weights()
    data = [(x, t, np.eye(10, dtype=np.float32)[t]) for x, t in batches]

    def epoch():
        for x, t, onehot in data:
            z1 = x @ w1.T + b1
            h = np.maximum(z1, 0)
            z2 = h @ w2.T + b2
            e = np.exp(z2 - z2.max(1, keepdims=True))
            p = e / e.sum(1, keepdims=True)
            loss = -np.log(p[np.arange(len(t)), t]).mean()  # noqa: F841  (as the others)
            g2 = (p - onehot) / len(t)
            gh = g2 @ w2
            gh *= z1 > 0
            for param, grad in ((w2, g2.T @ h), (b2, g2.sum(0)), (w1, gh.T @ x), (b1, gh.sum(0))):
                np.subtract(param, LR * grad, out=param)
    return epoch


def mlp_rows(table, timing):
    batches = digits_batches()
    steps = len(batches)
    torch_raw = raw_epoch(torch, torch.nn.functional.linear, torch.nn.functional.cross_entropy,
                          batches) if torch else None
    np_epoch = numpy_epoch(batches)
    ember_nn = module_epoch(ember, batches)
    if ember_nn is not None:
        table.add(f"digits MLP epoch, nn+optim ({steps} steps)", measure(ember_nn, 3, **timing),
                  measure(np_epoch, 3, **timing),
                  measure(module_epoch(torch, batches) if torch else None, 3, **timing), unit="ms")
    table.add(f"digits MLP epoch, raw ops ({steps} steps)",
              measure(raw_epoch(ember, ember.linear, ember.cross_entropy_loss, batches), 3,
                      **timing),
              measure(np_epoch, 3, **timing), measure(torch_raw, 3, **timing), unit="ms")
    if ember_nn is None and torch:
        table.add("digits MLP epoch, torch nn+optim only", None, None,
                  measure(module_epoch(torch, batches), 3, **timing), unit="ms")


# --- real programs ----------------------------------------------------------------------------
def program_rows(table, timing):
    repeat = {**timing, "repeat": max(3, timing["repeat"] // 3)}
    for label, make, number in [("GPT block training step (d128 h4 T64 B8)", gpt_step, 3),
                                ("ResNet-18 training step (B8 32x32)", resnet_step, 1)]:
        table.add(label, measure(make(ember), number, **repeat), None,
                  measure(make(torch) if torch else None, number, **repeat), unit="ms")


# --- import time ------------------------------------------------------------------------------
def import_seconds(module, runs, timer="wall"):
    """Median and (min, max) of microseconds `import module` takes in a fresh interpreter,
    with bytecode cached (as after an install: one import first writes it); `timer`
    "cpu" times the subprocess's CPU time."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    clock = "perf_counter" if timer == "wall" else "process_time"
    code = (f"import time; t = time.{clock}(); import {module}; "
            f"print(time.{clock}() - t)")
    subprocess.run([sys.executable, "-c", "import " + module], env=env, check=True)
    times = [float(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                  capture_output=True, text=True).stdout) * 1e6
             for _ in range(runs)]
    return statistics.median(times), min(times), max(times)


def import_rows(table, runs, timer):
    table.add("import (fresh interpreter)", import_seconds("ember", runs, timer),
              import_seconds("numpy", runs, timer),
              import_seconds("torch", runs, timer) if torch else None, unit="ms")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", default=os.path.join(os.path.dirname(__file__),
                                                   "last_run_suite.json"))
    ap.add_argument("--threads", type=int, help="threads of torch and of NumPy's BLAS "
                    "(read by threads.py; default: OPENBLAS_NUM_THREADS & co., else 1)")
    ap.add_argument("--timer", choices=tuple(TIMERS), default="wall",
                    help="cpu: the process's CPU time (steadier on a busy machine)")
    ap.add_argument("--repeat", type=int, default=15, help="repetitions per case")
    args = ap.parse_args(argv)
    timing = {"repeat": args.repeat, "timer": TIMERS[args.timer]}
    print(f"threads: NumPy BLAS {threads.THREADS}, torch {threads.THREADS}; timer {args.timer}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    warm_allocator()
    table = Table(44)
    tiny_op_rows(table, timing)
    round_trip_rows(table, timing)
    large_rows(table, timing)
    mlp_rows(table, timing)
    program_rows(table, timing)
    import_rows(table, max(5, args.repeat // 2), args.timer)
    table.write_json(args.json, timer=args.timer, load_average=os.getloadavg()[0])
    return table.rows


if __name__ == "__main__":
    main()
