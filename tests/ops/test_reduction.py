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
    check_call,
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


# --- issue 4: prod, amin, max/min, argmin, var/std, logsumexp, norms, all/any, cum*,
# count_nonzero through the Python API (overload resolution, named tuples, out=) ------------
_A = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
_I = np.array([[1, 0, 3], [4, 5, 0]], np.int64)

API_CALLS = {
    "max()": lambda m, x, i: m.max(x),
    "max(x, 1)": lambda m, x, i: m.max(x, 1),
    "max(x, dim=1, keepdim=True)": lambda m, x, i: m.max(x, dim=1, keepdim=True),
    "x.max(dim=0)": lambda m, x, i: x.max(dim=0),
    "max(x, y)": lambda m, x, i: m.max(x, x * 0),
    "max(x, other=y)": lambda m, x, i: m.max(x, other=x * 0),
    "x.min(0)": lambda m, x, i: x.min(0),
    "min(x, y)": lambda m, x, i: m.min(x, x * 0),
    "x.var()": lambda m, x, i: x.var(),
    "x.var(1)": lambda m, x, i: x.var(1),
    "x.var(False)": lambda m, x, i: x.var(False),
    "x.var(1, False)": lambda m, x, i: x.var(1, False),
    "x.var(unbiased=False)": lambda m, x, i: x.var(unbiased=False),
    "x.var(dim=1, correction=0)": lambda m, x, i: x.var(dim=1, correction=0),
    "x.var((0, 1), keepdim=True)": lambda m, x, i: x.var((0, 1), keepdim=True),
    "x.std(0)": lambda m, x, i: x.std(0),
    "std(x, unbiased=False)": lambda m, x, i: m.std(x, unbiased=False),
    "var_mean(x, 1)": lambda m, x, i: m.var_mean(x, 1),
    "std_mean(x, dim=0, correction=0)": lambda m, x, i: m.std_mean(x, dim=0, correction=0),
    "prod(x, 1)": lambda m, x, i: m.prod(x, 1),
    "i.prod(dtype=float32)": lambda m, x, i: i.prod(dtype=m.float32),
    "x.amin((0, 1))": lambda m, x, i: x.amin((0, 1)),
    "x.argmin(1, True)": lambda m, x, i: x.argmin(1, True),
    "logsumexp(x, 1)": lambda m, x, i: m.logsumexp(x, 1),
    "i.logsumexp(1)": lambda m, x, i: i.logsumexp(1),
    "x.norm()": lambda m, x, i: x.norm(),
    "x.norm(p=3)": lambda m, x, i: x.norm(p=3),
    "x.norm(dim=1)": lambda m, x, i: x.norm(dim=1),
    "x.norm(2, 1)": lambda m, x, i: x.norm(2, 1),
    "norm(x, 'fro', (0, 1))": lambda m, x, i: m.norm(x, "fro", (0, 1)),
    "norm(x, inf, dim=0, keepdim=True)": lambda m, x, i: m.norm(x, float("inf"), 0, True),
    "norm(x, dtype=float64)": lambda m, x, i: m.norm(x, dtype=m.float64),
    "all(i)": lambda m, x, i: m.all(i),
    "i.all(dim=(0, 1))": lambda m, x, i: i.all(dim=(0, 1)),
    "any(i, 0, True)": lambda m, x, i: m.any(i, 0, True),
    "cumsum(i, 1)": lambda m, x, i: m.cumsum(i, 1),
    "cumsum(i, 0, dtype=float64)": lambda m, x, i: m.cumsum(i, 0, dtype=m.float64),
    "x.cumsum_(1)": lambda m, x, i: x.clone().cumsum_(1),
    "x.cumprod(dim=0)": lambda m, x, i: x.cumprod(dim=0),
    "count_nonzero(i, (0, 1))": lambda m, x, i: m.count_nonzero(i, (0, 1)),
    "i.count_nonzero(1)": lambda m, x, i: i.count_nonzero(1),
}


@pytest.mark.parametrize("call", sorted(API_CALLS))
def test_python_api_matches_torch(call):
    fn = API_CALLS[call]
    e_res = fn(ember, ember.tensor(_A), ember.tensor(_I))
    t_res = fn(torch, torch.tensor(_A), torch.tensor(_I))
    if isinstance(t_res, tuple):
        assert isinstance(e_res, tuple) and len(e_res) == len(t_res)
        for e, t in zip(e_res, t_res):
            check(e, t)
    else:
        check(e_res, t_res)


def test_max_dim_is_a_named_tuple_like_torch():
    e, t = pair(np.array([[1.0, 5.0, 2.0], [7.0, 2.0, 7.0]], np.float32))
    r_e, r_t = e.max(1), t.max(1)
    assert type(r_e).__name__ == type(r_t).__name__ == "max"
    assert r_e._fields == ("values", "indices")
    assert isinstance(r_e, tuple) and r_e[0] is r_e.values
    check(r_e.values, r_t.values)
    check(r_e.indices, r_t.indices)
    values, indices = ember.min(e, 0)
    check(values, torch.min(t, 0).values)
    check(indices, torch.min(t, 0).indices)
    assert repr(r_e).startswith("ember.return_types.max(\nvalues=tensor(")
    assert ember.return_types.max is type(r_e)
    assert type(ember.var_mean(e, 1)) is tuple          # unnamed returns: a plain tuple


