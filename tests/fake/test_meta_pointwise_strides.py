"""Strides of pointwise results on Meta and fake tensors against torch's Meta results, and
on the CPU against torch's CPU results, over layouts with size-1 dims (odd strides on
them), permuted dims, gaps, broadcasting and expanded (stride-0) inputs.

torch's Meta results come from its Python references (prims' elementwise meta: operands
broadcast with `expand`, contiguous / channels-last short-circuits, then the dim order of
`compute_elementwise_output_logical_to_physical_perm`), its CPU results from
TensorIterator (size-1 broadcast dims zeroed, fast setup copying a dense input's
strides): the two differ on size-1 dims, and ember follows each.
"""
from __future__ import annotations

import pytest
from helpers import raises_like
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember._subclasses.fake_tensor import FakeTensorMode
from ember.core.shapes import meta_elementwise_strides

torch = pytest.importorskip("torch")

UNARY = ["neg", "exp", "tanh", "sigmoid", "abs", "sqrt", "sin", "ceil", "logical_not", "sign",
         "reciprocal", "log1p", "isnan", "nan_to_num", "frac", "rsqrt", "round"]
BINARY = ["add", "mul", "sub", "div", "maximum", "minimum", "pow", "eq", "lt", "ne", "atan2",
          "fmod", "remainder", "hypot", "bitwise_and", "logical_and", "logical_or",
          "logical_xor"]
# with a Python number: a 0-d operand of torch's TensorIterator (no fast setup), except
# pow's Scalar exponent (a unary iterator); hardtanh writes into empty_like(self) on the
# CPU. On Meta, torch's references: numbers are dropped, except where's (a 0-d tensor),
# which relu, clamp and hardtanh decompose into.
WITH_NUMBER = {
    "add_number": lambda m, x: x + 2, "mul_number": lambda m, x: x * 2.5,
    "rsub_number": lambda m, x: 1 - x, "rdiv_number": lambda m, x: 2 / x,
    "lt_number": lambda m, x: x < 1, "eq_number": lambda m, x: x == 3,
    "square": lambda m, x: m.pow(x, 2), "cube": lambda m, x: x ** 3,
    "hardtanh": lambda m, x: m.nn.functional.hardtanh(x),
    "where_number": lambda m, x: m.where(x > 2, x, 0),
    "where_number_first": lambda m, x: m.where(x > 2, 1.5, x),
    "relu": lambda m, x: m.relu(x), "clamp": lambda m, x: x.clamp(2, 5),
    "clamp_min": lambda m, x: x.clamp_min(2), "clamp_max": lambda m, x: x.clamp(max=3),
}
DTYPES = ["float32", "float64", "int64"]
# int64 raises "not implemented for 'Long'" on ember's Meta like on the CPU, where torch's
# Meta reference accepts it: a dtype check, not this file's subject
FLOAT_ONLY = {"hypot", "frac"}


@st.composite
def layouts(draw, full_shape):
    """(shape, strides) over `full_shape`: some dims 1 (with any stride), a random dim
    order, gaps between dims, some dims expanded (stride 0)."""
    shape = tuple(n if draw(st.booleans()) else 1 for n in full_shape)
    order = draw(st.permutations(range(len(shape))))
    strides, extent = [0] * len(shape), 1
    for d in reversed(order):
        step = draw(st.sampled_from([1, 1, 2]))
        strides[d] = extent * step if shape[d] > 1 else draw(st.sampled_from([0, 5, extent]))
        extent *= shape[d] * step
    expanded = draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
    return shape, tuple(0 if e and draw(st.booleans()) else s for s, e in zip(strides, expanded))


@st.composite
def cases(draw):
    op = draw(st.sampled_from(UNARY + BINARY + list(WITH_NUMBER)))
    full = draw(st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=4))
    operands = [draw(layouts(full))]
    if op in BINARY:        # a second operand broadcast from fewer, trailing dims
        ndim = draw(st.integers(1, len(full)))
        operands.append(draw(layouts(full[len(full) - ndim:])))
    dtype = "int64" if op == "bitwise_and" else draw(st.sampled_from(
        DTYPES[:2] if op in FLOAT_ONLY else DTYPES))
    return op, operands, dtype


def _run(lib, op, operands, dtype, device):
    dt = getattr(lib, dtype)
    args = [lib.empty_strided(shape, strides, dtype=dt, device=device)
            if device == "meta" else
            lib.arange(1, 200, device=device).to(dt).as_strided(shape, strides)
            for shape, strides in operands]
    return _call(lib, op, args)


def _call(lib, op, args):
    fn = WITH_NUMBER.get(op)
    return fn(lib, *args) if fn else getattr(lib, op)(*args)


def _layout(t):
    return tuple(t.shape), tuple(t.stride())


