"""make_fx against torch's make_fx: the aten ops recorded for forward and forward+backward
programs, constants, decompositions, and the graph re-run against eager."""
from __future__ import annotations

import collections
import importlib

import numpy as np
import pytest

import ember
from ember.fx.experimental.proxy_tensor import make_fx

torch = pytest.importorskip("torch")
LIBS = {"ember": ember, "torch": torch}


def _make_fx(lib):
    return importlib.import_module(f"{lib.__name__}.fx.experimental.proxy_tensor").make_fx


def _inputs(lib, grad=True):
    rng = np.random.default_rng(0)

    def t(shape, requires_grad=False):
        return lib.tensor(rng.standard_normal(shape).astype(np.float32),
                          requires_grad=requires_grad and grad)
    return (t((4, 3)), t((5, 3), True), t((5,), True), t((2, 5), True), lib.tensor([0, 1, 1, 0]))


def mlp_forward(lib, x, w1, b1, w2, y):
    F = lib.nn.functional
    return F.log_softmax(F.linear(F.relu(F.linear(x, w1, b1)), w2).tanh(), dim=1).mean()


def mlp_step(lib, x, w1, b1, w2, y):
    F = lib.nn.functional
    h = F.relu(F.linear(x, w1, b1))
    loss = F.cross_entropy(F.linear(h, w2), y)
    return lib.autograd.grad(loss, [w1, b1, w2])


def matmul_tanh(lib, x, w1, b1, w2, y):
    return lib.tanh(x @ w1.t()) + 1


def shapes_and_views(lib, x, w1, b1, w2, y):
    z = x.unsqueeze(0).expand(2, 4, 3).reshape(8, 3)
    v, i = lib.max(z, dim=1)
    return z.sum(0), v * 2, i, x.t().contiguous()


def _ops(gm):
    return [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]


def _trace(lib, program, grad=True):
    args = _inputs(lib, grad)
    return _make_fx(lib)(lambda *a: program(lib, *a))(*args), args


@pytest.mark.parametrize("program", [mlp_forward, matmul_tanh, shapes_and_views],
                         ids=lambda p: p.__name__)
def test_forward_records_the_ops_torch_does(program):
    e_gm, e_args = _trace(ember, program)
    t_gm, _ = _trace(torch, program)
    assert _ops(e_gm) == _ops(t_gm)     # (reshape's copy: clone + _unsafe_view, as torch's)
    assert [n.name for n in e_gm.graph.nodes] == [n.name for n in t_gm.graph.nodes]
    _assert_reruns_equal(e_gm, program, e_args)


def test_printed_graph_matches_torch():
    e_gm, _ = _trace(ember, matmul_tanh)
    t_gm, _ = _trace(torch, matmul_tanh)
    assert str(e_gm.graph).replace("ember.ops.", "torch.ops.") == str(t_gm.graph)


def _assert_reruns_equal(gm, program, args):
    eager = program(ember, *args)
    graph = gm(*args)
    eager = eager if isinstance(eager, (tuple, list)) else (eager,)
    graph = graph if isinstance(graph, (tuple, list)) else (graph,)
    for a, b in zip(graph, eager, strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)


def test_training_step_is_one_forward_backward_graph():
    e_gm, e_args = _trace(ember, mlp_step)
    t_gm, t_args = _trace(torch, mlp_step)
    ignore = {"aten.detach.default", "aten.t.default", "aten.view.default"}
    e_ops = collections.Counter(op for op in _ops(e_gm) if op not in ignore)
    t_ops = collections.Counter(op for op in _ops(t_gm) if op not in ignore)
    assert e_ops == t_ops
    assert {"aten.threshold_backward.default", "aten.nll_loss_backward.default",
            "aten._log_softmax_backward_data.default"} <= set(e_ops)
    _assert_reruns_equal(e_gm, mlp_step, e_args)
    # the graph is a function of its inputs: new values give new gradients
    rng = np.random.default_rng(5)
    fresh = [ember.tensor(rng.standard_normal(a.shape).astype(np.float32),
                          requires_grad=a.requires_grad) if a.is_floating_point() else a
             for a in e_args]
    _assert_reruns_equal(e_gm, mlp_step, fresh)
    for e, t in zip(e_gm(*e_args), t_gm(*t_args), strict=True):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_backward_into_dot_grad_is_recorded():
    w = ember.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)

    def step(x):
        w.grad = None
        ember.tanh(x @ w).sum().backward()
        return w.grad
    gm = make_fx(step)(ember.ones(3, 2))
    ops = _ops(gm)
    assert "aten.tanh_backward.default" in ops and "aten.ones_like.default" in ops
    x = ember.tensor(np.arange(6, dtype=np.float32).reshape(3, 2) / 7)
    expected = step(x).clone()
    np.testing.assert_allclose(gm(x).numpy(), expected.numpy(), rtol=1e-6)


