"""Behaviour of the random ops that a comparison with torch cannot check (their values
differ: PCG64 vs Mersenne Twister): distributions, ranges, seeding and generators.

tests/ops/opinfo_random.py compares shapes, dtypes, strides and errors with torch.

    .venv/bin/python -m pytest tests/ops/test_random_ops.py -q
"""
from __future__ import annotations

import numpy as np
import pytest

import ember

N = 20000


def np_of(t):
    return t.numpy().astype(np.float64)


# --------------------------------------------------------------------------- seeding
SAMPLERS = {
    "rand": lambda g: ember.rand(5, generator=g),
    "randn": lambda g: ember.randn(5, generator=g),
    "randint": lambda g: ember.randint(0, 100, (5,), generator=g),
    "randperm": lambda g: ember.randperm(10, generator=g),
    "uniform_": lambda g: ember.empty(5).uniform_(-2, 2, generator=g),
    "normal_": lambda g: ember.empty(5).normal_(1, 3, generator=g),
    "exponential_": lambda g: ember.empty(5).exponential_(2, generator=g),
    "random_": lambda g: ember.empty(5).random_(0, 1000, generator=g),
    "bernoulli": lambda g: ember.bernoulli(ember.full((20,), 0.5), generator=g),
    "bernoulli_": lambda g: ember.empty(20).bernoulli_(0.5, generator=g),
    "rand_like": lambda g: ember.rand_like(ember.empty(5), generator=g),
    "randint_like": lambda g: ember.randint_like(ember.empty(5), 0, 50, generator=g),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_same_seed_same_values(name):
    draw = SAMPLERS[name]
    a = draw(ember.Generator().manual_seed(7))
    b = draw(ember.Generator().manual_seed(7))
    c = draw(ember.Generator().manual_seed(8))
    assert np.array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_global_seed_determinism(name):
    draw = SAMPLERS[name]
    ember.manual_seed(3)
    a = draw(None)
    ember.manual_seed(3)
    assert np.array_equal(a.numpy(), draw(None).numpy())


def test_generator_is_independent_of_the_global_one():
    ember.manual_seed(11)
    expected = ember.rand(6).numpy()
    ember.manual_seed(11)
    g = ember.Generator().manual_seed(11)
    ember.rand(100, generator=g)          # drawing from g leaves the default untouched
    assert np.array_equal(ember.rand(6).numpy(), expected)
    g2 = ember.Generator().manual_seed(5)
    first = ember.rand(4, generator=g2).numpy()
    g2.manual_seed(5)
    ember.rand(100)                        # the default generator leaves g untouched
    assert np.array_equal(ember.rand(4, generator=g2).numpy(), first)


def test_dropout_uses_the_default_generator():
    x = ember.ones(200)
    ember.manual_seed(1)
    a = ember.dropout(x, 0.5, True)
    ember.manual_seed(1)
    assert np.array_equal(a.numpy(), ember.dropout(x, 0.5, True).numpy())
    ember.manual_seed(1)
    _, mask = ember.native_dropout(x, 0.5, True)
    ember.manual_seed(1)
    assert np.array_equal(mask.numpy(), ember.native_dropout(x, 0.5, True)[1].numpy())


def test_rng_state_round_trip():
    ember.manual_seed(123)
    assert ember.initial_seed() == 123
    state = ember.get_rng_state()
    assert state.dtype is ember.uint8
    a = ember.randn(5).numpy()
    ember.set_rng_state(state)
    assert np.array_equal(ember.randn(5).numpy(), a)
    g = ember.Generator()
    s = g.get_state()
    b = ember.rand(3, generator=g).numpy()
    g.set_state(s)
    assert np.array_equal(ember.rand(3, generator=g).numpy(), b)


def test_seed_reseeds_from_entropy():
    s = ember.seed()
    assert ember.initial_seed() == s
    assert ember.manual_seed(0) is ember.random.default_generator


def test_generator_api():
    g = ember.Generator(device="cpu")
    assert g.manual_seed(42) is g and g.initial_seed() == 42
    assert g.device.type == "cpu"
    with pytest.raises(RuntimeError):
        ember.Generator(device="meta")


# --------------------------------------------------------------------------- distributions
@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16, ember.float32, ember.float64])
def test_rand_is_uniform_below_one(dtype):
    x = np_of(ember.rand(N, dtype=dtype, generator=ember.Generator().manual_seed(0)))
    assert x.min() >= 0 and x.max() < 1
    assert abs(x.mean() - 0.5) < 0.02 and abs(x.std() - (1 / 12) ** 0.5) < 0.02


