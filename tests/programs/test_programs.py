"""Public PyTorch programs (small faithful copies of their models and training loops, in
this folder) run unchanged with `import ember as torch`: trained from torch's initial
weights on the same data, ember's loss curve equals torch's step by step."""
import functools

import numpy as np
import pytest
from programs_harness import SameStart, assert_curves_match, data, load, numpy_random

import ember

torch = pytest.importorskip("torch")


def both(program):
    return load(program, "torch"), load(program, "ember")


def test_mnist():
    tm, em = both("mnist")
    rng = np.random.default_rng(0)
    images = rng.standard_normal((4, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, 4)
    start = SameStart()
    t_losses, t_results = tm.main(data(torch, images), data(torch, labels),
                                  model_state=start.torch_hook)
    e_losses, e_results = em.main(data(ember, images), data(ember, labels),
                                  model_state=start.ember_hook)
    assert_curves_match(e_losses, t_losses)
    np.testing.assert_allclose([r[0] for r in e_results], [r[0] for r in t_results],
                               rtol=1e-4)
    assert [r[1] for r in e_results] == [r[1] for r in t_results]


def test_regression():
    tm, em = both("regression")
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((4, 1)) * 5).astype(np.float32)
    b = (rng.standard_normal(1) * 5).astype(np.float32)
    draws = (rng.standard_normal((20, 32)) * 0.5).astype(np.float32)
    start = SameStart()
    t_losses, t_desc = tm.main(data(torch, w), data(torch, b), data(torch, draws),
                               start.torch_hook)
    e_losses, e_desc = em.main(data(ember, w), data(ember, b), data(ember, draws),
                               start.ember_hook)
    assert_curves_match(e_losses, t_losses, rtol=1e-5)
    assert e_desc == t_desc


