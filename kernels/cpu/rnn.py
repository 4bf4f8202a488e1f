"""CPU kernels of the fused recurrent cells (torch's _thnn_fused_lstm_cell,
_thnn_fused_gru_cell and their backward ops): one step of an LSTM or GRU from its two gate
pre-activations, in NumPy, with the formulas and rounding steps of the decomposed cell
(ember.nn's sigmoid/tanh/mul/add ops): the same bits when both compute the same sums.
float16/bfloat16 compute in float32 and round once.

The array-level steps (`_lstm_step`, `_gru_step` and their backward) also serve whole
layers: `_layer_forward` / `_layer_backward` run a layer's time loop on float32/float64
arrays for ember.nn's RNN/LSTM/GRU on the plain eager path (one autograd node per layer
and direction instead of two per time step; ember/nn/modules/rnn.py).

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


def _quiet(fn):
    """Runs fn with NumPy's floating-point warnings off (torch's kernels do not warn)."""
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    run.__doc__, run.__name__ = fn.__doc__, fn.__name__
    return run


# --------------------------------------------------------------------------- array steps
def _lstm_step(gates, cx, h):
    """(hy, cy, workspace) from the summed gates (B, 4H) and cx (B, H)."""
    workspace = np.empty_like(gates)
    i, f, g, o = (workspace[:, k * h:(k + 1) * h] for k in range(4))
    _sigmoid(gates[:, :2 * h], out=workspace[:, :2 * h])
    np.tanh(gates[:, 2 * h:3 * h], out=g)
    _sigmoid(gates[:, 3 * h:], out=o)
    cy = f * cx
    cy += i * g
    hy = o * np.tanh(cy)
    return hy, cy, workspace


def _lstm_step_backward(ghy, gcy, cx, cy, workspace, h):
    """(grad_gates (B, 4H), grad_cx); ghy or gcy None count as zeros (not both)."""
    i, f, g, o = (workspace[:, k * h:(k + 1) * h] for k in range(4))
    grad_gates = np.empty_like(workspace)
    gi, gf, gg, go = (grad_gates[:, k * h:(k + 1) * h] for k in range(4))
    if ghy is not None:
        tanh_cy = np.tanh(cy)
        gcx = ghy * o * (1 - tanh_cy * tanh_cy)
        np.multiply(ghy * tanh_cy, (1 - o) * o, out=go)
        if gcy is not None:
            gcx += gcy
    else:
        gcx = gcy.copy()
        go[...] = 0
    np.multiply(gcx * g, (1 - i) * i, out=gi)
    np.multiply(gcx * cx, (1 - f) * f, out=gf)
    np.multiply(gcx * i, 1 - g * g, out=gg)
    gcx *= f
    return grad_gates, gcx


def _gru_step(xg, hg, hx, h):
    """(hy, workspace (B, 5H): r, z, n, hx, h_n) from the gates' halves (B, 3H)."""
    workspace = np.empty((hx.shape[0], 5 * h), hx.dtype)
    r, z, n, h0, hn = (workspace[:, k * h:(k + 1) * h] for k in range(5))
    _sigmoid(xg[:, :2 * h] + hg[:, :2 * h], out=workspace[:, :2 * h])
    hn[...] = hg[:, 2 * h:]
    np.tanh(xg[:, 2 * h:] + r * hn, out=n)
    h0[...] = hx
    hy = n + z * (hx - n)
    return hy, workspace


def _gru_step_backward(go, workspace, h):
    """(grad of the input gates (B, 3H), of the hidden gates (B, 3H), of hx)."""
    r, z, n, hx, hn = (workspace[:, k * h:(k + 1) * h] for k in range(5))
    grad_x = np.empty((go.shape[0], 3 * h), go.dtype)
    gr, gz, gn = (grad_x[:, k * h:(k + 1) * h] for k in range(3))
    np.multiply(go * (hx - n), (1 - z) * z, out=gz)
    grad_hx = go * z
    np.multiply(go * (1 - z), 1 - n * n, out=gn)
    np.multiply(gn * hn, (1 - r) * r, out=gr)
    grad_h = grad_x.copy()
    np.multiply(gn, r, out=grad_h[:, 2 * h:])
    return grad_x, grad_h, grad_hx