def test_randn_moments():
    x = np_of(ember.randn(N, generator=ember.Generator().manual_seed(0)))
    assert abs(x.mean()) < 0.03 and abs(x.std() - 1) < 0.03


@pytest.mark.parametrize("dtype", [ember.float16, ember.float32, ember.float64])
def test_uniform_bounds_and_moments(dtype):
    x = np_of(ember.empty(N, dtype=dtype).uniform_(-3, 5))
    assert x.min() >= -3 and x.max() < 5
    assert abs(x.mean() - 1) < 0.1 and abs(x.std() - 8 / 12 ** 0.5) < 0.1


def test_uniform_degenerate_range_is_constant():
    assert (ember.empty(10).uniform_(2, 2).numpy() == 2).all()


@pytest.mark.parametrize("dtype", [ember.bfloat16, ember.float32, ember.float64])
def test_normal_moments(dtype):
    x = np_of(ember.empty(N, dtype=dtype).normal_(3, 2))
    assert abs(x.mean() - 3) < 0.1 and abs(x.std() - 2) < 0.1


def test_exponential_moments():
    x = np_of(ember.empty(N).exponential_(4))
    assert x.min() >= 0 and abs(x.mean() - 0.25) < 0.01 and abs(x.std() - 0.25) < 0.01


def test_bernoulli_probabilities():
    p = ember.tensor([0.0, 0.2, 0.9, 1.0]).expand(N, 4).contiguous()
    x = np_of(ember.bernoulli(p))
    assert set(np.unique(x)) <= {0.0, 1.0}
    np.testing.assert_allclose(x.mean(0), [0, 0.2, 0.9, 1], atol=0.02)
    assert abs(np_of(ember.empty(N, dtype=ember.int32).bernoulli_(0.3)).mean() - 0.3) < 0.02
    y = np_of(ember.bernoulli(ember.zeros(N), 0.7))
    assert abs(y.mean() - 0.7) < 0.02
    z = np_of(ember.empty(N, 2).bernoulli_(ember.tensor([0.1, 0.6])))
    np.testing.assert_allclose(z.mean(0), [0.1, 0.6], atol=0.02)


def test_randint_range_is_covered():
    x = ember.randint(-3, 4, (N,)).numpy()
    assert x.dtype == np.int64 and set(np.unique(x)) == set(range(-3, 4))
    y = ember.randint(5, (N,), dtype=ember.float16).numpy()
    assert set(np.unique(y.astype(np.int64))) == set(range(5))
    assert set(ember.randint(0, 2, (100,), dtype=ember.bool).numpy().tolist()) == {False, True}


def test_randint_like_takes_self_dtype_and_layout():
    x = ember.zeros(4, 3, dtype=ember.int32).t()
    r = ember.randint_like(x, 2, 9)
    assert r.dtype is ember.int32 and r.stride() == x.stride()
    assert r.numpy().min() >= 2 and r.numpy().max() < 9


def test_randperm_is_a_permutation():
    for n, dt in ((0, ember.int64), (1, ember.int64), (50, ember.int32), (200, ember.float32)):
        p = ember.randperm(n, dtype=dt).numpy()
        assert sorted(p.tolist()) == list(range(n))


@pytest.mark.parametrize("dtype,high", [(ember.bool, 1), (ember.uint8, 255), (ember.int32, 2**31 - 1),
                                        (ember.float16, 2**11), (ember.bfloat16, 2**8),
                                        (ember.float32, 2**24)])
