"""Transformer, TransformerEncoder(Layer) and TransformerDecoder(Layer) against torch:
outputs and gradients from copied weights, with masks, norm_first, activations."""
import warnings

import numpy as np
import pytest
from nn_compare import assert_close, graph_names, pair, to_ember

import ember
import ember.nn.functional as EF

torch = pytest.importorskip("torch")
tnn = torch.nn
TF = torch.nn.functional

TOL = {torch.float64: {"rtol": 1e-7, "atol": 1e-9}, torch.float32: {"rtol": 1e-4, "atol": 1e-5}}
EDTYPE = {torch.float64: ember.float64, torch.float32: ember.float32}


def copy_weights(t_mod, e_mod):
    e_mod.load_state_dict({k: to_ember(v, requires_grad=False)
                           for k, v in t_mod.state_dict().items()})


def build(make, dtype):
    """make(nn, F, dtype) for torch and ember, the ember twin holding torch's weights."""
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_mod = make(tnn, TF, dtype)
        e_mod = make(ember.nn, EF, EDTYPE[dtype])
    copy_weights(t_mod, e_mod)
    return t_mod, e_mod


def check(t_mod, e_mod, t_args, e_args, dtype, t_kw=None, e_kw=None, same_graph=False):
    """Outputs, strides and gradients alike; `same_graph`: the same backward nodes too."""
    t_out = t_mod(*t_args, **(t_kw or {}))
    e_out = e_mod(*e_args, **(e_kw or {}))
    assert_close(e_out, t_out, **TOL[dtype])
    assert tuple(e_out.stride()) == tuple(t_out.stride())
    if same_graph:
        assert graph_names(e_out) == graph_names(t_out)
    grad = torch.randn(t_out.shape, generator=torch.Generator().manual_seed(1), dtype=dtype)
    t_out.backward(grad)
    e_out.backward(to_ember(grad))
    for t, e in zip(t_args, e_args, strict=True):
        if t.requires_grad:
            assert_close(e.grad, t.grad, **TOL[dtype])
    e_params = dict(e_mod.named_parameters())
    assert list(e_params) == [n for n, _ in t_mod.named_parameters()]
    for name, p in t_mod.named_parameters():
        assert_close(e_params[name].grad, p.grad, **TOL[dtype])


def masks(lib, n, batch, dtype):
    """A float attention mask and a bool key padding mask (last positions padded)."""
    T = torch if lib == "t" else ember
    attn = T.nn.Transformer.generate_square_subsequent_mask(n, dtype=dtype)
    pad = T.zeros((batch, n), dtype=T.bool)
    pad[0, n - 2:] = True
    return attn, pad


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu", "callable"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_layer(norm_first, activation, batch_first, dtype):
    def make(nn, F, dt):
        act = (lambda x: F.silu(x)) if activation == "callable" else activation
        return nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=act,
                                          batch_first=batch_first, norm_first=norm_first,
                                          dtype=dt)
    t_mod, e_mod = build(make, dtype)
    tx, ex = pair(*((3, 5, 8) if batch_first else (5, 3, 8)), dtype=dtype)
    t_attn, t_pad = masks("t", 5, 3, dtype)
    e_attn, e_pad = masks("e", 5, 3, EDTYPE[dtype])
    check(t_mod, e_mod, (tx,), (ex,), dtype,
          {"src_mask": t_attn, "src_key_padding_mask": t_pad},
          {"src_mask": e_attn, "src_key_padding_mask": e_pad})


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("mask_kind", ["none", "causal", "bool", "padding", "is_causal"])
def test_encoder_with_masks(mask_kind, dtype):
    def make(nn, F, dt):
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=dt)
        return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8, dtype=dt))
    t_mod, e_mod = build(make, dtype)
    tx, ex = pair(6, 2, 8, dtype=dtype)
    t_attn, t_pad = masks("t", 6, 2, dtype)
    e_attn, e_pad = masks("e", 6, 2, EDTYPE[dtype])
    t_kw, e_kw = {
        "none": ({}, {}),
        "causal": ({"mask": t_attn}, {"mask": e_attn}),
        "bool": ({"mask": t_attn.isinf()}, {"mask": e_attn.isinf()}),
        "padding": ({"src_key_padding_mask": t_pad}, {"src_key_padding_mask": e_pad}),
        "is_causal": ({"mask": t_attn, "is_causal": True}, {"mask": e_attn, "is_causal": True}),
    }[mask_kind]
    # (torch's flash kernel also takes masks; ember's masked attention is the math path)
    check(t_mod, e_mod, (tx,), (ex,), dtype, t_kw, e_kw,
          same_graph=mask_kind in ("none", "causal", "is_causal"))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder(norm_first, dtype):
    def make(nn, F, dt):
        layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=norm_first,
                                           batch_first=True, activation=F.gelu, dtype=dt)
        return nn.TransformerDecoder(layer, 2)
    t_mod, e_mod = build(make, dtype)
    tx, ex = pair(2, 5, 8, dtype=dtype)
    tm, em = pair(2, 4, 8, dtype=dtype, seed=2)
    t_attn, t_pad = masks("t", 5, 2, dtype)
    e_attn, e_pad = masks("e", 5, 2, EDTYPE[dtype])
    t_mpad, e_mpad = t_pad[:, 1:], e_pad[:, 1:]
    check(t_mod, e_mod, (tx, tm), (ex, em), dtype,
          {"tgt_mask": t_attn, "tgt_key_padding_mask": t_pad, "memory_key_padding_mask": t_mpad},
          {"tgt_mask": e_attn, "tgt_key_padding_mask": e_pad, "memory_key_padding_mask": e_mpad})


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_transformer(dtype):
    def make(nn, F, dt):
        return nn.Transformer(8, 2, 2, 1, 16, dropout=0.0, dtype=dt)
    t_mod, e_mod = build(make, dtype)
    ts, es = pair(6, 2, 8, dtype=dtype)
    tt, et = pair(4, 2, 8, dtype=dtype, seed=2)
    tgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=dtype)
    check(t_mod, e_mod, (ts, tt), (es, et), dtype, {"tgt_mask": tgt_mask},
          {"tgt_mask": to_ember(tgt_mask)})
    # unbatched input, eval mode (torch keeps its slow path while grads are wanted)
    t_mod.eval()
    e_mod.eval()
    check(t_mod, e_mod, (ts[:, 0].detach(), tt[:, 0].detach()),
          (es[:, 0].detach(), et[:, 0].detach()), dtype)