def test_time_sequence_prediction(tmp_path):
    tm, em = both("time_sequence_prediction")
    tm.generate_sine_wave(tmp_path / "torch.pt")
    em.generate_sine_wave(tmp_path / "ember.pt")
    # each library reads the other's file (torch's zip format both ways)
    start = SameStart()
    t_losses, t_test, t_pred = tm.main(tmp_path / "ember.pt", 2, start.torch_hook, hidden=8)
    e_losses, e_test, e_pred = em.main(tmp_path / "torch.pt", 2, start.ember_hook, hidden=8)
    assert len(t_losses) > 2  # LBFGS evaluated the closure several times per step
    assert_curves_match(e_losses, t_losses, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(e_test, t_test, rtol=1e-9)
    assert e_pred.dtype == t_pred.dtype == np.float64
    np.testing.assert_allclose(e_pred, t_pred, rtol=1e-8, atol=1e-10)


def test_vae(monkeypatch):
    tm, em = both("vae")
    images = np.random.default_rng(0).random((8, 1, 28, 28)).astype(np.float32)
    start = SameStart()
    results = []
    for fw, module, hook in ((torch, tm, start.torch_hook), (ember, em, start.ember_hook)):
        with monkeypatch.context() as m:
            numpy_random(m, fw, seed=0)
            results.append(module.main(data(fw, images), 2, hook))
    (t_losses, t_test, t_sample), (e_losses, e_test, e_sample) = results
    assert_curves_match(e_losses, t_losses)
    np.testing.assert_allclose(e_test, t_test, rtol=1e-4)
    assert tuple(e_sample.shape) == tuple(t_sample.shape) == (8, 1, 28, 28)
    np.testing.assert_allclose(e_sample.numpy(), t_sample.numpy(), atol=1e-5)


def test_dcgan(monkeypatch):
    tm, em = both("dcgan")
    images = np.random.default_rng(0).uniform(-1, 1, (12, 3, 64, 64)).astype(np.float32)
    start_g, start_d = SameStart(), SameStart()
    results = []
    for fw, module, hooks in ((torch, tm, (start_g.torch_hook, start_d.torch_hook)),
                              (ember, em, (start_g.ember_hook, start_d.ember_hook))):
        def model_state(net_g, net_d, hooks=hooks):
            hooks[0](net_g)
            hooks[1](net_d)
        with monkeypatch.context() as m:
            numpy_random(m, fw, seed=0)
            results.append(module.main(data(fw, images), model_state))
    (t_losses, t_fake), (e_losses, e_fake) = results
    assert_curves_match(np.ravel(e_losses).tolist(), np.ravel(t_losses).tolist(), rtol=1e-4)
    assert tuple(e_fake.shape) == tuple(t_fake.shape) == (4, 3, 64, 64)
    np.testing.assert_allclose(e_fake.numpy(), t_fake.numpy(), atol=1e-5)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")  # (both warn alike)
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN_TANH", "Transformer"])
def test_word_language_model(kind, tmp_path):
    tm, em = both("word_language_model")
    tokens = np.random.default_rng(0).integers(0, 12, 41)
    models = []
    for fw, module in ((torch, tm), (ember, em)):
        fw.manual_seed(0)
        if kind == "Transformer":
            model = module.TransformerModel(12, 8, 2, 16, 2, dropout=0.0)
        else:
            model = module.RNNModel(kind, 12, 8, 8, 2, dropout=0.0, tie_weights=kind == "LSTM")
        models.append(model)
    start = SameStart()
    start.torch_hook(models[0])
    start.ember_hook(models[1])
    t_losses, t_val, t_reloaded = tm.main(models[0], data(torch, tokens), tmp_path / "t.pt")
    e_losses, e_val, e_reloaded = em.main(models[1], data(ember, tokens), tmp_path / "e.pt")
    assert_curves_match(e_losses, t_losses, rtol=1e-4)
    np.testing.assert_allclose(e_val, t_val, rtol=1e-4)
    assert e_reloaded == e_val[-1] and t_reloaded == t_val[-1]


class CharStream:
    """A character-level dataset (chargpt's CharDataset) whose k-th read is the k-th
    chunk of the text whatever index the sampler drew: the random sampler is exercised
    while both libraries see the same batches."""

    def __init__(self, fw, text, block_size, length=100):
        self.fw, self.text, self.block_size, self.length = fw, text, block_size, length
        self.reads = 0

    def __len__(self):
        return self.length

    def __getitem__(self, idx):
        start = (self.reads * 3) % (len(self.text) - self.block_size - 1)
        self.reads += 1
        chunk = self.text[start:start + self.block_size + 1]
        return (data(self.fw, chunk[:-1].astype(np.int64)),
                data(self.fw, chunk[1:].astype(np.int64)))


TEXT = np.random.default_rng(0).integers(0, 10, 200)


@pytest.mark.filterwarnings("ignore:'pin_memory' argument")  # (both warn alike)
def test_mingpt():
    tm, em = both("mingpt")
    runs = []
    for fw, module in ((torch, tm), (ember, em)):
        module.set_seed(3407)
        config = module.GPTConfig(vocab_size=10, block_size=8, n_layer=2, n_head=2, n_embd=16,
                                  embd_pdrop=0.0, resid_pdrop=0.0, attn_pdrop=0.0)
        model = module.GPT(config)
        train_config = module.GPTConfig(batch_size=4, num_workers=0, max_iters=6,
                                        learning_rate=5e-3, betas=(0.9, 0.95),
                                        weight_decay=0.1, grad_norm_clip=1.0)
        runs.append((module, model, module.Trainer(train_config, model,
                                                   CharStream(fw, TEXT, 8))))
    start = SameStart()
    start.torch_hook(runs[0][1])
    start.ember_hook(runs[1][1])
    for _, _, trainer in runs:
        trainer.run()
    (_, t_model, t_trainer), (_, e_model, e_trainer) = runs
    assert_curves_match(e_trainer.losses, t_trainer.losses)
    assert [len(g["params"]) for g in e_trainer.optimizer.param_groups] == \
        [len(g["params"]) for g in t_trainer.optimizer.param_groups]
    t_out = t_model.generate(torch.tensor([[1, 2]]), 6)
    e_out = e_model.generate(ember.tensor([[1, 2]]), 6)
    assert e_out.tolist() == t_out.tolist()


def test_nanogpt(monkeypatch):
    tm, em = both("nanogpt")
    tokens = np.random.default_rng(0).integers(0, 12, 120).astype(np.uint16)
    start = SameStart()
    results = []
    for fw, module, hook in ((torch, tm, start.torch_hook), (ember, em, start.ember_hook)):
        with monkeypatch.context() as m:
            numpy_random(m, fw, seed=0)
            results.append(module.train(tokens, hook))
    (t_losses, t_evals, t_params), (e_losses, e_evals, e_params) = results
    assert_curves_match(e_losses, t_losses)
    assert e_params == t_params
    for e, t in zip(e_evals, t_evals, strict=True):
        np.testing.assert_allclose([e["train"], e["val"]], [t["train"], t["val"]], rtol=1e-5)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_nanogpt_compiled(monkeypatch, backend):
    """train.py's `compile = True` (torch.compile(model)) on ember, against torch eager."""
    tm, em = both("nanogpt")
    tokens = np.random.default_rng(0).integers(0, 12, 120).astype(np.uint16)
    start = SameStart()
    results = []
    ember._dynamo.reset()
    monkeypatch.setattr(ember, "compile", functools.partial(ember.compile, backend=backend))
    for fw, module, hook, compiled in ((torch, tm, start.torch_hook, False),
                                       (ember, em, start.ember_hook, True)):
        with monkeypatch.context() as m:
            numpy_random(m, fw, seed=0)
            results.append(module.train(tokens, hook, compile=compiled))
    (t_losses, t_evals, t_params), (e_losses, e_evals, e_params) = results
    assert_curves_match(e_losses, t_losses)
    assert e_params == t_params
    for e, t in zip(e_evals, t_evals, strict=True):
        np.testing.assert_allclose([e["train"], e["val"]], [t["train"], t["val"]], rtol=1e-5)
    assert ember._dynamo.counters["frames"]["ok"] >= 2     # train and eval graphs
    assert not ember._dynamo.counters["graph_break"], ember._dynamo.counters["graph_break"]


class Names:
    """makemore's CharDataset over a fixed list of encoded words (x = <START> + word,
    y = word + <STOP>, -1 beyond); reads come in the order made, whatever index the
    random sampler drew, so both libraries see the same batches."""

    def __init__(self, fw, words, block_size):
        self.fw, self.words, self.block_size, self.reads = fw, words, block_size, 0

    def __len__(self):
        return len(self.words)

    def __getitem__(self, idx):
        ix = self.words[self.reads % len(self.words)]
        self.reads += 1
        x = np.zeros(self.block_size + 1, np.int64)
        y = np.zeros(self.block_size + 1, np.int64)
        x[1:1 + len(ix)] = ix
        y[:len(ix)] = ix
        y[len(ix) + 1:] = -1
        return data(self.fw, x), data(self.fw, y)


@pytest.mark.parametrize("kind", ["bigram", "mlp", "rnn", "gru", "bow"])
def test_makemore(kind):
    tm, em = both("makemore")
    rng = np.random.default_rng(1)
    words = [rng.integers(1, 9, rng.integers(2, 6)) for _ in range(12)]
    models, runs = [], []
    for fw, module in ((torch, tm), (ember, em)):
        config = module.ModelConfig(vocab_size=9, block_size=6, n_embd=8, n_embd2=12)
        models.append(module.build(kind, config))
    start = SameStart()
    start.torch_hook(models[0])
    start.ember_hook(models[1])
    for fw, module, model in ((torch, tm, models[0]), (ember, em, models[1])):
        runs.append(module.train(model, Names(fw, words, 5), Names(fw, words[:4], 5)))
    (t_losses, t_test), (e_losses, e_test) = runs
    assert_curves_match(e_losses, t_losses)
    np.testing.assert_allclose(e_test, t_test, rtol=1e-5)


def small_resnet(module, variant):
    """The small ResNet of `variant` (resnet: BasicBlock; resnext: grouped Bottleneck;
    dilated: resnext with dilation) from the program module `module`; the benchmark
    (benchmarks/real_programs.py) trains the same ones."""
    if variant == "resnet":
        return module.ResNet(module.BasicBlock, [2, 1, 1, 1], num_classes=5,
                             zero_init_residual=True, planes=(8, 16, 16, 32))
    return module.ResNet(
        module.Bottleneck, [1, 1, 1, 1], num_classes=5, groups=2, width_per_group=8,
        planes=(8, 8, 16, 16),
        replace_stride_with_dilation=[False, True, True] if variant == "dilated" else None)


@pytest.mark.parametrize("variant", ["resnet", "resnext", "dilated"])
def test_resnet(variant):
    tm, em = both("resnet")
    rng = np.random.default_rng(0)
    images = rng.standard_normal((4, 3, 32, 32)).astype(np.float32)
    labels = rng.integers(0, 5, 4)
    models = [small_resnet(module, variant) for module in (tm, em)]
    start = SameStart()
    start.torch_hook(models[0])
    start.ember_hook(models[1])
    t_losses, t_out = tm.train(models[0], data(torch, images), data(torch, labels))
    e_losses, e_out = em.train(models[1], data(ember, images), data(ember, labels))
    assert_curves_match(e_losses, t_losses, rtol=1e-4)
    np.testing.assert_allclose(e_out.numpy(), t_out.numpy(), rtol=1e-3, atol=1e-4)
    for (name, e), (_, t) in zip(models[1].state_dict().items(),
                                 models[0].state_dict().items(), strict=True):
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-3, atol=1e-3, err_msg=name)
