"""CPU kernels of the nn family: dot, mv, baddbmm, softmax, normalisation and
loss ops, vectorised NumPy. float16/bfloat16 compute in float32 and round once.

    >>> ember.dot(ember.ones(3), ember.ones(3))
    tensor(3.)
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ember.core import dtype as D
from ember.core.alloc import empty_cpu
from ember.core.tensor import channels_last as _CHANNELS_LAST
from ember.core.tensor import from_array
from ember.kernels.common._errors import not_implemented_for

from ..meta import nn as _meta
from ._compiled import compiled
from .linalg import _acc, _as, _finish, _matmul_into, _scaled_product


# --------------------------------------------------------------------------- linear algebra
def dot(self, tensor):
    """The inner product of two 1-D tensors (a 0-d result)."""
    _meta.check_dot(self, tensor)
    dt = self._dtype
    if dt is D.bool_:
        raise not_implemented_for("dot", dt)
    acc = _acc(dt)
    out = np.asarray(np.dot(_as(self._np, acc), _as(tensor._np, acc)))
    return _finish(np.array(out, dtype=acc), dt)


def mv(self, vec):
    """The (n x k) matrix times (k,) vector product."""
    shape = _meta.check_mv(self, vec)
    dt = self._dtype
    if dt is D.bool_:
        raise not_implemented_for("addmv_impl_cpu", dt)
    return _finish(_matmul_into(shape, self._np, vec._np, dt), dt)


def _baddbmm(self, batch1, batch2, beta, alpha, shape):
    return _scaled_product(self, batch1, batch2, beta, alpha, shape, self._dtype, "baddbmm")


def baddbmm(self, batch1, batch2, beta, alpha):
    """`beta * self + alpha * (batch1 @ batch2)`, self broadcast to (b, n, p)."""
    shape = _meta.check_baddbmm(self, batch1, batch2)
    return _finish(_baddbmm(self, batch1, batch2, beta, alpha, shape), self._dtype)


def baddbmm_(self, batch1, batch2, beta, alpha):
    shape = _meta.check_baddbmm(self, batch1, batch2, inplace=True)
    out = _baddbmm(self, batch1, batch2, beta, alpha, shape)
    self._np[...] = out.astype(self._dtype.np, copy=False)
    return self


# --------------------------------------------------------------------------- softmax
def _float_view(t):
    """t's values in the computation dtype (float32 for half types), at least 1-D."""
    a = t._np
    if t._dtype is D.float16 or t._dtype is D.bfloat16:
        a = a.astype(np.float32)
    return a.reshape(1) if a.ndim == 0 else a


def _result(arr, t, dt=None):
    """A kernel's fresh array as the result: t's shape, C-contiguous (copied only when not)."""
    dt = dt or t._dtype
    return from_array(np.asarray(arr.reshape(t._shape), dtype=dt.np, order="C"), dt)


def _check_float(kind, t, d):
    if t._dtype.category != D.FLOAT and t.numel() != 0:
        raise not_implemented_for(_meta.softmax_kernel_name(kind, t, d), t._dtype)


def softmax_forward(self, dim, half_to_float):
    """exp(x - max) / sum(exp(x - max)) along dim."""
    d = _meta.check_softmax(self, dim, half_to_float)
    _check_float("softmax", self, d)
    a = _float_view(self)
    if a.size == 0:
        return _result(a.copy(), self)
    e = np.exp(a - _row_max(a, d))
    rows = _short_rows(e, d)
    if rows is not None:
        compiled("_rows_loop").softmax_scale(rows)
    else:
        e /= np.add.reduce(e, axis=d, keepdims=True)
    return _result(e, self)


def _short_rows(a, d):
    """a as C-contiguous float32/float64 (rows, n) for the compiled row loops (_rows_loop:
    the same sums, one pass) when d is its last dim and n <= 128; else None."""
    n = a.shape[-1]
    if d == a.ndim - 1 and 0 < n <= 128 and a.flags.c_contiguous and \
            (a.dtype == np.float32 or a.dtype == np.float64):
        return a.reshape(-1, n)
    return None


def _row_max(a, d):
    """The maximum along dim d, keepdims. Along the last dim of a C-contiguous array (logits
    of a batch, attention scores) NumPy's max over a short axis is slow (~10 us for 64x10,
    2x argmax's time for 8x4x64x64): argmax (fast there) and a gather give the same values,
    NaN included (argmax finds the first NaN)."""
    n = a.shape[-1] if a.ndim else 0
    if d == a.ndim - 1 and n and a.flags.c_contiguous:
        rows = a.reshape(-1, n)
        return rows[_rows(rows.shape[0]), rows.argmax(1)].reshape(a.shape[:-1] + (1,))
    return np.maximum.reduce(a, axis=d, keepdims=True)


def log_softmax_forward(self, dim, half_to_float):
    """x - max - log(sum(exp(x - max))) along dim."""
    d = _meta.check_softmax(self, dim, half_to_float)
    _check_float("log_softmax", self, d)
    a = _float_view(self)
    if a.size == 0:
        return _result(a.copy(), self)
    rows = _short_rows(a, d)
    if rows is not None:        # (the same steps, compiled: 2-3x faster on short rows)
        return _result(compiled("_rows_loop").log_softmax(rows), self)
    shifted = a - _row_max(a, d)
    lse = np.add.reduce(np.exp(shifted), axis=d, keepdims=True)
    shifted -= np.log(lse, out=lse)
    return _result(shifted, self)


