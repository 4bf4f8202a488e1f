"""CPU kernels of torch.special and the pointwise math ops, over scipy.special and NumPy:
a table of one line per op. Layouts, dtypes and torch's dtype errors come from
kernels/meta/special.py; float16/bfloat16 compute in float32 like torch's opmath
(nextafter, which steps one unit of the result's own dtype, excepted), and the scipy
functions in float64, rounded once.

    >>> digamma(from_array(np.array([1.0, 2.0]))).numpy()
    array([-0.57721566,  0.42278434])
"""
from __future__ import annotations

import math

import numpy as np
import scipy.special as sp

from ember.core import dtype as D
from ember.core.alloc import empty_cpu
from ember.core.tensor import from_array  # noqa: F401  (doctest)
from ember.kernels.common import _pointwise as P
from ember.kernels.cpu._compiled import compiled
from ember.kernels.cpu._pointwise import _arr, _quiet, _run
from ember.kernels.cpu.unary import _bool, _falses, _of_floats
from ember.kernels.meta import special as M


# --- NumPy functions with torch's values where scipy's differ ---------------------------------
def _lgamma(a):
    """log|gamma| in float64 through glibc's lgamma (kernels/cpu/_special_loop.py)."""
    with _quiet(all="ignore"):     # (the poles raise the divide-by-zero flag)
        return compiled("_special_loop").lgamma(np.asarray(a, np.float64))


def _logit(eps, dt):
    """log(a / (1 - a)), a clamped to [eps, 1 - eps] (eps >= 0) with the bounds rounded to
    the result dtype `dt` like torch's (1 - 1e-5 is 1 in float16: logit is then inf).
    float16/bfloat16 round each step to `dt`, as torch's kernel computes in those types."""
    def rounded(x):
        return x.astype(dt.np).astype(x.dtype) if dt in (D.float16, D.bfloat16) else x

    def f(a):
        if eps is not None and eps >= 0:
            lo = np.dtype(dt.np).type(eps)
            hi = np.dtype(dt.np).type(1 - lo)
            a = np.where(a < lo, lo, np.where(a > hi, hi, a)).astype(a.dtype)  # lo > hi too
        return np.log(rounded(a / rounded(1 - a)))
    return f


def _polygamma(n):
    """digamma, or (n >= 2) scipy's -(-1)^n n! zeta(n + 1, a); NaN at a = +inf as torch's
    zeta series (0 * inf)."""
    if n == 0:
        return sp.psi
    return lambda a: np.where(a == np.inf, np.nan, sp.polygamma(n, a))


def _trigamma(x):
    """torch's calc_trigamma in x's dtype: the reflection pi^2 / sin^2(pi x) below 0.5
    (finite at the poles: sin(pi * -1) is not 0 in float32), six recurrence steps, then
    the asymptotic series, whose double constants make C compute it in float64."""
    pi = x.dtype.type(np.pi)
    neg = x < 0.5
    sin = np.sin(pi * x)
    result = np.where(neg, -(pi * pi) / (sin * sin), 0).astype(x.dtype)
    x = np.where(neg, 1 - x, x).astype(x.dtype)
    for _ in range(6):
        result += 1 / (x * x)
        x = x + 1
    ixx = (1 / (x * x)).astype(np.float64)
    tail = ((1 + 1 / (2 * x)).astype(np.float64)
            + ixx * (1. / 6 - ixx * (1. / 30 - ixx * (1. / 42)))) / x
    result = (result + tail).astype(x.dtype)
    return np.where(neg, -result, result)


def _mvlgamma(p, dt):
    """sum_j lgamma(a - j/2) + p (p - 1) / 4 log(pi), torch's multivariate log-gamma (a
    composite: the arguments a - j/2 are rounded to the result dtype `dt`)."""
    def f(a):
        r = sum(_lgamma(np.asarray(a - j / 2).astype(dt.np).astype(a.dtype))
                for j in range(p - 1, -1, -1))
        return r + p * (p - 1) / 4 * math.log(math.pi)
    return f


