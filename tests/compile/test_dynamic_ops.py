"""Ops traced with symbolic sizes (dynamic shapes): each small program below compiles into
one graph that serves every size (no recompile, no graph break), on each backend, equal to
eager in values and gradients. Before, these ran eagerly (a graph break) or recompiled per
size: `arange`/`eye`/`linspace` with a symbolic size, slice/select with symbolic bounds,
`empty_strided`, `take` and `embedding_dense_backward` (an index cache keyed by a SymInt),
`tensor * SymFloat` (`x.shape[-1] ** -0.5`), and cat/stack (a list used as a dict key)."""
from __future__ import annotations

import numpy as np
import pytest

import ember
from ember._dynamo import counters

BACKENDS = ["eager", "aot_eager", "inductor"]


def _spd(x):
    n = x.shape[0]
    return x @ x.mT + ember.eye(n) * n


# name -> (program, differentiable); every program takes one (n, n + 1) float64 tensor
PROGRAMS = {
    "arange": (lambda x: x + ember.arange(x.shape[-1]), True),
    "arange_start_step": (lambda x: x[:, 1::2] * ember.arange(1, x.shape[1], 2), True),
    "tril_triu": (lambda x: x.tril() - x.triu(1) * 2, True),
    "cholesky": (lambda x: ember.linalg.cholesky(_spd(x)), True),
    "qr": (lambda x: ember.linalg.qr(x)[1], True),
    "lu_factor": (lambda x: ember.linalg.lu_factor(x[:, 1:] @ x[:, 1:].mT)[0], False),
    "as_strided": (lambda x: x.as_strided((x.shape[0] - 1, 2), (x.shape[1], 1)), True),
    "quantile": (lambda x: x.quantile(0.3, dim=-1), True),
    "eye": (lambda x: x[:, 1:] + ember.eye(x.shape[0]), True),
    "linspace": (lambda x: x * ember.linspace(0, 1, x.shape[-1], dtype=ember.float64), True),
    "slice": (lambda x: x[1:x.shape[0] - 1, : x.shape[1] - 2], True),
    "select": (lambda x: x[x.shape[0] - 1] * x[:, x.shape[1] - 2].sum(), True),
    "empty_strided": (lambda x: ember.empty_strided(
        x.shape, (1, x.shape[0]), dtype=ember.float64).fill_(2.0) * x, True),
    "take": (lambda x: x.take(ember.tensor([0, 2, 5])), True),
    "sym_float": (lambda x: (x * x.shape[-1] ** -0.5).softmax(-1), True),
    "sym_div": (lambda x: x * (x.shape[0] / x.shape[1]) - x.shape[1] // 2, True),
    "cat_stack": (lambda x: ember.stack([ember.cat([x, x * 2]), ember.cat([x.exp(), x])]),
                  True),
}


def _run(fn, x, grad):
    x = x.detach().requires_grad_(grad)
    out = fn(x)
    if not grad:
        return out, None
    (out * ember.linspace(-1, 1, out.numel(), dtype=out.dtype).reshape(out.shape)).sum(
    ).backward()
    return out, x.grad


def _check(compiled, fn, grad, sizes):
    for n in sizes:
        x = ember.tensor(np.random.default_rng(n).standard_normal((n, n + 1)))
        got, got_grad = _run(compiled, x, grad)
        want, want_grad = _run(fn, x, grad)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(),
                                   rtol=1e-9, atol=1e-9)
        if grad:
            np.testing.assert_allclose(got_grad.numpy(), want_grad.numpy(),
                                       rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_one_dynamic_graph_for_every_size(name, backend):
    fn, grad = PROGRAMS[name]
    compiled = ember.compile(fn, backend=backend, dynamic=True, fullgraph=True)
    _check(compiled, fn, grad and backend != "eager", (4, 6, 9))
    assert counters["frames"]["total"] == 1 and counters["frames"]["ok"] == 1
    assert counters["stats"]["recompiles"] == 0 and not counters["graph_break"]


@pytest.mark.parametrize("name", ["arange", "eye", "slice", "select", "take", "sym_float",
                                  "cat_stack"])
def test_automatic_dynamic_after_a_second_size(name):
    """dynamic=None: the first size is static, the second makes a dynamic graph that serves
    the sizes after it."""
    fn, grad = PROGRAMS[name]
    compiled = ember.compile(fn, backend="aot_eager", fullgraph=True)
    _check(compiled, fn, grad, (4, 6, 9, 11))
    assert counters["frames"]["total"] == 2 and counters["stats"]["recompiles"] == 1


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_embedding_backward_with_a_symbolic_number_of_indices(backend):
    def fn(idx, w):
        return (ember.nn.functional.embedding(idx, w) * 2).sum()
    compiled = ember.compile(fn, backend=backend, dynamic=True, fullgraph=True)
    for n in (3, 5, 8):
        idx = ember.tensor(np.random.default_rng(n).integers(0, 10, n))
        grads = []
        for f in (compiled, fn):
            w = ember.tensor(np.arange(40.0).reshape(10, 4), requires_grad=True)
            f(idx, w).backward()
            grads.append(w.grad.numpy())
        np.testing.assert_array_equal(*grads)
    assert counters["frames"]["total"] == 1 and not counters["graph_break"]


def test_symbolic_arange_length():
    from ember.core.factory_args import arange_params
    from ember.fx.experimental.symbolic_shapes import ShapeEnv
    s = ShapeEnv().create_symint(7)
    for start, step in ((0, 1), (1, 2), (2, 3)):
        n = arange_params(start, s, step, None)[0]
        assert n.node.hint == len(range(start, 7, step))
    assert arange_params(0, s, 1, ember.float32)[1] is ember.float32


def test_integer_tensor_times_a_sym_float_and_views_of_a_larger_storage():
    """An int tensor times a SymFloat promotes to float as in eager; an input that is a view
    into a larger storage keeps static sizes (its fake base's size would be a symbol no
    guard can read) and still equals eager."""
    def fn(x):
        return x * x.shape[-1] ** 0.5
    compiled = ember.compile(fn, backend="aot_eager", dynamic=True, fullgraph=True)
    for n in (4, 9):
        for x in (ember.tensor(np.arange(2 * n).reshape(2, n)), ember.arange(3 * n)[n:]):
            got, want = compiled(x), fn(x)
            assert got.dtype == want.dtype == ember.float32
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
