"""clone, copy_, _to_copy, Tensor.to, contiguous, fill_, zero_: values, dtypes, layouts
and errors compared with torch; Meta parity."""
import numpy as np
import pytest
from helpers import ALL_DTYPES, assert_same, from_torch, tdt, torch_of

import ember
from ember.kernels.composite.conversions import tensor_to

torch = pytest.importorskip("torch")


def sample(dt, shape=(3, 4), seed=0):
    """Values every dtype can hold exactly and that cast the same way in torch and
    NumPy: no negatives for uint8, no out-of-range floats for the integer types."""
    rng = np.random.default_rng(seed)
    if dt is ember.bool:
        return torch.from_numpy(rng.random(shape) > 0.5)
    if dt.category == 1:  # integers
        lo = 0 if dt is ember.uint8 else -100
        return torch.from_numpy(rng.integers(lo, 100, shape)).to(tdt(dt))
    vals = rng.normal(0, 10, shape).astype(np.float32)
    vals[0, 0] = 0.0
    vals[0, 1] = -0.5
    return torch.from_numpy(vals).to(tdt(dt))


def safe_for(src_dt, dst_dt, t):
    """Drops values whose cast is implementation-defined (negative float -> uint8)."""
    if dst_dt is ember.uint8 and src_dt.category == 2:
        return t.abs()
    return t


# --- _to_copy / Tensor.to across all dtypes ---------------------------------------------------
@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", ALL_DTYPES)
def test_to_copy_all_dtype_pairs(src, dst):
    t = safe_for(src, dst, sample(src))
    e = from_torch(t)
    assert_same(ember._to_copy(e, dtype=dst), t.to(tdt(dst)))
    assert_same(e.to(dst), t.to(tdt(dst)))


@pytest.mark.parametrize("dst", [ember.int8, ember.int16, ember.int32, ember.int64, ember.bool])
def test_float_to_int_truncates_toward_zero(dst):
    vals = torch.tensor([-2.9, -2.5, -0.7, -0.0, 0.3, 1.5, 2.9, 99.99])
    assert_same(from_torch(vals).to(dst), vals.to(tdt(dst)))


def test_float_to_bool_nonzero_is_true():
    vals = torch.tensor([0.0, -0.0, 1e-30, float("nan"), float("inf"), -3.0])
    assert_same(from_torch(vals).to(ember.bool), vals.to(torch.bool))


def test_to_float16_bfloat16_rounding():
    vals = torch.tensor([1 / 3, 65504.0, 1e5, 1e-8, 3.14159, -2.71828], dtype=torch.float64)
    e = from_torch(vals)
    assert_same(e.to(ember.float16), vals.to(torch.float16))
    assert_same(e.to(ember.bfloat16), vals.to(torch.bfloat16))


@pytest.mark.parametrize("make", [
    lambda t: t.t(), lambda t: t[:, ::2], lambda t: t.t()[1:], lambda t: t[1],
    lambda t: t.expand(2, 4, 6)[0], lambda t: t[:, :0]])
@pytest.mark.parametrize("mf", [None, "preserve_format", "contiguous_format"])
def test_to_copy_and_clone_layouts(make, mf):
    t = make(torch.arange(24, dtype=torch.float32).reshape(4, 6))
    e = from_torch(t)
    kt = {} if mf is None else {"memory_format": getattr(torch, mf)}
    ke = {} if mf is None else {"memory_format": mf}
    assert_same(ember.clone(e, **ke), t.clone(**kt))
    assert_same(ember._to_copy(e, dtype=ember.float64, **ke), torch.ops.aten._to_copy(t, dtype=torch.float64, **kt))
    m = ember._to_copy(e, device="meta", **ke)
    assert m.device.type == "meta" and m.stride() == t.clone(**kt).stride()
    assert ember.clone(m, **ke).stride() == t.clone(**kt).stride()


