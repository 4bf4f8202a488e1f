"""ember.Generator, manual_seed, rand/randn(+_like): reproducibility, statistics, dtypes."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

FLOATS = [ember.float16, ember.bfloat16, ember.float32, ember.float64]


def as_f64(t):
    return t.numpy().astype(np.float64)


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 3, 4)])
def test_rand_randn_shape_dtype(dt, shape):
    for fn in (ember.rand, ember.randn):
        e = fn(shape, dtype=dt)
        t = getattr(torch, fn.__name__)(shape, dtype=getattr(torch, dt.name))
        assert (tuple(e.shape), e.stride(), e.dtype) == (tuple(t.shape), t.stride(), dt)
        m = fn(shape, dtype=dt, device="meta")
        assert (m.device.type, tuple(m.shape), m.dtype) == ("meta", tuple(t.shape), dt)


def test_default_dtype():
    assert ember.rand(3).dtype is ember.float32
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.randn(3).dtype is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("dt", FLOATS)
def test_rand_statistics(dt):
    g = ember.Generator().manual_seed(123)
    x = as_f64(ember.rand(200_000, generator=g, dtype=dt))
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.01
    assert abs(x.std() - (1 / 12) ** 0.5) < 0.01
    hist, _ = np.histogram(x, bins=10, range=(0, 1))
    assert (abs(hist / x.size - 0.1) < 0.01).all()


@pytest.mark.parametrize("dt", FLOATS)
def test_randn_statistics(dt):
    g = ember.Generator().manual_seed(7)
    x = as_f64(ember.randn(200_000, generator=g, dtype=dt))
    assert abs(x.mean()) < 0.01
    assert abs(x.std() - 1.0) < 0.01
    assert abs((np.abs(x) < 1).mean() - 0.6827) < 0.01


def test_half_precision_uniform_never_reaches_one():
    g = ember.Generator().manual_seed(0)
    for dt in (ember.float16, ember.bfloat16):
        x = as_f64(ember.rand(1_000_000, generator=g, dtype=dt))
        assert x.max() < 1.0
        assert len(np.unique(x)) > 200


@pytest.mark.parametrize("dt", FLOATS)
def test_same_seed_same_numbers(dt):
    a = ember.rand(4, 5, generator=ember.Generator().manual_seed(42), dtype=dt)
    b = ember.rand(4, 5, generator=ember.Generator().manual_seed(42), dtype=dt)
    c = ember.rand(4, 5, generator=ember.Generator().manual_seed(43), dtype=dt)
    assert a.tolist() == b.tolist()
    assert a.tolist() != c.tolist()
    ember.manual_seed(5)
    d = ember.randn(10, dtype=dt)
    ember.manual_seed(5)
    assert ember.randn(10, dtype=dt).tolist() == d.tolist()


def test_manual_seed_returns_default_generator():
    g = ember.manual_seed(11)
    assert g is ember.random.default_generator
    assert ember.initial_seed() == 11
    assert isinstance(g, ember.Generator)
    x = ember.rand(3)
    assert x.tolist() == ember.rand(3, generator=ember.Generator().manual_seed(11)).tolist()


def test_consecutive_draws_differ():
    ember.manual_seed(0)
    assert ember.rand(8).tolist() != ember.rand(8).tolist()


def test_generator_api():
    g = ember.Generator(device="cpu")
    assert g.device == ember.device("cpu")
    assert g.initial_seed() == 67280421310721
    assert g.manual_seed(3) is g and g.initial_seed() == 3
    assert g.manual_seed(-1).initial_seed() == 2**64 - 1
    assert g.manual_seed(2**64 - 1).initial_seed() == 2**64 - 1
    with pytest.raises(ValueError):
        g.manual_seed(2**64)
    s = g.seed()
    assert g.initial_seed() == s and 0 <= s < 2**64
    with pytest.raises(RuntimeError, match="not an accelerator"):
        ember.Generator(device="meta")


def test_seed_is_nondeterministic():
    assert ember.seed() != ember.seed()
    assert ember.initial_seed() == ember.random.default_generator.initial_seed()


@pytest.mark.parametrize("dt", FLOATS)
def test_get_set_state_round_trip(dt):
    g = ember.Generator().manual_seed(99)
    ember.rand(3, generator=g)
    state = g.get_state()
    assert state.dtype is ember.uint8 and state.dim() == 1
    a = ember.randn(17, generator=g, dtype=dt)  # odd count: PCG64's buffered half-word
    b = ember.rand(5, generator=g, dtype=dt)
    g2 = ember.Generator().set_state(state)
    assert g2.initial_seed() == 99
    assert ember.randn(17, generator=g2, dtype=dt).tolist() == a.tolist()
    assert ember.rand(5, generator=g2, dtype=dt).tolist() == b.tolist()
    g.set_state(bytes(state.numpy()))
    assert ember.randn(17, generator=g, dtype=dt).tolist() == a.tolist()


def test_set_state_errors():
    g = ember.Generator()
    with pytest.raises(RuntimeError, match="found the input RNG state size to be 3"):
        g.set_state(ember.zeros(3, dtype=ember.uint8))
    with pytest.raises(TypeError):
        g.set_state(ember.zeros(45, dtype=ember.float32))
    with pytest.raises(TypeError):
        g.set_state([1, 2, 3])


def test_global_state_helpers():
    ember.manual_seed(1)
    st = ember.random.get_rng_state()
    a = ember.rand(4)
    ember.random.set_rng_state(st)
    assert ember.rand(4).tolist() == a.tolist()


@pytest.mark.parametrize("fn,kernel", [(ember.rand, "check_uniform_bounds"),
                                       (ember.randn, "normal_kernel_cpu")])
@pytest.mark.parametrize("dt,name", [(ember.int64, "Long"), (ember.bool, "Bool"),
                                     (ember.uint8, "Byte"), (ember.int32, "Int")])
def test_integer_dtypes_rejected(fn, kernel, dt, name):
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for '{name}'"):
        fn(3, dtype=dt)
    with pytest.raises(NotImplementedError):
        getattr(torch, fn.__name__)(3, dtype=getattr(torch, dt.name))


@pytest.mark.parametrize("mf", [None, "contiguous_format"])
def test_rand_like(mf):
    x = ember.from_numpy(np.zeros((3, 4), np.float64).T)
    kw = {} if mf is None else {"memory_format": mf}
    ember.manual_seed(3)
    r = ember.rand_like(x, **kw)
    n = ember.randn_like(x, **kw)
    assert r.dtype is ember.float64 and r.shape == (4, 3)
    assert r.stride() == ((1, 4) if mf is None else (3, 1))
    assert 0 <= as_f64(r).min() and as_f64(r).max() < 1
    ember.manual_seed(3)
    assert ember.rand_like(x, **kw).tolist() == r.tolist()
    assert ember.randn_like(x, **kw).tolist() == n.tolist()
    assert ember.rand_like(x, dtype=ember.float16).dtype is ember.float16
    m = ember.randn_like(x, device="meta")
    assert m.device.type == "meta" and m.stride() == (1, 4)


def test_generator_is_accepted_positionally_by_keyword_only():
    g = ember.Generator().manual_seed(0)
    assert ember.rand(2, 3, generator=g).shape == (2, 3)
    assert ember.randn((2, 3), generator=g).shape == (2, 3)


@pytest.mark.parametrize("fn", ["rand", "randn"])
@pytest.mark.parametrize("dt,per_element", [("float32", 4), ("float64", 8), ("float16", 12),
                                            ("bfloat16", 12)])
def test_large_rand_is_vectorised(fn, dt, per_element):
    """rand/randn fill the result in NumPy: float32/float64 write straight into it, the half
    types go through float32 (and int32) temporaries; no Python object per element (a
    complexity check in bytes: the timings are in benchmarks/)."""
    import tracemalloc
    n = 1_000_000
    tracemalloc.start()
    try:
        x = getattr(ember, fn)(n, dtype=getattr(ember, dt))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert x.shape == (n,)
    assert peak < 1.05 * n * per_element, peak / n