def _xlogy(log):
    """x * log(y), 0 where x == 0 (NaN where y is NaN), torch's xlogy / xlog1py."""
    def f(x, y):
        return np.where(np.isnan(y), np.nan, np.where(x == 0, 0, x * log(y)))
    return f


def _nextafter(a, b):
    """np.nextafter, with float16/bfloat16 stepped on their bit patterns (NumPy has no
    bfloat16 loop)."""
    if a.dtype.itemsize >= 4:
        return np.nextafter(a, b)
    a, b = np.broadcast_arrays(a, b)
    bits = a.view(np.uint16).astype(np.int32)
    step = np.where((b > a) == (a > 0), 1, -1)
    tiny = np.where(b < 0, 0x8001, 0x0001)  # the smallest subnormal toward b
    bits = np.where(a == 0, tiny, bits + step).astype(np.uint16).view(a.dtype)
    return np.where(np.isnan(a) | np.isnan(b), a + b, np.where(a == b, b, bits))


def _igamma(complement):
    """scipy's regularized incomplete gamma P(a, x) (Q with `complement`), with torch's
    calc_igamma(c) edge cases first, in its order (P(nan, inf) = 1, P(inf, nan) = 0)."""
    f = sp.gammaincc if complement else sp.gammainc
    p, q = (0.0, 1.0) if complement else (1.0, 0.0)  # P's values, or Q's

    def g(a, x):
        return np.select(
            [(x < 0) | (a < 0), a == 0, x == 0, np.isinf(a), np.isinf(x)],
            [np.nan, np.where(x > 0, p, np.nan), q, np.where(np.isinf(x), np.nan, q), p],
            f(a, x))
    return g


def _gcd(a, b):
    """torch's calc_gcd: Euclid's algorithm on C's abs, which wraps the dtype's minimum
    (gcd(-32768, 5) is -1 in int16; NumPy's gcd gives 1)."""
    dt = np.result_type(a, b)
    a, b = (np.abs(x).astype(np.int64) for x in np.broadcast_arrays(a, b))
    while (nz := a != 0).any():
        a, b = np.where(nz, np.fmod(b, np.where(nz, a, 1)), 0), np.where(nz, a, b)
    return b.astype(dt)


def _lcm(a, b):
    """torch's abs(a / gcd * b), 0 where the gcd is 0: the product wraps in C's int (32
    bits, or 64 for int64) before the abs."""
    dt = np.result_type(a, b)
    g = _gcd(a, b).astype(np.int64)
    p = a.astype(np.int64) // np.where(g == 0, 1, g) * b
    p = np.abs(p.astype(np.int64 if dt.itemsize == 8 else np.int32))
    return np.where(g == 0, 0, p).astype(dt)


def _heaviside(a, values):
    return np.where(a == 0, values, a > 0)


def _polynomial(fn, n_low=0):
    """An orthogonal polynomial P_n(x) of integral order n (n truncated, like torch's
    int64 cast); 0 for n < 0 and, as torch's cast wraps them negative, for n >= 2**63.
    `fn(n, x)` is called with n >= n_low."""
    def f(x, n):
        n = np.trunc(n)
        ok = np.isfinite(n) & (n >= 0) & (n < 2.0 ** 63)
        k = np.where(ok, n, n_low).astype(np.int64)
        return np.where(ok, fn(k, x), 0)
    return f


def _chebyshev_v(n, x):
    """Chebyshev V_n = U_n - U_{n-1}."""
    return np.where(n == 0, 1, sp.eval_chebyu(n, x) - sp.eval_chebyu(np.maximum(n - 1, 0), x))


def _chebyshev_w(n, x):
    """Chebyshev W_n = U_n + U_{n-1}."""
    return np.where(n == 0, 1, sp.eval_chebyu(n, x) + sp.eval_chebyu(np.maximum(n - 1, 0), x))


def _shifted(fn):
    return lambda n, x: fn(n, 2 * x - 1)


