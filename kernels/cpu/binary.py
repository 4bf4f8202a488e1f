"""CPU kernels of the binary family, over NumPy: add, sub, mul, div, pow, comparisons,
where, clamp, masked_fill, rsub, floor_divide, remainder, fmod, maximum/minimum, atan2,
logical_*, bitwise_*, lerp, addcmul/addcdiv.

Each kernel takes its layout (shape, strides, dtype, torch's errors) from
kernels/meta/binary.py, which the Meta kernels share; the fast paths and the general
path are the pointwise machinery of _pointwise.py (float16/bfloat16 computed in float32,
like torch's opmath). In-place kernels run in place when NumPy can, else the functional
kernel's result is copied into self.

    >>> add(from_array(np.ones(3, np.float32)), 2, 1).numpy()
    array([3., 3., 3.], dtype=float32)
    >>> remainder(from_array(np.array([5, -5])), 3).tolist()
    [2, 1]
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ember._accel import speedups
from ember.core import dtype as D
from ember.core.alloc import empty_cpu
from ember.core.tensor import Tensor, from_array
from ember.kernels.common import _pointwise as P
from ember.kernels.meta import binary as M

from . import _complex_pow as _cpow
from ._compiled import compiled
from ._pointwise import (
    _HALF,
    _arr,
    _binary,
    _check_devices,
    _clamp_into,
    _compute_dtype,
    _fast_same_shape,
    _general,
    _inplace,
    _np_strides,
    _opmath_args,
    _quiet,
    _run,
    _scalar_fast,
    exactly_contiguous,
    quiet_call,
)


# --- add / sub / mul / div ------------------------------------------------------------
def _scaled(ufunc, layout):
    """add/sub with an alpha other than 1: scaled_op in `layout`."""
    return lambda self, other, alpha: scaled_op(ufunc, layout(self, other), self, other, alpha)


add = _binary(np.add, M.mul_layout, scaled=_scaled(np.add, M.mul_layout))
sub = _binary(np.subtract, M.sub_layout, min_category=D.INT,  # (bool: torch's error)
              scaled=_scaled(np.subtract, M.sub_layout))
# complex operands: torch's roundings (kernels/cpu/_complex_loop.py)
mul = _binary(np.multiply, M.mul_layout, exact_other=True, complex_loop="mul")
_add_ = _inplace(np.add, M.mul_, add)
_sub_ = _inplace(np.subtract, M.mul_, sub)
mul_ = _inplace(np.multiply, M.mul_, mul, complex_loop="mul")


def mul_scalar_(self, other):
    """aten.mul_.Scalar. torch's CPU kernel passes the number as mul_out's first operand,
    which its float32 path for a trailing number does not cover, so the number is first
    rounded to a float16/bfloat16 self's dtype: `x.mul_(70000)` (mul_.Tensor) computes
    0.4363 * 70000 in float32 (30544), `aten.mul_.Scalar` multiplies by inf in float16."""
    if self._dtype in P.HALF and (type(other) is float or
                                  type(other) is int and -2**63 <= other < 2**63):
        with _quiet(over="ignore"):   # (an int beyond int64 keeps mul_'s error)
            other = float(self._dtype.np.type(float(other)))
    return mul_(self, other)


def _no_alpha(alpha) -> bool:
    return alpha == 1 and alpha is not True


_SPLIT = 134217729.0     # 2**27 + 1: Dekker's splitting constant for float64


def _two_sum(a, b):
    """(s, e) with s = a + b rounded and s + e == a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a, b):
    """(p, e) with p = a * b rounded and p + e == a * b exactly (Dekker; float64)."""
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_odd(s, e):
    """s + e (s the rounded sum, e its error) rounded to odd: an inexact s with an even
    last bit moves one ulp toward the exact value (so a later rounding is not a double
    rounding)."""
    s = np.asarray(s, np.float64)
    nudge = (e != 0) & (s.view(np.uint64) & 1 == 0) & np.isfinite(s)
    return np.where(nudge, np.nextafter(s, np.copysign(np.inf, e)), s)


