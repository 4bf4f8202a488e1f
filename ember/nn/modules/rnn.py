"""Recurrent layers: RNN, LSTM, GRU and their single-step cells, with torch's parameter
names (weight_ih_l0, bias_hh_l1_reverse, weight_hr_l0 ...), initialisation and checks.

The recurrences are composites of ember ops (linear, sigmoid, tanh ...), as torch's CPU
runs them, so autograd comes for free. Every layer works on "packed" data, time step after
time step: a plain (T, B, *) input is a packed sequence whose batch never shrinks.

On the plain eager path (`_fused_ok`: plain float32/float64 CPU tensors, no mode,
subclass, autocast, profiler or saved-tensor hooks that could see the ops) a layer and
direction of RNN_TANH/LSTM/GRU, and an LSTMCell/GRUCell step, runs its time loop in
arrays with the same bits and records one graph node (FusedRnnLayerBackward); packed
batches that shrink and projections step through the fused cell ops
(_thnn_fused_lstm_cell, _thnn_fused_gru_cell) instead::

    >>> lstm = ember.nn.LSTM(10, 20, num_layers=2, bidirectional=True)
    >>> out, (h, c) = lstm(ember.randn(5, 3, 10))
    >>> out.shape, h.shape
    (ember.Size([5, 3, 40]), ember.Size([4, 3, 20]))
"""
from __future__ import annotations

import math
import numbers
import warnings

import ember

from ...autograd.graph import NO_EDGE, Node, gradient_edge, new_node, save, set_history_many, unpack
from ...core.tensor import Tensor, from_array
from ...dispatch import observers as _observers
from ...dispatch.tls import state as _tls
from ...kernels.cpu import rnn as _cpu_rnn
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ---------------------------------------------------------------- one time step
def _fused_ok(*tensors) -> bool:
    """Whether a step may run as one fused cell op (_thnn_fused_lstm_cell/_gru_cell) in
    place of its decomposed ops: nobody can see the ops a step runs. Plain float32/float64
    CPU tensors, and no dispatch or function mode (make_fx, fake tensors, subclasses' modes),
    no key included or excluded (autocast, functionalize, inference mode), no profiler and
    no saved-tensor hooks. Otherwise the step decomposes as torch's CPU cells do."""
    if _tls.saved_hooks or not _observers.ops_unobserved():
        return False
    for t in tensors:
        if t.__class__ not in _PLAIN or t._dtype not in _FUSED_DTYPES or t.device.type != "cpu":
            return False
    return True


_PLAIN = (Tensor, Parameter)
_FUSED_DTYPES = (ember.float32, ember.float64)


def _input_part(mode, x, w_ih, b_ih, b_hh):
    """x @ w_ih.T plus the biases that do not depend on h (GRU keeps b_hh for its n gate)."""
    if b_ih is not None and mode != "GRU":
        b_ih = b_ih + b_hh
    return F.linear(x, w_ih, b_ih)


def _step(mode, xw, state, w_hh, b_hh, w_hr, w_hh_t=None, fused=False):
    """One step of the cell from its input part xw; state is (h,) or (h, c). `w_hh_t`:
    w_hh.t() made once for all the steps of a sequence (one backward node, not one each).
    `fused` (see `_fused_ok`): the gates' nonlinearities in one op, the same sums."""
    h = state[0]
    if fused and mode == "GRU":
        hidden = ember.linear(h, w_hh, b_hh) if w_hh_t is None else \
            (h.mm(w_hh_t) if b_hh is None else ember.addmm(b_hh, h, w_hh_t))
        return (ember._thnn_fused_gru_cell(xw, hidden, h)[0],)
    if fused and mode == "LSTM":
        h, c, _ = ember._thnn_fused_lstm_cell(xw, h.mm(w_hh.t() if w_hh_t is None else w_hh_t),
                                              state[1])
        return (h if w_hr is None else h.matmul(w_hr.t()), c)
    if mode == "GRU":
        xr, xz, xn = xw.chunk(3, 1)
        hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, 1)
        r = (xr + hr).sigmoid()
        z = (xz + hz).sigmoid()
        n = (xn + r * hn).tanh()
        return (n + z * (h - n),)
    gates = ember.addmm(xw, h, w_hh.t() if w_hh_t is None else w_hh_t)
    if mode == "RNN_TANH":
        return (gates.tanh(),)
    if mode == "RNN_RELU":
        return (gates.relu(),)
    # one split into the four gates (its backward is one cat; slices would each build a
    # zero-filled gradient of all the gates)
    i, f, g, o = gates.chunk(4, 1)
    c = f.sigmoid() * state[1] + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    return (h if w_hr is None else h.matmul(w_hr.t()), c)


