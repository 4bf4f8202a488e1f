"""float16 and bfloat16 division with rounding_mode follows torch's two CPU loops: a
one-element divisor (a number, a 0-d tensor, any tensor of one element) is read as a
float and the quotient computed in float; any other divisor runs the vectorized loop,
where each step is rounded to the dtype (trunc rounds the quotient first: 1 / 0.04175 in
bfloat16 is trunc(24.0) = 24, not trunc(23.95) = 23). floor_divide and the in-place
variants share the kernel."""
from __future__ import annotations

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

DTYPES = [(torch.bfloat16, ember.bfloat16), (torch.float16, ember.float16)]


def pair(dt, edt, n, seed):
    gen = torch.Generator().manual_seed(seed)
    a = (torch.randn(n, generator=gen) * 50).to(dt)
    b = torch.randn(n, generator=gen).to(dt)
    a[::37], b[::41] = 0, 0                     # zeros: signed zeros, inf and NaN results
    return a, b, ember.tensor(a.float().numpy()).to(edt), ember.tensor(b.float().numpy()).to(edt)


def assert_same(t, e):
    t, e = t.float().numpy(), e.float().numpy()
    same = (t == e) & (np.signbit(t) == np.signbit(e)) | np.isnan(t) & np.isnan(e)
    assert same.all(), f"{(~same).sum()} differ: torch {t[~same][:4]} ember {e[~same][:4]}"


@pytest.mark.parametrize("mode", ["trunc", "floor"])
@pytest.mark.parametrize("dt,edt", DTYPES, ids=["bfloat16", "float16"])
def test_tensor_divisors(dt, edt, mode):
    a, b, ea, eb = pair(dt, edt, 3000, 0)
    assert_same(torch.div(a, b, rounding_mode=mode), ember.div(ea, eb, rounding_mode=mode))
    a2, b2 = a[:600].view(20, 30), b[:30].view(1, 30)           # broadcast, not one element
    ea2, eb2 = ea[:600].view(20, 30), eb[:30].view(1, 30)
    assert_same(torch.div(a2, b2, rounding_mode=mode), ember.div(ea2, eb2, rounding_mode=mode))
    assert_same(torch.div(b2, a2, rounding_mode=mode), ember.div(eb2, ea2, rounding_mode=mode))
    assert_same(torch.div(a[5], b[:500], rounding_mode=mode),
                ember.div(ea[5], eb[:500], rounding_mode=mode))
    t, e = a[:700].clone(), ea[:700].clone()
    t.div_(b[:700], rounding_mode=mode)
    e.div_(eb[:700], rounding_mode=mode)
    assert_same(t, e)
    if mode == "floor":
        assert_same(torch.floor_divide(a, b), ember.floor_divide(ea, eb))


@pytest.mark.parametrize("mode", ["trunc", "floor"])
@pytest.mark.parametrize("dt,edt", DTYPES, ids=["bfloat16", "float16"])
def test_one_element_divisors(dt, edt, mode):
    a, b, ea, eb = pair(dt, edt, 800, 1)
    for tb, xb in ((b[3], eb[3]), (b[3:4], eb[3:4]), (-0.0417, -0.0417), (0.3, 0.3)):
        assert_same(torch.div(a, tb, rounding_mode=mode), ember.div(ea, xb, rounding_mode=mode))
    for i in range(0, 200, 7):                  # one element each side
        assert_same(torch.div(a[i:i + 1], b[i:i + 1], rounding_mode=mode),
                    ember.div(ea[i:i + 1], eb[i:i + 1], rounding_mode=mode))


def test_the_rounded_quotient_example():
    a = ember.ones(4, dtype=ember.bfloat16)
    b = ember.full((4,), -0.0417, dtype=ember.bfloat16)
    assert ember.div(a, b, rounding_mode="trunc").tolist() == [-24.0] * 4
    assert ember.div(a[:1], b[:1], rounding_mode="trunc").tolist() == [-23.0]
