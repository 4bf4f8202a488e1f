"""Row loops compiled by numba (fastmath off), giving the bits of the NumPy code they
replace.

`row_sum` is NumPy's float sum of a row of at most 128 elements (its pairwise sum: eight
accumulators, combined pairwise, then the rest), so that softmax's loops below sum as
`np.add.reduce(..., axis=-1)` did: `softmax_scale` after NumPy's exp (its SIMD exp is 5x
faster than a scalar libm call here), `softmax_backward`, `layer_norm`. They take
C-contiguous (rows, n) arrays; nn.py arranges them. `add_rows` is `np.add.at(out, idx, rows)` for (n, d) rows: rows added to their index's
row first to last, as add.at does, in one pass (an embedding's backward: 512 x 128 rows
in ~15 us instead of ~150).

    >>> out = np.zeros((2, 3), np.float32); add_rows(out, np.array([1, 1]), np.ones((2, 3), np.float32)); out
    array([[0., 0., 0.],
           [2., 2., 2.]], dtype=float32)
"""
from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def add_rows(out, idx, rows):
    """out[idx[i]] += rows[i] for i in order; idx within out's rows (negative ones wrap)."""
    for i in range(idx.size):
        o = out[idx[i]]
        r = rows[i]
        for j in range(r.size):
            o[j] += r[j]


@numba.njit(inline="always")
def _row_sum(a):
    """np.add.reduce of a 1-d float array of at most 128 elements (NumPy's pairwise_sum)."""
    n = a.size
    res = a.dtype.type(0)
    if n < 8:
        for i in range(n):
            res += a[i]
        return res
    r0, r1, r2, r3, r4, r5, r6, r7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
    i = 8
    while i < n - n % 8:
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    res += ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[i]
        i += 1
    return res


@numba.njit(cache=True, nogil=True, error_model="numpy")
def softmax_scale(e):
    """e /= sum(e) per row, in place."""
    for k in range(e.shape[0]):
        row = e[k]
        s = _row_sum(row)
        for j in range(row.size):
            row[j] /= s


@numba.njit(cache=True, nogil=True, error_model="numpy")
def softmax_backward(g, y, out):
    """out = g*y - y * sum(g*y) per row."""
    for k in range(g.shape[0]):
        o, yk, gk = out[k], y[k], g[k]
        for j in range(o.size):
            o[j] = gk[j] * yk[j]
        s = _row_sum(o)
        for j in range(o.size):
            o[j] -= yk[j] * s


@numba.njit(cache=True, nogil=True, error_model="numpy")
def layer_norm(x, w, b, eps, out, mean, rstd):
    """Per row: mean, rstd = 1 / sqrt(var + eps) and ((x - mean) * rstd) * w + b (w, b:
    arrays of the row's length, or 0-d ones for none), as nn.py's NumPy steps."""
    n = x.shape[1]
    nf = x.dtype.type(n)
    sq = np.empty(n, x.dtype)
    for k in range(x.shape[0]):
        o = out[k]
        m = _row_sum(x[k]) / nf
        for j in range(n):
            o[j] = x[k, j] - m
        for j in range(n):
            sq[j] = o[j] * o[j]
        r = x.dtype.type(1) / np.sqrt(_row_sum(sq) / nf + eps)
        for j in range(n):
            v = o[j] * r
            if w.ndim:
                v = v * w[j]
            if b.ndim:
                v = v + b[j]
            o[j] = v
        mean[k], rstd[k] = m, r


@numba.njit(cache=True, nogil=True, error_model="numpy")
def layer_norm_backward(go, x, mean, rstd, w, dx, dw, db):
    """nn.py's _norm_grads per row: dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) with
    xhat = (x - mean) * rstd, g = go * w (w 0-d: none); dw += go * xhat and db += go over
    the rows, in row order (dw, db zeroed by the caller)."""
    n = x.shape[1]
    nf = x.dtype.type(n)
    xhat, g, tmp = np.empty(n, x.dtype), np.empty(n, x.dtype), np.empty(n, x.dtype)
    for k in range(x.shape[0]):
        gok, xk, d = go[k], x[k], dx[k]
        for j in range(n):
            xhat[j] = (xk[j] - mean[k]) * rstd[k]
            g[j] = gok[j] * w[j] if w.ndim else gok[j]
            tmp[j] = g[j] * xhat[j]
        a = _row_sum(g) / nf
        c = _row_sum(tmp) / nf
        for j in range(n):
            d[j] = ((g[j] - a) - xhat[j] * c) * rstd[k]
            dw[j] += gok[j] * xhat[j]
            db[j] += gok[j]


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _shift_by_max(x, out):
    """out = x - max(x) per row, the max taken as nn.py's _row_max takes it (the value at
    argmax: the first NaN, else the first largest)."""
    for k in range(x.shape[0]):
        row, o = x[k], out[k]
        m = row[0]
        if not math.isnan(m):
            for j in range(1, row.size):
                v = row[j]
                if math.isnan(v):
                    m = v
                    break
                if v > m:  # noqa: PLR1730 (the first of equal values, as argmax)
                    m = v
        for j in range(row.size):
            o[j] = row[j] - m


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _sums(e, out):
    """out[k] = sum of row k (np.add.reduce along the last axis)."""
    for k in range(e.shape[0]):
        out[k] = _row_sum(e[k])


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _subtract_per_row(out, lse):
    for k in range(out.shape[0]):
        o, s = out[k], lse[k]
        for j in range(o.size):
            o[j] -= s


def log_softmax(x):
    """x - max - log(sum(exp(x - max))) per row of a C-contiguous (rows, n) float array
    (n <= 128): nn.py's NumPy steps in three compiled passes around NumPy's exp and log
    (their SIMD versions, whose bits a scalar libm call would not give)."""
    out = np.empty_like(x)
    _shift_by_max(x, out)
    e = np.exp(out)
    lse = np.empty(x.shape[0], x.dtype)
    _sums(e, lse)
    np.log(lse, out=lse)
    _subtract_per_row(out, lse)
    return out


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _log_softmax_backward(g, e, out):
    for k in range(g.shape[0]):
        gk, ek, o = g[k], e[k], out[k]
        s = _row_sum(gk)
        for j in range(o.size):
            o[j] = gk[j] - ek[j] * s


def log_softmax_backward(g, y):
    """g - exp(y) * sum(g) per row of C-contiguous (rows, n) float arrays of one dtype
    (n <= 128), NumPy's exp and one compiled pass."""
    out = np.exp(y)
    _log_softmax_backward(g, out, out)
    return out
