"""Complex pow follows torch bit for bit, special values included: C's cpow
(exp(y * log(x)) with Annex G's product) for tensor exponents, a number base and most
number exponents, and torch's shortcuts for 0.5, 2, 3, -0.5, -1, -2 (0 ** 0j is NaN in
torch, 1 in NumPy). The shortcuts by products and reciprocals match torch's special values
and may differ from it in the last bit: torch's scalar loop (the tail of a vectorized one)
and its division are compiled with fused multiply-adds, so its own bits depend on the
element's position."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import ember
from ember.kernels.cpu import _complex_pow as C

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")
PARTS = [0.0, -0.0, 1.0, -1.0, 2.5, -0.5, INF, -INF, NAN, 1e-30, 3.0, 1e300, -7.25]
SPECIAL = np.array([complex(a, b) for a in PARTS for b in PARTS])
_PARTS = np.random.default_rng(0).standard_normal((2, 200))
RANDOM = 3 * _PARTS[0] + 3j * _PARTS[1]
DTYPES = [(np.complex64, ember.complex64), (np.complex128, ember.complex128)]


def same_bits(t, e):
    """Equal parts, or NaN in both (any NaN payload), zeros compared with their signs."""
    t, e = np.asarray(t), np.asarray(e)
    for u, v in ((t.real, e.real), (t.imag, e.imag)):
        both_nan = np.isnan(u) & np.isnan(v)
        eq = (u == v) & (np.signbit(u) == np.signbit(v))
        bad = ~(both_nan | eq)
        assert not bad.any(), f"{bad.sum()} differ, first at {np.argmax(bad)}: {u[bad][:3]} vs {v[bad][:3]}"


def cast(x, dt):
    with np.errstate(over="ignore"):
        return x.astype(dt)


@pytest.mark.parametrize("np_dt,dt", DTYPES)
def test_tensor_tensor_special_values(np_dt, dt):
    base, exp = (cast(np.array(v), np_dt) for v in zip(*itertools.product(SPECIAL, SPECIAL)))
    want = torch.pow(torch.from_numpy(base), torch.from_numpy(exp)).numpy()
    same_bits(want, ember.pow(ember.from_numpy(base), ember.from_numpy(exp)).numpy())
    assert np.isnan(ember.pow(ember.zeros(1, dtype=dt), ember.zeros(1, dtype=dt)).numpy()).all()


@pytest.mark.parametrize("np_dt,dt", DTYPES)
def test_tensor_tensor_random_and_broadcast(np_dt, dt):
    x, y = cast(RANDOM, np_dt), cast(RANDOM[::-1].copy(), np_dt)
    same_bits(torch.pow(torch.from_numpy(x), torch.from_numpy(y)).numpy(),
              ember.pow(ember.from_numpy(x), ember.from_numpy(y)).numpy())
    xs, ys = x[:12].reshape(3, 4), y[:4]
    same_bits(torch.pow(torch.from_numpy(xs), torch.from_numpy(ys)).numpy(),
              ember.pow(ember.from_numpy(xs), ember.from_numpy(ys)).numpy())


EXACT_EXPONENTS = [0, 1, 0.5, 2.5, 10, -3, 1j, 2 + 1j, 0j, INF, -0.0]
LAST_BIT_EXPONENTS = [2, 3, 2 + 0j, -0.5, -1, -2]      # products and reciprocals


@pytest.mark.parametrize("np_dt,dt", DTYPES)
@pytest.mark.parametrize("exponent", EXACT_EXPONENTS + LAST_BIT_EXPONENTS, ids=repr)
def test_tensor_scalar(np_dt, dt, exponent):
    x = cast(np.concatenate([SPECIAL, RANDOM]), np_dt)
    want = torch.pow(torch.from_numpy(x), exponent).numpy()
    got = ember.pow(ember.from_numpy(x), exponent).numpy()
    assert got.dtype == want.dtype
    if exponent in LAST_BIT_EXPONENTS:
        finite = np.isfinite(want)
        np.testing.assert_allclose(got[finite], want[finite], rtol=1e-5)
        same_bits(want[~finite], got[~finite])
    else:
        same_bits(want, got)


@pytest.mark.parametrize("np_dt,dt", DTYPES)
@pytest.mark.parametrize("base", [2, 0.5, 1j, 2 + 1j, 0j, INF, 1, 1 + 0j, -1])
def test_scalar_tensor(np_dt, dt, base):
    x = cast(np.concatenate([SPECIAL, RANDOM]), np_dt)
    want = torch.pow(base, torch.from_numpy(x)).numpy()
    got = ember.pow(base, ember.from_numpy(x)).numpy()
    assert got.dtype == want.dtype
    same_bits(want, got)


def test_real_tensor_complex_exponent():
    x = np.array([0.0, -0.0, 2.0, -3.0, INF, NAN], np.float32)
    for e in (0j, 1j, 2 + 0j, 0.5 + 1j, -1 + 0j):
        want = torch.pow(torch.from_numpy(x), e).numpy()
        got = ember.pow(ember.from_numpy(x), e).numpy()
        assert got.dtype == want.dtype
        same_bits(want, got)


def test_annex_g_product_recovers_infinities():
    """C's complex product: (inf + 0i)(inf + 0i) is inf + NaN i by the textbook formula
    (inf*0 terms) and stays so; (inf + inf i)(0 + 1i) loses both parts and is recovered."""
    x = np.array([complex(INF, INF)]), np.array([1j])
    z = C.annex_g_product(*x)
    assert np.isinf(z.real).all() and np.isinf(z.imag).all()
    t = C.textbook_product(*x)
    assert np.isnan(t.real).all() and np.isnan(t.imag).all()
    assert C.annex_g_product(np.array([2 + 3j]), np.array([4 - 1j]))[0] == (2 + 3j) * (4 - 1j)
