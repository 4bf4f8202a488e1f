"""Issue 20's real programs: every program in tests/programs (pytorch/examples' mnist,
regression, vae, dcgan, time_sequence_prediction, word_language_model; minGPT, nanoGPT,
makemore, torchvision's ResNet) trained under ember and under torch, the program file run
unchanged (tests/programs/programs_harness.py loads it with `import ember as torch`).

    .venv/bin/python benchmarks/real_programs.py [--repeat 7] [--only mnist,vae]
                                                 [--json benchmarks/last_run_real_programs.json]
                                                 [--profile]

Each row times one call of the program's training entry point with the small configs of
tests/programs/test_programs.py (a few steps or one or two tiny epochs, with the
program's own evaluation, as the test runs it): the same data, seeds and initial weights
in both libraries (torch's initial state, recorded once, is loaded into both models
before each timed run). CPU time (`time.process_time`), torch on one thread, repetitions
interleaved (torch and ember alternate which goes first), medians with min-max in ms.
Set-up (building data sets, models the program takes as arguments) is not timed.
--profile prints, instead of timing, where ember's runs of the chosen programs spend
their time: per aten op (ember.profiler) and per layer of ember (cProfile, grouped by
file as in benchmarks/profile_step.py).
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse
import pathlib
import statistics
import sys
import tempfile
import time
import warnings

import numpy as np
import pytest
from harness import Table, torch, warm_allocator

import ember

PROGRAMS = pathlib.Path(__file__).resolve().parents[1] / "tests" / "programs"
sys.path.insert(0, str(PROGRAMS))

# isort: split
from programs_harness import data, load, no_dropout, numpy_random
from test_programs import TEXT, CharStream, Names, small_resnet

DEFAULT_JSON = pathlib.Path(__file__).resolve().parent / "last_run_real_programs.json"


class StartState:
    """The torch model's initial parameters and buffers, recorded at its first run, loaded
    into every later model of either library (dropout off): the same work each run."""

    def __init__(self):
        self.state = None

    def hook(self, fw):
        def set_state(model):
            no_dropout(model)
            if self.state is None:
                assert fw is torch, "torch runs first: its initial state is the reference"
                self.state = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
            model.load_state_dict({k: fw.from_numpy(v.copy()) for k, v in self.state.items()})
        return set_state


# --- the programs: each case makes `prepare(fw, module) -> run`, `run()` is timed ------------
def mnist_case():
    rng = np.random.default_rng(0)
    images = rng.standard_normal((4, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, 4)
    start = StartState()

    def prepare(fw, module):
        x, y, hook = data(fw, images), data(fw, labels), start.hook(fw)
        return lambda: module.main(x, y, model_state=hook)
    return prepare


def regression_case():
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((4, 1)) * 5).astype(np.float32)
    b = (rng.standard_normal(1) * 5).astype(np.float32)
    draws = (rng.standard_normal((20, 32)) * 0.5).astype(np.float32)
    start = StartState()

    def prepare(fw, module):
        args = data(fw, w), data(fw, b), data(fw, draws), start.hook(fw)
        return lambda: module.main(*args)
    return prepare


def time_sequence_case(folder):
    start = StartState()

    def prepare(fw, module):
        path = pathlib.Path(folder) / "sine.pt"
        if not path.exists():
            module.generate_sine_wave(path)
        hook = start.hook(fw)
        return lambda: module.main(path, 2, hook, hidden=8)
    return prepare


def vae_case():
    images = np.random.default_rng(0).random((8, 1, 28, 28)).astype(np.float32)
    start = StartState()

    def prepare(fw, module):
        x, hook = data(fw, images), start.hook(fw)

        def run():
            with pytest.MonkeyPatch.context() as patch:
                numpy_random(patch, fw, 0)
                return module.main(x, 2, hook)
        return run
    return prepare


def dcgan_case():
    images = np.random.default_rng(0).uniform(-1, 1, (12, 3, 64, 64)).astype(np.float32)
    start_g, start_d = StartState(), StartState()

    def prepare(fw, module):
        x, hook_g, hook_d = data(fw, images), start_g.hook(fw), start_d.hook(fw)

        def run():
            with pytest.MonkeyPatch.context() as patch:
                numpy_random(patch, fw, 0)
                return module.main(x, lambda g, d: (hook_g(g), hook_d(d)))
        return run
    return prepare


def word_language_model_case(kind, folder):
    tokens = np.random.default_rng(0).integers(0, 12, 41)
    start = StartState()

    def prepare(fw, module):
        fw.manual_seed(0)
        if kind == "Transformer":
            model = module.TransformerModel(12, 8, 2, 16, 2, dropout=0.0)
        else:
            model = module.RNNModel(kind, 12, 8, 8, 2, dropout=0.0, tie_weights=kind == "LSTM")
        start.hook(fw)(model)
        x = data(fw, tokens)
        save = pathlib.Path(folder) / f"wlm_{kind}_{fw.__name__}.pt"
        return lambda: module.main(model, x, save)
    return prepare


def mingpt_case():
    start = StartState()

    def prepare(fw, module):
        module.set_seed(3407)
        config = module.GPTConfig(vocab_size=10, block_size=8, n_layer=2, n_head=2, n_embd=16,
                                  embd_pdrop=0.0, resid_pdrop=0.0, attn_pdrop=0.0)
        model = module.GPT(config)
        start.hook(fw)(model)
        train_config = module.GPTConfig(batch_size=4, num_workers=0, max_iters=6,
                                        learning_rate=5e-3, betas=(0.9, 0.95),
                                        weight_decay=0.1, grad_norm_clip=1.0)
        return module.Trainer(train_config, model, CharStream(fw, TEXT, 8)).run
    return prepare


def nanogpt_case():
    tokens = np.random.default_rng(0).integers(0, 12, 120).astype(np.uint16)
    start = StartState()

    def prepare(fw, module):
        hook = start.hook(fw)

        def run():
            with pytest.MonkeyPatch.context() as patch:
                numpy_random(patch, fw, 0)
                return module.train(tokens, hook)
        return run
    return prepare


def makemore_case(kind):
    rng = np.random.default_rng(1)
    words = [rng.integers(1, 9, rng.integers(2, 6)) for _ in range(12)]
    start = StartState()

    def prepare(fw, module):
        config = module.ModelConfig(vocab_size=9, block_size=6, n_embd=8, n_embd2=12)
        model = module.build(kind, config)
        start.hook(fw)(model)
        train, test = Names(fw, words, 5), Names(fw, words[:4], 5)
        return lambda: module.train(model, train, test)
    return prepare


def resnet_case(variant):
    rng = np.random.default_rng(0)
    images = rng.standard_normal((4, 3, 32, 32)).astype(np.float32)
    labels = rng.integers(0, 5, 4)
    start = StartState()

    def prepare(fw, module):
        model = small_resnet(module, variant)
        start.hook(fw)(model)
        x, y = data(fw, images), data(fw, labels)
        return lambda: module.train(model, x, y)
    return prepare


def cases(folder):
    """(row name, program file, case) for every program and variant the tests run."""
    rows = [("mnist (2 epochs of 2 batches)", "mnist", mnist_case()),
            ("regression (20 steps)", "regression", regression_case()),
            ("time_sequence_prediction (2 LBFGS)", "time_sequence_prediction",
             time_sequence_case(folder)),
            ("vae (2 epochs of 2 batches)", "vae", vae_case()),
            ("dcgan (3 D+G steps)", "dcgan", dcgan_case())]
    rows += [(f"word_language_model {k}", "word_language_model",
              word_language_model_case(k, folder))
             for k in ("LSTM", "GRU", "RNN_TANH", "Transformer")]
    rows += [("mingpt (6 steps)", "mingpt", mingpt_case()),
             ("nanogpt (7 iters x 2 micro)", "nanogpt", nanogpt_case())]
    rows += [(f"makemore {k} (5 steps)", "makemore", makemore_case(k))
             for k in ("bigram", "mlp", "rnn", "gru", "bow")]
    rows += [(f"resnet {v} (3 steps)", "resnet", resnet_case(v))
             for v in ("resnet", "resnext", "dilated")]
    return rows


def measure_case(case, modules, repeat):
    """Median, min, max CPU microseconds of a run per library, runs interleaved."""
    times = {ember: [], torch: []}
    for i in range(repeat + 1):  # the first round warms up (and records torch's state)
        order = (torch, ember) if i % 2 == 0 else (ember, torch)
        for fw in order:
            run = case(fw, modules[fw])
            t0 = time.process_time()
            run()
            elapsed = time.process_time() - t0
            if i:
                times[fw].append(elapsed * 1e6)
    return {fw: (statistics.median(t), min(t), max(t)) for fw, t in times.items()}


def profile_case(name, case, modules, runs=5, top=25):
    """ember.profiler's per-op table and cProfile's per-layer self times of `runs` runs."""
    import cProfile
    import pstats

    from profile_step import by_layer

    import ember.profiler
    for fw in (torch, ember):  # warm up; torch first records the initial state
        case(fw, modules[fw])()
    with ember.profiler.profile() as prof:
        for _ in range(runs):
            case(ember, modules[ember])()
    print(f"\n=== {name}: per op and node (ember.profiler, {runs} runs)")
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=top))
    profiler = cProfile.Profile(time.process_time)  # (CPU time: the machine is shared)
    for _ in range(runs):
        run = case(ember, modules[ember])
        profiler.runcall(run)
    stats = pstats.Stats(profiler)
    layers = by_layer(stats)
    total = sum(t for _, t in layers)
    print(f"=== {name}: per layer (cProfile self time, {total / runs * 1e3:.1f} ms per run)")
    for label, seconds in layers:
        print(f"  {label:46} {seconds / runs * 1e3:8.2f} ms/run {seconds / total:7.1%}")
    stats.sort_stats("tottime").print_stats(top)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per library")
    ap.add_argument("--only", default="", help="comma-separated program files to run")
    ap.add_argument("--json", default=str(DEFAULT_JSON), help="where the rows go ('' for none)")
    ap.add_argument("--profile", action="store_true", help="profile ember's runs, no timing")
    args = ap.parse_args(argv)
    if torch is None:
        sys.exit("real_programs.py needs torch (the reference each program runs on)")
    warnings.filterwarnings("ignore")  # the programs' own warnings, alike in both
    warm_allocator()
    only = set(filter(None, args.only.split(",")))
    table = Table(width=38, unit="ms")
    with tempfile.TemporaryDirectory() as folder:
        for name, program, case in cases(folder):
            if only and program not in only:
                continue
            modules = {torch: load(program, "torch"), ember: load(program, "ember")}
            if args.profile:
                profile_case(name, case, modules)
                continue
            result = measure_case(case, modules, args.repeat)
            table.add(name, result[ember], None, result[torch], unit="ms")
    ratios = [r["ember_over_torch"] for r in table.rows]
    if args.profile:
        return
    if ratios:
        print(f"geometric mean ember/torch {np.exp(np.mean(np.log(ratios))):.2f}, "
              f"worst {max(ratios):.2f}, above 1.5x: {sum(r > 1.5 for r in ratios)}")
    table.write_json(args.json, timer="cpu", repeat=args.repeat)


if __name__ == "__main__":
    main()
