"""ember.nn.functional against torch.nn.functional: values, dtypes, gradients, errors."""
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
)

import ember
import ember.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def check_op(e_fn, t_fn, inputs, *, rtol=1e-6, atol=1e-7, grad=True):
    """Run e_fn/t_fn on (torch, ember) input pairs; compare outputs and input gradients."""
    t_inputs = [t for t, _ in inputs]
    e_inputs = [e for _, e in inputs]
    t_out = t_fn(*t_inputs)
    e_out = e_fn(*e_inputs)
    assert_close(e_out, t_out, rtol, atol)
    if grad:
        backward_both(e_out, t_out)
        assert_grads_close(e_inputs, t_inputs, rtol, atol)
    return e_out, t_out


# --------------------------------------------------------------------------- activations

ACTIVATIONS = [
    ("relu", {}), ("relu", {"inplace": False}), ("gelu", {}), ("gelu", {"approximate": "tanh"}),
    ("silu", {}), ("tanh", {}), ("sigmoid", {}), ("leaky_relu", {}),
    ("leaky_relu", {"negative_slope": 0.2}), ("elu", {}), ("elu", {"alpha": 0.5}),
    ("softplus", {}), ("softplus", {"beta": 2, "threshold": 1}), ("hardtanh", {}),
    ("hardtanh", {"min_val": -0.5, "max_val": 2.0}), ("threshold", {"threshold": 0.1, "value": 5}),
]


@pytest.mark.parametrize("name,kwargs", ACTIVATIONS, ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_activation_matches_torch(name, kwargs, dtype):
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == torch.float32 else {}
    check_op(lambda x: getattr(F, name)(x, **kwargs), lambda x: getattr(TF, name)(x, **kwargs),
             [pair(3, 7, dtype=dtype)], **tol)


@pytest.mark.parametrize("name,kwargs", [
    ("relu", {}), ("leaky_relu", {"negative_slope": 0.3}), ("elu", {"alpha": 2.0}),
    ("hardtanh", {}), ("silu", {}), ("threshold", {"threshold": 0.0, "value": -1.0}),
])
def test_activation_inplace_overwrites_input(name, kwargs):
    t, e = pair(4, 5, requires_grad=False)
    t_out = getattr(TF, name)(t, inplace=True, **kwargs)
    e_out = getattr(F, name)(e, inplace=True, **kwargs)
    assert e_out is e
    assert_close(e, t)
    assert_close(e_out, t_out)


def test_inplace_aliases():
    for name in ["relu_", "elu_", "leaky_relu_", "hardtanh_"]:
        t, e = pair(6, requires_grad=False)
        assert getattr(F, name)(e) is e
        getattr(TF, name)(t)
        assert_close(e, t)


def test_hardtanh_rejects_min_above_max():
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(ember.randn(3), 1.0, -1.0)


def test_activation_on_integer_relu_keeps_dtype():
    e = F.relu(ember.tensor([-2, 0, 3]))
    assert e.dtype == ember.int64 and e.tolist() == [0, 0, 3]


# --------------------------------------------------------------------------- softmax


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,dim", [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1),
                                       ((2, 3, 4), 1)])
def test_softmax_matches_torch(name, shape, dim):
    check_op(lambda x: getattr(F, name)(x, dim), lambda x: getattr(TF, name)(x, dim),
             [pair(*shape)])


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4), (2, 3, 4, 5)])
def test_softmax_implicit_dim_warns_and_follows_torch(name, shape):
    t, e = pair(*shape, requires_grad=False)
    with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name}"):
        e_out = getattr(F, name)(e)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_out = getattr(TF, name)(t)
    assert_close(e_out, t_out)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_dtype_casts_first(name):
    t, e = pair(3, 4, dtype=torch.float32)
    check_op(lambda x: getattr(F, name)(x, 1, dtype=ember.float64),
             lambda x: getattr(TF, name)(x, 1, dtype=torch.float64), [(t, e)], rtol=1e-5)


