"""Complex pow as torch computes it on the CPU, over NumPy arrays.

torch's complex pow is `std::pow(base, exponent)`, which is C's `cpow`:
`cexp(exponent * clog(base))`, the product with C99's Annex G rules (infinities recovered
where the textbook formula gives NaN + NaN i). NumPy's `power` special-cases zero and small
integer exponents instead, so `0 ** 0j` is 1 there and NaN in torch, `inf ** 0j` 1 and NaN.
NumPy's complex `log` and `exp` are C's `clog` and `cexp`, so only the product needs
writing out. The Tensor_Scalar kernel's shortcuts (torch's pow_tensor_scalar_optimized_kernel)
are here too: x * x and x * x * x by the textbook product, sqrt, and reciprocals.

    >>> cpow(np.array([0j, 2 + 0j]), np.array([0j, 2 + 0j])).tolist()
    [(nan+nanj), (4+0j)]
"""
from __future__ import annotations

import numpy as np


def _with_parts(re, im, dtype):
    z = np.empty(np.broadcast(re, im).shape, dtype)
    z.real, z.imag = re, im
    return z


def textbook_product(x, y):
    """(a + bi)(c + di) = (ac - bd) + (ad + bc)i, each product rounded on its own (torch's
    complex multiply: no fused multiply-add, no Annex G recovery)."""
    a, b, c, d = x.real, x.imag, y.real, y.imag
    with np.errstate(all="ignore"):
        return _with_parts(a * c - b * d, a * d + b * c, np.result_type(x, y))


def annex_g_product(x, y):
    """x * y as C computes a complex product (C11 Annex G.5.1, libgcc's __muldc3): the
    textbook formula, and where both parts come out NaN, the infinities recovered."""
    a, b, c, d = np.broadcast_arrays(x.real, x.imag, y.real, y.imag)
    with np.errstate(all="ignore"):
        ac, bd, ad, bc = a * c, b * d, a * d, b * c
        re, im = ac - bd, ad + bc
        lost = np.isnan(re) & np.isnan(im)
        if not lost.any():
            return _with_parts(re, im, np.result_type(x, y))
        a, b, c, d = a.copy(), b.copy(), c.copy(), d.copy()

        def box(inf_mask, p, q, r, s):
            # an infinite operand (p, q) becomes its unit direction; NaN parts of the
            # other (r, s) become zeros of their sign
            for v in (p, q):
                v[inf_mask] = np.copysign(np.isinf(v[inf_mask]), v[inf_mask])
            for v in (r, s):
                nan = inf_mask & np.isnan(v)
                v[nan] = np.copysign(0, v[nan])

        x_inf = lost & (np.isinf(a) | np.isinf(b))
        box(x_inf, a, b, c, d)
        y_inf = lost & (np.isinf(c) | np.isinf(d))
        box(y_inf, c, d, a, b)
        recalc = x_inf | y_inf
        overflow = lost & ~recalc & (np.isinf(ac) | np.isinf(bd) | np.isinf(ad) | np.isinf(bc))
        for v in (a, b, c, d):      # infinities from overflow: NaN parts become zeros
            nan = overflow & np.isnan(v)
            v[nan] = np.copysign(0, v[nan])
        recalc |= overflow
        re = np.where(recalc, np.inf * (a * c - b * d), re)
        im = np.where(recalc, np.inf * (a * d + b * c), im)
        return _with_parts(re, im, np.result_type(x, y))


def cpow(base, exponent):
    """C's cpow over arrays of one complex dtype (broadcast): exp(exponent * log(base))."""
    with np.errstate(all="ignore"):
        return np.exp(annex_g_product(np.asarray(exponent), np.log(base)))


def _reciprocal(x):
    with np.errstate(all="ignore"):
        return np.ones((), x.dtype) / x


def _square(x):
    return textbook_product(x, x)


# torch's shortcuts for these exponents of a complex tensor, checked on the exponent as given
# (sqrt, rsqrt, reciprocal) and after its conversion to the tensor's dtype (the products)
_AS_GIVEN = {0.5: np.sqrt, -0.5: lambda x: _reciprocal(np.sqrt(x)), -1: _reciprocal}
_CONVERTED = {2: _square, 3: lambda x: textbook_product(_square(x), x),
              -2: lambda x: _reciprocal(_square(x))}


def pow_tensor_scalar(base, exponent):
    """A complex array to a number's power, as torch's Tensor_Scalar kernel (exponents 0 and
    1 are the caller's: a fill and a copy); any exponent without a shortcut calls cpow."""
    e = np.asarray(exponent, base.dtype)
    shortcut = None
    if complex(exponent).imag == 0:
        shortcut = _AS_GIVEN.get(complex(exponent).real)
    if shortcut is None and e.imag == 0:
        shortcut = _CONVERTED.get(float(e.real))
    if shortcut is None:
        return cpow(base, e)
    with np.errstate(all="ignore"):
        return shortcut(base)