def test_random_default_ranges(dtype, high):
    x = np_of(ember.empty(N, dtype=dtype).random_())
    assert x.min() >= 0 and x.max() <= high and (x == np.floor(x)).all()
    assert x.max() > high / 2


def test_random_from_to():
    x = ember.empty(N).random_(-5, 5).numpy()
    assert set(np.unique(x).tolist()) == {float(v) for v in range(-5, 5)}
    assert set(ember.empty(N, dtype=ember.int64).random_(3).numpy().tolist()) == {0, 1, 2}
    y = ember.empty(N, dtype=ember.uint8).random_(250, None).numpy()
    assert set(y.tolist()) == set(range(250, 256))


def test_linspace_matches_numpy():
    np.testing.assert_allclose(ember.linspace(-2, 3, 11, dtype=ember.float64).numpy(),
                               np.linspace(-2, 3, 11))
    assert ember.linspace(5, 5, 1).tolist() == [5.0]


# --------------------------------------------------------------------------- dropout
def test_native_dropout_output_is_masked_and_scaled():
    x = ember.randn(1000, dtype=ember.float64)
    out, mask = ember.native_dropout(x, 0.25, True)
    assert mask.dtype is ember.bool
    np.testing.assert_allclose(out.numpy(), x.numpy() * mask.numpy() / 0.75)
    assert abs(1 - mask.numpy().mean() - 0.25) < 0.05
    out, mask = ember.native_dropout(x, 0.25, False)
    assert mask.numpy().all() and np.array_equal(out.numpy(), x.numpy())


def test_native_dropout_gradient_uses_the_mask():
    x = ember.randn(50, dtype=ember.float64, requires_grad=True)
    out, mask = ember.native_dropout(x, 0.4, True)
    assert out.requires_grad and not mask.requires_grad
    (g,) = ember.autograd.grad(out.sum(), x)
    np.testing.assert_allclose(g.numpy(), mask.numpy() / 0.6)
    # torch's formula: train=None trains, but its backward scale is 1
    out, mask = ember.native_dropout(x, 0.4, None)
    (g,) = ember.autograd.grad(out.sum(), x)
    np.testing.assert_allclose(g.numpy(), mask.numpy().astype(np.float64))


def test_dropout_edge_cases():
    x = ember.randn(100, requires_grad=True)
    assert ember.dropout(x, 0.0, True) is x
    assert ember.dropout(x, 0.7, False) is x
    assert (ember.dropout(x, 1.0, True).detach().numpy() == 0).all()
    y = ember.dropout(x, 0.5, True)
    kept = y.detach().numpy() != 0
    np.testing.assert_allclose(y.detach().numpy()[kept], 2 * x.detach().numpy()[kept], rtol=1e-6)
    (g,) = ember.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(g.numpy(), 2.0 * kept)
    for p in (-0.1, 1.1):
        with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1"):
            ember.dropout(x, p, False)


def test_dropout_in_place():
    x = ember.ones(1000)
    assert ember.dropout_(x, 0.5, True) is x
    v = np.unique(x.numpy())
    assert set(v.tolist()) <= {0.0, 2.0} and len(v) == 2
    with pytest.raises(RuntimeError, match="can't be cast"):
        ember.dropout_(ember.ones(3, dtype=ember.int64), 0.5, True)


def test_dropout_keeps_the_expected_value():
    x = ember.ones(N)
    assert abs(np_of(ember.dropout(x, 0.3, True)).mean() - 1) < 0.05


def test_errors_match_torch_messages():
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        ember.randint(5, 3, (2,))
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for unsigned char"):
        ember.randint(0, 300, (2,), dtype=ember.uint8)
    with pytest.raises(RuntimeError, match=r"uniform_ expects to return a \[from, to\) range"):
        ember.empty(2).uniform_(3, 1)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        ember.empty(2).normal_(0, -1)
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\]"):
        ember.empty(2).bernoulli_(1.5)
    with pytest.raises(NotImplementedError, match="check_uniform_bounds"):
        ember.empty(2, dtype=ember.int64).uniform_()
    with pytest.raises(RuntimeError, match="n cannot be greater than 2049 for Half type"):
        ember.randperm(3000, dtype=ember.float16)