def softmax_backward_data(grad_output, output, dim, input_dtype):
    """output * (grad - sum(grad * output)) along dim."""
    d = _meta.check_softmax_backward(grad_output, output, dim, input_dtype)
    _check_float("softmax_backward", grad_output, d)
    g, y = _float_view(grad_output), _float_view(output)
    rows_g, rows_y = _short_rows(g, d), _short_rows(y, d)
    if rows_g is not None and rows_y is not None and g.dtype == y.dtype:
        out = np.empty_like(g)
        compiled("_rows_loop").softmax_backward(rows_g, rows_y, out.reshape(rows_g.shape))
        return _result(out, grad_output)
    gy = g * y
    y = y * np.add.reduce(gy, axis=d, keepdims=True)
    return _result(np.subtract(gy, y, out=y), grad_output)


def log_softmax_backward_data(grad_output, output, dim, input_dtype):
    """grad - exp(output) * sum(grad) along dim."""
    d = _meta.check_softmax_backward(grad_output, output, dim, input_dtype)
    _check_float("log_softmax_backward", grad_output, d)
    g, y = _float_view(grad_output), _float_view(output)
    rows_g, rows_y = _short_rows(g, d), _short_rows(y, d)
    if rows_g is not None and rows_y is not None and g.dtype == y.dtype:
        return _result(compiled("_rows_loop").log_softmax_backward(rows_g, rows_y), grad_output)
    e = np.exp(y)
    e *= np.add.reduce(g, axis=d, keepdims=True)
    return _result(np.subtract(g, e, out=e), grad_output)


# --------------------------------------------------------------------------- losses
def _compute(t):
    """A tensor's values in the computation dtype (float32 for half types)."""
    a = t._np
    return a.astype(np.float32) if t._dtype is D.float16 or t._dtype is D.bfloat16 else a


_ROWS: dict = {}   # n -> np.arange(n), read-only: the row index of every nll gather


def _rows(n):
    r = _ROWS.get(n)
    if r is None:
        if len(_ROWS) > 64:
            _ROWS.clear()
        r = _ROWS[n] = np.arange(n)
        r.flags.writeable = False
    return r


def _nll_targets(self, target, ignore_index):
    """(each row's class, with ignored rows at 0; the mask of rows not ignored, or None
    when no row is), after torch's bounds check."""
    n_classes = self._shape[-1]
    t = target._np.reshape(-1)
    if t.dtype != np.int64:
        t = t.astype(np.int64)
    # the usual case in one pass: every target a class (negatives wrap to huge unsigned;
    # a ufunc reduction, as ndarray.any goes through a Python wrapper)
    if t.size and np.maximum.reduce(t.view(np.uint64)) < n_classes and (
            not 0 <= ignore_index < n_classes or not np.logical_or.reduce(t == ignore_index)):
        return t, None
    keep = t != ignore_index
    bad = keep & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise _nll_out_of_bounds(t[bad], 0)
    return np.where(keep, t, 0), keep


def _nll_weights(self, t, keep, weight):
    """Each row's class weight (0 for ignored rows), or None: every row weighs 1."""
    if weight is None:
        if keep is None:
            return None
        return keep.astype(np.float32 if self._dtype.np.itemsize < 4 else self._dtype.np)
    w = _compute(weight)[t]
    return w if keep is None else w * keep


def _divide(a, b):
    """a / b of NumPy values, NaN or inf without a warning when b is 0 (torch's mean over
    all-ignored targets); the error-state switch costs more than the division."""
    if b:
        return a / b
    with np.errstate(invalid="ignore", divide="ignore"):
        return a / b


def _nll_float(kernel, self):
    if self._dtype.category != D.FLOAT:
        raise not_implemented_for(kernel, self._dtype)


_NO_WEIGHT = np.zeros(())    # the compiled loops' "no weight" (a 0-d array)
_NO_TOTAL = {np.dtype(t): np.zeros(0, t) for t in (np.float32, np.float64)}  # no division


def _nll_fused_arrays(self, target, weight, *others):
    """(x as (n, C), the targets, the weight or _NO_WEIGHT) for the compiled gather and
    scatter (_loss_loop): C-contiguous float32/float64 values, every tensor of others
    and the weight of self's dtype, int64 targets, at least one row (so torch's dtype
    checks pass); else None (the NumPy path)."""
    x, t = self._np, target._np
    dt = self._dtype
    if (dt is not D.float32 and dt is not D.float64) or x is None or t is None or \
            not x.flags.c_contiguous or t.dtype != np.int64 or t.size == 0:
        return None
    for o in others:
        if o._dtype is not dt or o._np is None:
            return None
    w = _NO_WEIGHT
    if weight is not None:
        w = weight._np
        if weight._dtype is not dt or w is None or w.ndim != 1:
            return None
    return x.reshape(-1, x.shape[-1]), t.reshape(-1), w


def _nll_out_of_bounds(t, row):
    return IndexError(f"Target {t[row]} is out of bounds.")


def _nll_forward_fused(self, x, t, w, reduction, ignore_index):
    """nll_loss_forward through _loss_loop.gather: the NumPy path's values in one pass."""
    dt = self._dtype
    losses, weights = np.empty(t.size, x.dtype), np.empty(t.size, x.dtype)
    out, total = np.empty((), x.dtype), np.empty((), x.dtype)
    bad = compiled("_loss_loop").gather(x, t, w, ignore_index, reduction == 1, losses, weights,
                                        out, total)
    if bad >= 0:
        raise _nll_out_of_bounds(t, bad)
    if reduction == 0 and len(self._shape) == 2:
        total[()] = 0
        return from_array(losses, dt), from_array(total, dt)
    if t.size > 128:        # (the loop sums up to 128 rows; NumPy's pairwise sum the rest)
        total[()] = np.add.reduce(weights)
        s = np.add.reduce(losses)
        out[()] = _divide(s, total[()]) if reduction == 1 else s
    return from_array(out, dt), from_array(total, dt)


