"""Reductions on CPU tensors with NumPy: sum, mean, prod, amax/amin, max/min (full, along
a dim with indices, elementwise), argmax/argmin, var/std (+ with the mean), logsumexp,
linalg_vector_norm, all/any, count_nonzero, and the scans cumsum/cumprod.

Results are fresh C-contiguous arrays (NumPy would otherwise follow a transposed
input's memory order). Like torch's CPU kernels, float16/bfloat16 sums and means
accumulate in float32 and cast back.

    >>> ember.tensor([[1, 2], [3, 4]]).sum(0)
    tensor([4, 6])
"""
import math
import warnings

import numpy as np

from ember.core import dtype as D
from ember.core.factory_args import checked_scalar, real_scalar
from ember.core.tensor import from_array
from ember.kernels.common._errors import not_implemented_for

from ..meta import reduction as _meta
from .random import linspace as _linspace

_F32 = np.dtype(np.float32)


def _acc_dtype(dt):
    """The NumPy dtype a reduction producing `dt` accumulates in."""
    return _F32 if dt is D.float16 or dt is D.bfloat16 else dt.np


def _add_reduce(a, axis, keepdim, out_shape, acc):
    """np.add.reduce of `a` (cast to `acc` on the fly when exact) into a contiguous array."""
    if a.dtype != acc and not np.can_cast(a.dtype, acc, "safe"):
        a = a.astype(acc)
    out = np.empty(out_shape, acc)
    np.add.reduce(a, axis=axis, dtype=acc, out=out, keepdims=keepdim)
    return out


def sum(self, dtype):
    """`x.sum(dtype=None)`: a 0-d tensor (int64 for bool/integer inputs)."""
    dt = self._dtype
    if dtype is None and (dt is D.float32 or dt is D.float64):  # the common case, one call
        return from_array(np.asarray(np.add.reduce(self._np, axis=None)), dt)
    return sum_dim(self, None, False, dtype)


def sum_dim(self, dim, keepdim, dtype):
    """`x.sum(dim, keepdim, dtype=None)`. The input is cast to the result dtype first
    (as torch does), so `[1.5, 2.5].sum(dtype=int32)` is 3."""
    a = self._np
    dt = self._dtype
    if dtype is None and (dt is D.float32 or dt is D.float64) and a.flags.c_contiguous \
            and a.ndim and a.size:
        # the common case (a bias gradient each training step): one NumPy call, whose
        # result for a C-contiguous input is a fresh C-contiguous array (NumPy calls any
        # empty array C-contiguous, whatever its strides: not those)
        axis = _meta.reduce_dims(self._shape, dim)
        return from_array(np.add.reduce(a, axis=axis, keepdims=keepdim), dt)
    axis, shape = _meta.reduce_layout(self, dim, keepdim)
    dt = _meta.sum_dtype(dt, dtype)
    if a.dtype != dt.np and not np.can_cast(a.dtype, dt.np, "safe"):
        a = a.astype(dt.np)
    out = _add_reduce(a, axis, keepdim, shape, _acc_dtype(dt))
    if out.dtype != dt.np:
        out = out.astype(dt.np)
    return from_array(out, dt)


def mean(self, dtype):
    return mean_dim(self, None, False, dtype)


def mean_dim(self, dim, keepdim, dtype):
    """`x.mean(dim, keepdim, dtype=None)`: sum (float32 for half types) / count."""
    dt = _meta.mean_dtype(self._dtype, dtype)
    axis, shape = _meta.reduce_layout(self, dim, keepdim)
    count = 1
    for d in axis:
        count *= self._shape[d]
    out = _add_reduce(self._np, axis, keepdim, shape, _acc_dtype(dt))
    with np.errstate(invalid="ignore", divide="ignore"):  # an empty mean is nan, no warning
        np.true_divide(out, count, out=out)
    if out.dtype != dt.np:
        out = out.astype(dt.np)
    return from_array(out, dt)


def amax(self, dim, keepdim):
    """`x.amax(dim=[], keepdim=False)`: the maximum over `dim` (all dims for []); NaN wins."""
    axis, shape = _meta.reduce_layout(self, dim, keepdim)
    _meta.check_no_identity(self, "amax", dim)
    out = np.empty(shape, self._dtype.np)
    np.maximum.reduce(self._np, axis=axis, out=out, keepdims=keepdim)
    return from_array(out, self._dtype)