# --------------------------------------------------------------------------- Python out=
def test_factory_out_keyword():
    """torch's factories take out= in Python (the aten out= variants drop the options)."""
    out = ember.empty(0, dtype=ember.int32)
    assert ember.zeros(2, 3, out=out) is out and out.shape == (2, 3) and out.dtype is ember.int32
    assert ember.randint(0, 5, (4,), out=out) is out and out.numpy().max() < 5
    assert ember.randperm(6, out=out) is out and sorted(out.tolist()) == list(range(6))
    assert ember.arange(1, 7, 2, out=out).tolist() == [1, 3, 5]
    assert ember.linspace(0, 10, 3, out=out).tolist() == [0, 5, 10]
    assert ember.eye(2, 3, out=out).tolist() == [[1, 0, 0], [0, 1, 0]]
    f = ember.empty(0, dtype=ember.float64)
    assert ember.rand(5, generator=ember.Generator(), out=f) is f and f.dtype is ember.float64
    assert ember.full((2,), 2.5, out=f, dtype=ember.float64).tolist() == [2.5, 2.5]
    with pytest.raises(RuntimeError, match=r"dtype Float does not match dtype of out parameter"):
        ember.zeros(2, out=f, dtype=ember.float32)
    with pytest.raises(RuntimeError, match="device type meta does not match device type of out"):
        ember.ones(2, out=f, device="meta")


def test_fork_rng_restores_the_state():
    ember.manual_seed(4)
    expected = ember.rand(3).numpy()
    ember.manual_seed(4)
    with ember.random.fork_rng():
        ember.rand(10)
    assert np.array_equal(ember.rand(3).numpy(), expected)


def test_normal_tensor_overloads():
    mean = ember.tensor([-5.0, 0.0, 5.0]).expand(N, 3).contiguous()
    std = ember.tensor([0.5, 1.0, 2.0])
    x = np_of(ember.normal(mean, std))
    np.testing.assert_allclose(x.mean(0), [-5, 0, 5], atol=0.06)
    np.testing.assert_allclose(x.std(0), [0.5, 1, 2], atol=0.06)
    y = np_of(ember.normal(3.0, std.expand(N, 3).contiguous()))
    np.testing.assert_allclose(y.mean(0), [3, 3, 3], atol=0.06)
    z = np_of(ember.normal(mean, 0.0))
    assert np.array_equal(z, mean.numpy())
    g = ember.Generator().manual_seed(2)
    a = ember.normal(mean, std, generator=g)
    g.manual_seed(2)
    assert np.array_equal(a.numpy(), ember.normal(mean, std, generator=g).numpy())
    with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
        ember.normal(mean, -std)


def test_feature_dropout_drops_whole_channels():
    x = ember.ones(8, 16, 3, 3)
    y = ember.feature_dropout(x, 0.5, True).numpy()
    per_channel = y.reshape(8, 16, 9)
    assert (per_channel == per_channel[..., :1]).all()          # one draw per channel
    assert set(np.unique(y).tolist()) == {0.0, 2.0}
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
        ember.feature_dropout(ember.ones(4), 0.5, True)


def test_alpha_dropout_keeps_mean_and_variance():
    x = ember.randn(N, dtype=ember.float64)
    y = np_of(ember.alpha_dropout(x, 0.3, True))
    assert abs(y.mean()) < 0.05 and abs(y.std() - 1) < 0.05
    assert ember.alpha_dropout(x, 0.3, False) is x
    z = ember.ones(4, 5, dtype=ember.float64)
    assert ember.feature_alpha_dropout_(z, 0.5, True) is z