def _fma32(x, y, z):
    """x * y + z rounded once to float32: the product is exact in float64, and the float64
    sum rounded to odd where it could round twice (on a float32 midpoint, or subnormal)."""
    p = np.multiply(x, y, dtype=np.float64)
    s = np.array(p + z, np.float64)
    suspect = (s.view(np.uint64) & 0x1FFFFFFF == 0x10000000) | (np.abs(s) < 2.0 ** -126)
    if suspect.any():
        p, z = np.broadcast_to(p, s.shape)[suspect], np.broadcast_to(z, s.shape)[suspect]
        s[suspect] = _round_odd(*_two_sum(p, z))
    return s.astype(np.float32)


def _fma64(x, y, z):
    """x * y + z rounded once in float64: Boldo and Melquiond's emulated FMA (exact product
    and sum, their errors added with rounding to odd), exact in Python fractions where an
    error term would underflow or overflow (tiny or huge operands, an inf from finite ones:
    an overflowing x * y plus an infinite z is z)."""
    p, ep = _two_prod(x, y)
    s, es = _two_sum(z, p)
    v = _round_odd(*_two_sum(es, ep))
    # s alone where v is 0 (s + 0.0 would turn a -0.0 into 0.0) or not finite (inf/nan in)
    r = np.where((v == 0) | ~np.isfinite(v), s, s + v)
    x, y, z = np.broadcast_arrays(x, y, z)
    big, tiny = 2.0 ** 995, 2.0 ** -960
    hard = (x != 0) & (y != 0) & np.isfinite(x) & np.isfinite(y) & (
        ~np.isfinite(r) | (np.abs(p) < tiny) | (np.abs(r) < tiny) | (np.abs(x) > big)
        | (np.abs(y) > big))
    if hard.any():
        r[hard] = [_exact_fma(*v) for v in zip(x[hard], y[hard], z[hard])]
    return r


def _exact_fma(x, y, z) -> float:
    """x * y + z of finite x and y, rounded once (Python's int division rounds correctly)."""
    if not math.isfinite(z):
        return z
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def fma(x, y, z):
    """x * y + z for float arrays, rounded once like the fused multiply-adds of torch's
    kernels: numbers are first converted to the dtype (torch's operands), float32 and
    float64 match torch bit for bit; float16/bfloat16 are computed as float32 (their
    opmath type). float32/float64 go through compiled loops (_fma_loop: the bits of the
    NumPy emulation _fma32/_fma64 in one pass, 4-7x faster)."""
    dt = np.result_type(x, y, z)
    x, y, z = (np.asarray(v, dt) for v in (x, y, z))
    if dt == np.float32 or dt == np.float64:
        loops = compiled("_fma_loop")
        if not y.ndim and x.shape == z.shape and x.flags.c_contiguous and z.flags.c_contiguous:
            return loops.fma_scalar(x, y, z)
        return np.asarray(loops.fma_ufunc(x, y, z))
    return np.asarray(quiet_call(_fma64, x, y, z), dt)


def scaled_op(ufunc, layout, a, b, alpha):
    """`ufunc(a, alpha * b)` like torch's add/sub/rsub: alpha converted to the result
    dtype (P.alpha_value), computed in it (floats: one fused multiply-add)."""
    alpha = P.alpha_value(layout._dtype, alpha, negate=ufunc is np.subtract)
    if layout._dtype.category == D.FLOAT:
        return _general(lambda x, y: fma(y, alpha, x), layout, (a, b))
    return _general(lambda x, y: np.add(x, np.multiply(y, alpha)), layout, (a, b))


def _update_fast(ufunc, self, other, alpha) -> bool:
    """`self = ufunc(self, alpha * other)` straight on the arrays (one fused multiply-add,
    as scaled_op), for float32/float64 tensors of one dtype and shape and a float or int
    alpha (an optimizer's update, every step); False when the general path is needed."""
    a = self._np
    dt = self._dtype
    if other.__class__ is not Tensor or other._dtype is not dt or a is None or \
            other._shape != self._shape or (dt is not D.float32 and dt is not D.float64) or \
            alpha.__class__ not in (float, int):
        return False
    b = other._np
    if b is None:
        return False
    update_arrays(ufunc, a, b, alpha, dt)
    return True


_c_fma_update = None if speedups is None else speedups.fma_update   # (ember/_speedups_fma.c)
_ALPHAS: dict = {}   # (dtype, alpha's class, alpha, negated) -> the factor update_arrays uses


