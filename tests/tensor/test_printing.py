"""repr(tensor) matches torch's text (with 'torch' read as 'ember')."""
import math

import numpy as np
import pytest
from helpers import dtype_name, from_torch

import ember
from ember.core.printing import tensor_repr

torch = pytest.importorskip("torch")


def expected(t):
    return repr(t).replace("torch.", "ember.")


def check(t):
    e = from_torch(t)
    assert repr(e) == expected(t)
    assert str(e) == expected(t)


FLOAT_CASES = [
    [1.0, 2.0, 3.0], [1.5, 2.25, -3.125], [0.0], [-0.0, 0.0], [0.1, 0.2], [1e-5, 1.0],
    [1e9, 1.0], [123456.0, 0.5], [1e-4, 0.1], [1e8, 1.0], [1001.0, 1.0], [1000.0, 1.0],
    [float("nan"), 1.0], [float("inf"), -float("inf"), 2.0], [float("nan")], [float("inf")],
    [1e20, -1e20], [0.5, 1e-10], [100.0, -200.0, 3.0], [3.14159265, 2.71828, -1.41421],
    [1e-45, 1.0], [65504.0, -1.0], [12345678.0], [0.0001, 0.0002],
]


@pytest.mark.parametrize("vals", FLOAT_CASES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_float_vectors(vals, dtype):
    check(torch.tensor(vals, dtype=dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("value", [0.0, 1.0, -2.5, 1e-7, 123456789.0, float("nan"), float("-inf")])
def test_scalars(dtype, value):
    check(torch.tensor(value, dtype=dtype))


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8])
def test_int_tensors(dtype):
    check(torch.tensor([1, 22, 100], dtype=dtype))
    check(torch.tensor(7, dtype=dtype))
    check(torch.arange(24, dtype=dtype).reshape(2, 3, 4))
    if dtype != torch.uint8:
        check(torch.tensor([[-1, 5], [100, -27]], dtype=dtype))


def test_bool_tensors():
    check(torch.tensor([True, False, True]))
    check(torch.tensor(True))
    check(torch.tensor([[True], [False]]))


@pytest.mark.parametrize("shape", [(2, 3), (3, 1), (1, 3), (2, 2, 2), (2, 1, 2, 3), (1, 1, 1)])
def test_nested_indentation(shape):
    gen = torch.Generator().manual_seed(0)
    check(torch.randn(shape, generator=gen))
    check(torch.randint(-50, 50, shape, generator=gen))
    check(torch.randn(shape, generator=gen, dtype=torch.float64) * 1e6)


@pytest.mark.parametrize("n", [20, 30, 100])
def test_line_wrapping(n):
    check(torch.arange(n, dtype=torch.float32) / 3)
    check(torch.arange(n))
    check(torch.arange(n).reshape(2, -1) * 1000)


@pytest.mark.parametrize("shape", [(1001,), (2000,), (40, 30), (3, 500), (1001, 1), (5, 6, 7, 8),
                                   (2, 1000)])
def test_summarized(shape):
    gen = torch.Generator().manual_seed(1)
    check(torch.randn(shape, generator=gen))
    check(torch.arange(math.prod(shape)).reshape(shape))
    check(torch.arange(math.prod(shape), dtype=torch.float64).reshape(shape))


def test_summarized_formatter_uses_edge_values_only():
    t = torch.zeros(2000)
    t[1000] = 1e10  # in the hidden middle: does not switch to scientific notation
    t[0] = 1.5
    check(t)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32,
                                   torch.bool, torch.float16])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0, 1)])
def test_empty(dtype, shape):
    check(torch.empty(shape, dtype=dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.bool])
@pytest.mark.parametrize("shape", [(), (2, 3), (0,)])
def test_meta(dtype, shape):
    t = torch.empty(shape, dtype=dtype, device="meta")
    e = ember.empty(shape, dtype=getattr(ember, dtype_name(dtype)), device="meta")
    assert repr(e) == expected(t)


def test_non_contiguous():
    base = torch.arange(24.0).reshape(4, 6)
    check(base.t())
    check(base[:, ::2])
    check(base.t()[1:, ::3])


def test_requires_grad_suffix():
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    e = ember.tensor([1.0, 2.0], requires_grad=True)
    assert repr(e) == expected(t)
    t64 = torch.ones(2, 2, dtype=torch.float64, requires_grad=True)
    e64 = ember.ones(2, 2, dtype=ember.float64).requires_grad_()
    assert repr(e64) == expected(t64)


