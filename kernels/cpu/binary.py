"""CPU kernels of the binary family, over NumPy.

Every kernel takes its layout (shape, strides, dtype, torch's errors) from
kernels/meta/binary.py, computes in the promoted dtype (float16/bfloat16 in float32,
like torch's opmath) and writes into a tensor of that layout; in-place kernels run the
functional kernel and copy into self.

    >>> remainder(from_array(np.array([5, -5])), 3).tolist()
    [2, 1]
"""
from __future__ import annotations

import numpy as np

from ember.core import dtype as D
from ember.core.alloc import empty_cpu
from ember.core.tensor import Tensor, contiguous_strides, from_array
from ember.kernels.common import _pointwise as P
from ember.kernels.cpu import pointwise as PW
from ember.kernels.meta import binary as MB

_HALF = PW._HALF


def _compute_dtype(dt):
    return D.float32 if dt in _HALF else dt


def _run(fn, layout, operands, cdt=None):
    """fn(*arrays) broadcast into a fresh tensor of `layout` (casting unsafely)."""
    PW._check_devices(*operands)
    cdt = cdt or _compute_dtype(layout._dtype)
    if layout._dtype in _HALF and cdt is D.float32:
        args = PW._opmath_args(operands, layout._dtype)
    else:
        args = [PW._arr(x, cdt) for x in operands]
    with np.errstate(all="ignore"):
        r = fn(*args)
        dt = layout._dtype
        if isinstance(r, np.ndarray) and r.flags.owndata and r.flags.c_contiguous and \
                r.dtype == dt.np and r.shape == tuple(layout._shape) and \
                tuple(layout._stride) == contiguous_strides(r.shape):
            return from_array(r, dt)  # NumPy's result already has the layout: no copy
        out = empty_cpu(layout._shape, dt, layout._stride)
        np.copyto(out._np, r, casting="unsafe")
    return out


def _fast(fn, self, other, quiet=True):
    """`fn` straight on the ready arrays when NumPy's result already is torch's: two
    contiguous float32/float64 tensors of one dtype and shape. None otherwise. Narrower than
    pointwise._fast on purpose: no wrapped numbers and no half dtypes, whose operand
    rounding these ops must take from `_run`."""
    if not (isinstance(other, Tensor) and isinstance(self, Tensor)):
        return None
    dt = self._dtype
    a, b = self._np, other._np
    if dt is not other._dtype or (dt is not D.float32 and dt is not D.float64) or \
            a is None or b is None or self._shape != other._shape or \
            not (a.flags.c_contiguous and b.flags.c_contiguous):
        return None
    if quiet:
        with np.errstate(all="ignore"):
            return from_array(fn(a, b), dt)
    return from_array(fn(a, b), dt)


def _into_self(self, result):
    np.copyto(self._np, result._np, casting="unsafe")
    return self


# --- rsub -------------------------------------------------------------------------------------
def rsub(self, other, alpha=1):
    """other - alpha * self."""
    lay = MB.rsub_layout(self, other, alpha)
    if alpha == 1 and alpha is not True:
        return _run(np.subtract, lay, (other, self))
    return PW.scaled_op(np.subtract, lay, other, self, alpha)


# --- floor_divide / remainder / fmod ----------------------------------------------------------
def floor_divide(self, other):
    return PW.div_mode(self, other, "floor")


def _remainder(a, b):
    """torch's remainder (fmod, then + b where a nonzero result's sign differs from b's):
    NumPy's, except that a zero keeps fmod's sign (NumPy gives it the divisor's)."""
    r = np.remainder(a, b)
    if r.dtype.kind == "f":
        r = np.where(r == 0, np.fmod(a, b), r)
    return r


def remainder(self, other):
    """Python's modulo (the divisor's sign)."""
    r = _fast(_remainder, self, other)
    if r is not None:
        return r
    lay = MB.remainder_layout(self, other)
    PW.int_div_check(lay, other)
    return _run(_remainder, lay, (self, other))


def remainder_scalar_tensor(self, other):
    """remainder.Scalar_Tensor: a Python number modulo a tensor."""
    return remainder(self, other)


def fmod(self, other):
    r = _fast(np.fmod, self, other)
    if r is not None:
        return r
    lay = MB.fmod_layout(self, other)
    PW.int_div_check(lay, other)
    return _run(np.fmod, lay, (self, other))


# --- maximum / minimum / atan2 ----------------------------------------------------------------
def maximum(self, other):
    r = _fast(np.maximum, self, other, quiet=False)
    return r if r is not None else _run(np.maximum, MB.promote_layout(self, other),
                                        (self, other))


def minimum(self, other):
    r = _fast(np.minimum, self, other, quiet=False)
    return r if r is not None else _run(np.minimum, MB.promote_layout(self, other),
                                        (self, other))


