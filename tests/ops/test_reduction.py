"""Reductions (sum, mean, amax, argmax) against torch: values, dtypes, shapes, strides,
for many shapes (0-d, empty, non-contiguous), dims (int, list, tuple, negative, None, [])
and dtypes; Meta layouts; torch's errors."""
from functools import partial

import numpy as np
import pytest
from helpers import (
    DTYPES,
    FLOATS,
    builtin_type,
    layout_pair,
    meta_of,
    np_data,
    np_dtype,
    pair,
    raises_like,
)
from helpers import check as _check
from hypothesis import given, settings
from hypothesis import strategies as st

import ember

torch = pytest.importorskip("torch")

TOLS = {"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 5e-2), "float32": (1e-5, 1e-5),
        "float64": (1e-12, 1e-12)}
DATA = {"ints": (-50, 50), "scale": 3}  # np_data: integers in [-50, 50), floats 3 * N(0, 1)
check = partial(_check, tols=TOLS)
inputs = partial(layout_pair, **DATA)

SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4), (1, 4, 1)]


# --- sum / mean ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_full_sum_and_mean(name, shape):
    e, t = inputs(shape, name)
    check(e.sum(), t.sum())
    check(ember.sum(e), torch.sum(t))
    if name in FLOATS:
        check(e.mean(), t.mean())


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("dim", [0, -1, 1, (0, 2), [2, 0], (-1, -2, 0), [], None])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_dim(name, layout, dim, keepdim):
    e, t = inputs((3, 4, 5), name, layout)
    check(e.sum(dim, keepdim), t.sum(dim, keepdim))
    check(ember.sum(e, dim, keepdim=keepdim), torch.sum(t, dim, keepdim=keepdim))


@pytest.mark.parametrize("name", FLOATS + ["int64", "uint8"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("dim", [0, -1, (0, 2), [], None])
@pytest.mark.parametrize("keepdim", [False, True])
def test_mean_dim(name, layout, dim, keepdim):
    e, t = inputs((3, 4, 5), name, layout)
    dtype = None if name in FLOATS else "float64"
    ed = dtype and getattr(ember, dtype)
    td = dtype and getattr(torch, dtype)
    check(e.mean(dim, keepdim, dtype=ed), t.mean(dim, keepdim, dtype=td))


@pytest.mark.parametrize("shape,dim", [((), 0), ((), -1), ((), [0]), ((2, 0, 3), 1),
                                       ((2, 0, 3), (0, 2)), ((0,), 0), ((1, 4, 1), (0, 2))])
def test_sum_mean_edge_shapes(shape, dim):
    e, t = inputs(shape, "float32")
    for keepdim in (False, True):
        check(e.sum(dim, keepdim), t.sum(dim, keepdim))
        check(e.mean(dim, keepdim), t.mean(dim, keepdim))


def test_dim_accepts_int_list_tuple_and_int_tensor():
    e, t = inputs((3, 4), "int64")
    for d in (1, [1], (1,), [-1, 0], (0, 1)):
        check(e.sum(d), t.sum(d))
    check(e.sum(ember.tensor(1)), t.sum(torch.tensor(1)))


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_sum_dtype_argument(src, dst):
    """The input is cast to `dtype` first (torch's rule), then summed."""
    a = np_data((4, 6), src, **DATA)
    if src in FLOATS and dst not in FLOATS:  # avoid float->int casts of negative values
        a = np.abs(a)
    e, t = pair(a)
    check(e.sum(dtype=getattr(ember, dst)), t.sum(dtype=getattr(torch, dst)))
    check(e.sum(1, dtype=getattr(ember, dst)), t.sum(1, dtype=getattr(torch, dst)))


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", FLOATS)
def test_mean_dtype_argument(src, dst):
    e, t = inputs((4, 6), src)
    check(e.mean(dtype=getattr(ember, dst)), t.mean(dtype=getattr(torch, dst)))
    check(e.mean(0, True, dtype=getattr(ember, dst)), t.mean(0, True, dtype=getattr(torch, dst)))


def test_integer_sums_are_int64_and_wrap_like_torch():
    e, t = pair(np.full((300,), 200, np.uint8))
    check(e.sum(), t.sum())
    assert e.sum().dtype is ember.int64
    check(e.sum(dtype=ember.uint8), t.sum(dtype=torch.uint8))  # wraps modulo 256
    b_e, b_t = pair(np.array([True, True, False]))
    check(b_e.sum(), b_t.sum())
    check(b_e.sum(dtype=ember.bool), b_t.sum(dtype=torch.bool))


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_sums_accumulate_in_float32(name):
    """10000 ones: a float16 accumulator would stop at 2048 (bfloat16: 256)."""
    e, t = pair(np.ones(10000, np_dtype(name)))
    check(e.sum(), t.sum())
    check(e.mean(), t.mean())
    assert float(e.sum()) == float(t.sum())


def test_nan_and_empty_means():
    e, t = pair(np.array([1.0, np.nan, 3.0], np.float32))
    check(e.sum(), t.sum())
    check(e.mean(), t.mean())
    for name in ("float16", "float32"):
        e, t = inputs((0, 3), name)
        check(e.mean(), t.mean())
        check(e.mean(0), t.mean(0))
        check(e.mean(1), t.mean(1))


def test_results_are_fresh_and_contiguous():
    e, t = inputs((4, 3, 2), "float32", "transposed")
    r = e.sum(1)
    assert r.is_contiguous() and r.stride() == t.sum(1).stride()
    assert not np.shares_memory(r.numpy(), e.numpy())
    r = e.amax(1)
    assert r.is_contiguous() and r.stride() == t.amax(1).stride()


# --- amax / argmax ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("dim", [0, -1, (0, 2), [], [1, -1, 0]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax(name, layout, dim, keepdim):
    e, t = inputs((3, 4, 5), name, layout)
    check(e.amax(dim, keepdim), t.amax(dim, keepdim))
    check(ember.amax(e, dim, keepdim), torch.amax(t, dim, keepdim))


def test_amax_defaults_nan_and_0d():
    e, t = pair(np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], np.float32))
    check(e.amax(), t.amax())
    check(e.amax(1), t.amax(1))
    e, t = pair(np.array(2.5, np.float64))
    check(e.amax(), t.amax())
    check(e.amax(0, keepdim=True), t.amax(0, keepdim=True))
    e, t = inputs((0, 3), "float32")
    check(e.amax(1), t.amax(1))