# --------------------------------------------------------------------------- dropout


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_probability_out_of_range(p):
    message = f"dropout probability has to be between 0 and 1, but got {p}"
    with pytest.raises(ValueError, match=message):
        F.dropout(ember.ones(3), p)


def test_dropout_zeroes_and_rescales():
    ember.manual_seed(0)
    x = ember.ones(10000, requires_grad=True)
    y = F.dropout(x, 0.25)
    values = y.detach().numpy()
    kept = values != 0
    np.testing.assert_allclose(values[kept], 1 / 0.75, rtol=1e-6)
    assert 0.72 < kept.mean() < 0.78
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, 1 / 0.75, 0), rtol=1e-6)


def test_dropout_identity_cases():
    x = ember.randn(5, 6)
    np.testing.assert_array_equal(F.dropout(x, 0.5, training=False).numpy(), x.numpy())
    np.testing.assert_array_equal(F.dropout(x, 0.0).numpy(), x.numpy())
    assert not F.dropout(x, 1.0).detach().numpy().any()


def test_dropout_inplace_returns_input():
    ember.manual_seed(1)
    x = ember.ones(200)
    assert F.dropout(x, 0.5, inplace=True) is x
    assert set(np.unique(x.numpy())) <= {0.0, 2.0}


# --------------------------------------------------------------------------- linear, conv


def test_linear_and_bilinear():
    check_op(F.linear, TF.linear, [pair(4, 3), pair(5, 3, seed=1), pair(5, seed=2)])
    check_op(F.linear, TF.linear, [pair(2, 4, 3), pair(5, 3, seed=1)])
    check_op(F.bilinear, TF.bilinear,
             [pair(4, 2), pair(4, 3, seed=1), pair(5, 2, 3, seed=2), pair(5, seed=3)])
    check_op(F.bilinear, TF.bilinear, [pair(2, 4, 2), pair(2, 4, 3, seed=1), pair(5, 2, 3, seed=2)])


def test_bilinear_errors():
    with pytest.raises(RuntimeError, match="input1 size does not match weight size"):
        F.bilinear(ember.randn(4, 3), ember.randn(4, 3), ember.randn(5, 2, 3))
    with pytest.raises(RuntimeError, match="batch dimensions do not match"):
        F.bilinear(ember.randn(4, 2), ember.randn(3, 3), ember.randn(5, 2, 3))


