"""ember.nn layers against torch.nn: same state in (copied through NumPy), same outputs and
input/parameter gradients out; state_dict keys, repr, train/eval behaviour, default
initialisation and errors."""
import math
import warnings

import numpy as np
import pytest
from nn_compare import (
    assert_attention_close,
    assert_close,
    assert_grads_close,
    backward_both,
    pair,
    to_ember,
    to_torch,
)

import ember
import ember.nn as enn

torch = pytest.importorskip("torch")
tnn = torch.nn


def copy_state(t_module, e_module):
    """Load torch's state_dict into the ember module; the keys must be the same."""
    t_state = t_module.state_dict()
    assert list(e_module.state_dict()) == list(t_state)
    e_module.load_state_dict({k: to_ember(v, requires_grad=False) for k, v in t_state.items()})


def build(name, *args, **kwargs):
    """torch's and ember's layer `name` with the same arguments, ember loaded with torch's
    state; float64 parameters for layers that have any."""
    t_module = getattr(tnn, name)(*args, **kwargs).double()
    e_module = getattr(enn, name)(*args, **kwargs).double()
    copy_state(t_module, e_module)
    return t_module, e_module


def check_layer(t_module, e_module, *inputs, rtol=1e-6, atol=1e-7):
    """Run both layers on the (torch, ember) input pairs; compare outputs, then the input and
    parameter gradients after a backward of the same random upstream gradient."""
    t_out = t_module(*[t for t, _ in inputs])
    e_out = e_module(*[e for _, e in inputs])
    assert_close(e_out, t_out, rtol, atol)
    if t_out.requires_grad:
        backward_both(e_out, t_out)
        assert_grads_close([e for _, e in inputs], [t for t, _ in inputs], rtol, atol)
        t_params = dict(t_module.named_parameters())
        e_params = dict(e_module.named_parameters())
        assert list(e_params) == list(t_params)
        assert_grads_close(list(e_params.values()), list(t_params.values()), rtol, atol)
    return e_out, t_out


# --------------------------------------------------------------------------- conv

CONV_CASES = [
    ((4, 6, 3), {}), ((4, 6, 3), {"stride": 2, "padding": 1}), ((4, 6, 3), {"dilation": 2}),
    ((4, 6, 3), {"groups": 2, "bias": False}), ((4, 6, 3), {"padding": "same"}),
    ((4, 6, 4), {"padding": "same", "dilation": 2}), ((4, 6, 3), {"padding": "valid"}),
    ((4, 6, 3), {"padding": 2, "padding_mode": "reflect"}),
    ((4, 6, 3), {"padding": 1, "padding_mode": "replicate"}),
    ((4, 6, 3), {"padding": 1, "padding_mode": "circular"}),
    ((4, 6, 3), {"padding": "same", "padding_mode": "circular"}),
]


