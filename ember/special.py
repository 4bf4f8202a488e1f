"""torch.special: the special functions under torch's names. Each is the aten op
`special_<name>` (kernels/cpu/special.py) or the top-level op torch aliases (expit is
sigmoid, psi is digamma, gammaln is lgamma, multigammaln is mvlgamma, ...). The binary
ones take a Python number for either operand, as torch's Scalar overloads do.

    >>> ember.special.xlogy(2, ember.tensor([1.0, 4.0]))
    tensor([0.0000, 2.7726])
"""
from __future__ import annotations

import ember
from ember.core.tensor import Tensor  # noqa: F401  (torch.special exposes Tensor too)

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma",
    "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc",
    "gammaincc", "gammaln",
    "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e",
    "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax",
    "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py",
    "xlogy", "zeta"]


def _unary(fn, name):
    def f(input, *, out=None):
        return fn(input, out=out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"{name}(input, *, out=None) -> Tensor: ember.{fn.__name__}."
    return f


def _binary(fn, name, second="other"):
    """A binary special function; the op's Scalar overloads take a Python number for either
    operand."""
    def f(input, other, *, out=None):
        return fn(input, other, out=out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"{name}(input, {second}, *, out=None) -> Tensor: ember.{fn.__name__}."
    return f


airy_ai = _unary(ember.special_airy_ai, "airy_ai")
bessel_j0 = _unary(ember.special_bessel_j0, "bessel_j0")
bessel_j1 = _unary(ember.special_bessel_j1, "bessel_j1")
bessel_y0 = _unary(ember.special_bessel_y0, "bessel_y0")
bessel_y1 = _unary(ember.special_bessel_y1, "bessel_y1")
modified_bessel_i0 = _unary(ember.special_modified_bessel_i0, "modified_bessel_i0")
modified_bessel_i1 = _unary(ember.special_modified_bessel_i1, "modified_bessel_i1")
modified_bessel_k0 = _unary(ember.special_modified_bessel_k0, "modified_bessel_k0")
modified_bessel_k1 = _unary(ember.special_modified_bessel_k1, "modified_bessel_k1")
scaled_modified_bessel_k0 = _unary(ember.special_scaled_modified_bessel_k0,
                                   "scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _unary(ember.special_scaled_modified_bessel_k1,
                                   "scaled_modified_bessel_k1")
spherical_bessel_j0 = _unary(ember.special_spherical_bessel_j0, "spherical_bessel_j0")
digamma = _unary(ember.digamma, "digamma")
psi = _unary(ember.digamma, "psi")
gammaln = _unary(ember.lgamma, "gammaln")
entr = _unary(ember.special_entr, "entr")
erf = _unary(ember.erf, "erf")
erfc = _unary(ember.erfc, "erfc")
erfcx = _unary(ember.special_erfcx, "erfcx")
erfinv = _unary(ember.erfinv, "erfinv")
exp2 = _unary(ember.exp2, "exp2")
expit = _unary(ember.sigmoid, "expit")
expm1 = _unary(ember.expm1, "expm1")
log1p = _unary(ember.log1p, "log1p")
i0 = _unary(ember.i0, "i0")
i0e = _unary(ember.special_i0e, "i0e")
i1 = _unary(ember.special_i1, "i1")
i1e = _unary(ember.special_i1e, "i1e")
ndtr = _unary(ember.special_ndtr, "ndtr")
ndtri = _unary(ember.special_ndtri, "ndtri")
log_ndtr = _unary(ember.special_log_ndtr, "log_ndtr")
round = _unary(ember.round, "round")
sinc = _unary(ember.sinc, "sinc")

xlogy = _binary(ember.special_xlogy, "xlogy")
xlog1py = _binary(ember.special_xlog1py, "xlog1py")
zeta = _binary(ember.special_zeta, "zeta")
chebyshev_polynomial_t = _binary(ember.special_chebyshev_polynomial_t, "chebyshev_polynomial_t", "n")
chebyshev_polynomial_u = _binary(ember.special_chebyshev_polynomial_u, "chebyshev_polynomial_u", "n")
chebyshev_polynomial_v = _binary(ember.special_chebyshev_polynomial_v, "chebyshev_polynomial_v", "n")
chebyshev_polynomial_w = _binary(ember.special_chebyshev_polynomial_w, "chebyshev_polynomial_w", "n")
shifted_chebyshev_polynomial_t = _binary(ember.special_shifted_chebyshev_polynomial_t,
                                         "shifted_chebyshev_polynomial_t", "n")
shifted_chebyshev_polynomial_u = _binary(ember.special_shifted_chebyshev_polynomial_u,
                                         "shifted_chebyshev_polynomial_u", "n")
shifted_chebyshev_polynomial_v = _binary(ember.special_shifted_chebyshev_polynomial_v,
                                         "shifted_chebyshev_polynomial_v", "n")
shifted_chebyshev_polynomial_w = _binary(ember.special_shifted_chebyshev_polynomial_w,
                                         "shifted_chebyshev_polynomial_w", "n")
hermite_polynomial_h = _binary(ember.special_hermite_polynomial_h, "hermite_polynomial_h", "n")
hermite_polynomial_he = _binary(ember.special_hermite_polynomial_he, "hermite_polynomial_he",
                                "n")
laguerre_polynomial_l = _binary(ember.special_laguerre_polynomial_l, "laguerre_polynomial_l",
                                "n")
legendre_polynomial_p = _binary(ember.special_legendre_polynomial_p, "legendre_polynomial_p",
                                "n")


def logit(input, eps=None, *, out=None):
    return ember.logit(input, eps, out=out)


def polygamma(n, input, *, out=None):
    return ember.polygamma(n, input, out=out)


def multigammaln(input, p, *, out=None):
    return ember.mvlgamma(input, p, out=out)


def log_softmax(input, dim, *, dtype=None):
    return ember.log_softmax(input, dim, dtype=dtype)


def softmax(input, dim, *, dtype=None):
    return ember.softmax(input, dim, dtype=dtype)


def logsumexp(input, dim, keepdim=False, *, out=None):
    return ember.logsumexp(input, dim, keepdim, out=out)


def gammainc(input, other, *, out=None):
    """The regularized lower incomplete gamma function (ember.igamma; no numbers, as torch)."""
    return ember.igamma(input, other, out=out)


def gammaincc(input, other, *, out=None):
    """The regularized upper incomplete gamma function (ember.igammac)."""
    return ember.igammac(input, other, out=out)