def _alpha_factor(dt, alpha, negate):
    """P.alpha_value(dt, alpha, negate) as a NumPy scalar of dt, remembered: an optimizer
    passes the same -lr every step. Zeros are not remembered (0.0 == -0.0 as keys), nor
    NaN (never equal to itself)."""
    key = (dt, alpha.__class__, alpha, negate)
    y = _ALPHAS.get(key)
    if y is None:
        y = dt.np.type(P.alpha_value(dt, alpha, negate=negate))
        if alpha:
            if len(_ALPHAS) > 256:
                _ALPHAS.clear()
            _ALPHAS[key] = y
    return y


def update_arrays(ufunc, a, b, alpha, dt):
    """a = ufunc(a, alpha * b) in place, alpha rounded to `dt` like torch's (the arrays of
    add_/sub_'s fast path; the optimizers' multi-tensor updates call it too)."""
    if alpha == 1:
        ufunc(a, b, out=a)
        return
    y = _alpha_factor(dt, alpha, ufunc is np.subtract)
    if _c_fma_update is not None and _c_fma_update(b, y, a):   # (C: the same fma loop)
        return
    loops = compiled("_fma_loop")
    if a.flags.c_contiguous and b.flags.c_contiguous:
        loops.fma_inplace(b, y, a)
    else:
        loops.fma_ufunc(b, y, a, out=a)


def _scaled_(ufunc, inplace, functional):
    """add_/sub_: the fast update, the plain in-place kernel, or the functional result."""
    def kernel(self, other, alpha=1):
        if _update_fast(ufunc, self, other, alpha):
            return self
        if ufunc is np.subtract:
            P.check_bool_sub(self, other)
        if _no_alpha(alpha):
            return inplace(self, other)
        M.add_(self, other, alpha)
        np.copyto(self._np, functional(self, other, alpha)._np, casting="unsafe")
        return self
    return kernel


add_ = _scaled_(np.add, _add_, add)
sub_ = _scaled_(np.subtract, _sub_, sub)


div = _binary(np.true_divide, M.div_layout, quiet=True, float_only=True, exact_other=True,
              complex_loop="div")


div_ = _inplace(np.true_divide, M.div_, div, quiet=True, float_result=True, complex_loop="div")


def int_div_check(layout, divisor):
    """torch's integer division (//, %, fmod, div with rounding) raises on a zero divisor,
    also a number that wraps to 0 in the result dtype (256 for uint8), not for an empty
    result."""
    dt = layout._dtype
    if dt.category != D.FLOAT and 0 not in layout._shape and np.any(np.asarray(
            _arr(divisor, dt)) == 0):
        raise RuntimeError("ZeroDivisionError")


def _trunc_divide(a, b, out=None, casting=None):
    if np.issubdtype(np.result_type(a, b), np.integer):
        q = np.floor_divide(a, b)
        fix = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
        r = q + fix
    else:
        r = np.trunc(np.true_divide(a, b))
    if out is not None:
        np.copyto(out, r, casting="unsafe")
        return out
    return r


def _floor_divide_stepwise(a, b):
    """c10::div_floor_floating over float16/bfloat16 arrays, each step rounded to their
    dtype as torch's vectorized reduced-float loop computes it: fmod, (a - mod) / b, the
    sign fix, floor, and the round-half-up of what floor dropped; a / b for b == 0."""
    one, half = a.dtype.type(1), a.dtype.type(0.5)
    with np.errstate(all="ignore"):
        mod = np.fmod(a, b)
        div = (a - mod) / b
        div = np.where((mod != 0) & ((b < 0) != (mod < 0)), div - one, div)
        floor = np.floor(div)
        floor = np.where(div - floor > half, floor + one, floor)
        zero = np.copysign(np.zeros_like(div), a / b)
        return np.where(b == 0, a / b, np.where(div != 0, floor, zero))


def _scalar_divisor(other) -> bool:
    """Whether torch's reduced-float division kernels read `other` as one float (a
    number, or a tensor of one element: broadcast, all its strides are 0), rather than
    running their vectorized loop in the tensor's dtype."""
    return not isinstance(other, Tensor) or other.numel() == 1


