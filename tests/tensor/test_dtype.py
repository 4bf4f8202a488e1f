"""dtypes and PyTorch's type promotion, against torch."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import ALL_DTYPES, np_dtype, pair

import ember
from ember.core.tensor import from_array

torch = pytest.importorskip("torch")

DTYPES = [d.name for d in ALL_DTYPES]
E = {n: getattr(ember, n) for n in DTYPES}
T = {n: getattr(torch, n) for n in DTYPES}


def ename(d):
    return d.name


def tname(d):
    return str(d).replace("torch.", "")


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
def test_promote_types_matches_torch(a, b):
    assert ename(ember.promote_types(E[a], E[b])) == tname(torch.promote_types(T[a], T[b]))


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
def test_can_cast_matches_torch(a, b):
    assert ember.can_cast(E[a], E[b]) == torch.can_cast(T[a], T[b])


def _pair(dtype, shape):
    return pair(np.ones(shape, np_dtype(dtype)))


OPERANDS = [("dim", d) for d in DTYPES] + [("zero", d) for d in DTYPES] + [
    ("py", True), ("py", 3), ("py", 2.5)]


def _make(kind, v):
    if kind == "py":
        return v, v
    return _pair(v, (2,) if kind == "dim" else ())


@pytest.mark.parametrize("x,y", list(itertools.combinations(OPERANDS, 2)))
def test_result_type_matches_torch(x, y):
    if x[0] == "py" and y[0] == "py":
        pytest.skip("torch.result_type needs a tensor")
    ex, tx = _make(*x)
    ey, ty = _make(*y)
    assert ename(ember.result_type(ex, ey)) == tname(torch.result_type(tx, ty))


def test_result_type_many_operands():
    a, ta = _pair("int32", (3,))
    b, tb = _pair("float16", ())
    assert ename(ember.result_type(a, b, 2.5, True)) == tname(torch.result_type(ta, tb)) == "float16"


def test_default_dtype_controls_python_floats_and_factories():
    try:
        ember.set_default_dtype(ember.float64)
        i = from_array(np.ones(2, np.int32))
        assert ember.result_type(i, 1.5) is ember.float64
        assert ember.get_default_dtype() is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)
    with pytest.raises(TypeError, match="only floating-point types"):
        ember.set_default_dtype(ember.int64)


def test_dtype_attributes_and_aliases():
    assert ember.float is ember.float32 and ember.double is ember.float64
    assert ember.long is ember.int64 and ember.half is ember.float16 and ember.int is ember.int32
    assert repr(ember.bfloat16) == "ember.bfloat16"
    assert ember.bfloat16.itemsize == 2 and ember.bfloat16.is_floating_point
    assert not ember.uint8.is_signed and ember.int8.is_signed
    assert ember.bool.itemsize == 1 and not ember.bool.is_floating_point


def test_from_numpy_dtype_rejects_unsupported():
    from ember.core.dtype import from_numpy_dtype
    assert from_numpy_dtype(np.float16) is ember.float16
    assert from_numpy_dtype(np.complex128) is ember.complex128
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.clongdouble"):
        from_numpy_dtype(np.clongdouble)


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_matches_torch(name):
    e, t = ember.finfo(E[name]), torch.finfo(T[name])
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(e, attr) == getattr(t, attr), attr
    assert repr(e) == repr(t)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    e, t = ember.iinfo(E[name]), torch.iinfo(T[name])
    assert (e.bits, e.min, e.max) == (t.bits, t.min, t.max)
    assert repr(e) == repr(t)


def test_type_info_errors_and_default():
    assert ember.finfo().eps == torch.finfo().eps
    with pytest.raises(TypeError, match="requires a floating point input type"):
        ember.finfo(ember.int32)
    with pytest.raises(TypeError, match="requires an integer input type"):
        ember.iinfo(ember.float32)


def test_top_level_helpers():
    assert ember.is_tensor(ember.ones(1)) and not ember.is_tensor(1.0)
    assert ember.numel(ember.ones(2, 3)) == 6 and ember.is_floating_point(ember.ones(1))
    assert ember.broadcast_shapes((2, 1), (3,)) == torch.broadcast_shapes((2, 1), (3,))
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        ember.broadcast_shapes((2, 3), (3, 2))
