"""CPU kernels of the unary family, over NumPy: a table of one line per op.

Float ops (`_float`) give the default float dtype for integral and bool inputs and
compute float16/bfloat16 in float32, like torch; `_same` ops keep the dtype (integral
inputs of floor/ceil/round/trunc are copied); `_bool` ops give a bool result. dtype
restrictions and layouts come from kernels/meta/unary.py.

    >>> sqrt(from_array(np.array([4, 9]))).numpy()
    array([2., 3.], dtype=float32)
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import scipy.special as sp

from ember.core import dtype as D
from ember.core.alloc import empty_cpu
from ember.core.factory_args import like_strides
from ember.core.tensor import from_array
from ember.kernels.common import _pointwise as P
from ember.kernels.cpu import _special as special
from ember.kernels.cpu._pointwise import _HALF, _quiet, quiet_call
from ember.kernels.cpu.complex import real_valued
from ember.kernels.meta import unary as MU


# --- the unary machinery: one NumPy call for contiguous inputs, else Meta's layout -------
def _unary(fn, meta, half_in_float=True, quiet=False, float_result=False):
    """A unary kernel: contiguous inputs take one NumPy call; others get Meta's layout."""
    def kernel(self):
        a = self._np
        dt = self._dtype
        if a is None or dt is D.bool_ or not (a.flags.c_contiguous or P.row_major_view(self)):
            return _unary_general(fn, meta(self), self, half_in_float, quiet)
        if dt.category < D.FLOAT and float_result:
            dt = D.get_default_dtype()
            a = a.astype(dt.np)
        elif half_in_float and (dt is D.float16 or dt is D.bfloat16):
            a = a.astype(np.float32)
        r = quiet_call(fn, a) if quiet else fn(a)
        if not r.flags.c_contiguous:  # (a row-major slice's result in another order)
            return _unary_general(fn, meta(self), self, half_in_float, quiet)
        return from_array(r if r.dtype == dt.np else r.astype(dt.np), dt)
    kernel.__name__ = getattr(fn, "__name__", "unary")
    return kernel


def _unary_general(fn, out_meta, self, half_in_float, quiet):
    dt = out_meta._dtype
    a = self._np
    if half_in_float and dt in _HALF:
        a = a.astype(np.float32)
    elif a.dtype != dt.np:
        a = a.astype(dt.np)
    out = empty_cpu(out_meta._shape, dt, out_meta._stride)
    if quiet:
        quiet_call(_copy_result, fn, a, out._np)
    else:
        _copy_result(fn, a, out._np)
    return out


def _copy_result(fn, a, o):
    np.copyto(o, fn(a), casting="unsafe")


def _unary_inplace(functional, meta):
    def kernel(self):
        meta(self)
        r = functional(self)
        np.copyto(self._np, r._np, casting="unsafe")
        return self
    return kernel


def _sigmoid(a):
    """1 / (1 + exp(-a)); real inputs take scipy's expit, one ufunc call that never
    overflows (exp(a) / (1 + exp(a)) below zero)."""
    if a.dtype.kind == "c":
        return 1 / (1 + np.exp(-a))
    return sp.expit(a)


neg = _unary(np.negative, MU.neg_layout, half_in_float=False)
exp = _unary(np.exp, MU.float_layout, quiet=True, float_result=True)
log = _unary(np.log, MU.float_layout, quiet=True, float_result=True)
sigmoid = _unary(_sigmoid, MU.float_layout, quiet=True, float_result=True)
tanh = _unary(np.tanh, MU.float_layout, float_result=True)


# --- NumPy functions torch computes differently or NumPy lacks --------------------------
def _integral_copy(fn):
    """floor/ceil/round/trunc: integral inputs are copied (torch's clone)."""
    def f(a):
        return a.copy() if a.dtype.kind in "iub" else fn(a)
    f.__name__ = fn.__name__
    return f


def _sign(a):
    """torch's (0 < a) - (a < 0): 0 for NaN and -0.0; bool stays bool."""
    if a.dtype == np.bool_:
        return a.copy()
    return np.greater(a, 0).astype(a.dtype) - np.less(a, 0).astype(a.dtype)


def _rsqrt(a):
    return _reciprocal(np.sqrt(a))


def _reciprocal(a):
    """1 / a; a complex 0 gives inf+nanj like torch (NumPy's reciprocal gives nan+nanj)."""
    return np.divide(1, a) if a.dtype.kind == "c" else np.reciprocal(a)


def _frac(a):
    return a - np.trunc(a)


def _bitwise_not(a):
    return np.logical_not(a) if a.dtype == np.bool_ else np.invert(a)


# --- kernel makers ----------------------------------------------------------------------------
def _float(fn):
    return _unary(fn, MU.float_layout, quiet=True, float_result=True)


