"""Behaviour of the unary family (issue 4) beyond the OpInfo samples: erf's accuracy,
the Python surface (dunders, method-only in-place variants, round(decimals)), and
gradients through the public API.

    .venv/bin/python -m pytest tests/ops/test_unary.py -q
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def test_erf_float64_accuracy():
    """NumPy has no erf: ours (series + continued fraction) is within a few ulps of
    math.erf, also around the switch at |x| = 2.5 and in the tails."""
    xs = np.concatenate([np.linspace(-7, 7, 20001), [2.5, -2.5, np.nextafter(2.5, 0), 1e-300,
                                                     -0.0, 30.0, -1e10]])
    got = ember.erf(ember.tensor(xs, dtype=ember.float64)).numpy()
    want = np.array([math.erf(v) for v in xs])
    np.testing.assert_allclose(got, want, rtol=4e-15, atol=0)
    assert math.copysign(1.0, got[-3]) == -1.0  # erf(-0.0) = -0.0


def test_erf_special_values():
    got = ember.erf(ember.tensor([np.inf, -np.inf, np.nan])).numpy()
    np.testing.assert_array_equal(got, [1.0, -1.0, np.nan])


def test_dunders_abs_and_invert():
    t = ember.tensor([-3, 0, 5])
    assert abs(t).tolist() == [3, 0, 5]
    assert (~t).tolist() == [2, -1, -6]
    assert (~ember.tensor([True, False])).tolist() == [False, True]


def test_inplace_variants_like_torch():
    """sign_, logical_not_ and bitwise_not_ are methods only; isnan & co. have none."""
    for name in ("sign_", "logical_not_", "bitwise_not_"):
        assert hasattr(torch.Tensor, name) and hasattr(ember.Tensor, name)
        assert not hasattr(torch, name) and not hasattr(ember, name)
    for name in ("abs_", "sqrt_", "nan_to_num_", "round_"):
        assert hasattr(ember, name) and hasattr(ember.Tensor, name)
    for name in ("isnan_", "isinf_", "isfinite_", "signbit_"):
        assert not hasattr(ember.Tensor, name)


def test_round_decimals_and_out():
    x = [1.2345, -2.5, 1250.0]
    e, t = ember.tensor(x), torch.tensor(x)
    for d in (0, 2, -2):
        assert ember.round(e, decimals=d).tolist() == torch.round(t, decimals=d).tolist()
    out = ember.empty(3)
    assert ember.round(e, decimals=1, out=out) is out
    assert out.tolist() == torch.round(t, decimals=1).tolist()


def test_logical_not_inplace_keeps_dtype():
    e = ember.tensor([0.0, 2.0, np.nan])
    t = torch.tensor([0.0, 2.0, float("nan")])
    e.logical_not_()
    t.logical_not_()
    assert e.dtype == ember.float32 and e.tolist() == t.tolist()


@pytest.mark.parametrize("name", ["sin", "tan", "asin", "erf", "rsqrt", "reciprocal", "log1p",
                                  "expm1", "exp2", "abs"])
def test_double_backward_matches_torch(name):
    x = [0.3, 0.7, 0.55]
    e = ember.tensor(x, dtype=ember.float64, requires_grad=True)
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    (ge,) = ember.autograd.grad(getattr(ember, name)(e).sum(), e, create_graph=True)
    (gt,) = torch.autograd.grad(getattr(torch, name)(t).sum(), t, create_graph=True)
    (gge,) = ember.autograd.grad(ge.sum(), e)
    (ggt,) = torch.autograd.grad(gt.sum(), t)
    np.testing.assert_allclose(ge.detach().numpy(), gt.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(gge.numpy(), ggt.numpy(force=True), rtol=1e-12)  # abs: zeros


def test_predicates_do_not_require_grad():
    x = ember.tensor([1.0, np.inf, np.nan], requires_grad=True)
    for name in ("isnan", "isinf", "isfinite", "signbit", "logical_not"):
        r = getattr(ember, name)(x)
        assert r.dtype == ember.bool and not r.requires_grad


def test_nan_to_num_gradient_masks_non_finite():
    x = ember.tensor([1.0, np.inf, np.nan, -np.inf, -2.0], requires_grad=True)
    ember.nan_to_num(x).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0, 0.0, 1.0]
