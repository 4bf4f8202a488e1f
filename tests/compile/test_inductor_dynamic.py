"""Dynamic shapes under the inductor backend: a graph with symbolic sizes lowers to code
that reads the sizes from its inputs when it runs, so a new batch size or sequence length
reuses the compiled graph (no recompile) and its numba kernels (one compiled signature
each), with torch's values, dtypes, shapes and strides, forward and backward."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import check, pair

import ember
import ember._inductor as inductor
from ember import nn
from ember._dynamo import counters

torch = pytest.importorskip("torch")
TOLS = {"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)}


@pytest.fixture
def lowered(monkeypatch):
    """The callables the inductor backend lowers graphs into during a test (`.source`)."""
    made = []
    original = inductor.lower

    def spy(gm, example_inputs=None):
        made.append(original(gm, example_inputs))
        return made[-1]
    monkeypatch.setattr(inductor, "lower", spy)
    return made


def _same(e, t):
    """torch's values (within tols), dtype, shape and strides."""
    check(e.detach(), t.detach(), TOLS)


def _frames():
    return counters["frames"]["total"]


def _data(*shape, seed=0, dtype="float32"):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(dtype)


def _run(fn, e_args, t_args):
    """fn's result on ember and on torch (their sum's backward run on both)."""
    e_out, t_out = fn(ember, *e_args), fn(torch, *t_args)
    e_out.sum().backward()
    t_out.sum().backward()
    return e_out, t_out


def _leaf(a, grad=True):
    e, t = pair(a)
    return e.requires_grad_(grad), t.requires_grad_(grad)


def _check_grads(e_args, t_args):
    for e, t in zip(e_args, t_args):
        if t.grad is not None:
            _same(e.grad, t.grad)


