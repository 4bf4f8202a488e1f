"""The matrix helpers MultivariateNormal needs, written with ember's differentiable ops
(ember has no linalg module yet): Cholesky factors and triangular solves, batched, a row
or column at a time (fine for the small event sizes distributions use)."""
from __future__ import annotations

import ember


def cholesky(a):
    """The lower Cholesky factor L of the positive-definite matrices `a` (a = L L^T). It
    reads the symmetric part of `a`, so its gradient is symmetric, as torch's."""
    a = (a + a.mT) * 0.5
    n = a.shape[-1]
    rows = ember.arange(n)
    columns = []
    for j in range(n):
        s = a[..., :, j]
        if j:
            done = ember.stack(columns, -1)  # (..., n, j)
            s = s - (done * done[..., j:j + 1, :]).sum(-1)
        columns.append((s / s[..., j:j + 1].sqrt()) * (rows >= j).to(a.dtype))
    return ember.stack(columns, -1)


def solve_lower(lower, b):
    """X with lower @ X = b, for lower-triangular `lower` (..., n, n) and b (..., n, k)."""
    n = lower.shape[-1]
    rows = []
    for i in range(n):
        acc = b[..., i, :]
        if i:
            acc = acc - (lower[..., i, :i].unsqueeze(-1) * ember.stack(rows, -2)).sum(-2)
        rows.append(acc / lower[..., i, i].unsqueeze(-1))
    return ember.stack(rows, -2)


def batch_mahalanobis(lower, x):
    """The squared Mahalanobis distance x^T (L L^T)^-1 x for each vector of `x`."""
    return solve_lower(lower, x.unsqueeze(-1)).squeeze(-1).pow(2).sum(-1)


def precision_to_scale_tril(precision):
    """The lower Cholesky factor of the inverse of `precision` (torch's way: through the
    Cholesky factor of the flipped matrix)."""
    flipped = cholesky(precision.flip((-2, -1)))
    lower_inverse = flipped.flip((-2, -1)).mT
    eye = ember.eye(precision.shape[-1], dtype=precision.dtype)
    return solve_lower(lower_inverse, eye.expand(lower_inverse.shape))
