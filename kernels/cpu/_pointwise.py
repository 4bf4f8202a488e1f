"""The pointwise machinery of the CPU backend, shared by the unary, binary and activation
families: operands as NumPy arrays in the computation dtype (float16/bfloat16 widened like
torch's opmath), the fast paths (one ufunc call when NumPy's result already is torch's),
and the general path that writes into the Meta kernel's layout, so CPU and Meta always
agree on shape, dtype and strides. The kernels themselves live in the family modules
(binary.py, unary.py, activation.py).

    >>> _binary(np.add, None)(from_array(np.ones(3, np.float32)), 2).numpy()
    array([3., 3., 3.], dtype=float32)
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ember._accel import speedups
from ember.core import dtype as D
from ember.core.alloc import empty_cpu
from ember.core.tensor import Tensor, contiguous_strides, from_array
from ember.kernels.common import _pointwise as P

from ._compiled import compiled

_quiet = np.errstate  # ops that may divide by zero / overflow run under _quiet(all="ignore")
_HALF = P.HALF
_F32_MAX = float(np.finfo(np.float32).max)
_DOUBLE = (D.float64, D.complex128)
_ONE = 1  # (`alpha is not _ONE`: the common alpha=1 skips the comparison)

try:  # NumPy 2 keeps its floating-point error state in a context variable: set it directly
    from numpy._core._ufunc_config import _extobj_contextvar as _ERRSTATE
    from numpy._core._ufunc_config import _make_extobj
    _IGNORE_ALL = _make_extobj(all="ignore")
except ImportError:  # (another NumPy layout: np.errstate below)
    _ERRSTATE = None


def quiet_call(fn, *args, **kwargs):
    """`fn(*args, **kwargs)` with NumPy's floating-point warnings off: what
    `with np.errstate(all="ignore")` does, without building that object on every call
    (a kernel's hot path)."""
    if _ERRSTATE is None:
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    token = _ERRSTATE.set(_IGNORE_ALL)
    try:
        return fn(*args, **kwargs)
    finally:
        _ERRSTATE.reset(token)


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
    to `half` too (through float, like c10::Half(double)), except a number or a one-element
    tensor given as the last operand of the ops whose kernels read it as one float from its
    own dtype (`exact_other`: mul, div; float16 ones / int32 [70000] is 1.43e-05, not 0),
    so the result is rounded once."""
    args = []
    last = len(operands) - 1
    with _quiet(over="ignore"):
        for i, x in enumerate(operands):
            if exact_other and i == last and isinstance(x, Tensor) and x.numel() == 1 and \
                    not x.is_complex():
                args.append(x._np.astype(np.float32))
                continue
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


def _mark_contig(t) -> bool:
    """Marks `t._np` as C-contiguous (after a flags check found it so); see from_array.
    Only when t's strides are exactly the contiguous ones: NumPy's flag ignores size-1
    dims (and empty arrays), whose strides still order torch's result dims when the
    operands broadcast (`(2,1,1)` strided `(1,2,2)` times a `(1,2,1)`: strides (1, 2, 4))."""
    if t.stride() != contiguous_strides(t._shape):
        return False
    t._contig = t._np
    return True


def exactly_contiguous(t) -> bool:
    """Whether t's array is C-contiguous with exactly the contiguous strides (see
    _mark_contig), remembered in `t._contig`."""
    a = t._np
    return a is not None and (t._contig is a or a.flags.c_contiguous and _mark_contig(t))


def _scalar_fast(self, other) -> bool:
    """Whether `ufunc(self._np, other)` already has torch's result for a Python number:
    NumPy 2 treats Python numbers as weak like torch, except that it refuses ints out of
    the dtype's range (torch wraps them) and computes int-vs-float in float64."""
    t = other.__class__
    dt = self._dtype
    cat = dt.category
    if dt is D.float16 or dt is D.bfloat16:  # torch's opmath rounding: see _opmath_args
        return False
    if t is float:  # (NumPy warns when the number overflows float32: torch gives inf)
        return cat >= D.FLOAT and (dt in _DOUBLE or -_F32_MAX <= other <= _F32_MAX)
    if t is complex:  # (complex128, or a complex64 number)
        return cat == D.COMPLEX and (dt is D.complex128 or
                                     max(abs(other.real), abs(other.imag)) <= _F32_MAX)
    if t is int and cat != D.BOOL:
        if cat >= D.FLOAT:
            return D.check_int_range(other) is other
        info = np.iinfo(self._np.dtype)
        return info.min <= other <= info.max
    return False