def _linear_block(lib, x, w):
    h = (x @ w).relu() * 2 + x.sum(1, keepdim=True)
    return h.sum(1) / x.shape[0] + h.mean(1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_new_batch_sizes_reuse_the_dynamic_graph(lowered, dtype):
    """dynamic=None: the first size is static; a second one makes the batch a symbol, and
    every later batch size runs that graph (torch's automatic dynamic shapes)."""
    compiled = ember.compile(lambda x, w: _linear_block(ember, x, w))
    w_data = _data(4, 6, dtype=dtype)
    for n in (6, 9, 4, 13, 2):
        (ew, tw), (ex, tx) = _leaf(w_data), _leaf(_data(n, 4, dtype=dtype))
        got = compiled(ex, ew)
        want = _linear_block(torch, tx, tw)
        _same(got, want)
        got.sum().backward()
        want.sum().backward()
        _check_grads((ex, ew), (tx, tw))
    assert _frames() == 2 and counters["stats"]["recompiles"] == 1
    dynamic = lowered[-2].source             # the dynamic graph's forward
    assert "s0 = v0.shape[0]" in dynamic and "(s0, 6)" in dynamic, dynamic
    assert all(not r.fallbacks for r in lowered[-2:]), [r.fallbacks for r in lowered]


def _attention(lib, x, wq):
    """A causal-free self-attention over (batch, seq, channels): the sequence length
    appears in matmuls, a softmax, a transpose, a reshape and a mean."""
    q = x @ wq
    att = (q @ x.transpose(1, 2) * 0.5).softmax(-1)
    y = (att @ x).reshape(x.shape[0], -1)
    return y.tanh() - y.mean(1, keepdim=True)


def test_sequence_lengths_with_dynamic_true_from_the_first_call(lowered):
    compiled = ember.compile(lambda x, wq: _attention(ember, x, wq), dynamic=True)
    wq = _data(3, 3)
    for t_len in (5, 8, 3, 11):
        (ew, tw), (ex, tx) = _leaf(wq), _leaf(_data(2, t_len, 3))
        got = compiled(ex, ew)
        want = _attention(torch, tx, tw)
        _same(got, want)
        got.sum().backward()
        want.sum().backward()
        _check_grads((ex, ew), (tx, tw))
    assert _frames() == 1 and counters["stats"]["recompiles"] == 0
    assert "s1 = v0.shape[1]" in lowered[0].source, lowered[0].source


def _views(lib, x):
    """Views and reshapes over a symbolic dim, a slice, an expand, and a transposed
    result whose strides must follow eager's."""
    flat = x.reshape(-1)
    pairs = flat.view(-1, 2)
    tail = x[:, 1:] * x[:, :1]
    grown = x.unsqueeze(0).expand(3, *x.shape).sum(0)
    rows = pairs.sum(1).reshape(x.shape[0], -1).sum(1, keepdim=True)
    return (rows + tail.sum(1, keepdim=True) + grown).t()


def test_views_slices_and_output_strides_with_symbolic_sizes():
    compiled = ember.compile(lambda x: _views(ember, x), dynamic=True)
    for n in (3, 6, 4):
        ex, tx = _leaf(_data(n, 4))
        got, want = compiled(ex), _views(torch, tx)
        _same(got, want)
        got.sum().backward()
        want.sum().backward()
        _same(ex.grad, tx.grad)
    assert _frames() == 1


def test_sizes_zero_and_one_specialise(lowered):
    """Sizes 0 and 1 are not symbols (torch's specialisation): each gets its own graph,
    with static sizes in the code."""
    def fn(lib, x):
        return (x * 2 + 1).relu().sum(0) / (x.shape[0] + 1)
    compiled = ember.compile(lambda x: fn(ember, x), dynamic=True)
    for n in (3, 7):
        ex, tx = pair(_data(n, 5))
        _same(compiled(ex), fn(torch, tx))
    assert _frames() == 1
    for n, frames in ((1, 2), (0, 3)):
        ex, tx = pair(_data(n, 5))
        _same(compiled(ex), fn(torch, tx))
        assert _frames() == frames
        assert "shape[0]" not in lowered[-1].source, lowered[-1].source


def test_fused_kernels_compile_once_for_every_size(lowered):
    """The kernels take the sizes as arguments: numba's dispatcher keeps one signature per
    kernel (same dtypes, ndim and layout) for every size."""
    def fn(lib, x, b):
        return ((x * b + 1).relu() * x.shape[0]).sum(1).tanh()
    compiled = ember.compile(lambda x, b: fn(ember, x, b), dynamic=True)
    eb, tb = pair(_data(5))
    ex, tx = pair(_data(4, 5))
    _same(compiled(ex, eb), fn(torch, tx, tb))
    src = lowered[0].source
    assert "_k0(s0, s1, v0, v1, " in src, src              # sizes as arguments
    for n in (2, 9, 17):
        ex, tx = pair(_data(n, 5))
        _same(compiled(ex, eb), fn(torch, tx, tb))
    assert _frames() == 1
    used = lowered[0].kernel_fns
    assert used and all(len(f.signatures) == 1 for f in used), [f.signatures for f in used]


class _MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 10))

    def forward(self, x, y):
        return nn.functional.cross_entropy(self.net(x), y)


def test_mlp_epochs_with_a_smaller_last_batch_compile_twice(lowered):
    """The digits-MLP step over epochs of 3 batches of 32 and a last one of 4: the first
    batch size is static, the last batch's makes the batch a symbol; every later step runs
    one of those two graphs. Losses and parameters follow torch's."""
    ember.manual_seed(0)
    model = _MLP()
    ref = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))
    with torch.no_grad():
        for p, q in zip(model.parameters(), ref.parameters()):
            q.copy_(torch.from_numpy(p.detach().numpy()))
    compiled = ember.compile(model)
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((100, 16)).astype(np.float32)
    ys = rng.integers(0, 10, 100)
    for _ in range(2):
        for i in range(0, 100, 32):
            x, y = xs[i:i + 32], ys[i:i + 32]
            opt.zero_grad()
            loss = compiled(ember.tensor(x), ember.tensor(y))
            loss.backward()
            opt.step()
            ref_opt.zero_grad()
            want = torch.nn.functional.cross_entropy(ref(torch.tensor(x)), torch.tensor(y))
            want.backward()
            ref_opt.step()
            assert loss.item() == pytest.approx(want.item(), rel=1e-5, abs=1e-6)
    for p, q in zip(model.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-4, atol=1e-5)
    assert _frames() == 2 and counters["stats"]["recompiles"] == 1
    x = ember.tensor(xs[:7])                       # a third batch size: the dynamic graph
    compiled(x, ember.tensor(ys[:7])).backward()
    assert _frames() == 2
    assert all(not r.fallbacks for r in lowered), [r.fallbacks for r in lowered]
    assert sum(r.kernels for r in lowered[2:]) >= 2
