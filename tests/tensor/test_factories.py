"""Factories (empty/zeros/ones/full/scalar_tensor/arange/empty_strided/*_like) and
tensor construction (ember.tensor, as_tensor, from_numpy, from_dlpack, ember.Tensor),
compared with torch."""
import warnings

import ml_dtypes
import numpy as np
import pytest
from helpers import ALL_DTYPES, assert_same, tdt, torch_of

import ember

torch = pytest.importorskip("torch")


def view_of(arr):
    """An ember tensor sharing a (possibly non-contiguous) NumPy array."""
    return ember.from_numpy(arr)


# --- empty / zeros / ones / full ------------------------------------------------------------
SIZES = [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 1, 5), (2, 3, 4, 5)]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_zeros_ones_match_torch(size, dt):
    assert_same(ember.zeros(size, dtype=dt), torch.zeros(size, dtype=tdt(dt)))
    assert_same(ember.ones(size, dtype=dt), torch.ones(size, dtype=tdt(dt)))
    e = ember.empty(size, dtype=dt)
    t = torch.empty(size, dtype=tdt(dt))
    assert (e.dtype.name, tuple(e.shape), e.stride()) == (dt.name, tuple(t.shape), t.stride())


FACTORY_CALLS = [
    lambda dt, **kw: ember.empty(2, 3, dtype=dt, **kw),
    lambda dt, **kw: ember.empty(2, 3, 4, 5, dtype=dt, memory_format=ember.channels_last, **kw),
    lambda dt, **kw: ember.empty_strided((2, 3), (1, 2), dtype=dt, **kw),
    lambda dt, **kw: ember.zeros(0, 4, dtype=dt, **kw),
    lambda dt, **kw: ember.ones((), dtype=dt, **kw),
    lambda dt, **kw: ember.full((2, 1, 3), 1, dtype=dt, **kw),
    lambda dt, **kw: ember.scalar_tensor(1, dtype=dt, **kw),
    lambda dt, **kw: ember.arange(1, 9, 2, dtype=dt, **kw),
]


@pytest.mark.parametrize("call", range(len(FACTORY_CALLS)))
@pytest.mark.parametrize("dt", [d for d in ALL_DTYPES if d is not ember.bool])
def test_meta_parity(call, dt):
    c = FACTORY_CALLS[call](dt)
    m = FACTORY_CALLS[call](dt, device="meta")
    assert m.device.type == "meta" and c.device.type == "cpu"
    assert (m.shape, m.stride(), m.dtype) == (c.shape, c.stride(), c.dtype)


def test_size_forms_and_default_dtype():
    for e in (ember.zeros(2, 3), ember.zeros((2, 3)), ember.zeros([2, 3]),
              ember.zeros(ember.Size([2, 3])), ember.zeros(np.int64(2), 3)):
        assert e.shape == (2, 3) and e.dtype is ember.float32
    assert ember.ones(()).shape == () and ember.ones(()).item() == 1.0
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.zeros(2).dtype is ember.float64
        assert ember.full((2,), 1.5).dtype is ember.float64
        assert ember.arange(0, 1, 0.5).dtype is ember.float64
        assert ember.tensor([1.5]).dtype is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "rand", "randn"])
def test_negative_size_error(fn):
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: \[-1\]"):
        getattr(ember, fn)(-1)
    with pytest.raises(RuntimeError, match=r"negative dimension -2: \[2, -2\]"):
        getattr(ember, fn)(2, -2)
    with pytest.raises(RuntimeError):
        getattr(torch, fn)(2, -2)


def test_negative_size_full_and_meta():
    with pytest.raises(RuntimeError, match=r"negative dimension -1: \[-1\]"):
        ember.full((-1,), 2.0)
    with pytest.raises(RuntimeError, match=r"negative dimension -1: \[-1\]"):
        ember.zeros(-1, device="meta")


def test_float_size_is_type_error():
    with pytest.raises(TypeError):
        ember.zeros((2, 3.0))


@pytest.mark.parametrize("value", [True, False, 3, -7, 2.5, 0.0])
def test_full_dtype_inference(value):
    assert_same(ember.full((2, 3), value), torch.full((2, 3), value))
    assert ember.full((2,), value, device="meta").dtype.name == str(torch.full((2,), value).dtype)[6:]