def test_grad_fn_suffix():
    class AddBackward0:
        def name(self):
            return "AddBackward0"

    e = ember.tensor([1.0, 2.0])
    from ember.autograd.meta import autograd_meta
    ag = autograd_meta(e)
    ag.grad_fn = AddBackward0()
    ag.requires_grad = True
    t = torch.tensor([1.0, 2.0], requires_grad=True) + 0
    assert repr(e) == expected(t)


def test_suffix_wraps_long_lines():
    t = torch.arange(8, dtype=torch.float64).reshape(1, 8) * 1234.5678
    check(t)
    t2 = torch.arange(10, dtype=torch.int16) * 1000
    check(t2)


def test_default_dtype_changes_suffix():
    ember.set_default_dtype(ember.float64)
    torch.set_default_dtype(torch.float64)
    try:
        check(torch.tensor([1.5, 2.0], dtype=torch.float64))
        check(torch.tensor([1.5, 2.0], dtype=torch.float32))
        check(torch.empty(0, 2, dtype=torch.float64))
    finally:
        ember.set_default_dtype(ember.float32)
        torch.set_default_dtype(torch.float32)


def test_subclass_prefix():
    class MyTensor(ember.Tensor):
        pass

    e = ember.tensor([1, 2]).as_subclass(MyTensor)
    assert tensor_repr(e) == "MyTensor([1, 2])"


def test_repr_of_large_tensor_formats_only_the_edges(monkeypatch):
    """A summarised repr converts and formats the edge elements only, however large the
    tensor (a complexity check: the timings are in benchmarks/)."""
    from ember.core import printing
    counts = {"converted": 0, "formatted": 0}
    py_values, fmt = printing._py_values, printing._Formatter.format

    def count_py_values(a):
        counts["converted"] += a.size
        return py_values(a)

    def count_format(self, value):
        counts["formatted"] += 1
        return fmt(self, value)
    monkeypatch.setattr(printing, "_py_values", count_py_values)
    monkeypatch.setattr(printing._Formatter, "format", count_format)
    seen = []
    for shape in ((40, 30), (3000, 3000)):
        counts.update(converted=0, formatted=0)
        r = repr(ember.ones(shape))
        assert "..." in r and r == repr(torch.ones(shape)).replace("torch", "ember")
        seen.append(dict(counts))
    assert seen[0] == seen[1] and seen[1]["formatted"] == 36, seen


@pytest.mark.parametrize("seed", range(40))
def test_random_tensors(seed):
    """Random shapes, dtypes and magnitudes (incl. nan/inf/zeros) against torch."""
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(0, 4))
    shape = tuple(int(n) for n in rng.integers(1, 9, ndim))
    dtype = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
             torch.int32, torch.uint8, torch.bool][seed % 8]
    scale = 10.0 ** rng.integers(-6, 10)
    vals = rng.normal(0, scale, shape)
    if rng.random() < 0.3:
        vals = np.asarray(np.round(vals))
    if dtype.is_floating_point:
        flat = vals.reshape(-1)
        for special in (np.nan, np.inf, 0.0):
            if flat.size and rng.random() < 0.3:
                flat[rng.integers(flat.size)] = special
        t = torch.from_numpy(vals).to(dtype)
    elif dtype == torch.bool:
        t = torch.from_numpy(np.asarray(vals > 0))
    else:
        lim = 255 if dtype == torch.uint8 else 10**6
        ints = np.clip(np.abs(vals) if dtype == torch.uint8 else vals, -lim, lim)
        t = torch.from_numpy(np.asarray(ints).astype(np.int64)).to(dtype)
    check(t)


@pytest.mark.parametrize("kw", [{"precision": 2}, {"threshold": 5, "edgeitems": 1},
                                {"sci_mode": True}, {"sci_mode": False, "precision": 6},
                                {"profile": "short"}, {"linewidth": 30}])
def test_set_printoptions_matches_torch(kw):
    data = np.linspace(-3, 1000, 12).reshape(3, 4).astype(np.float32)
    try:
        ember.set_printoptions(**kw)
        torch.set_printoptions(**kw)
        e = repr(ember.from_numpy(data.copy()))
        t = repr(torch.from_numpy(data.copy())).replace("torch", "ember")
    finally:
        ember.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
    assert e == t