def test_more_samplers():
    ln = np_of(ember.empty(N, dtype=ember.float64).log_normal_(0.5, 0.25))
    assert ln.min() > 0 and abs(np.log(ln).mean() - 0.5) < 0.01 and abs(np.log(ln).std() - 0.25) < 0.01
    c = np_of(ember.empty(N).cauchy_(2.0, 0.5))
    assert abs(np.median(c) - 2.0) < 0.05
    assert abs(np.percentile(c, 75) - np.percentile(c, 25) - 1.0) < 0.1   # IQR = 2 sigma
    g = ember.empty(N, dtype=ember.int32).geometric_(0.25).numpy()
    assert g.min() >= 1 and abs(g.mean() - 4) < 0.15
    rates = ember.tensor([0.0, 1.0, 7.5]).expand(N, 3).contiguous()
    po = np_of(ember.poisson(rates))
    assert (po == np.floor(po)).all()
    np.testing.assert_allclose(po.mean(0), [0, 1, 7.5], atol=0.1)


def test_multinomial():
    p = ember.tensor([0.1, 0.0, 0.2, 0.7])
    s = ember.multinomial(p.expand(2000, 4).contiguous(), 10, True).numpy()
    assert s.dtype == np.int64 and s.shape == (2000, 10)
    np.testing.assert_allclose(np.bincount(s.ravel(), minlength=4) / s.size, [0.1, 0, 0.2, 0.7],
                               atol=0.01)
    rows = ember.multinomial(p.expand(500, 4).contiguous(), 3).numpy()
    assert all(len(set(r)) == 3 for r in rows.tolist())         # no repeats
    assert (np.sort(rows, axis=1) == [0, 2, 3]).all()            # zero weight drawn last
    g = ember.Generator().manual_seed(9)
    a = ember.multinomial(p, 3, generator=g)
    g.manual_seed(9)
    assert ember.multinomial(p, 3, generator=g).tolist() == a.tolist()
    assert p.multinomial(2).shape == (2,)


def test_generator_clone_state():
    g = ember.Generator().manual_seed(3)
    ember.rand(5, generator=g)
    h = g.clone_state()
    assert h is not g and h.initial_seed() == 3
    assert ember.randn(4, generator=g).tolist() == ember.randn(4, generator=h).tolist()


def test_size_keyword():
    """torch's bindings take an int-list varargs parameter by its keyword too."""
    assert ember.zeros(size=(2, 3)).shape == (2, 3)
    assert ember.rand(size=[4], generator=ember.Generator()).shape == (4,)
    assert ember.ones(6).view(size=(2, 3)).shape == (2, 3)
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        ember.zeros(2, size=(2,))


def test_functional_samplers_are_not_python_functions():
    """torch.random is the module; aten's functional samplers have no Python function."""
    import types
    assert isinstance(ember.random, types.ModuleType)
    for name in ("uniform", "exponential", "geometric", "log_normal", "cauchy", "normal_functional",
                 "zero", "copy"):
        assert not hasattr(ember, name), name
    x = ember.ones(3)
    assert ember.ops.aten.random.to(x, 4).numpy().max() < 4 and x.tolist() == [1, 1, 1]


