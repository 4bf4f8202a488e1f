"""nn.init against torch: gains and fans equal torch's, errors match, and the random
initialisers have the bounds and spreads their formulas promise."""
import math
import warnings

import numpy as np
import pytest

import ember
from ember import nn
from ember.nn import init

torch = pytest.importorskip("torch")
tinit = torch.nn.init


@pytest.mark.parametrize("nonlinearity, param", [
    ("linear", None), ("conv1d", None), ("conv2d", None), ("conv3d", None),
    ("conv_transpose1d", None), ("conv_transpose2d", None), ("conv_transpose3d", None),
    ("sigmoid", None), ("tanh", None), ("relu", None), ("leaky_relu", None),
    ("leaky_relu", 0.2), ("leaky_relu", 3), ("leaky_relu", math.sqrt(5)), ("selu", None),
])
def test_calculate_gain_equals_torch(nonlinearity, param):
    assert init.calculate_gain(nonlinearity, param) == tinit.calculate_gain(nonlinearity, param)


@pytest.mark.parametrize("args", [("gelu",), ("leaky_relu", True), ("leaky_relu", "0.1")])
def test_calculate_gain_errors_match_torch(args):
    with pytest.raises(ValueError) as e:
        init.calculate_gain(*args)
    with pytest.raises(ValueError) as t:
        tinit.calculate_gain(*args)
    assert str(e.value) == str(t.value)


@pytest.mark.parametrize("shape", [(3, 5), (7, 2), (4, 3, 5), (8, 4, 3, 3), (2, 3, 2, 2, 2),
                                   (0, 4), (5, 0, 3)])
def test_fans_equal_torch(shape):
    assert init._calculate_fan_in_and_fan_out(ember.empty(shape)) == \
        tinit._calculate_fan_in_and_fan_out(torch.empty(shape))


@pytest.mark.parametrize("fn", [
    lambda m, T: m._calculate_fan_in_and_fan_out(T.empty(4)),
    lambda m, T: m.xavier_uniform_(T.empty(4)),
    lambda m, T: m.kaiming_normal_(T.empty(3, 4), mode="fan_avg"),
    lambda m, T: m.kaiming_uniform_(T.empty(3), mode="fan_in"),
    lambda m, T: m.eye_(T.empty(2, 2, 2)),
    lambda m, T: m.dirac_(T.empty(3, 3)),
    lambda m, T: m.dirac_(T.empty(3, 2, 3), groups=2),
    lambda m, T: m.orthogonal_(T.empty(3)),
    lambda m, T: m.sparse_(T.empty(3), 0.5),
])
def test_errors_match_torch(fn):
    with pytest.raises(Exception) as e:
        fn(init, ember)
    with pytest.raises(Exception) as t:
        fn(tinit, torch)
    assert type(e.value) is type(t.value) and str(e.value) == str(t.value)


# --- statistics ---------------------------------------------------------------------------------
SHAPE = (256, 400)     # fan_in 400, fan_out 256; 102400 samples


def _check_uniform(w, bound):
    a = w.numpy().astype(np.float64)
    assert a.min() >= -bound and a.max() <= bound
    assert a.min() < -0.99 * bound and a.max() > 0.99 * bound
    assert abs(a.mean()) < 0.02 * bound
    np.testing.assert_allclose(a.std(), bound / math.sqrt(3), rtol=0.02)


def _check_normal(w, std, mean=0.0):
    a = w.numpy().astype(np.float64)
    assert abs(a.mean() - mean) < 0.02 * std
    np.testing.assert_allclose(a.std(), std, rtol=0.02)


def test_uniform_and_normal():
    w = ember.empty(SHAPE)
    assert init.uniform_(w, -2.0, 3.0) is w
    a = w.numpy()
    assert a.min() >= -2.0 and a.max() <= 3.0 and abs(a.mean() - 0.5) < 0.05
    init.uniform_(w)
    assert w.numpy().min() >= 0.0 and w.numpy().max() <= 1.0
    assert init.normal_(w, 1.5, 0.25) is w
    _check_normal(w, 0.25, mean=1.5)


def test_constant_ones_zeros_eye_dirac_equal_torch():
    w = ember.empty(3, 4)
    assert init.constant_(w, 0.3) is w and np.all(w.numpy() == np.float32(0.3))
    assert init.ones_(w) is w and np.all(w.numpy() == 1)
    assert init.zeros_(w) is w and np.all(w.numpy() == 0)
    for shape in [(3, 4), (4, 3), (3, 3)]:
        np.testing.assert_array_equal(init.eye_(ember.empty(shape)).numpy(),
                                      tinit.eye_(torch.empty(shape)).numpy())
    for shape, groups in [((4, 2, 3), 1), ((6, 4, 3, 3), 2), ((2, 3, 3, 3, 3), 1)]:
        np.testing.assert_array_equal(init.dirac_(ember.empty(shape), groups).numpy(),
                                      tinit.dirac_(torch.empty(shape), groups).numpy())


@pytest.mark.parametrize("gain", [1.0, 2.5])
def test_xavier(gain):
    w = ember.empty(SHAPE)
    fan_in, fan_out = 400, 256
    assert init.xavier_uniform_(w, gain=gain) is w
    _check_uniform(w, gain * math.sqrt(6.0 / (fan_in + fan_out)))
    init.xavier_normal_(w, gain=gain)
    _check_normal(w, gain * math.sqrt(2.0 / (fan_in + fan_out)))