# --- kernel makers ---------------------------------------------------------------------------
def _float(op, fn, in_float64=True):
    """A float op (unary or binary): kernels/meta/special.float_layout, then fn computed in
    float64 and rounded once to the result dtype (scipy's float32 loops lose digits), or
    in the result's opmath dtype like torch (`in_float64=False`: NumPy's elementary
    functions, whose rounding torch's values show, e.g. sinc(1) = -2.78e-08 in float32)."""
    cdt = D.float64 if in_float64 else None

    def kernel(*operands):
        return _run(fn, M.float_layout(op, *operands), operands, cdt=cdt)
    kernel.__name__ = op
    return kernel


def _promote(op, fn, own_dtype=False, in_float64=False):
    """A dtype-keeping binary op (M.PROMOTE's checks); `own_dtype`: fn runs in the result
    dtype itself, float16/bfloat16 too; `in_float64`: in float64, rounded once."""
    def kernel(self, other):
        lay = M.promote_layout(op, self, other, allowed=M.PROMOTE[op])
        cdt = lay._dtype if own_dtype else D.float64 if in_float64 else None
        return _run(fn, lay, (self, other), cdt=cdt)
    kernel.__name__ = op
    return kernel


# --- the table -------------------------------------------------------------------------------
acosh = _float("acosh", np.arccosh, in_float64=False)
asinh = _float("asinh", np.arcsinh, in_float64=False)
atanh = _float("atanh", np.arctanh, in_float64=False)
isposinf = _bool(_of_floats(lambda a: a == np.inf, _falses))
isneginf = _bool(_of_floats(lambda a: a == -np.inf, _falses))
digamma = _float("digamma", sp.psi)
lgamma = _float("lgamma", _lgamma)
erfinv = _float("erfinv", sp.erfinv)
erfc = _float("erfc", sp.erfc)
i0 = _float("i0", sp.i0)
sinc = _float("sinc", np.sinc, in_float64=False)
deg2rad = _float("deg2rad", np.deg2rad, in_float64=False)
rad2deg = _float("rad2deg", np.rad2deg, in_float64=False)
special_i0e = _float("special_i0e", sp.i0e)
special_i1 = _float("special_i1", sp.i1)
special_i1e = _float("special_i1e", sp.i1e)
special_ndtr = _float("special_ndtr", sp.ndtr)
special_ndtri = _float("special_ndtri", sp.ndtri)
special_log_ndtr = _float("special_log_ndtr", sp.log_ndtr)
special_erfcx = _float("special_erfcx", sp.erfcx)
special_entr = _float("special_entr", sp.entr)
special_bessel_j0 = _float("special_bessel_j0", sp.j0)
special_bessel_j1 = _float("special_bessel_j1", sp.j1)
special_bessel_y0 = _float("special_bessel_y0", sp.y0)
special_bessel_y1 = _float("special_bessel_y1", sp.y1)
special_modified_bessel_i0 = _float("special_modified_bessel_i0", sp.i0)
special_modified_bessel_i1 = _float("special_modified_bessel_i1", sp.i1)
special_modified_bessel_k0 = _float("special_modified_bessel_k0", sp.k0)
special_modified_bessel_k1 = _float("special_modified_bessel_k1", sp.k1)
special_scaled_modified_bessel_k0 = _float("special_scaled_modified_bessel_k0", sp.k0e)
special_scaled_modified_bessel_k1 = _float("special_scaled_modified_bessel_k1", sp.k1e)
special_spherical_bessel_j0 = _float("special_spherical_bessel_j0",
                                     lambda a: sp.spherical_jn(0, a))
special_airy_ai = _float("special_airy_ai", lambda a: sp.airy(a)[0])

copysign = _float("copysign", np.copysign, in_float64=False)
xlogy = _float("xlogy", _xlogy(np.log))
special_xlog1py = _float("special_xlog1py", _xlogy(np.log1p))
special_zeta = _float("special_zeta", sp.zeta)
special_chebyshev_polynomial_t = _float("special_chebyshev_polynomial_t",
                                        _polynomial(sp.eval_chebyt))
special_chebyshev_polynomial_u = _float("special_chebyshev_polynomial_u",
                                        _polynomial(sp.eval_chebyu))
special_chebyshev_polynomial_v = _float("special_chebyshev_polynomial_v",
                                        _polynomial(_chebyshev_v))
