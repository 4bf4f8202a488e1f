"""Result strides of the pointwise ops against torch's TensorIterator, over random layouts
(permuted, sliced, expanded, odd strides on size-1 dims) and mixed dtypes.

On the CPU torch casts an input of another dtype to the common dtype (a dense `.to()` copy)
before it lays out the result, and takes its fast setup (contiguous, channels_last, or the
operands' own dense strides) when every operand has one shape. (torch's Meta results come
partly from its Python meta functions, with other rules for size-1 dims; not compared here.)
"""
import random

import pytest
from helpers import raises_like

import ember

torch = pytest.importorskip("torch")

DTYPES = ["int64", "int32", "uint8", "bool", "float16", "float32", "float64"]
OPS = {"add": 2, "mul": 2, "sub": 2, "div": 2, "eq": 2, "lt": 2, "maximum": 2, "atan2": 2,
       "remainder": 2, "logical_and": 2, "copysign": 2, "hypot": 2, "addcdiv": 3,
       "addcmul": 3, "where": 3, "clamp": 3, "lerp": 3,
       "neg": 1, "sin": 1, "exp": 1, "sigmoid": 1, "abs": 1, "sqrt": 1, "angle": 1,
       "nan_to_num": 1, "isnan": 1, "bitwise_not": 1}


def _random_layout(rng, full_shape):
    """A (shape, strides) of `full_shape` with some dims 1, a random dim order, gaps and
    stride-0 (expanded) dims."""
    shape = tuple(n if rng.random() < 0.7 else 1 for n in full_shape)
    order = list(range(len(shape)))
    rng.shuffle(order)
    strides, acc = [0] * len(shape), 1
    for d in reversed(order):
        step = rng.choice([1, 1, 2])
        strides[d] = acc * step if shape[d] > 1 else rng.choice([0, 5, acc])
        acc *= shape[d] * step
    strides = [0 if rng.random() < 0.15 else s for s in strides]
    return shape, tuple(strides)


def _cases(n=250, seed=2026):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        op = rng.choice(sorted(OPS))
        full = [rng.choice([1, 2, 3]) for _ in range(rng.choice([2, 3, 4]))]
        args = []
        for k in range(OPS[op]):
            dt = "bool" if op == "where" and k == 0 else rng.choice(DTYPES)
            args.append((*_random_layout(rng, full), dt))
        out.append(pytest.param(op, args, id=f"{i}-{op}"))
    return out


def _make(lib, shape, stride, dtype):
    return lib.arange(1, 400).to(getattr(lib, dtype)).as_strided(shape, stride)


@pytest.mark.parametrize("op, args", _cases())
def test_pointwise_result_layout_matches_torch(op, args):
    run = lambda m: getattr(m, op)(*[_make(m, *a) for a in args])
    try:
        expected = run(torch)
    except (RuntimeError, TypeError):
        raises_like(lambda: run(ember), lambda: run(torch))
        return
    got = run(ember)
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert got.stride() == expected.stride(), (args, got.stride(), expected.stride())


@pytest.mark.parametrize("call", [
    # an expanded int input is cast (densely) before the layout: the float one no longer leads
    lambda m: m.zeros(3, 1, dtype=m.int64).expand(3, 4) + m.zeros(4, 3).t(),
    lambda m: m.zeros(3, 1).expand(3, 4) + m.zeros(4, 3).t(),
    lambda m: m.zeros(4, 6, dtype=m.int32)[:, ::2].t().sin(),
    # one shape, dense with equal strides: the operands' own strides, odd size-1 ones too
    lambda m: m.zeros(2, 1, 3).as_strided((2, 1, 3), (1, 7, 2)).neg(),
    lambda m: m.zeros(2, 1).as_strided((2, 1), (1, 5)).nan_to_num(),
])
def test_cast_inputs_and_fast_setup(call):
    assert call(ember).stride() == call(torch).stride()


@pytest.mark.parametrize("shape, stride", [
    ((1, 2, 2, 1), (1, 1, 2, 4)),     # a permuted 1CH1: contiguous for torch
    ((2, 3, 4, 5), (60, 1, 15, 3)),   # NHWC
    ((2, 1, 1, 1), (1, 1, 1, 1)),     # N111: ambiguous, contiguous
    ((1, 3, 1, 4), (12, 1, 12, 3)),   # 1C1W in NHWC order
    ((2, 3, 1, 1), (3, 1, 3, 3)),
])
def test_cat_takes_torchs_suggested_memory_format(shape, stride):
    """cat lays its result out in the inputs' suggested memory format, torch's stride rule
    (not `is_contiguous(channels_last)`, which ignores size-1 dims)."""
    run = lambda m: m.cat([m.arange(200.).as_strided(shape, stride)])
    assert run(ember).stride() == run(torch).stride()


def _view(lib, kind, shape):
    """A float32 tensor of `shape`: contiguous, a slice of a wider one along the last dim
    (strides falling from the first dim to the last, yet not contiguous), or transposed."""
    base = lib.arange(float(4 * torch.Size(shape).numel()))
    if kind == "contiguous":
        return base[:torch.Size(shape).numel()].view(shape)
    if kind == "slice":
        return base.view(*shape[:-1], 4 * shape[-1])[..., 1:1 + shape[-1]]
    return base[:torch.Size(shape).numel()].view(shape[::-1]).permute(
        *range(len(shape) - 1, -1, -1))


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (3, 1, 4)], ids=str)
@pytest.mark.parametrize("first", ["slice", "transposed", "contiguous"])
@pytest.mark.parametrize("second", ["slice", "transposed", "contiguous", "number"])
def test_row_major_slices_match_torch(shape, first, second):
    """A slice's strides fall from the first dim to the last: such a first operand makes
    the result contiguous (out_layout's shortcut) unless a size-1 dim or the fast setup
    decides otherwise."""
    for op in ("mul", "add"):
        results = []
        for lib in (ember, torch):
            a = _view(lib, first, shape)
            b = 2.0 if second == "number" else _view(lib, second, shape)
            results.append(getattr(lib, op)(a, b))
        e, t = results
        assert e.stride() == t.stride(), (op, first, second)
        assert e.tolist() == t.tolist()
    e, t = (_view(lib, first, shape).tanh() for lib in (ember, torch))
    assert e.stride() == t.stride()
