"""ember.explain: the dispatch path it reports is the one that ran (keys, kernels with
file:line, schema with its YAML line, autocast policy), the Backward node and what it
saved, the meta result; compared with torch where torch has the same notion."""
import linecache
import re
from pathlib import Path

import pytest

import ember
from ember.dispatch import observers
from ember.library import Library

torch = pytest.importorskip("torch")
ROOT = Path(ember.__file__).resolve().parents[1]


def line_at(loc):
    path, line = loc.rsplit(":", 1)
    return linecache.getline(str(ROOT / path), int(line))


def kernel_steps(call):
    return [s for s in call.steps if s.kernel != "fallthrough"]


def check_sources(ex):
    """Every kernel's file:line is its `def` (or the lambda's line); schema lines are the
    YAML entries."""
    for call in ex.ops():
        assert line_at(call.schema_loc).strip() == f"- func: {call.schema}"
        for s in kernel_steps(call):
            assert re.search(r"\bdef\b|\blambda\b", line_at(s.source)), s


def test_add_with_grad():
    x = ember.ones(2, requires_grad=True)
    ex = ember.explain(ember.add, x, 1.5)
    call, = ex.calls
    assert call.op == "aten::add.Tensor"
    assert call.keyset == ["Autograd", "ADInplaceOrView", "CPU"]
    assert [(s.key, s.kernel) for s in call.steps][:2] == [("Autograd", "_ag_add_Tensor"),
                                                          ("ADInplaceOrView", "fallthrough")]
    assert call.steps[-1].key == "CPU" and call.steps[-1].source.startswith("kernels/cpu/")
    assert call.steps[0].source.startswith("generated/autograd.py:")
    check_sources(ex)
    t = torch.ones(2, requires_grad=True) + 1.5
    assert ex.backward.node == t.grad_fn.name() == "AddBackward0"
    assert ex.backward.saved == {"self_dtype": "ember.float32", "self_shape": "shape [2]"}
    assert "schema/derivatives.yaml:" in ex.backward.formula
    assert ex.meta == "Tensor[2] float32 meta stride=(1,) requires_grad"
    assert ex.result.tolist() == t.tolist()
    text = str(ex)
    for part in ("aten::add.Tensor", "keyset: Autograd, ADInplaceOrView, CPU", "AddBackward0",
                 "ADInplaceOrView  fallthrough", "meta result:", "grad mode: on"):
        assert part in text
    assert repr(ex) == text


def test_saved_tensors_versus_shapes():
    x = ember.ones(2, 3, requires_grad=True)
    ex = ember.explain(ember.ops.aten.mul.Tensor, x, x)
    tx = torch.ones(2, 3, requires_grad=True)
    assert ex.backward.node == (tx * tx).grad_fn.name()
    assert ex.backward.saved["self"].startswith("tensor Tensor[2, 3] float32")
    assert ex.backward.saved["self_shape"] == "shape [2, 3]"
    assert ex.calls[0].op == "aten::mul.Tensor"


def test_no_grad_records_no_node_and_skips_autograd():
    x = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        ex = ember.explain(ember.add, x, x)
    assert ex.backward is None and "backward: no node recorded" in str(ex)
    assert not ex.grad_mode
    # Autograd still runs (no_grad is a flag its kernel reads), it records nothing
    assert ex.calls[0].steps[0].key == "Autograd"


def test_linear_under_autocast_and_grad():
    x, w = ember.ones(4, 2), ember.ones(3, 2, requires_grad=True)
    tx, tw = torch.ones(4, 2), torch.ones(3, 2, requires_grad=True)
    with ember.autocast("cpu"):
        ex = ember.explain(ember.nn.functional.linear, x, w)
    with torch.autocast("cpu"):
        t = torch.nn.functional.linear(tx, tw)
    top = ex.calls[0]
    assert top.op == "aten::linear"
    assert top.keyset[0] == "AutocastCPU"
    assert top.autocast["cpu"] == "lower_precision_fp"
    assert top.steps[0].key == "AutocastCPU" and "cpu.lower_precision_fp: linear" in top.steps[0].entry
    assert top.steps[0].source.startswith("generated/autocast.py:")
    assert top.steps[1].key == "Autograd" and top.steps[1].source.startswith("kernels/composite/")
    nested = [c.op for c in top.calls]
    assert "aten::t" in nested and "aten::matmul" in nested
    check_sources(ex)
    assert str(ex.result.dtype) == "ember.bfloat16" and t.dtype == torch.bfloat16
    assert ex.backward.node == t.grad_fn.name()
    assert "autocast: cpu" in str(ex)
    assert "not meta ones" in ex.meta          # the meta call is not cast: said so


def test_custom_op_under_autocast_and_grad():
    lib = Library("explaintest", "DEF")
    try:
        lib.define("scale(Tensor x, float factor=2.0) -> Tensor")
        lib.impl("scale", lambda x, f: x * f, "CompositeImplicitAutograd")
        op = ember.ops.explaintest.scale.default
        x = ember.ones(3, requires_grad=True)
        with ember.autocast("cpu"):
            ex = ember.explain(op, x, 3.0)
    finally:
        lib._destroy()
    top = ex.calls[0]
    assert top.op == "explaintest::scale" and top.autocast == {}
    assert top.keyset == ["AutocastCPU", "Autograd", "ADInplaceOrView", "CPU"]
    assert [(s.key, s.kernel) for s in top.steps] == [
        ("AutocastCPU", "fallthrough"),
        ("Autograd", "test_custom_op_under_autocast_and_grad.<locals>.<lambda>")]
    assert top.steps[1].source.startswith("tests/profiler/test_explain.py:")
    assert [c.op for c in top.calls] == ["aten::mul.Tensor"]       # torch's x * 3.0 too
    assert ex.backward.node == (torch.ones(3, requires_grad=True) * 3.0).grad_fn.name()
    assert ex.result.tolist() == [3.0, 3.0, 3.0]


def test_explain_leaves_no_observer_behind_even_on_error():
    with pytest.raises(RuntimeError):
        ember.explain(ember.add, ember.ones(2), ember.ones(3))
    assert observers.active is None and observers.step_hooks == []
    with ember.profiler.profile() as p:        # a running profiler keeps its events
        ember.explain(ember.neg, ember.ones(2))
        ember.ones(2)
    assert [e.name for e in p.events()] == ["aten::ones", "aten::ones"]


def test_meta_unavailable_is_reported_not_raised():
    lib = Library("explaintest2", "DEF")
    try:
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", lambda x: ember.from_numpy(x.numpy() * 2), "CPU")
        ex = ember.explain(ember.ops.explaintest2.twice.default, ember.ones(2))
    finally:
        lib._destroy()
    assert ex.meta.startswith("unavailable (NotImplementedError")
    assert ex.result.tolist() == [2.0, 2.0]
