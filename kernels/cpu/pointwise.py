"""The pointwise machinery of the CPU backend, and the arithmetic core built on it: add,
sub, mul, div, pow, comparisons, where, clamp, masked_fill (the other binary ops are in
binary.py, the unary ops in unary.py, relu and its backward in activation.py).

The fast path (contiguous operands of one dtype) is a single ufunc call; otherwise
the output is allocated with the Meta kernel's layout and the ufunc writes into it,
so CPU and Meta always agree on shape, dtype and strides.

    >>> add(from_array(np.ones(3, np.float32)), 2, 1).numpy()
    array([3., 3., 3.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ember.core import dtype as D
from ember.core.alloc import empty_cpu
from ember.core.tensor import Tensor, from_array
from ember.kernels.common import _pointwise as P
from ember.kernels.meta import pointwise as M

_quiet = np.errstate  # ops that may divide by zero / overflow run under _quiet(all="ignore")
_HALF = P.HALF
_F32_MAX = float(np.finfo(np.float32).max)


def _arr(x, dt):
    """The NumPy operand for a tensor or Python number, in the computation dtype (a
    wrapped number, see argcheck.wrap_number, is its Python number)."""
    if isinstance(x, Tensor):
        # (wrapped numbers are 0-d: only those read the slot, which is unset on the rest)
        if x._shape or not getattr(x, "_wrapped_number", False):
            a = x._np
            return a if a.dtype == dt.np else a.astype(dt.np)
        x = x._np.item()
    if isinstance(x, bool) and dt is not D.bool_:
        return int(x)
    if x.__class__ is int and dt.category == D.INT:
        info = np.iinfo(dt.np)
        if not info.min <= x <= info.max:  # torch wraps Python ints into the dtype
            return np.array(D.check_int_range(x)).astype(dt.np)
    return x


def _opmath_args(operands, half, exact_other=False):
    """float32 operands of an op whose result is `half` (float16/bfloat16), computed like
    torch's opmath: tensors are cast to `half`, then widened exactly; numbers are rounded
    to `half` too (through float, like c10::Half(double)), except a number given as the
    last operand of the ops whose kernels read it as float (`exact_other`: mul, div), so
    the result is rounded once."""
    args = []
    last = len(operands) - 1
    with _quiet(over="ignore"):
        for i, x in enumerate(operands):
            a = _arr(x, half)
            if not isinstance(a, np.ndarray):
                a = np.float32(a)
                if not (exact_other and i == last):
                    a = a.astype(half.np)
            args.append(np.asarray(a).astype(np.float32) if a.dtype != np.float32 else a)
    return args


def _check_devices(*xs):
    first = None
    for x in xs:
        if isinstance(x, Tensor):
            if first is None:
                first = x
            elif x._device is not first._device:
                P.check_same_device(first, x)
    if first is not None and first._device.type != "cpu":
        raise RuntimeError(f"expected CPU tensors, got {first._device}")


def _scalar_fast(self, other) -> bool:
    """Whether `ufunc(self._np, other)` already has torch's result for a Python number:
    NumPy 2 treats Python numbers as weak like torch, except that it refuses ints out of
    the dtype's range (torch wraps them) and computes int-vs-float in float64."""
    t = other.__class__
    cat = self._dtype.category
    if self._dtype in _HALF:  # torch's opmath rounding: see _opmath_args
        return False
    if t is float:  # (NumPy warns when the number overflows float32: torch gives inf)
        return cat == D.FLOAT and (self._dtype is D.float64 or -_F32_MAX <= other <= _F32_MAX)
    if t is int and cat != D.BOOL:
        if cat == D.FLOAT:
            return D.check_int_range(other) is other
        info = np.iinfo(self._np.dtype)
        return info.min <= other <= info.max
    return False


def _fast(ufunc, self, other, float_only=False):
    """The ufunc straight on the ready arrays when NumPy's result already is torch's: both
    operands contiguous with one dtype, or one of them a Python number or 0-d tensor of no
    higher category (a "wrapped number"). None when the general path is needed.
    `float_only`: the result dtype must be floating (true division of integers is not)."""
    if isinstance(other, Tensor):  # subclasses too (nn.Parameter)
        a, b = self._np, other._np
        if a is None or b is None:
            return None
        if self._dtype is other._dtype and a.flags.c_contiguous and b.flags.c_contiguous:
            dt, x, y = self._dtype, a, b
        elif not other._shape and self._shape and a.flags.c_contiguous and \
                other._dtype.category <= self._dtype.category and _scalar_fast(self, b.item()):
            dt, x, y = self._dtype, a, b.item()
        elif not self._shape and other._shape and b.flags.c_contiguous and \
                self._dtype.category <= other._dtype.category and _scalar_fast(other, a.item()):
            dt, x, y = other._dtype, a.item(), b
        else:
            return None
    elif self._np.flags.c_contiguous and _scalar_fast(self, other):
        dt, x, y = self._dtype, self._np, other
    else:
        return None
    if float_only and dt.category != D.FLOAT:
        return None
    return from_array(ufunc(x, y), dt)


