"""Batch norm's per-channel loops compiled by numba (fastmath off): the statistics, the
normalisation and the gradients of an (N, C, L) array in one call each, the way torch's
CPU kernel (aten/src/ATen/native/cpu/batch_norm_kernel.cpp) computes them: the mean and
the sum of squared deviations accumulated in float64 (torch's acc_type for float32), the
running statistics updated in float64, the output as x * alpha + beta with
alpha = invstd * weight, beta = bias - mean * alpha. The sums use four accumulators (a
float64 add per element on one accumulator would wait on the previous one's latency).
channels_last batches run as (N*H*W, C) rows (`*_rows`: per-channel accumulators
updated along each row, which vectorises). nn.py arranges the arrays.

    >>> x = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    >>> mean, varsum = np.empty(2, np.float32), np.empty(2)
    >>> channel_stats(x, mean, varsum)
    >>> mean, varsum
    (array([2.5, 4.5], dtype=float32), array([17., 17.]))
"""
from __future__ import annotations

import numba
import numpy as np


@numba.njit(inline="always")
def _sum(a, m, g, kind):
    """Over a 1-d array in float64: kind 0: sum(a); 1: sum((a - m)^2); 2: sum((a - m) * g),
    each product taken in a's dtype (as torch's scalar_t arithmetic)."""
    s0 = s1 = s2 = s3 = 0.0
    n = a.size
    i = 0
    while i + 4 <= n:
        if kind == 0:
            v0, v1, v2, v3 = a[i], a[i + 1], a[i + 2], a[i + 3]
        elif kind == 1:
            d0, d1, d2, d3 = a[i] - m, a[i + 1] - m, a[i + 2] - m, a[i + 3] - m
            v0, v1, v2, v3 = d0 * d0, d1 * d1, d2 * d2, d3 * d3
        else:
            v0, v1 = (a[i] - m) * g[i], (a[i + 1] - m) * g[i + 1]
            v2, v3 = (a[i + 2] - m) * g[i + 2], (a[i + 3] - m) * g[i + 3]
        s0 += v0
        s1 += v1
        s2 += v2
        s3 += v3
        i += 4
    s = (s0 + s1) + (s2 + s3)
    while i < n:
        if kind == 0:
            s += a[i]
        elif kind == 1:
            d = a[i] - m
            s += d * d
        else:
            s += (a[i] - m) * g[i]
        i += 1
    return s


@numba.njit(cache=True, nogil=True, error_model="numpy")
def channel_stats(x, mean, varsum):
    """Per channel c of x (N, C, L): mean[c] (x's dtype) and varsum[c] = sum((x - mean)^2)."""
    n, c, ll = x.shape
    count = n * ll
    for ch in range(c):
        s = 0.0
        for i in range(n):
            s += _sum(x[i, ch], 0, x[i, ch], 0)
        m = x.dtype.type(s / count)
        v = 0.0
        for i in range(n):
            v += _sum(x[i, ch], m, x[i, ch], 1)
        mean[ch] = m
        varsum[ch] = v


@numba.njit(cache=True, nogil=True, error_model="numpy")
def row_stats(x, mean, varsum):
    """channel_stats of rows x (R, C) (a channels_last batch as (N*H*W, C)): per-channel
    float64 sums, updated along each row (the row loop vectorises)."""
    r, c = x.shape
    s = np.zeros(c)
    for i in range(r):
        for ch in range(c):
            s[ch] += x[i, ch]
    for ch in range(c):
        mean[ch] = s[ch] / r
    v = np.zeros(c)
    for i in range(r):
        for ch in range(c):
            d = x[i, ch] - mean[ch]
            v[ch] += d * d
    varsum[:] = v


@numba.njit(inline="always")
def _affine_params(mean, varsum, count, w, b, rm, rv, train, momentum, eps, invstd, alpha,
                   beta):
    """invstd (from varsum: train; from rv: eval, mean = rm), the running statistics'
    update (train, rm of size > 0), alpha = invstd * w and beta = b - mean * alpha."""
    t = mean.dtype.type
    for ch in range(mean.size):
        if train:
            invstd[ch] = 1 / np.sqrt(varsum[ch] / count + eps)
            if rm.size:
                unbiased = varsum[ch] / (count - 1) if count > 1 else varsum[ch] / 0.0
                rm[ch] = momentum * mean[ch] + (1 - momentum) * rm[ch]
                rv[ch] = momentum * unbiased + (1 - momentum) * rv[ch]
        else:
            mean[ch] = rm[ch]
            invstd[ch] = t(1) / np.sqrt(t(rv[ch]) + t(eps))
        alpha[ch] = invstd[ch] * w[ch] if w.size else invstd[ch]
        beta[ch] = (b[ch] if b.size else t(0)) - mean[ch] * alpha[ch]


