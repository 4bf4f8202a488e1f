"""Every decomposition in ember._decomp computes its op: on the op's samples
(tests/ops), the same values (float tolerance), dtype and shape, and the same gradients
(float64 samples); the table's API and make_fx with it, next to torch._decomp."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))
from opinfo import OPS
from test_schema_ops import call, outputs, sample_args

import ember
from ember._decomp import (
    core_aten_decompositions,
    decomposition_table,
    get_decompositions,
    register_decomposition,
)
from ember.fx.experimental.proxy_tensor import make_fx

torch = pytest.importorskip("torch")
core_aten_decompositions()          # (loads the table)
TABLE = dict(decomposition_table)


def _name(op):
    return f"{op.name}.{op.overload_name}"




def _close(a, b, what, inputs=()):
    """Same dtype and shape, close values (half-precision inputs: the op and its
    decomposition may round at different steps)."""
    assert a.dtype == b.dtype, f"{what}: dtype {a.dtype} vs {b.dtype}"
    assert a.shape == b.shape, f"{what}: shape {a.shape} vs {b.shape}"
    x, y = a.detach().float().numpy(force=True), b.detach().float().numpy(force=True)
    dts = {a.dtype, *(t.dtype for t in inputs if isinstance(t, ember.Tensor))}
    # bfloat16 keeps 8 bits: a few roundings apart (cancellation in softmax's backward)
    # differ by several of its ulps
    tol = 5e-2 if ember.bfloat16 in dts else 1e-2 if ember.float16 in dts else 1e-5
    np.testing.assert_allclose(x, y, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("op", sorted(TABLE, key=_name), ids=_name)
def test_decomposition_computes_its_op(op):
    info = OPS[_name(op)]
    decomp = TABLE[op]
    checked = 0
    for sample in info.samples():
        args, kwargs = sample_args(sample, "ember")
        want, exc = call(op, args, kwargs)
        if exc is not None:
            continue
        args, kwargs = sample_args(sample, "ember")
        got, d_exc = call(decomp, args, kwargs)
        assert d_exc is None, f"{sample.name}: the decomposition raised {d_exc!r}"
        for w, g in zip(outputs(want), outputs(got)):
            _close(g, w, f"{_name(op)}[{sample.name}]", [*args, *kwargs.values()])
        checked += 1
    assert checked, "no sample runs"


def _float64_leaves(args):
    return [a for a in args if isinstance(a, ember.Tensor) and a.dtype == ember.float64]


@pytest.mark.parametrize("op", sorted(TABLE, key=_name), ids=_name)
def test_decomposition_has_its_op_gradients(op):
    info = OPS[_name(op)]
    decomp = TABLE[op]
    for sample in info.samples():
        grads = []
        inputs = []
        for fn in (op, decomp):
            args, kwargs = sample_args(sample, "ember")
            inputs = [*args, *kwargs.values()]
            leaves = _float64_leaves(args)
            if not leaves:
                break
            for leaf in leaves:
                leaf.requires_grad_(True)
            out, exc = call(fn, args, kwargs)
            if exc is not None:
                break
            total = sum(o.sum() for o in outputs(out) if o.requires_grad)
            if not isinstance(total, ember.Tensor):
                break
            g, exc = call(ember.autograd.grad, (total, leaves), {"allow_unused": True})
            if exc is not None:      # the op has no derivative: nothing to compare
                break
            grads.append(g)
        if len(grads) == 2:
            for w, g in zip(*grads):
                if w is not None and g is not None:
                    _close(g, w, f"grad of {_name(op)}[{sample.name}]", inputs)


def test_table_api_like_torch():
    aten = ember.ops.aten
    assert get_decompositions([aten.silu]) == {aten.silu.default: TABLE[aten.silu.default]}
    assert set(get_decompositions([aten.clamp_min])) == {aten.clamp_min.default,
                                                        aten.clamp_min.Tensor}
    assert aten.add.Tensor not in decomposition_table
    registry = {}

    @register_decomposition(aten.neg.default, registry)
    def my_neg(x):
        return aten.mul.Tensor(x, -1)
    assert registry == {aten.neg.default: my_neg} and aten.neg.default not in decomposition_table
    with pytest.raises(RuntimeError, match="duplicate"):
        register_decomposition(aten.silu.default)(lambda x: x)
    t_names = {str(o) for o in torch._decomp.core_aten_decompositions()}
    missing = {str(o) for o in core_aten_decompositions()} - t_names
    assert not missing, f"decomposed here but not by torch's core table: {missing}"


def test_make_fx_with_the_table_reaches_core_ops():
    def f(x, y):
        return (ember.nn.functional.silu(x).clamp_min(0.1).lerp(y, 0.3)).logsumexp(0)
    x, y = ember.randn(4, 3), ember.randn(4, 3)
    gm = make_fx(f, decomposition_table=core_aten_decompositions())(x, y)
    ops = {n.target for n in gm.graph.nodes if n.op == "call_function"}
    assert all("core" in op.tags or op.name in ("squeeze", "full_like", "scalar_tensor")
               for op in ops), ops
    assert ember.allclose(gm(x, y), f(x, y), atol=1e-6)



@pytest.mark.parametrize("name,args,kwargs", [
    ("exp2.default", (), {}), ("addcmul.default", ("z", "z"), {"value": 2j}),
    ("logsumexp.default", ([1],), {})])
def test_decompositions_keep_complex_inputs_complex(name, args, kwargs):
    """A complex self is not cast to the default float dtype (nor its value to int), as torch."""
    torch = pytest.importorskip("torch")
    z = np.array([[1 + 1j, 2 - 1j, -0.5j]], np.complex64)
    packet, overload = name.split(".")
    want = getattr(getattr(torch.ops.aten, packet), overload)(
        torch.tensor(z), *(torch.tensor(z) if a == "z" else a for a in args), **kwargs)
    op = getattr(getattr(ember.ops.aten, packet), overload)
    got = decomposition_table[op](ember.tensor(z), *(ember.tensor(z) if a == "z" else a
                                                     for a in args), **kwargs)
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)