@pytest.mark.parametrize("mf", [None, "channels_last", "contiguous_format"])
def test_clone_channels_last(mf):
    t = torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
    e = from_torch(t)
    assert e.stride() == t.stride()
    kt = {} if mf is None else {"memory_format": getattr(torch, mf)}
    ke = {} if mf is None else {"memory_format": getattr(ember, mf)}
    assert_same(e.clone(**ke), t.clone(**kt))
    c = from_torch(torch.randn(2, 3, 4, 5))
    assert_same(c.clone(memory_format=ember.channels_last),
                torch_of(c.numpy()).clone(memory_format=torch.channels_last))


def test_clone_is_a_copy():
    e = ember.ones(3)
    c = e.clone()
    c.zero_()
    assert e.tolist() == [1.0] * 3
    assert c.untyped_storage().data_ptr() != e.untyped_storage().data_ptr()


def test_to_copy_meta_and_back():
    e = ember.ones(2, 3, dtype=ember.int32)
    m = ember._to_copy(e, device="meta")
    assert m.device.type == "meta" and m.dtype is ember.int32 and m.shape == (2, 3)
    mm = ember._to_copy(m, dtype=ember.float16)
    assert mm.device.type == "meta" and mm.dtype is ember.float16
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        ember._to_copy(m, device="cpu")
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        m.to(device="cpu")


# --- Tensor.to overloads -------------------------------------------------------------------
def test_to_returns_self_when_nothing_changes():
    x = ember.ones(2, 3)
    assert x.to(ember.float32) is x
    assert x.to(dtype=ember.float32, device="cpu") is x
    assert x.to(ember.zeros(1)) is x
    assert x.to(ember.float32, copy=True) is not x
    assert x.to(dtype=ember.float32, memory_format=ember.contiguous_format) is x
    y = x.to(ember.float32, copy=True)
    y.zero_()
    assert x.tolist() == [[1.0] * 3] * 2


def test_to_python_overloads():
    x = ember.ones(2, 3)
    assert x.to(ember.float64).dtype is ember.float64                     # to.dtype
    assert x.to(ember.zeros(1, dtype=ember.int8)).dtype is ember.int8     # to.other
    m = x.to(device="meta", dtype=ember.int32)                              # to.dtype_layout
    assert (m.device.type, m.dtype) == ("meta", ember.int32)
    m2 = x.to("meta", ember.float16)                                        # to.device
    assert (m2.device.type, m2.dtype) == ("meta", ember.float16)
    assert x.to(ember.zeros(1, device="meta")).device.type == "meta"        # to.other, meta
    assert x.to(device="meta").device.type == "meta"


def test_tensor_to_parses_torch_signatures():
    """`tensor_to` is the hand-written Tensor.to (see the report: x.to("meta") needs it)."""
    x = ember.ones(2, 3)
    assert tensor_to(x, "meta").device.type == "meta"
    assert tensor_to(x, ember.device("meta")).device.type == "meta"
    assert tensor_to(x, "cpu") is x
    assert tensor_to(x, None, ember.float64).dtype is ember.float64
    assert tensor_to(x, ember.float16).dtype is ember.float16
    assert tensor_to(x, ember.zeros(1, dtype=ember.int64)).dtype is ember.int64
    assert tensor_to(x, "cpu", ember.float32, False, True) is not x
    assert tensor_to(x, dtype=ember.float64, device="meta").device.type == "meta"
    assert tensor_to(x, other=ember.zeros(1, dtype=ember.bool)).dtype is ember.bool
    y = tensor_to(from_torch(torch.randn(2, 3, 4, 5)), memory_format=ember.channels_last)
    assert y.stride() == (60, 1, 15, 3)
    with pytest.raises(TypeError):
        tensor_to(x, "cpu", ember.float32, False, False, 3)