def test_max_dim_out_takes_a_tuple_and_returns_max_out():
    e, t = pair(_A)
    v, i = ember.empty(0), ember.empty(0, dtype=ember.int64)
    r = ember.max(e, 1, out=(v, i))
    assert type(r).__name__ == type(torch.max(t, 1, out=(torch.empty(0), torch.empty(
        0, dtype=torch.long)))).__name__ == "max_out"
    assert r.values is v and r.indices is i
    check(v, t.max(1).values)
    check(i, t.max(1).indices)


def test_max_dim_gradient_flows_to_the_selected_elements_only():
    a = np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 3.0]], np.float32)
    e, t = pair(a)
    e.requires_grad_()
    t.requires_grad_()
    r_e, r_t = e.max(1), t.max(1)
    assert not r_e.indices.requires_grad and r_e.values.requires_grad
    r_e.values.sum().backward()
    r_t.values.sum().backward()
    check(e.grad, t.grad)


def test_prod_gradient_with_zeros_matches_torch():
    for a in ([[2.0, 0.0, 3.0], [1.0, 2.0, 4.0]], [[0.0, 0.0, 3.0], [1.0, 2.0, 4.0]]):
        for dim in (None, 1, 0):
            e, t = pair(np.array(a, np.float64))
            e.requires_grad_()
            t.requires_grad_()
            (e.prod() if dim is None else e.prod(dim)).sum().backward()
            (t.prod() if dim is None else t.prod(dim)).sum().backward()
            check(e.grad, t.grad)


def test_norm_subgradients_at_zero_match_torch():
    a = np.array([[0.0, 0.0, 0.0], [3.0, -4.0, 0.0]], np.float64)
    for p in (0, 0.5, 1, 1.5, 2, 3, float("inf")):
        e, t = pair(a)
        e.requires_grad_()
        t.requires_grad_()
        ember.linalg_vector_norm(e, p, 1).sum().backward()
        torch.linalg.vector_norm(t, p, 1).sum().backward()
        if t.grad is None:
            assert e.grad is None
        else:
            check(e.grad, t.grad)


def test_cumsum_inplace_bumps_version_and_records_history():
    e, t = pair(_A)
    e.requires_grad_()
    t.requires_grad_()
    y_e, y_t = e * 2, t * 2
    v = y_e._version
    y_e.cumsum_(1)
    y_t.cumsum_(1)
    assert y_e._version == v + 1
    (y_e * y_e).sum().backward()
    (y_t * y_t).sum().backward()
    check(e.grad, t.grad)


def test_reduction_errors_match_torch():
    e, t = inputs((0, 3), "float32")
    raises_like(e.max, t.max, "max(): Expected reduction dim to be specified for "
                "input.numel() == 0.")
    raises_like(lambda: e.min(0), lambda: t.min(0),
                "min(): Expected reduction dim 0 to have non-zero size.")
    raises_like(lambda: e.amin(), lambda: t.amin(), "amin(): Expected reduction dim")
    raises_like(lambda: ember.linalg_vector_norm(e, float("inf")),
                lambda: torch.linalg.vector_norm(t, float("inf")),
                "linalg.vector_norm cannot compute the inf norm on an empty tensor")
    i_e, i_t = inputs((3,), "int64")
    raises_like(i_e.var, i_t.var, "std and var only support floating point and complex dtypes")
    raises_like(i_e.norm, i_t.norm, "linalg.vector_norm: Expected a floating point")
    b_e, b_t = inputs((3,), "bool")
    raises_like(b_e.argmin, b_t.argmin, "argmin(): does not support bool input")
    f_e, f_t = inputs((3,), "float32")
    raises_like(lambda: f_e.cumsum_(0, dtype=ember.float64),
                lambda: f_t.cumsum_(0, dtype=torch.float64), "Bad in-place call")


@pytest.mark.parametrize("name", ["float32", "float64", "int64", "bool"])
def test_nan_propagation_and_bool_inputs(name):
    a = np.array([[1.0, np.nan, 3.0], [0.0, 2.0, -1.0]]) if name.startswith("float") \
        else np_data((2, 3), name, **DATA)
    e, t = pair(a.astype(np_dtype(name)))
    for f in ("max", "min", "amin", "prod", "all", "any", "count_nonzero"):
        check(getattr(e, f)(), getattr(t, f)())
    check(e.max(1).values, t.max(1).values)
    check(e.cumsum(1), t.cumsum(1))
    if name.startswith("float"):
        check(e.var(1), t.var(1))
        check(e.logsumexp(1), t.logsumexp(1))
        check(e.norm(dim=1), t.norm(dim=1))


_LIST_DIM_OPS = ["prod_all", "amin", "var", "std", "logsumexp", "all", "any", "count_nonzero",
                 "norm"]
_ONE_DIM_OPS = ["prod", "max", "min", "argmin", "cumsum", "cumprod", "all", "any"]


@pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0")
@settings(max_examples=200, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple),
       name=st.sampled_from(DTYPES), fn=st.sampled_from(_LIST_DIM_OPS + _ONE_DIM_OPS),
       keepdim=st.booleans(), transpose=st.booleans(), data=st.data())