@numba.njit(cache=True, nogil=True, error_model="numpy")
def forward(x, w, b, rm, rv, train, momentum, eps, out, mean, invstd):
    """Batch norm of x (N, C, L) into out: with the batch statistics (train; mean and invstd
    written, the running ones rm, rv updated when given: size 0 for none) or the running
    ones (eval); out = x * alpha + beta, alpha = invstd * w, beta = b - mean * alpha (w, b
    of size 0: none)."""
    n, c, ll = x.shape
    varsum, alpha, beta = np.empty(c), np.empty(c, x.dtype), np.empty(c, x.dtype)
    if train:
        channel_stats(x, mean, varsum)
    _affine_params(mean, varsum, n * ll, w, b, rm, rv, train, momentum, eps, invstd, alpha,
                   beta)
    for i in range(n):
        for ch in range(c):
            a, z = alpha[ch], beta[ch]
            xi, oi = x[i, ch], out[i, ch]
            for j in range(ll):
                oi[j] = xi[j] * a + z


@numba.njit(cache=True, nogil=True, error_model="numpy")
def forward_rows(x, w, b, rm, rv, train, momentum, eps, out, mean, invstd):
    """forward for rows x, out (R, C) (channels_last batches)."""
    r, c = x.shape
    varsum, alpha, beta = np.empty(c), np.empty(c, x.dtype), np.empty(c, x.dtype)
    if train:
        row_stats(x, mean, varsum)
    _affine_params(mean, varsum, r, w, b, rm, rv, train, momentum, eps, invstd, alpha, beta)
    for i in range(r):
        for ch in range(c):
            out[i, ch] = x[i, ch] * alpha[ch] + beta[ch]


@numba.njit(cache=True, nogil=True, error_model="numpy")
def backward_rows(go, x, w, mean, invstd, train, dx, dw, db):
    """backward for rows go, x, dx (R, C) (channels_last batches; dx of 0 rows: none)."""
    r, c = x.shape
    s, dot = np.zeros(c), np.zeros(c)
    for i in range(r):
        for ch in range(c):
            g = go[i, ch]
            s[ch] += g
            dot[ch] += (x[i, ch] - mean[ch]) * g
    k, gm, scale = np.empty(c, x.dtype), np.empty(c, x.dtype), np.empty(c, x.dtype)
    for ch in range(c):
        db[ch] = s[ch]
        dw[ch] = dot[ch] * invstd[ch]
        k[ch] = dot[ch] * invstd[ch] * invstd[ch] / r
        gm[ch] = s[ch] / r
        scale[ch] = invstd[ch] * w[ch]
    if dx.shape[0] != r:
        return
    for i in range(r):
        for ch in range(c):
            if train:
                dx[i, ch] = (go[i, ch] - gm[ch] - (x[i, ch] - mean[ch]) * k[ch]) * scale[ch]
            else:
                dx[i, ch] = go[i, ch] * scale[ch]


@numba.njit(cache=True, nogil=True, error_model="numpy")
def backward(go, x, w, mean, invstd, train, dx, dw, db):
    """Per channel: db = sum(go), dw = sum((x - mean) * go) * invstd, and when dx has C
    channels dx = (go - db / n - (x - mean) * k) * invstd * w with k = dw * invstd / n
    (training), else go * invstd * w (eval); go, x, dx (N, C, L), the rest (C,)."""
    n, c, ll = x.shape
    count = n * ll
    for ch in range(c):
        s = dot = 0.0
        m = mean[ch]
        for i in range(n):
            s += _sum(go[i, ch], m, go[i, ch], 0)
            dot += _sum(x[i, ch], m, go[i, ch], 2)
        r = invstd[ch]
        db[ch] = s
        dw[ch] = dot * r
        if dx.shape[1] != c:
            continue
        scale = r * w[ch]
        if train:
            k = x.dtype.type(dot * r * r / count)
            gm = x.dtype.type(s / count)
            for i in range(n):
                xi, gi, di = x[i, ch], go[i, ch], dx[i, ch]
                for j in range(ll):
                    di[j] = (gi[j] - gm - (xi[j] - m) * k) * scale
        else:
            for i in range(n):
                gi, di = go[i, ch], dx[i, ch]
                for j in range(ll):
                    di[j] = gi[j] * scale