@pytest.mark.parametrize("kwargs", [
    {}, {"stride": 2}, {"padding": 1}, {"dilation": 2}, {"groups": 2}, {"padding": "same"},
    {"padding": "valid"}, {"padding": "same", "dilation": 2},
])
def test_conv1d_conv2d_match_torch(kwargs):
    check_op(lambda x, w, b: F.conv1d(x, w, b, **kwargs),
             lambda x, w, b: TF.conv1d(x, w, b, **kwargs),
             [pair(2, 4, 9), pair(6, 4 // kwargs.get("groups", 1), 3, seed=1), pair(6, seed=2)])
    check_op(lambda x, w: F.conv2d(x, w, **kwargs), lambda x, w: TF.conv2d(x, w, **kwargs),
             [pair(2, 4, 7, 8), pair(6, 4 // kwargs.get("groups", 1), 3, 2, seed=1)])


# --------------------------------------------------------------------------- pooling


@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 2}, {"kernel_size": 3, "stride": 2},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    {"kernel_size": (2, 3), "padding": 1}, {"kernel_size": 2, "dilation": 2},
])
def test_max_pool2d_matches_torch(kwargs):
    check_op(lambda x: F.max_pool2d(x, **kwargs), lambda x: TF.max_pool2d(x, **kwargs),
             [pair(2, 3, 7, 8)])
    t, e = pair(3, 7, 8)
    e_out, e_idx = F.max_pool2d(e, return_indices=True, **kwargs)
    t_out, t_idx = TF.max_pool2d(t, return_indices=True, **kwargs)
    assert_close(e_out, t_out)
    assert_close(e_idx, t_idx)
    e_out2, e_idx2 = F.max_pool2d_with_indices(e, **kwargs)
    assert_close(e_out2, t_out)
    assert_close(e_idx2, t_idx)


@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    {"kernel_size": 3, "padding": 1, "count_include_pad": False},
    {"kernel_size": 2, "divisor_override": 3},
    {"kernel_size": 2, "stride": None},
])
def test_avg_pool2d_matches_torch(kwargs):
    check_op(lambda x: F.avg_pool2d(x, **kwargs), lambda x: TF.avg_pool2d(x, **kwargs),
             [pair(2, 3, 7, 8)])


@pytest.mark.parametrize("size", [1, 3, (2, 5), (None, 4), (3, None)])
def test_adaptive_avg_pool2d_matches_torch(size):
    check_op(lambda x: F.adaptive_avg_pool2d(x, size), lambda x: TF.adaptive_avg_pool2d(x, size),
             [pair(2, 3, 7, 8)])


# --------------------------------------------------------------------------- normalisation


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5)])
def test_batch_norm_matches_torch(training, shape):
    t_rm, e_rm = pair(3, requires_grad=False)
    t_rv, e_rv = pair(3, requires_grad=False, low=0.5, high=2.0)
    check_op(
        lambda x, w, b: F.batch_norm(x, e_rm, e_rv, w, b, training, 0.3, 1e-3),
        lambda x, w, b: TF.batch_norm(x, t_rm, t_rv, w, b, training, 0.3, 1e-3),
        [pair(*shape), pair(3, seed=1), pair(3, seed=2)], rtol=1e-6, atol=1e-6,
    )
    assert_close(e_rm, t_rm)
    assert_close(e_rv, t_rv)


def test_batch_norm_without_running_stats_and_affine():
    check_op(lambda x: F.batch_norm(x, None, None, training=True),
             lambda x: TF.batch_norm(x, None, None, training=True), [pair(4, 3, 2)], atol=1e-6)


def test_batch_norm_one_value_per_channel():
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training, "
                                         r"got input size .*\[1, 3\]"):
        F.batch_norm(ember.randn(1, 3), None, None, training=True)
    F.batch_norm(ember.randn(1, 3), ember.zeros(3), ember.ones(3), training=False)


@pytest.mark.parametrize("normalized_shape", [(5,), (4, 5)])
def test_layer_norm_matches_torch(normalized_shape):
    check_op(lambda x, w, b: F.layer_norm(x, normalized_shape, w, b, 1e-4),
             lambda x, w, b: TF.layer_norm(x, normalized_shape, w, b, 1e-4),
             [pair(3, 4, 5), pair(*normalized_shape, seed=1), pair(*normalized_shape, seed=2)],
             atol=1e-6)
    check_op(lambda x: F.layer_norm(x, normalized_shape),
             lambda x: TF.layer_norm(x, normalized_shape),
             [pair(3, 4, 5)], atol=1e-6)


# --------------------------------------------------------------------------- embedding


@pytest.mark.parametrize("padding_idx", [None, 0, 2, -1])
def test_embedding_matches_torch(padding_idx):
    indices = torch.tensor([[0, 2, 4], [2, 9, 0]])
    check_op(lambda w: F.embedding(to_ember(indices), w, padding_idx),
             lambda w: TF.embedding(indices, w, padding_idx), [pair(10, 3)])


@pytest.mark.parametrize("padding_idx", [10, -11])
def test_embedding_padding_idx_out_of_range(padding_idx):
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(ember.tensor([0]), ember.randn(10, 3), padding_idx)


@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_max_norm_renormalises_rows(norm_type):
    indices = torch.tensor([1, 3, 3, 7])
    t_w, e_w = pair(10, 4, requires_grad=False)
    t_w.mul_(3)
    e_w.mul_(3)
    assert_close(F.embedding(to_ember(indices), e_w, max_norm=1.5, norm_type=norm_type),
                 TF.embedding(indices, t_w, max_norm=1.5, norm_type=norm_type))
    assert_close(e_w, t_w)


