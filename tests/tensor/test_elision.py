"""Temporary elision (ember/core/elision.py): `a * b + c` on large tensors may write the
sum into the product's array; results and every named operand must stay as without it."""
import numpy as np
import pytest

import ember
from ember.core import elision

N = elision.MIN_BYTES // 4 + 7          # float32 elements: just above the threshold


@pytest.fixture
def arrays():
    rng = np.random.default_rng(0)
    return [rng.standard_normal(N).astype(np.float32) for _ in range(3)]


def _tensors(arrays):
    return [ember.from_numpy(a.copy()) for a in arrays]


def test_expression_values(arrays):
    an, bn, cn = arrays
    a, b, c = _tensors(arrays)
    np.testing.assert_array_equal((a * b + c).numpy(), an * bn + cn)
    np.testing.assert_array_equal((c + a * b).numpy(), cn + an * bn)
    np.testing.assert_array_equal(((a * b - c) / 2.0 * 3).numpy(), (an * bn - cn) / 2.0 * 3)
    for t, n in zip((a, b, c), arrays):
        np.testing.assert_array_equal(t.numpy(), n)


def test_named_and_viewed_operands_are_never_written(arrays):
    an, bn, _ = arrays
    a, b, c = _tensors(arrays)
    p = a * b
    q = p + c
    view = (a * b)[:5]
    r = view._base + c            # the base has a live view
    y = p.__add__(c)              # an explicit call on a named tensor
    np.testing.assert_array_equal(p.numpy(), an * bn)
    np.testing.assert_array_equal(view.numpy(), (an * bn)[:5])
    assert y is not p and q is not p and r is not view._base


def test_elision_happens_only_for_temporaries(arrays, monkeypatch):
    a, b, c = _tensors(arrays)
    written = []
    import ember._generated.tensor_methods as methods
    inplace = methods._entry_add__Tensor
    monkeypatch.setattr(methods, "_entry_add__Tensor",
                        lambda t, o, alpha: written.append(t) or inplace(t, o, alpha))
    r = a * b + c
    assert written == [r]           # the sum went into the product's tensor
    written.clear()
    p = a * b
    p + c
    assert written == []


def test_no_elision_when_the_result_differs_or_grad_is_needed(arrays):
    a, b, _ = _tensors(arrays)
    w = ember.from_numpy(arrays[2].copy()).requires_grad_()
    z = a * b + w
    assert z.requires_grad and z.grad_fn.name() == "AddBackward0"
    d = (a * b) + ember.ones(N, dtype=ember.float64)     # promotes: a fresh float64 result
    assert d.dtype == ember.float64
    small = ember.ones(4) * 2 + 1
    assert small.tolist() == [3.0] * 4