def div_mode(self, other, rounding_mode):
    """div with rounding_mode "trunc" or "floor" (None: true division). float16 and
    bfloat16 follow torch's two loops: with a one-element divisor in float, else each step
    rounded to the dtype (trunc rounds the quotient before truncating it)."""
    meta = M.div_mode_layout(self, other, rounding_mode)
    if rounding_mode is None:
        return div(self, other)
    int_div_check(meta, other)
    if meta._dtype in _HALF and not _scalar_divisor(other):
        step = _floor_divide_stepwise if rounding_mode == "floor" else _trunc_divide
        half = meta._dtype.np       # (a number self, 7 // t, is rounded to the dtype too)
        return _run(lambda a, b: step(np.asarray(a, half), np.asarray(b, half)), meta,
                    (self, other), meta._dtype)
    fn = np.floor_divide if rounding_mode == "floor" else _trunc_divide
    return _general(fn, meta, (self, other), exact_other=True)


def div_mode_(self, other, rounding_mode):
    M.div_mode_(self, other, rounding_mode)
    if rounding_mode is None:
        return div_(self, other)
    r = div_mode(self, other, rounding_mode)
    np.copyto(self._np, r._np, casting="unsafe")
    return self


# --- pow ------------------------------------------------------------------------------
def _power(a, b, out=None, casting=None):
    """np.power, plus torch's integer rule for negative exponents in a tensor:
    1 ** -n = 1, (-1) ** -n = +-1, anything else ** -n = 0; complex results are C's cpow
    (_complex_pow.py), as torch's."""
    b_arr = np.asarray(b)
    if np.result_type(a, b_arr).kind == "c":    # C's cpow, as torch (not NumPy's power)
        r = _cpow.cpow(np.asarray(a), b_arr)
    elif b_arr.dtype.kind in "iu" and np.asarray(a).dtype.kind in "iu" and (b_arr < 0).any():
        neg = b_arr < 0
        r = np.power(a, np.where(neg, 0, b_arr))
        odd = (b_arr % 2) == 1
        r = np.where(neg, np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)), r)
    elif np.result_type(a, b) == np.float32:  # NumPy's float32 power is less accurate
        a64, b64 = (np.asarray(x, np.float32).astype(np.float64) for x in (a, b))
        r = np.power(a64, b64).astype(np.float32)
    else:
        r = np.power(a, b)
    if out is None:
        return r
    np.copyto(out, r, casting="unsafe")
    return out


def pow(self, exponent):
    a, dt = self._np, self._dtype
    if (exponent.__class__ is float or exponent.__class__ is int and
            -2 ** 63 <= exponent < 2 ** 63) and a is not None and \
            (dt is D.float32 or dt is D.float64) and a.flags.c_contiguous and \
            exponent not in (0, 1):
        # a contiguous float tensor to a number power: self's dtype and layout, no layout
        # rules to run (x ** 2, mingpt's gelu's pow(x, 3.0))
        if dt is D.float64:
            P.scalar_arg(exponent, dt)
        if exponent == 2:
            return from_array(np.multiply(a, a), dt)
        special = _POW_SPECIAL.get(exponent)
        r = quiet_call(special, a) if special else quiet_call(_power, a, exponent)
        return from_array(np.asarray(r, dt.np), dt)
    meta = M.pow_layout(self, exponent)
    if meta._dtype is not D.float32:  # (float32 takes the exponent as a double)
        P.scalar_arg(exponent, meta._dtype)
    if not isinstance(exponent, Tensor) and exponent in (0, 1):  # torch: fill 1 / copy
        out = empty_cpu(meta._shape, meta._dtype, meta._stride)
        np.copyto(out._np, 1 if exponent == 0 else self._np, casting="unsafe")
        return out
    if meta._dtype.is_complex and not isinstance(exponent, Tensor):
        return _general(lambda x: _cpow.pow_tensor_scalar(x, exponent), meta, (self,))
    if exponent.__class__ is float or exponent.__class__ is int:
        a = self._np
        if exponent == 2 and meta._dtype is self._dtype:
            return from_array(np.multiply(a, a), meta._dtype) if a.flags.c_contiguous else \
                _general(np.multiply, meta, (self, self))
        special = _POW_SPECIAL.get(exponent)
        if special is not None and meta._dtype.category != D.FLOAT:
            special = None
        # a contiguous input of the result's dtype: NumPy's result directly (no copy)
        if meta._dtype is self._dtype and self._dtype not in _HALF and a.flags.c_contiguous:
            r = quiet_call(special, a) if special else quiet_call(_power, a, exponent)
            return from_array(np.asarray(r, meta._dtype.np), meta._dtype)
        if special is not None:
            return _general(special, meta, (self,))
    return _general(_power, meta, (self, exponent))


