"""The array-level backward formulas (ember/autograd/array_formulas.py, generated into each
Node's `_apply_array`) give the ember-op formulas' results bit for bit.

For every gradient sample of tests/autograd/test_op_gradients.py (float32, and float64)
whose node has an array version, the node runs both ways on the same random gradients:
each result must be the same (None, the incoming gradient itself, or a tensor of the
same dtype, shape, strides and bytes). Then the engine: it takes the array versions only
when nothing can observe the formulas' ops.
"""
from __future__ import annotations

import numpy as np
import pytest
from test_op_gradients import CASES, DIFFERENTIABLE, differentiable, make_leaves, run

import ember
from ember.autograd import array_formulas
from ember.autograd.graph import Node

torch = pytest.importorskip("torch")   # (the samples' module compares with torch)


class _FellBack(Exception):
    pass


def _has_array_version(node) -> bool:
    return "_apply_array" in type(node).__dict__


def _node_and_grads(case, dtype):
    """The op's node for the sample and random gradients for its outputs (None for the
    outputs that are not differentiable); None when the sample has no node to check."""
    leaves = make_leaves(case.arrays, "ember", dtype)
    try:
        outs = run(case, leaves, "ember")
    except (RuntimeError, TypeError, ValueError, IndexError, NotImplementedError):
        return None
    diff = differentiable(outs)
    if not diff or diff[0].grad_fn is None or not _has_array_version(diff[0].grad_fn):
        return None
    node = diff[0].grad_fn
    rng = np.random.default_rng(0)
    grads = [None] * len(node._out_meta)
    for o in diff:
        if o.grad_fn is node:
            a = rng.standard_normal(tuple(o.shape)).astype(o.dtype.np)
            grads[o._ag.output_nr] = ember.from_numpy(a)
    return node, grads, leaves


def _array_apply(node, grads):
    """node._apply_array(grads), or _FellBack when it ran the ember-op version."""
    cls = type(node)

    def fell_back(self, g, _saved=None):
        raise _FellBack
    original = cls.apply
    cls.apply = fell_back
    try:
        return node._apply_array(grads)
    finally:
        cls.apply = original


def _same(e, a, grads, what):
    assert (e is None) == (a is None), what
    if e is None:
        return
    for g in grads:
        assert (e is g) == (a is g), f"{what}: the incoming gradient itself on one side only"
    assert e.dtype is a.dtype, f"{what}: dtype {e.dtype} vs {a.dtype}"
    assert e.shape == a.shape, f"{what}: shape {e.shape} vs {a.shape}"
    assert e.stride() == a.stride(), f"{what}: strides {e.stride()} vs {a.stride()}"
    # a view of an incoming gradient (cat's, stack's backward) on both sides, the same one
    bases = [g if g._base is None else g._base for g in grads if g is not None]
    if any(e._base is b or a._base is b for b in bases):
        assert e._base is a._base, f"{what}: the view's base {e._base} vs {a._base}"
        assert e.storage_offset() == a.storage_offset(), f"{what}: storage offset"
    assert np.ascontiguousarray(e._np).tobytes() == np.ascontiguousarray(a._np).tobytes(), \
        f"{what}: values {e._np} vs {a._np}"


PARAMS = [pytest.param(name, case, id=f"{name}-{case.sample.name or i}")
          for name in DIFFERENTIABLE for i, case in enumerate(CASES[name])]


@pytest.mark.parametrize("name,case", PARAMS)
def test_array_formulas_match_ember_formulas(name, case):
    for dtype in (None, "float64"):
        found = _node_and_grads(case, dtype)
        if found is None:
            continue
        node, grads, _ = found
        with ember.no_grad():
            try:
                expected = node.apply(grads)
            except Exception as e:  # noqa: BLE001  (the array version must raise it too)
                with pytest.raises(type(e)):
                    _array_apply(node, grads)
                continue
            try:
                got = _array_apply(node, grads)
            except _FellBack:
                continue
        assert len(got) == len(expected)
        for i, (e, a) in enumerate(zip(expected, got)):
            _same(e, a, grads, f"{type(node).__name__} ({dtype or 'float32'}) input {i}")


def test_array_versions_ran():
    """The comparisons above were not all fallbacks: the nodes of the training steps'
    ops ran their array versions."""
    for name in ("addmm.default", "mm.default", "bmm.default", "mul.Tensor", "add.Tensor",
                 "sub.Tensor", "neg.default", "expand.default",
                 # list inputs and outputs
                 "cat.default", "stack.default", "split.Tensor", "split_with_sizes.default",
                 "unbind.int"):
        ran = 0
        for case in CASES[name]:
            found = _node_and_grads(case, None)
            if found is None:
                continue
            node, grads, _ = found
            with ember.no_grad():
                try:
                    _array_apply(node, grads)
                    ran += 1
                except _FellBack:
                    pass
        assert ran, f"{name}: no sample ran its node's array version"


