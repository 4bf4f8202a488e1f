"""Symbolic sizes: ShapeEnv, SymInt/SymBool, guards, unbacked symbols, and
make_fx(tracing_mode="symbolic") graphs that run at other sizes (checked against eager
ember and torch)."""
from __future__ import annotations

import pytest

import ember
from ember._subclasses.fake_tensor import FakeTensorMode
from ember.fx.experimental.proxy_tensor import make_fx
from ember.fx.experimental.symbolic_shapes import (
    GuardOnDataDependentSymNode,
    ShapeEnv,
    SymBool,
    SymInt,
    guard_int,
    hint_int,
    statically_known_true,
)

torch = pytest.importorskip("torch")


def fakes(*shapes):
    env = ShapeEnv()
    mode = FakeTensorMode(shape_env=env)
    return env, mode, [mode.from_tensor(ember.randn(*s), source=f"x{i}")
                       for i, s in enumerate(shapes)]


def test_sizes_are_symbols_with_duck_sizing_and_static_zero_one():
    env, _, (x, y) = fakes((4, 3, 1), (3, 5))
    assert [str(n) for n in x.shape] == ["s0", "s1", "1"]
    assert str(y.shape[0]) == "s1"                    # equal sizes share a symbol
    assert isinstance(x.shape[0], SymInt) and x.shape[2] == 1 and type(x.shape[2]) is int
    assert [str(s) for s in x.stride()] == ["s1", "1", "1"]
    assert hint_int(x.shape[0]) == 4 and env.guards == []


def test_arithmetic_stays_symbolic_and_constants_fold():
    env, _, (x,) = fakes((4, 3))
    n = x.shape[0] * x.shape[1] + 2
    assert isinstance(n, SymInt) and str(n) == "s0*s1 + 2" and hint_int(n) == 14
    assert x.shape[0] - x.shape[0] == 0 and type(x.shape[0] - x.shape[0]) is int
    assert isinstance(x.shape[0] > 3, SymBool)
    with pytest.raises(TypeError, match="unhashable"):
        hash(x.shape[0])
    assert env.guards == []


def test_bool_records_a_guard_and_equality_specialises():
    env, _, (x,) = fakes((4, 3))
    assert bool(x.shape[0] > 3)
    assert [str(g) for g in env.guards] == ["s0 > 3"]
    assert guard_int(x.shape[1]) == 3
    assert str(x.shape[1] * 2) == "6"                # s1 is 3 from now on
    s0, s1 = env.var_to_val
    assert env.evaluate_guards_for({s0: 5, s1: 3})
    assert not env.evaluate_guards_for({s0: 2, s1: 3})
    assert not env.evaluate_guards_for({s0: 5, s1: 4})


def test_what_every_size_satisfies_records_nothing():
    env, _, (x,) = fakes((4, 3))
    a, b = x.shape
    assert bool(a >= 1) and bool(a * b > b) and not bool(a == 0) and bool(a != 1)
    assert statically_known_true(a * b >= a)
    assert not statically_known_true(a > b)
    assert env.guards == []


def test_data_dependent_sizes_are_unbacked():
    _, mode, (x,) = fakes((4, 3))
    with mode:
        nz = ember.nonzero(x)
        ms = x.masked_select(x > 0)
        v = x.sum().item()
    assert str(nz.shape[0]).startswith("u") and nz.shape[1] == 2
    assert str(ms.shape[0]).startswith("u") and nz.shape[0] is not ms.shape[0]
    assert type(v).__name__ == "SymFloat"
    with pytest.raises(GuardOnDataDependentSymNode):
        bool(nz.shape[0] > 2)


def test_ops_on_symbolic_fakes():
    _, mode, (x, w) = fakes((6, 4), (4, 5))
    with mode:
        out = ember.nn.functional.softmax(x @ w, -1).sum(0, keepdim=True)
        r = ember.cat([x, x], 0).reshape(-1, 2)
    assert [str(n) for n in out.shape] == ["1", "s2"]
    assert str(r.shape[0]) == "s0*s1"