def _binary(ufunc, layout, quiet=False, float_only=False, exact_other=False):
    """A functional kernel `k(self, other)` for a NumPy ufunc: `_fast` when it applies,
    else `layout` (shape, strides, dtype and torch's errors) and the general path.
    `exact_other`: see _opmath_args."""

    def kernel(self, other):
        try:
            if quiet:
                with _quiet(all="ignore"):
                    r = _fast(ufunc, self, other, float_only)
            else:
                r = _fast(ufunc, self, other, float_only)
        except ValueError:  # shapes do not broadcast: torch's error from the layout
            layout(self, other)
            raise
        if r is not None:
            return r
        out = layout(self, other)
        compute = out._dtype if out._dtype.category == D.FLOAT or not float_only else None
        return _general(ufunc, out, (self, other), compute_dt=compute,
                        exact_other=exact_other)
    return kernel


def _general(ufunc, out_meta, operands, compute_dt=None, exact_other=False):
    """Slow path: allocate the Meta layout, compute in the promoted dtype (float16 and
    bfloat16 in float32, see _opmath_args), write into it. NumPy's warnings are muted:
    overflow gives inf or wraps like torch, and torch's errors are raised before."""
    _check_devices(*operands)
    dt = out_meta._dtype
    cdt = compute_dt or (D.result_type(*operands) if len(operands) > 1 else operands[0]._dtype)
    if cdt.category != D.FLOAT and dt.category == D.FLOAT:
        cdt = dt
    out = empty_cpu(out_meta._shape, dt, out_meta._stride)
    if cdt in _HALF:
        args, np_cdt = _opmath_args(operands, cdt, exact_other), np.float32
    else:
        args, np_cdt = [_arr(x, cdt) for x in operands], cdt.np
    o = out._np
    with _quiet(all="ignore"):
        if isinstance(ufunc, np.ufunc) and (o.dtype == np_cdt or o.dtype == np.bool_):
            ufunc(*args, out=o, casting="unsafe")
        else:
            np.copyto(o, ufunc(*args), casting="unsafe")
    return out


def _inplace(ufunc, meta, functional, quiet=False, float_result=False):
    """An in-place kernel `k_(self, other)`: ufunc(out=self) when NumPy's result is torch's,
    else torch's checks and the `functional` kernel's result copied into self.
    `float_result` ops (true division) keep an integral self on the checked slow path."""

    def kernel(self, other):
        a = self._np
        if a is not None and (not float_result or self._dtype.category == D.FLOAT):
            if isinstance(other, Tensor):
                fast = other._dtype is self._dtype and other._shape == self._shape and \
                    other._np is not None
                b = other._np
            else:
                fast, b = _scalar_fast(self, other), other
            if fast:
                if quiet:
                    with _quiet(all="ignore"):
                        ufunc(a, b, out=a)
                else:
                    ufunc(a, b, out=a)
                return self
        meta(self, other)
        if a is None:
            raise RuntimeError(f"expected a CPU tensor, got {self._device}")
        np.copyto(a, functional(self, other)._np, casting="unsafe")
        return self
    return kernel


# --- add / sub / mul / div ------------------------------------------------------------
_add = _binary(np.add, M.mul_layout)
_sub = _binary(np.subtract, M.mul_layout)
mul = _binary(np.multiply, M.mul_layout, exact_other=True)
_add_ = _inplace(np.add, M.mul_, _add)
_sub_ = _inplace(np.subtract, M.mul_, _sub)
mul_ = _inplace(np.multiply, M.mul_, mul)


def _no_alpha(alpha) -> bool:
    return alpha == 1 and alpha is not True


def fma(x, y, z):
    """x * y + z for float arrays, rounded once like the fused multiply-adds of torch's
    kernels: computed in a wider type (float64 for float32, the opmath type of float16 and
    bfloat16; long double for float64)."""
    dt = np.result_type(x, y, z)
    wide = np.longdouble if dt == np.float64 else np.float64
    return np.add(np.multiply(x, y, dtype=wide), z).astype(dt)


