"""Backward helpers of the fused recurrent cells (_thnn_fused_lstm_cell,
_thnn_fused_gru_cell): torch's pair of formulas. Without create_graph the backward
kernels on the saved workspace; with it, ember ops that recompute the gates from the
inputs (torch's _thnn_differentiable_*_cell_backward), so that double backward works."""
from __future__ import annotations

import ember


def _lstm_gates(input_gates, hidden_gates, input_bias, hidden_bias):
    gates = input_gates + hidden_gates
    if input_bias is not None:
        gates = gates + input_bias + hidden_bias
    i, f, g, o = gates.chunk(4, 1)
    return i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()


def fused_lstm_cell_grads(grad_hy, grad_cy, input_gates, hidden_gates, cx, input_bias,
                          hidden_bias, cy, workspace):
    """Gradients of (hy, cy) = _thnn_fused_lstm_cell(...) w.r.t. input_gates,
    hidden_gates, cx, input_bias, hidden_bias (the two gates' and biases' are the same)."""
    if grad_hy is None and grad_cy is None:
        return None, None, None, None, None
    has_bias = input_bias is not None
    if not ember.is_grad_enabled():
        gates, grad_cx, grad_bias = ember._thnn_fused_lstm_cell_backward_impl(
            grad_hy, grad_cy, cx, cy, workspace, has_bias)
        return gates, gates, grad_cx, grad_bias, grad_bias
    i, f, g, o = _lstm_gates(input_gates, hidden_gates, input_bias, hidden_bias)
    tanh_c = (f * cx + i * g).tanh()
    gc = grad_cy if grad_cy is not None else ember.zeros_like(cx)
    if grad_hy is not None:
        gc = gc + grad_hy * o * (1 - tanh_c * tanh_c)
        go = grad_hy * tanh_c * (1 - o) * o
    else:
        go = ember.zeros_like(o)
    gates = ember.cat([gc * g * (1 - i) * i, gc * cx * (1 - f) * f, gc * i * (1 - g * g), go], 1)
    grad_bias = gates.sum(0) if has_bias else None
    return gates, gates, gc * f, grad_bias, grad_bias


def fused_gru_cell_grads(grad_hy, input_gates, hidden_gates, hx, input_bias, hidden_bias,
                         workspace):
    """Gradients of hy = _thnn_fused_gru_cell(...)[0] w.r.t. input_gates, hidden_gates,
    hx, input_bias, hidden_bias."""
    if grad_hy is None:
        return None, None, None, None, None
    has_bias = input_bias is not None
    if not ember.is_grad_enabled():
        return ember._thnn_fused_gru_cell_backward(grad_hy, workspace, has_bias)
    if has_bias:
        input_gates, hidden_gates = input_gates + input_bias, hidden_gates + hidden_bias
    xr, xz, xn = input_gates.chunk(3, 1)
    hr, hz, hn = hidden_gates.chunk(3, 1)
    r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    gz = grad_hy * (hx - n) * (1 - z) * z
    gn = grad_hy * (1 - z) * (1 - n * n)
    gr = gn * hn * (1 - r) * r
    grad_x, grad_h = ember.cat([gr, gz, gn], 1), ember.cat([gr, gz, gn * r], 1)
    biases = (grad_x.sum(0), grad_h.sum(0)) if has_bias else (None, None)
    return grad_x, grad_h, grad_hy * z, *biases