@pytest.mark.parametrize("args,kwargs", CONV_CASES, ids=str)
def test_conv1d(args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch/ember: 'same' with an even kernel pads a copy
        t_conv, e_conv = build("Conv1d", *args, **kwargs)
        check_layer(t_conv, e_conv, pair(2, 4, 11))
        check_layer(t_conv, e_conv, pair(4, 9, seed=3))  # unbatched
    assert repr(e_conv) == repr(t_conv)


@pytest.mark.parametrize("args,kwargs", CONV_CASES + [((4, 6, (3, 2)), {"stride": (2, 1)})],
                         ids=str)
def test_conv2d(args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_conv, e_conv = build("Conv2d", *args, **kwargs)
        check_layer(t_conv, e_conv, pair(2, 4, 9, 8))
    assert repr(e_conv) == repr(t_conv)


def test_conv_default_initialisation():
    ember.manual_seed(0)
    conv = enn.Conv2d(8, 16, 3)
    bound = 1 / math.sqrt(8 * 9)  # kaiming_uniform_(a=sqrt(5)) gives 1/sqrt(fan_in)
    weight = conv.weight.detach().numpy()
    assert weight.shape == (16, 8, 3, 3) and np.abs(weight).max() <= bound
    assert abs(weight.std() - bound / math.sqrt(3)) < 0.1 * bound
    assert np.abs(conv.bias.detach().numpy()).max() <= bound
    assert conv.weight.dtype == ember.float32 and conv.weight.requires_grad
    assert list(dict(conv.named_parameters())) == ["weight", "bias"]


@pytest.mark.parametrize("kwargs,error", [
    ({"groups": 0}, "groups must be a positive integer"),
    ({"groups": 4}, "in_channels must be divisible by groups"),
    ({"padding": "full"}, "Invalid padding string 'full'"),
    ({"padding": "same", "stride": 2}, "padding='same' is not supported for strided"),
    ({"padding_mode": "mirror"}, "padding_mode must be one of"),
])
def test_conv_argument_errors(kwargs, error):
    with pytest.raises(ValueError, match=error):
        enn.Conv2d(6, 6, 3, **kwargs)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        enn.Conv1d(4, 6, 3, groups=4)


def test_conv_rejects_wrong_channels():
    conv = enn.Conv2d(3, 4, 3)
    with pytest.raises(RuntimeError):
        conv(ember.randn(1, 5, 8, 8))


# --------------------------------------------------------------------------- pooling


@pytest.mark.parametrize("name,args,kwargs", [
    ("MaxPool2d", (2,), {}), ("MaxPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("MaxPool2d", ((2, 3),), {"dilation": 2}), ("AvgPool2d", (2,), {}),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "count_include_pad": False}),
    ("AvgPool2d", (2,), {"ceil_mode": True, "divisor_override": 3}),
    ("AdaptiveAvgPool2d", ((3, 2),), {}), ("AdaptiveAvgPool2d", (1,), {}),
    ("AdaptiveAvgPool2d", ((None, 4),), {}),
])
def test_pooling(name, args, kwargs):
    t_pool, e_pool = build(name, *args, **kwargs)
    check_layer(t_pool, e_pool, pair(2, 3, 9, 8))
    check_layer(t_pool, e_pool, pair(3, 9, 8, seed=1))
    assert repr(e_pool) == repr(t_pool)
    assert e_pool.state_dict() == {} and list(e_pool.parameters()) == []


def test_max_pool_return_indices():
    t_pool, e_pool = build("MaxPool2d", 3, stride=2, return_indices=True)
    t, e = pair(1, 2, 7, 7)
    (e_out, e_idx), (t_out, t_idx) = e_pool(e), t_pool(t)
    assert_close(e_out, t_out)
    assert_close(e_idx, t_idx)


# --------------------------------------------------------------------------- batch norm


@pytest.mark.parametrize("name,shape", [("BatchNorm1d", (6, 3)), ("BatchNorm1d", (4, 3, 5)),
                                        ("BatchNorm2d", (2, 3, 4, 5))])
@pytest.mark.parametrize("kwargs", [{}, {"momentum": None}, {"momentum": 0.5, "eps": 1e-3},
                                    {"affine": False}, {"track_running_stats": False},
                                    {"bias": False}])
def test_batch_norm_train_then_eval(name, shape, kwargs):
    t_bn, e_bn = build(name, 3, **kwargs)
    for step in range(3):
        check_layer(t_bn, e_bn, pair(*shape, seed=step), atol=1e-6)
    for (e_key, e_value), (t_key, t_value) in zip(e_bn.state_dict().items(),
                                                  t_bn.state_dict().items(), strict=True):
        assert e_key == t_key
        assert_close(e_value, t_value)
    t_bn.eval()
    e_bn.eval()
    assert not e_bn.training
    check_layer(t_bn, e_bn, pair(*shape, seed=7), atol=1e-6)
    assert repr(e_bn) == repr(t_bn)


def test_batch_norm_state_dict_keys_and_buffers():
    bn = enn.BatchNorm2d(4)
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                     "num_batches_tracked"]
    assert bn.num_batches_tracked.dtype == ember.int64 and int(bn.num_batches_tracked) == 0
    assert bn.weight.tolist() == [1.0] * 4 and bn.bias.tolist() == [0.0] * 4
    assert bn.running_var.tolist() == [1.0] * 4 and bn.running_mean.tolist() == [0.0] * 4
    bn(ember.randn(2, 4, 3, 3))
    bn(ember.randn(2, 4, 3, 3))
    assert int(bn.num_batches_tracked) == 2
    bn.reset_running_stats()
    assert int(bn.num_batches_tracked) == 0 and bn.running_mean.tolist() == [0.0] * 4
    assert list(enn.BatchNorm1d(3, affine=False, track_running_stats=False).state_dict()) == []


def test_batch_norm_loads_old_state_dict_without_counter():
    bn = enn.BatchNorm1d(2)
    state = {"weight": ember.ones(2), "bias": ember.zeros(2),
             "running_mean": ember.tensor([1.0, 2.0]), "running_var": ember.tensor([3.0, 4.0])}

    class Old(dict):
        """A state dict saved by a BatchNorm of version 1."""

    old = Old(state)
    old._metadata = {"": {"version": 1}}
    bn.load_state_dict(old)
    assert bn.running_mean.tolist() == [1.0, 2.0] and int(bn.num_batches_tracked) == 0


def test_batch_norm_eval_without_running_stats_uses_batch_stats():
    t_bn, e_bn = build("BatchNorm1d", 3, track_running_stats=False)
    t_bn.eval()
    e_bn.eval()
    check_layer(t_bn, e_bn, pair(5, 3), atol=1e-6)


@pytest.mark.parametrize("name,shape,message", [
    ("BatchNorm1d", (2, 3, 4, 5), "expected 2D or 3D input (got 4D input)"),
    ("BatchNorm1d", (3,), "expected 2D or 3D input (got 1D input)"),
    ("BatchNorm2d", (2, 3, 4), "expected 4D input (got 3D input)"),
])
def test_batch_norm_input_dim_errors(name, shape, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        getattr(enn, name)(3)(ember.randn(*shape))


def test_batch_norm_needs_more_than_one_value_per_channel():
    bn = enn.BatchNorm1d(3)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        bn(ember.randn(1, 3))
    bn.eval()
    assert bn(ember.randn(1, 3)).shape == (1, 3)


# --------------------------------------------------------------------------- layer norm


NORM_CASES = [
    ("LayerNorm", (5,), {}), ("LayerNorm", (5,), {"eps": 1e-3}), ("LayerNorm", ([4, 5],), {}),
    ("LayerNorm", ((5,),), {"eps": 0.1}), ("LayerNorm", (5,), {"elementwise_affine": False}),
    ("LayerNorm", (5,), {"bias": False}), ("GroupNorm", (2, 4), {}),
    ("GroupNorm", (4, 4), {"eps": 1e-3}), ("GroupNorm", (2, 4), {"affine": False}),
    ("GroupNorm", (1, 4), {"bias": False}),
]


@pytest.mark.parametrize("name,args,kwargs", NORM_CASES, ids=str)
def test_layer_norm_and_group_norm(name, args, kwargs):
    t_norm, e_norm = build(name, *args, **kwargs)
    with torch.no_grad():  # non-trivial affine parameters, copied across
        for p in t_norm.parameters():
            p.uniform_(0.5, 1.5)
    copy_state(t_norm, e_norm)
    check_layer(t_norm, e_norm, pair(3, 4, 5), atol=1e-6)
    assert repr(e_norm) == repr(t_norm)


def test_group_norm_channel_count():
    with pytest.raises(ValueError, match=r"num_channels \(6\) must be divisible by num_groups"):
        enn.GroupNorm(4, 6)


def test_layer_norm_rejects_wrong_trailing_shape():
    with pytest.raises(RuntimeError):
        enn.LayerNorm(4)(ember.randn(2, 5))


# --------------------------------------------------------------------------- dropout


def test_dropout_train_and_eval():
    drop = enn.Dropout(0.3)
    assert repr(drop) == repr(tnn.Dropout(0.3)) == "Dropout(p=0.3, inplace=False)"
    ember.manual_seed(0)
    x = ember.ones(20000)
    y = drop(x).numpy()
    np.testing.assert_allclose(np.unique(y), [0.0, 1 / 0.7], rtol=1e-6)
    assert 0.67 < (y != 0).mean() < 0.73
    drop.eval()
    np.testing.assert_array_equal(drop(x).numpy(), x.numpy())
    assert enn.Dropout(inplace=True)(x) is x


@pytest.mark.parametrize("p", [-0.5, 1.01])
def test_dropout_rejects_bad_probability(p):
    message = f"dropout probability has to be between 0 and 1, but got {p}"
    with pytest.raises(ValueError, match=message):
        enn.Dropout(p)


# --------------------------------------------------------------------------- embedding


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 0}, {"padding_idx": -2},
                                    {"max_norm": 1.0}, {"scale_grad_by_freq": True},
                                    {"max_norm": 2.0, "norm_type": 1.0}])
