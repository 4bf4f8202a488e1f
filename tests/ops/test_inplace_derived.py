"""The in-place overloads the generator derives from their functional twin (declared
without `dispatch:`, `inplace_of` set in the codegen model) against torch: values, dtype,
strides and errors (result dtype not castable to self's, broadcast shape not self's),
on contiguous, transposed, 0-d and Meta selves, plus autograd's version counter.

    .venv/bin/python -m pytest tests/ops/test_inplace_derived.py -q
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import aten_op

import ember
from codegen.kernel_index import KernelIndex
from codegen.loader import load_yaml_list
from codegen.native import parse_native_functions

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]


def _derived():
    entries = load_yaml_list(ROOT / "schema/native_functions.yaml", "native")
    fns = parse_native_functions(entries, KernelIndex(ROOT / "kernels"))
    return [fn for fn in fns if fn.inplace_of]


DERIVED = {(f.qualified if "." in f.qualified else f.qualified + ".default"): f
           for f in _derived()}
INTEGRAL_ONLY = {"bitwise_not_.default"}
NOT_0D = {"renorm_.default"}     # (renorm needs 2 dims: torch's error on a 0-d self)
BINARY = sorted(n for n, f in DERIVED.items()
                if any(str(a.type).startswith("Tensor") for a in f.schema.arguments.flat()[1:]))


def _args(name, other_shape, dtype="float32", seed=1):
    """(args after self, kwargs) as NumPy arrays (tensors) or numbers: every required
    argument and every optional tensor; the other optional arguments keep their default."""
    rng = np.random.default_rng(seed)
    args, kwargs = [], {}
    schema_args = DERIVED[name].schema.arguments
    for a in schema_args.flat()[1:]:
        t = str(a.type)
        if t.startswith("Tensor"):
            value = rng.uniform(0.1, 0.9, other_shape).astype(dtype)
        elif a.default is None and t in ("Scalar", "int"):
            value = 2 if t == "Scalar" else 1
        else:
            continue
        if a in schema_args.kwarg_only:
            kwargs[a.name] = value
        else:
            args.append(value)
    return args, kwargs


def _on(side, x, device="cpu"):
    lib = ember if side == "ember" else torch
    return lib.from_numpy(x.copy()).to(device) if isinstance(x, np.ndarray) else x


def _run(name, side, self_np, args, transpose=False, device="cpu"):
    """(self after the call, the call's result) or the exception it raised."""
    lib = ember if side == "ember" else torch
    self = _on(side, self_np, device)
    if transpose:
        self = self.t()
    args, kwargs = args
    try:
        r = aten_op(lib.ops.aten, name)(self, *(_on(side, a, device) for a in args),
                                        **{k: _on(side, v, device) for k, v in kwargs.items()})
    except Exception as e:      # noqa: BLE001 - compared with torch's below
        return e
    return self, r


def _compare(name, self_np, args, transpose=False, device="cpu"):
    e, t = (_run(name, side, self_np, args, transpose, device) for side in ("ember", "torch"))
    if isinstance(t, Exception):
        assert isinstance(e, Exception), f"{name}: torch raised {t!r}, ember returned"
        assert type(e) is type(t) and str(e) == str(t), (name, e, t)
        return "raised"
    assert not isinstance(e, Exception), f"{name}: ember raised {e!r}, torch did not"
    (es, er), (ts, _) = e, t
    assert er is es, f"{name} must return self"
    assert (tuple(es.shape), es.stride(), str(es.dtype)[6:]) == \
        (tuple(ts.shape), ts.stride(), str(ts.dtype)[6:]), name
    if device == "cpu":
        np.testing.assert_allclose(es.numpy().astype(np.float64), ts.numpy().astype(np.float64),
                                   rtol=1e-6, atol=1e-6, err_msg=name)
    return "ok"


def _float_self(shape, seed=0, name=None):
    """self's data: floats in (0.1, 0.9), or integers for ops without float kernels."""
    a = np.random.default_rng(seed).uniform(0.1, 0.9, shape)
    return np.asarray(a * 10, np.int64) if name in INTEGRAL_ONLY else np.asarray(a, np.float32)


def test_derived_ops_found():
    assert {"exp2_.default", "neg_.default", "eq_.Tensor", "pow_.Scalar"} <= set(DERIVED)
    assert all(f.dispatch == (("CompositeExplicitAutograd", "@autogen_inplace"),)
               for f in DERIVED.values())


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("name", sorted(DERIVED))
def test_values(name, device):
    assert _compare(name, _float_self((2, 3), name=name), _args(name, (3,)), device=device) == "ok"


@pytest.mark.parametrize("name", sorted(DERIVED))
def test_transposed_and_0d_self(name):
    assert _compare(name, _float_self((3, 3), name=name), _args(name, (3,)),
                    transpose=True) == "ok"
    assert _compare(name, _float_self((), name=name), _args(name, ())) == \
        ("raised" if name in NOT_0D else "ok")


@pytest.mark.parametrize("name", sorted(DERIVED))
def test_int_self(name):
    """An int64 self: torch's cast error where the functional promotes (float ops, a float
    other), else torch's values."""
    ints = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    _compare(name, ints, _args(name, (3,)))


def test_int_self_cast_error():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        ember.tensor([1, 2]).sqrt_()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        ember.tensor([1, 2]).fmod_(ember.tensor([1.5, 2.5]))


@pytest.mark.parametrize("name", BINARY)
def test_broadcast_shape_error(name):
    """The other operand broadcasts self to a bigger shape: torch's shape error (checked
    before the kernel's own dtype checks, also for bool and int selves)."""
    for dtype in ("float32", "bool", "int64"):
        self_np = _float_self((3,)).astype(dtype)
        assert _compare(name, self_np, _args(name, (2, 3), dtype)) == "raised"
    err = _run(name, "ember", _float_self((3,)), _args(name, (2, 3)))
    assert str(err) == "output with shape [3] doesn't match the broadcast shape [2, 3]"


def test_self_aliasing_other_full_overlap():
    """`x.op_(x)`: the functional reads x before the result is written."""
    for lib in (ember, torch):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        x.atan2_(x)
        assert x.flatten().tolist() == pytest.approx([0.7853982] * 4)


def test_version_counter_and_saved_tensor_error():
    results = []
    for lib in (ember, torch):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        y = x.sigmoid()               # saves its result
        v = y._version
        y.exp2_()
        assert y._version == v + 1
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
            y.sum().backward()
        results.append(str(info.value).replace("ember.", "torch."))
    assert results[0] == results[1]


def test_autograd_through_derived_op():
    grads = []
    for lib in (ember, torch):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        y = x * 2
        y.exp2_().sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == pytest.approx(grads[1])