# torch's pow_tensor_scalar_optimized_kernel: these float exponents are not std::pow
_POW_SPECIAL = {0.5: np.sqrt, 3: lambda x: x * x * x, -0.5: lambda x: 1 / np.sqrt(x),
                -1: lambda x: 1 / x, -2: lambda x: 1 / (x * x)}


def pow_scalar(self, exponent):
    meta = M.pow_scalar_layout(self, exponent)
    dt = meta._dtype
    if dt in _HALF:
        base, exp = _opmath_args((self, exponent), dt)
    else:
        base, exp = np.asarray(_arr(self, dt), dt.np), _arr(exponent, dt)
    out = empty_cpu(meta._shape, dt, meta._stride)
    if dt.is_complex and self == 1:     # torch: 1 ** anything is a fill
        out._np.fill(1)
        return out
    with _quiet(all="ignore"):
        _power(base, exp, out=out._np)
    return out


# --- comparisons ------------------------------------------------------------------------
def _comparison(ufunc):
    def kernel(self, other):
        is_tensor = isinstance(other, Tensor)
        # (ml_dtypes' bfloat16 comparisons warn on NaN: the general path compares in float32)
        if is_tensor and self._dtype is other._dtype and self._dtype is not D.bfloat16 and \
                self._np is not None and other._np is not None and \
                self._np.flags.c_contiguous and other._np.flags.c_contiguous and \
                self._shape == other._shape:
            return from_array(ufunc(self._np, other._np), D.bool_)
        # (a number is a 0-d operand of torch's TensorIterator: no fast setup, so the
        # strides of size-1 dims order the result too: exact contiguous strides only)
        if not is_tensor and exactly_contiguous(self) and \
                _scalar_fast(self, other) and not (other.__class__ is float and
                                                   self._dtype.category != D.FLOAT):
            return from_array(ufunc(self._np, other), D.bool_)
        meta = M.compare_layout(self, other)
        return _general(ufunc, meta, (self, other))
    kernel.__name__ = ufunc.__name__
    return kernel


eq = _comparison(np.equal)
ne = _comparison(np.not_equal)
lt = _comparison(np.less)
le = _comparison(np.less_equal)
gt = _comparison(np.greater)
ge = _comparison(np.greater_equal)


# --- where / clamp / masked_fill ----------------------------------------------------------
def where(condition, self, other):
    fast = _where_contiguous(condition, self, other)
    if fast is not None:
        return fast
    meta = M.where_layout(condition, self, other)
    _check_devices(condition, self, other)
    dt = meta._dtype
    cond = condition._np if condition._dtype is D.bool_ else condition._np.astype(bool)
    # torch checks a number's conversion, except into float16/bfloat16 (it rounds to inf)
    a, b = (_arr(x if dt in _HALF else P.scalar_arg(x, dt), dt) for x in (self, other))
    with _quiet(over="ignore"):
        r = np.where(cond, a, b)
        if r.dtype == dt.np and r.strides == _np_strides(meta):  # NumPy already laid it out
            return from_array(r, dt)
        out = empty_cpu(meta._shape, dt, meta._stride)
        np.copyto(out._np, r, casting="unsafe")
    return out