def test_embedding(kwargs):
    t_emb, e_emb = build("Embedding", 10, 4, **kwargs)
    indices = torch.tensor([[1, 0, 8, 1], [3, 8, 8, 2]])
    t_out = t_emb(indices)
    e_out = e_emb(to_ember(indices))
    assert_close(e_out, t_out)
    backward_both(e_out, t_out)
    assert_close(e_emb.weight.grad, t_emb.weight.grad)
    assert_close(e_emb.weight, t_emb.weight)  # max_norm renormalised the same rows
    assert repr(e_emb) == repr(t_emb)


def test_embedding_default_initialisation_and_padding_row():
    ember.manual_seed(0)
    emb = enn.Embedding(400, 50, padding_idx=3)
    weight = emb.weight.detach().numpy()
    assert not weight[3].any()
    assert abs(weight.std() - 1) < 0.05 and abs(weight.mean()) < 0.05
    assert list(emb.state_dict()) == ["weight"]


def test_embedding_from_pretrained():
    table = ember.tensor([[1.0, 2.3, 3.0], [4.0, 5.1, 6.3]])
    emb = enn.Embedding.from_pretrained(table)
    assert not emb.weight.requires_grad
    assert emb(ember.tensor([1])).tolist() == [[4.0, 5.099999904632568, 6.300000190734863]]
    assert enn.Embedding.from_pretrained(table, freeze=False).weight.requires_grad
    assert repr(emb) == repr(tnn.Embedding.from_pretrained(to_torch(table)))
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-d"):
        enn.Embedding.from_pretrained(ember.ones(3))
    with pytest.raises(AssertionError, match="Shape of weight does not match"):
        enn.Embedding(3, 3, _weight=ember.ones(2, 3))


