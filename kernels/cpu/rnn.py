"""CPU kernels of the fused recurrent cells (torch's _thnn_fused_lstm_cell,
_thnn_fused_gru_cell and their backward ops): one step of an LSTM or GRU from its two gate
pre-activations, in NumPy, with the formulas and rounding steps of the decomposed cell
(ember.nn's sigmoid/tanh/mul/add ops): the same bits when both compute the same sums.
float16/bfloat16 compute in float32 and round once.

    >>> gates = ember.zeros(1, 8)
    >>> hy, cy, workspace = ember._thnn_fused_lstm_cell(gates, gates, ember.ones(1, 2))
    >>> cy
    tensor([[0.5000, 0.5000]])
"""
from __future__ import annotations

import numpy as np
import scipy.special as sp

from ..meta import rnn as _meta
from .linalg import _acc, _as, _finish

_sigmoid = sp.expit     # (ember's sigmoid kernel: the same ufunc)


def _gates(input_gates, hidden_gates, input_bias, hidden_bias, acc):
    """input_gates + hidden_gates (+ input_bias + hidden_bias, in torch's order)."""
    gates = _as(input_gates._np, acc) + _as(hidden_gates._np, acc)
    if input_bias is not None:
        gates += _as(input_bias._np, acc)
        gates += _as(hidden_bias._np, acc)
    return gates


def fused_lstm_cell(input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None):
    """(hy, cy, workspace): gates i, f, g, o of input_gates + hidden_gates (+ biases),
    cy = sigmoid(f) * cx + sigmoid(i) * tanh(g), hy = sigmoid(o) * tanh(cy); the workspace
    holds the activated gates (B, 4H) for the backward."""
    batch, h, dt = _meta.check_fused_cell("_thnn_fused_lstm_cell", input_gates, hidden_gates,
                                          input_bias, hidden_bias, cx, 4)
    acc = _acc(dt)
    gates = _gates(input_gates, hidden_gates, input_bias, hidden_bias, acc)
    workspace = np.empty_like(gates)
    with np.errstate(all="ignore"):
        i, f, g, o = (workspace[:, k * h:(k + 1) * h] for k in range(4))
        _sigmoid(gates[:, :2 * h], out=workspace[:, :2 * h])
        np.tanh(gates[:, 2 * h:3 * h], out=g)
        _sigmoid(gates[:, 3 * h:], out=o)
        cy = f * _as(cx._np, acc).reshape(batch, h)
        cy += i * g
        hy = o * np.tanh(cy)
    return _finish(hy, dt), _finish(cy, dt), _finish(workspace, dt)


def fused_lstm_cell_backward(grad_hy, grad_cy, cx, cy, workspace, has_bias):
    """(grad_gates, grad_cx, grad_bias) of fused_lstm_cell from its saved cy and
    workspace; grad_bias (the gates' gradient summed over the batch) when has_bias.
    A missing grad_hy or grad_cy counts as zeros; without both, (None, None, None)."""
    batch, h, dt = _meta.check_lstm_backward(grad_hy, grad_cy, cx, cy, workspace)
    if grad_hy is None and grad_cy is None:
        return None, None, None
    acc = _acc(dt)
    ws = _as(workspace._np, acc)
    i, f, g, o = (ws[:, k * h:(k + 1) * h] for k in range(4))
    grad_gates = np.empty((batch, 4 * h), acc)
    gi, gf, gg, go = (grad_gates[:, k * h:(k + 1) * h] for k in range(4))
    tanh_cy = np.tanh(_as(cy._np, acc).reshape(batch, h))
    if grad_hy is not None:
        ghy = _as(grad_hy._np, acc).reshape(batch, h)
        gcx = ghy * o * (1 - tanh_cy * tanh_cy)
        np.multiply(ghy * tanh_cy, (1 - o) * o, out=go)
    else:
        gcx = np.zeros((batch, h), acc)
        go[...] = 0
    if grad_cy is not None:
        gcx += _as(grad_cy._np, acc).reshape(batch, h)
    np.multiply(gcx * g, (1 - i) * i, out=gi)
    np.multiply(gcx * _as(cx._np, acc).reshape(batch, h), (1 - f) * f, out=gf)
    np.multiply(gcx * i, 1 - g * g, out=gg)
    grad_cx = gcx * f
    grad_bias = _finish(grad_gates.sum(0), dt) if has_bias else None
    return _finish(grad_gates, dt), _finish(grad_cx, dt), grad_bias


def fused_gru_cell(input_gates, hidden_gates, hx, input_bias=None, hidden_bias=None):
    """(hy, workspace): gates r, z, n; r = sigmoid(x_r + h_r), z = sigmoid(x_z + h_z),
    n = tanh(x_n + r * h_n), hy = n + z * (hx - n); the workspace holds r, z, n, hx, h_n
    (B, 5H) for the backward. Biases add to their halves (h_n includes hidden_bias)."""
    batch, h, dt = _meta.check_fused_cell("_thnn_fused_gru_cell", input_gates, hidden_gates,
                                          input_bias, hidden_bias, hx, 3)
    acc = _acc(dt)
    xg, hg = _as(input_gates._np, acc), _as(hidden_gates._np, acc)
    if input_bias is not None:
        xg = xg + _as(input_bias._np, acc)
        hg = hg + _as(hidden_bias._np, acc)
    workspace = np.empty((batch, 5 * h), acc)
    r, z, n, h0, hn = (workspace[:, k * h:(k + 1) * h] for k in range(5))
    with np.errstate(all="ignore"):
        _sigmoid(xg[:, :2 * h] + hg[:, :2 * h], out=workspace[:, :2 * h])
        hn[...] = hg[:, 2 * h:]
        np.tanh(xg[:, 2 * h:] + r * hn, out=n)
        h0[...] = _as(hx._np, acc).reshape(batch, h)
        hy = n + z * (h0 - n)
    return _finish(hy, dt), _finish(workspace, dt)


def fused_gru_cell_backward(grad_hy, workspace, has_bias):
    """(grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias, grad_hidden_bias) of
    fused_gru_cell from its workspace; the bias gradients (sums over the batch) when
    has_bias. The two gates' gradients differ only in the n gate (x_n's and h_n's)."""
    batch, h, dt = _meta.check_gru_backward(grad_hy, workspace)
    acc = _acc(dt)
    ws = _as(workspace._np, acc)
    r, z, n, hx, hn = (ws[:, k * h:(k + 1) * h] for k in range(5))
    go = _as(grad_hy._np, acc).reshape(batch, h)
    grad_x = np.empty((batch, 3 * h), acc)
    gr, gz, gn = (grad_x[:, k * h:(k + 1) * h] for k in range(3))
    np.multiply(go * (hx - n), (1 - z) * z, out=gz)
    grad_hx = go * z
    np.multiply(go * (1 - z), 1 - n * n, out=gn)
    np.multiply(gn * hn, (1 - r) * r, out=gr)
    grad_h = grad_x.copy()
    np.multiply(gn, r, out=grad_h[:, 2 * h:])
    biases = (_finish(grad_x.sum(0), dt), _finish(grad_h.sum(0), dt)) if has_bias else \
        (None, None)
    return (_finish(grad_x, dt), _finish(grad_h, dt), _finish(grad_hx, dt), *biases)