def _check(run_ember, run_torch):
    """Equal layouts, or the error torch raises (hypot of int64, ...)."""
    try:
        expected = _layout(run_torch())
    except (RuntimeError, NotImplementedError, TypeError):
        raises_like(run_ember, run_torch)
        return
    assert _layout(run_ember()) == expected


@settings(max_examples=80)
@given(cases())
def test_meta_strides_match_torch_meta(case):
    op, operands, dtype = case
    _check(lambda: _run(ember, op, operands, dtype, "meta"),
           lambda: _run(torch, op, operands, dtype, "meta"))


def _fake_run(lib, op, operands, dtype):
    """op on fakes of CPU tensors in lib's FakeTensorMode."""
    mode = (FakeTensorMode if lib is ember else torch._subclasses.fake_tensor.FakeTensorMode)()
    fakes = [mode.from_tensor(lib.arange(1, 200).to(getattr(lib, dtype))
                              .as_strided(shape, strides)) for shape, strides in operands]
    with mode:
        return _call(lib, op, fakes)


@settings(max_examples=60)
@given(cases())
def test_fake_strides_match_torch_fake(case):
    """(torch's fakes run its Meta references, with a TensorIterator-like fast path for
    add, sub, mul and div: contiguous or channels-last operands.)"""
    op, operands, dtype = case
    _check(lambda: _fake_run(ember, op, operands, dtype),
           lambda: _fake_run(torch, op, operands, dtype))


@settings(max_examples=80)
@given(cases())
def test_cpu_strides_match_torch_cpu(case):
    op, operands, dtype = case
    _check(lambda: _run(ember, op, operands, dtype, "cpu"),
           lambda: _run(torch, op, operands, dtype, "cpu"))


@pytest.mark.parametrize("shapes_strides, expected", [
    # a dense input whose size-1 dim has an odd stride: torch's Meta reads it as contiguous
    ([((2, 1), (1, 2))], (1, 1)),
    # channels-last (and not contiguous): canonical NHWC strides, not the input's
    ([((2, 3, 1, 3), (9, 1, 1, 3))], (9, 1, 9, 3)),
    # broadcasting a contiguous (3,) against a contiguous (1, 1, 3) with permuted 1s
    ([((1, 1, 3), (1, 3, 1)), ((3,), (1,))], (3, 3, 1)),
    # a size-1 dim kept by expand decides the order where TensorIterator would not look
    ([((2, 1, 2), (1, 4, 2)), ((2, 1, 2), (1, 4, 2))], (1, 4, 2)),
])
def test_meta_rule_examples(shapes_strides, expected):
    shape = tuple(torch.broadcast_shapes(*(s for s, _ in shapes_strides)))
    assert meta_elementwise_strides(shape, shapes_strides) == expected
    args = [torch.empty_strided(s, st, device="meta") for s, st in shapes_strides]
    assert (args[0] + args[1] if len(args) == 2 else args[0].neg()).stride() == expected


@pytest.mark.parametrize("op, shape, strides", [
    ("lt_number", (1, 1, 3, 1), (0, 1, 1, 1)),     # contiguous for NumPy, not for torch here
    ("eq_number", (2, 1, 3), (3, 1, 1)),
    ("square", (1, 2, 1, 3), (1, 1, 1, 2)),        # channels-last: the unary fast setup
    ("hardtanh", (1,), (5,)),                      # empty_like keeps the odd stride
    ("hardtanh", (3, 1, 2), (2, 7, 1)),
])
def test_cpu_number_operand_examples(op, shape, strides):
    _check(lambda: _run(ember, op, [(shape, strides)], "float32", "cpu"),
           lambda: _run(torch, op, [(shape, strides)], "float32", "cpu"))


@pytest.mark.parametrize("op, shape, strides", [
    ("relu", (2, 1), (1, 2)),                 # the 0-d zero blocks the contiguous rule
    ("relu", (1, 2, 1), (0, 1, 2)),
    ("clamp", (1, 2, 1, 2), (4, 8, 5, 2)),
    ("hardtanh", (3, 1), (1, 3)),
    ("where_number", (1, 2, 1), (5, 1, 4)),
    ("rsub_number", (1, 3, 1), (0, 1, 5)),   # the wrapped number is no operand of torch's
])
def test_meta_where_number_examples(op, shape, strides):
    _check(lambda: _run(ember, op, [(shape, strides)], "float32", "meta"),
           lambda: _run(torch, op, [(shape, strides)], "float32", "meta"))


@pytest.mark.parametrize("op", ["logical_and", "logical_or", "logical_xor"])
def test_meta_logical_ops_lay_out_each_side_first(op):
    """torch's Meta logical_and is `(a != 0) & (b != 0)`: each side gets its own dense
    layout before the two are combined."""
    operands = [((2, 1, 3), (0, 1, 4)), ((2, 1, 3), (0, 1, 4))]
    _check(lambda: _run(ember, op, operands, "float32", "meta"),
           lambda: _run(torch, op, operands, "float32", "meta"))