@pytest.mark.parametrize("padding_idx", [10, -11])
def test_embedding_padding_idx_range(padding_idx):
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        enn.Embedding(10, 2, padding_idx=padding_idx)


def test_embedding_rejects_float_indices():
    with pytest.raises(RuntimeError):
        enn.Embedding(4, 2)(ember.tensor([0.0, 1.0]))


# --------------------------------------------------------------------------- activations

ACTIVATION_CASES = [
    ("ReLU", (), {}), ("ReLU", (True,), {}), ("GELU", (), {}), ("GELU", ("tanh",), {}),
    ("SiLU", (), {}), ("SiLU", (), {"inplace": True}), ("Tanh", (), {}), ("Sigmoid", (), {}),
    ("Softmax", (), {"dim": 1}), ("Softmax", (-1,), {}), ("LogSoftmax", (1,), {}),
    ("LeakyReLU", (), {}), ("LeakyReLU", (0.2, True), {}), ("ELU", (), {}),
    ("ELU", (0.5,), {"inplace": True}), ("Softplus", (2.0, 5.0), {}), ("Hardtanh", (), {}),
    ("Hardtanh", (-2.0, 0.5), {}), ("Threshold", (0.1, 20.0), {}),
]


@pytest.mark.parametrize("name,args,kwargs", ACTIVATION_CASES, ids=str)
def test_activation(name, args, kwargs):
    t_act, e_act = build(name, *args, **kwargs)
    assert repr(e_act) == repr(t_act)
    if getattr(t_act, "inplace", False):
        t, e = pair(3, 5, requires_grad=False)
        t_act(t)
        assert e_act(e) is e
        assert_close(e, t)
        return
    check_layer(t_act, e_act, pair(3, 5))


def test_softmax_implicit_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        out = enn.Softmax()(ember.zeros(2, 4))
    assert out.tolist()[0] == [0.25] * 4
    assert repr(enn.Softmax()) == "Softmax(dim=None)"


def test_hardtanh_rejects_empty_range():
    with pytest.raises(AssertionError, match=r"max_val \(-1.0\) must be greater than min_val"):
        enn.Hardtanh(1.0, -1.0)


# --------------------------------------------------------------------------- losses

LOSS_CASES = [("CrossEntropyLoss", {}), ("CrossEntropyLoss", {"label_smoothing": 0.1}),
              ("CrossEntropyLoss", {"ignore_index": 2, "reduction": "sum"}),
              ("CrossEntropyLoss", {"weight": "w", "reduction": "none"}),
              ("NLLLoss", {}), ("NLLLoss", {"weight": "w", "ignore_index": 0}),
              ("NLLLoss", {"reduction": "none"})]


@pytest.mark.parametrize("name,kwargs", LOSS_CASES, ids=str)
def test_classification_losses(name, kwargs):
    weight = torch.tensor([0.2, 1.0, 3.0, 0.5], dtype=torch.float64)
    t_kwargs = {k: (weight if v == "w" else v) for k, v in kwargs.items()}
    e_kwargs = {k: (to_ember(weight) if v == "w" else v) for k, v in kwargs.items()}
    t_loss, e_loss = getattr(tnn, name)(**t_kwargs), getattr(enn, name)(**e_kwargs)
    assert list(e_loss.state_dict()) == list(t_loss.state_dict())
    assert repr(e_loss) == repr(t_loss)
    target = torch.tensor([0, 2, 3, 1, 2])
    x = pair(5, 4)
    if name == "NLLLoss":
        x = (x[0].log_softmax(1).detach().requires_grad_(),
             to_ember(x[0].log_softmax(1).detach()).requires_grad_())
    t_out = t_loss(x[0], target)
    e_out = e_loss(x[1], to_ember(target))
    assert_close(e_out, t_out)
    backward_both(e_out, t_out)
    assert_grads_close([x[1]], [x[0]])