def _nll_backward_fused(self, x, t, w, grad_output, reduction, ignore_index, total_weight):
    """nll_loss_backward through _loss_loop.scatter: the NumPy path's values in one pass."""
    dt = self._dtype
    out = np.zeros(x.shape, x.dtype)
    per_row = reduction == 0 and len(self._shape) == 2
    total = total_weight._np.reshape(-1) if reduction == 1 and not per_row else \
        _NO_TOTAL[x.dtype]
    bad = compiled("_loss_loop").scatter(grad_output._np.reshape(-1), per_row, total, t, w,
                                          ignore_index, out)
    if bad >= 0:
        raise _nll_out_of_bounds(t, bad)
    return from_array(out.reshape(self._shape), dt)


def nll_loss_forward(self, target, weight, reduction, ignore_index):
    """-weight[t] * self[i, t] per row; summed (reduction 2) or divided by the total
    weight (reduction 1, NaN when every target is ignored); (output, total_weight)."""
    _meta.check_nll(self, target, weight)
    fused = _nll_fused_arrays(self, target, weight)
    if fused is not None:       # (its dtypes pass the two checks below)
        return _nll_forward_fused(self, *fused, reduction, ignore_index)
    _nll_float("nll_loss_out_frame", self)
    _meta.check_nll_dtypes(self, target, weight)
    dt = self._dtype
    x = _compute(self).reshape(-1, self._shape[-1])
    t, keep = _nll_targets(self, target, ignore_index)
    w = _nll_weights(self, t, keep, weight)
    losses = -x[_rows(len(t)), t]
    if w is not None:
        losses *= w
    if reduction == 0 and self.dim() == 2:
        return from_array(losses.astype(dt.np, copy=False), dt), \
            from_array(np.zeros((), dt.np), dt)
    total = losses.dtype.type(len(t)) if w is None else w.sum(dtype=losses.dtype)
    out = np.add.reduce(losses)
    if reduction == 1:
        out = _divide(out, total)
    return (from_array(np.array(out, dtype=dt.np), dt),
            from_array(np.array(total, dtype=dt.np), dt))


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    """Zeros with -weight[t] * grad (/ total_weight for the mean) at each row's target."""
    _meta.check_nll_backward(grad_output, self, target, weight, reduction, total_weight)
    fused = _nll_fused_arrays(self, target, weight, grad_output, total_weight)
    if fused is not None:       # (its dtypes pass the two checks below)
        return _nll_backward_fused(self, *fused, grad_output, reduction, ignore_index,
                                   total_weight)
    _nll_float("nll_loss_backward_out_frame", self)
    _meta.check_nll_dtypes(self, target, weight, grad_output, total_weight)
    dt = self._dtype
    t, keep = _nll_targets(self, target, ignore_index)
    w = _nll_weights(self, t, keep, weight)
    g = _compute(grad_output).reshape(-1)
    if not (reduction == 0 and self.dim() == 2):
        g = g[0]
        if reduction == 1:
            g = _divide(g, _compute(total_weight).reshape(-1)[0])
    acc = g.dtype if w is None else w.dtype
    out = np.zeros((len(t), self._shape[-1]), acc)
    rows = _rows(len(t))
    if w is None:
        out[rows, t] = -g
    else:
        with np.errstate(invalid="ignore"):     # a 0 weight times an infinite gradient
            scaled = -w * g
        if keep is None:
            out[rows, t] = scaled
        else:                                   # ignored rows stay exactly 0
            out[rows[keep], t[keep]] = scaled[keep]
    return from_array(out.reshape(self._shape).astype(dt.np, copy=False), dt)


def _bce_checks(kernel, self, target, weight, grad_output=None):
    _meta.check_bce(self, target, weight, grad_output)
    if self._dtype.category != D.FLOAT:
        raise not_implemented_for(kernel, self._dtype)


def _like_self(arr, self):
    """A result laid out like empty_like(self)."""
    out = empty_cpu(self._shape, self._dtype, _meta.bce_layout(self))
    out._np[...] = arr
    return out