def _where_contiguous(condition, self, other):
    """where() of a C-contiguous bool condition and C-contiguous CPU tensors of its shape
    and one float dtype (or a tensor and a number): np.where's C-order result is torch's;
    None otherwise (the general path, with torch's checks)."""
    c = condition._np
    if c is None or condition._dtype is not D.bool_ or not c.flags.c_contiguous:
        return None
    shape, dt = condition._shape, None
    args = []
    for x in (self, other):
        if isinstance(x, Tensor):
            a = x._np
            if a is None or x._shape != shape or not a.flags.c_contiguous or \
                    (dt is not None and x._dtype is not dt):
                return None
            dt = x._dtype
            args.append(a)
        elif x.__class__ is not float:
            return None
        else:
            args.append(x)
    if dt is None or (dt is not D.float32 and dt is not D.float64):
        return None
    args = [P.scalar_arg(x, dt) if x.__class__ is float else x for x in args]
    return from_array(np.where(c, *args).astype(dt.np, copy=False), dt)


def clamp(self, min=None, max=None):
    meta = M.clamp_layout(self, min, max)
    _check_devices(self, *P.tensors_of(min, max))
    out = empty_cpu(meta._shape, meta._dtype, meta._stride)
    _clamp_into(out._np, _arr(self, meta._dtype), min, max, meta._dtype)
    return out


def clamp_(self, min=None, max=None):
    M.clamp_(self, min, max)
    _check_devices(self, *P.tensors_of(min, max))
    dt = P.clamp_dtype(self, min, max)
    _clamp_into(self._np, _arr(self, dt), min, max, dt)
    return self


def masked_fill(self, mask, value):
    a, m = self._np, mask._np
    if a is not None and m is not None and mask._dtype is D.bool_ and \
            value.__class__ in (float, int) and self._dtype.category == D.FLOAT and \
            self._dtype not in _HALF and a.flags.c_contiguous and \
            P.broadcast_shapes(self._shape, mask._shape) == self._shape:
        # (a contiguous float self the mask broadcasts to: np.where's C-order result)
        v = a.dtype.type(P.fill_value(value, self._dtype))
        return from_array(np.where(m, v, a), self._dtype)
    meta = M.masked_fill_layout(self, mask, value)
    _check_devices(self, mask, *P.tensors_of(value))
    out = empty_cpu(meta._shape, meta._dtype, meta._stride)
    np.copyto(out._np, self._np)
    return masked_fill_(out, mask, value)


def masked_fill_(self, mask, value):
    M.masked_fill_(self, mask, value)
    _check_devices(self, mask)
    v = P.fill_value(value, self._dtype)
    with _quiet(all="ignore"):
        np.copyto(self._np, np.asarray(v).astype(self._dtype.np), where=mask._np,
                  casting="unsafe")
    return self


def _into_self(self, result):
    np.copyto(self._np, result._np, casting="unsafe")
    return self


# --- rsub -------------------------------------------------------------------------------------
def rsub(self, other, alpha=1):
    """other - alpha * self."""
    lay = M.rsub_layout(self, other, alpha)
    if alpha == 1 and alpha is not True:
        return _run(np.subtract, lay, (other, self))
    return scaled_op(np.subtract, lay, other, self, alpha)


# --- floor_divide / remainder / fmod ----------------------------------------------------------
def floor_divide(self, other):
    return div_mode(self, other, "floor")


def _remainder(a, b):
    """torch's remainder (fmod, then + b where a nonzero result's sign differs from b's):
    NumPy's, except that a zero keeps fmod's sign (NumPy gives it the divisor's)."""
    r = np.remainder(a, b)
    if r.dtype.kind == "f":
        r = np.where(r == 0, np.fmod(a, b), r)
    return r


def remainder(self, other):
    """Python's modulo (the divisor's sign)."""
    r = _fast_same_shape(_remainder, self, other)
    if r is not None:
        return r
    lay = M.remainder_layout(self, other)
    int_div_check(lay, other)
    return _run(_remainder, lay, (self, other))


def remainder_scalar_tensor(self, other):
    """remainder.Scalar_Tensor: a Python number modulo a tensor."""
    return remainder(self, other)


def fmod(self, other):
    r = _fast_same_shape(np.fmod, self, other)
    if r is not None:
        return r
    lay = M.fmod_layout(self, other)
    int_div_check(lay, other)
    return _run(np.fmod, lay, (self, other))


# --- maximum / minimum / atan2 ----------------------------------------------------------------
def maximum(self, other):
    r = _fast_same_shape(np.maximum, self, other, quiet=False)
    return r if r is not None else _run(np.maximum, M.promote_layout(self, other),
                                        (self, other))


