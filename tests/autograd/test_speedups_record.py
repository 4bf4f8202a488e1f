"""ember/_speedups_record.c against its Python twins (ember/autograd/graph.py's py_*): the
recording helpers give the same edges, nodes, saved tensors and histories, and hand the rare
cases (numbers, stale views, first AccumulateGrad, anomaly mode, hooks, dispatch modes,
inference tensors, integral outputs) to the twins with the same results and errors."""
from __future__ import annotations

import pytest

import ember
from ember._accel import speedups
from ember.autograd import graph as G
from ember.utils._python_dispatch import TorchDispatchMode

needs_c = pytest.mark.skipif(speedups is None, reason="ember._speedups is not built")
Mul = type((ember.ones(1, requires_grad=True) * 2).grad_fn)
Sum = type(ember.ones(1, requires_grad=True).sum().grad_fn)


def edge_cases():
    leaf = ember.ones(3, requires_grad=True)
    fresh_leaf = ember.ones(3, requires_grad=True)   # no AccumulateGrad yet
    nonleaf = leaf * 2
    base = ember.ones(4, requires_grad=True) * 1
    view = base[1:]
    stale = base[:2]
    base.add_(1)                                     # stale's grad_fn is regenerated
    return {"leaf": leaf, "fresh leaf": fresh_leaf, "non-leaf": nonleaf, "view": view,
            "stale view": stale, "no grad": ember.ones(2), "number": 2.5, "None": None,
            "parameter": ember.nn.Parameter(ember.ones(2)),
            "second output": ember.ones(3, 4, requires_grad=True).max(1)[0]}


def same_edge(x, y):
    if x is None or y is None:
        assert x is y
    else:
        assert len(x) == 2 and x[0] is y[0] and x[1] == y[1]


@needs_c
@pytest.mark.parametrize("case", list(edge_cases()))
def test_gradient_edge_matches_python(case):
    t = edge_cases()[case]
    got = speedups.gradient_edge(t)
    same_edge(got, G.py_gradient_edge(t))
    if case == "fresh leaf":            # made once, then found by both
        assert got[0] is t._ag.grad_acc
    if case == "stale view":
        assert got[0].name() == "AsStridedBackward0"


@needs_c
def test_new_node_matches_python():
    e = (None, 0)
    c, p = speedups.new_node(Mul, (e, e), (True, False)), G.py_new_node(Mul, (e, e), (True, False))
    assert type(c) is type(p) is Mul
    assert c.next_functions == p.next_functions and c._needs == p._needs
    assert c._extra is None and p._extra is None and p._seq == c._seq + 1
    with pytest.raises(TypeError, match="new_node"):
        speedups.new_node(Mul, (e,))


@needs_c
def test_new_node_in_anomaly_mode_records_the_stack():
    with pytest.warns(UserWarning, match="Anomaly Detection"), ember.autograd.detect_anomaly():
        node = speedups.new_node(Mul, ((None, 0),), (True,))
    assert node._extra is not None and node._extra.trace


def saved_fields(s):
    return (type(s), s.data is None, s.version, s.output_nr)


@needs_c
def test_save_matches_python():
    x = ember.ones(3, requires_grad=True)
    y = ember.ones(2)
    y.untyped_storage()._version = 5
    for t in (x, y, ember.nn.Parameter(ember.ones(2))):
        c, p = speedups.save(t), G.py_save(t)
        assert saved_fields(c) == saved_fields(p) and c.data is t and p.data is t
    for number in (None, 3, 2.5):
        assert speedups.save(number) is number
    with ember.inference_mode():
        inf = ember.ones(2)
    with pytest.raises(RuntimeError) as c_err:
        speedups.save(inf)
    with pytest.raises(RuntimeError) as p_err:
        G.py_save(inf)
    assert str(c_err.value) == str(p_err.value)