def test_embedding_sparse_is_refused():
    with pytest.raises(NotImplementedError, match="sparse"):
        F.embedding(ember.tensor([0]), ember.randn(3, 2), sparse=True)


def test_one_hot_and_pad():
    idx = torch.tensor([0, 3, 1])
    assert_close(F.one_hot(to_ember(idx)), TF.one_hot(idx))
    assert_close(F.one_hot(to_ember(idx), 6), TF.one_hot(idx, 6))
    check_op(lambda x: F.pad(x, (1, 2)), lambda x: TF.pad(x, (1, 2)), [pair(2, 3)])
    check_op(lambda x: F.pad(x, (1, 2, 0, 1), value=3.5),
             lambda x: TF.pad(x, (1, 2, 0, 1), value=3.5),
             [pair(2, 3)])


# --------------------------------------------------------------------------- losses

REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kwargs", [{}, {"label_smoothing": 0.2}, {"ignore_index": 1},
                                    {"weight": "w"}, {"weight": "w", "label_smoothing": 0.1}])
def test_cross_entropy_class_indices(reduction, kwargs):
    target = torch.tensor([1, 0, 4, 1, 3])
    weight = torch.rand(5, dtype=torch.float64) + 0.5
    kwargs = {k: (weight if v == "w" else v) for k, v in kwargs.items()}
    e_kwargs = {k: (to_ember(v) if k == "weight" else v) for k, v in kwargs.items()}
    check_op(lambda x: F.cross_entropy(x, to_ember(target), reduction=reduction, **e_kwargs),
             lambda x: TF.cross_entropy(x, target, reduction=reduction, **kwargs), [pair(5, 5)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_probabilities_and_spatial(reduction):
    t_target, e_target = pair(4, 3, requires_grad=False, low=0.0, high=1.0)
    check_op(lambda x: F.cross_entropy(x, e_target, reduction=reduction, label_smoothing=0.1),
             lambda x: TF.cross_entropy(x, t_target, reduction=reduction, label_smoothing=0.1),
             [pair(4, 3)])
    target = torch.randint(0, 3, (2, 4, 5), generator=torch.Generator().manual_seed(0))
    check_op(lambda x: F.cross_entropy(x, to_ember(target), reduction=reduction),
             lambda x: TF.cross_entropy(x, target, reduction=reduction), [pair(2, 3, 4, 5)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_matches_torch(reduction):
    target = torch.tensor([1, 0, 2, -100])
    weight = torch.tensor([0.5, 2.0, 1.0], dtype=torch.float64)
    check_op(lambda x: F.nll_loss(x, to_ember(target), to_ember(weight), reduction=reduction),
             lambda x: TF.nll_loss(x, target, weight, reduction=reduction), [pair(4, 3)])
    target = torch.tensor([[1, 0], [2, 2]])
    check_op(lambda x: F.nll_loss(x, to_ember(target), ignore_index=2, reduction=reduction),
             lambda x: TF.nll_loss(x, target, ignore_index=2, reduction=reduction), [pair(2, 3, 2)])


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses_match_torch(name, reduction):
    check_op(lambda x, y: getattr(F, name)(x, y, reduction=reduction),
             lambda x, y: getattr(TF, name)(x, y, reduction=reduction),
             [pair(3, 4), pair(3, 4, seed=1)])
    t_w, e_w = pair(3, 4, seed=2, requires_grad=False, low=0.1, high=1.0)
    check_op(lambda x, y: getattr(F, name)(x, y, reduction=reduction, weight=e_w),
             lambda x, y: getattr(TF, name)(x, y, reduction=reduction, weight=t_w),
             [pair(3, 4), pair(3, 4, seed=1)])


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_regression_loss_broadcast_warns(name):
    with pytest.warns(UserWarning, match="different to the input size"):
        e_out = getattr(F, name)(ember.ones(3, 4), ember.zeros(4))
    assert float(e_out) == 1.0
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        getattr(F, name)(ember.ones(3), ember.zeros(3), weight=ember.ones(2))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_matches_torch(reduction):
    t_target, e_target = pair(3, 4, requires_grad=False, low=0.0, high=1.0, seed=5)
    t_w, e_w = pair(4, requires_grad=False, low=0.5, high=1.5, seed=6)
    check_op(lambda x: F.binary_cross_entropy(x, e_target, reduction=reduction),
             lambda x: TF.binary_cross_entropy(x, t_target, reduction=reduction),
             [pair(3, 4, low=0.05, high=0.95)])
    check_op(lambda x: F.binary_cross_entropy(x, e_target, e_w, reduction=reduction),
             lambda x: TF.binary_cross_entropy(x, t_target, t_w, reduction=reduction),
             [pair(3, 4, low=0.05, high=0.95)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_with_logits_matches_torch(reduction):
    t_target, e_target = pair(3, 4, requires_grad=False, low=0.0, high=1.0, seed=5)
    t_pw, e_pw = pair(4, requires_grad=False, low=0.5, high=3.0, seed=6)
    t_w, e_w = pair(3, 1, requires_grad=False, low=0.5, high=1.5, seed=7)
    check_op(lambda x: F.binary_cross_entropy_with_logits(x, e_target, reduction=reduction),
             lambda x: TF.binary_cross_entropy_with_logits(x, t_target, reduction=reduction),
             [pair(3, 4)])
    check_op(lambda x: F.binary_cross_entropy_with_logits(x, e_target, e_w, reduction=reduction,
                                                          pos_weight=e_pw),
             lambda x: TF.binary_cross_entropy_with_logits(x, t_target, t_w, reduction=reduction,
                                                           pos_weight=t_pw),
             [pair(3, 4)])


def test_binary_losses_reject_size_mismatch():
    with pytest.raises(ValueError, match=r"Using a target size \(ember.Size\(\[3\]\)\) that is "
                                         r"different to the input size"):
        F.binary_cross_entropy(ember.rand(3, 1), ember.rand(3))
    with pytest.raises(ValueError, match=r"Target size \(ember.Size\(\[3\]\)\) must be the same "
                                         r"as input size \(ember.Size\(\[3, 1\]\)\)"):
        F.binary_cross_entropy_with_logits(ember.rand(3, 1), ember.rand(3))


LOSS_CALLS = [
    lambda r: F.cross_entropy(ember.randn(2, 3), ember.tensor([0, 1]), reduction=r),
    lambda r: F.nll_loss(ember.randn(2, 3), ember.tensor([0, 1]), reduction=r),
    lambda r: F.mse_loss(ember.randn(2), ember.randn(2), reduction=r),
    lambda r: F.l1_loss(ember.randn(2), ember.randn(2), reduction=r),
    lambda r: F.binary_cross_entropy(ember.rand(2), ember.rand(2), reduction=r),
    lambda r: F.binary_cross_entropy_with_logits(ember.rand(2), ember.rand(2), reduction=r),
]


@pytest.mark.parametrize("call", LOSS_CALLS)
def test_bad_reduction_string(call):
    with pytest.raises(ValueError, match="average is not a valid value for reduction"):
        call("average")


def test_elementwise_mean_is_a_deprecated_mean():
    x, y = ember.randn(3), ember.randn(3)
    with pytest.warns(UserWarning, match="elementwise_mean"):
        assert float(F.mse_loss(x, y, reduction="elementwise_mean")) == float(F.mse_loss(x, y))


@pytest.mark.parametrize("size_average,reduce,expected", [
    (None, False, "none"), (False, None, "sum"), (True, True, "mean"), (False, False, "none"),
])
def test_legacy_reduction_flags(size_average, reduce, expected):
    t, e = pair(2, 3, requires_grad=False)
    target = torch.tensor([0, 2])
    with pytest.warns(UserWarning, match=f"please use reduction='{expected}' instead"):
        e_out = F.cross_entropy(e, to_ember(target), size_average=size_average, reduce=reduce)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_out = TF.cross_entropy(t, target, size_average=size_average, reduce=reduce)
    assert_close(e_out, t_out)


# --------------------------------------------------------------------------- attention


@pytest.mark.parametrize("is_causal", [False, True])
def test_scaled_dot_product_attention(is_causal):
    check_op(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=is_causal),
             lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, is_causal=is_causal),
             [pair(2, 3, 4, 8), pair(2, 3, 4, 8, seed=1), pair(2, 3, 4, 8, seed=2)])


@pytest.mark.parametrize("q_len,k_len", [(5, 5), (6, 3), (3, 6), (1, 1)])
def test_causal_attention_plain_softmax(q_len, k_len):
    """is_causal keeps column 0 in every row, so ember takes the plain softmax (no all -inf
    rows to guard): torch's values and gradients, square and rectangular."""
    check_op(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
             lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, is_causal=True),
             [pair(2, 2, q_len, 4), pair(2, 2, k_len, 4, seed=1), pair(2, 2, k_len, 4, seed=2)])


@pytest.mark.parametrize("shape", [(2, 3, 4, 7), (5, 1), (3,)])
def test_softmax_last_dim_rows_like_torch(shape):
    """softmax/log_softmax over the last dim of a contiguous array take the row maximum
    by argmax and a gather: torch's values with NaN, -inf and all -inf rows, dtypes,
    shapes and strides."""
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    flat = a.reshape(-1, shape[-1])
    flat[0, -1] = np.nan
    if flat.shape[0] > 2:
        flat[1, 0] = -np.inf
        flat[2, :] = -np.inf
    for name in ("softmax", "log_softmax"):
        e = getattr(F, name)(ember.from_numpy(a), -1)
        t = getattr(TF, name)(torch.from_numpy(a), -1)
        assert e.dtype == ember.float32 and e.shape == tuple(t.shape) and e.stride() == t.stride()
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6, atol=1e-7)


def _run_mha(query_shape, key_len=None, *, num_heads=2, bias=True, **kwargs):
    """Compare multi_head_attention_forward on the same data (masks in kwargs are torch
    tensors); self-attention (query is key is value) unless key_len is given."""
    embed_dim = query_shape[-1]
    query = pair(*query_shape)
    if key_len is None:
        key = value = query
    else:
        kv_shape = (key_len, *query_shape[1:])
        key, value = pair(*kv_shape, seed=1), pair(*kv_shape, seed=2)
    weights = [pair(3 * embed_dim, embed_dim, seed=10), pair(embed_dim, embed_dim, seed=12)]
    biases = [pair(3 * embed_dim, seed=11), pair(embed_dim, seed=13)] if bias else []

    def run(functional, side, masks):
        (q, k, v), (w, ow) = [x[side] for x in (query, key, value)], [x[side] for x in weights]
        b, ob = [x[side] for x in biases] if bias else (None, None)
        return functional.multi_head_attention_forward(
            q, k, v, embed_dim, num_heads, w, b, None, None, False, 0.0, ow, ob, **masks)

    e_kwargs = {name: (to_ember(value) if isinstance(value, torch.Tensor) else value)
                for name, value in kwargs.items()}
    t_out = run(TF, 0, kwargs)
    e_out = run(F, 1, e_kwargs)
    assert_attention_close(e_out, t_out)
    backward_both(e_out[0], t_out[0])
    leaves = list({id(t): (t, e) for t, e in [query, key, value, *weights, *biases]}.values())
    assert_grads_close([e for _, e in leaves], [t for t, _ in leaves], atol=1e-6)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("average", [True, False])
def test_mha_self_attention(need_weights, average):
    _run_mha((4, 3, 8), need_weights=need_weights, average_attn_weights=average)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_cross_attention_with_masks(need_weights):
    bool_mask = torch.tensor([[False, True, False, False, True]] * 4)
    padding = torch.tensor([[False, False, False, True, True], [False] * 5, [True] + [False] * 4])
    _run_mha((4, 3, 8), 5, need_weights=need_weights, attn_mask=bool_mask)
    _run_mha((4, 3, 8), 5, need_weights=need_weights, key_padding_mask=padding)
    float_mask = torch.randn(3 * 2, 4, 5, dtype=torch.float64)
    _run_mha((4, 3, 8), 5, need_weights=need_weights, attn_mask=float_mask)


def test_mha_unbatched_and_no_bias():
    _run_mha((4, 8), 6)
    _run_mha((4, 8), bias=False, num_heads=4)


def test_mha_causal_needs_mask():
    q = ember.randn(3, 1, 4)
    w, ow = ember.randn(12, 4), ember.randn(4, 4)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        F.multi_head_attention_forward(q, q, q, 4, 2, w, None, None, None, False, 0.0, ow, None,
                                       is_causal=True)


def test_mha_shape_errors():
    q = ember.randn(3, 1, 4)
    w, ow = ember.randn(12, 4), ember.randn(4, 4)
    args = (w, None, None, None, False, 0.0, ow, None)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 6, but got 4"):
        F.multi_head_attention_forward(q, q, q, 6, 2, *args)
    with pytest.raises(AssertionError, match="embed_dim 4 not divisible by num_heads 3"):
        F.multi_head_attention_forward(q, q, q, 4, 3, *args)
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D"):
        F.multi_head_attention_forward(ember.randn(4), q, q, 4, 2, *args)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is"):
        F.multi_head_attention_forward(q, q, q, 4, 2, *args, attn_mask=ember.zeros(2, 2))
    with pytest.raises(AssertionError, match="only bool and floating types of attn_mask"):
        F.multi_head_attention_forward(q, q, q, 4, 2, *args,
                                       attn_mask=ember.zeros(3, 3, dtype=ember.int64))


@pytest.mark.parametrize("name,make_target", [
    ("cross_entropy", lambda: torch.tensor([1, 0, 3])),
    ("nll_loss", lambda: torch.tensor([1, 0, 3])),
    ("mse_loss", lambda: torch.rand(3, 4)), ("l1_loss", lambda: torch.rand(3, 4)),
    ("binary_cross_entropy", lambda: torch.rand(3, 4)),
    ("binary_cross_entropy_with_logits", lambda: torch.rand(3, 4)),
])
def test_losses_in_float32(name, make_target):
    target = make_target()
    check_op(lambda x: getattr(F, name)(x, to_ember(target)),
             lambda x: getattr(TF, name)(x, target),
             [pair(3, 4, dtype=torch.float32, low=0.05, high=0.95)], rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------------- extras


@pytest.mark.parametrize("shape,groups", [((2, 6, 4), 3), ((2, 6, 3, 5), 2), ((3, 4), 4),
                                          ((2, 6), 1)])
def test_group_norm_matches_torch(shape, groups):
    channels = shape[1]
    check_op(lambda x, w, b: F.group_norm(x, groups, w, b, 1e-3),
             lambda x, w, b: TF.group_norm(x, groups, w, b, 1e-3),
             [pair(*shape), pair(channels, seed=1), pair(channels, seed=2)], atol=1e-6)
    check_op(lambda x: F.group_norm(x, groups), lambda x: TF.group_norm(x, groups),
             [pair(*shape)], atol=1e-6)


def test_group_norm_errors():
    with pytest.raises(RuntimeError, match="Expected at least 2 dimensions"):
        F.group_norm(ember.randn(4), 2)
    with pytest.raises(RuntimeError, match="divisible by num_groups, but got input of shape"):
        F.group_norm(ember.randn(2, 6, 4), 4)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        F.group_norm(ember.randn(1, 4), 4)


@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, 0), (3.0, -1)])
def test_normalize_matches_torch(p, dim):
    check_op(lambda x: F.normalize(x, p, dim), lambda x: TF.normalize(x, p, dim), [pair(3, 4)])
    zeros = F.normalize(ember.zeros(2, 3))
    assert not zeros.numpy().any()