def scaled_op(ufunc, layout, a, b, alpha):
    """`ufunc(a, alpha * b)` like torch's add/sub/rsub: alpha converted to the result
    dtype (P.alpha_value), computed in it (floats: one fused multiply-add)."""
    alpha = P.alpha_value(layout._dtype, alpha)
    if layout._dtype.category == D.FLOAT:
        sign = 1 if ufunc is np.add else -1
        return _general(lambda x, y: fma(y, sign * alpha, x), layout, (a, b))
    return _general(lambda x, y: ufunc(x, np.multiply(y, alpha)), layout, (a, b))


def add(self, other, alpha=1):
    if _no_alpha(alpha):
        return _add(self, other)
    return scaled_op(np.add, M.mul_layout(self, other), self, other, alpha)


def sub(self, other, alpha=1):
    P.check_bool_sub(self, other)
    if _no_alpha(alpha):
        return _sub(self, other)
    return scaled_op(np.subtract, M.mul_layout(self, other), self, other, alpha)


def _update_fast(ufunc, self, other, alpha) -> bool:
    """`self = ufunc(self, alpha * other)` straight on the arrays, for float32/float64
    tensors of one dtype and shape and a float or int alpha (an optimizer's update, every
    step: no intermediate tensor for `alpha * other`); False when the general path is
    needed."""
    a = self._np
    dt = self._dtype
    if other.__class__ is not Tensor or other._dtype is not dt or a is None or \
            other._shape != self._shape or (dt is not D.float32 and dt is not D.float64) or \
            alpha.__class__ not in (float, int):
        return False
    b = other._np
    if b is None:
        return False
    ufunc(a, b if alpha == 1 else np.multiply(b, P.alpha_value(dt, alpha)), out=a)
    return True


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


div = _binary(np.true_divide, M.div_layout, quiet=True, float_only=True, exact_other=True)


div_ = _inplace(np.true_divide, M.div_, div, quiet=True, float_result=True)


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


def div_mode(self, other, rounding_mode):
    meta = M.div_mode_layout(self, other, rounding_mode)
    if rounding_mode is None:
        return div(self, other)
    int_div_check(meta, other)
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
    1 ** -n = 1, (-1) ** -n = +-1, anything else ** -n = 0."""
    b_arr = np.asarray(b)
    if b_arr.dtype.kind in "iu" and np.asarray(a).dtype.kind in "iu" and (b_arr < 0).any():
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
    meta = M.pow_layout(self, exponent)
    if meta._dtype is not D.float32:  # (float32 takes the exponent as a double)
        P.scalar_arg(exponent, meta._dtype)
    if not isinstance(exponent, Tensor) and exponent in (0, 1):  # torch: fill 1 / copy
        out = empty_cpu(meta._shape, meta._dtype, meta._stride)
        np.copyto(out._np, 1 if exponent == 0 else self._np, casting="unsafe")
        return out
    if exponent.__class__ is float or exponent.__class__ is int:
        a = self._np
        if exponent == 2 and meta._dtype is self._dtype:
            return from_array(np.multiply(a, a), meta._dtype) if a.flags.c_contiguous else \
                _general(np.multiply, meta, (self, self))
        special = _POW_SPECIAL.get(exponent)
        if special is not None and meta._dtype.category == D.FLOAT:
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
        if not is_tensor and self._np.flags.c_contiguous and \
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


def _np_strides(t) -> tuple:
    isz = t._dtype.itemsize
    return tuple(s * isz for s in t._stride)


def _clamp_into(out_np, a, lo, hi, dt):
    lo = None if lo is None else _arr(P.scalar_arg(lo, dt), dt)
    hi = None if hi is None else _arr(P.scalar_arg(hi, dt), dt)
    if lo is not None and hi is not None:
        # torch: min(max(x, lo), hi), NaN in x propagates
        np.minimum(np.maximum(a, lo), hi, out=out_np, casting="unsafe")
    elif lo is not None:
        np.maximum(a, lo, out=out_np, casting="unsafe")
    else:
        np.minimum(a, hi, out=out_np, casting="unsafe")


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
    meta = M.masked_fill_layout(self, mask, value)
    _check_devices(self, mask, *P.tensors_of(value))
    out = empty_cpu(meta._shape, meta._dtype, meta._stride)
    np.copyto(out._np, self._np)
    return masked_fill_(out, mask, value)


def masked_fill_(self, mask, value):
    M.masked_fill_(self, mask, value)
    _check_devices(self, mask)
    v = value.item() if isinstance(value, Tensor) else P.scalar_arg(value, self._dtype)
    with _quiet(all="ignore"):  # a 0-dim tensor's value is cast like torch's (wraps, inf)
        np.copyto(self._np, np.asarray(v).astype(self._dtype.np), where=mask._np,
                  casting="unsafe")
    return self