# --------------------------------------------------------------------------- parity sweeps
torch = pytest.importorskip("torch")
DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def _outcome(fn, *args, **kwargs):
    """fn(*args, **kwargs) as ("ok", shape, dtype name) or ("err", exception type name)."""
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001  (compared with torch's)
        return ("err", type(e).__name__)
    if isinstance(r, tuple):
        r = r[0]
    return ("ok", tuple(r.shape), str(r.dtype).rpartition(".")[2])


def _same(fn_e, fn_t, dtype, make_args, *args, **kwargs):
    """The ember and torch calls end the same way; `make_args(lib, dt)` gives the tensors."""
    e = _outcome(fn_e, *make_args(ember, getattr(ember, dtype)), *args, **kwargs)
    t = _outcome(fn_t, *make_args(torch, getattr(torch, dtype)), *args, **kwargs)
    assert e == t, (fn_e, args, kwargs, e, t)
    return e


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_bounds_match_torch(dtype):
    """random_(from, to) accepts and refuses the same bounds as torch for every dtype, and
    draws within them."""
    op_e, op_t = getattr(ember.ops.aten.random_, "from"), getattr(torch.ops.aten.random_, "from")
    for frm in (-3, 0, 1, 250, 2**11, 2**31 - 1, -(2**63)):
        for to in (None, 0, 1, 2, 3, 256, 2**11 + 1, 2**24 + 2, 2**31, 2**62):
            e = ember.zeros(64, dtype=getattr(ember, dtype))
            got = _outcome(op_e, e, frm, to)
            assert got == _outcome(op_t, torch.zeros(64, dtype=getattr(torch, dtype)), frm, to)
            if got[0] == "ok" and to is not None and dtype not in ("bool", "float16", "bfloat16"):
                v = e.numpy().astype(np.float64)
                assert v.min() >= frm and v.max() < to, (frm, to)


def _vector(n):
    return lambda lib, dt: (lib.zeros(n, dtype=dt),)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sampler_arguments_match_torch(dtype):
    """The samplers accept and refuse the same dtypes and parameters as torch."""
    nan, inf = float("nan"), float("inf")
    calls = [("uniform_", a) for a in ((0, 1), (-1e5, 1e5), (-7e4, 7e4), (1, 0), (-inf, 0))]
    calls += [(op, a) for op in ("normal_", "log_normal_", "cauchy_")
              for a in ((0, 1), (0, 0), (0, -1), (0, nan))]
    calls += [("exponential_", (a,)) for a in (1, 0, -1, nan, inf)]
    calls += [(op, (p,)) for op in ("geometric_", "bernoulli_") for p in (0, 0.5, 1, -0.1, 1.1)]
    for op, args in calls:
        for n in (3, 0):
            _same(getattr(ember.Tensor, op), getattr(torch.Tensor, op), dtype, _vector(n), *args)
    for p in (0, 0.5, 1, 1.5):
        for train in (True, False, None):
            _same(ember.native_dropout, torch.ops.aten.native_dropout, dtype, _vector(3), p, train)
        for train in (True, False):
            _same(ember.dropout, torch.dropout, dtype, _vector(3), p, train)
    for fn in ("bernoulli", "poisson", "rand_like", "randn_like"):
        _same(getattr(ember, fn), getattr(torch, fn), dtype, _vector(3))
    for n in (0, 1, 255, 256, 257, 2049, 2050):
        e = _outcome(ember.randperm, n, dtype=getattr(ember, dtype))
        assert e == _outcome(torch.randperm, n, dtype=getattr(torch, dtype)), n
    for maker, args in (("rand", (3,)), ("randn", (3,)), ("linspace", (-3, 3, 4)),
                        ("logspace", (-3, 3, 4)), ("eye", (3,)), ("tril_indices", (3, 3))):
        e = _outcome(getattr(ember, maker), *args, dtype=getattr(ember, dtype))
        assert e == _outcome(getattr(torch, maker), *args, dtype=getattr(torch, dtype)), maker


def test_long_dtype_defaults():
    """randint / randperm / tril_indices declare torch's `dtype=long`; the Python bindings
    take dtype=None (so out= checks only a dtype given)."""
    assert "ScalarType? dtype=long" in ember.ops.aten.randint.low._schema_str
    assert ember.randint(3, (2,)).dtype is ember.int64
    assert ember.randperm(3, dtype=None).dtype is ember.int64
    assert ember.ops.aten.tril_indices.default(3, 3).dtype is ember.int64
    out = ember.empty(0)
    assert ember.randint(5, (3,), out=out).dtype is ember.float32


def test_bindings_with_torch_function_on():
    """With __torch_function__ checks on (a TorchFunctionMode), bindings keep their
    arguments: a parameter named like a binding local (combinations' r) is not clobbered."""
    from ember.overrides import TorchFunctionMode

    class Passthrough(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with Passthrough():
        assert ember.combinations(ember.arange(4.0), 3).shape == (4, 3)
        assert ember.randint(0, 5, (2,), generator=ember.Generator()).shape == (2,)
        assert ember.zeros(size=(2, 1)).shape == (2, 1)
