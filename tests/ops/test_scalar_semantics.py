"""Python numbers in pointwise ops, against torch (issue 12): wrapped-number promotion in
the reflected dunders, float16/bfloat16 opmath, alpha, torch's checked Scalar conversion,
integer division by zero, and no NumPy warnings leaking to the user."""
import operator
import warnings

import numpy as np
import pytest
from helpers import builtin_type, check, np_data, pair
from hypothesis import given
from hypothesis import strategies as st

import ember

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]
SCALARS = [True, 3, -2, 2.5, 0.1, 70000, 2 ** 40]

BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
          "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
          "pow": operator.pow, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
          "eq": operator.eq, "lt": operator.lt, "ge": operator.ge}


def run_both(fn, *arrays, tols=None):
    """fn(lib, *tensors) for ember and torch: the same result (values, within `tols` as in
    helpers.check, dtype, shape, strides), or the same builtin exception type and message;
    ember warns nothing."""
    pairs = [pair(a) for a in arrays]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = fn(torch, *(t for _, t in pairs))
    except Exception as e:  # noqa: BLE001  (compared with ember's below)
        expected = e
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a NumPy RuntimeWarning must not leak
        if isinstance(expected, Exception):
            with pytest.raises(Exception) as info:
                fn(ember, *(e for e, _ in pairs))
            assert builtin_type(type(info.value)) is builtin_type(type(expected)), \
                (info.value, expected)
            assert str(info.value).splitlines()[0] == str(expected).splitlines()[0]
            return
        got = fn(ember, *(e for e, _ in pairs))
    check(got, expected, tols)


def _data(dtype, shape=(2, 3)):
    return np_data(shape, dtype, seed=1, ints=(-5, 9), scale=3)


# --- every binary dunder and its reflection, every dtype, every kind of Python number -------
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", BINARY)
def test_tensor_op_number(op, dtype, scalar):
    if dtype == "bfloat16" and op == "floordiv" and isinstance(scalar, float):
        pytest.skip("torch's scalar loop rounds floor division's steps to bfloat16")
    if dtype == "bfloat16" and op == "pow" and scalar in (3, -2):
        pytest.skip("torch rounds x * x to bfloat16 before the last step (ember: once)")
    f = BINARY[op]
    run_both(lambda lib, x: f(x, scalar), _data(dtype))
    run_both(lambda lib, x: f(x.t(), scalar), _data(dtype))          # strides follow x


@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", BINARY)
def test_number_op_tensor(op, dtype, scalar):
    """Reflected dunders (`2 - t`, `2 ** t`, ...), also with a 0-dim tensor: the number is
    a wrapped number, of the lowest priority."""
    if dtype == "bfloat16" and op in ("floordiv", "mod") and scalar == 70000:
        pytest.skip("torch's scalar loop rounds floor division's steps to bfloat16")
    f = BINARY[op]
    tols = {"float64": (5e-16, 0)} if op == "pow" else None   # NumPy's and C's pow: an ulp
    run_both(lambda lib, x: f(scalar, x), _data(dtype), tols=tols)
    run_both(lambda lib, x: f(scalar, x.t()), _data(dtype), tols=tols)
    run_both(lambda lib, x: f(scalar, x), _data(dtype, ()), tols=tols)


@pytest.mark.parametrize("dtype", ["int16", "uint8", "float16", "bfloat16", "bool"])
def test_reflected_dunders_keep_dtype_of_0dim_tensor(dtype):
    e, t = pair(_data(dtype, ()))
    for f in (operator.sub, operator.truediv, operator.pow, operator.mod, operator.floordiv,
              operator.add, operator.mul, operator.and_, operator.or_, operator.xor):
        for number in (5, 1.5, True):
            try:
                expected = f(number, t)
            except Exception:  # noqa: BLE001, S112  (errors: test_number_op_tensor)
                continue
            check(f(number, e), expected)


