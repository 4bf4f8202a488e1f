"""The nn family (issue 4) beyond the OpInfo suite: gradients of its
CompositeImplicitAutograd ops (no Autograd kernel of their own, so test_op_gradients does
not see them) against torch, with gradcheck and gradgradcheck; batch norm's in-place
running statistics.

    .venv/bin/python -m pytest tests/ops/test_nn.py -q
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autograd"))
import test_op_gradients as G

COMPOSITES = ["outer.default", "einsum.default", "softmax.int", "log_softmax.int",
              "nll_loss.default", "nll_loss_nd.default", "cross_entropy_loss.default",
              "mse_loss.default", "l1_loss.default", "binary_cross_entropy_with_logits.default"]
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
