"""Special functions NumPy lacks, vectorised in float64 (shared by the unary and
activation kernels).

    >>> float(erf(np.array(0.5)))
    0.5204998778130465
"""
from __future__ import annotations

import functools
import math

import numpy as np
from numpy.polynomial import chebyshev

_SQRT_PI = math.sqrt(math.pi)


def _erfcx_cf(x, depth=2000):
    """exp(x^2) erfc(x) for x >= 1 by erfc's continued fraction (slow: build time only)."""
    f = np.zeros_like(x)
    for k in range(depth, 0, -1):
        f = (k / 2) / (x + f)
    return 1 / (_SQRT_PI * (x + f))


def _chebyshev_as_poly(fn, lo, hi, deg):
    """Power-series coefficients (in s = (x - lo) * 2 / (hi - lo) - 1) of fn's Chebyshev
    interpolant on [lo, hi]."""
    c = chebyshev.chebinterpolate(lambda s: fn((s + 1) * ((hi - lo) / 2) + lo), deg)
    return chebyshev.cheb2poly(c)


# erf(x) = x * sum_n (-x^2)^n * 2 / (sqrt(pi) n! (2n+1)) for |x| < 1 (17 terms: < 1e-16);
# erf(x) = 1 - exp(-x^2) * erfcx(x) on [1, 3) and [3, 6) with polynomial erfcx; 1 beyond
_ERF_TAYLOR = [2 / _SQRT_PI * (-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(17)]


@functools.cache
def _erfcx_pieces():
    return [(1.0, 3.0, _chebyshev_as_poly(_erfcx_cf, 1.0, 3.0, 24)),
            (3.0, 6.0, _chebyshev_as_poly(_erfcx_cf, 3.0, 6.0, 22))]


def _horner(coefs, s):
    r = np.full_like(s, coefs[-1])
    for c in coefs[-2::-1]:
        r *= s
        r += c
    return r


def erf(a):
    """erf, which NumPy lacks, computed in float64: a few ulps from the exact value."""
    x = np.asarray(a, np.float64)
    ax = np.abs(x)
    r = np.ones_like(x)
    m = ax < 1
    xs = ax[m]
    r[m] = xs * _horner(_ERF_TAYLOR, xs * xs)
    for lo, hi, coefs in _erfcx_pieces():
        m = (ax >= lo) & (ax < hi)
        xs = ax[m]
        r[m] = 1 - np.exp(-xs * xs) * _horner(coefs, (xs - lo) * (2 / (hi - lo)) - 1)
    r[np.isnan(x)] = np.nan
    return np.copysign(r, x).astype(a.dtype, copy=False)
