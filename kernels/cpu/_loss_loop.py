"""nll_loss's gather and scatter compiled by numba (fastmath off): one pass over the rows
instead of nn.py's five or six NumPy calls (bounds check, ignore mask, class weights,
gather, sums), with the same bits: the per-row losses and weights are summed as
`np.add.reduce` sums them (NumPy's pairwise sum, `_rows_loop._row_sum`, for up to 128
rows; nn.py sums longer batches with NumPy). Ignored rows are skipped as torch skips them:
their loss and weight are 0. C-contiguous float32/float64 (n, C) inputs, int64 targets,
a weight of the input's dtype or a 0-d placeholder for none; nn.py arranges them.

    >>> x = np.log(np.full((2, 4), 0.25)); losses = np.empty(2); w = np.empty(2)
    >>> gather(x, np.array([1, 3]), np.zeros(()), -100, losses, w)
    (-1, 2.772588722239781, 2.0)
    >>> losses, w
    (array([1.38629436, 1.38629436]), array([1., 1.]))
"""
from __future__ import annotations

import numba

from ._rows_loop import _row_sum

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")


@_jit
def gather(x, target, weight, ignore_index, losses, weights):
    """losses[i] = -x[i, t] * weight[t] and weights[i] = weight[t] (1 without a weight;
    both 0 where t == ignore_index). Returns (the first row whose target is out of bounds,
    nothing written past it, else -1; the sums of losses and weights when there are at
    most 128 rows, else 0)."""
    n_classes = x.shape[1]
    zero = x.dtype.type(0)
    for i in range(target.size):
        t = target[i]
        if t == ignore_index:
            losses[i] = 0
            weights[i] = 0
            continue
        if t < 0 or t >= n_classes:
            return i, zero, zero
        v = -x[i, t]
        if weight.ndim:
            w = weight[t]
            losses[i] = v * w
            weights[i] = w
        else:
            losses[i] = v
            weights[i] = 1
    if target.size > 128:
        return -1, zero, zero
    return -1, _row_sum(losses), _row_sum(weights)


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