def test_reflected_examples():
    check(5 - ember.tensor(1, dtype=ember.int16), 5 - torch.tensor(1, dtype=torch.int16))
    check(1.5 / ember.tensor(2., dtype=ember.float16), 1.5 / torch.tensor(2., dtype=torch.float16))
    # torch's __rtruediv__ is reciprocal() * number, which rounds twice
    check(3 / ember.tensor(7.), 3 / torch.tensor(7.))
    e, t = pair(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    check(2 ** e.t(), 2 ** t.t())          # pow.Scalar: a contiguous result
    assert (2 ** e.t()).stride() == (2, 1)


# --- float16 / bfloat16: torch's opmath ------------------------------------------------------
def test_half_times_number_rounds_once():
    x = ember.tensor([0.5], dtype=ember.float16)
    assert (x * 70000).tolist() == [35008.0]
    assert (x / 70000).tolist() == (torch.tensor([0.5], dtype=torch.float16) / 70000).tolist()
    b = ember.tensor([3.], dtype=ember.bfloat16)
    assert (b * 70000).tolist() == [209920.0]
    # add/sub round the number to the half type first, like torch
    assert (ember.tensor([-65000.], dtype=ember.float16) + 70000).tolist() == [float("inf")]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("number", [0.1, 1.7, 0.333, 70000])
@pytest.mark.parametrize("fn", [
    lambda lib, x, s: x * s, lambda lib, x, s: x / s, lambda lib, x, s: x + s,
    lambda lib, x, s: x - s, lambda lib, x, s: s - x, lambda lib, x, s: x // s,
    lambda lib, x, s: x % s, lambda lib, x, s: x == s, lambda lib, x, s: x < s,
    lambda lib, x, s: s / x, lambda lib, x, s: lib.fmod(x, s),
    lambda lib, x, s: lib.lerp(x, x * 2, s), lambda lib, x, s: lib.addcmul(x, x, x, value=s),
    lambda lib, x, s: lib.addcdiv(x, x, x.abs() + 3, value=s),
    lambda lib, x, s: lib.where(x > 0, x, s), lambda lib, x, s: x.clamp(max=s),
    lambda lib, x, s: x.masked_fill(x > 0, s), lambda lib, x, s: x.abs() ** s,
], ids=["mul", "div", "add", "sub", "rsub", "floordiv", "mod", "eq", "lt", "rdiv", "fmod",
        "lerp", "addcmul", "addcdiv", "where", "clamp", "masked_fill", "pow"])
def test_half_ops_with_numbers(fn, number, dtype):
    # 256 elements: all in torch's vectorized loops (its scalar loop may round twice)
    run_both(lambda lib, x: fn(lib, x, number), _data(dtype, (4, 64)))


def test_half_inplace_mul():
    e = ember.tensor([0.5], dtype=ember.float16)
    e *= 70000
    assert e.tolist() == [35008.0]


@given(st.lists(st.floats(-1e4, 1e4, width=16), min_size=1, max_size=40),
       st.floats(-1e5, 1e5, allow_nan=False), st.sampled_from(["mul", "truediv", "add"]),
       st.sampled_from(["float16", "bfloat16"]))
def test_half_number_property(values, number, op, dtype):
    a = np.array(values, dtype=np.float32)
    e = ember.tensor(a).to(getattr(ember, dtype))
    t = torch.tensor(a).to(getattr(torch, dtype))
    f = BINARY[op]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(f(e, number), f(t, number))


# --- alpha ----------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", [2, -1, 300, 70000, 1.5, True, 1e6, 1e39])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["add", "sub"])
def test_alpha(op, dtype, alpha):
    if dtype == "bfloat16" and op == "sub" and alpha in (300, 70000):
        pytest.skip("torch's scalar loop rounds alpha * other to bfloat16 (its vector loop not)")
    # 64 elements: torch's vectorized loop (a fused multiply-add) computes all of them
    x, y = _data(dtype, (4, 16)), _data(dtype, (4, 16))[::-1].copy()
    run_both(lambda lib, x, y: getattr(lib, op)(x, y, alpha=alpha), x, y)
    run_both(lambda lib, x: lib.rsub(x, 2, alpha=alpha), x)


def test_alpha_examples():
    r = ember.add(ember.tensor([True]), ember.tensor([True]), alpha=2)
    check(r, torch.add(torch.tensor([True]), torch.tensor([True]), alpha=2))
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="int8_t without overflow"):
            lib.add(lib.tensor([1], dtype=lib.int8), lib.tensor([1], dtype=lib.int8), alpha=300)
        with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
            lib.add(lib.tensor([1]), 1, alpha=1.5)
    # in place, alpha is converted to the computation dtype (int64 here), like torch
    e = ember.tensor([1], dtype=ember.int8).add_(ember.tensor([1]), alpha=300)
    check(e, torch.tensor([1], dtype=torch.int8).add_(torch.tensor([1]), alpha=300))


