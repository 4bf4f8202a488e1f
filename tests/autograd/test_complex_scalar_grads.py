"""Gradients through a complex Python number (alpha, beta, a Scalar other or value) multiply
by its conjugate, as torch's derivatives.yaml says (`maybe_multiply(grad, alpha.conj())`,
mul_tensor_backward's `grad * other.conj()`); index_add's source keeps alpha itself, as
torch's formula does. Each case runs on the array formulas (the engine's default) and on
the ember-op formulas (create_graph=True), against torch."""
from __future__ import annotations

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

A, B = 1.5 - 2j, 0.5 + 0.75j
CASES = {
    "add.Tensor": (lambda m, x, y: m.add(x, y, alpha=A), [(3,), (3,)]),
    "add_.Tensor": (lambda m, x, y: (x * 1).add_(y, alpha=A), [(3,), (3,)]),
    "sub.Tensor": (lambda m, x, y: m.sub(x, y, alpha=A), [(3,), (3,)]),
    "rsub.Tensor": (lambda m, x, y: m.rsub(x, y, alpha=A), [(3,), (3,)]),
    "rsub.Scalar": (lambda m, x: m.rsub(x, 2 + 1j, alpha=A), [(3,)]),
    "mul.Scalar": (lambda m, x: m.ops.aten.mul.Scalar(x, A), [(3,)]),
    "div.Scalar": (lambda m, x: m.ops.aten.div.Scalar(x, A), [(3,)]),
    "addmm": (lambda m, s, a, b: m.addmm(s, a, b, beta=B, alpha=A), [(2, 4), (2, 3), (3, 4)]),
    "addmm (column-major mat2)": (lambda m, s, a, b: m.addmm(s, a, b.t(), beta=B, alpha=A),
                                  [(2, 4), (2, 3), (4, 3)]),
    "addmv": (lambda m, s, a, b: m.addmv(s, a, b, beta=B, alpha=A), [(2,), (2, 3), (3,)]),
    "addr": (lambda m, s, a, b: m.addr(s, a, b, beta=B, alpha=A), [(2, 3), (2,), (3,)]),
    "addbmm": (lambda m, s, a, b: m.addbmm(s, a, b, beta=B, alpha=A),
               [(2, 4), (5, 2, 3), (5, 3, 4)]),
    "baddbmm": (lambda m, s, a, b: m.baddbmm(s, a, b, beta=B, alpha=A),
                [(5, 2, 4), (5, 2, 3), (5, 3, 4)]),
    "addcmul": (lambda m, s, a, b: m.addcmul(s, a, b, value=A), [(3,), (3,), (3,)]),
    "addcdiv": (lambda m, s, a, b: m.addcdiv(s, a, b, value=A), [(3,), (3,), (3,)]),
    "lerp.Scalar": (lambda m, s, e: m.lerp(s, e, A), [(3,), (3,)]),
    "index_add": (lambda m, s, src: m.index_add(s, 0, m.tensor([0, 2]), src, alpha=A),
                  [(3,), (2,)]),
    "pow.Scalar, second order": (lambda m, e: m.pow(-4, e), [(2,)]),
}


def grads(lib, fn, arrays, create_graph):
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    y = fn(lib, *xs)
    gy = lib.tensor(np.full(tuple(y.shape), 0.3 + 0.7j))
    gs = lib.autograd.grad(y, xs, gy, create_graph=create_graph)
    if create_graph:    # and one more order: the formulas' own gradients
        total = sum((g * lib.tensor(np.full(tuple(g.shape), 0.2 - 0.5j))).sum().real
                    for g in gs if g.requires_grad)
        if not isinstance(total, int):
            gs = gs + lib.autograd.grad(total, xs, allow_unused=True)
    return [None if g is None else g.detach().resolve_conj().numpy() for g in gs]


@pytest.mark.parametrize("create_graph", [False, True], ids=["arrays", "ops"])
@pytest.mark.parametrize("name", list(CASES))
def test_complex_scalar_gradient_matches_torch(name, create_graph):
    fn, shapes = CASES[name]
    rng = np.random.default_rng(len(name))
    arrays = [rng.standard_normal(s) + 1j * rng.standard_normal(s) for s in shapes]
    want = grads(torch, fn, arrays, create_graph)
    got = grads(ember, fn, arrays, create_graph)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w is None:
            assert g is None or not g.any()
        else:
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