@pytest.mark.parametrize("name,shape", [("dropout1d", (4, 50, 6)), ("dropout1d", (50, 6)),
                                        ("dropout2d", (4, 50, 3, 3))])
def test_channel_dropout_zeroes_whole_channels(name, shape):
    ember.manual_seed(0)
    x = ember.ones(*shape, requires_grad=True)
    y = getattr(F, name)(x, 0.4)
    channels = y.detach().numpy().reshape(-1, shape[-1] * (shape[-1] if name == "dropout2d" else 1))
    assert set(np.unique(channels.std(axis=1))) == {0.0}  # a channel is all kept or all zero
    np.testing.assert_allclose(np.unique(channels), [0.0, 1 / 0.6], rtol=1e-6)
    assert 0.45 < (channels[:, 0] != 0).mean() < 0.75
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy(), rtol=1e-6)
    np.testing.assert_array_equal(getattr(F, name)(x, 0.4, training=False).detach().numpy(),
                                  x.detach().numpy())


def test_channel_dropout_errors_and_warnings():
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received"):
        F.dropout1d(ember.ones(2, 3, 4, 5))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        F.dropout2d(ember.ones(2, 3, 4, 5), 2.0)
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        F.dropout2d(ember.ones(2, 3, 4))
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        F.dropout2d(ember.ones(2, 3))
    ember.manual_seed(3)
    x = ember.ones(30, 4)
    assert F.dropout1d(x, 0.5, inplace=True) is x and x.shape == (30, 4)
    rows = x.numpy()
    assert set(np.unique(rows)) == {0.0, 2.0} and not rows.std(axis=1).any()