@pytest.mark.parametrize("dt", ALL_DTYPES)
@pytest.mark.parametrize("value", [1, 0, 2.7, -1.5, True])
def test_full_explicit_dtype(dt, value):
    if dt is ember.uint8 and isinstance(value, float) and value < 0:
        with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
            ember.full((3,), value, dtype=dt)
        return
    assert_same(ember.full((3,), value, dtype=dt), torch.full((3,), value, dtype=tdt(dt)))


@pytest.mark.parametrize("dt,value", [
    (ember.uint8, 256), (ember.uint8, -256), (ember.int8, 128), (ember.int8, -129),
    (ember.int16, 2**15), (ember.int32, 2**31), (ember.int32, float("nan")),
    (ember.int64, float("inf")), (ember.int8, 127.5), (ember.float32, 1e300),
    (ember.float16, 1e300), (ember.float16, 65520), (ember.bfloat16, 3.4e38)])
def test_full_overflow_errors(dt, value):
    with pytest.raises(RuntimeError) as t_err:
        torch.full((2,), value, dtype=tdt(dt))
    with pytest.raises(RuntimeError) as e_err:
        ember.full((2,), value, dtype=dt)
    assert str(e_err.value) == str(t_err.value)


@pytest.mark.parametrize("dt,value", [(ember.uint8, -1), (ember.uint8, -255),
                                      (ember.float16, float("inf")), (ember.float16, 65504),
                                      (ember.bfloat16, float("nan")), (ember.float64, 1e300), (ember.float32, float("-inf")),
                                      (ember.bool, 7), (ember.int16, -300)])
def test_full_values_that_fit_or_wrap(dt, value):
    assert_same(ember.full((2,), value, dtype=dt), torch.full((2,), value, dtype=tdt(dt)))


def test_full_with_tensor_fill_value():
    assert ember.full((2,), ember.tensor(3)).dtype is ember.int64
    assert ember.full((2,), ember.tensor(3)).tolist() == [3, 3]


@pytest.mark.parametrize("s", [3, 2.5, True, -1])
@pytest.mark.parametrize("dt", [None, ember.int32, ember.float64, ember.bool, ember.bfloat16])
def test_scalar_tensor(s, dt):
    t = torch.scalar_tensor(s, dtype=None if dt is None else tdt(dt))
    assert_same(ember.scalar_tensor(s, dtype=dt), t)
    m = ember.scalar_tensor(s, dtype=dt, device="meta")
    assert m.shape == () and m.dtype.name == str(t.dtype)[6:] and m.device.type == "meta"


def test_layout_and_pin_memory_accepted():
    assert ember.zeros(2, layout="strided", pin_memory=False).shape == (2,)
    assert ember.zeros(2, layout=None).shape == (2,)
    with pytest.raises(RuntimeError, match="strided"):
        ember.zeros(2, layout="sparse_coo")


# --- memory formats and empty_strided ----------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 3, 1, 1), (2, 1, 4, 4), (0, 3, 2, 2),
                                   (2, 0, 4, 4), (2, 3, 0, 5)])
@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_empty_channels_last(shape, device):
    t = torch.empty(shape, memory_format=torch.channels_last)
    for mf in (ember.channels_last, "channels_last"):
        e = ember.empty(shape, memory_format=mf, device=device)
        assert e.stride() == t.stride() and e.device.type == device
        assert e.is_contiguous(ember.channels_last)
    e = ember.empty(shape, memory_format=ember.contiguous_format, device=device)
    assert e.stride() == torch.empty(shape).stride()


def test_empty_memory_format_errors():
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        ember.empty(2, 3, memory_format=ember.channels_last)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        ember.empty(2, 3, memory_format=ember.channels_last, device="meta")
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        ember.empty(2, 3, memory_format=ember.preserve_format)


@pytest.mark.parametrize("size,stride", [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((4,), (2,)),
                                         ((2, 3), (0, 1)), ((0, 5), (1, 7)), ((), ())])
@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_empty_strided(size, stride, device):
    e = ember.empty_strided(size, stride, dtype=ember.int16, device=device)
    t = torch.empty_strided(size, stride, dtype=torch.int16)
    assert (tuple(e.shape), e.stride(), e.dtype) == (tuple(t.shape), t.stride(), ember.int16)
    if device == "cpu":
        e.fill_(ember.tensor(5))
        assert (e.numpy() == 5).all()
        assert e.untyped_storage().nbytes() == t.untyped_storage().nbytes()


def test_empty_strided_errors():
    with pytest.raises(RuntimeError, match=r"dimensionality of sizes \(2\) must match dimensionality of strides \(1\)"):
        ember.empty_strided((2, 3), (1,))
    with pytest.raises(RuntimeError, match=r"negative dimension -3: \[2, -3\]"):
        ember.empty_strided((2, -3), (1, 2))