def test_random_issue4_reductions_match_torch(shape, name, fn, keepdim, transpose, data):
    """prod, amin, max/min, argmin, var/std, logsumexp, norm, all/any, cumsum/cumprod,
    count_nonzero on random shapes, dims and dtypes: torch's result or exception type."""
    ndim = len(shape)
    e, t = inputs(shape, name, "transposed" if transpose and ndim >= 2 else "contiguous")
    span = max(ndim, 1)
    if fn in _ONE_DIM_OPS and data.draw(st.booleans(), label="one_dim"):
        dim = data.draw(st.integers(-span, span - 1), label="dim")
        if fn in ("cumsum", "cumprod"):
            call = lambda m, x: getattr(x, fn)(dim)
        else:
            call = lambda m, x: getattr(x, fn)(dim, keepdim)
    elif fn in _LIST_DIM_OPS:
        dims = data.draw(st.lists(st.integers(-span, span - 1), max_size=ndim,
                                  unique_by=lambda d: d % span), label="dims")
        if fn == "prod_all":
            call = lambda m, x: x.prod()
        elif fn == "count_nonzero":
            call = lambda m, x: m.count_nonzero(x, dims)
        else:
            call = lambda m, x: getattr(x, fn)(dim=dims, keepdim=keepdim)
    else:
        call = lambda m, x: getattr(x, fn)(0) if fn in ("cumsum", "cumprod") else \
            getattr(x, fn)()
    try:
        with np.errstate(all="ignore"):
            r_t = call(torch, t)
    except Exception as exc:  # noqa: BLE001
        with pytest.raises(builtin_type(type(exc))):
            call(ember, e)
        return
    r_e = call(ember, e)
    # torch multiplies half types in their own precision (a rounding per factor), ember in
    # float32: products of many factors differ by a few percent
    tols = dict(TOLS, bfloat16=(0.1, 0.1), float16=(0.05, 0.05)) if "prod" in fn else TOLS
    if isinstance(r_t, tuple):
        for x, y in zip(r_e, r_t):
            _check(x, y, tols=tols)
    else:
        _check(r_e, r_t, tols=tols)


def test_var_warns_when_degrees_of_freedom_are_not_positive():
    e, t = inputs((1,), "float32")
    for f in ("var", "std"):
        with pytest.warns(UserWarning, match=rf"{f}\(\): degrees of freedom is <= 0"):
            check(getattr(e, f)(), getattr(t, f)())
    with pytest.warns(UserWarning, match=r"var_mean\(\): degrees of freedom"):
        ember.var_mean(e)


@pytest.mark.parametrize("src", ["float32", "uint8", "bool"])
@pytest.mark.parametrize("dst", ["bool", "uint8", "int32", "float32"])
def test_all_any_out_dtypes_like_torch(src, dst):
    """(torch casts the input to a uint8 out's dtype first: 0.5 counts as false there)"""
    e, t = inputs((2, 3), src)
    for f in ("all", "any"):
        call_e = partial(getattr(ember, f), e, 1, out=ember.empty(0, dtype=getattr(ember, dst)))
        call_t = partial(getattr(torch, f), t, 1, out=torch.empty(0, dtype=getattr(torch, dst)))
        if dst in ("bool", "uint8"):
            check(call_e(), call_t())
        else:
            raises_like(call_e, call_t, f"{f} only supports bool tensor for result")


# --- issue 22: the reductions torch had and ember lacked ---------------------------------------
_R22 = np.random.default_rng(22)
_X22 = _R22.normal(size=(4, 6)).astype(np.float32)
_T22 = {"float32": (1e-5, 1e-6), "float64": (1e-9, 1e-12)}


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
def test_quantile_every_interpolation_matches_torch(fn, interpolation):
    """Values, shapes and strides for scalar and 1-d q, dims, keepdim, with NaNs."""
    a = _X22.copy()
    a[1, 2] = np.nan
    e, t = pair(a)
    qs = np.array([0.0, 0.1, 0.5, 0.77, 1.0], np.float32)
    (eq, tq) = pair(qs)
    for args in [(eq, None, False), (eq, 1, True), (eq, 0, False), (0.3, -1, True), (0.6,)]:
        targs = tuple(tq if x is eq else x for x in args)
        _check(getattr(ember, fn)(e, *args, interpolation=interpolation),
               getattr(torch, fn)(t, *targs, interpolation=interpolation), _T22)


@pytest.mark.parametrize("name,call", [
    ("quantile", lambda m, x: m.quantile(x, 0.3, 1)),
    ("nanmean", lambda m, x: m.nanmean(x, 1)),
    ("diff", lambda m, x: m.diff(x, 2, 0)),
    ("trapezoid", lambda m, x: m.trapezoid(x, dx=0.5)),
    ("trapezoid_x", lambda m, x: m.trapezoid(x, m.tensor(np.sort(_X22[0]).astype(np.float64)))),
    ("cumulative_trapezoid", lambda m, x: m.cumulative_trapezoid(x, dim=0)),
    ("cov", lambda m, x: m.cov(x, correction=0)),
    ("corrcoef", lambda m, x: m.corrcoef(x)),
    ("cdist", lambda m, x: m.cdist(x, x[:2] * 2)),
    ("cdist_p1", lambda m, x: m.cdist(x, x[:2] * 2, 1.0)),
])
def test_composite_gradients_match_torch(name, call):
    """The decomposed reductions get their gradients from the ops they call: torch's."""
    a = _X22.astype(np.float64)
    e = ember.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    re, rt = call(ember, e), call(torch, t)
    _check(re.detach(), rt.detach(), _T22)
    ge, = ember.autograd.grad(re.sum(), e)
    gt, = torch.autograd.grad(rt.sum(), t)
    _check(ge, gt, _T22)
    assert ember.autograd.gradcheck(lambda x: call(ember, x), (e,))