class FusedRnnLayerBackward(Node):
    """The backward of one layer and direction of an RNN_TANH, LSTM or GRU run as one step
    of the graph, its input projection included (`_fused_layer`): the time loop backwards
    in arrays (kernels/cpu/rnn.py); under create_graph, the layer again in ember ops,
    differentiated with a graph (double backward). Inputs: x, h0, c0, w_ih, w_hh, b_ih,
    b_hh; outputs: (outputs (T * B, H), h_T, c_T)."""

    __slots__ = ("_s_inputs", "mode", "reverse", "steps")
    _saved_list_slots = ("_s_inputs",)
    _release_after_backward = True
    materialize_grads = False

    def release_variables(self) -> None:
        super().release_variables()
        self.steps = None

    def apply(self, grads):
        inputs = [unpack(s, self) for s in self._s_inputs]
        if _tls.grad_enabled:
            return _grads_in_ops(self, inputs, grads)
        x, w_ih, w_hh, b_ih = inputs[0], inputs[3], inputs[4], inputs[5]
        arrays = _cpu_rnn._layer_backward(
            self.mode, self.steps, *(None if g is None else g._np for g in grads), x._np,
            w_ih._np, w_hh._np, b_ih is not None, self.reverse)
        dt = x._dtype
        return tuple(None if a is None or not need else from_array(a, dt)
                     for a, need in zip(arrays, self._needs))