# --- arange --------------------------------------------------------------------------------
ARANGE_CASES = [(5,), (0,), (1, 10), (10, 0, -3), (0, 1, 0.1), (1, 0, -0.3), (0.5, 5),
                (-3, 3, 0.5), (0, 10, 3), (-1.5, 1.5, 0.75), (2.5,), (0, 1e-3, 1e-4),
                (10, 10), (np.int64(3),), (0, 5, True)]


@pytest.mark.parametrize("args", ARANGE_CASES)
def test_arange_default_dtype(args):
    e, t = ember.arange(*args), torch.arange(*args)
    assert e.dtype.name == str(t.dtype)[6:] and tuple(e.shape) == tuple(t.shape)
    torch.testing.assert_close(torch_of(e.numpy()), t, rtol=1e-6, atol=1e-7)
    m = ember.arange(*args, device="meta")
    assert m.shape == e.shape and m.dtype is e.dtype


def test_arange_integer_steps_are_exact():
    assert_same(ember.arange(-7, 100, 3), torch.arange(-7, 100, 3))
    assert_same(ember.arange(0.0, 64.0, 2.0), torch.arange(0.0, 64.0, 2.0))
    big = 2**40
    assert_same(ember.arange(big, big + 5), torch.arange(big, big + 5))


@pytest.mark.parametrize("dt", [d for d in ALL_DTYPES if d is not ember.bool])
@pytest.mark.parametrize("args", [(0, 10), (0.5, 5), (-3, 3, 0.5), (0, 1, 0.1), (9, 0, -2),
                                  (-2.5, 3.7, 1.3)])
def test_arange_explicit_dtype(dt, args):
    if dt is ember.uint8 and min(args[:2]) < 0:
        return  # negative values in uint8: implementation-defined
    if dt is ember.int64 and abs(args[-1]) < 1:
        with pytest.raises(ValueError, match="step must be nonzero"):
            torch.arange(*args, dtype=torch.int64)
        with pytest.raises(ValueError, match="step must be nonzero"):
            ember.arange(*args, dtype=dt)
        return
    e, t = ember.arange(*args, dtype=dt), torch.arange(*args, dtype=tdt(dt))
    assert e.dtype is dt and tuple(e.shape) == tuple(t.shape)
    tol = {ember.float16: 1e-3, ember.bfloat16: 1e-2}.get(dt, 1e-6)
    torch.testing.assert_close(torch_of(e.numpy()).double(), t.double(), rtol=tol, atol=tol)


def test_arange_uint8_wraps():
    assert_same(ember.arange(300, dtype=ember.uint8), torch.arange(300, dtype=torch.uint8))


def test_arange_errors():
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
        ember.arange(0, 10, -1)
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
        ember.arange(-1)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        ember.arange(0, 10, 0)
    with pytest.raises(RuntimeError, match="unsupported range: 0 -> inf"):
        ember.arange(0, float("inf"))
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        ember.arange(0, 10, 0, device="meta")
    with pytest.raises(NotImplementedError, match="\"arange_cpu\" not implemented for 'Bool'"):
        ember.arange(5, dtype=ember.bool)


def test_arange_large_is_vectorised():
    e = ember.arange(10**6)
    assert e.shape == (10**6,) and e.numpy()[-1] == 10**6 - 1


# --- *_like -------------------------------------------------------------------------------
def layouts():
    """(ember tensor, torch tensor) pairs with the same layout."""
    base = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    out = []
    for arr in (base, base.transpose(0, 2, 3, 1), base.transpose(0, 2, 3, 1)[:, :, :2],
                base[:, ::2], base.transpose(3, 1, 0, 2)[::2],
                np.broadcast_to(base[:1], (2, 3, 4, 5)), base[:, :, :0]):
        t = torch.from_numpy(arr)
        out.append((view_of(arr), t))
    nhwc = torch.empty(2, 3, 4, 5, memory_format=torch.channels_last)
    out.append((ember.empty(2, 3, 4, 5, memory_format=ember.channels_last), nhwc))
    return out