def test_selection_ops_pick_torch_indices():
    """median takes the stable sorted position, mode the smallest most frequent value at its
    last occurrence, cummax/cummin the latest tie, median the first NaN. (kthvalue's index
    among ties is whatever torch's quickselect leaves: its samples have no ties.)"""
    a = np.array([[3, 1, 3, 1, 2], [5, 5, 0, 0, 7]], np.int64)
    e, t = pair(a)
    for fe, ft in [(lambda x: x.median(1), lambda x: x.median(1)),
                   (lambda x: x.mode(1), lambda x: x.mode(1)),
                   (lambda x: x.cummax(1), lambda x: x.cummax(1)),
                   (lambda x: x.cummin(1), lambda x: x.cummin(1))]:
        for ee, tt in zip(fe(e), ft(t)):
            _check(ee, tt)
    f = np.array([1.0, np.nan, 3.0, np.nan, 0.5], np.float32)
    e, t = pair(f)
    for ee, tt in zip(e.median(0), t.median(0)):
        _check(ee, tt)
    for ee, tt in zip(e.nanmedian(0), t.nanmedian(0)):
        _check(ee, tt)
    for ee, tt in zip(e.cummax(0), t.cummax(0)):
        _check(ee, tt)


def test_histc_bincount_isin_match_torch():
    e, t = pair(_X22)
    _check(ember.histc(e, 7, -1, 1), torch.histc(t, 7, -1, 1))
    _check(ember.histc(e), torch.histc(t))
    ints = np.array([0, 3, 3, 1, 7], np.int64)
    (ei, ti), (ew, tw) = pair(ints), pair(np.arange(5, dtype=np.float32))
    _check(ember.bincount(ei), torch.bincount(ti))
    _check(ember.bincount(ei, ew, 10), torch.bincount(ti, tw, 10))
    _check(ember.isin(ei, ember.tensor([3, 7])), torch.isin(ti, torch.tensor([3, 7])))
    _check(ember.isin(ei, 3, invert=True), torch.isin(ti, 3, invert=True))


@pytest.mark.parametrize("call,phrase", [
    (lambda m: m.quantile(m.ones(3), 1.5), "q must be in the range [0, 1]"),
    (lambda m: m.quantile(m.ones(3, dtype=m.int64), 0.5), "must be either float or double"),
    (lambda m: m.quantile(m.ones(3), m.tensor([0.5], dtype=m.float64)), "same dtype"),
    (lambda m: m.nanmean(m.ones(3, dtype=m.int64)), "expected input to have floating point"),
    (lambda m: m.kthvalue(m.ones(3), 4), "selected number k out of range"),
    (lambda m: m.median(m.ones(0, 2), 0), "Expected reduction dim 0 to have non-zero size"),
    (lambda m: m.aminmax(m.ones(0, 2)), "cannot compute aminmax over an empty dimension"),
    (lambda m: m.bincount(m.tensor([1, -1])), "non-negative integral inputs"),
    (lambda m: m.logcumsumexp(m.ones(3, dtype=m.int64), 0), "not implemented for 'Long'"),
    (lambda m: m.diff(m.tensor(1.0)), "at least one-dimensional"),
    (lambda m: m.cdist(m.ones(2, 3), m.ones(2, 4)), "same number of columns"),
    (lambda m: m.cov(m.ones(2, 2, 2)), "two or fewer dimensions"),
    (lambda m: m.isin(m.ones(2, dtype=m.bool), m.ones(2)), "Unsupported input type"),
])
def test_issue22_errors_match_torch(call, phrase):
    raises_like(lambda: call(ember), lambda: call(torch), phrase)


def test_issue22_meta_layouts():
    """Meta results have the CPU's shape and dtype; bincount's output size depends on the
    data, so its Meta kernel raises."""
    x = ember.tensor(_X22)
    m = meta_of(x)
    for f in (lambda t: t.nansum(1), lambda t: t.median(0)[0], lambda t: t.kthvalue(2)[1],
              lambda t: t.cummin(0)[1], lambda t: t.logcumsumexp(1), lambda t: t.aminmax(dim=0)[1],
              lambda t: t.histc(4), lambda t: t.quantile(0.2, 1, True),
              lambda t: ember.isin(t, t[0])):
        c, r = f(x), f(m)
        assert (tuple(r.shape), r.dtype, r.device.type) == (tuple(c.shape), c.dtype, "meta")
    with pytest.raises(NotImplementedError):
        ember.bincount(meta_of(ember.tensor([1, 2])))


@pytest.mark.parametrize("indices,shape", [
    ([4, 1, 11], (3, 4)), ([-1, -12], (3, 4)), ([12, -13], (3, 4)), ([[1, 2], [5, 0]], (2, 3)),
    ([0], ()), (5, 7), ([3], [2, 2, 2])])
def test_unravel_index_matches_torch(indices, shape):
    """torch's Python function: int64 coordinates that wrap out-of-range indices."""
    e = ember.unravel_index(ember.tensor(indices, dtype=ember.int32), shape)
    t = torch.unravel_index(torch.tensor(indices, dtype=torch.int32), shape)
    assert len(e) == len(t)
    for a, b in zip(e, t):
        _check(a, b)