def atan2(self, other):
    r = _fast(np.arctan2, self, other, quiet=False)
    return r if r is not None else _run(np.arctan2, MB.atan2_layout(self, other), (self, other))


# --- logical / bitwise --------------------------------------------------------------------------
def _truth(x):
    if isinstance(x, Tensor):
        return x._np != 0
    return bool(x)


def _logical(ufunc):
    def kernel(self, other):
        lay = MB.logical_layout(self, other)
        PW._check_devices(self, other)
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


bitwise_and = _bitwise(np.bitwise_and, MB.bitwise_and_layout)
bitwise_or = _bitwise(np.bitwise_or, MB.bitwise_or_layout)
bitwise_xor = _bitwise(np.bitwise_xor, MB.bitwise_xor_layout)


def bitwise_and_(self, other):
    MB.bitwise_and_(self, other)
    return _into_self(self, bitwise_and(self, other))


def bitwise_or_(self, other):
    MB.bitwise_or_(self, other)
    return _into_self(self, bitwise_or(self, other))


def bitwise_xor_(self, other):
    MB.bitwise_xor_(self, other)
    return _into_self(self, bitwise_xor(self, other))


# --- lerp / addcmul / addcdiv -------------------------------------------------------------------
def _lerp(a, b, w):
    """torch's formula: a + w * (b - a) for |w| < 0.5, else b - (b - a) * (1 - w)."""
    d = b - a
    return np.where(np.abs(w) < 0.5, a + w * d, b - d * (1 - w))


def lerp(self, end, weight):
    lay = MB.lerp_layout(self, end, weight)
    cdt = _compute_dtype(lay._dtype)
    if isinstance(weight, Tensor):
        w = weight._np.astype(cdt.np) if weight.dim() else float(weight._np.item())
        if isinstance(w, float) and cdt is not D.float64:
            w = np.asarray(w, cdt.np)
        return _run(lambda a, b: _lerp(a, b, w), lay, (self, end), cdt)
    w = _value(weight, cdt)
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
        a, b = arrays
        w = _value(weight, self._dtype)
        d = b - a
        with np.errstate(all="ignore"):
            if abs(w) < 0.5:
                d *= w
                a += d
            else:
                d *= 1 - w
                np.subtract(b, d, out=a)
        return self
    MB.lerp_(self, end, weight)
    return _into_self(self, lerp(self, end, weight))


def _value(value, cdt):
    """The Scalar `value` (addcmul's value, lerp's weight) converted to the computation
    dtype like torch's checked `value.to<opmath_t>()` (0.5 becomes 0 for integers)."""
    return np.asarray(P.scalar_arg(value, cdt), cdt.np)


def addcmul(self, tensor1, tensor2, value=1):
    lay = MB.addcmul_layout(self, tensor1, tensor2, value)
    cdt = _compute_dtype(lay._dtype)
    v = _value(value, cdt)
    if cdt.category == D.FLOAT:   # torch: fma(value * tensor1, tensor2, self)
        return _run(lambda s, a, b: PW.fma(v * a, b, s), lay, (self, tensor1, tensor2), cdt)
    return _run(lambda s, a, b: s + v * a * b, lay, (self, tensor1, tensor2), cdt)


def _addc_(ufunc, self, tensor1, tensor2, value) -> bool:
    """self += value * tensor1 (ufunc) tensor2 on the ready arrays (torch's order of
    rounding); False when they are not ready."""
    arrays = _ready_inplace(self, tensor1, tensor2)
    if arrays is None:
        return False
    s, a, b = arrays
    with np.errstate(all="ignore"):
        term = np.empty_like(s)
        np.multiply(_value(value, self._dtype), a, out=term)
        ufunc(term, b, out=term)
        s += term
    return True


def addcmul_(self, tensor1, tensor2, value=1):
    if _addc_(np.multiply, self, tensor1, tensor2, value):
        return self
    MB.addcmul_(self, tensor1, tensor2, value)
    return _into_self(self, addcmul(self, tensor1, tensor2, value))


def addcdiv(self, tensor1, tensor2, value=1):
    lay = MB.addcdiv_layout(self, tensor1, tensor2, value)
    cdt = _compute_dtype(lay._dtype)
    v = _value(value, cdt)
    return _run(lambda s, a, b: s + v * a / b, lay, (self, tensor1, tensor2), cdt)


def addcdiv_(self, tensor1, tensor2, value=1):
    if _addc_(np.divide, self, tensor1, tensor2, value):
        return self
    MB.addcdiv_(self, tensor1, tensor2, value)
    return _into_self(self, addcdiv(self, tensor1, tensor2, value))