@pytest.mark.parametrize("pair", layouts(), ids=lambda p: str(p[0].stride()))
@pytest.mark.parametrize("mf", [None, "preserve_format", "contiguous_format", "channels_last"])
def test_like_layouts_match_torch(pair, mf):
    e, t = pair
    tmf = None if mf is None else getattr(torch, mf)
    kw_t = {} if tmf is None else {"memory_format": tmf}
    kw_e = {} if mf is None else {"memory_format": mf}
    for name in ("empty_like", "zeros_like", "ones_like", "rand_like", "randn_like"):
        r = getattr(ember, name)(e, **kw_e)
        assert r.stride() == getattr(torch, name)(t, **kw_t).stride(), name
        assert r.shape == e.shape and r.dtype is e.dtype
    assert ember.full_like(e, 2, **kw_e).stride() == torch.full_like(t, 2, **kw_t).stride()
    m = ember.empty_like(e.to(device="meta"), **kw_e)
    assert m.device.type == "meta" and m.stride() == torch.empty_like(t, **kw_t).stride()


@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_like_values(dt):
    e = view_of(np.zeros((3, 4), dt.np).T)
    t = torch.zeros(3, 4, dtype=tdt(dt)).t()
    assert_same(ember.zeros_like(e), torch.zeros_like(t))
    assert_same(ember.ones_like(e), torch.ones_like(t))
    assert_same(ember.full_like(e, 1), torch.full_like(t, 1))
    assert_same(ember.ones_like(e, dtype=ember.float64), torch.ones_like(t, dtype=torch.float64))


def test_full_like_converts_to_self_dtype():
    x = ember.zeros(3, dtype=ember.int32)
    assert_same(ember.full_like(x, 2.7), torch.full_like(torch.zeros(3, dtype=torch.int32), 2.7))
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        ember.full_like(ember.zeros(3, dtype=ember.uint8), 300)