def test_tensor_to_runs_torch_function_overrides():
    seen = []

    class Logged(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    x = ember.ones(2).as_subclass(Logged)
    y = tensor_to(x, "meta")
    assert "to" in seen and isinstance(y, Logged) and y.device.type == "meta"


def test_to_channels_last_memory_format():
    x = from_torch(torch.randn(2, 3, 4, 5))
    y = x.to(dtype=ember.float32, memory_format=ember.channels_last)
    assert y.stride() == (60, 1, 15, 3) and y is not x
    assert y.to(dtype=ember.float32, memory_format=ember.channels_last) is y


# --- contiguous ---------------------------------------------------------------------------
def test_contiguous():
    t = torch.arange(12.0).reshape(3, 4)
    e = from_torch(t)
    assert e.contiguous() is e
    et = from_torch(t.t())
    c = et.contiguous()
    assert_same(c, t.t().contiguous())
    assert c.contiguous() is c
    nchw = from_torch(torch.randn(2, 3, 4, 5))
    cl = nchw.contiguous(memory_format=ember.channels_last)
    assert cl.stride() == (60, 1, 15, 3)
    assert cl.contiguous(memory_format=ember.channels_last) is cl
    assert cl.contiguous().stride() == (60, 20, 5, 1)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported by the contiguous operator"):
        et.contiguous(memory_format=ember.preserve_format)
    assert e.contiguous(memory_format=ember.preserve_format) is e  # torch allows it then


# --- copy_ ------------------------------------------------------------------------------------
@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", ALL_DTYPES)
def test_copy_casts(src, dst):
    s = safe_for(src, dst, sample(src))
    t = torch.zeros(3, 4, dtype=tdt(dst)).copy_(s)
    e = ember.zeros(3, 4, dtype=dst)
    r = e.copy_(from_torch(s))
    assert r is e
    assert_same(e, t)


@pytest.mark.parametrize("dst_shape,src_shape", [((2, 3), (3,)), ((2, 3), (1, 3)), ((2, 3), (2, 1)),
                                                 ((2, 3), ()), ((4, 1, 3), (5, 1)[1:] + (3,)),
                                                 ((0, 3), (3,)), ((2, 3, 4), (3, 1))])
def test_copy_broadcasts(dst_shape, src_shape):
    s = torch.arange(int(np.prod(src_shape)), dtype=torch.float32).reshape(src_shape)
    t = torch.zeros(dst_shape).copy_(s)
    e = ember.zeros(dst_shape).copy_(from_torch(s))
    assert_same(e, t)
    m = ember.zeros(dst_shape, device="meta")
    assert ember.copy_(m, ember.zeros(src_shape, device="meta")) is m


@pytest.mark.parametrize("dst_shape,src_shape", [((2, 3), (3, 2)), ((2, 3), (4,)), ((2, 3), (6,)),
                                                 ((3,), (2, 3)), ((3,), (1, 3)), ((2, 3), (2, 2, 3))])
def test_copy_shape_errors(dst_shape, src_shape):
    with pytest.raises(RuntimeError) as t_err:
        torch.zeros(dst_shape).copy_(torch.zeros(src_shape))
    with pytest.raises(RuntimeError) as e_err:
        ember.zeros(dst_shape).copy_(ember.zeros(src_shape))
    assert str(e_err.value) == str(t_err.value)
    with pytest.raises(RuntimeError) as m_err:
        ember.zeros(dst_shape, device="meta").copy_(ember.zeros(src_shape, device="meta"))
    assert str(m_err.value) == str(t_err.value)


@pytest.mark.parametrize("make", [lambda t: t.t(), lambda t: t[:, ::2], lambda t: t[1:, 1:3],
                                  lambda t: t.t()[::2]])
def test_copy_into_non_contiguous_destination(make):
    base_t = torch.zeros(4, 6)
    base_e = ember.zeros(4, 6)
    dst_t = make(base_t)
    # the same view of base_e, built from its NumPy array
    dst_np = make(torch.from_numpy(base_e.numpy())).numpy()
    dst_e = ember.from_numpy(dst_np)
    src = torch.arange(dst_t.numel(), dtype=torch.float64).reshape(dst_t.shape) - 5
    dst_t.copy_(src)
    dst_e.copy_(from_torch(src))
    assert_same(base_e, base_t)


def test_copy_overlapping_memory():
    e = ember.from_numpy(np.arange(6.0))
    src = ember.from_numpy(e.numpy()[:5])
    dst = ember.from_numpy(e.numpy()[1:])
    dst.copy_(src)
    assert e.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0, 4.0]


