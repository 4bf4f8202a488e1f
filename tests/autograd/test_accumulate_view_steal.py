"""AccumulateGrad takes a view gradient as .grad (detached) when nothing else holds the
view or its base, as torch's AccumulateGrad keeps `new_grad.detach()`; otherwise it
copies. Which one happened is visible through data_ptr: compared with torch here.

    .venv/bin/python -m pytest tests/autograd/test_accumulate_view_steal.py -q
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers import check

import ember

torch = pytest.importorskip("torch")


def _linear_backward(lib, keep_in_hook=False, create_graph=False, x_requires_grad=False):
    """One Linear's backward; (whether w.grad is the gradient the hook saw, w.grad, b.grad)."""
    rng = np.random.default_rng(0)
    w = lib.from_numpy(rng.standard_normal((5, 4))).requires_grad_()
    b = lib.from_numpy(rng.standard_normal(5)).requires_grad_()
    x = lib.from_numpy(rng.standard_normal((3, 4))).requires_grad_(x_requires_grad)
    seen, kept = [], []

    def hook(g):
        seen.append(g.data_ptr())
        if keep_in_hook:
            kept.append(g)
    w.register_hook(hook)
    (lib.nn.functional.linear(x, w, b) ** 2).sum().backward(create_graph=create_graph)
    return w.grad.data_ptr() == seen[0], w.grad, b.grad


@pytest.mark.parametrize("keep_in_hook", [False, True])
@pytest.mark.parametrize("x_requires_grad", [False, True])
def test_weight_gradient_aliasing_matches_torch(keep_in_hook, x_requires_grad):
    e = _linear_backward(ember, keep_in_hook, x_requires_grad=x_requires_grad)
    t = _linear_backward(torch, keep_in_hook, x_requires_grad=x_requires_grad)
    assert e[0] == t[0] == (not keep_in_hook)     # taken as is unless a hook keeps it
    for eg, tg in zip(e[1:], t[1:]):
        check(eg, tg, {"float64": (1e-14, 1e-14)})
        assert eg._base is None and tg._base is None
        assert not eg.requires_grad


def test_create_graph_copies_and_stays_differentiable():
    taken, wg, _ = _linear_backward(ember, create_graph=True)
    assert not taken and wg.requires_grad
    assert _linear_backward(torch, create_graph=True)[0] is False


def test_taken_gradient_then_accumulates_in_place_correctly():
    rng = np.random.default_rng(1)
    x, w0 = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    grads = []
    for lib in (ember, torch):
        w = lib.from_numpy(w0.copy()).requires_grad_()
        for _ in range(3):      # the first gradient is taken, the next ones added into it
            lib.nn.functional.linear(lib.from_numpy(x), w).sum().backward()
        grads.append(w.grad)
    check(grads[0], grads[1], {"float64": (1e-14, 1e-14)})


def test_view_of_a_base_someone_holds_is_copied():
    """A custom Function whose backward returns a view of a tensor it keeps: the gradient
    must not alias what the Function still holds."""
    held = []

    class Keep(ember.autograd.Function):
        @staticmethod
        def forward(ctx, w):
            return w * 1

        @staticmethod
        def backward(ctx, g):
            base = ember.ones(g.shape[::-1], dtype=g.dtype)
            held.append(base)
            return base.t()

    w = ember.zeros(2, 3, requires_grad=True)
    Keep.apply(w).sum().backward()
    assert w.grad.data_ptr() != held[0].data_ptr()
    held[0].fill_(5.0)
    assert w.grad.tolist() == [[1.0] * 3] * 2