@pytest.mark.parametrize("a, mode, nonlinearity", [
    (0, "fan_in", "leaky_relu"), (math.sqrt(5), "fan_in", "leaky_relu"),
    (0, "fan_out", "relu"), (0.2, "FAN_OUT", "leaky_relu"), (0, "fan_in", "tanh"),
])
def test_kaiming(a, mode, nonlinearity):
    w = ember.empty(SHAPE)
    fan = 400 if mode.lower() == "fan_in" else 256
    std = tinit.calculate_gain(nonlinearity, a) / math.sqrt(fan)
    assert init.kaiming_uniform_(w, a=a, mode=mode, nonlinearity=nonlinearity) is w
    _check_uniform(w, math.sqrt(3.0) * std)
    init.kaiming_normal_(w, a=a, mode=mode, nonlinearity=nonlinearity)
    _check_normal(w, std)


def test_kaiming_on_conv_weight_uses_receptive_field():
    w = ember.empty(64, 32, 3, 3)
    init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    _check_normal(w, math.sqrt(2.0) / math.sqrt(64 * 9))


def _truncated_normal_std(mean, std, a, b):
    alpha, beta = (a - mean) / std, (b - mean) / std
    def pdf(x):
        return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)

    def cdf(x):
        return (1 + math.erf(x / math.sqrt(2))) / 2

    z = cdf(beta) - cdf(alpha)
    var = 1 + (alpha * pdf(alpha) - beta * pdf(beta)) / z - ((pdf(alpha) - pdf(beta)) / z) ** 2
    mu = mean + std * (pdf(alpha) - pdf(beta)) / z
    return mu, std * math.sqrt(var)


@pytest.mark.parametrize("mean, std, a, b", [
    (0.0, 1.0, -2.0, 2.0),       # most mass inside: draw and redraw
    (0.0, 0.02, -0.04, 0.04),    # the ViT-style call
    (0.0, 1.0, 1.0, 3.0),        # a one-sided tail: little mass, rejection from uniform
    (0.5, 1.0, -0.2, 0.1),       # a narrow window
])
def test_trunc_normal(mean, std, a, b):
    w = ember.empty(SHAPE)
    assert init.trunc_normal_(w, mean, std, a, b) is w
    x = w.numpy().astype(np.float64)
    assert x.min() >= a and x.max() <= b
    mu, sd = _truncated_normal_std(mean, std, a, b)
    assert abs(x.mean() - mu) < 0.02 * sd + 1e-6
    np.testing.assert_allclose(x.std(), sd, rtol=0.03)


def test_trunc_normal_warns_when_mean_is_far_from_the_window():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(ember.empty(100), mean=5.0, std=1.0, a=-1.0, b=1.0)


def test_orthogonal():
    for shape in [(6, 4), (4, 6), (3, 2, 2)]:
        w = init.orthogonal_(ember.empty(shape), gain=2.0)
        flat = w.numpy().reshape(shape[0], -1).astype(np.float64)
        gram = flat @ flat.T if shape[0] <= flat.shape[1] else flat.T @ flat
        np.testing.assert_allclose(gram, 4.0 * np.eye(gram.shape[0]), atol=1e-5)


def test_zero_element_tensor_warns_and_is_left_alone():
    w = ember.empty(0, 3)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        assert init.kaiming_uniform_(w) is w
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        assert init.kaiming_normal_(w) is w


# --- generators, parameters, no_grad ----------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda w, g: init.uniform_(w, -1, 1, generator=g),
    lambda w, g: init.normal_(w, 0, 1, generator=g),
    lambda w, g: init.xavier_uniform_(w, generator=g),
    lambda w, g: init.xavier_normal_(w, generator=g),
    lambda w, g: init.kaiming_uniform_(w, generator=g),
    lambda w, g: init.kaiming_normal_(w, generator=g),
    lambda w, g: init.trunc_normal_(w, generator=g),
    lambda w, g: init.trunc_normal_(w, 0, 1, 1, 3, generator=g),
    lambda w, g: init.orthogonal_(w, generator=g),
    lambda w, g: init.sparse_(w, 0.3, generator=g),
])
def test_generator_makes_draws_reproducible(fn):
    def draw(seed):
        return fn(ember.empty(8, 5), ember.Generator().manual_seed(seed)).numpy().copy()

    ember.manual_seed(0)
    first = draw(3)
    ember.manual_seed(1)               # the global generator does not matter
    np.testing.assert_array_equal(first, draw(3))
    assert not np.array_equal(first, draw(4))


def test_initialisers_run_without_grad_on_parameters():
    p = nn.Parameter(ember.empty(4, 3))
    for fn in (init.uniform_, init.normal_, init.xavier_uniform_, init.kaiming_normal_,
               init.trunc_normal_, init.ones_, init.zeros_, init.eye_, init.orthogonal_,
               lambda t: init.constant_(t, 2.0)):
        out = fn(p)
        assert out is p and p.is_leaf and p.grad_fn is None and p.requires_grad
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (p * 2).sum().backward()       # the parameter still works in a graph
    assert p.grad.shape == (4, 3)


def test_sparse_zeroes_a_fraction_of_each_column():
    w = init.sparse_(ember.empty(10, 50), sparsity=0.25, std=0.5)
    a = w.numpy()
    assert ((a == 0).sum(axis=0) == math.ceil(0.25 * 10)).all()
    np.testing.assert_allclose(a[a != 0].std(), 0.5, rtol=0.1)


def test_deprecated_spellings_warn_and_work():
    w = ember.empty(3, 3)
    with pytest.warns(FutureWarning, match="`nn.init.eye` is now deprecated in favor of"):
        assert init.eye(w) is w
    np.testing.assert_array_equal(w.numpy(), np.eye(3))
    for name in ("uniform", "normal", "constant", "dirac", "xavier_uniform", "xavier_normal",
                 "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"):
        assert getattr(init, name).__name__ == getattr(tinit, name).__name__ == name