def _count_array_calls(monkeypatch):
    """Counts the array versions the engine runs (of every generated node class)."""
    calls = []
    import ember._generated.autograd as generated
    for cls in vars(generated).values():
        if isinstance(cls, type) and issubclass(cls, Node) and "_apply_array" in cls.__dict__:
            def counting(self, grads, _f=cls.__dict__["_apply_array"]):
                calls.append(type(self).__name__)
                return _f(self, grads)
            monkeypatch.setattr(cls, "_apply_array", counting)
    return calls


def _mlp_step(lib, create_graph=False):
    rng = np.random.default_rng(1)
    x = lib.from_numpy(rng.standard_normal((8, 5)).astype(np.float32))
    w = lib.from_numpy(rng.standard_normal((4, 5)).astype(np.float32)).requires_grad_()
    b = lib.from_numpy(rng.standard_normal(4).astype(np.float32)).requires_grad_()
    t = lib.from_numpy(np.arange(8) % 4)
    loss = lib.nn.functional.cross_entropy(lib.relu(lib.nn.functional.linear(x, w, b)), t)
    loss.backward(create_graph=create_graph)
    return w.grad, b.grad


def test_engine_runs_array_versions_when_unobserved(monkeypatch):
    calls = _count_array_calls(monkeypatch)
    e_grads = _mlp_step(ember)
    assert calls.count("AddmmBackward0") == 1
    for e, t in zip(e_grads, _mlp_step(torch)):
        assert e.stride() == t.stride() and e.dtype.name == str(t.dtype)[6:]
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
@pytest.mark.parametrize("observer", ["create_graph", "dispatch_mode", "anomaly", "profiler",
                                      "disabled", "node_hook"])
def test_engine_runs_ember_formulas_when_observed(monkeypatch, observer):
    """create_graph, a dispatch mode, anomaly mode, the profiler, a hook on the node (or
    array_formulas.ENABLED = False): the ember-op formulas run, with the same gradients."""
    from ember.utils._python_dispatch import TorchDispatchMode
    expected = [g.numpy().copy() for g in _mlp_step(ember)]
    calls = _count_array_calls(monkeypatch)
    seen = []

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))
    if observer == "create_graph":
        grads = _mlp_step(ember, create_graph=True)
    elif observer == "dispatch_mode":
        with Recorder():
            grads = _mlp_step(ember)
        assert any("mm" in s for s in seen)
    elif observer == "anomaly":
        with ember.autograd.detect_anomaly():
            grads = _mlp_step(ember)
    elif observer == "profiler":
        with ember.profiler.profile():
            grads = _mlp_step(ember)
    elif observer == "disabled":
        monkeypatch.setattr(array_formulas, "ENABLED", False)
        grads = _mlp_step(ember)
    else:
        x = ember.ones(3, requires_grad=True)
        y = x * 2
        y.grad_fn.register_prehook(lambda g: None)
        y.sum().backward()
        assert "MulBackward1" not in calls and x.grad.tolist() == [2.0, 2.0, 2.0]
        return
    assert calls == []
    for g, e in zip(grads, expected):
        np.testing.assert_array_equal(g.detach().numpy(), e)


def test_fallback_for_other_dtypes():
    """float16 (and complex) tensors fall back to the ember-op formulas: same gradients as
    torch's."""
    for dt in ("float16", "complex64"):
        x = ember.ones(2, 3, dtype=getattr(ember, dt), requires_grad=True)
        (x * x).abs().sum().backward()
        tx = torch.ones(2, 3, dtype=getattr(torch, dt), requires_grad=True)
        (tx * tx).abs().sum().backward()
        assert x.grad.dtype.name == dt
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


def test_a_view_result_is_not_an_alias():
    """A gradient that would alias the incoming one (a reshape) comes from the ember-op
    formula: the leaf's .grad is never the memory of another gradient."""
    a = ember.ones(2, 3, requires_grad=True)
    b = ember.ones(2, 3, requires_grad=True)
    y = a + b
    y.sum().backward()
    assert a.grad.data_ptr() != b.grad.data_ptr()
    a.grad.add_(1)
    assert b.grad.tolist() == [[1.0] * 3] * 2