def test_like_device_and_dtype_arguments():
    x = ember.ones(2, 3)
    m = ember.zeros_like(x, device="meta")
    assert m.device.type == "meta" and m.shape == (2, 3)
    back = ember.ones_like(m, device="cpu", dtype=ember.int8)
    assert back.device.type == "cpu" and back.dtype is ember.int8 and back.tolist() == [[1] * 3] * 2
    assert ember.rand_like(x).dtype is ember.float32
    with pytest.raises(NotImplementedError, match="\"check_uniform_bounds\" not implemented for 'Long'"):
        ember.rand_like(ember.zeros(2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        ember.empty_like(x, memory_format=ember.channels_last)


# --- ember.tensor ---------------------------------------------------------------------------
TENSOR_DATA = [1, 2.5, True, [1, 2, 3], [1.0, 2], [True, False], [True, 1], [True, 1.5],
               [[1, 2], [3, 4]], [[[1.5]], [[2.5]]], [], [[]], [[], []], (1, 2), ((1, 2), [3, 4]),
               [np.int32(1), np.int32(2)], [np.float16(1), 1], [np.float64(1), 1.5],
               [np.int32(1), 5], [np.uint8(1), np.int8(1)], np.float64(1.5), np.int32(7),
               np.bool_(True), range(4)]


@pytest.mark.parametrize("data", TENSOR_DATA, ids=repr)
def test_tensor_dtype_inference(data):
    assert_same(ember.tensor(data), torch.tensor(data))


@pytest.mark.parametrize("dt", ALL_DTYPES)
@pytest.mark.parametrize("data", [[1, 0, 3], [1.5, -0.5, 0.0], [True, False], [[2, 3]], 7, -1.7])
def test_tensor_explicit_dtype(dt, data):
    if dt is ember.uint8 and (np.asarray(data) < 0).any():
        return
    assert_same(ember.tensor(data, dtype=dt), torch.tensor(data, dtype=tdt(dt)))


def test_tensor_int_overflow_checks():
    assert_same(ember.tensor([-1, 255], dtype=ember.uint8), torch.tensor([-1, 255], dtype=torch.uint8))
    for dt, data in [(ember.uint8, [-256]), (ember.int8, [200]), (ember.int32, [2**40]),
                     (ember.int32, [1e20]), (ember.int32, [float("nan")])]:
        with pytest.raises(RuntimeError, match=f"value cannot be converted to type {dt.name} without overflow"):
            ember.tensor(data, dtype=dt)
    with pytest.raises(ValueError, match="Overflow when unpacking long"):
        ember.tensor(2**63)


@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_tensor_from_numpy_keeps_dtype_and_copies(dt):
    a = np.arange(6).reshape(2, 3).astype(dt.np)
    e = ember.tensor(a)
    assert e.dtype is dt and e.tolist() == a.tolist()
    a[0, 0] = 1
    assert e.tolist()[0][0] == 0  # a copy
    assert ember.tensor(a, dtype=ember.float64).dtype is ember.float64


@pytest.mark.parametrize("arr", [np.array([300, -1, 7]), np.array([2.7, -2.7, 0.5]),
                                 np.array([True, False, True])])
@pytest.mark.parametrize("dt", [ember.uint8, ember.int32, ember.bool, ember.float16])
def test_tensor_from_numpy_with_dtype_casts_without_checks(arr, dt):
    if dt is ember.uint8 and arr.dtype.kind == "f":
        arr = np.abs(arr)
    assert_same(ember.tensor(arr, dtype=dt), torch.tensor(arr, dtype=tdt(dt)))


def test_tensor_from_numpy_preserves_dense_layout():
    a = np.ones((3, 2)).T
    assert ember.tensor(a).stride() == torch.tensor(a).stride() == (1, 2)


def test_tensor_from_tensor_copies_with_warning():
    x = ember.ones(3)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        y = ember.tensor(x, dtype=ember.float64)
    assert y.dtype is ember.float64 and y.tolist() == [1.0] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = ember.tensor(x)
    z.fill_(ember.tensor(5.0))
    assert x.tolist() == [1.0] * 3


def test_tensor_of_zero_dim_tensors_in_list():
    e = ember.tensor([ember.tensor(1, dtype=ember.int32), 2])
    assert_same(e, torch.tensor([torch.tensor(1, dtype=torch.int32), 2]))


def test_tensor_device_and_requires_grad():
    m = ember.tensor([1.0, 2.0], device="meta")
    assert m.device.type == "meta" and m.shape == (2,)
    r = ember.tensor([1.0, 2.0], requires_grad=True)
    assert r.requires_grad and r.is_leaf
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        ember.tensor([1, 2], requires_grad=True)


@pytest.mark.parametrize("data,exc,msg", [
    ([[1, 2], [3, 4, 5]], ValueError, r"expected sequence of length 2 at dim 1 \(got 3\)"),
    ([[[1], [2]], [[3], [4, 5]]], ValueError, r"expected sequence of length 1 at dim 2 \(got 2\)"),
    ([[1, 2], 3], TypeError, "not a sequence"),
    (None, RuntimeError, "Could not infer dtype of NoneType"),
    ([1, None], RuntimeError, "Could not infer dtype of NoneType"),
    ("abc", TypeError, "invalid data type 'str'"),
])
def test_tensor_errors(data, exc, msg):
    with pytest.raises(exc, match=msg):
        torch.tensor(data)
    with pytest.raises(exc, match=msg):
        ember.tensor(data)


def test_tensor_large_list_is_fast_enough():
    data = [[float(i), float(i + 1)] for i in range(100_000)]
    e = ember.tensor(data)
    assert e.shape == (100_000, 2) and e.dtype is ember.float32 and e.numpy()[-1, 1] == 100_000


# --- from_numpy / as_tensor / from_dlpack ----------------------------------------------------
@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_from_numpy_shares_memory(dt):
    a = np.zeros((2, 3), dt.np)
    e = ember.from_numpy(a)
    assert e.dtype is dt and e.shape == (2, 3) and e.stride() == (3, 1)
    a[1, 2] = 1
    assert e.numpy()[1, 2] == 1
    e.fill_(ember.tensor(1))
    assert (a == 1).all()


@pytest.mark.parametrize("make", [lambda a: a.T, lambda a: a[:, ::2], lambda a: a[1:, 1:],
                                  lambda a: a[::2, ::3].T, lambda a: np.broadcast_to(a[:1], (4, 6))])
def test_from_numpy_non_contiguous_views(make):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    arr = make(base)
    e = ember.from_numpy(arr)
    t = torch.from_numpy(arr)
    assert e.stride() == t.stride() and e.shape == t.shape
    assert e.storage_offset() == 0
    assert e.untyped_storage().data_ptr() == arr.__array_interface__["data"][0]
    np.testing.assert_array_equal(e.numpy(), arr)
    assert np.shares_memory(e.numpy(), base)


def test_from_numpy_errors():
    with pytest.raises(TypeError, match=r"expected np.ndarray \(got list\)"):
        ember.from_numpy([1, 2])
    with pytest.raises(TypeError, match=r"expected np.ndarray \(got numpy.float64\)"):
        ember.from_numpy(np.float64(3))
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.clongdouble"):
        ember.from_numpy(np.ones(3, np.clongdouble))
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.uint16"):
        ember.from_numpy(np.ones(3, np.uint16))
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is negative"):
        ember.from_numpy(np.arange(3)[::-1])
    with pytest.raises(ValueError, match="byte order different from the native byte order"):
        ember.from_numpy(np.arange(3, dtype=">i4"))
    odd = np.ndarray((2,), np.int32, buffer=np.zeros(12, np.uint8), offset=1, strides=(5,))
    with pytest.raises(ValueError, match="strides not a multiple of the element byte size"):
        ember.from_numpy(odd)


def test_from_numpy_bfloat16_and_readonly():
    a = np.array([1.5, 2.5], dtype=ml_dtypes.bfloat16)
    assert ember.from_numpy(a).dtype is ember.bfloat16
    ro = np.ones(3)
    ro.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        ember.from_numpy(ro)


def test_as_tensor_shares_when_possible():
    a = np.zeros(3)
    e = ember.as_tensor(a)
    a[0] = 5
    assert e.tolist()[0] == 5.0
    c = ember.as_tensor(a, dtype=ember.float32)
    a[1] = 7
    assert c.dtype is ember.float32 and c.tolist() == [5.0, 0.0, 0.0]
    x = ember.ones(2)
    assert ember.as_tensor(x) is x
    assert ember.as_tensor(x, dtype=ember.float64).dtype is ember.float64
    assert ember.as_tensor(x, device="meta").device.type == "meta"
    assert_same(ember.as_tensor([1, 2]), torch.as_tensor([1, 2]))
    with pytest.raises(ValueError, match="negative"):
        ember.as_tensor(np.arange(3)[::-1])


def test_from_dlpack():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    e = ember.from_dlpack(a)
    a[0, 0] = 9
    assert e.dtype is ember.int32 and e.tolist()[0][0] == 9
    t = torch.arange(4, dtype=torch.float64)
    e2 = ember.from_dlpack(t)
    t[0] = 42
    assert e2.dtype is ember.float64 and e2.tolist() == [42.0, 1.0, 2.0, 3.0]
    x = ember.ones(3)
    y = ember.from_dlpack(x)
    y.zero_()
    assert x.tolist() == [0.0] * 3
    with pytest.raises(TypeError):
        ember.from_dlpack([1, 2])


@pytest.mark.parametrize("src", ["numpy", "ember"])
def test_from_dlpack_copy_and_device_like_torch(src):
    """copy=True gives memory of its own, copy=None/False shares; device="cpu" is accepted."""
    for copy in (None, False, True):
        a = np.arange(3.0)
        x = ember.from_numpy(a) if src == "ember" else a
        e = ember.from_dlpack(x, device="cpu", copy=copy)
        t = torch.from_dlpack(a.copy(), device="cpu", copy=copy)
        assert_same(e, t)
        e[0] = 9
        assert (a[0] == 9) == (not copy)
    with pytest.raises(RuntimeError, match="CPU only"):
        ember.from_dlpack(np.arange(3.0), device="meta")


# --- ember.Tensor(...) ---------------------------------------------------------------------
def test_legacy_constructor():
    assert_same(ember.Tensor([1, 2]), torch.Tensor([1, 2]))
    assert_same(ember.Tensor((2, 3)), torch.Tensor((2, 3)))
    assert_same(ember.Tensor(np.array([1, 2])), torch.Tensor(np.array([1, 2])))
    assert_same(ember.Tensor(), torch.Tensor())
    e = ember.Tensor(2, 3)
    assert e.shape == (2, 3) and e.dtype is ember.float32 and e.stride() == (3, 1)
    assert ember.Tensor(ember.Size([4, 1])).shape == (4, 1)
    x = ember.zeros(2, dtype=ember.int64)
    assert ember.Tensor(x).dtype is ember.int64
    with pytest.raises(TypeError, match=r"data must be a sequence \(got float\)"):
        ember.Tensor(2.5)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        ember.Tensor(-1)
    with pytest.raises(RuntimeError, match="legacy constructor expects device type: cpu"):
        ember.Tensor(2, device="meta")


def test_default_device():
    assert ember.get_default_device() == ember.device("cpu")
    ember.set_default_device("meta")
    try:
        assert ember.zeros(2).device.type == "meta"
        assert ember.arange(3).device.type == "meta"
        assert ember.zeros(2, device="cpu").device.type == "cpu"
        assert ember.tensor([1, 2]).device.type == "meta"
        assert ember.as_tensor(np.zeros(2)).device.type == "meta"
        assert ember.full((2,), 1.0).device.type == "meta"
    finally:
        ember.set_default_device(None)
    assert ember.zeros(2).device.type == "cpu"
