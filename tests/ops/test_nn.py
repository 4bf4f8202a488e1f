"""The nn family (issue 4) beyond the OpInfo suite: gradients of its
CompositeImplicitAutograd ops (no Autograd kernel of their own, so test_op_gradients does
not see them) against torch, with gradcheck and gradgradcheck; batch norm's in-place
running statistics.

    .venv/bin/python -m pytest tests/ops/test_nn.py -q
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import ember_of, torch_of

import ember

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autograd"))
import test_op_gradients as G

COMPOSITES = ["outer.default", "einsum.default", "softmax.int", "log_softmax.int",
              "nll_loss.default", "nll_loss_nd.default", "cross_entropy_loss.default",
              "mse_loss.default", "l1_loss.default", "binary_cross_entropy_with_logits.default",
              "layer_norm.default", "batch_norm.default",
              "scaled_dot_product_attention.default"]
# (op, sample): torch's own backward fails (it broadcasts the gradient into self's shape)
TORCH_BACKWARD_BROKEN = {("mse_loss.default", "broadcast_self"),
                         ("binary_cross_entropy_with_logits.default", "broadcast_self")}
CASES = [pytest.param(name, case, id=f"{name}-{case.sample.name or i}")
         for name in COMPOSITES for i, case in enumerate(G.gradient_cases(name))
         if (name, case.sample.name) not in TORCH_BACKWARD_BROKEN]


@pytest.mark.parametrize("name,case", CASES)
def test_composite_gradients(name, case):
    """Gradients vs torch's, then gradcheck and gradgradcheck in float64 (the composite's
    ops give the backward and the double backward)."""
    G.test_op_gradients(name, case)


def test_every_composite_is_gradchecked():
    for name in COMPOSITES:
        assert any(G.gradcheckable(c) for c in G.gradient_cases(name)), name


# --------------------------------------------------------------------------- batch norm
@pytest.mark.parametrize("shape,momentum", [((4, 3), 0.1), ((2, 3, 5), 0.5), ((2, 3, 2, 2), 1.0)])
def test_batch_norm_updates_running_stats_in_place(shape, momentum):
    """Training updates running_mean/var in place like torch (unbiased variance)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    rm, rv = rng.standard_normal(3).astype(np.float32), rng.uniform(0.5, 2, 3).astype(np.float32)
    e_rm, e_rv, t_rm, t_rv = ember_of(rm), ember_of(rv), torch_of(rm), torch_of(rv)
    e = ember.native_batch_norm(ember_of(x), None, None, e_rm, e_rv, True, momentum, 1e-5)
    t = torch.ops.aten.native_batch_norm(torch_of(x), None, None, t_rm, t_rv, True, momentum,
                                         1e-5)
    for a, b in [(e_rm, t_rm), (e_rv, t_rv), *zip(e, t)]:
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    ember.batch_norm(ember_of(x), None, None, e_rm, e_rv, True, momentum, 1e-5, False)
    torch.batch_norm(torch_of(x), None, None, t_rm, t_rv, True, momentum, 1e-5, False)
    np.testing.assert_allclose(e_rv.numpy(), t_rv.numpy(), rtol=1e-5, atol=1e-6)


def test_batch_norm_refuses_running_stats_requiring_grad():
    x = ember.randn(2, 3, requires_grad=True)
    rm, rv = ember.zeros(3, requires_grad=True), ember.ones(3)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument "
                                           "'running_mean'"):
        ember.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)
    with ember.no_grad():
        ember.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)


@pytest.mark.parametrize("mask", [[True, False, False], [False, True, True], [True, True, False]])
def test_norm_backward_output_mask(mask):
    """Outputs left out by output_mask are None, like torch's."""
    rng = np.random.default_rng(1)
    g, x = (rng.standard_normal((2, 3, 4)).astype(np.float32) for _ in range(2))
    w, b = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    _, m, r = torch.ops.aten.native_layer_norm(torch_of(x), [4], None, None, 1e-5)
    t = torch.ops.aten.native_layer_norm_backward(torch_of(g), torch_of(x), [4], m, r,
                                                  torch_of(w), torch_of(b), mask)
    e = ember.native_layer_norm_backward(ember_of(g), ember_of(x), [4], ember_of(m.numpy()),
                                         ember_of(r.numpy()), ember_of(w), ember_of(b), mask)
    for a, c in zip(e, t):
        assert (a is None) == (c is None)
        if c is not None:
            np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-5, atol=1e-5)
    w3 = rng.standard_normal(3).astype(np.float32)
    sm, si = rng.standard_normal(3).astype(np.float32), rng.uniform(0.5, 2, 3).astype(np.float32)
    t = torch.ops.aten.native_batch_norm_backward(torch_of(g), torch_of(x), torch_of(w3), None,
                                                  None, torch_of(sm), torch_of(si), True, 1e-5,
                                                  mask)
    e = ember.native_batch_norm_backward(ember_of(g), ember_of(x), ember_of(w3), None, None,
                                         ember_of(sm), ember_of(si), True, 1e-5, mask)
    for a, c in zip(e, t):
        assert (a is None) == (c is None)
        if c is not None:
            np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-5, atol=1e-5)


def test_layer_norm_backward_with_mask_is_differentiable():
    """Undefined outputs (output_mask False) do not break the autograd graph."""
    x = ember.randn(2, 3, dtype=ember.float64, requires_grad=True)
    g = ember.randn(2, 3, dtype=ember.float64, requires_grad=True)
    m, r = ember.zeros(2, 1, dtype=ember.float64), ember.ones(2, 1, dtype=ember.float64)
    dx, dw, db = ember.native_layer_norm_backward(g, x, [3], m, r, None, None,
                                                  [True, False, False])
    assert dw is None and db is None
    gx, gg = ember.autograd.grad(dx.sum(), [x, g])
    assert gx.shape == x.shape and gg.shape == g.shape
