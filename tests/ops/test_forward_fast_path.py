"""The short forward path of pointwise ops (kernels/cpu/_pointwise.py's `_binary`, the
dunders that dispatch inline, the entries' kernel cache): every operand kind it takes or
hands to the general path gives torch's values, dtype, shape and strides, in grad mode,
no_grad and inference_mode; torch's errors; NumPy's error state left as the user set it;
the profiler still sees the ops once the entries have cached their kernels."""
import operator
import warnings

import numpy as np
import pytest
from helpers import check, layout_pair, pair, raises_like

import ember

torch = pytest.importorskip("torch")

OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
       "truediv": operator.truediv}


def _operands(kind):
    """(ember, torch) operand pairs (self, other) for one kind of call."""
    x = layout_pair((3, 4), "float32", seed=1)
    y = layout_pair((3, 4), "float32", seed=2)
    if kind == "same":
        return x, y
    if kind == "number":
        return x, (2.5, 2.5)
    if kind == "int_number":
        return x, (3, 3)
    if kind == "zero_dim":
        return x, pair(np.array(1.5))
    if kind == "zero_dim_self":
        return pair(np.array(1.5, np.float64)), y
    if kind == "mixed":
        return x, layout_pair((3, 4), "float64", seed=2)
    if kind == "int_tensors":
        return layout_pair((3, 4), "int64", seed=1), layout_pair((3, 4), "int32", seed=2,
                                                                 ints=(1, 9))
    if kind == "int_float":
        return layout_pair((3, 4), "int32", seed=1), layout_pair((3, 4), "float32", seed=2)
    if kind == "bool_int":
        return layout_pair((3, 4), "bool", seed=1), layout_pair((3, 4), "uint8", seed=2)
    if kind == "transposed":
        return layout_pair((3, 4), "float32", "transposed", seed=1), y
    if kind == "broadcast":
        return x, layout_pair((4,), "float32", seed=2)
    if kind == "half":
        return layout_pair((3, 4), "float16", seed=1), layout_pair((3, 4), "float16", seed=2)
    raise AssertionError(kind)


KINDS = ["same", "number", "int_number", "zero_dim", "zero_dim_self", "mixed", "int_tensors",
         "int_float", "bool_int", "transposed", "broadcast", "half"]
MODES = {"grad": lambda lib: lib.enable_grad(), "no_grad": lambda lib: lib.no_grad(),
         "inference_mode": lambda lib: lib.inference_mode()}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("op", list(OPS))
def test_binary_operands_like_torch(op, kind, mode):
    (a, ta), (b, tb) = _operands(kind)
    fn = OPS[op]
    if kind == "bool_int" and op == "sub":
        raises_like(lambda: fn(a, b), lambda: fn(ta, tb), "Subtraction")
        return
    with MODES[mode](ember), MODES[mode](torch):
        e, t = fn(a, b), fn(ta, tb)
        er, tr = fn(b, a), fn(tb, ta)     # the reflected dunders
    check(e, t, {"float16": (1e-3, 1e-3), "float32": (1e-6, 1e-6)})
    check(er, tr, {"float16": (1e-3, 1e-3), "float32": (1e-6, 1e-6)})
    assert e.is_inference() == t.is_inference()


@pytest.mark.parametrize("alpha", [2, 0.5, -1.25])
@pytest.mark.parametrize("name", ["add", "sub"])
def test_alpha(name, alpha):
    (a, ta), (b, tb) = _operands("same")
    check(getattr(ember, name)(a, b, alpha=alpha), getattr(torch, name)(ta, tb, alpha=alpha),
          {"float32": (1e-6, 1e-6)})


@pytest.mark.parametrize("case", ["bool_bool", "float_true", "bool_int", "float_bool_0d",
                                  "bool_0d_float", "bool_int_tensor", "int_tensor_bool"])
def test_bool_subtraction_errors(case):
    (bb, tbb) = pair(np.array([True, False]))
    (f, tf) = pair(np.array([1.0, 2.0], np.float32))
    (b0, tb0) = pair(np.array(True))
    (i, ti) = pair(np.array([3, 4]))
    calls = {"bool_bool": (lambda: bb - bb, lambda: tbb - tbb),
             "float_true": (lambda: f - True, lambda: tf - True),
             "bool_int": (lambda: bb - 1, lambda: tbb - 1),
             "float_bool_0d": (lambda: f - b0, lambda: tf - tb0),
             "bool_0d_float": (lambda: b0 - f, lambda: tb0 - tf),
             "bool_int_tensor": (lambda: bb - i, lambda: tbb - ti),
             "int_tensor_bool": (lambda: i - bb, lambda: ti - tbb)}
    raises_like(*calls[case], "Subtraction, the `-` operator")


def test_not_a_tensor_operand():
    (a, ta) = pair(np.ones(2, np.float32))
    raises_like(lambda: a + "x", lambda: ta + "x")
    assert (a == "x") is False and (ta == "x") is False


def test_inplace_dunder_on_inference_tensor():
    with ember.inference_mode():
        e = ember.ones(2)
    with torch.inference_mode():
        t = torch.ones(2)
    raises_like(lambda: e.__iadd__(1.0), lambda: t.__iadd__(1.0), "Inplace update")


def test_numpy_error_state_kept():
    """The kernels silence NumPy's warnings for their own calls only."""
    (a, ta), (z, tz) = pair(np.array([1.0, 0.0], np.float32)), pair(np.zeros(2, np.float32))
    with np.errstate(divide="raise", invalid="raise"):
        check(a / z, ta / tz)
        check((a / z).exp(), (ta / tz).exp())
        with pytest.raises(FloatingPointError):
            np.float32(1.0) / np.zeros(1, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(a / z, ta / tz)
    assert np.geterr()["divide"] == "warn"


def test_numpy_error_state_fallback(monkeypatch):
    """Without NumPy's private error-state variable, kernels fall back to np.errstate
    and give the same answers and the same untouched caller state."""
    from ember.kernels.cpu import _pointwise
    monkeypatch.setattr(_pointwise, "_ERRSTATE", None)
    test_numpy_error_state_kept()
    assert _pointwise.quiet_call(np.divide, np.ones(1), np.zeros(1))[0] == np.inf


def test_profiler_sees_cached_ops():
    """Entries cache their kernels; a profile started afterwards still records the ops,
    and none of its wrapping stays once it stops."""
    from ember.profiler import ProfilerActivity, profile
    a = ember.ones(3)
    for _ in range(2):
        a + a
        ember.mul(a, a)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        a + a
        ember.mul(a, a)
    names = [e.name for e in prof.events()]
    assert "aten::add" in names and "aten::mul" in names
    with profile(activities=[ProfilerActivity.CPU]) as prof2:
        pass
    a + a
    assert not [e for e in prof2.events() if e.name == "aten::add"]