# --------------------------------------------------------------------------- __torch_function__


class _Recorder(ember.overrides.TorchFunctionMode):
    def __init__(self):
        self.calls = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls.append(func.__name__)
        return func(*args, **(kwargs or {}))


def test_torch_function_mode_sees_functional_calls():
    x, target = ember.randn(4, 3), ember.tensor([0, 2, 1, 1])
    expected = F.cross_entropy(F.relu(x), target, reduction="sum", label_smoothing=0.1)
    with _Recorder() as mode:
        result = F.cross_entropy(F.relu(x), target, reduction="sum", label_smoothing=0.1)
    assert mode.calls == ["relu", "cross_entropy"]  # as torch's (ops inside are not seen)
    assert float(result) == float(expected)
    weight = ember.randn(2, 3)
    with _Recorder() as mode:
        F.linear(x, weight)  # an alias of the op: seen once, as linear
    assert mode.calls == ["linear"]


def test_tensor_subclass_overrides_a_functional():
    class Constant(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func is F.mse_loss:
                return "overridden"
            return super().__torch_function__(func, types, args, kwargs)

    x = ember.randn(3).as_subclass(Constant)
    assert F.mse_loss(x, ember.zeros(3)) == "overridden"
    assert isinstance(F.relu(x), Constant)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", [((2, 0, 3), [1, 1]), ((0, 2, 3), [1, 1]), ((0, 3), [1, 1]),
                                       ((2, 3, 0), [1, 1, 1, 1]), ((0, 2, 3, 3), [1, 1, 1, 1]),
                                       ((2, 0, 3, 3), [1] * 6), ((1, 2, 0, 3, 3), [1] * 6)])
def test_pad_of_empty_dims_as_torch(mode, shape, pad):
    """reflect/replicate refuse a zero size outside the batch dim (torch's shape check, before
    the padding checks); circular pads or raises its wrap-around error."""
    got = []
    for lib in (ember, torch):
        try:
            got.append(tuple(lib.nn.functional.pad(lib.ones(shape), pad, mode=mode).shape))
        except RuntimeError as e:
            got.append(str(e))
    assert got[0] == got[1]