@pytest.mark.parametrize("call", [
    lambda m: m.unravel_index(m.tensor([1.0]), (2, 2)),
    lambda m: m.unravel_index(m.tensor([1]), (3, -4)),
])
def test_unravel_index_errors_match_torch(call):
    raises_like(lambda: call(ember), lambda: call(torch))


@pytest.mark.parametrize("kw", [
    {}, {"spacing": 2.0}, {"dim": 1}, {"dim": [0, 1], "spacing": [0.5, 3]}, {"edge_order": 2},
    {"spacing": "coords", "dim": 0}, {"spacing": "coords", "dim": 0, "edge_order": 2}])
def test_gradient_matches_torch(kw):
    """torch.gradient (uniform spacing, per-dim spacings, sample coordinates, both edge
    orders): values, and the gradient through it."""
    a = _X22.astype(np.float64)
    ke, kt = dict(kw), dict(kw)
    if kw.get("spacing") == "coords":
        c = np.sort(_R22.uniform(0, 5, a.shape[0]))
        ke["spacing"], kt["spacing"] = [ember.tensor(c)], [torch.tensor(c)]
    e = ember.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    re, rt = ember.gradient(e, **ke), torch.gradient(t, **kt)
    assert len(re) == len(rt)
    for x, y in zip(re, rt):
        _check(x.detach(), y.detach(), _T22)
    ge, = ember.autograd.grad(sum(x.sum() for x in re), e)
    gt, = torch.autograd.grad(sum(x.sum() for x in rt), t)
    _check(ge, gt, _T22)


def test_gradient_of_integers_and_errors_match_torch():
    _check(ember.gradient(ember.tensor([1, 2, 4]))[0], torch.gradient(torch.tensor([1, 2, 4]))[0])
    raises_like(lambda: ember.gradient(ember.ones(2), edge_order=2),
                lambda: torch.gradient(torch.ones(2), edge_order=2), "at least edge_order+1")
    raises_like(lambda: ember.gradient(ember.ones(3), edge_order=3),
                lambda: torch.gradient(torch.ones(3), edge_order=3), "edge_order=1 and")


# --- found by the differential fuzzer (tests/fuzz) -------------------------------------------
def _same(fe, ft):
    """Both raise alike, or give matching results (tuples element-wise)."""
    try:
        tr = ft()
    except Exception:  # noqa: BLE001
        raises_like(fe, ft)
        return
    er = fe()
    for ee, tt in zip(*((r,) if not isinstance(r, tuple) else r for r in (er, tr))):
        _check(ee, tt)


@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("shape", [(), (0,), (2, 0), (0, 0, 0), (2, 3)])
@pytest.mark.parametrize("dim", [-4, -1, 0, 1, 3])
def test_cummax_cummin_dim_rule(op, shape, dim):
    """A 0-d self takes dim -1 or 0 (torch's own IndexError otherwise); an empty self takes
    any dim, unchecked; others wrap as usual."""
    e, t = pair(np.zeros(shape, np.float32))
    _same(lambda: getattr(ember, op)(e, dim), lambda: getattr(torch, op)(t, dim))


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0), (0, 2), (2, 3)])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32"])
@pytest.mark.parametrize("op", ["trapezoid", "trapz", "cumulative_trapezoid"])
def test_trapezoid_family_checks_like_torch(op, dtype, shape):
    """torch's order: no samples along dim gives zeros of y's dtype (bool too) before the
    bool check of trapezoid; bool y or x raises; a 0-d y raises torch's IndexError;
    cumulative_trapezoid slices (empty results for fewer than two samples)."""
    a = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)
    (e, t), (ex, tx) = pair(a), pair(np.cumsum(np.ones(shape[-1:] or (1,))).astype(dtype))
    f, g = getattr(ember, op), getattr(torch, op)
    _same(lambda: f(e), lambda: g(t))
    _same(lambda: f(e, dx=0.5, dim=0), lambda: g(t, dx=0.5, dim=0))
    _same(lambda: f(e, ex), lambda: g(t, tx))
    _same(lambda: f(e, e), lambda: g(t, t))


def test_cumulative_trapezoid_over_x_halves_after_the_sum():
    """torch: cumsum((y[1:] + y[:-1]) * dx) / 2: integral products wrap and sum in int64
    (uint8 spacing 7 - 9 = 254), float16 stays float16."""
    for y, x in [(np.array([[9, 7]], np.uint8), np.array([[9, 7]], np.uint8)),
                 (np.array([1.5, 2.5, 4.0], np.float16), np.array([0, 2, 3], np.uint8))]:
        (e, t), (ex, tx) = pair(y), pair(x)
        _check(ember.cumulative_trapezoid(e, ex), torch.cumulative_trapezoid(t, tx))


@pytest.mark.parametrize("op", ["median", "nanmedian", "kthvalue"])
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0), (0, 2)])
@pytest.mark.parametrize("dim", [None, 0, -1, 1])
def test_selection_checks_in_torch_order(op, shape, dim):
    """The dim, then an empty reduced dim (IndexError), then bool; median of no elements is
    NaN (True for bool); kthvalue checks k first and returns a 0-d self, bool too."""
    for dtype in ("bool", "int64", "float32"):
        e, t = pair(np.arange(int(np.prod(shape))).reshape(shape).astype(dtype))
        args = (1,) if op == "kthvalue" else ()
        args += () if dim is None else (dim,)
        _same(partial(getattr(ember, op), e, *args), partial(getattr(torch, op), t, *args))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int64"])