@pytest.mark.parametrize("name", [d for d in DTYPES if d != "bool"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_argmax(name, layout, dim, keepdim):
    e, t = inputs((4, 6, 3), name, layout)
    check(e.argmax(dim, keepdim), t.argmax(dim, keepdim))
    check(ember.argmax(e, dim, keepdim=keepdim), torch.argmax(t, dim, keepdim=keepdim))


def test_argmax_ties_nan_and_0d():
    e, t = pair(np.array([[1, 5, 5], [7, 7, 2]], np.int64))
    check(e.argmax(1), t.argmax(1))   # the first of equal maxima
    check(e.argmax(), t.argmax())
    e, t = pair(np.array([1.0, np.nan, 3.0, np.nan], np.float32))
    check(e.argmax(), t.argmax())     # NaN is the maximum
    e, t = pair(np.array(3.0, np.float32))
    for args in [(), (0,), (0, True), (None, True), (-1,)]:
        check(e.argmax(*args), t.argmax(*args))
    e, t = inputs((0, 3), "float32")
    check(e.argmax(1), t.argmax(1))


# --- errors ----------------------------------------------------------------------------------
def test_mean_errors():
    for name, phrase in [("int64", "Got: Long"), ("bool", "Got: Bool"), ("uint8", "Got: Byte")]:
        e, t = inputs((3,), name)
        raises_like(e.mean, t.mean,
                    "mean(): could not infer output dtype. Input dtype must be either a "
                    "floating point or complex dtype. " + phrase)
        raises_like(partial(e.mean, 0), partial(t.mean, 0), phrase)
    e, t = inputs((3,), "float32")
    raises_like(lambda: e.mean(dtype=ember.int64), lambda: t.mean(dtype=torch.int64),
                "Optional dtype must be either a floating point or complex dtype. Got: Long")


def test_amax_argmax_empty_errors():
    e, t = inputs((0, 3), "float32")
    raises_like(lambda: e.amax(0), lambda: t.amax(0),
                "amax(): Expected reduction dim 0 to have non-zero size.")
    raises_like(lambda: e.amax([1, 0]), lambda: t.amax([1, 0]), "reduction dim 0")
    raises_like(lambda: e.amax(), lambda: t.amax(), "Expected reduction dim to be specified")
    raises_like(lambda: e.argmax(), lambda: t.argmax(),
                "argmax(): Expected reduction dim to be specified for input.numel() == 0.")
    raises_like(lambda: e.argmax(0), lambda: t.argmax(0),
                "argmax(): Expected reduction dim 0 to have non-zero size.")
    b_e, b_t = inputs((3,), "bool")
    raises_like(lambda: b_e.argmax(), lambda: b_t.argmax(), "argmax(): does not support bool")


def test_dim_errors():
    e, t = inputs((2, 3), "float32")
    for f in ("sum", "mean", "amax"):
        raises_like(partial(getattr(e, f), 2), partial(getattr(t, f), 2), "Dimension out of range")
        raises_like(partial(getattr(e, f), [0, -2]), partial(getattr(t, f), [0, -2]),
                    "appears multiple times in the list of dims")
    raises_like(lambda: e.argmax(-3), lambda: t.argmax(-3), "Dimension out of range")
    e0, t0 = inputs((), "float32")
    raises_like(lambda: e0.sum(1), lambda: t0.sum(1), "expected to be in range of [-1, 0]")


# --- Meta ------------------------------------------------------------------------------------
META_CALLS = [
    ("sum", (), {}), ("sum", (1,), {}), ("sum", ([0, 2], True), {}), ("sum", (None,), {}),
    ("sum", (), {"dtype": ember.float16}), ("mean", (-1, True), {}), ("mean", (), {}),
    ("mean", ([],), {"dtype": ember.float64}), ("amax", (), {}), ("amax", ((0, 1), True), {}),
    ("argmax", (), {}), ("argmax", (1, True), {}), ("argmax", (None, True), {}),
]


@pytest.mark.parametrize("name", ["int32", "float32", "bfloat16"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("fn,args,kwargs", META_CALLS)
def test_meta_matches_cpu(name, layout, fn, args, kwargs):
    e, _ = inputs((3, 4, 5), name, layout)
    if fn == "mean" and name == "int32" and "dtype" not in kwargs:
        kwargs = {"dtype": ember.float32}
    c = getattr(e, fn)(*args, **kwargs)
    m = getattr(meta_of(e), fn)(*args, **kwargs)
    assert m.device.type == "meta"
    assert (m.shape, m.dtype, m.stride()) == (c.shape, c.dtype, c.stride())


def test_meta_errors():
    m = ember.empty(3, dtype=ember.int64, device="meta")
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        m.mean()
    with pytest.raises(RuntimeError, match="does not support bool"):
        ember.empty(3, dtype=ember.bool, device="meta").argmax()
    with pytest.raises(RuntimeError):  # torch's Meta kernel raises a RuntimeError here
        ember.empty(0, 3, device="meta").amax(0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.empty(2, 3, device="meta").sum(2)


# --- property test ---------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple),
       name=st.sampled_from(DTYPES), fn=st.sampled_from(["sum", "mean", "amax", "argmax"]),
       keepdim=st.booleans(), transpose=st.booleans(), data=st.data())
def test_random_reductions_match_torch(shape, name, fn, keepdim, transpose, data):
    ndim = len(shape)
    e, t = inputs(shape, name, "transposed" if transpose and ndim >= 2 else "contiguous")
    if fn == "argmax":
        dim = data.draw(st.one_of(st.none(), st.integers(-max(ndim, 1), max(ndim, 1) - 1)))
        args = (dim, keepdim)
    else:
        dims = data.draw(st.lists(st.integers(-max(ndim, 1), max(ndim, 1) - 1), max_size=ndim,
                                  unique_by=lambda d: d % max(ndim, 1)))
        args = (dims, keepdim)
    kwargs = {}
    if fn == "mean" and name not in FLOATS:
        kwargs = {"dtype": "float64"}
    try:
        r_t = getattr(t, fn)(*args, **{k: getattr(torch, v) for k, v in kwargs.items()})
    except Exception as exc:  # noqa: BLE001
        with pytest.raises(builtin_type(type(exc))):
            getattr(e, fn)(*args, **{k: getattr(ember, v) for k, v in kwargs.items()})
        return
    r_e = getattr(e, fn)(*args, **{k: getattr(ember, v) for k, v in kwargs.items()})
    check(r_e, r_t)