def test_surface_matches_torch():
    mask = ember.nn.Transformer.generate_square_subsequent_mask(3)
    assert_close(mask, torch.nn.Transformer.generate_square_subsequent_mask(3))
    t = tnn.Transformer(8, 2, 1, 1, 16)
    e = ember.nn.Transformer(8, 2, 1, 1, 16)
    assert repr(e) == repr(t)
    assert [(n, tuple(p.shape)) for n, p in e.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    # xavier_uniform_ on every matrix: within the bound of its fan
    w = e.encoder.layers[0].linear1.weight
    assert float(w.abs().max()) <= np.sqrt(6 / (8 + 16))
    assert ember.nn.modules.transformer.TransformerEncoderLayer is ember.nn.TransformerEncoderLayer
    linear = ember.nn.modules.linear.NonDynamicallyQuantizableLinear
    assert isinstance(e.encoder.layers[0].self_attn.out_proj, linear)
    assert e.encoder.layers[0].activation_relu_or_gelu == 1
    assert ember.nn.TransformerEncoderLayer(8, 2, activation="gelu").activation is EF.gelu


def test_warnings_and_errors_match_torch():
    for kwargs in ({}, {"batch_first": True, "norm_first": True},
                   {"batch_first": True}, {"batch_first": True, "bias": False}):
        with warnings.catch_warnings(record=True) as t_w:
            warnings.simplefilter("always")
            tnn.TransformerEncoder(tnn.TransformerEncoderLayer(8, 2, **kwargs), 1)
        with warnings.catch_warnings(record=True) as e_w:
            warnings.simplefilter("always")
            ember.nn.TransformerEncoder(ember.nn.TransformerEncoderLayer(8, 2, **kwargs), 1)
        assert [str(w.message) for w in e_w] == [str(w.message) for w in t_w]
    for make, call in (
        (lambda nn: nn.TransformerEncoderLayer(8, 2, activation="tanh"), None),
        (lambda nn: nn.Transformer(8, 2, 1, 1, 16),
         lambda m, T: m(T.zeros(3, 2, 8), T.zeros(3, 4, 8))),
        (lambda nn: nn.Transformer(8, 2, 1, 1, 16),
         lambda m, T: m(T.zeros(3, 2, 8), T.zeros(3, 2, 6))),
        (lambda nn: nn.TransformerEncoderLayer(8, 2),
         lambda m, T: m(T.zeros(3, 2, 8), src_mask=T.zeros(3, 3, dtype=T.int64))),
    ):
        with pytest.raises(Exception) as t_err, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(make(tnn), torch) if call else make(tnn)
        with pytest.raises(type(t_err.value)) as e_err, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(make(ember.nn), ember) if call else make(ember.nn)
        assert str(e_err.value).replace("ember.", "torch.") == str(t_err.value)


def test_transformer_encoder_training_steps():
    """word_language_model's TransformerModel pattern: embedding, causal encoder, decoder
    linear, Adam-free SGD with clipping; 10 steps of losses equal torch's."""
    def make(nn, F, dt):
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Embedding(13, 8)
                layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
                self.transformer_encoder = nn.TransformerEncoder(layer, 2)
                self.decoder = nn.Linear(8, 13)

            def forward(self, src, mask):
                return F.log_softmax(self.decoder(self.transformer_encoder(
                    self.encoder(src) * 8 ** 0.5, mask)), dim=-1)
        return Model()
    t_model, e_model = build(make, torch.float32)
    data = torch.randint(0, 13, (11, 4), generator=torch.Generator().manual_seed(0))
    mask = tnn.Transformer.generate_square_subsequent_mask(10)
    for _ in range(10):
        losses = []
        for T, model, conv in ((torch, t_model, lambda a: a), (ember, e_model, to_ember)):
            model.zero_grad()
            out = model(conv(data[:10]), conv(mask))
            loss = T.nn.functional.nll_loss(out.view(-1, 13), conv(data[1:].reshape(-1)))
            loss.backward()
            T.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            with T.no_grad():
                for p in model.parameters():
                    p.add_(p.grad, alpha=-0.5)
            losses.append(float(loss))
        np.testing.assert_allclose(losses[1], losses[0], rtol=1e-4)


def test_char_gpt_training_steps():
    """minGPT/nanoGPT's pattern: token + position embeddings, causal self-attention through
    F.scaled_dot_product_attention(is_causal=True), pre-norm blocks with a GELU MLP, AdamW
    with weight-decay groups, gradient clipping; 20 steps of losses equal torch's."""
    def make(nn, F, dt):
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.ln_1, self.ln_2 = nn.LayerNorm(16), nn.LayerNorm(16)
                self.c_attn, self.c_proj = nn.Linear(16, 48), nn.Linear(16, 16)
                self.mlp = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 16))

            def attn(self, x):
                b, t, c = x.shape
                q, k, v = self.c_attn(x).split(16, dim=2)
                q, k, v = (y.view(b, t, 4, 4).transpose(1, 2) for y in (q, k, v))
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))

            def forward(self, x):
                x = x + self.attn(self.ln_1(x))
                return x + self.mlp(self.ln_2(x))

        class GPT(nn.Module):
            def __init__(self):
                super().__init__()
                self.wte, self.wpe = nn.Embedding(11, 16), nn.Embedding(8, 16)
                self.blocks = nn.ModuleList([Block(), Block()])
                self.ln_f, self.lm_head = nn.LayerNorm(16), nn.Linear(16, 11, bias=False)

            def forward(self, idx):
                x = self.wte(idx) + self.wpe.weight[: idx.shape[1]]
                for block in self.blocks:
                    x = block(x)
                return self.lm_head(self.ln_f(x))
        return GPT()

    t_model, e_model = build(make, torch.float32)
    data = torch.randint(0, 11, (4, 9), generator=torch.Generator().manual_seed(0))
    optimizers = []
    for T, model in ((torch, t_model), (ember, e_model)):
        decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
        no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
        optimizers.append(T.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                         {"params": no_decay, "weight_decay": 0.0}],
                                        lr=3e-3, betas=(0.9, 0.95)))
    for _ in range(20):
        losses = []
        for T, model, opt, conv in ((torch, t_model, optimizers[0], lambda a: a),
                                    (ember, e_model, optimizers[1], to_ember)):
            logits = model(conv(data[:, :-1]))
            loss = T.nn.functional.cross_entropy(logits.reshape(-1, 11),
                                                 conv(data[:, 1:].reshape(-1)))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            T.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(float(loss.detach()))
        np.testing.assert_allclose(losses[1], losses[0], rtol=2e-4)


@pytest.mark.parametrize("left_aligned", [True, False])
@pytest.mark.parametrize("grad", [False, True])
def test_encoder_inference_zeroes_padding_like_torchs_nested_path(left_aligned, grad):
    def make(nn, F, dt):
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=dt)
        return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8, dtype=dt))
    t_mod, e_mod = build(make, torch.float32)
    t_mod.eval()
    e_mod.eval()
    tx, ex = pair(2, 5, 8, dtype=torch.float32, requires_grad=False)
    pad = torch.zeros(2, 5, dtype=torch.bool)
    pad[0, 3:] = True
    if not left_aligned:
        pad[1, 1] = True
    with torch.set_grad_enabled(grad), ember.set_grad_enabled(grad):
        t_out = t_mod(tx, src_key_padding_mask=pad)
        e_out = e_mod(ex, src_key_padding_mask=to_ember(pad))
    assert_close(e_out, t_out, rtol=1e-4, atol=1e-5)