# --------------------------------------------------------------------------- the ops
@_quiet
def fused_lstm_cell(input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None):
    """(hy, cy, workspace): gates i, f, g, o of input_gates + hidden_gates (+ biases),
    cy = sigmoid(f) * cx + sigmoid(i) * tanh(g), hy = sigmoid(o) * tanh(cy); the workspace
    holds the activated gates (B, 4H) for the backward."""
    batch, h, dt = _meta.check_fused_cell("_thnn_fused_lstm_cell", input_gates, hidden_gates,
                                          input_bias, hidden_bias, cx, 4)
    acc = _acc(dt)
    gates = _as(input_gates._np, acc) + _as(hidden_gates._np, acc)
    if input_bias is not None:  # (torch's order: the gates' sum, then each bias)
        gates += _as(input_bias._np, acc)
        gates += _as(hidden_bias._np, acc)
    hy, cy, workspace = _lstm_step(gates, _as(cx._np, acc).reshape(batch, h), h)
    return _finish(hy, dt), _finish(cy, dt), _finish(workspace, dt)


@_quiet
def fused_lstm_cell_backward(grad_hy, grad_cy, cx, cy, workspace, has_bias):
    """(grad_gates, grad_cx, grad_bias) of fused_lstm_cell from its saved cy and
    workspace; grad_bias (the gates' gradient summed over the batch) when has_bias.
    A missing grad_hy or grad_cy counts as zeros; without both, (None, None, None)."""
    batch, h, dt = _meta.check_lstm_backward(grad_hy, grad_cy, cx, cy, workspace)
    if grad_hy is None and grad_cy is None:
        return None, None, None
    acc = _acc(dt)

    def arr(t):
        return None if t is None else _as(t._np, acc).reshape(batch, -1)
    grad_gates, grad_cx = _lstm_step_backward(arr(grad_hy), arr(grad_cy), arr(cx), arr(cy),
                                              arr(workspace), h)
    grad_bias = _finish(grad_gates.sum(0), dt) if has_bias else None
    return _finish(grad_gates, dt), _finish(grad_cx, dt), grad_bias


@_quiet
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
    hy, workspace = _gru_step(xg, hg, _as(hx._np, acc).reshape(batch, h), h)
    return _finish(hy, dt), _finish(workspace, dt)


@_quiet
def fused_gru_cell_backward(grad_hy, workspace, has_bias):
    """(grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias, grad_hidden_bias) of
    fused_gru_cell from its workspace; the bias gradients (sums over the batch) when
    has_bias. The two gates' gradients differ only in the n gate (x_n's and h_n's)."""
    batch, h, dt = _meta.check_gru_backward(grad_hy, workspace)
    acc = _acc(dt)
    grad_x, grad_h, grad_hx = _gru_step_backward(
        _as(grad_hy._np, acc).reshape(batch, h), _as(workspace._np, acc), h)
    biases = (_finish(grad_x.sum(0), dt), _finish(grad_h.sum(0), dt)) if has_bias else \
        (None, None)
    return (_finish(grad_x, dt), _finish(grad_h, dt), _finish(grad_hx, dt), *biases)


# --------------------------------------------------------------------------- whole layers
def _hidden_gates(h, w_hh_t, b_hh):
    """h @ w_hh.T (+ b_hh): the bits of ember's mm (addmm: the product, then the bias)."""
    out = np.matmul(h, w_hh_t)
    if b_hh is not None:
        out += b_hh
    return out


