"""nll_loss's gather and scatter compiled by numba (fastmath off): one pass over the rows
instead of nn.py's five or six NumPy calls (bounds check, ignore mask, class weights,
gather, sums), with the same bits: the per-row losses and weights are summed as
`np.add.reduce` sums them (NumPy's pairwise sum, `_rows_loop._row_sum`, for up to 128
rows; nn.py sums longer batches with NumPy). Ignored rows are skipped as torch skips them:
their loss and weight are 0. C-contiguous float32/float64 (n, C) inputs, int64 targets,
a weight of the input's dtype or a 0-d placeholder for none; nn.py arranges them.

    >>> x = np.log(np.full((2, 4), 0.25)); losses, w = np.empty(2), np.empty(2)
    >>> out, total = np.empty(()), np.empty(())
    >>> gather(x, np.array([1, 3]), np.zeros(()), -100, True, losses, w, out, total)
    -1
    >>> losses, w, out, total
    (array([1.38629436, 1.38629436]), array([1., 1.]), array(1.38629436), array(2.))
"""
from __future__ import annotations

import numba

from ._rows_loop import _row_sum

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")


@_jit
def gather(x, target, weight, ignore_index, mean, losses, weights, out, total):
    """losses[i] = -x[i, t] * weight[t] and weights[i] = weight[t] (1 without a weight;
    both 0 where t == ignore_index); with at most 128 rows also the reduction into the 0-d
    arrays out and total: total = sum(weights), out = sum(losses), divided by total when
    `mean` (NaN or inf for a zero total, as NumPy's division). Returns the first row whose
    target is out of bounds (nothing written past it), else -1."""
    n_classes = x.shape[1]
    for i in range(target.size):
        t = target[i]
        if t == ignore_index:
            losses[i] = 0
            weights[i] = 0
            continue
        if t < 0 or t >= n_classes:
            return i
        v = -x[i, t]
        if weight.ndim:
            w = weight[t]
            losses[i] = v * w
            weights[i] = w
        else:
            losses[i] = v
            weights[i] = 1
    if target.size <= 128:
        s, tw = _row_sum(losses), _row_sum(weights)
        out[()] = s / tw if mean else s
        total[()] = tw
    return -1


@_jit
def scatter(grad, per_row, total, target, weight, ignore_index, out):
    """out (zeros, (n, C)) gets -weight[t] * g at each row's target (g: grad[i] when
    per_row, else grad[0], divided by total[0] when total has an element: the mean); rows
    with t == ignore_index stay 0. Returns the first row whose target is out of bounds,
    else -1."""
    n_classes = out.shape[1]
    g = grad[0]
    if total.size:
        g = g / total[0]
    for i in range(target.size):
        t = target[i]
        if t == ignore_index:
            continue
        if t < 0 or t >= n_classes:
            return i
        if per_row:
            g = grad[i]
        if weight.ndim:
            out[i, t] = -weight[t] * g
        else:
            out[i, t] = -g
    return -1