def _same(fn, op):
    """A dtype-keeping op with torch's dtype check (`MU.CHECKS[op]`)."""
    k = _unary(fn, lambda self: MU.checked_layout(op, self), quiet=True)

    def kernel(self):
        MU.check(op, self)
        return k(self)
    kernel.__name__ = op
    return kernel


def _bool(fn):
    """A bool-valued predicate: `fn` on the array (float16/bfloat16 read as float32)."""
    def kernel(self):
        a = self._np
        if self._dtype in _HALF:
            a = a.astype(np.float32)
        r = fn(a)
        if self._np.flags.c_contiguous:
            return from_array(r, D.bool_)
        lay = MU.bool_layout(self)
        out = empty_cpu(lay._shape, D.bool_, lay._stride)
        np.copyto(out._np, r)
        return out
    kernel.__name__ = getattr(fn, "__name__", "predicate")
    return kernel


def _of_floats(fn, other):
    """`fn` on floating and complex arrays, `other(a)` (a bool array) on integral/bool ones."""
    return lambda a: fn(a) if a.dtype.kind in "fc" else other(a)   # (complex: either part)


def _falses(a):
    return np.zeros(a.shape, np.bool_)


def _trues(a):
    return np.ones(a.shape, np.bool_)


# --- the table ---------------------------------------------------------------------------------
exp2 = _float(np.exp2)
expm1 = _float(np.expm1)
log2 = _float(np.log2)
log10 = _float(np.log10)
log1p = _float(np.log1p)
sqrt = _float(np.sqrt)
rsqrt = _float(_rsqrt)
reciprocal = _float(_reciprocal)
sin = _float(np.sin)
cos = _float(np.cos)
tan = _float(np.tan)
asin = _float(np.arcsin)
acos = _float(np.arccos)
atan = _float(np.arctan)
sinh = _float(np.sinh)
cosh = _float(np.cosh)
erf = _float(special.erf)

_abs_real = _same(np.abs, "abs")


def abs(self):
    """|x|; a complex input gives its real dtype."""
    if self._dtype.is_complex:
        return real_valued(np.abs, self)
    return _abs_real(self)


floor = _same(_integral_copy(np.floor), "floor")
ceil = _same(_integral_copy(np.ceil), "ceil")
round = _same(_integral_copy(np.rint), "round")
trunc = _same(_integral_copy(np.trunc), "trunc")
frac = _same(_frac, "frac")
bitwise_not = _same(_bitwise_not, "bitwise_not")
sign = _unary(_sign, MU.same_layout, half_in_float=True)

logical_not = _bool(np.logical_not)
isnan = _bool(_of_floats(np.isnan, _falses))
isinf = _bool(_of_floats(np.isinf, _falses))
isfinite = _bool(_of_floats(np.isfinite, _trues))
signbit = _bool(_of_floats(np.signbit, lambda a: np.less(a, 0)))


# --- round(decimals) and nan_to_num ------------------------------------------------------------
def _round_to(decimals):
    """torch: rint(x * 10^d) / 10^d, or rint(x / 10^-d) * 10^-d for d < 0, in the
    input's float dtype (float32 for float16/bfloat16)."""
    def f(a):
        p = np.asarray(np.power(10.0, float(-decimals if decimals < 0 else decimals)), a.dtype)
        return np.rint(a / p) * p if decimals < 0 else np.rint(a * p) / p
    return f


def round_decimals(self, decimals):
    MU.check("round_decimals", self)
    return _unary(_round_to(decimals), MU.layout, quiet=True)(self)


def _replace_nonfinite(o, dt, nan, posinf, neginf):
    """Writes torch's replacements (cast to `dt`) over NaN, +inf and -inf in `o`."""
    info = ml_dtypes.finfo(dt.np)
    with _quiet(all="ignore"):
        values = np.array([0.0 if nan is None else nan,
                           info.max if posinf is None else posinf,
                           -info.max if neginf is None else neginf], np.float64).astype(dt.np)
    f = o.astype(np.float32) if dt in (D.float16, D.bfloat16) else o
    # (every mask before the first write: f may be o itself, and a +inf replaced by a
    # negative posinf must not then count as a -inf)
    inf = np.isinf(f)
    masks = (np.isnan(f), inf & (f > 0), inf & (f < 0))
    for value, mask in zip(values, masks):
        np.copyto(o, value, where=mask)


def nan_to_num(self, nan=None, posinf=None, neginf=None):
    """Into `empty_like(self)`, as torch's CPU kernel (a dense self keeps its strides, even
    odd ones of size-1 dims)."""
    out = empty_cpu(self._shape, self._dtype, like_strides(self._shape, self.stride(), None))
    np.copyto(out._np, self._np)
    if self._dtype.category == D.FLOAT:
        _replace_nonfinite(out._np, self._dtype, nan, posinf, neginf)
    elif self._dtype.is_complex:    # the real and imaginary parts each, as torch
        for part in (out._np.real, out._np.imag):
            _replace_nonfinite(part, self._dtype.to_real(), nan, posinf, neginf)
    return out