@pytest.mark.parametrize("name", ["MSELoss", "L1Loss", "BCELoss", "BCEWithLogitsLoss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_elementwise_losses(name, reduction):
    t_loss = getattr(tnn, name)(reduction=reduction)
    e_loss = getattr(enn, name)(reduction=reduction)
    assert repr(e_loss) == repr(t_loss) and e_loss.reduction == reduction
    low, high = (0.05, 0.95) if name == "BCELoss" else (-2.0, 2.0)
    check_layer(t_loss, e_loss, pair(3, 4, low=low, high=high),
                pair(3, 4, seed=1, low=0.0, high=1.0))


def test_weighted_binary_losses():
    t_w, e_w = pair(4, requires_grad=False, low=0.5, high=2.0, seed=3)
    t_pw, e_pw = pair(4, requires_grad=False, low=0.5, high=2.0, seed=4)
    t_loss = tnn.BCEWithLogitsLoss(weight=t_w, pos_weight=t_pw)
    e_loss = enn.BCEWithLogitsLoss(weight=e_w, pos_weight=e_pw)
    assert list(e_loss.state_dict()) == list(t_loss.state_dict()) == ["weight", "pos_weight"]
    check_layer(t_loss, e_loss, pair(3, 4), pair(3, 4, seed=1, low=0.0, high=1.0))
    check_layer(tnn.BCELoss(t_w), enn.BCELoss(e_w), pair(3, 4, low=0.1, high=0.9),
                pair(3, 4, seed=1, low=0.0, high=1.0))


def test_loss_reduction_errors_and_legacy_flags():
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        enn.MSELoss(reduction="avg")(ember.ones(2), ember.ones(2))
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        loss = enn.L1Loss(size_average=False)
    assert loss.reduction == "sum"
    assert float(loss(ember.ones(3), ember.zeros(3))) == 3.0


# --------------------------------------------------------------------------- attention

MHA_CASES = [
    {}, {"batch_first": True}, {"bias": False}, {"kdim": 6, "vdim": 5},
    {"kdim": 6, "vdim": 5, "batch_first": True}, {"add_bias_kv": True},
    {"add_zero_attn": True}, {"add_bias_kv": True, "add_zero_attn": True, "batch_first": True},
]


def _mha_inputs(kwargs, self_attention):
    """(query, key, value) pairs for an (L=4, N=3, E=8) MHA; key/value length 5."""
    batch_first = kwargs.get("batch_first", False)

    def shape(length, dim):
        return (3, length, dim) if batch_first else (length, 3, dim)

    query = pair(*shape(4, 8))
    if self_attention:
        return query, query, query
    return (query, pair(*shape(5, kwargs.get("kdim", 8)), seed=1),
            pair(*shape(5, kwargs.get("vdim", 8)), seed=2))


def _check_mha(t_mha, e_mha, inputs, **call):
    t_in, e_in = [t for t, _ in inputs], [e for _, e in inputs]
    t_call = {k: (to_torch(v) if isinstance(v, ember.Tensor) else v) for k, v in call.items()}
    t_out, t_weights = t_mha(*t_in, **t_call)
    e_out, e_weights = e_mha(*e_in, **call)
    assert_attention_close((e_out, e_weights), (t_out, t_weights))
    backward_both(e_out, t_out)
    unique = {id(t): (t, e) for t, e in inputs}.values()
    assert_grads_close([e for _, e in unique], [t for t, _ in unique], atol=1e-6)
    e_params, t_params = dict(e_mha.named_parameters()), dict(t_mha.named_parameters())
    assert list(e_params) == list(t_params)
    assert_grads_close(list(e_params.values()), list(t_params.values()), atol=1e-6)


@pytest.mark.parametrize("kwargs", MHA_CASES, ids=str)
@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention(kwargs, need_weights):
    torch.manual_seed(0)
    t_mha, e_mha = build("MultiheadAttention", 8, 2, **kwargs)
    assert repr(e_mha) == repr(t_mha)
    same_dims = "kdim" not in kwargs
    if same_dims:
        _check_mha(t_mha, e_mha, _mha_inputs(kwargs, True), need_weights=need_weights)
    t_mha.zero_grad()
    e_mha.zero_grad()
    _check_mha(t_mha, e_mha, _mha_inputs(kwargs, False), need_weights=need_weights)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("average", [True, False])
def test_multihead_attention_masks(need_weights, average):
    t_mha, e_mha = build("MultiheadAttention", 8, 4, batch_first=True)
    inputs = _mha_inputs({"batch_first": True}, False)
    padding = ember.tensor([[False, False, False, True, True], [False] * 5, [True] + [False] * 4])
    causal = ember.tensor([[j > i + 1 for j in range(5)] for i in range(4)])
    float_mask = ember.randn(3 * 4, 4, 5, dtype=ember.float64)
    for call in ({"key_padding_mask": padding}, {"attn_mask": causal},
                 {"attn_mask": float_mask}, {"attn_mask": causal, "key_padding_mask": padding}):
        t_mha.zero_grad()
        e_mha.zero_grad()
        for _, e in inputs:
            e.grad = None
        for t, _ in inputs:
            t.grad = None
        _check_mha(t_mha, e_mha, inputs, need_weights=need_weights,
                   average_attn_weights=average, **call)


def test_multihead_attention_unbatched():
    t_mha, e_mha = build("MultiheadAttention", 8, 2)
    _check_mha(t_mha, e_mha, [pair(4, 8), pair(5, 8, seed=1), pair(5, 8, seed=2)])


def test_multihead_attention_parameters_and_init():
    ember.manual_seed(0)
    mha = enn.MultiheadAttention(16, 4)
    assert list(mha.state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                      "out_proj.bias"]
    bound = math.sqrt(6 / (16 + 48))  # xavier_uniform_ on (3E, E)
    weight = mha.in_proj_weight.detach().numpy()
    assert np.abs(weight).max() <= bound and weight.std() > 0.8 * bound / math.sqrt(3)
    assert not mha.in_proj_bias.detach().numpy().any()
    assert not mha.out_proj.bias.detach().numpy().any()
    assert type(mha.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert isinstance(mha.out_proj, enn.Linear)
    separate = enn.MultiheadAttention(16, 4, kdim=8, vdim=4, add_bias_kv=True)
    assert list(separate.state_dict()) == list(
        tnn.MultiheadAttention(16, 4, kdim=8, vdim=4, add_bias_kv=True).state_dict())


def test_multihead_attention_dropout_only_in_training():
    mha = enn.MultiheadAttention(8, 2, dropout=0.5)
    x = ember.randn(4, 2, 8)
    mha.eval()
    first, _ = mha(x, x, x)
    second, _ = mha(x, x, x)
    np.testing.assert_array_equal(first.detach().numpy(), second.detach().numpy())
    mha.train()
    ember.manual_seed(0)
    _, weights = mha(x, x, x, average_attn_weights=False)
    assert (weights.detach().numpy() == 0).any()


def test_multihead_attention_errors():
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
        enn.MultiheadAttention(0, 2)
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        enn.MultiheadAttention(10, 3)
    mha = enn.MultiheadAttention(8, 2)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8, but got 6"):
        mha(ember.randn(3, 2, 6), ember.randn(3, 2, 6), ember.randn(3, 2, 6))
    with pytest.raises(AssertionError, match="expected `key` and `value` to be 3-D"):
        mha(ember.randn(3, 2, 8), ember.randn(3, 8), ember.randn(3, 8))
    with pytest.raises(AssertionError, match="only bool and floating types of key_padding_mask"):
        x = ember.randn(3, 2, 8)
        mha(x, x, x, key_padding_mask=ember.zeros(2, 3, dtype=ember.int64))


# --------------------------------------------------------------------------- a small CNN


def test_small_cnn_trains_like_torch():
    """A Sequential CNN built from these layers follows torch's parameters and batch-norm
    statistics over five SGD steps (plain updates under no_grad), then agrees in eval mode."""
    def make(nn):
        return nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(4, 8, 3), nn.GELU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
            nn.Dropout(0.0), nn.Linear(8, 3), nn.LogSoftmax(dim=1),
        )

    t_net, e_net = make(tnn).double(), make(enn).double()
    copy_state(t_net, e_net)
    assert repr(e_net) == repr(t_net)
    for step in range(5):
        target = torch.randint(0, 3, (4,), generator=torch.Generator().manual_seed(step))
        t_x, e_x = pair(4, 1, 8, 8, requires_grad=False, seed=step)
        t_loss = tnn.NLLLoss()(t_net(t_x), target)
        e_loss = enn.NLLLoss()(e_net(e_x), to_ember(target))
        assert_close(e_loss, t_loss, atol=1e-6)
        t_loss.backward()
        e_loss.backward()
        assert_grads_close(list(e_net.parameters()), list(t_net.parameters()), atol=1e-6)
        with torch.no_grad(), ember.no_grad():
            for t_param, e_param in zip(t_net.parameters(), e_net.parameters(), strict=True):
                t_param -= 0.1 * t_param.grad
                e_param -= 0.1 * e_param.grad
        t_net.zero_grad()
        e_net.zero_grad()
    t_state = t_net.state_dict()
    for key, e_value in e_net.state_dict().items():
        assert_close(e_value, t_state[key], atol=1e-6)
    t_net.eval()
    e_net.eval()
    check_layer(t_net, e_net, pair(2, 1, 8, 8, seed=9), atol=1e-6)


@pytest.mark.parametrize("name,args", [
    ("Conv1d", (2, 4, 3)), ("Conv2d", (2, 4, 3)), ("BatchNorm1d", (3,)), ("BatchNorm2d", (3,)),
    ("LayerNorm", (5,)), ("Embedding", (6, 2)), ("MultiheadAttention", (4, 2)),
])
def test_factory_dtype_argument(name, args):
    module = getattr(enn, name)(*args, dtype=ember.float64)
    state = module.state_dict()
    assert list(state) == list(getattr(tnn, name)(*args, dtype=torch.float64).state_dict())
    for key, value in state.items():
        expected = ember.int64 if key.endswith("num_batches_tracked") else ember.float64
        assert value.dtype == expected, key


BAD_INPUTS = [
    ("MaxPool2d", (2,), (4, 4)), ("MaxPool2d", (5,), (1, 2, 3, 3)), ("AvgPool2d", (2,), (5,)),
    ("AdaptiveAvgPool2d", (2,), (3,)), ("Conv1d", (3, 2, 2), (1, 4, 5)),
    ("Conv2d", (3, 2, 5), (1, 3, 4, 4)), ("LayerNorm", ((2, 3),), (3, 2)),
    ("Softmax", (2,), (3, 4)), ("Embedding", (3, 2), (4,)),
]


@pytest.mark.parametrize("name,args,shape", BAD_INPUTS, ids=str)
def test_bad_input_raises_like_torch(name, args, shape):
    """Wrong ranks, sizes and dims raise torch's exception type (indices out of range too)."""
    t_module, e_module = build(name, *args)
    if name == "Embedding":
        t_input, e_input = torch.tensor([0, 3]), ember.tensor([0, 3])
    else:
        t_input, e_input = pair(*shape, requires_grad=False)
    with pytest.raises(Exception) as t_error:
        t_module(t_input)
    with pytest.raises(t_error.type):
        e_module(e_input)


@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_is_causal_hint(need_weights):
    """is_causal=True with the causal mask: the mask is used, or sdpa's own causal path."""
    t_mha, e_mha = build("MultiheadAttention", 8, 2)
    causal = ember.tensor([[j > i for j in range(4)] for i in range(4)])
    _check_mha(t_mha, e_mha, _mha_inputs({}, True), attn_mask=causal, is_causal=True,
               need_weights=need_weights)


@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_eval_no_grad_matches_torch_fast_path(need_weights):
    """In eval mode under no_grad torch takes its fused path; ember's result is the same."""
    t_mha, e_mha = build("MultiheadAttention", 8, 2, batch_first=True)
    t_mha.eval()
    e_mha.eval()
    t_x, e_x = pair(3, 5, 8, requires_grad=False)
    padding = ember.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
    with torch.no_grad(), ember.no_grad():
        t_out, t_weights = t_mha(t_x, t_x, t_x, key_padding_mask=to_torch(padding),
                                 need_weights=need_weights)
        e_out, e_weights = e_mha(e_x, e_x, e_x, key_padding_mask=padding,
                                 need_weights=need_weights)
    assert (e_weights is None) == (not need_weights)
    assert_attention_close((e_out, e_weights), (t_out, t_weights))


@pytest.mark.parametrize("name,shape", [("Dropout1d", (3, 40, 5)), ("Dropout2d", (3, 40, 2, 2))])
def test_channel_dropout_layers(name, shape):
    assert repr(getattr(enn, name)(0.2)) == repr(getattr(tnn, name)(0.2))
    layer = getattr(enn, name)(0.5)
    ember.manual_seed(1)
    out = layer(ember.ones(*shape)).numpy().reshape(shape[0] * shape[1], -1)
    assert set(np.unique(out.std(axis=1))) == {0.0} and (out == 0).any() and (out == 2).any()
    layer.eval()
    assert layer(ember.ones(*shape)).numpy().min() == 1.0
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        getattr(enn, name)(-0.1)


@pytest.mark.parametrize("module_name", [
    "ember.nn.functional", "ember.nn.modules.activation", "ember.nn.modules.batchnorm",
    "ember.nn.modules.conv", "ember.nn.modules.dropout", "ember.nn.modules.loss",
    "ember.nn.modules.normalization", "ember.nn.modules.pooling", "ember.nn.modules.sparse",
])
def test_layer_docstring_examples_run(module_name):
    import doctest
    import importlib

    module = importlib.import_module(module_name)
    globs = {"ember": ember, "F": ember.nn.functional, "nn": enn}
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    result = doctest.testmod(module, extraglobs=globs, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("make,shape", [
    (lambda: enn.Conv2d(3, 4, 3, padding="same"), (2, 3, 5, 5)),
    (lambda: enn.BatchNorm2d(3), (2, 3, 4, 4)), (lambda: enn.LayerNorm(5), (2, 5)),
    (lambda: enn.GroupNorm(1, 3), (2, 3, 4)), (lambda: enn.MultiheadAttention(4, 2), (3, 2, 4)),
], ids=["Conv2d", "BatchNorm2d", "LayerNorm", "GroupNorm", "MultiheadAttention"])
def test_state_dict_round_trip(make, shape):
    """A fresh layer loaded with another's state_dict computes the same; a state with a key
    missing is refused."""
    ember.manual_seed(0)
    source = make()
    if isinstance(source, (enn.BatchNorm2d, enn.LayerNorm, enn.GroupNorm)):
        with ember.no_grad():
            source.weight.uniform_(0.5, 1.5)
    source(*[ember.randn(*shape)] * (3 if isinstance(source, enn.MultiheadAttention) else 1))
    target = make()
    target.load_state_dict(source.state_dict())
    source.eval()
    target.eval()
    x = ember.randn(*shape)
    args = (x, x, x) if isinstance(source, enn.MultiheadAttention) else (x,)
    first, second = source(*args), target(*args)
    if isinstance(first, tuple):
        first, second = first[0], second[0]
    np.testing.assert_array_equal(first.detach().numpy(), second.detach().numpy())
    state = source.state_dict()
    missing = next(iter(state))
    del state[missing]
    with pytest.raises(RuntimeError, match=f'Missing key\\(s\\) in state_dict: "{missing}"'):
        target.load_state_dict(state)


LOW_PRECISION_CASES = [
    ("Conv2d", (3, 4, 3), (2, 3, 6, 6)), ("BatchNorm2d", (3,), (2, 3, 4, 4)),
    ("LayerNorm", (5,), (3, 5)), ("GroupNorm", (1, 3), (2, 3, 4)),
    ("MaxPool2d", (2,), (1, 2, 4, 4)), ("AvgPool2d", (2,), (1, 2, 4, 4)), ("AdaptiveAvgPool2d", (1,), (1, 2, 4, 4)),
    ("GELU", (), (3, 4)), ("Softmax", (1,), (3, 4)), ("MultiheadAttention", (4, 2), (3, 2, 4)),
]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name,args,shape", LOW_PRECISION_CASES, ids=str)
def test_low_precision_layers(dtype, name, args, shape):
    """Layers moved to float16/bfloat16 with .to(dtype) keep the dtype and agree with torch's
    to within about one rounding step of the format."""
    t_module = getattr(tnn, name)(*args).to(getattr(torch, dtype))
    e_module = getattr(enn, name)(*args).to(getattr(ember, dtype))
    e_module.load_state_dict({k: to_ember(v.float(), requires_grad=False).to(getattr(ember, dtype))
                              for k, v in t_module.state_dict().items()})
    t_x = torch.randn(shape, generator=torch.Generator().manual_seed(0)).to(getattr(torch, dtype))
    e_x = to_ember(t_x.float()).to(getattr(ember, dtype))
    is_attention = name == "MultiheadAttention"
    t_out = t_module(*(t_x,) * (3 if is_attention else 1))
    e_out = e_module(*(e_x,) * (3 if is_attention else 1))
    if is_attention:
        t_out, e_out = t_out[0], e_out[0]
    step = 2.0 ** -7 if dtype == "bfloat16" else 2.0 ** -10
    assert_close(e_out, t_out, rtol=2 * step, atol=2 * step)
