"""Scaled dot-product attention without a mask (causal or not) compiled by numba, for the
short sequences and heads where NumPy's dozen small calls cost more than the arithmetic:
one pass per (batch, head, query row), float32 in float32 and float64 in float64 (as
torch's flash kernel), the probabilities of a row exp(s - max) / sum, its logsumexp
max + log(sum). Causal rows see keys 0..i (top-left aligned, torch's). The inputs may have
any strides; nn.py allocates the outputs in torch's layouts.

    >>> q = np.zeros((1, 1, 2, 3), np.float32)
    >>> out, lse = np.empty_like(q), np.empty((1, 1, 2), np.float32)
    >>> forward(q, q, q, np.float32(0.5), True, out, lse); lse
    array([[[0.       , 0.6931472]]], dtype=float32)
"""
from __future__ import annotations

import numba
import numpy as np


def _signatures(template: str) -> list:
    return [template.replace("T", t) for t in ("float32", "float64")]


@numba.njit(inline="always")
def _visible(i, m, causal):
    """How many keys query row i sees (at least one: the kernels run on m > 0 only)."""
    return min(i + 1, m) if causal else m


@numba.njit(_signatures("void(T[:,:,:,:], T[:,:,:,:], T[:,:,:,:], T, b1, T[:,:,:,:], T[:,:,:])"),
            cache=True, nogil=True, error_model="numpy")
def forward(q, k, v, scale, causal, out, lse):
    """out = softmax(q k^T * scale) v and lse = logsumexp of the scaled scores, per row."""
    b, h, n, e = q.shape
    m, ev = k.shape[2], v.shape[3]
    zero = q.dtype.type(0)
    p = np.empty(m, q.dtype)
    for bi in range(b):
        for hi in range(h):
            for i in range(n):
                seen = _visible(i, m, causal)
                top = zero
                for j in range(seen):
                    s = zero
                    for d in range(e):
                        s += q[bi, hi, i, d] * k[bi, hi, j, d]
                    s *= scale
                    p[j] = s
                    if j == 0 or (not np.isnan(top) and (s > top or np.isnan(s))):  # (np.max)
                        top = s
                total = zero
                for j in range(seen):
                    p[j] = np.exp(p[j] - top)
                    total += p[j]
                for j in range(seen):
                    p[j] /= total
                for d in range(ev):
                    acc = zero
                    for j in range(seen):
                        acc += p[j] * v[bi, hi, j, d]
                    out[bi, hi, i, d] = acc
                lse[bi, hi, i] = top + np.log(total)


@numba.njit(_signatures("void(T[:,:,:,:], T[:,:,:,:], T[:,:,:,:], T[:,:,:,:], T[:,:,:,:], "
                        "T[:,:,:], T, b1, T[:,:,:,:], T[:,:,:,:], T[:,:,:,:])"),
            cache=True, nogil=True, error_model="numpy")
def backward(g, q, k, v, out, lse, scale, causal, dq, dk, dv):
    """(dq, dk, dv) with P = exp(S - lse) recomputed: dS = P * (g v^T - rowsum(g * out)),
    dq = dS k * scale, dk = dS^T q * scale, dv = P^T g; the masked entries of P and dS
    take part (zeros, or NaN on a NaN row: the NumPy path's values)."""
    b, h, n, e = q.shape
    m, ev = k.shape[2], v.shape[3]
    zero, masked = q.dtype.type(0), q.dtype.type(-np.inf)
    p = np.empty((n, m), q.dtype)
    ds = np.empty((n, m), q.dtype)
    for bi in range(b):
        for hi in range(h):
            for i in range(n):
                seen = _visible(i, m, causal)
                r = zero
                for d in range(ev):
                    r += g[bi, hi, i, d] * out[bi, hi, i, d]
                for j in range(m):  # (a masked score is -inf: P is 0 there, NaN for NaN lse)
                    s = masked
                    if j < seen:
                        s = zero
                        for d in range(e):
                            s += q[bi, hi, i, d] * k[bi, hi, j, d]
                        s *= scale
                    pij = np.exp(s - lse[bi, hi, i])
                    dp = zero
                    for d in range(ev):
                        dp += g[bi, hi, i, d] * v[bi, hi, j, d]
                    p[i, j] = pij
                    ds[i, j] = pij * (dp - r)
            for i in range(n):
                for d in range(e):
                    acc = zero
                    for j in range(m):
                        acc += ds[i, j] * k[bi, hi, j, d]
                    dq[bi, hi, i, d] = acc * scale
            for j in range(m):
                for d in range(e):
                    acc = zero
                    for i in range(n):
                        acc += ds[i, j] * q[bi, hi, i, d]
                    dk[bi, hi, j, d] = acc * scale
                for d in range(ev):
                    acc = zero
                    for i in range(n):
                        acc += p[i, j] * g[bi, hi, i, d]
                    dv[bi, hi, j, d] = acc