def _adds(k):
    return lambda x: x + k


def test_constants_are_lifted_like_torch():
    for lib in LIBS.values():
        gm = _make_fx(lib)(_adds(lib.tensor([1.0, 2.0])))(lib.ones(2))
        assert [(n.op, n.name) for n in gm.graph.nodes] == [
            ("placeholder", "x_1"), ("get_attr", "_tensor_constant0"),
            ("call_function", "add"), ("output", "output")]
        assert gm(lib.zeros(2)).tolist() == [1.0, 2.0]
    assert "_tensor_constant0" in dict(gm.named_buffers())


def test_in_place_ops_move_the_tensor_to_the_new_node():
    def f(x):
        y = x.clone()
        y.mul_(2)
        return y + 1
    for lib in LIBS.values():
        gm = _make_fx(lib)(f)(lib.ones(2))
        add = next(n for n in gm.graph.nodes if n.name == "add")
        assert add.args[0].name == "mul_"
        assert gm(lib.tensor([1.0, 3.0])).tolist() == [3.0, 7.0]


def test_decomposition_table_replaces_ops():
    def decompose_tanh(x):
        return (ember.exp(2 * x) - 1) / (ember.exp(2 * x) + 1)
    gm = make_fx(lambda x: ember.tanh(x) * 3,
                 decomposition_table={ember.ops.aten.tanh.default: decompose_tanh})(ember.ones(2))
    ops = _ops(gm)
    assert "aten.tanh.default" not in ops and ops.count("aten.exp.default") == 2
    x = ember.tensor([0.1, -0.7])
    np.testing.assert_allclose(gm(x).numpy(), (ember.tanh(x) * 3).numpy(), rtol=1e-6)


def test_node_meta_holds_value_metadata():
    gm, _ = _trace(ember, matmul_tanh)
    for n in gm.graph.nodes:
        if n.op in ("placeholder", "call_function") and n.name != "y_1":
            val = n.meta["val"]
            assert val.device.type == "meta"
            assert tuple(val.shape) == tuple(n.meta["tensor_meta"].shape)


def test_double_backward_reads_saved_aliases_from_the_graph():
    """Unpacking a saved output with grad mode on makes an alias without an op: it must
    map to its node, not become a constant (the graph would replay stale values)."""
    def f(x):
        (g,) = ember.autograd.grad(ember.tanh(x).sum(), [x], create_graph=True)
        return ember.autograd.grad(g.sum(), [x])[0]
    gm = make_fx(f)(ember.tensor([0.3, -1.2], requires_grad=True))
    assert not [n for n in gm.graph.nodes if n.op == "get_attr"]
    x = ember.tensor([0.7, 0.1], requires_grad=True)
    t = np.tanh(np.array([0.7, 0.1]))
    np.testing.assert_allclose(gm(x).numpy(), -2 * t * (1 - t * t), rtol=1e-6)


def test_bad_tracing_arguments():
    with pytest.raises(AssertionError, match="Unexpected tracing type"):
        make_fx(lambda x: x, tracing_mode="nope")
    with pytest.raises(NotImplementedError, match="pre_dispatch=True"):
        make_fx(lambda x: x, pre_dispatch=True)


def _conj_program(lib, x):
    """conj() views read by other ops, written in place, and transformed."""
    c = x.conj()
    d = x.clone().conj()
    d.add_(1j)
    return (c * 2).real + lib.view_as_real(x).sum(-1), lib.fft.fft(c), d.resolve_conj(), c.is_conj()


@pytest.mark.parametrize("mode", ["real", "fake"])
def test_conjugate_bit_is_traced(mode):
    """The Conjugate key's resolutions (`_conj`, `_conj_physical`) are recorded, not baked in
    as constants or applied twice: the graph re-run on other inputs gives torch's eager."""
    x = np.array([1 + 2j, 3 - 1j], np.complex64)
    other = np.array([2 - 1j, -1 + 0.5j], np.complex64)
    g = make_fx(lambda t: _conj_program(ember, t), tracing_mode=mode)(ember.tensor(x))
    assert "_tensor_constant" not in g.code
    got, want = g(ember.tensor(other)), _conj_program(torch, torch.tensor(other))
    for e, t in zip(got[:3], want[:3]):
        assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
        np.testing.assert_allclose(e.numpy(), t.resolve_conj().numpy(), rtol=1e-6)
    assert got[3] is want[3] is True