def minimum(self, other):
    r = _fast_same_shape(np.minimum, self, other, quiet=False)
    return r if r is not None else _run(np.minimum, M.promote_layout(self, other),
                                        (self, other))


def atan2(self, other):
    r = _fast_same_shape(np.arctan2, self, other, quiet=False)
    return r if r is not None else _run(np.arctan2, M.atan2_layout(self, other), (self, other))


# --- logical / bitwise --------------------------------------------------------------------------
def _truth(x):
    if isinstance(x, Tensor):
        return x._np != 0
    return bool(x)


def _logical(ufunc):
    def kernel(self, other):
        lay = M.logical_layout(self, other)
        _check_devices(self, other)
        out = empty_cpu(lay._shape, lay._dtype, lay._stride)
        np.copyto(out._np, ufunc(_truth(self), _truth(other)))
        return out
    return kernel


logical_and = _logical(np.logical_and)
logical_or = _logical(np.logical_or)
logical_xor = _logical(np.logical_xor)


def _bitwise(ufunc, layout):
    def kernel(self, other):
        lay = layout(self, other)
        return _run(ufunc, lay, (self, other), lay._dtype)
    return kernel


bitwise_and = _bitwise(np.bitwise_and, M.bitwise_and_layout)
bitwise_or = _bitwise(np.bitwise_or, M.bitwise_or_layout)
bitwise_xor = _bitwise(np.bitwise_xor, M.bitwise_xor_layout)


def bitwise_and_(self, other):
    M.bitwise_and_(self, other)
    return _into_self(self, bitwise_and(self, other))


def bitwise_or_(self, other):
    M.bitwise_or_(self, other)
    return _into_self(self, bitwise_or(self, other))


def bitwise_xor_(self, other):
    M.bitwise_xor_(self, other)
    return _into_self(self, bitwise_xor(self, other))


def _lshift(a, b):
    """torch's: a shift by a negative amount or by the bit width or more gives 0."""
    bad = (b < 0) | (b >= a.dtype.itemsize * 8)
    return np.where(bad, 0, np.left_shift(a, np.where(bad, 0, b)))


def _rshift(a, b):
    """torch's: a shift out of range fills with the sign bit (-1 or 0)."""
    bad = (b < 0) | (b >= a.dtype.itemsize * 8)
    return np.where(bad, np.where(a < 0, -1, 0), np.right_shift(a, np.where(bad, 0, b)))


def _shift(fn, layout):
    def kernel(self, other):
        lay = layout(self, other)
        t = lay._dtype.np  # Python numbers take the result's dtype (and its bit width)
        return _run(lambda a, b: fn(np.asarray(a).astype(t), np.asarray(b).astype(t)), lay,
                    (self, other), lay._dtype)
    return kernel


bitwise_left_shift = _shift(_lshift, M.lshift_layout)
bitwise_right_shift = _shift(_rshift, M.rshift_layout)


def bitwise_left_shift_(self, other):
    M.bitwise_left_shift_(self, other)
    return _into_self(self, bitwise_left_shift(self, other))


def bitwise_right_shift_(self, other):
    M.bitwise_right_shift_(self, other)
    return _into_self(self, bitwise_right_shift(self, other))


# --- lerp / addcmul / addcdiv -------------------------------------------------------------------
def _lerp(a, b, w):
    """torch's formula: a + w * (b - a) for |w| < 0.5, else b - (b - a) * (1 - w); for
    float32/float64 one fused multiply-add, fma(w or w - 1, b - a, a or b), as torch's
    vectorized kernel (1 ulp apart from the two roundings on ~20% of elements)."""
    d = b - a
    small = np.abs(w) < 0.5
    if d.dtype == np.float32 or d.dtype == np.float64:
        if not np.ndim(w):  # (one weight: one branch, the contiguous loop)
            return fma(d, w, a) if small else fma(d, w - 1, b)
        return fma(d, np.where(small, w, w - 1), np.where(small, a, b))
    return np.where(small, a + w * d, b - d * (1 - w))


def lerp(self, end, weight):
    lay = M.lerp_layout(self, end, weight)
    cdt = _compute_dtype(lay._dtype)
    if isinstance(weight, Tensor):  # (a 0-d weight is cast to the common dtype first)
        w = weight._np.astype(lay._dtype.np).astype(cdt.np)
    else:
        w = value_array(weight, cdt)
    return _run(lambda a, b: _lerp(a, b, w), lay, (self, end), cdt)