def _layer_ops(mode, reverse, x, h0, c0, w_ih, w_hh, b_ih, b_hh):
    """`_fused_layer`'s computation in ember ops: the decomposed steps torch's CPU runs."""
    batch = h0.shape[0]
    xw = _input_part(mode, x, w_ih, b_ih, b_hh)
    out, state = _run_direction(mode, xw, [batch] * (x.shape[0] // batch),
                                (h0,) if c0 is None else (h0, c0), (w_hh, b_hh, None),
                                reverse, allow_fused=False)
    return (out, *state)


def _grads_in_ops(node, inputs, grads):
    """FusedRnnLayerBackward's gradients under create_graph: the layer again in ember ops
    on the saved inputs, differentiated with a graph."""
    needs = node._needs
    wanted = [t for t, need in zip(inputs, needs) if need]
    with ember.enable_grad():
        outputs = _layer_ops(node.mode, node.reverse, *inputs)
    pairs = [(o, g) for o, g in zip(outputs, grads) if g is not None]
    found = iter(ember.autograd.grad([o for o, _ in pairs], wanted, [g for _, g in pairs],
                                     create_graph=True, allow_unused=True))
    return tuple(next(found) if need else None for need in needs)


def _array(t):
    return None if t is None else t._np


def _fused_layer(mode, x, batch_sizes, hidden, weights, reverse):
    """(outputs, final state) of one layer and direction as one step of the graph
    (FusedRnnLayerBackward), the time loop in arrays, or None when it does not apply: a
    mode or subclass could see the ops (`_fused_ok`), RNN_RELU, projections, a batch that
    shrinks (packed sequences of different lengths)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    if mode == "RNN_RELU" or w_hr is not None or not batch_sizes or \
            not batch_sizes[0] == batch_sizes[-1] > 0 or \
            not _fused_ok(x, *hidden, *(w for w in weights if w is not None)):
        return None
    # (shapes that do not fit: the ops' own errors, from the decomposed path)
    state_shape = (batch_sizes[0], w_hh.shape[1])
    if x.shape != (batch_sizes[0] * len(batch_sizes), w_ih.shape[1]) or \
            any(s.shape != state_shape for s in hidden):
        return None
    lstm = mode == "LSTM"
    c0 = hidden[1] if lstm else None
    out, h, c, steps = _cpu_rnn._layer_forward(
        mode, x._np, w_ih._np, w_hh._np, _array(b_ih), _array(b_hh), hidden[0]._np,
        _array(c0), reverse)
    dt = x._dtype
    out, h = from_array(out, dt), from_array(h.copy(), dt)
    c = None if c is None else from_array(c.copy(), dt)
    if _tls.grad_enabled:
        inputs = (x, hidden[0], c0, w_ih, w_hh, b_ih, b_hh)
        edges = [None if t is None else gradient_edge(t) for t in inputs]
        if any(e is not None for e in edges):
            node = new_node(FusedRnnLayerBackward, tuple(e or NO_EDGE for e in edges),
                            tuple(e is not None for e in edges))
            node.mode, node.reverse, node.steps = mode, reverse, steps
            node._s_inputs = [save(t) for t in inputs]
            set_history_many((out, h, c), node)
    return out, ((h, c) if lstm else (h,))


def _run_direction(mode, xw, batch_sizes, hidden, weights, reverse, allow_fused=True):
    """Run one layer and direction over packed input parts xw (sum(batch_sizes), G).

    Returns the packed outputs and the final state, each sequence's state after its own
    last step (the batch shrinks as sequences end, longest first)."""
    w_hh, b_hh, w_hr = weights
    fused = allow_fused and mode in ("LSTM", "GRU") and _fused_ok(
        xw, *hidden, *(w for w in weights if w is not None))
    w_hh_t = None if mode == "GRU" and not fused else w_hh.t()
    steps = list(enumerate(xw.split(batch_sizes)))
    outputs, done = [], []
    if reverse:
        steps.reverse()
        state = tuple(s[:batch_sizes[-1]] for s in hidden)
    else:
        state = hidden
    for t, x in steps:
        bs, cur = batch_sizes[t], state[0].shape[0]
        if bs < cur:
            done.append(tuple(s[bs:] for s in state))
            state = tuple(s[:bs] for s in state)
        elif bs > cur:
            state = tuple(ember.cat([s, h0[cur:bs]]) for s, h0 in zip(state, hidden))
        state = _step(mode, x, state, w_hh, b_hh, w_hr, w_hh_t, fused)
        outputs.append(state[0])
    if reverse:
        outputs.reverse()
    if done:
        state = tuple(ember.cat([s, *(d[i] for d in reversed(done))]) for i, s in
                      enumerate(state))
    return ember.cat(outputs), state


# ---------------------------------------------------------------- layers
class RNNBase(Module):
    """The multi-layer, optionally bidirectional recurrence RNN, LSTM and GRU share."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int),
                                  ("hidden_size", hidden_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                                f"{type(value).__name__}")
            if kind is int and value <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        factory = {"device": device, "dtype": dtype}
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else real_hidden_size * directions
            for direction in range(directions):
                shapes = [(gate_size, layer_input_size), (gate_size, real_hidden_size)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    shapes += [(gate_size,), (gate_size,)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    shapes.append((proj_size, hidden_size))
                    names.append("weight_hr_l{}{}")
                names = [n.format(layer, "_reverse" if direction else "") for n in names]
                for name, shape in zip(names, shapes, strict=True):
                    setattr(self, name, Parameter(ember.empty(shape, **factory)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op: there is no cuDNN weight buffer to compact."""

    def reset_parameters(self) -> None:
        """torch's default: every weight and bias from U(-1/sqrt(hidden), 1/sqrt(hidden))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # -- checks
    def check_input(self, input, batch_sizes):
        weight_dtype = self.weight_ih_l0.dtype
        if input.dtype != weight_dtype and not ember.is_autocast_enabled():
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight_dtype}). Convert input: input.to({weight_dtype}), or "
                             f"convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.shape[0] if self.batch_first else input.shape[1]
        directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.shape)))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    # -- forward
    def _state_shapes(self, batch):
        """The shapes of the zero initial states (h,) or (h, c)."""
        directions = 2 if self.bidirectional else 1
        return [(self.num_layers * directions, batch, self.hidden_size)]

    def _check_hx_dims(self, hx, batched):
        """torch's error for an hx whose dimensions do not match the input's."""
        want = 3 if batched else 2
        if hx.dim() != want:
            raise RuntimeError(
                f"For {'batched 3' if batched else 'unbatched 2'}-D input, hx should also be "
                f"{want}-D but got {hx.dim()}-D tensor")

    def _check_state(self, input, hx, batch_sizes):
        self.check_forward_args(input, hx[0], batch_sizes)

    def forward(self, input, hx=None):
        packed = isinstance(input, PackedSequence)
        batched = True
        if packed:
            input, batch_sizes_t, sorted_indices, unsorted_indices = input
            batch_sizes = batch_sizes_t.tolist()
        else:
            name = "RNN" if self.mode.startswith("RNN") else self.mode
            if input.dim() not in (2, 3):
                what = " tensor" if name == "RNN" else ""
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                                 f"{what} instead")
            batched = input.dim() == 3
            if not batched:
                input = input.unsqueeze(0 if self.batch_first else 1)
            batch_sizes_t = sorted_indices = unsorted_indices = None
        if hx is None:
            batch = batch_sizes[0] if packed else input.shape[0 if self.batch_first else 1]
            state = tuple(ember.zeros(shape, dtype=input.dtype, device=input.device)
                          for shape in self._state_shapes(batch))
        else:
            state = (hx,) if isinstance(hx, ember.Tensor) else tuple(hx)
            if not packed:
                self._check_hx_dims(hx, batched)
                if not batched:
                    state = tuple(s.unsqueeze(1) for s in state)
        self._check_state(input, state, batch_sizes_t)
        state = tuple(self.permute_hidden(s, sorted_indices) for s in state)
        if not packed:
            if self.batch_first:
                input = input.transpose(0, 1)
            steps, batch = input.shape[:2]
            batch_sizes = [batch] * steps
            input = input.reshape(steps * batch, input.shape[-1])
        output, state = self._layers(input, batch_sizes, state)
        if packed:
            output = PackedSequence(output, batch_sizes_t, sorted_indices, unsorted_indices)
            state = tuple(self.permute_hidden(s, unsorted_indices) for s in state)
        else:
            output = output.view(steps, batch, output.shape[-1])
            if self.batch_first:
                output = output.transpose(0, 1)
            if not batched:
                output = output.squeeze(1)
                state = tuple(s.squeeze(1) for s in state)
        return output, (state if self.mode == "LSTM" else state[0])

    def _layers(self, data, batch_sizes, state):
        """All layers over packed data; the final states stacked like torch's h_n (c_n)."""
        directions = 2 if self.bidirectional else 1
        finals = []
        for layer in range(self.num_layers):
            if layer and self.dropout and self.training:
                data = F.dropout(data, self.dropout, True)
            outs = []
            for direction in range(directions):
                k = layer * directions + direction
                w = dict(zip(("w_ih", "w_hh", "b_ih", "b_hh", "w_hr")
                             if self.bias else ("w_ih", "w_hh", "w_hr"),
                             self.all_weights[k]))
                hidden = tuple(s[k] for s in state)
                result = _fused_layer(self.mode, data, batch_sizes, hidden,
                                      (w["w_ih"], w["w_hh"], w.get("b_ih"), w.get("b_hh"),
                                       w.get("w_hr")), direction == 1)
                if result is None:
                    xw = _input_part(self.mode, data, w["w_ih"], w.get("b_ih"), w.get("b_hh"))
                    result = _run_direction(self.mode, xw, batch_sizes, hidden,
                                            (w["w_hh"], w.get("b_hh"), w.get("w_hr")),
                                            reverse=direction == 1)
                out, final = result
                outs.append(out)
                finals.append(final)
            data = outs[0] if directions == 1 else ember.cat(outs, 1)
        return data, tuple(ember.stack([f[i] for f in finals]) for i in range(len(state)))