_PROMOTED: dict = {}


def promoted(a: D.dtype, b: D.dtype) -> D.dtype:
    """D.promote_types(a, b), cached per dtype pair (the operands of a binary op)."""
    r = _PROMOTED.get((a, b))
    if r is None:
        r = _PROMOTED[a, b] = D.promote_types(a, b)
    return r


def _is_complex_call(self, other) -> bool:
    """Whether a binary op of `self` and `other` computes in a complex dtype."""
    return self._dtype.is_complex or other.__class__ is complex or \
        isinstance(other, Tensor) and other._dtype.is_complex


def _complex_routed(kernel, complex_kernel):
    """`kernel`, except for complex operands, which `complex_kernel()` (built on first
    use: numba's loops of _complex_loop.py) computes."""
    made = []

    def routed(self, other, *alpha):
        if _is_complex_call(self, other):
            if not made:
                made.append(complex_kernel())
            return made[0](self, other, *alpha)
        return kernel(self, other, *alpha)
    routed.__name__ = routed.__qualname__ = kernel.__name__
    routed.__doc__ = kernel.__doc__
    return routed


def _binary(ufunc, layout, quiet=False, float_only=False, exact_other=False,
            min_category=D.BOOL, scaled=None, complex_loop=None):
    """A functional kernel `k(self, other)` for a NumPy ufunc.

    Fast path: the ufunc straight on the ready arrays when NumPy's result already is
    torch's: both operands contiguous with one dtype, or one of them a Python number or
    0-d tensor of no higher category (a "wrapped number"), and a result of at least
    `min_category` (bool subtraction is an error; true division of integers computes in
    float). Else `layout` (shape, strides, dtype and torch's errors) and the general path.
    `quiet`: NumPy's floating-point warnings off; `float_only`: the result is floating
    (true division), computed in it; `exact_other`: see _opmath_args.
    `scaled(self, other, alpha)` makes it `k(self, other, alpha=1)` (add, sub): that
    function runs for any alpha but 1. `complex_loop`: the name of the _complex_loop.py
    ufunc complex operands take (torch's roundings) instead of `ufunc`.
    """
    if complex_loop is not None:
        def complex_kernel():
            return _binary(getattr(compiled("_complex_loop"), complex_loop), layout, quiet,
                           float_only, exact_other, min_category, scaled)
        kernel = _complex_routed(_python_binary(ufunc, layout, quiet, float_only, exact_other,
                                                min_category, scaled), complex_kernel)
    else:
        kernel = _python_binary(ufunc, layout, quiet, float_only, exact_other, min_category,
                                scaled)
    if speedups is None or quiet:
        return kernel
    # the first fast paths in C (same operands, same result), the rest in `kernel`: two
    # tensors of one dtype, or a float `other` where _scalar_fast takes it (complex ones
    # in `kernel` when it routes them)
    real = complex_loop is not None
    fast = speedups.FastBinary(ufunc, kernel, tuple(d for d in D.ALL_DTYPES
                                                    if d.category >= min_category and
                                                    not (real and d.is_complex)),
                               _DOUBLE[:1] if real else _DOUBLE,
                               (D.float32,) if real else (D.float32, D.complex64))
    fast.__name__ = fast.__qualname__ = ufunc.__name__
    fast.__module__, fast.__doc__ = kernel.__module__, kernel.__doc__
    return fast