# --- torch's checked Scalar conversion -------------------------------------------------------
CHECKED = {
    "masked_fill": lambda lib, x, v: x.masked_fill(x > 0, v),
    "masked_fill_": lambda lib, x, v: x.clone().masked_fill_(x > 0, v),
    "clamp_max": lambda lib, x, v: x.clamp(max=v),
    "clamp_min": lambda lib, x, v: x.clamp(min=v),
    "clamp_": lambda lib, x, v: x.clone().clamp_(-(2 ** 70) if v == 2 ** 70 else -1, v),
    "fill_": lambda lib, x, v: x.clone().fill_(v),
    "full": lambda lib, x, v: lib.full((2,), v, dtype=x.dtype),
    "where": lambda lib, x, v: lib.where(x > 0, x, v),
    "pow": lambda lib, x, v: x ** v,
    "lerp": lambda lib, x, v: lib.lerp(x, x, v),
    "addcmul": lambda lib, x, v: lib.addcmul(x, x, x, value=v),
    "add": lambda lib, x, v: x + v,
    "mul_": lambda lib, x, v: x.clone().mul_(v),
    "scatter": lambda lib, x, v: x.scatter(0, lib.tensor([0, 2]), v),
    "index_fill": lambda lib, x, v: x.index_fill(0, lib.tensor([1]), v),
    "threshold": lambda lib, x, v: lib.threshold(x, v, 0),
    "threshold_value": lambda lib, x, v: lib.threshold(x, 0, v),
    "hardtanh": lambda lib, x, v: lib.nn.functional.hardtanh(x, -1, v),
    "leaky_relu": lambda lib, x, v: lib.nn.functional.leaky_relu(x, v),
}


@pytest.mark.parametrize("value", [1000, -300, 70000, 2 ** 40, 1e6, 1e39, float("nan"),
                                   float("inf"), -1, 2 ** 70], ids=repr)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", CHECKED)
def test_checked_scalar_conversion(op, dtype, value):
    if value == 2 ** 70 and op in ("lerp", "addcmul", "threshold", "threshold_value",
                                   "hardtanh", "leaky_relu"):
        pytest.skip("torch rejects the int while parsing, before the dtype check ember does first")
    # (values within an ulp: torch's fused multiply-adds and its std::pow)
    run_both(lambda lib, x: CHECKED[op](lib, x, value), _data(dtype, (5,)),
             tols={"float32": (3e-7, 0), "float64": (5e-16, 0)})


def test_checked_examples():
    for lib in (ember, torch):
        x = lib.tensor([1], dtype=lib.int8)
        with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t "
                                               "without overflow"):
            x.masked_fill(lib.tensor([True]), 1000)
        with pytest.raises(RuntimeError, match="c10::Half without overflow"):
            lib.tensor([1.], dtype=lib.float16).clamp(max=70000)
        with pytest.raises(OverflowError, match="int too big to convert"):
            lib.zeros(3) + 2 ** 70
        with pytest.raises(RuntimeError, match="int64_t without overflow"):
            lib.tensor([1, 2]).fill_(float("nan"))
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            lib.tensor([1], dtype=lib.uint8) // 256   # 256 is 0 as a uint8


# --- integer division by zero ------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64"])
@pytest.mark.parametrize("fn", [
    lambda lib, x: x // 0, lambda lib, x: x % 0, lambda lib, x: lib.fmod(x, 0),
    lambda lib, x: lib.div(x, 0, rounding_mode="trunc"), lambda lib, x: x // lib.zeros_like(x),
    lambda lib, x: lib.remainder(x, lib.zeros_like(x)),
], ids=["floordiv", "mod", "fmod", "trunc", "floordiv_tensor", "remainder_tensor"])
def test_integer_division_by_zero(fn, dtype):
    run_both(fn, _data(dtype, (3,)))        # raises
    run_both(fn, _data(dtype, (0,)))        # an empty result: no error
    run_both(fn, _data(dtype, (0, 2)))


# --- no NumPy warnings ---------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda lib: lib.tensor([1e6, -1e39], dtype=lib.float64).to(lib.float16),
    lambda lib: lib.tensor([1e39], dtype=lib.float64).float(),
    lambda lib: lib.ones(3) * 1e39,
    lambda lib: lib.ones(3, dtype=lib.float16) * 1e6,
    lambda lib: 1e39 / lib.ones(3, dtype=lib.int32),
    lambda lib: lib.ones(3) == 1e39,
    lambda lib: lib.tensor([float("nan"), 1.0], dtype=lib.bfloat16) < lib.ones(2, dtype=lib.bfloat16),
])
def test_no_numpy_warnings(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = fn(ember)
    check(got, fn(torch))


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "floor_divide", "remainder",
                                  "multiply", "subtract", "divide", "true_divide",
                                  "maximum", "atan2"])
@pytest.mark.parametrize("dtype", ["int64", "float32", "float16"])
@pytest.mark.parametrize("number", [7, 2.5, True])
def test_number_as_first_argument_of_the_public_functions(name, dtype, number):
    """torch.add(7, t): torch's parser wraps a number given for `input` in add, sub, mul,
    div, floor_divide (remainder has its own Scalar overload); maximum and atan2 refuse."""
    run_both(lambda lib, t: getattr(lib, name)(number, t), np_data((2, 3), dtype))
    if name in ("add", "sub", "subtract"):
        run_both(lambda lib, t: getattr(lib, name)(number, t, alpha=2), np_data((3,), dtype))