@_quiet
def _layer_forward(mode, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse):
    """One layer and direction of an RNN_TANH, LSTM or GRU over x (T * B, I) from h0 (and
    c0), in arrays with the bits of ember.nn's decomposed ops (x @ w_ih.T + bias, then each
    time step's `_step`): (outputs (T * B, H), h_T, c_T or None, saved), `saved` what
    `_layer_backward` needs. A cell's step is the layer with T = 1."""
    batch, h = h0.shape
    steps = x.shape[0] // batch
    # _input_part: linear(x, w_ih, b_ih (+ b_hh but for GRU)): addmm's product, then bias
    xw = np.matmul(x, w_ih.T)
    if b_ih is not None:
        xw += b_ih if mode == "GRU" else b_ih + b_hh
    w_hh_t = w_hh.T
    out = np.empty((steps * batch, h), xw.dtype)
    state, c = h0, c0
    saved = []
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        rows = slice(t * batch, (t + 1) * batch)
        gates = xw[rows]
        if mode == "LSTM":
            hy, c_new, ws = _lstm_step(gates + np.matmul(state, w_hh_t), c, h)
            saved.append((state, c, c_new, ws))
            c = c_new
        elif mode == "GRU":
            hy, ws = _gru_step(gates, _hidden_gates(state, w_hh_t, b_hh), state, h)
            saved.append((state, ws))
        else:   # RNN_TANH
            hy = np.tanh(np.matmul(state, w_hh_t) + gates)
            saved.append((state, hy))
        out[rows] = hy
        state = hy
    return out, state, c, saved


@_quiet
def _layer_backward(mode, saved, grad_out, grad_h, grad_c, x, w_ih, w_hh, has_bias, reverse):
    """The gradients of `_layer_forward`'s (outputs, h_T, c_T) w.r.t. (x, h0, c0, w_ih,
    w_hh, b_ih, b_hh), time step after time step backwards; grad_out (T * B, H), grad_h
    and grad_c (B, H) may be None (zeros). None for c0 and the biases where they do not
    apply."""
    batch, h = saved[0][0].shape
    steps = len(saved)
    gates = w_hh.shape[0]
    grad_xw = np.empty((steps * batch, gates), w_hh.dtype)
    grad_w_hh = np.zeros((gates, h), w_hh.dtype)
    grad_b_hh = np.zeros(gates, w_hh.dtype) if has_bias and mode == "GRU" else None
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    gh = grad_h
    for k, t in zip(range(steps - 1, -1, -1), reversed(order)):
        rows = slice(t * batch, (t + 1) * batch)
        if grad_out is not None:
            gh = grad_out[rows] if gh is None else gh + grad_out[rows]
        if mode == "LSTM":
            prev, cx, cy, ws = saved[k]
            if gh is None and grad_c is None:
                gg, grad_c = np.zeros((batch, gates), w_hh.dtype), np.zeros_like(cx)
            else:
                gg, grad_c = _lstm_step_backward(gh, grad_c, cx, cy, ws, h)
            gg_h = gg
        elif mode == "GRU":
            prev, ws = saved[k]
            gg, gg_h, ghx = _gru_step_backward(np.zeros_like(prev) if gh is None else gh, ws,
                                               h)
            if grad_b_hh is not None:
                grad_b_hh += gg_h.sum(0)
        else:
            prev, hy = saved[k]
            gg = gg_h = np.zeros_like(prev) if gh is None else gh * (1 - hy * hy)
        grad_xw[rows] = gg
        grad_w_hh += gg_h.T @ prev
        gh = gg_h @ w_hh
        if mode == "GRU":
            gh += ghx
    grad_b_ih = grad_xw.sum(0) if has_bias else None
    if has_bias and mode != "GRU":
        grad_b_hh = grad_b_ih.copy()
    return (grad_xw @ w_ih, gh, grad_c if mode == "LSTM" else None, grad_xw.T @ x, grad_w_hh,
            grad_b_ih, grad_b_hh)