def argmax(self, dim, keepdim):
    """`x.argmax(dim=None, keepdim=False)`: int64 index of the first maximum (NaN counts as
    the maximum); dim=None indexes the flattened tensor."""
    d, shape = _meta.argmax_layout(self, dim, keepdim)
    a = self._np
    if d is None or a.ndim == 0:
        return from_array(np.full(shape, np.argmax(a), np.int64), D.int64)
    out = np.empty(shape, np.int64)
    np.argmax(a, axis=d, out=out, keepdims=keepdim)
    return from_array(out, D.int64)


# --- reduction: prod, amin, max/min, argmin, var/std, logsumexp, norms,
# all/any, cumsum/cumprod, count_nonzero ---------------------------------------------------
_F64 = np.dtype(np.float64)
_C128 = np.dtype(np.complex128)
_INF = float("inf")


def _as(a, npdt):
    return a if a.dtype == npdt else a.astype(npdt)


def _c(a, npdt=None):
    """A C-contiguous array of dtype `npdt` (a copy only when needed; 0-d stays 0-d)."""
    return np.asarray(a, dtype=npdt, order="C")


def _count(shape, axis) -> int:
    n = 1
    for d in axis:
        n *= shape[d]
    return n


def prod(self, dtype):
    """`x.prod(dtype=None)`: a 0-d product (int64 for bool/integer inputs); empty gives 1."""
    return prod_dim(self, None, False, dtype)


def prod_dim(self, dim, keepdim, dtype):
    """`x.prod(dim, keepdim, dtype=None)`: the input is cast to the result dtype first;
    float16/bfloat16 multiply in float32, integers wrap like torch."""
    axis, shape = _meta.reduce_layout(self, dim, keepdim)
    dt = _meta.sum_dtype(self._dtype, dtype)
    acc = _acc_dtype(dt)
    out = np.empty(shape, acc)
    with np.errstate(all="ignore"):
        np.multiply.reduce(_as(self._np, dt.np), axis=axis, dtype=acc, out=out, keepdims=keepdim)
    return from_array(_as(out, dt.np), dt)


def amin(self, dim, keepdim):
    """`x.amin(dim=[], keepdim=False)`: the minimum over `dim` (all dims for []); NaN wins."""
    axis, shape = _meta.reduce_layout(self, dim, keepdim)
    _meta.check_no_identity(self, "amin", dim)
    out = np.empty(shape, self._dtype.np)
    np.minimum.reduce(self._np, axis=axis, out=out, keepdims=keepdim)
    return from_array(out, self._dtype)


def _full_extreme(self, name, ufunc):
    _meta.check_no_identity(self, name, None)
    a = self._np
    return from_array(np.array(ufunc.reduce(a, axis=None) if a.ndim else a, copy=True),
                      self._dtype)


def max_all(self):
    """`x.max()`: the largest element as a 0-d tensor (NaN if any)."""
    return _full_extreme(self, "max", np.maximum)


def min_all(self):
    """`x.min()`: the smallest element as a 0-d tensor (NaN if any)."""
    return _full_extreme(self, "min", np.minimum)


def _dim_extreme(self, dim, keepdim, name, argf):
    """(values, indices) along one dim: the first extreme (a NaN counts as the extreme)."""
    d, shape = _meta.one_dim_layout(self, dim, keepdim, name)
    a = self._np
    if a.ndim == 0:
        return from_array(a.copy(), self._dtype), from_array(np.zeros((), np.int64), D.int64)
    idx = argf(a, axis=d, keepdims=True)
    values = np.take_along_axis(a, idx, axis=d)
    return (from_array(_c(values.reshape(shape)), self._dtype),
            from_array(_c(idx.reshape(shape), np.int64), D.int64))


def max_dim(self, dim, keepdim):
    """`x.max(dim, keepdim=False)` -> (values, indices)."""
    return _dim_extreme(self, dim, keepdim, "max", np.argmax)


def min_dim(self, dim, keepdim):
    """`x.min(dim, keepdim=False)` -> (values, indices)."""
    return _dim_extreme(self, dim, keepdim, "min", np.argmin)


def _other(ufunc):
    from ..meta.binary import mul_layout
    from ._pointwise import _binary
    return _binary(ufunc, mul_layout)


max_other = _other(np.maximum)   # max(x, other): elementwise, promoted, NaN propagates
min_other = _other(np.minimum)


