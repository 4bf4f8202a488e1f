"""RNN, LSTM, GRU, their cells and nn.utils.rnn against torch: outputs, final states and
gradients (input, initial states, every parameter) from copied weights."""
import numpy as np
import pytest
from nn_compare import assert_close, pair, to_ember, to_torch

import ember
from ember.nn.utils import rnn as ernn

torch = pytest.importorskip("torch")
tnn = torch.nn

TOL = {torch.float64: {"rtol": 1e-7, "atol": 1e-9}, torch.float32: {"rtol": 1e-4, "atol": 1e-5}}
EDTYPE = {torch.float64: ember.float64, torch.float32: ember.float32}


def twins(cls_name, *args, dtype=torch.float64, **kwargs):
    """The torch module and an ember one holding the same weights."""
    torch.manual_seed(0)
    t = getattr(tnn, cls_name)(*args, dtype=dtype, **kwargs)
    e = getattr(ember.nn, cls_name)(*args, dtype=EDTYPE[dtype], **kwargs)
    e.load_state_dict({k: to_ember(v, requires_grad=False) for k, v in t.state_dict().items()})
    return t, e


def flat(result):
    """The tensors of an (output, hidden) result, packed sequences and LSTM tuples opened."""
    if isinstance(result, (tnn.utils.rnn.PackedSequence, ernn.PackedSequence)):
        return [result.data]
    if isinstance(result, (tuple, list)):
        return [x for r in result for x in flat(r)]
    return [result]


def compare(t_mod, e_mod, t_args, e_args, dtype, t_out=None, e_out=None):
    """Forward both (unless given their outputs), compare every output, backprop the same
    gradients, compare grads of the inputs and of every parameter."""
    if t_out is None:
        t_out, e_out = t_mod(*t_args), e_mod(*e_args)
    t_out, e_out = flat(t_out), flat(e_out)
    assert len(t_out) == len(e_out)
    gen = torch.Generator().manual_seed(3)
    grads = [torch.randn(t.shape, generator=gen, dtype=t.dtype) for t in t_out]
    for t, e in zip(t_out, e_out, strict=True):
        assert_close(e, t, **TOL[dtype])
        assert tuple(e.stride()) == tuple(t.stride())
    torch.autograd.backward(t_out, grads)
    ember.autograd.backward(e_out, [to_ember(g) for g in grads])
    for t, e in zip(flat(t_args), flat(e_args), strict=True):
        if t.requires_grad:
            assert_close(e.grad, t.grad, **TOL[dtype])
    e_params = dict(e_mod.named_parameters())
    for name, p in t_mod.named_parameters():
        assert_close(e_params[name].grad, p.grad, **TOL[dtype])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("cls_name, extra", [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("GRU", {}),
    ("LSTM", {"proj_size": 3}),
])
@pytest.mark.parametrize("layers, bidirectional, batch_first", [
    (1, False, False), (2, True, False), (3, True, True), (2, False, True),
])
def test_layers_match_torch(cls_name, extra, layers, bidirectional, batch_first, dtype):
    t_mod, e_mod = twins(cls_name, 4, 6, num_layers=layers, bidirectional=bidirectional,
                         batch_first=batch_first, dtype=dtype, **extra)
    shape = (3, 5, 4) if batch_first else (5, 3, 4)
    tx, ex = pair(*shape, dtype=dtype)
    compare(t_mod, e_mod, (tx,), (ex,), dtype)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("cls_name", ["RNN", "LSTM", "GRU"])
def test_initial_state_and_unbatched(cls_name, dtype):
    t_mod, e_mod = twins(cls_name, 4, 5, num_layers=2, bidirectional=True, dtype=dtype)
    tx, ex = pair(6, 2, 4, dtype=dtype)
    th, eh = pair(4, 2, 5, dtype=dtype, seed=1)
    t_hx, e_hx = th, eh
    if cls_name == "LSTM":
        tc, ec = pair(4, 2, 5, dtype=dtype, seed=2)
        t_hx, e_hx = (th, tc), (eh, ec)
    compare(t_mod, e_mod, (tx, t_hx), (ex, e_hx), dtype)
    # unbatched: (L, H_in) input with (D * layers, H) states
    tx, ex = pair(6, 4, dtype=dtype)
    compare(t_mod, e_mod, (tx,), (ex,), dtype)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("cls_name, extra", [
    ("RNN", {}), ("LSTM", {}), ("GRU", {}), ("LSTM", {"proj_size": 2}),
])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequences(cls_name, extra, enforce_sorted, dtype):
    """Bidirectional two-layer recurrences over packed variable-length batches, padded back."""
    t_mod, e_mod = twins(cls_name, 3, 4, num_layers=2, bidirectional=True, dtype=dtype,
                         **extra)
    lengths = [5, 4, 4, 2, 1] if enforce_sorted else [2, 5, 1, 4, 4]
    tx, ex = pair(5, 5, 3, dtype=dtype)
    t_packed = tnn.utils.rnn.pack_padded_sequence(tx, lengths, enforce_sorted=enforce_sorted)
    e_packed = ernn.pack_padded_sequence(ex, lengths, enforce_sorted=enforce_sorted)
    assert_close(e_packed.batch_sizes, t_packed.batch_sizes)
    t_out, t_h = t_mod(t_packed)
    e_out, e_h = e_mod(e_packed)
    t_pad, t_len = tnn.utils.rnn.pad_packed_sequence(t_out, batch_first=True, total_length=6)
    e_pad, e_len = ernn.pad_packed_sequence(e_out, batch_first=True, total_length=6)
    assert_close(e_len, t_len)
    compare(t_mod, e_mod, (tx,), (ex,), dtype, (t_pad, t_h), (e_pad, e_h))