def _ready_inplace(self, *others):
    """The arrays of `self` and `others` when all are contiguous float32/float64 tensors of
    self's dtype and shape: NumPy then computes torch's result straight into self (the
    optimizers' moment updates). None otherwise (the checked general path)."""
    dt, shape = self._dtype, self._shape
    if dt is not D.float32 and dt is not D.float64:
        return None
    arrays = []
    for t in (self, *others):
        if not isinstance(t, Tensor) or t._dtype is not dt or t._shape != shape:
            return None
        a = t._np
        if a is None or not a.flags.c_contiguous:
            return None
        arrays.append(a)
    return arrays


def lerp_(self, end, weight):
    arrays = None if isinstance(weight, Tensor) else _ready_inplace(self, end)
    if arrays is not None:
        quiet_call(lerp_arrays, *arrays, value_array(weight, self._dtype))
        return self
    M.lerp_(self, end, weight)
    return _into_self(self, lerp(self, end, weight))


def lerp_arrays(a, b, w):
    """a = lerp(a, b, w) in place, w a 0-d array (lerp_'s fast path; the optimizers')."""
    d = np.asarray(b - a)  # (an array also for 0-d operands)
    loops = compiled("_fma_loop")
    if abs(w) < 0.5:
        loops.fma_inplace(d, w, a)
    else:
        loops.fma_ufunc(d, w - 1, b, out=a)


def value_array(value, cdt):
    """The Scalar `value` (addcmul's value, lerp's weight) converted to the computation
    dtype like torch's checked `value.to<opmath_t>()` (0.5 becomes 0 for integers)."""
    return np.asarray(P.scalar_arg(value, cdt), cdt.np)


def addcmul(self, tensor1, tensor2, value=1):
    lay = M.addcmul_layout(self, tensor1, tensor2, value)
    cdt = _compute_dtype(lay._dtype)
    v = value_array(value, cdt)
    if cdt.category == D.FLOAT:   # torch: fma(value * tensor1, tensor2, self)
        return _run(lambda s, a, b: fma(v * a, b, s), lay, (self, tensor1, tensor2), cdt)
    return _run(lambda s, a, b: s + v * a * b, lay, (self, tensor1, tensor2), cdt)


def _addc_(ufunc, self, tensor1, tensor2, value) -> bool:
    """self += value * tensor1 (ufunc) tensor2 on the ready arrays (torch's order of
    rounding); False when they are not ready."""
    arrays = _ready_inplace(self, tensor1, tensor2)
    if arrays is None:
        return False
    quiet_call(addc_arrays, ufunc, *arrays, value_array(value, self._dtype))
    return True


def addc_arrays(ufunc, s, a, b, v):
    """s += v * a (ufunc) b in place, v a 0-d array (addcmul_/addcdiv_'s fast path; the
    optimizers')."""
    term = np.empty_like(s)
    np.multiply(v, a, out=term)
    if ufunc is np.multiply:  # torch's fma(v * a, b, s), as addcmul
        compiled("_fma_loop").fma_ufunc(term, b, s, out=s)
        return
    ufunc(term, b, out=term)
    s += term


def addcmul_(self, tensor1, tensor2, value=1):
    if _addc_(np.multiply, self, tensor1, tensor2, value):
        return self
    M.addcmul_(self, tensor1, tensor2, value)
    return _into_self(self, addcmul(self, tensor1, tensor2, value))


def addcdiv(self, tensor1, tensor2, value=1):
    lay = M.addcdiv_layout(self, tensor1, tensor2, value)
    cdt = _compute_dtype(lay._dtype)
    v = value_array(value, cdt)
    return _run(lambda s, a, b: s + v * a / b, lay, (self, tensor1, tensor2), cdt)


def addcdiv_(self, tensor1, tensor2, value=1):
    if _addc_(np.divide, self, tensor1, tensor2, value):
        return self
    M.addcdiv_(self, tensor1, tensor2, value)
    return _into_self(self, addcdiv(self, tensor1, tensor2, value))