def argmin(self, dim, keepdim):
    """`x.argmin(dim=None, keepdim=False)`: int64 index of the first minimum (NaN counts as
    the minimum); dim=None indexes the flattened tensor."""
    d, shape = _meta.argmax_layout(self, dim, keepdim, name="argmin")
    a = self._np
    if d is None or a.ndim == 0:
        return from_array(np.full(shape, np.argmin(a), np.int64), D.int64)
    out = np.empty(shape, np.int64)
    np.argmin(a, axis=d, out=out, keepdims=keepdim)
    return from_array(out, D.int64)


def _var_mean(self, dim, correction, keepdim, name, op):
    """(variance, mean) arrays computed in float64, torch's degrees of freedom:
    max(0, N - correction) (a zero divisor gives inf or nan, as in torch, which warns; an
    empty reduction gives nan, whatever the correction)."""
    _meta.var_dtype(self, name)
    axis, shape = _meta.reduce_layout(self, dim, keepdim)
    c = 1.0 if correction is None else real_scalar(correction)
    a = _as(self._np, _C128 if self._dtype.is_complex else _F64)
    n = _count(self._shape, axis)
    if n - c <= 0:
        warnings.warn(f"{op}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=2)
    with np.errstate(all="ignore"):
        mean = np.add.reduce(a, axis=axis, keepdims=True) / n
        dev = a - mean
        sq = (dev * dev.conj()).real if a.dtype == _C128 else dev * dev
        # the corrected two-pass sum: minus (sum dev)^2 / n, the rounding of the mean, so
        # equal values have variance exactly 0 (as torch's Welford: std's gradient there is
        # its masked 0, not the quotient of two rounding errors)
        drift = np.add.reduce(dev, axis=axis, keepdims=True)
        drift = (drift * drift.conj()).real if a.dtype == _C128 else drift * drift
        # (never below 0: Cauchy-Schwarz, but for rounding)
        ss = np.maximum(np.add.reduce(sq, axis=axis, keepdims=True) - drift / n, 0.0)
        var = ss / (max(0.0, n - c) if n else np.nan)
    return var.reshape(shape), mean.reshape(shape)


def var_correction(self, dim, correction, keepdim):
    """`x.var(dim=None, *, correction=1, keepdim=False)`."""
    var, _ = _var_mean(self, dim, correction, keepdim, "std and var", "var")
    dt = self._dtype.to_real()
    return from_array(_c(var, dt.np), dt)


def std_correction(self, dim, correction, keepdim):
    """`x.std(dim=None, *, correction=1, keepdim=False)`: the square root of var."""
    var, _ = _var_mean(self, dim, correction, keepdim, "std and var", "std")
    dt = self._dtype.to_real()
    return from_array(_c(np.sqrt(var), dt.np), dt)


def var_mean_correction(self, dim, correction, keepdim):
    var, mean = _var_mean(self, dim, correction, keepdim, "var_mean", "var_mean")
    dt, rdt = self._dtype, self._dtype.to_real()
    return from_array(_c(var, rdt.np), rdt), from_array(_c(mean, dt.np), dt)


def std_mean_correction(self, dim, correction, keepdim):
    var, mean = _var_mean(self, dim, correction, keepdim, "std_mean", "std_mean")
    dt, rdt = self._dtype, self._dtype.to_real()
    return from_array(_c(np.sqrt(var), rdt.np), rdt), from_array(_c(mean, dt.np), dt)


def logsumexp(self, dim, keepdim):
    """`log(sum(exp(x), dim))`, stabilised by the max (infinite maxima count as 0);
    integers and bool give the default float dtype, an empty reduction -inf."""
    _meta.check_logsumexp_dims(self, dim, keepdim)
    dt = _meta.logsumexp_dtype(self)
    axis, shape = _meta.reduce_layout(self, dim, keepdim)
    a = _as(self._np, _acc_dtype(dt))
    if a.size == 0:
        return from_array(np.full(shape, -np.inf, dt.np), dt)
    with np.errstate(all="ignore"):
        # (complex: the largest real part, as torch: the log's imaginary part stays in
        # (-pi, pi], not the max's own)
        m = np.maximum.reduce(a.real if a.dtype.kind == "c" else a, axis=axis, keepdims=True)
        m = np.where(np.isinf(m), 0, m).astype(a.dtype)
        out = np.log(np.add.reduce(np.exp(a - m), axis=axis, keepdims=True)) + m
    return from_array(_c(out.reshape(shape), dt.np), dt)


def linalg_vector_norm(self, ord, dim, keepdim, dtype):
    """`linalg.vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None)`: inf/-inf
    are max/min of |x|, 0 counts the non-zeros, else (sum |x|^ord)^(1/ord)."""
    axis, shape, dt = _meta.vector_norm_layout(self, ord, dim, keepdim, dtype)
    acc = _acc_dtype(dt)
    if self._dtype.is_complex:      # |z| in the (complex) precision of the result
        acc = np.result_type(acc, np.complex64)
    a = np.abs(_as(self._np, acc))
    o = float(ord)
    kw = {"axis": axis, "keepdims": keepdim}
    with np.errstate(all="ignore"):
        if o != 0 and a.size == math.prod(shape):  # one element per result: |x| (torch's)
            r = a
        elif o == _INF:
            r = np.maximum.reduce(a, **kw)
        elif o == -_INF:
            r = np.minimum.reduce(a, **kw)
        elif o == 0 or not a.size:  # (an empty input is zeros, as torch fills it, any ord)
            r = np.add.reduce(a != 0, dtype=a.dtype, **kw)
        elif o == 1:
            r = np.add.reduce(a, **kw)
        elif o == 2:
            r = np.sqrt(np.add.reduce(a * a, **kw))
        else:  # (ord and 1 / ord in the accumulation dtype: 1e39 is inf in float32)
            p = a.dtype.type(o)
            r = np.power(np.add.reduce(np.power(a, p), **kw), a.dtype.type(1) / p)
    return from_array(_c(np.asarray(r).reshape(shape), dt.np), dt)


def _all_any(self, dim, keepdim, ufunc):
    axis, shape = _meta.all_any_layout(self, dim, keepdim)
    a = self._np
    if a.dtype != np.bool_:
        a = a != 0
    r = ufunc.reduce(a, axis=axis, keepdims=keepdim) if axis else a
    dt = _meta.all_any_dtype(self)
    return from_array(np.array(np.asarray(r).reshape(shape), dt.np, order="C"), dt)  # a copy


def all_all(self):
    """`x.all()`: bool (uint8 for uint8 inputs); NaN counts as true."""
    return _all_any(self, None, False, np.logical_and)


def all_dim(self, dim=None, keepdim=False):
    """`x.all(dim, keepdim=False)`: dim an int or a list (None: all dims, []: none)."""
    return _all_any(self, dim, keepdim, np.logical_and)


def any_all(self):
    return _all_any(self, None, False, np.logical_or)


def any_dim(self, dim=None, keepdim=False):
    return _all_any(self, dim, keepdim, np.logical_or)


def _cumulative(self, d, dt, ufunc):
    """ufunc.accumulate along `d` in `dt` (half types accumulate in float32)."""
    a = _as(self._np, dt.np)
    if a.ndim == 0:
        return np.array(a, copy=True)
    acc = _acc_dtype(dt)
    out = np.empty(a.shape, acc)
    with np.errstate(all="ignore"):
        ufunc.accumulate(a, axis=d, dtype=acc, out=out)
    return _as(out, dt.np)


def _cum(op, ufunc):
    def kernel(self, dim, dtype):
        d, dt = _meta.cum_layout(op, self, dim, dtype)
        _meta.check_cum_loop(op, self, dt)
        return from_array(_cumulative(self, d, dt, ufunc), dt)
    return kernel


def _cum_(op, ufunc, meta):
    def kernel(self, dim, dtype):
        meta(self, dim, dtype)
        _meta.check_cum_loop(op, self, self._dtype)
        d = _meta.wrap_dims((dim,), len(self._shape))[0]
        np.copyto(self._np, _cumulative(self, d, self._dtype, ufunc), casting="unsafe")
        return self
    return kernel


cumsum = _cum("cumsum", np.add)  # int64 for bool/integer inputs unless dtype= is given
cumprod = _cum("cumprod", np.multiply)
cumsum_ = _cum_("cumsum", np.add, _meta.cumsum_)
cumprod_ = _cum_("cumprod", np.multiply, _meta.cumprod_)


def count_nonzero(self, dim):
    """`count_nonzero(x, dim=None)` (an int, or a list where [] means all dims): int64."""
    if isinstance(dim, (list, tuple)) and not dim:
        dim = None
    axis, shape = _meta.reduce_layout(self, dim, False)
    out = np.empty(shape, np.int64)
    np.add.reduce(self._np != 0, axis=axis, dtype=np.int64, out=out)
    return from_array(out, D.int64)


# --- issue 22: nansum, median/nanmedian, kthvalue, mode, cummax/cummin, logcumsumexp,
# aminmax, histc, bincount, isin -----------------------------------------------------------
def nansum(self, dim=None, keepdim=False, dtype=None):
    """sum with NaNs counted as 0 (float16/bfloat16 accumulate in float32). Like torch,
    NaNs become 0 before the cast to `dtype` (nansum([nan, 0.6], dtype=bool) is False)."""
    dt = _meta.sum_dtype(self._dtype, dtype)
    axis, shape = _meta.reduce_layout(self, dim, keepdim)
    a = self._np
    if self._dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    if self._dtype.is_floating_point:
        if dt.is_complex and a.size:  # (an empty input is zeroed without the kernel)
            raise not_implemented_for("nansum_cpu", dt)
        a = np.where(np.isnan(a), a.dtype.type(0), a)
    a = _as(a, dt.np)
    return from_array(_c(_add_reduce(a, axis, keepdim, shape, _acc_dtype(dt)), dt.np), dt)


def _rows(a, d):
    """`a` with dim `d` moved last, as a 2-d (rows, n) array, and the moved shape."""
    m = np.moveaxis(a, d, -1)
    return m.reshape(-1, m.shape[-1]), m.shape[:-1]


def _sorted_pick(a, d, position):
    """(values, indices) of the element at sorted `position(sorted_rows, n)` (one index per
    row) of each slice along `d`; a stable sort with NaN last, like torch's ties."""
    rows, lead = _rows(a, d)
    keys = rows if rows.dtype.kind in "biuf" else rows.astype(np.float32)  # bfloat16's NaNs
    order = np.argsort(keys, axis=-1, kind="stable")
    pos = position(np.take_along_axis(keys, order, axis=-1), rows.shape[-1])[:, None]
    srt = np.take_along_axis(rows, order, axis=-1)
    return (np.take_along_axis(srt, pos, -1).reshape(lead),
            np.take_along_axis(order, pos, -1).reshape(lead))


def _median_position(ignore_nan):
    """The lower median's sorted position: the first NaN where a slice has one (median), or
    the lower median of the non-NaN values (nanmedian; position 0 when all are NaN)."""
    def position(srt, n):
        valid = n - np.isnan(srt).sum(-1) if srt.dtype.kind == "f" else np.full(len(srt), n)
        if ignore_nan:
            return np.maximum(valid - 1, 0) // 2
        return np.where(valid < n, valid, (n - 1) // 2)
    return position


def _selection(self, dim, keepdim, position, name, kernel=None):
    d, shape = _meta.selection_layout(self, dim, keepdim, name, kernel)
    a = self._np
    if a.ndim == 0:
        return from_array(a.copy(), self._dtype), from_array(np.zeros((), np.int64), D.int64)
    if a.size == 0:
        return (from_array(np.empty(shape, a.dtype), self._dtype),
                from_array(np.empty(shape, np.int64), D.int64))
    v, i = _sorted_pick(a, d, position)
    if keepdim:
        v, i = np.expand_dims(v, d), np.expand_dims(i, d)
    return from_array(_c(v), self._dtype), from_array(_c(i, np.int64), D.int64)


def _median_all(ignore_nan):
    def kernel(self):
        _meta.median_all(self)
        a = self._np.reshape(1, -1)
        if a.size == 0:
            return from_array(np.full((), np.nan, self._dtype.np), self._dtype)
        v, _ = _sorted_pick(a, 1, _median_position(ignore_nan))
        return from_array(_c(v.reshape(())), self._dtype)
    return kernel


median_all = _median_all(False)
nanmedian_all = _median_all(True)


def median_dim(self, dim, keepdim=False):
    """(values, indices) of the lower median along dim; NaN (the first) where a slice has one."""
    return _selection(self, dim, keepdim, _median_position(False), "median", "median_out")


def nanmedian_dim(self, dim, keepdim=False):
    return _selection(self, dim, keepdim, _median_position(True), "median", "median_out")


def kthvalue(self, k, dim=-1, keepdim=False):
    """(values, indices) of the k-th smallest along dim (NaN counts as the largest)."""
    _meta.kthvalue(self, k, dim, keepdim)
    return _selection(self, dim, keepdim, lambda srt, n: np.full(len(srt), k - 1), "kthvalue")


def _mode_rows(rows):
    """Per row: the most frequent value (the smallest of the most frequent; NaNs never equal)
    and the index of its last occurrence."""
    values, indices = [], []
    for row in rows:
        order = np.argsort(row, kind="stable")
        srt = row[order]
        starts = np.flatnonzero(np.r_[True, srt[1:] != srt[:-1]])
        counts = np.diff(np.r_[starts, len(srt)])
        best = int(np.argmax(counts))
        run = order[starts[best]:starts[best] + counts[best]]
        values.append(srt[starts[best]])
        indices.append(run.max())
    return np.array(values, rows.dtype), np.array(indices, np.int64)


def mode(self, dim=-1, keepdim=False):
    d, shape = _meta.selection_layout(self, dim, keepdim, "mode")
    a = self._np
    if a.ndim == 0:
        return from_array(a.copy(), self._dtype), from_array(np.zeros((), np.int64), D.int64)
    rows, _ = _rows(a, d)
    v, i = _mode_rows(rows) if rows.size else (np.empty(0, a.dtype), np.empty(0, np.int64))
    return (from_array(_c(v.reshape(shape)), self._dtype),
            from_array(_c(i.reshape(shape), np.int64), D.int64))


def _cum_extreme(name, better):
    """cummax/cummin: the running extreme and the index where it was last taken (a later
    equal value or a NaN takes over; after a NaN only NaNs do), like torch."""
    def kernel(self, dim):
        getattr(_meta, name)(self, dim)
        a = self._np
        if a.ndim == 0 or a.size == 0:
            return (from_array(a.copy(), self._dtype),
                    from_array(np.zeros(a.shape, np.int64), D.int64))
        d = _meta.wrap_dims((dim,), a.ndim)[0]
        m = np.moveaxis(a, d, 0)
        vals, idx = np.empty(m.shape, a.dtype), np.zeros(m.shape, np.int64)
        for j in range(m.shape[0]):
            x = m[j]
            if j == 0:
                vals[0], idx[0] = x, 0
                continue
            prev = vals[j - 1]
            take = better(x, prev)
            if self._dtype.category >= D.FLOAT:   # (bfloat16's NumPy kind is not "f")
                take = np.isnan(x) | (~np.isnan(prev) & take)
            vals[j] = np.where(take, x, prev)
            idx[j] = np.where(take, j, idx[j - 1])
        return (from_array(_c(np.moveaxis(vals, 0, d)), self._dtype),
                from_array(_c(np.moveaxis(idx, 0, d)), D.int64))
    kernel.__name__ = name
    return kernel


cummax = _cum_extreme("cummax", np.greater_equal)
cummin = _cum_extreme("cummin", np.less_equal)


def logcumsumexp(self, dim):
    """log(cumsum(exp(x))) along dim, accumulated by logaddexp (float16/bfloat16 in float32)."""
    _meta.logcumsumexp(self, dim)
    d = _meta.wrap_dims((dim,), len(self._shape))[0]
    out = _cumulative(self, d, self._dtype, np.logaddexp)
    return from_array(_c(out), self._dtype)


def aminmax(self, dim=None, keepdim=False):
    """(min, max) over dim (every dim when None); NaN propagates."""
    shape = _meta.aminmax_layout(self, dim, keepdim)
    a = self._np
    axis = None if dim is None or a.ndim == 0 else _meta.wrap_dims((dim,), a.ndim)[0]
    lo = np.minimum.reduce(a, axis=axis) if a.ndim else a.copy()
    hi = np.maximum.reduce(a, axis=axis) if a.ndim else a.copy()
    return (from_array(_c(np.reshape(lo, shape)), self._dtype),
            from_array(_c(np.reshape(hi, shape)), self._dtype))


def histc(self, bins=100, min=0, max=0):
    """Counts in `bins` equal bins over [min, max] (the data's range when min == max, widened
    by 1 each side when that is empty too); values outside are ignored. The bin of x is
    (x - min) * bins / (max - min) in self's dtype, each step rounded (float16 too), as
    torch's linear interpolation."""
    _meta.check_histc(self, bins, min, max)
    dt = self._dtype
    a = self._np.ravel()
    lo, hi = real_scalar(min), real_scalar(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"ember.histc: range of [{lo:g}, {hi:g}] is not finite")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
        for edge in (lo, hi):   # (torch's edges of self's dtype: float16's 65504 + 1 overflows)
            checked_scalar(edge, dt)
    keep = (a >= lo) & (a <= hi)
    x = a[keep]
    with np.errstate(all="ignore"):
        pos = ((x - a.dtype.type(lo)) * a.dtype.type(bins) / (a.dtype.type(hi) - a.dtype.type(lo)))
    # (a range that rounds to one value in self's dtype, bfloat16's -299008 +- 1: 0 / 0, the
    # first bin, as torch)
    pos = np.minimum(np.where(np.isfinite(pos), pos, 0).astype(np.int64), bins - 1)
    return from_array(np.bincount(pos, minlength=bins).astype(dt.np), dt)


def bincount(self, weights=None, minlength=0):
    """Counts (or summed weights) of each value 0..max(self), at least `minlength` long."""
    _meta.check_bincount(self, weights, minlength)
    if _meta.bincount_empty(self):
        return from_array(np.zeros(minlength, np.int64), D.int64)
    a = self._np.astype(np.int64)
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    dt = _meta.bincount_dtype(weights)
    w = None if weights is None else _as(weights._np, np.float64)
    return from_array(np.bincount(a, w, minlength).astype(dt.np), dt)


def isin(elements, test_elements, assume_unique=False, invert=False):
    """Whether each element is in test_elements (a tensor or a number)."""
    _meta.check_isin(elements, test_elements)
    common = D.result_type(elements, test_elements).np  # torch compares in the promoted dtype
    test = test_elements._np if hasattr(test_elements, "_np") else test_elements
    a, b = (np.asarray(x).astype(common) for x in (elements._np, test))
    if common.kind not in "biuf":  # bfloat16: NumPy's isin has no loop; float32 is exact
        a, b = a.astype(np.float32), b.astype(np.float32)
    return from_array(_c(np.isin(a, b, invert=invert)), D.bool_)


def _upper_bound(seq, x):
    """C++'s std::upper_bound of each x in seq (NumPy's searchsorted bisects differently,
    which shows when the edges are not sorted)."""
    first, length = np.zeros(x.shape, np.int64), np.full(x.shape, len(seq))
    while (length > 0).any():
        half = length >> 1
        less = x < seq[np.minimum(first + half, len(seq) - 1)]
        first = np.where((length > 0) & ~less, first + half + 1, first)
        length = np.where(less, half, np.maximum(length - half - 1, 0))
    return first


def _histogram(self, bins, range, weight, density):
    """np.histogram of the flattened input (edges: `bins` equal bins over `range`, the data's
    range widened by 0.5 when constant, or given edges), in the input's dtype."""
    acc = _acc_dtype(self._dtype)
    a = _as(self._np.ravel(), acc)
    w = None if weight is None else _as(weight._np.ravel(), acc)
    if not np.isscalar(bins):
        bins = _as(bins, acc)
    dt = self._dtype
    if np.isscalar(bins):  # torch's edges: its linspace in the input's dtype
        if range is None and a.size:
            range = (float(a.min()), float(a.max()))
        if range is not None and not (np.isfinite(range[0]) and np.isfinite(range[1])):
            raise RuntimeError(f"ember.histogramdd: dimension 0's range [{range[0]:g}, "
                               f"{range[1]:g}] is not finite")
        lo, hi = range or (0.0, 1.0)
        lo, hi = (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)
        bins = _as(_linspace(lo, hi, bins + 1, dt, None, None, None)._np, acc)
    # torch's binary search: values in [edges[0], edges[-1]] (the last bin closed), any edges
    keep = (a >= bins[0]) & (a <= bins[-1])
    pos = np.clip(_upper_bound(bins, a[keep]) - 1, 0, len(bins) - 2)
    hist = np.bincount(pos, None if w is None else w[keep], len(bins) - 1).astype(acc)
    if density:
        hist = hist / hist.sum() / np.diff(bins)
    return from_array(_c(hist, dt.np), dt), from_array(np.array(bins, dt.np), dt)


def histogram_bin_ct(self, bins=100, range=None, weight=None, density=False):
    _meta.histogram_bin_ct(self, bins, range, weight, density)
    return _histogram(self, bins, range, weight, density)


def histogram_bins_tensor(self, bins, weight=None, density=False):
    _meta.histogram_bins_tensor(self, bins, weight, density)
    return _histogram(self, bins._np.ravel(), None, weight, density)