def _python_binary(ufunc, layout, quiet, float_only, exact_other, min_category, scaled):
    """_binary's kernel in Python."""
    if float_only:
        min_category = D.FLOAT

    def kernel(self, other, alpha=1):
        if scaled is not None and alpha is not _ONE and (alpha != 1 or alpha is True):
            return scaled(self, other, alpha)
        a = self._np
        dt = self._dtype
        # (`t._contig is a`: the array is known C-contiguous; no flags check needed)
        if other.__class__ is Tensor or isinstance(other, Tensor):  # (nn.Parameter too)
            b = other._np
            if a is None or b is None:
                x = None
            elif not ((self._contig is a or a.flags.c_contiguous and _mark_contig(self)) and
                      (other._contig is b or b.flags.c_contiguous and _mark_contig(other))):
                # slices of one dtype and shape: NumPy's C-order result is torch's layout
                x = _row_major_pair(ufunc, self, other, dt, min_category, quiet)
                if x is not None:
                    return x
            elif other._dtype is dt:
                x, y = a, b
            elif self._shape and other._shape and dt.category >= min_category and \
                    other._dtype.category >= min_category:  # both in the promoted dtype
                dt = promoted(dt, other._dtype)
                x, y = (None, None) if dt in _HALF else (_arr(self, dt), _arr(other, dt))
            elif not other._shape and self._shape and \
                    other._dtype.category <= dt.category and _scalar_fast(self, b.item()):
                x, y = a, b.item()
            elif not self._shape and other._shape and \
                    dt.category <= other._dtype.category and _scalar_fast(other, a.item()):
                dt, x, y = other._dtype, a.item(), b
            else:
                x = None
        elif exactly_contiguous(self) and _scalar_fast(self, other):
            x, y = a, other
        else:
            x = None
        if x is not None and dt.category >= min_category:
            try:  # C-contiguous operands (or numbers): a C-contiguous result
                return from_array(quiet_call(ufunc, x, y) if quiet else ufunc(x, y), dt, True)
            except ValueError:  # shapes do not broadcast: torch's error from the layout
                layout(self, other)
                raise
        out = layout(self, other)
        compute = out._dtype if out._dtype.category >= D.FLOAT or not float_only else None
        return _general(ufunc, out, (self, other), compute_dt=compute,
                        exact_other=exact_other)
    kernel.__name__ = kernel.__qualname__ = ufunc.__name__
    return kernel


def _row_major_pair(ufunc, self, other, dt, min_category, quiet):
    """`ufunc` straight on two non-contiguous operands of one dtype and shape led by a
    row-major slice (P.row_major_view), when NumPy's result is in C order, torch's layout
    there; else None (the general path)."""
    if other._dtype is not dt or other._shape != self._shape or dt in _HALF or \
            dt.category < min_category or not P.row_major_view(self):
        return None
    r = quiet_call(ufunc, self._np, other._np) if quiet else ufunc(self._np, other._np)
    return from_array(r, dt, True) if r.flags.c_contiguous and r.dtype == dt.np else None


def _general(ufunc, out_meta, operands, compute_dt=None, exact_other=False):
    """Slow path: allocate the Meta layout, compute in the promoted dtype (float16 and
    bfloat16 in float32, see _opmath_args), write into it. NumPy's warnings are muted:
    overflow gives inf or wraps like torch, and torch's errors are raised before."""
    _check_devices(*operands)
    dt = out_meta._dtype
    cdt = compute_dt or (D.result_type(*operands) if len(operands) > 1 else operands[0]._dtype)
    if cdt.category < dt.category and dt.category >= D.FLOAT:
        cdt = dt
    out = empty_cpu(out_meta._shape, dt, out_meta._stride)
    if cdt in _HALF:
        args, np_cdt = _opmath_args(operands, cdt, exact_other), np.float32
    else:
        args, np_cdt = [_arr(x, cdt) for x in operands], cdt.np
    quiet_call(_compute_into, ufunc, args, out._np, np_cdt)
    return out


def _compute_into(ufunc, args, o, np_cdt):
    if isinstance(ufunc, np.ufunc) and (o.dtype == np_cdt or o.dtype == np.bool_):
        ufunc(*args, out=o, casting="unsafe")
    else:
        np.copyto(o, ufunc(*args), casting="unsafe")