def test_utils_rnn_match_torch():
    seqs = [torch.arange(n * 2, dtype=torch.float64).reshape(n, 2) for n in (3, 5, 1)]
    e_seqs = [to_ember(s) for s in seqs]
    for kwargs in ({}, {"batch_first": True}, {"padding_value": -1.0, "padding_side": "left"}):
        assert_close(ernn.pad_sequence(e_seqs, **kwargs),
                     tnn.utils.rnn.pad_sequence(seqs, **kwargs))
    t_packed = tnn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
    e_packed = ernn.pack_sequence(e_seqs, enforce_sorted=False)
    for e, t in zip(e_packed, t_packed, strict=True):
        assert_close(e, t)
    for e, t in zip(ernn.unpack_sequence(e_packed), tnn.utils.rnn.unpack_sequence(t_packed),
                    strict=True):
        assert_close(e, t)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        ernn.pack_sequence(e_seqs)
    with pytest.raises(ValueError, match="Expected total_length to be at least"):
        ernn.pad_packed_sequence(e_packed, total_length=2)
    assert_close(ernn.invert_permutation(ember.tensor([2, 0, 1])),
                 tnn.utils.rnn.invert_permutation(torch.tensor([2, 0, 1])))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("cls_name, extra", [
    ("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}), ("LSTMCell", {}), ("GRUCell", {}),
    ("GRUCell", {"bias": False}),
])
def test_cells_match_torch(cls_name, extra, dtype):
    t_mod, e_mod = twins(cls_name, 4, 3, dtype=dtype, **extra)
    tx, ex = pair(2, 4, dtype=dtype)
    th, eh = pair(2, 3, dtype=dtype, seed=1)
    t_hx, e_hx = th, eh
    if cls_name == "LSTMCell":
        tc, ec = pair(2, 3, dtype=dtype, seed=2)
        t_hx, e_hx = (th, tc), (eh, ec)
    compare(t_mod, e_mod, (tx, t_hx), (ex, e_hx), dtype)
    tx, ex = pair(4, dtype=dtype)   # unbatched, no state
    compare(t_mod, e_mod, (tx,), (ex,), dtype)


def test_parameters_names_init_and_repr():
    t = tnn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2, bias=False)
    e = ember.nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2, bias=False)
    assert [(n, tuple(p.shape)) for n, p in e.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert repr(e) == repr(t)
    assert e._flat_weights_names == t._flat_weights_names
    assert e.all_weights[1][0] is e.weight_ih_l0_reverse
    e.flatten_parameters()
    bound = 1 / np.sqrt(5)
    assert all(float(p.abs().max()) <= bound for p in e.parameters())
    assert repr(ember.nn.GRUCell(2, 3, bias=False)) == repr(tnn.GRUCell(2, 3, bias=False))
    assert repr(ember.nn.RNN(2, 3, nonlinearity="relu", dropout=0.5, num_layers=2)) == \
        repr(tnn.RNN(2, 3, nonlinearity="relu", dropout=0.5, num_layers=2))
    assert ember.nn.modules.rnn.LSTM is ember.nn.LSTM


def test_dropout_between_layers():
    """Dropout drops only between layers, in training; p=1 zeroes all but the first layer's
    input contribution, so the top layer sees zeros."""
    e = ember.nn.GRU(3, 4, num_layers=2, dropout=1.0, bias=False)
    out, _ = e(ember.randn(5, 2, 3))
    assert float(out.abs().max()) == 0.0
    e.eval()
    assert float(e(ember.randn(5, 2, 3))[0].abs().max()) > 0


@pytest.mark.parametrize("make, call", [
    (lambda m: m.RNN(3, 4), lambda m, T: m(T.randn(2, 2, 2, 3))),
    (lambda m: m.LSTM(3, 4), lambda m, T: m(T.randn(2, 2, 2, 3))),
    (lambda m: m.GRU(3, 4), lambda m, T: m(T.randn(5, 2, 2))),
    (lambda m: m.GRU(3, 4), lambda m, T: m(T.randn(5, 2, 3), T.randn(1, 3, 4))),
    (lambda m: m.GRU(3, 4), lambda m, T: m(T.randn(5, 2, 3), T.randn(2, 4))),
    (lambda m: m.RNN(3, 4), lambda m, T: m(T.randn(5, 3), T.randn(1, 1, 4))),
    (lambda m: m.LSTM(3, 4), lambda m, T: m(T.randn(5, 2, 3), (T.randn(2, 4),) * 2)),
    (lambda m: m.LSTM(3, 4), lambda m, T: m(T.randn(5, 2, 3), (T.randn(1, 2, 4),
                                                              T.randn(1, 2, 3)))),
    (lambda m: m.LSTM(3, 4), lambda m, T: m(T.randn(5, 2, 3, dtype=T.float64))),
    (lambda m: m.LSTMCell(3, 4), lambda m, T: m(T.randn(1, 1, 3))),
    (lambda m: m.GRUCell(3, 4), lambda m, T: m(T.randn(1, 3), T.randn(1, 1, 4))),
    (lambda m: m.RNN(3, 4, proj_size=2), None),
    (lambda m: m.LSTM(3, 4, proj_size=4), None),
    (lambda m: m.LSTM(3, 4, dropout=2), None),
    (lambda m: m.RNN(3, 4, nonlinearity="gelu"), None),
    (lambda m: m.GRU(3.0, 4), None),
    (lambda m: m.GRU(3, 0), None),
])
def test_errors_match_torch(make, call):
    with pytest.raises(Exception) as t_err:
        call(make(tnn), torch) if call else make(tnn)
    with pytest.raises(type(t_err.value)) as e_err:
        call(make(ember.nn), ember) if call else make(ember.nn)
    t_msg = str(t_err.value).replace("torch.", "")
    assert str(e_err.value).replace("ember.", "") == t_msg


def test_dropout_warning():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        ember.nn.LSTM(2, 3, dropout=0.2)


def test_lstm_language_model_step():
    """word_language_model's pattern: embedding -> 2-layer LSTM -> linear, hidden state
    carried across batches (repackage_hidden), gradient clipping, SGD; losses match torch."""
    def build(nn):
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Embedding(11, 6)
                self.rnn = nn.LSTM(6, 8, 2, dropout=0.0)
                self.decoder = nn.Linear(8, 11)

            def forward(self, x, hidden):
                out, hidden = self.rnn(self.encoder(x), hidden)
                return self.decoder(out).view(-1, 11), hidden
        return Model()

    t_model, e_model = build(tnn), build(ember.nn)
    e_model.load_state_dict({k: to_ember(v, requires_grad=False)
                             for k, v in t_model.state_dict().items()})
    gen = torch.Generator().manual_seed(0)
    data = torch.randint(0, 11, (41, 3), generator=gen)
    hidden = {"t": None, "e": None}
    for i in range(0, 40, 8):
        x, y = data[i:i + 8], data[i + 1:i + 9].reshape(-1)
        losses = []
        for lib, model, conv in (("t", t_model, lambda a: a), ("e", e_model, to_ember)):
            T = torch if lib == "t" else ember
            h = hidden[lib]
            if h is not None:
                h = tuple(s.detach() for s in h)
            model.zero_grad()
            out, hidden[lib] = model(conv(x), h)
            loss = T.nn.functional.cross_entropy(out, conv(y))
            loss.backward()
            T.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            with T.no_grad():
                for p in model.parameters():
                    p.add_(p.grad, alpha=-1.0)
            losses.append(float(loss))
        np.testing.assert_allclose(losses[1], losses[0], rtol=1e-5)
    assert to_torch(e_model.rnn.weight_hh_l1).allclose(t_model.rnn.weight_hh_l1, atol=1e-5)


@pytest.mark.parametrize("cls_name", ["LSTM", "GRU"])
def test_packed_unsorted_with_initial_state(cls_name):
    """hx given in the caller's batch order is permuted to the sorted order and back."""
    t_mod, e_mod = twins(cls_name, 3, 4, num_layers=2, bidirectional=True)
    tx, ex = pair(5, 3, 3)
    th, eh = pair(4, 3, 4, seed=1)
    t_hx, e_hx = th, eh
    if cls_name == "LSTM":
        tc, ec = pair(4, 3, 4, seed=2)
        t_hx, e_hx = (th, tc), (eh, ec)
    lengths = [2, 5, 3]
    t_out = t_mod(tnn.utils.rnn.pack_padded_sequence(tx, lengths, enforce_sorted=False), t_hx)
    e_out = e_mod(ernn.pack_padded_sequence(ex, lengths, enforce_sorted=False), e_hx)
    compare(t_mod, e_mod, (tx, t_hx), (ex, e_hx), torch.float64, t_out, e_out)