class RNN(RNNBase):
    """Elman RNN, h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu).

    >>> rnn = ember.nn.RNN(4, 8, num_layers=2, nonlinearity="relu", batch_first=True)
    >>> out, h = rnn(ember.randn(3, 5, 4))
    >>> out.shape, h.shape
    (ember.Size([3, 5, 8]), ember.Size([2, 3, 8]))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args,
                         **kwargs)


class LSTM(RNNBase):
    """Long short-term memory; forward returns (output, (h_n, c_n)).

    proj_size > 0 projects h through weight_hr (h_n then has proj_size features).
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def _state_shapes(self, batch):
        directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return [(self.num_layers * directions, batch, size),
                (self.num_layers * directions, batch, self.hidden_size)]

    def _check_hx_dims(self, hx, batched):
        want = 3 if batched else 2
        if hx[0].dim() != want or hx[1].dim() != want:
            raise RuntimeError(
                f"For {'batched 3' if batched else 'unbatched 2'}-D input, hx and cx should "
                f"also be {want}-D but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")

    def get_expected_cell_size(self, input, batch_sizes):
        expected = self.get_expected_hidden_size(input, batch_sizes)
        return expected[:2] + (self.hidden_size,)

    def _check_state(self, input, hx, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hx[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hx[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")


class GRU(RNNBase):
    """Gated recurrent unit (gates r, z, n in torch's order)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# ---------------------------------------------------------------- cells
class RNNCellBase(Module):
    """One step of a recurrence: weight_ih, weight_hh, bias_ih, bias_hh."""

    _mode = ""
    _name = ""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(ember.empty((num_chunks * hidden_size, input_size),
                                               **factory))
        self.weight_hh = Parameter(ember.empty((num_chunks * hidden_size, hidden_size),
                                               **factory))
        if bias:
            self.bias_ih = Parameter(ember.empty(num_chunks * hidden_size, **factory))
            self.bias_hh = Parameter(ember.empty(num_chunks * hidden_size, **factory))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _cell(self, input, state):
        """The step on batched input and state tuple."""
        mode = self._mode
        weights = (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if mode in ("LSTM", "GRU"):
            result = _fused_layer(mode, input, [input.shape[0]], state, (*weights, None),
                                  False)
            if result is not None:
                return result[1]
        w_ih, w_hh, b_ih, b_hh = weights
        return _step(mode, _input_part(mode, input, w_ih, b_ih, b_hh), state, w_hh, b_hh, None)

    def forward(self, input, hx=None):
        name = self._name
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        lstm = self._mode == "LSTM"
        if hx is not None:
            for idx, value in enumerate(hx if lstm else (hx,)):
                if value.dim() not in (1, 2):
                    what = f"hx[{idx}]" if lstm else "hidden"
                    raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = ember.zeros((input.shape[0], self.hidden_size), dtype=input.dtype,
                                device=input.device)
            state = (zeros, zeros) if lstm else (zeros,)
        else:
            state = tuple(hx) if lstm else (hx,)
            if not batched:
                state = tuple(s.unsqueeze(0) for s in state)
        state = self._cell(input, state)
        if not batched:
            state = tuple(s.squeeze(0) for s in state)
        return state if lstm else state[0]


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    _name = "RNNCell"

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    @property
    def _mode(self):
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"


class LSTMCell(RNNCellBase):
    """One LSTM step: (h, c) -> (h', c')."""

    _mode = "LSTM"
    _name = "LSTMCell"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)


class GRUCell(RNNCellBase):
    """One GRU step."""

    _mode = "GRU"
    _name = "GRUCell"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)