def _inplace(ufunc, meta, functional, quiet=False, float_result=False, complex_loop=None):
    """An in-place kernel `k_(self, other)`: ufunc(out=self) when NumPy's result is torch's,
    else torch's checks and the `functional` kernel's result copied into self.
    `float_result` ops (true division) keep an integral self on the checked slow path;
    `complex_loop`: as for _binary (a complex self takes that ufunc; a real self with a
    complex other fails torch's checks on the slow path)."""
    complex_ufunc = None if complex_loop is None else functools.cache(
        lambda: getattr(compiled("_complex_loop"), complex_loop))

    def kernel(self, other):
        a = self._np
        if a is not None and (not float_result or self._dtype.category >= D.FLOAT):
            if isinstance(other, Tensor):
                fast = other._dtype is self._dtype and other._shape == self._shape and \
                    other._np is not None
                b = other._np
            else:
                fast, b = _scalar_fast(self, other), other
            if fast:
                f = ufunc if complex_ufunc is None or not self._dtype.is_complex else \
                    complex_ufunc()
                if quiet:
                    quiet_call(f, a, b, out=a)
                else:
                    f(a, b, out=a)
                return self
        meta(self, other)
        if a is None:
            raise RuntimeError(f"expected a CPU tensor, got {self._device}")
        np.copyto(a, functional(self, other)._np, casting="unsafe")
        return self
    return kernel


def _is_nan(x) -> bool:
    """A Python number that is NaN (clamp's bounds; a tensor bound is not checked here)."""
    return x.__class__ is float and math.isnan(x)


def _np_strides(t) -> tuple:
    isz = t._dtype.itemsize
    return tuple(s * isz for s in t._stride)


def _clamp_into(out_np, a, lo, hi, dt):
    lo, hi = P.real_bounds(lo, hi)
    if lo is not None and hi is not None and _is_nan(lo) | _is_nan(hi):
        out_np[...] = P.scalar_arg(float("nan"), dt)  # torch fills NaN, converting no bound
        return
    lo = None if lo is None else _arr(P.scalar_arg(lo, dt), dt)
    hi = None if hi is None else _arr(P.scalar_arg(hi, dt), dt)
    if lo is not None and hi is not None:
        # torch: min(max(x, lo), hi), NaN in x propagates
        np.minimum(np.maximum(a, lo), hi, out=out_np, casting="unsafe")
    elif lo is not None:
        np.maximum(a, lo, out=out_np, casting="unsafe")
    else:
        np.minimum(a, hi, out=out_np, casting="unsafe")


def _compute_dtype(dt):
    return D.float32 if dt in _HALF else dt


def _run(fn, layout, operands, cdt=None):
    """fn(*arrays) broadcast into a fresh tensor of `layout` (casting unsafely). Computed
    in `cdt` (by default the layout dtype's opmath type); a float result computed wider
    takes its operands cast to the result dtype first, as torch's TensorIterator (an int32
    2**31 - 1 is inf in a float16 result)."""
    _check_devices(*operands)
    dt = layout._dtype
    cdt = cdt or _compute_dtype(dt)
    if dt in _HALF and (cdt is D.float32 or cdt is D.float64):
        args = _opmath_args(operands, dt)
        if cdt is D.float64:
            args = [a.astype(np.float64) for a in args]
    elif dt is D.float32 and cdt is D.float64:   # operands cast to the result dtype first
        args = [np.asarray(_arr(x, dt), np.float32).astype(np.float64) for x in operands]
    else:
        args = [_arr(x, cdt) for x in operands]
    r = quiet_call(fn, *args)
    if isinstance(r, np.ndarray) and r.flags.owndata and r.flags.c_contiguous and \
            r.dtype == dt.np and r.shape == tuple(layout._shape) and \
            tuple(layout._stride) == contiguous_strides(r.shape):
        return from_array(r, dt, True)  # NumPy's result already has the layout: no copy
    out = empty_cpu(layout._shape, dt, layout._stride)
    quiet_call(np.copyto, out._np, r, casting="unsafe")
    return out


def _fast_same_shape(fn, self, other, quiet=True):
    """`fn` straight on the ready arrays when NumPy's result already is torch's: two
    contiguous float32/float64 tensors of one dtype and shape. None otherwise. Narrower than
    _fast on purpose: no wrapped numbers and no half dtypes, whose operand
    rounding these ops must take from `_run`."""
    if not (isinstance(other, Tensor) and isinstance(self, Tensor)):
        return None
    dt = self._dtype
    a, b = self._np, other._np
    if dt is not other._dtype or (dt is not D.float32 and dt is not D.float64) or \
            a is None or b is None or self._shape != other._shape or \
            not (a.flags.c_contiguous and b.flags.c_contiguous):
        return None
    return from_array(quiet_call(fn, a, b) if quiet else fn(a, b), dt, True)