@pytest.mark.parametrize("n", [0, 5])
def test_histogram_checks_and_edges_like_torch(dtype, n):
    """Edges from torch's linspace (0.6666666 in float32, not NumPy's 0.6666667); float16
    is refused only where the input's min/max are taken; the bins tensor must be 1-d with
    at least two edges."""
    e, t = pair(np.arange(n).astype(dtype) * 0.7)
    for bins in (3, 7):
        for rng in (None, (0.0, 1.0)):
            _same(partial(ember.histogram, e, bins, range=rng),
                  partial(torch.histogram, t, bins, range=rng))
    for edges in ([], [1.0], [[0.0, 1.0]], [0.0, 0.5, 3.0]):
        (eb, tb) = pair(np.array(edges, dtype))
        _same(partial(ember.histogram, e, eb), partial(torch.histogram, t, tb))


@pytest.mark.parametrize("call,phrase", [
    (lambda m: m.isin(m.tensor([1, 0]), False), "Unsupported input type encountered for isin"),
    (lambda m: m.quantile(m.ones(2, dtype=m.float16), 0.5), "must be either float or double"),
    (lambda m: m.nanquantile(m.ones(2, dtype=m.bfloat16), 0.5), "must be either float or"),
    (lambda m: m.mvlgamma(m.tensor([True]), 0), "may not be a boolean tensor"),
    (lambda m: m.mvlgamma(m.tensor([], dtype=m.bool), 1), "may not be a boolean tensor"),
    (lambda m: m.tensor([True]).mvlgamma_(1), "may not be a boolean tensor"),
])
def test_fuzzer_found_errors_match_torch(call, phrase):
    raises_like(lambda: call(ember), lambda: call(torch), phrase)


@pytest.mark.parametrize("shape", [(0, 0), (3,), (2, 3)])
@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("dim", [-1, 0, 4])
@pytest.mark.parametrize("extra", [None, (2, 1), (1,), (0, 0)])
def test_diff_rules_like_torch(shape, n, dim, extra):
    """n == 0 copies self (prepend and dim unused); the dim is checked before the ranks of
    prepend/append, whose other sizes must match; n beyond the length leaves it empty."""
    for dtype in ("bool", "int64"):
        e, t = pair((np.arange(int(np.prod(shape))).reshape(shape) ** 2).astype(dtype))
        ep, tp = pair(np.ones(extra, dtype)) if extra else (None, None)
        _same(partial(ember.diff, e, n, dim, ep), partial(torch.diff, t, n, dim, tp))
        _same(partial(ember.diff, e, n, dim, None, ep), partial(torch.diff, t, n, dim, None, tp))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_histc_bins_in_the_input_dtype(dtype):
    """torch places x at (x - min) * bins / (max - min) rounded to the input's dtype at each
    step: float16 values at bin boundaries land where torch puts them (not float32's bin)."""
    a = np.array([-4.145, -2.633, 3.014, 0.822, -4.06, -0.669, -0.2095, -3.402, 2.346, -3.863,
                  3.677734375, 2.0, -1.0], np.float32)
    e, t = pair(a)
    e, t = e.to(getattr(ember, dtype)), t.to(getattr(torch, dtype))
    for args in ((), (7,), (10, -3, 3), (3, 2, 2)):
        _check(ember.histc(e, *args), torch.histc(t, *args))


def test_histogram_bins_tensor_takes_any_edges_and_values():
    """Given edges, torch bins by binary search in [edges[0], edges[-1]]: NaN inputs and
    decreasing edges count nothing (no range check, no NumPy monotonic error); a range
    must have two elements."""
    for x, edges, kw in [([np.nan], [1.0, -np.inf], {}),
                         ([np.nan, 1.0, 0.5, 0.7], [0.0, 0.7, 1.0], {"density": True}),
                         ([0.2, 3.0, 1.0], [2.0, 1.0, 0.0], {})]:
        (e, t), (eb, tb) = pair(np.array(x, np.float32)), pair(np.array(edges, np.float32))
        _same(partial(ember.histogram, e, eb, **kw), partial(torch.histogram, t, tb, **kw))
    e, t = pair(np.zeros(3, np.float32))
    raises_like(lambda: ember.histogram(e, range=[0.0]), lambda: torch.histogram(t, range=[0.0]),
                "range should have 2 elements")


def test_isin_compares_in_the_promoted_dtype():
    """bfloat16 against an int (NumPy has no common dtype): 257 rounds to 256 in bfloat16
    as torch promotes; int8 against 3.0 and float against int64 tensors."""
    for el, test in [(np.array([0, 256, 257], np.float32), 257),
                     (np.array([0, 3], np.int8), 3.0)]:
        e, t = pair(el)
        if el.dtype == np.float32:
            e, t = e.to(ember.bfloat16), t.to(torch.bfloat16)
        _check(ember.isin(e, test), torch.isin(t, test))
    (e, t), (ei, ti) = pair(np.array([0.1, 3.0], np.float32)), pair(np.array([3], np.int64))
    _check(ember.isin(e.to(ember.bfloat16), ei), torch.isin(t.to(torch.bfloat16), ti))