special_chebyshev_polynomial_w = _float("special_chebyshev_polynomial_w",
                                        _polynomial(_chebyshev_w))
special_shifted_chebyshev_polynomial_t = _float("special_shifted_chebyshev_polynomial_t",
                                                _polynomial(sp.eval_sh_chebyt))
special_shifted_chebyshev_polynomial_u = _float("special_shifted_chebyshev_polynomial_u",
                                                _polynomial(sp.eval_sh_chebyu))
special_shifted_chebyshev_polynomial_v = _float("special_shifted_chebyshev_polynomial_v",
                                                _polynomial(_shifted(_chebyshev_v)))
special_shifted_chebyshev_polynomial_w = _float("special_shifted_chebyshev_polynomial_w",
                                                _polynomial(_shifted(_chebyshev_w)))
special_hermite_polynomial_h = _float("special_hermite_polynomial_h",
                                      _polynomial(sp.eval_hermite))
special_hermite_polynomial_he = _float("special_hermite_polynomial_he",
                                       _polynomial(sp.eval_hermitenorm))
special_laguerre_polynomial_l = _float("special_laguerre_polynomial_l",
                                       _polynomial(sp.eval_laguerre))
special_legendre_polynomial_p = _float("special_legendre_polynomial_p",
                                       _polynomial(sp.eval_legendre))

hypot = _promote("hypot", np.hypot)
nextafter = _promote("nextafter", _nextafter, own_dtype=True)
logaddexp = _promote("logaddexp", np.logaddexp)
logaddexp2 = _promote("logaddexp2", np.logaddexp2)
gcd = _promote("gcd", _gcd)
lcm = _promote("lcm", _lcm)
fmax = _promote("fmax", np.fmax)
fmin = _promote("fmin", np.fmin)
igamma = _promote("igamma", _igamma(False), in_float64=True)
igammac = _promote("igammac", _igamma(True), in_float64=True)


def heaviside(self, values):
    return _run(_heaviside, M.heaviside_layout(self, values), (self, values))


def logit(self, eps=None):
    """In the result's opmath dtype, as torch."""
    lay = M.float_layout("logit", self)
    if eps is not None:     # torch converts eps to the result dtype, checked
        P.scalar_arg(eps, lay._dtype)
    return _run(_logit(eps, lay._dtype), lay, (self,))


def polygamma(n, self):
    """n == 1 is torch's own trigamma, in the opmath dtype; others scipy's, in float64."""
    M.check_polygamma(n)
    lay = M.float_layout("polygamma", self)
    if n == 1:
        return _run(_trigamma, lay, (self,))
    return _run(_polygamma(n), lay, (self,), cdt=D.float64)


def mvlgamma(self, p):
    M.check_mvlgamma(self, p)
    lay = M.mvlgamma_layout(self)
    return _run(_mvlgamma(p, lay._dtype), lay, (self,), cdt=D.float64)


def frexp(self):
    """(mantissa, exponent) with mantissa in [0.5, 1) and self = mantissa * 2**exponent."""
    lays = M.frexp_layouts(self)
    cdt = D.float32 if self._dtype in P.HALF else self._dtype
    with _quiet(all="ignore"):
        parts = np.frexp(_arr(self, cdt))
    outs = []
    for lay, part in zip(lays, parts):
        out = empty_cpu(lay._shape, lay._dtype, lay._stride)
        np.copyto(out._np, part, casting="unsafe")
        outs.append(out)
    return tuple(outs)


def polygamma_(self, n):
    M.polygamma_(self, n)
    np.copyto(self._np, polygamma(n, self)._np, casting="unsafe")
    return self


def _inplace_of(meta, functional):
    """An in-place kernel: the Meta kernel's checks, then the functional's result copied in."""
    def kernel(self, *args):
        meta(self, *args)
        np.copyto(self._np, functional(self, *args)._np, casting="unsafe")
        return self
    kernel.__name__ = meta.__name__
    return kernel


gcd_ = _inplace_of(M.gcd_, gcd)
lcm_ = _inplace_of(M.lcm_, lcm)
mvlgamma_ = _inplace_of(M.mvlgamma_, mvlgamma)
