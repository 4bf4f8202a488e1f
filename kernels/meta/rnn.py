"""Meta kernels (shapes, dtypes, checks) of the fused recurrent cells: torch's
_thnn_fused_lstm_cell / _thnn_fused_gru_cell and their backward ops.

Both cells take the two halves of their gate pre-activations, (B, G) each: the input's
`x @ w_ih.T` and the hidden state's `h @ w_hh.T`, with optional biases of (G,), G = 4H
(LSTM: gates i, f, g, o) or 3H (GRU: r, z, n). torch's checks (aten/src/ATen/native/cuda/
RNN.cu `checkSizes`) and messages.

    >>> g = ember.empty(2, 8, device="meta")
    >>> [t.shape for t in ember._thnn_fused_lstm_cell(g, g, ember.empty(2, 2, device="meta"))]
    [ember.Size([2, 2]), ember.Size([2, 2]), ember.Size([2, 8])]
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.alloc import empty_meta

_FLOATS = (D.float16, D.bfloat16, D.float32, D.float64)


def _check_dim(fn, t, dim, pos, name):
    if t.dim() != dim:
        raise RuntimeError(f"Expected {dim}-dimensional tensor, but got {t.dim()}-dimensional "
                           f"tensor for argument #{pos} '{name}' (while checking arguments "
                           f"for {fn})")


def _check_same_size(fn, a, b, names):
    if tuple(a._shape) != tuple(b._shape):
        raise RuntimeError(
            f"Expected tensor for argument #{names[0][0]} '{names[0][1]}' to have same size as "
            f"tensor for argument #{names[1][0]} '{names[1][1]}'; but {list(a._shape)} does not "
            f"equal {list(b._shape)} (while checking arguments for {fn})")


def _check_numel(fn, t, numel, pos, name):
    if t.numel() != numel:
        raise RuntimeError(f"Expected tensor for argument #{pos} '{name}' to have {numel} "
                           f"elements; but it actually has {t.numel()} elements (while "
                           f"checking arguments for {fn})")


def _check_dtypes(fn, tensors):
    """One floating dtype for all (the kernels read every tensor as the gates' type)."""
    dt = tensors[0]._dtype
    if dt not in _FLOATS:
        raise RuntimeError(f"\"{fn}\" not implemented for '{dt.scalar_name}'")
    for t in tensors[1:]:
        if t is not None and t._dtype is not dt:
            raise RuntimeError(f"expected scalar type {dt.scalar_name} but found "
                               f"{t._dtype.scalar_name}")
    return dt


def check_fused_cell(fn, input_gates, hidden_gates, input_bias, hidden_bias, prev, factor):
    """torch's checkSizes: 2-D gates of one shape (B, factor * H), biases of (G,) (both or
    neither), the previous state (B, H); returns (B, H, dtype)."""
    _check_dim(fn, input_gates, 2, 1, "input_gates")
    _check_same_size(fn, input_gates, hidden_gates, ((1, "input_gates"), (2, "hidden_gates")))
    gates = input_gates._shape[1]
    if (input_bias is None) != (hidden_bias is None):
        raise RuntimeError(f"{fn}: input_bias and hidden_bias must both be given or both be "
                           "None")
    if input_bias is not None:
        _check_dim(fn, input_bias, 1, 3, "input_bias")
        _check_numel(fn, input_bias, gates, 3, "input_bias")
        _check_same_size(fn, input_bias, hidden_bias, ((3, "input_bias"), (4, "hidden_bias")))
    _check_dim(fn, prev, 2, 5, "prev_hidden")
    batch = input_gates._shape[0]
    _check_numel(fn, prev, batch * gates // factor, 5, "prev_hidden")
    if gates % factor:
        raise RuntimeError(f"{fn}: the gates' size {gates} is not a multiple of {factor}")
    dt = _check_dtypes(fn, (input_gates, hidden_gates, input_bias, hidden_bias, prev))
    return batch, gates // factor, dt


def check_lstm_backward(grad_hy, grad_cy, cx, cy, workspace):
    """Shapes of _thnn_fused_lstm_cell_backward_impl's inputs; returns (B, H, dtype)."""
    fn = "_thnn_fused_lstm_cell_backward_impl"
    _check_dim(fn, workspace, 2, 5, "workspace")
    batch, gates = workspace._shape
    for pos, name, t in ((1, "grad_hy", grad_hy), (2, "grad_cy", grad_cy), (3, "cx", cx),
                         (4, "cy", cy)):
        if t is not None:
            _check_dim(fn, t, 2, pos, name)
            _check_numel(fn, t, batch * gates // 4, pos, name)
    dt = _check_dtypes(fn, (workspace, grad_hy, grad_cy, cx, cy))
    return batch, gates // 4, dt


def check_gru_backward(grad_hy, workspace):
    """Shapes of _thnn_fused_gru_cell_backward's inputs; returns (B, H, dtype)."""
    fn = "_thnn_fused_gru_cell_backward"
    _check_dim(fn, workspace, 2, 2, "workspace")
    batch, size = workspace._shape
    _check_dim(fn, grad_hy, 2, 1, "grad_hy")
    _check_numel(fn, grad_hy, batch * size // 5, 1, "grad_hy")
    dt = _check_dtypes(fn, (workspace, grad_hy))
    return batch, size // 5, dt


def fused_lstm_cell(input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None):
    batch, hidden, dt = check_fused_cell("_thnn_fused_lstm_cell", input_gates, hidden_gates,
                                         input_bias, hidden_bias, cx, 4)
    return (empty_meta((batch, hidden), dt), empty_meta((batch, hidden), dt),
            empty_meta((batch, 4 * hidden), dt))


def fused_lstm_cell_backward(grad_hy, grad_cy, cx, cy, workspace, has_bias):
    batch, hidden, dt = check_lstm_backward(grad_hy, grad_cy, cx, cy, workspace)
    if grad_hy is None and grad_cy is None:
        return None, None, None
    return (empty_meta((batch, 4 * hidden), dt), empty_meta((batch, hidden), dt),
            empty_meta((4 * hidden,), dt) if has_bias else None)


def fused_gru_cell(input_gates, hidden_gates, hx, input_bias=None, hidden_bias=None):
    batch, hidden, dt = check_fused_cell("_thnn_fused_gru_cell", input_gates, hidden_gates,
                                         input_bias, hidden_bias, hx, 3)
    return empty_meta((batch, hidden), dt), empty_meta((batch, 5 * hidden), dt)


def fused_gru_cell_backward(grad_hy, workspace, has_bias):
    batch, hidden, dt = check_gru_backward(grad_hy, workspace)
    gates = (batch, 3 * hidden)
    bias = (3 * hidden,)
    return (empty_meta(gates, dt), empty_meta(gates, dt), empty_meta((batch, hidden), dt),
            empty_meta(bias, dt) if has_bias else None,
            empty_meta(bias, dt) if has_bias else None)