def test_median_of_bfloat16_sees_nan():
    """bfloat16's NaNs sort last (as float32) and make median NaN."""
    a = np.array([[np.nan, -np.inf, 1.0, 2.0], [3.0, -1.0, 0.5, 2.0]], np.float32)
    e, t = pair(a)
    e, t = e.to(ember.bfloat16), t.to(torch.bfloat16)
    for op in ("median", "nanmedian"):
        _check(getattr(ember, op)(e), getattr(torch, op)(t))
        _same(partial(getattr(ember, op), e, 1), partial(getattr(torch, op), t, 1))


def test_histogram_of_bool_fails_where_torch_does():
    """min/max ("histogramdd") first, then the linspace of the edges, then the weight."""
    for x, w in [([], []), ([True], None), ([True], [1])]:
        e, t = pair(np.array(x, bool))
        ew, tw = pair(np.array(w, np.uint8)) if w is not None else (None, None)
        raises_like(lambda: ember.histogram(e, weight=ew),  # noqa: B023
                    lambda: torch.histogram(t, weight=tw))  # noqa: B023


def test_histogram_unsorted_edges_and_weight_shape_like_torch():
    """Unsorted edges bin by C++'s upper_bound (NumPy's searchsorted bisects otherwise); a
    weight must have the input's number of elements; quantile checks its dim's range."""
    x = np.array([1.369, -2.303, -4.59, -4.836, 3.133, 4.13, 1.066, 2.295], np.float16)
    (e, t), (eb, tb) = pair(x), pair(x)
    _same(partial(ember.histogram, e, eb), partial(torch.histogram, t, tb))
    (e, t), (ew, tw) = pair(np.array([1.0, 2.0], np.float32)), pair(np.ones(1, np.float32))
    raises_like(lambda: ember.histogram(e, 3, weight=ew), lambda: torch.histogram(t, 3, weight=tw),
                "should have the same shape as the input tensor")
    e, t = pair(np.ones((1, 1, 1), np.float32))
    raises_like(lambda: ember.nanquantile(e, 0.0, 3), lambda: torch.nanquantile(t, 0.0, 3),
                "Dimension out of range")


def test_cdist_compute_mode_by_name_as_torch():
    """ember.cdist is torch.functional.cdist: compute_mode by name, a bad name ValueError."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    for mode in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                 "donot_use_mm_for_euclid_dist"):
        got = ember.cdist(ember.tensor(a), ember.tensor(b), compute_mode=mode)
        want = torch.cdist(torch.tensor(a), torch.tensor(b), compute_mode=mode)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="not a valid value for compute_mode"):
        ember.cdist(ember.tensor(a), ember.tensor(b), compute_mode="fast")


# --- found by the long fuzz run (tests/fuzz) ----------------------------------------------------
NAN = float("nan")
X23 = [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]]


@pytest.mark.parametrize("call", [
    lambda M: M.cov(M.tensor(X23), aweights=M.tensor([True, False, True])),
    lambda M: M.cov(M.tensor(X23), fweights=M.tensor([1.0, 2.0, 3.0])),
    lambda M: M.cov(M.tensor(X23), fweights=M.tensor([True, False, True])),
    lambda M: M.cov(M.tensor(X23), fweights=M.tensor([1, -2, 3])),
    lambda M: M.cov(M.tensor(X23), aweights=M.tensor([1.0, -2.0, 3.0])),
    lambda M: M.cov(M.tensor(X23), fweights=M.tensor([1, 2, 3], dtype=M.uint8),
                    aweights=M.tensor([1.0, 2.0, 3.0], dtype=M.float16)),
    lambda M: M.cov(M.tensor([], dtype=M.uint8), aweights=M.tensor([], dtype=M.bool)),
    lambda M: M.cov(M.zeros(2, 0), aweights=M.tensor([])),
    lambda M: M.cov(M.tensor(X23), fweights=M.tensor([0, 0, 0])),
])
def test_cov_checks_weights_like_torch(call):
    """fweights integral, aweights floating point, neither negative nor summing to zero
    (ember took bool, float and negative weights and answered)."""
    check_call(call, {"float32": (1e-6, 1e-6)})


@pytest.mark.parametrize("call", [
    lambda M: M.nanmean(M.tensor([1.0, NAN, 3.0]), dtype=M.bool),
    lambda M: M.nanmean(M.tensor([], dtype=M.float16), dtype=M.bool),
    lambda M: M.nanmean(M.tensor([1.0, NAN, 3.0]), dtype=M.int64),
    lambda M: M.nanmean(M.tensor([1, 2])),
    lambda M: M.nanmean(M.tensor([1.0, NAN, 3.0]), dtype=M.float64),
])
def test_nanmean_checks_the_dtype_like_torch(call):
    check_call(call)


@pytest.mark.parametrize("call", [
    lambda M: M.quantile(M.tensor(NAN), M.tensor(NAN), 1),
    lambda M: M.quantile(M.tensor([]), 0.5, interpolation="bad"),
    lambda M: M.quantile(M.tensor([1.0]), 1.5, interpolation="bad"),
    lambda M: M.quantile(M.tensor([1]), 1.5),
    lambda M: M.quantile(M.tensor([], dtype=M.int64), M.tensor(0.5)),
    lambda M: M.quantile(M.tensor([1.0]), M.tensor(2.0), dim=3),
    lambda M: M.nanquantile(M.tensor([1.0, 2.0]), M.tensor([[0.5]]), dim=3),
])
def test_quantile_checks_in_torch_order(call):
    """torch's order: a number q's range, the interpolation, emptiness, q's rank, the
    dtypes, the dim, then a tensor q's values (a bad dim came after q's values)."""
    check_call(call)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_cummax_cummin_nan_in_every_float_dtype(name, dtype):
    """A NaN takes over and stays, its index the last NaN's (bfloat16 ignored NaNs)."""
    data = [1.46, 0.0, -3.33, NAN, -0.3, -2.99e5, 0.0, NAN, 4.56]
    check_call(lambda M: getattr(M, name)(M.tensor(data, dtype=getattr(M, dtype))[1::2], 0))
    check_call(lambda M: getattr(M, name)(M.tensor([NAN], dtype=getattr(M, dtype))
                                          .expand(3), 0))