def test_narrowing_gradient_overflows_silently():
    """A float64 gradient too large for a float32 input becomes inf without a NumPy warning
    (the ember ops' cast is silent too), like torch's."""
    import warnings
    x = ember.ones(2, requires_grad=True)
    y = ember.full((2,), 1e300, dtype=ember.float64)
    tx = torch.ones(2, requires_grad=True)
    ty = torch.full((2,), 1e300, dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (x * y).sum().backward()
    (tx * ty).sum().backward()
    assert x.grad.dtype is ember.float32
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


def test_codegen_translates_only_what_the_table_covers():
    """codegen's translation: calls and methods become array_formulas functions; anything
    outside the table (`**`, a comparison, an unknown op) or an aliasing result (a view)
    keeps only the ember-op version."""
    import ast

    from codegen.derivatives import ArrayTable, _to_array
    table = ArrayTable(frozenset({"mm", "t", "conj", "mul", "neg", "reduce_to"}),
                       frozenset({"t", "conj"}))

    def translate(code):
        return _to_array(ast.parse(code, mode="eval").body, table)
    assert translate("grad.mm(mat2.t().conj())") == "_A.mm(grad, _A.conj(_A.t(mat2)))"
    assert translate("_H.reduce_to(-grad * other, shape, dtype)") == \
        "_A.reduce_to(_A.mul(_A.neg(grad), other), shape, dtype)"
    assert translate("-2 * grad") == "_A.mul(-2, grad)"
    for untranslatable in ("grad.t()", "grad ** 2", "_F.exp(grad)", "grad * (self > 0)",
                           "grad.dtype", "[g for g in grads]"):
        assert translate(untranslatable) is None, untranslatable


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_summed_into_one_input_both_ways(monkeypatch, dtype):
    """Two gradients for one input: the engine adds them with NumPy when unobserved (the
    add kernel's np.add), with the ember op otherwise; the same bits, torch's values.
    Also the transposed (non-C-contiguous) case, which takes the op."""
    def run(lib):
        rng = np.random.default_rng(2)
        x = lib.tensor(rng.standard_normal((3, 4)), dtype=getattr(lib, dtype), requires_grad=True)
        w = lib.tensor(rng.standard_normal((4, 4)), dtype=getattr(lib, dtype))
        y = x.sigmoid()
        (y * y.tanh() + y.mm(w) + y.t().t().exp()).sum().backward()
        return x.grad
    fast = run(ember).numpy().copy()
    monkeypatch.setattr(array_formulas, "ENABLED", False)
    slow = run(ember)
    assert slow.stride() == (4, 1)
    np.testing.assert_array_equal(fast, slow.numpy())
    np.testing.assert_allclose(fast, run(torch).numpy(), rtol=1e-6)


@pytest.mark.parametrize("observer", [None, "dispatch_mode", "slow"])
def test_grad_accumulated_into_existing_grad(monkeypatch, observer):
    """A second backward adds into `.grad` in place: with NumPy's add when unobserved, with
    add_ otherwise (a dispatch mode sees it); same bits, version counter, identity, torch's."""
    from ember.autograd import accumulate
    from ember.utils._python_dispatch import TorchDispatchMode
    seen = []

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))
    if observer == "slow":
        monkeypatch.setattr(accumulate, "_add_unobserved", lambda old, g: False)

    def run(lib, mode=None):
        rng = np.random.default_rng(3)
        w = lib.tensor(rng.standard_normal((3, 4)), dtype=lib.float32, requires_grad=True)
        x = lib.tensor(rng.standard_normal((5, 3)), dtype=lib.float32)
        (x @ w).tanh().sum().backward()
        first = w.grad
        if mode is not None:
            with mode:
                (x @ w).sin().sum().backward()
        else:
            (x @ w).sin().sum().backward()
        assert w.grad is first
        return w.grad
    e = run(ember, Recorder() if observer == "dispatch_mode" else None)
    t = run(torch)
    assert e._version == t._version
    if observer == "dispatch_mode":
        assert "aten.add_.Tensor" in seen
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)
    monkeypatch.setattr(accumulate, "_add_unobserved", lambda old, g: False)
    np.testing.assert_array_equal(e.numpy(), run(ember).numpy())


def test_materialized_zeros_for_unused_outputs(monkeypatch):
    """A multi-output node whose other outputs got no gradient (layer_norm's mean/rstd, an
    unused chunk) takes zeros made from NumPy's when unobserved, ember.zeros otherwise (a
    dispatch mode sees them): the same gradients both ways, torch's values."""
    def run(lib):
        rng = np.random.default_rng(5)
        x = lib.tensor(rng.standard_normal((4, 6)), dtype=lib.float32, requires_grad=True)
        a, _unused, c = lib.nn.functional.layer_norm(x, (6,)).split(2, 1)
        (a * c.exp()).sum().backward()
        return x.grad
    fast = run(ember).numpy().copy()
    monkeypatch.setattr(array_formulas, "ENABLED", False)
    np.testing.assert_array_equal(fast, run(ember).numpy())
    np.testing.assert_allclose(fast, run(torch).numpy(), rtol=1e-5, atol=1e-6)