@needs_c
@pytest.mark.parametrize("nr", [0, 2])
def test_save_output_matches_python(nr):
    for make in (lambda: ember.ones(3) * 2, lambda: ember.ones(4)[1:],
                 lambda: ember.ones(3, requires_grad=True) * 2):
        t = make()
        c = speedups.save_output(t, nr)
        u = make()
        p = G.py_save_output(u, nr)
        assert saved_fields(c) == saved_fields(p)
        d = c.data
        assert d is not t and d.untyped_storage() is t.untyped_storage()
        assert d.grad_fn is None and not d.requires_grad and d._base is None
        assert d.shape == t.shape and d.stride() == t.stride() and d.dtype == t.dtype
        assert d._ks == p.data._ks
        t.add_(1)                       # the copy shares the version counter
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            c.unpack(None)


@needs_c
def test_save_output_leaves_modes_and_hooks_to_python():
    seen = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    t = ember.ones(2) * 3
    with Record():
        speedups.save_output(t, 0)
    assert any("detach" in s for s in seen)
    with ember.autograd.graph.saved_tensors_hooks(lambda x: ("packed", x), lambda p: p[1]):
        s = speedups.save_output(t, 0)
    assert type(s).__name__ == "_HookedSavedTensor"


@needs_c
def test_set_history_one_matches_python():
    x = ember.ones(3, requires_grad=True)
    for make in (lambda: ember.ones(3) * 2, lambda: (ember.ones(4) * 1)[1:]):
        node_c = speedups.new_node(Mul, ((None, 0),), (True,))
        node_p = G.py_new_node(Mul, ((None, 0),), (True,))
        c, p = make(), make()
        assert speedups.set_history_one(c, node_c) is None
        G.py_set_history_one(p, node_p)
        assert c.grad_fn is node_c and p.grad_fn is node_p and c._ks == p._ks
        assert node_c._out_meta == node_p._out_meta
        assert c._ag.output_nr == p._ag.output_nr == 0
        assert c._ag.attr_version == p._ag.attr_version
    # a tensor that already has history (an in-place op's output) is rebased
    t = x * 1
    node = speedups.new_node(Mul, ((None, 0),), (True,))
    speedups.set_history_one(t, node)
    assert t.grad_fn is node
    # integral outputs: nothing recorded, or torch's refusal
    i = ember.ones(3, dtype=ember.int64)
    speedups.set_history_one(i, speedups.new_node(Mul, ((None, 0),), (True,)))
    assert i.grad_fn is None
    with pytest.raises(RuntimeError, match="Autograd not support dtype: Long"):
        speedups.set_history_one(ember.ones(3, dtype=ember.int64),
                                 speedups.new_node(Sum, ((None, 0),), (True,)))


def test_graphs_are_the_same_with_and_without_c(monkeypatch):
    """A small model's graph and gradients, with the C helpers and with the twins."""
    def run():
        ember.manual_seed(0)
        w = ember.randn(4, 3, requires_grad=True)
        b = ember.randn(4, requires_grad=True)
        x = ember.randn(5, 3)
        y = ember.nn.functional.linear(x, w, b).tanh().relu()
        loss = y.log_softmax(1)[:, 0].sum()
        loss.backward()
        names, stack = [], [loss.grad_fn]
        while stack:
            n = stack.pop()
            names.append(n.name())
            stack.extend(f for f, _ in n.next_functions if f is not None)
        return names, w.grad.numpy().tobytes(), b.grad.numpy().tobytes()

    with_c = run()
    for name in ("gradient_edge", "new_node", "save", "save_output", "set_history_one"):
        monkeypatch.setattr(G, name, getattr(G, "py_" + name))
    import ember._generated.autograd as AG
    for alias, name in (("_edge", "gradient_edge"), ("_new_node", "new_node"), ("_save", "save"),
                        ("_save_output", "save_output"), ("_set_history_one", "set_history_one")):
        monkeypatch.setattr(AG, alias, getattr(G, "py_" + name))
    assert run() == with_c