def test_copy_between_cpu_and_meta():
    cpu, meta = ember.zeros(2, 3), ember.zeros(2, 3, device="meta")
    assert meta.copy_(cpu) is meta
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        cpu.copy_(meta)
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        meta.copy_(ember.zeros(4))


def test_copy_bumps_version():
    e = ember.zeros(3)
    v = e._version
    e.copy_(ember.ones(3))
    e.zero_()
    assert e._version == v + 2


# --- fill_ / zero_ ---------------------------------------------------------------------------
@pytest.mark.parametrize("dt", ALL_DTYPES)
@pytest.mark.parametrize("value", [0, 1, 2.7, True, -1.5])
def test_fill_scalar(dt, value):
    if dt is ember.uint8 and value == -1.5:
        return
    t = torch.zeros(2, 3, dtype=tdt(dt)).fill_(value)
    e = ember.zeros(2, 3, dtype=dt)
    assert ember.ops.aten.fill_.Scalar(e, value) is e
    assert_same(e, t)


@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_fill_tensor(dt):
    for v in (torch.tensor(3), torch.tensor(2.7), torch.tensor(True), torch.tensor(300)):
        if dt in (ember.int8, ember.uint8, ember.float16, ember.bfloat16) and v.item() == 300:
            continue  # implementation-defined overflow
        t = torch.zeros(2, 3, dtype=tdt(dt)).fill_(v)
        e = ember.zeros(2, 3, dtype=dt)
        assert e.fill_(from_torch(v)) is e
        assert_same(e, t)


def test_fill_tensor_wraps_uint8_like_torch():
    t = torch.zeros(2, dtype=torch.uint8).fill_(torch.tensor(300))
    assert_same(ember.zeros(2, dtype=ember.uint8).fill_(ember.tensor(300)), t)


def test_fill_errors():
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions."):
        ember.zeros(2).fill_(ember.zeros(1))
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor but got tensor with 2 dimensions."):
        ember.zeros(2, device="meta").fill_(ember.zeros(1, 1, device="meta"))
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        ember.ops.aten.fill_.Scalar(ember.zeros(2, dtype=ember.uint8), 300)
    with pytest.raises(NotImplementedError, match="no data"):
        ember.zeros(2).fill_(ember.tensor(1.0, device="meta"))


def test_fill_non_contiguous_and_meta():
    base = np.zeros((3, 4), np.float32)
    view = ember.from_numpy(base.T[::2])
    view.fill_(ember.tensor(7.0))
    expected = np.zeros((3, 4), np.float32)
    expected.T[::2] = 7
    np.testing.assert_array_equal(base, expected)
    view.zero_()
    assert not base.any()
    m = ember.zeros(2, 3, device="meta")
    assert m.fill_(ember.tensor(1.0)) is m
    assert m.zero_() is m
    assert ember.ops.aten.fill_.Scalar(m, 2.0) is m
    assert m.fill_(ember.tensor(1.0, device="meta")) is m


@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_zero_(dt):
    e = ember.ones(2, 3, dtype=dt)
    assert e.zero_() is e
    assert_same(e, torch.zeros(2, 3, dtype=tdt(dt)))


def test_fill_method_with_python_number():
    """torch's `x.fill_(2)`: needs the fill_.Scalar binding (see the report)."""
    e = ember.zeros(2)
    assert e.fill_(2) is e
    assert e.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("transpose", [False, True], ids=["contiguous", "transposed"])
def test_large_copy_allocates_no_temporary(transpose):
    """copy_ casts float32 into float64 in place, as np.copyto does: no temporary copy of
    the data, whatever the layouts (a complexity check in bytes: the timings are in
    benchmarks/)."""
    import tracemalloc
    src = ember.arange(4_000_000, dtype=ember.float32).view(2000, 2000)
    src = src.t() if transpose else src
    dst = ember.empty(2000, 2000, dtype=ember.float64)
    tracemalloc.start()
    try:
        dst.copy_(src)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024, peak
    np.testing.assert_array_equal(dst.numpy(), src.numpy().astype(np.float64))



def test_to_device_only_positional():
    x = ember.ones(2)
    assert x.to("meta").device.type == "meta"
    assert x.to(ember.device("meta")).device.type == "meta"