def binary_cross_entropy(self, target, weight, reduction):
    """-weight * (t * log(x) + (1 - t) * log(1 - x)), the logs clamped at -100."""
    _bce_checks("binary_cross_entropy", self, target, weight)
    x = _compute(self)
    t = np.broadcast_to(_compute(target), x.shape)
    if ((x < 0) | (x > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    if ((t < 0) | (t > 1)).any():
        raise RuntimeError("all elements of target should be between 0 and 1")
    with np.errstate(divide="ignore"):
        loss = (t - 1) * np.maximum(np.log1p(-x), -100) - t * np.maximum(np.log(x), -100)
    if weight is not None:
        loss = loss * _compute(weight)
    dt = self._dtype
    if reduction == 1:
        with np.errstate(invalid="ignore"):
            return from_array(np.array(loss.mean() if loss.size else np.nan, dt.np), dt)
    if reduction == 2:
        return from_array(np.array(loss.sum(), dt.np), dt)
    return _like_self(loss, self)


def binary_cross_entropy_backward(grad_output, self, target, weight, reduction):
    """grad * (x - t) / max(x * (1 - x), 1e-12) * weight (/ numel for the mean)."""
    _bce_checks("binary_cross_entropy_backward", self, target, weight, grad_output)
    x = _compute(self)
    t = _compute(target)
    g = (_compute(grad_output) * (x - t)) / np.maximum((1 - x) * x, 1e-12)
    if weight is not None:
        g = g * _compute(weight)
    if reduction == 1:
        g = g / max(self.numel(), 1) if self.numel() else g
    return _like_self(np.broadcast_to(g, self._shape), self)


def _opmath(t, dt):
    """t's values in the dtype a kernel computes `dt` in (float32 for half types)."""
    a = t._np
    want = np.float32 if dt is D.float16 or dt is D.bfloat16 else dt.np
    return a if a.dtype == want else a.astype(want)


def _same_float_arrays(self, target):
    """self's and target's arrays when they are float32/float64 of one dtype and one shape
    (no broadcasting or promotion to lay out), else None."""
    dt, a, b = self._dtype, self._np, target._np
    if (dt is D.float32 or dt is D.float64) and target._dtype is dt and \
            self._shape == target._shape and a is not None and b is not None:
        return a, b
    return None


def smooth_l1_loss(self, target, reduction, beta):
    """0.5 * d^2 / beta where d = |self - target| < beta, else d - 0.5 * beta; the mean
    (an empty one is NaN), the sum or each element (reduction 1, 2, 0).

    >>> smooth_l1_loss(from_array(np.array([0.5, 3.0])), from_array(np.zeros(2)), 0, 1.0).tolist()
    [0.125, 2.5]
    """
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    arrays = _same_float_arrays(self, target) if reduction else None
    if arrays is not None:          # a reduced loss of one float dtype and shape: no layout
        dt = self._dtype
        with np.errstate(all="ignore"):
            d = np.abs(arrays[0] - arrays[1])
            loss = np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
            r = (loss.mean() if loss.size else np.nan) if reduction == 1 else loss.sum()
        return from_array(np.array(r, dt.np), dt)
    shape, strides, dt = _meta.smooth_l1_layout(self, target)
    with np.errstate(all="ignore"):
        d = np.abs(_opmath(self, dt) - _opmath(target, dt))
        loss = np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
        if reduction == 1:
            return from_array(np.array(loss.mean() if loss.size else np.nan, dt.np), dt)
    if reduction == 2:
        return from_array(np.array(loss.sum(), dt.np), dt)
    out = empty_cpu(shape, dt, strides)
    np.copyto(out._np, loss, casting="unsafe")
    return out


def smooth_l1_loss_backward(grad_output, self, target, reduction, beta):
    """d(loss)/d(self), contiguous, with torch's bits: its vectorized CPU loop (contiguous
    self and target of one shape) computes norm * (x / beta, or +-1 outside) * grad, its
    scalar loop (a broadcast operand) norm * x * grad / beta (norm is 1/numel for the mean).

    >>> g = from_array(np.array(1.0))
    >>> smooth_l1_loss_backward(g, from_array(np.array([0.5, -3.0])), from_array(np.zeros(2)),
    ...                         2, 1.0).tolist()
    [0.5, -1.0]
    """
    arrays = _same_float_arrays(self, target)
    if arrays is not None and arrays[0].flags.c_contiguous and arrays[1].flags.c_contiguous \
            and grad_output._dtype is self._dtype and grad_output._np is not None \
            and grad_output._shape in ((), self._shape):
        a, b = arrays
        dt = a.dtype
        norm = dt.type(1.0 / a.size if reduction == 1 and a.size else 1.0)
        one = dt.type(1)
        with np.errstate(all="ignore"):
            x = a - b
            slope = np.where(np.abs(x) >= beta, np.where(x > 0, one, -one), x / dt.type(beta))
            r = norm * slope * np.broadcast_to(grad_output._np, x.shape)
        return from_array(np.ascontiguousarray(r), self._dtype)
    shape, strides, dt = _meta.smooth_l1_backward_layout(grad_output, self, target)
    norm = 1.0 / self.numel() if reduction == 1 and self.numel() else 1.0
    x = _opmath(self, dt) - _opmath(target, dt)
    g = _opmath(grad_output, dt)
    with np.errstate(all="ignore"):     # (the scalar loop's order)
        r = np.where(x <= -beta, -norm * g, np.where(x >= beta, norm * g, norm * x * g / beta))
    out = empty_cpu(shape, self._dtype, strides)
    np.copyto(out._np, np.broadcast_to(r, shape), casting="unsafe")
    return out


@functools.lru_cache(maxsize=64)
def _above_diagonal(n, m):
    """The (n, m) bool mask of the positions a causal row may not see (j > i), read-only."""
    mask = np.triu(np.ones((n, m), bool), 1)
    mask.flags.writeable = False
    return mask


def _attention_scores(q, k, is_causal, attn_mask, scale):
    """q k^T * scale with the causal or given mask applied (-inf where masked)."""
    e = q.shape[-1]
    s = scale if scale is not None else (1.0 / math.sqrt(e) if e else math.inf)
    scores = np.matmul(q, np.swapaxes(k, -1, -2))
    scores *= q.dtype.type(s)
    if is_causal:
        np.copyto(scores, -np.inf, where=_above_diagonal(*scores.shape[-2:]))
    if attn_mask is not None:
        m = attn_mask._np
        scores = np.where(m, scores, -np.inf) if m.dtype == np.bool_ else scores + m
    return scores, s


def flash_attention_cpu(query, key, value, dropout_p, is_causal, attn_mask, scale):
    """(softmax(q k^T * scale + mask) v, the rows' logsumexp) of 4-D float inputs.

    >>> q = from_array(np.zeros((1, 1, 2, 3), np.float32))
    >>> out, lse = flash_attention_cpu(q, q, q, 0.0, True, None, None)
    >>> out.shape, lse.tolist()
    (ember.Size([1, 1, 2, 3]), [[[0.0, 0.6931471824645996]]])
    """
    dt = _meta.flash_attention_cpu_layout(query, key, value, dropout_p, attn_mask)
    out = empty_cpu(query._shape, dt, _meta.flash_attention_out_strides(query))
    if _short_attention(query, key, value, attn_mask):
        b, h, n, _ = query._shape
        lse = np.empty((b, n, h), dt.np).swapaxes(1, 2)
        compiled("_attention_loop").forward(query._np, key._np, value._np,
                                            _attention_scale(query, scale), is_causal,
                                            out._np, lse)
        return out, from_array(lse, dt)
    with np.errstate(all="ignore"):
        e, _ = _attention_scores(query._np, key._np, is_causal, attn_mask, scale)
        top = e.max(-1, keepdims=True)
        e -= top                                # e = exp(scores - top), in place
        np.exp(e, out=e)
        total = e.sum(-1, keepdims=True)
        e /= total
        np.matmul(e, value._np, out=out._np)
        lse = (top + np.log(total))[..., 0]
    return out, _heads_second(lse, dt)


_SHORT_ATTENTION = 32 * 32 * 32  # query rows x keys x head size up to which the loops win


def _short_attention(query, key, value, attn_mask) -> bool:
    """Whether _attention_loop takes this attention: no mask, float32/float64, nothing
    empty, and short enough for its scalar loops to beat NumPy's calls."""
    _, _, n, e = query._shape
    m = key._shape[2]
    return (attn_mask is None and 0 < n * m * max(e, value._shape[3]) <= _SHORT_ATTENTION
            and query._np is not None and key._np is not None and value._np is not None)


def _attention_scale(query, scale):
    """The scores' factor in the query's dtype: `scale`, or 1 / sqrt(head size)."""
    e = query._shape[-1]
    return query._dtype.np.type(scale if scale is not None else 1.0 / math.sqrt(e))


def _heads_second(r, dt):
    """A tensor of r's (b, h, n, ...) values laid out as torch's flash kernel writes them:
    (b, n, h, ...) in memory, dims 1 and 2 swapped (_meta.flash_attention_lse_strides and
    flash_attention_grad_strides)."""
    a = _heads_second_empty(r.shape, dt)
    a[...] = r
    return from_array(a, dt)


def _heads_second_empty(shape, dt):
    """An uninitialized (b, h, n, ...) array laid out (b, n, h, ...) in memory."""
    return np.empty((shape[0], shape[2], shape[1]) + tuple(shape[3:]), dt.np).swapaxes(1, 2)


def flash_attention_cpu_backward(grad_out, query, key, value, out, logsumexp, dropout_p,
                                 is_causal, attn_mask, scale):
    """(d query, d key, d value), the probabilities recomputed from the logsumexp."""
    dt = _meta.flash_attention_cpu_layout(query, key, value, dropout_p, attn_mask)
    rows = query._shape[:3]
    if _short_attention(query, key, value, attn_mask) and \
            all(t._dtype is dt and t._np is not None for t in (grad_out, out, logsumexp)) and \
            grad_out._shape == out._shape == rows + (value._shape[3],) and \
            logsumexp._shape == rows:  # (the loops read these shapes unchecked)
        grads = tuple(_heads_second_empty(t._shape, dt) for t in (query, key, value))
        compiled("_attention_loop").backward(grad_out._np, query._np, key._np, value._np,
                                             out._np, logsumexp._np,
                                             _attention_scale(query, scale), is_causal,
                                             *grads)
        return tuple(from_array(a, dt) for a in grads)
    q, k, v, g = query._np, key._np, value._np, grad_out._np
    with np.errstate(all="ignore"):
        scores, s = _attention_scores(q, k, is_causal, attn_mask, scale)
        p = np.exp(scores - logsumexp._np[..., None])
        dp = np.matmul(g, np.swapaxes(v, -1, -2))
        ds = p * (dp - (g * out._np).sum(-1, keepdims=True))
        grads = (np.matmul(ds, k) * q.dtype.type(s), np.matmul(np.swapaxes(ds, -1, -2), q) *
                 q.dtype.type(s), np.matmul(np.swapaxes(p, -1, -2), g))
    return tuple(_heads_second(r, dt) for r in grads)


# --------------------------------------------------------------------------- normalisation
def _acc_of(t):
    """The NumPy dtype the norm kernels compute in: float32 for float16/bfloat16 inputs."""
    return _F32 if t._dtype is D.float16 or t._dtype is D.bfloat16 else t._dtype.np


_F32 = np.dtype(np.float32)


def _owned(a, dt):
    """A tensor of dt over `a`, a fresh C-contiguous array of the kernel (cast if needed)."""
    return from_array(a if a.dtype == dt.np else a.astype(dt.np), dt)


#: the "no weight/bias" argument of the compiled norm loops: a 0-d array per dtype
_NO_PARAM = {np.dtype(np.float32): np.zeros((), np.float32),
             np.dtype(np.float64): np.zeros((), np.float64)}


def _param(p, acc, shape):
    return None if p is None else p._np.astype(acc, copy=False).reshape(shape)


def _norm_grads(go, x, mean, rstd, w, rdims, bdims):
    """(dx, dweight, dbias) of y = (x - mean) * rstd * w + b with mean and rstd the
    statistics over `rdims` (training-mode batch norm, layer norm)."""
    xhat = np.subtract(x, mean)
    xhat *= rstd
    g = go if w is None else go * w
    a = g.mean(axis=rdims, keepdims=True)
    tmp = np.multiply(g, xhat)
    c = tmp.mean(axis=rdims, keepdims=True)
    dx = np.subtract(g, a)                   # rstd * (g - a - xhat * c), in place
    dx -= np.multiply(xhat, c, out=tmp)
    dx *= rstd
    return dx, np.multiply(go, xhat, out=tmp).sum(axis=bdims), go.sum(axis=bdims)


def _last_dim_rows(input, normalized_shape, *params):
    """The (rows, n) view of input's array when layer norm runs over its last dim only
    (0 < n <= 128; a C-contiguous float32/float64 array) with parameters that are None or
    C-contiguous (n,) arrays of its dtype, else None: the setup of the compiled row loops
    without the general checks (all of which these pass)."""
    a, dt = input._np, input._dtype
    if (dt is not D.float32 and dt is not D.float64) or a is None or not a.size or \
            not a.flags.c_contiguous or not isinstance(normalized_shape, (tuple, list)) or \
            len(normalized_shape) != 1:
        return None
    n = a.shape[-1]
    if not 0 < n <= 128 or normalized_shape[0] != n:
        return None
    for p in params:
        if p is not None and (p._dtype is not dt or p._shape != (n,) or p._np is None
                              or not p._np.flags.c_contiguous):
            return None
    return a.reshape(-1, n)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(x - mean) * rstd * weight + bias over the trailing dims; (out, mean, rstd)."""
    rows = _last_dim_rows(input, normalized_shape, weight, bias)
    if rows is not None:  # (the compiled pass below, set up in fewer steps)
        dt, acc = input._dtype, rows.dtype
        out, mean, rstd = np.empty_like(rows), np.empty(len(rows), acc), np.empty(len(rows), acc)
        w, b = (_NO_PARAM[acc] if p is None else p._np for p in (weight, bias))
        compiled("_rows_loop").layer_norm(rows, w, b, acc.type(eps), out, mean, rstd)
        stats = input._shape[:-1] + (1,)
        return (from_array(out.reshape(input._shape), dt), from_array(mean.reshape(stats), dt),
                from_array(rstd.reshape(stats), dt))
    axis, stats = _meta.check_layer_norm(input, normalized_shape, weight, bias)
    sdt = _meta.check_param_dtypes(input, weight, bias)
    if input._dtype.category != D.FLOAT:
        raise not_implemented_for("LayerNormKernelImpl", input._dtype)
    acc = _acc_of(input)
    x = input._np.astype(acc, copy=False)
    rows = _short_rows(x.reshape(x.shape[:axis] + (-1,)), axis) if x.size else None
    dt = input._dtype
    if rows is not None and sdt.np == acc:
        # the steps of _layer_norm_np in one compiled pass per row (the same bits), the
        # statistics written in place in their result arrays
        out, mean, rstd = np.empty_like(rows), np.empty(stats, acc), np.empty(stats, acc)
        w, b = (_NO_PARAM[acc] if p is None else _param(p, acc, -1) for p in (weight, bias))
        compiled("_rows_loop").layer_norm(rows, w, b, acc.type(eps), out, mean.reshape(-1),
                                          rstd.reshape(-1))
        return _owned(out.reshape(x.shape), dt), from_array(mean, sdt), from_array(rstd, sdt)
    if rows is not None:    # (float16/bfloat16 statistics)
        out, mean, rstd = np.empty_like(rows), np.empty(len(rows), acc), np.empty(len(rows), acc)
        w, b = (_NO_PARAM[acc] if p is None else _param(p, acc, -1) for p in (weight, bias))
        compiled("_rows_loop").layer_norm(rows, w, b, acc.type(eps), out, mean, rstd)
        out = out.reshape(x.shape)
        mean, rstd = mean.reshape(stats), rstd.reshape(stats)
    else:
        rdims = tuple(range(axis, input.dim()))
        nshape = tuple(input._shape[axis:])
        out, mean, rstd = _layer_norm_np(x, weight, bias, eps, acc, rdims, nshape, stats)
    return (from_array(np.ascontiguousarray(out, dtype=dt.np), dt),
            from_array(np.array(mean.reshape(stats), dtype=sdt.np, order="C"), sdt),
            from_array(np.array(rstd.reshape(stats), dtype=sdt.np, order="C"), sdt))


def _layer_norm_np(x, weight, bias, eps, acc, rdims, nshape, stats):
    with np.errstate(invalid="ignore", divide="ignore"):
        if x.size:
            mean = x.mean(axis=rdims, keepdims=True)
            var = ((x - mean) ** 2).mean(axis=rdims, keepdims=True)
        else:
            mean = np.zeros(stats, acc)
            var = np.full(stats, np.nan, acc)
        rstd = 1 / np.sqrt(var + eps)
    out = np.subtract(x, mean)               # ((x - mean) * rstd) * weight + bias, in place
    out *= rstd
    if weight is not None:
        out *= _param(weight, acc, nshape)
    if bias is not None:
        out += _param(bias, acc, nshape)
    return out, mean, rstd


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                               output_mask):
    """(grad_input, grad_weight, grad_bias), None where output_mask is False."""
    rows_x = _last_dim_rows(input, normalized_shape, weight, bias)
    if rows_x is not None and rows_x.shape[1] > 1 and grad_out._shape == input._shape and \
            all(_like_rows(t, input, size) for t, size in ((grad_out, rows_x.size),
                                                           (mean, len(rows_x)),
                                                           (rstd, len(rows_x)))):
        _meta.check_layer_norm_backward(grad_out, input, mean, rstd, weight, bias, output_mask)
        return _layer_norm_backward_rows(grad_out._np.reshape(rows_x.shape), rows_x,
                                         mean._np.reshape(-1), rstd._np.reshape(-1), weight,
                                         bias, output_mask, input)
    axis, stats = _meta.check_layer_norm(input, normalized_shape, weight, bias)
    _meta.check_layer_norm_backward(grad_out, input, mean, rstd, weight, bias, output_mask)
    if input._dtype.category != D.FLOAT:
        raise not_implemented_for("LayerNormBackwardKernelImpl", input._dtype)
    acc = _acc_of(input)
    nshape = tuple(input._shape[axis:])
    rdims = tuple(range(axis, input.dim()))
    go, x = grad_out._np.astype(acc, copy=False), input._np.astype(acc, copy=False)
    mean, rstd = (t._np.astype(acc, copy=False).reshape(stats) for t in (mean, rstd))
    w = _param(weight, acc, nshape)
    lead = x.shape[:axis] + (-1,)
    rows_g, rows_x = (_short_rows(a.reshape(lead), axis) if x.size else None for a in (go, x))
    if rows_g is not None and rows_x is not None and rows_x.shape[1] > 1:
        # _norm_grads in one compiled pass per row (the same bits; for rows of one element
        # NumPy's sums over the rows are pairwise, not row by row)
        return _layer_norm_backward_rows(rows_g, rows_x, mean.reshape(-1), rstd.reshape(-1),
                                         weight, bias, output_mask, input, w)
    else:
        dx, dw, db = _norm_grads(go, x, mean, rstd, w, rdims, tuple(range(axis)))
    dt = input._dtype
    return (from_array(np.array(dx, dtype=dt.np, order="C"), dt) if output_mask[0] else None,
            from_array(np.array(dw, dtype=weight._dtype.np), weight._dtype)
            if output_mask[1] else None,
            from_array(np.array(db, dtype=bias._dtype.np), bias._dtype)
            if output_mask[2] else None)


def _like_rows(t, input, size) -> bool:
    """Whether t (a gradient, mean or rstd) is a C-contiguous array of input's dtype with
    `size` elements (the compiled loops read them unchecked)."""
    a = t._np
    return t._dtype is input._dtype and a is not None and a.flags.c_contiguous and \
        a.size == size


def _layer_norm_backward_rows(rows_g, rows_x, mean, rstd, weight, bias, output_mask, input,
                              w=None):
    """native_layer_norm_backward's compiled pass over (rows, n) arrays (mean and rstd
    flat, `w`: the weight's array in their dtype)."""
    acc, n = rows_x.dtype, rows_x.shape[1]
    if w is None and weight is not None:
        w = weight._np
    dx, dw, db = np.empty_like(rows_x), np.zeros(n, acc), np.zeros(n, acc)
    compiled("_rows_loop").layer_norm_backward(
        rows_g, rows_x, mean, rstd, _NO_PARAM[acc] if w is None else w.reshape(-1), dx, dw, db)
    return (_owned(dx.reshape(input._shape), input._dtype) if output_mask[0] else None,
            _owned(dw.reshape(weight._shape), weight._dtype) if output_mask[1] else None,
            _owned(db.reshape(bias._shape), bias._dtype) if output_mask[2] else None)


def _bn_rows(input):
    """Whether batch norm runs on (N*H*W, C) rows: a channels_last input (and result)."""
    return input.dim() == 4 and input.suggest_memory_format() is _CHANNELS_LAST


def _bn_view(a, rows):
    """(N, C, *spatial) as (N, C, L), or as (N*L, C) `rows`: views of contiguous (resp.
    channels_last) arrays, copies of others."""
    a = a.reshape(a.shape[0], a.shape[1], -1)
    return a.transpose(0, 2, 1).reshape(-1, a.shape[1]) if rows else a


def _bn_like_input(input, acc, rows):
    """batch norm's result for `input` (its layout: channels_last stays so), the array the
    compiled loops write (the result's own _bn_view, or a scratch one in `acc` for
    float16/bfloat16) and the result's _bn_view: _bn_store rounds the first into it."""
    out = empty_cpu(input._shape, input._dtype, _meta.batch_norm_strides(input))
    dst = _bn_view(out._np, rows)
    return out, (dst if dst.dtype == acc else np.empty(dst.shape, acc)), dst


def _bn_store(out, arr, dst):
    """The result of _bn_like_input, with the scratch array rounded into it."""
    if arr is not dst:
        dst[...] = arr
    return out


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Per-channel (dim 1) normalisation with batch statistics (training; the running
    statistics are updated in place with `momentum`, the variance unbiased) or the running
    ones (eval); (out, save_mean, save_invstd), the saved ones empty in eval. Computed as
    torch's CPU kernel (_batch_norm_loop): statistics accumulated in float64, then
    out = x * alpha + beta per channel.

        >>> out, mean, invstd = ember.native_batch_norm(ember.tensor([[1.], [3.]]), None,
        ...                                             None, None, None, True, 0.1, 0.)
        >>> out.flatten(), mean
        (tensor([-1.,  1.]), tensor([2.]))
    """
    sdt = _meta.check_batch_norm(input, weight, bias, running_mean, running_var, training)
    if input._dtype.category != D.FLOAT:
        raise not_implemented_for("batch_norm", input._dtype)
    acc = _acc_of(input)
    rows = _bn_rows(input)
    x = _bn_view(input._np.astype(acc, copy=False), rows)
    c = input._shape[1]
    none = np.empty(0, acc)
    w, b = (none if p is None else p._np.astype(acc, copy=False) for p in (weight, bias))
    rm, rv = (none if p is None else np.ascontiguousarray(p._np, acc)
              for p in (running_mean, running_var))
    mean, invstd = np.empty(c, acc), np.empty(c, acc)
    out, arr, dst = _bn_like_input(input, acc, rows)
    loops = compiled("_batch_norm_loop")
    (loops.forward_rows if rows else loops.forward)(x, w, b, rm, rv, bool(training),
                                                    float(momentum), float(eps), arr, mean,
                                                    invstd)
    if training and running_mean is not None:
        for run, new in ((running_mean._np, rm), (running_var._np, rv)):
            if new is not run:      # (converted or made contiguous: write back)
                run[...] = new
    if not training:        # (two arrays: the outputs do not share storage)
        mean, invstd = np.empty(0, acc), np.empty(0, acc)
    return (_bn_store(out, arr, dst), from_array(mean.astype(sdt.np, copy=False), sdt),
            from_array(invstd.astype(sdt.np, copy=False), sdt))


def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
                               save_invstd, train, eps, output_mask):
    """(grad_input, grad_weight, grad_bias) of batch norm (the saved batch statistics in
    training, the running ones in eval), None where output_mask is False: one compiled
    pass per channel for the sums, one for grad_input (_batch_norm_loop.backward)."""
    _meta.check_param_dtypes(input, weight, running_mean, running_var, save_mean, save_invstd)
    if input._dtype.category != D.FLOAT:
        raise not_implemented_for("batch_norm_backward_cpu", input._dtype)
    acc = _acc_of(input)
    rows = _bn_rows(input)
    go = _bn_view(grad_out._np.astype(acc, copy=False), rows)
    x = _bn_view(input._np.astype(acc, copy=False), rows)
    c = input._shape[1]
    w = np.ones(c, acc) if weight is None else weight._np.astype(acc, copy=False)
    if train:
        mean, invstd = (t._np.astype(acc, copy=False) for t in (save_mean, save_invstd))
    else:
        mean = running_mean._np.astype(acc)
        invstd = (1 / np.sqrt(running_var._np.astype(acc) + eps)).astype(acc)
    dw, db = np.empty(c), np.empty(c)
    if output_mask[0]:
        out, dx, dst = _bn_like_input(input, acc, rows)
    else:
        dx = np.empty((0,) * x.ndim, acc)
    loops = compiled("_batch_norm_loop")
    (loops.backward_rows if rows else loops.backward)(go, x, w, mean, invstd, bool(train), dx,
                                                      dw, db)
    wdt = weight._dtype if weight is not None else input._dtype
    return (_bn_store(out, dx, dst) if output_mask[0] else None,
            from_array(dw.astype(wdt.np), wdt) if output_mask[1] else None,
            from_array(db.astype(wdt.np), wdt) if output_mask[2] else None)


def _nll2d_rows(self, target):
    """(N, C, H, W) input and (N, H, W) target as (N*H*W, C) rows and flat targets."""
    c = self._shape[1]
    rows = np.ascontiguousarray(np.moveaxis(self._np, 1, -1).reshape(-1, c))
    return (from_array(rows, self._dtype),
            from_array(np.ascontiguousarray(target._np.reshape(-1)), target._dtype))


def nll_loss2d_forward(self, target, weight, reduction, ignore_index):
    """nll_loss_forward over every spatial position (the class dim is 1)."""
    _meta.check_nll2d(self, target, weight)
    _nll_float("nll_loss2d_forward_out_frame", self)
    _meta.check_nll_dtypes(self, target, weight)
    _meta.check_nll2d_target(target)
    rows, flat = _nll2d_rows(self, target)
    out, total = nll_loss_forward(rows, flat, weight, reduction, ignore_index)
    if reduction == 0:
        out = from_array(out._np.reshape(target._shape).copy(), self._dtype)
    return out, total


def nll_loss2d_backward(grad_output, self, target, weight, reduction, ignore_index,
                        total_weight):
    _meta.check_nll2d_backward(grad_output, self, target, weight, reduction, total_weight)
    _nll_float("nll_loss2d_backward_out_frame", self)
    _meta.check_nll_dtypes(self, target, weight, grad_output, total_weight)
    _meta.check_nll2d_target(target)
    rows, flat = _nll2d_rows(self, target)
    g = grad_output
    if reduction == 0:
        g = from_array(np.ascontiguousarray(grad_output._np.reshape(-1)), grad_output._dtype)
    grad = nll_loss_backward(g, rows, flat, weight, reduction, ignore_index, total_weight)
    n, c, h, w = self._shape
    arr = np.moveaxis(grad._np.reshape(n, h, w, c), -1, 1)
    return from_array(np.array(arr, order="C"), self._dtype)