def _programs():
    def view_and_reduce(x):
        return (x.view(x.shape[0] * x.shape[1], -1) * 2 + 1).sum(0)

    def bmm(x, y):
        return ember.tanh(x @ y).mean(-1)

    def cat_softmax(x):
        return ember.cat([x, x.flip(0)], 0).softmax(-1).reshape(x.shape[0], -1)

    def broadcast(x, y):
        return (x.unsqueeze(1) - y).abs().sum(-1)
    return {"view_and_reduce": (view_and_reduce, [(4, 3, 2)], [[(6, 5, 2)], [(2, 7, 3)]]),
            "bmm": (bmm, [(4, 3, 2), (4, 2, 5)], [[(6, 5, 3), (6, 3, 7)]]),
            "cat_softmax": (cat_softmax, [(4, 3)], [[(5, 8)], [(2, 2)]]),
            "broadcast": (broadcast, [(4, 3), (5, 3)], [[(6, 7), (2, 7)]])}


@pytest.mark.parametrize("name", sorted(_programs()))
def test_symbolic_graph_runs_at_other_sizes(name):
    fn, traced, others = _programs()[name]
    gm = make_fx(fn, tracing_mode="symbolic")(*[ember.randn(*s) for s in traced])
    targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    assert ("aten.sym_size.int" in targets) == (name != "broadcast")   # sizes read at run time
    for shapes in [traced, *others]:
        args = [ember.randn(*s) for s in shapes]
        got, want = gm(*args), fn(*args)
        assert got.shape == want.shape and ember.allclose(got, want, atol=1e-6)
    t_args = [torch.randn(*s) for s in others[0]]
    t_fn = _as_torch(fn)
    e_out = gm(*[ember.tensor(a.numpy()) for a in t_args])
    assert e_out.shape == tuple(t_fn(*t_args).shape)


def _as_torch(fn):
    """The same program written with torch (its globals point `ember` at torch)."""
    import types
    return types.FunctionType(fn.__code__, {**fn.__globals__, "ember": torch}, fn.__name__,
                              fn.__defaults__, fn.__closure__)


def test_symbolic_mlp_with_parameters():
    net = ember.nn.Sequential(ember.nn.Linear(8, 16), ember.nn.ReLU(), ember.nn.Linear(16, 3))
    gm = make_fx(net, tracing_mode="symbolic", _allow_non_fake_inputs=True)(ember.randn(5, 8))
    for batch in (5, 2, 33):
        x = ember.randn(batch, 8)
        assert ember.allclose(gm(x), net(x), atol=1e-6)


@pytest.mark.parametrize("tracing_mode", ["fake", "symbolic"])
def test_training_step_traces_on_fakes(tracing_mode):
    """forward, cross entropy and autograd.grad of every parameter: the graph gives the
    eager gradients (at another batch size too, when symbolic)."""
    net = ember.nn.Sequential(ember.nn.Linear(8, 16), ember.nn.ReLU(), ember.nn.Linear(16, 3))
    params = list(net.parameters())

    def step(x, y):
        return ember.autograd.grad(ember.nn.functional.cross_entropy(net(x), y), params)
    gm = make_fx(step, tracing_mode=tracing_mode, _allow_non_fake_inputs=True)(
        ember.randn(5, 8), ember.randint(0, 3, (5,)))
    for batch in (5, 9) if tracing_mode == "symbolic" else (5,):
        x, y = ember.randn(batch, 8), ember.randint(0, 3, (batch,))
        for got, want in zip(gm(x, y), step(x, y)):
            assert ember.allclose(got, want, atol=1e-5)


def test_other_dynamic_ops_still_raise_with_a_shape_env():
    from ember._subclasses.fake_tensor import DynamicOutputShapeException
    _, mode, (x,) = fakes((4, 3))
    with mode, pytest.raises(DynamicOutputShapeException):
        ember.unique(x)