@pytest.mark.parametrize("call", [
    lambda M: M.tensor(False).sum_to_size([]),
    lambda M: M.tensor([[1, 2]], dtype=M.int8).sum_to_size([]),
    lambda M: M.tensor([True, True]).sum_to_size([1]),
    lambda M: M.renorm(M.ones(2, 2), 2.0, 0, NAN),
    lambda M: M.renorm(M.ones(2, 2), NAN, 0, 1.0),
    lambda M: M.renorm(M.ones(0, 0, dtype=M.float16), True, 0, NAN),
])
def test_sum_to_size_and_renorm_edges_like_torch(call):
    """sum_to_size([]) is the full sum (int64 for bool, as torch's sum_to); renorm refuses a
    NaN maxnorm or p (NaN passed the `< 0` checks)."""
    check_call(call)


HDD = [[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]]


@pytest.mark.parametrize("call", [
    lambda M: M.histogramdd(M.tensor(HDD), bins=[3, 3], weight=M.tensor([1.0, 2.0, 4.0, 8.0])),
    lambda M: M.histogramdd(M.tensor(HDD), bins=[2, 2], range=[0.0, 1.0, 0.0, 1.0],
                            density=True),
    lambda M: M.histogramdd(M.tensor(HDD), bins=2),
    lambda M: M.histogramdd(M.tensor(HDD), bins=[M.tensor([0.0, 1.0, 3.0]),
                                                 M.tensor([0.0, 2.0])]),
    lambda M: M.histogramdd(M.tensor(np.random.default_rng(0).standard_normal((5, 7, 3))),
                            bins=[4, 5, 2], density=True),
    lambda M: M.histogramdd(
        M.tensor(np.random.default_rng(1).standard_normal((50, 2)).astype(np.float32)),
        bins=[4, 5], weight=M.tensor(np.random.default_rng(2).random(50).astype(np.float32))),
    lambda M: M.histogramdd(M.zeros(0, 2), bins=[2, 3]),
    lambda M: M.histogramdd(M.tensor([[1.0, 1.0], [1.0, 1.0]]), bins=[2, 3]),
    lambda M: M.histogramdd(M.tensor([[NAN, 1.0], [1.0, 1.0]]), bins=[2, 3],
                            range=[0.0, 2.0, 0.0, 2.0]),
    lambda M: M.histogramdd(M.tensor(HDD), bins=[2]),
    # empty inputs: no histogramdd kernel runs, so float16 is taken; a 0-dimensional one
    lambda M: M.histogramdd(M.zeros(0, 1, dtype=M.float16), bins=1),
    lambda M: M.histogramdd(M.zeros(3, 0), bins=2),
    lambda M: M.histogramdd(M.zeros(0, 0, dtype=M.float16), bins=[]),
])
def test_histogramdd_like_torch(call):
    """torch.histogramdd (new): bins as counts per dim, one count or edge tensors; range,
    weight, density; a constant column widened by 0.5; NaN left out."""
    check_call(call, {"float32": (1e-5, 1e-6), "float64": (1e-12, 0)})


@pytest.mark.parametrize("call,phrase", [
    (lambda M: M.histogramdd(M.tensor(HDD), bins=[2, 2], range=[0.0, 1.0]),
     "range should have 4 elements, but got 2"),
    (lambda M: M.histogramdd(M.tensor(HDD).double(), bins=[2, 2], weight=M.ones(4)),
     "input tensor and weight tensor should have the same dtype"),
    (lambda M: M.histogramdd(M.tensor([1.0, 2.0]), bins=[2]),
     "input tensor should have at least 2 dimensions"),
    (lambda M: M.histogramdd(M.tensor(HDD), bins=[2, 0]), "but got 0 for dimension 1"),
    (lambda M: M.histogramdd(M.tensor(HDD).long(), bins=[2, 2]), "not implemented for 'Long'"),
    # the dtype first (before the bins' count), and for a 0-d input its missing dim first
    (lambda M: M.histogramdd(M.tensor(HDD).bool(), bins=[2, 2, 2]), "not implemented for 'Bool'"),
    (lambda M: M.histogramdd(M.tensor(HDD).half(), bins=[2]), "not implemented for 'Half'"),
    (lambda M: M.histogramdd(M.tensor(True), bins=0), "tensor has no dimensions"),
    (lambda M: M.histogramdd(M.zeros(0, 0, dtype=M.bool), bins=0), "not implemented for 'Bool'"),
])
def test_histogramdd_errors_like_torch(call, phrase):
    """torch's errors (ember's messages name ember.histogramdd where torch's name torch.)."""
    raises_like(lambda: call(ember), lambda: call(torch), phrase)
