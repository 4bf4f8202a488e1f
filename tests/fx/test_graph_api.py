"""Graph and Node editing, Interpreter/Transformer, replace_pattern, ShapeProp, the graph
drawer and split_module, compared with torch.fx where torch has the same API."""
from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from programs import INPUT_SHAPES, PROGRAMS

import ember
import ember.fx
from ember.fx.passes.graph_drawer import FxGraphDrawer
from ember.fx.passes.shape_prop import ShapeProp
from ember.fx.passes.split_module import split_module

torch = pytest.importorskip("torch")
pytest.importorskip("torch.fx")
LIBS = {"ember": ember, "torch": torch}


def _graph(lib):
    g = lib.fx.Graph()
    x = g.placeholder("x")
    y = g.call_function(operator.add, (x, 1))
    z = g.call_method("relu", (y,))
    g.output(z)
    return g, x, y, z


@pytest.mark.parametrize("lib", ["ember", "torch"])
def test_node_links_users_and_inputs(lib):
    _g, x, y, z = _graph(LIBS[lib])
    assert list(x.users) == [y] and y.all_input_nodes == [x]
    assert y.next is z and z.prev is y
    y.replace_input_with(x, 2)
    assert y.args == (2, 1) and not x.users
    y.args = (x, 3)
    assert list(x.users) == [y]
    y.update_arg(1, 5)
    y.update_kwarg("k", x)
    assert y.args == (x, 5) and y.kwargs == {"k": x}


def test_graph_edits_match_torch():
    names = {}
    for name, lib in LIBS.items():
        g, x, y, z = _graph(lib)
        with g.inserting_before(z):
            w = g.call_function(operator.mul, (y, 2))
        with g.inserting_after(x):
            v = g.call_function(operator.neg, (x,))
        z.replace_input_with(y, w)
        y.replace_all_uses_with(v)
        g.erase_node(y) if not y.users else None
        copy = type(g)()
        out = copy.graph_copy(g, {})
        copy.output(out)
        names[name] = ([(n.op, n.name) for n in g.nodes], [(n.op, n.name) for n in copy.nodes])
        g.lint()
        with pytest.raises(RuntimeError, match="still had 1 users in the graph"):
            g.erase_node(v)
    assert names["ember"] == names["torch"]


def _logged(x):
    return x


ember.fx.has_side_effect(_logged)
torch.fx.node.has_side_effect(_logged)


def test_dead_code_elimination_keeps_side_effects():
    for lib in LIBS.values():
        g = lib.fx.Graph()
        x = g.placeholder("x")
        g.call_function(operator.add, (x, 1))              # unused: goes
        g.call_method("add_", (x, 1))                       # torch's rule: goes too
        g.call_function(_logged, (x,))                      # marked: stays
        g.output(x)
        assert g.eliminate_dead_code()
        assert [n.op for n in g.nodes] == ["placeholder", "call_function", "output"]
        assert not g.eliminate_dead_code()


def test_lint_catches_use_before_definition():
    g, x, _y, z = _graph(ember)
    z.prepend(z.prev)            # no-op move
    x.append(z)                  # z now before y, which it uses
    with pytest.raises(RuntimeError, match="used before it has been defined"):
        g.lint()


def test_print_tabular(capsys):
    gm = ember.fx.symbolic_trace(lambda x: ember.relu(x) + 1)
    gm.graph.print_tabular()
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["opcode", "name", "target", "args", "kwargs"]
    assert out[3].split()[:3] == ["call_function", "relu", "ember.relu"]


def _pair(name):
    torch.manual_seed(0)
    t_mod = PROGRAMS[name](torch)
    e_mod = PROGRAMS[name](ember)
    e_mod.load_state_dict({k: ember.tensor(v.detach().numpy())
                           for k, v in t_mod.state_dict().items()})
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in INPUT_SHAPES[name]]
    return (ember.fx.symbolic_trace(e_mod), [ember.tensor(a) for a in arrays],
            torch.fx.symbolic_trace(t_mod), [torch.tensor(a) for a in arrays])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_interpreter_runs_like_the_module(name):
    e_gm, e_in, t_gm, t_in = _pair(name)
    e_out = ember.fx.Interpreter(e_gm).run(*e_in)
    t_out = torch.fx.Interpreter(t_gm).run(*t_in)
    for e, t in zip(e_out if isinstance(e_out, tuple) else (e_out,),
                    t_out if isinstance(t_out, tuple) else (t_out,), strict=True):
        if isinstance(t, torch.Tensor):
            np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5,
                                       atol=1e-6)
        else:
            assert e == t
    assert ember.fx.Interpreter(e_gm).boxed_run(list(e_in)) is not None


def test_interpreter_overrides_and_error_notes():
    class CountCalls(ember.fx.Interpreter):
        calls = 0

        def call_function(self, target, args, kwargs):
            CountCalls.calls += 1
            return super().call_function(target, args, kwargs)
    gm = ember.fx.symbolic_trace(lambda x: ember.relu(x) * 2 + 1)
    assert CountCalls(gm).run(ember.tensor([-1.0, 1.0])).tolist() == [1.0, 3.0]
    assert CountCalls.calls == 3
    with pytest.raises(RuntimeError, match="Expected positional argument for parameter x"):
        ember.fx.Interpreter(gm).run()
    bad = ember.fx.symbolic_trace(lambda x: x @ x)
    with pytest.raises(RuntimeError) as info:
        ember.fx.Interpreter(bad).run(ember.ones(2, 3))
    assert any("While executing %matmul" in note for note in info.value.__notes__)


@pytest.mark.parametrize("lib", ["ember", "torch"])
def test_transformer_rewrites_calls(lib):
    mod = LIBS[lib]

    class ReluToSigmoid(mod.fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target is mod.relu:
                target = mod.sigmoid
            return super().call_function(target, args, kwargs)

    def fn(x):
        return mod.relu(x) + x.neg()
    gm = ReluToSigmoid(mod.fx.symbolic_trace(fn)).transform()
    x = mod.tensor([0.0, 2.0])
    expected = mod.sigmoid(x) - x
    assert np.allclose(np.asarray(gm(x).tolist()), np.asarray(expected.tolist()))
    assert [n.name for n in gm.graph.nodes] == ["x", "sigmoid", "neg", "add", "output"]


def _patterns(lib):
    def pattern(x, y):
        return lib.relu(x + y)

    def replacement(x, y):
        return lib.clamp(x + y, min=0.0)

    def program(a, b, c):
        return lib.relu(a + b) * lib.relu(b + c) + lib.relu(a) - (a + c)
    return pattern, replacement, program


def test_replace_pattern_matches_torch():
    results = {}
    for name, lib in LIBS.items():
        pattern, replacement, program = _patterns(lib)
        gm = lib.fx.symbolic_trace(program)
        matches = lib.fx.replace_pattern(gm, pattern, replacement)
        args = [lib.tensor([1.0, -2.0]), lib.tensor([-3.0, 0.5]), lib.tensor([0.25, 4.0])]
        results[name] = (len(matches), [n.name for n in gm.graph.nodes], gm(*args).tolist(),
                         sorted(m.anchor.name for m in matches))
    assert results["ember"] == results["torch"]
    assert results["ember"][0] == 2


def test_replace_pattern_with_filters():
    from ember.fx.subgraph_rewriter import replace_pattern_with_filters
    pattern, replacement, program = _patterns(ember)
    gm = ember.fx.symbolic_trace(program)

    def first_input_is_a(match, original_graph, pattern_graph):
        return any(n.op == "placeholder" and n.name == "a" for n in match.nodes_map.values())
    replaced = replace_pattern_with_filters(gm, pattern, replacement, [first_input_is_a])
    assert len(replaced) == 1 and all(isinstance(n, ember.fx.Node)
                                      for n in replaced[0].replacements)


def test_shape_prop_matches_torch():
    from torch.fx.passes.shape_prop import ShapeProp as TShapeProp
    e_gm, e_in, t_gm, t_in = _pair("conv")
    ShapeProp(e_gm).propagate(*e_in)
    TShapeProp(t_gm).propagate(*t_in)
    for e, t in zip(e_gm.graph.nodes, t_gm.graph.nodes, strict=True):
        em, tm = e.meta.get("tensor_meta"), t.meta.get("tensor_meta")
        assert (em is None) == (tm is None), e.name
        if tm is None:
            continue
        assert tuple(em.shape) == tuple(tm.shape), e.name
        assert str(em.dtype).split(".")[1] == str(tm.dtype).split(".")[1]
        assert em.stride == tm.stride and em.requires_grad == tm.requires_grad, e.name
        assert str(em.memory_format).split(".")[1] == str(tm.memory_format).split(".")[1]


def test_graph_drawer_draws_every_node_and_edge():
    e_gm, e_in, _, _ = _pair("mlp")
    ShapeProp(e_gm).propagate(*e_in)
    dot = FxGraphDrawer(e_gm, "mlp").get_dot_graph()
    nodes = {n.get_name() for n in dot.get_nodes()}
    assert nodes == {n.name for n in e_gm.graph.nodes}
    edges = {(e.get_source(), e.get_destination()) for e in dot.get_edges()}
    assert edges == {(i.name, n.name) for n in e_gm.graph.nodes for i in n.all_input_nodes}
    source = dot.to_string()
    assert "op_code=call_module" in source and "shape=(5, 8)" in source


def test_split_module_matches_torch():
    from torch.fx.passes.split_module import split_module as t_split
    e_gm, e_in, t_gm, t_in = _pair("nested")
    order = [n.name for n in e_gm.graph.nodes if n.op not in ("placeholder", "output")]

    def callback(node):
        return 0 if order.index(node.name) < len(order) // 2 else 1
    e_split = split_module(e_gm, e_gm, callback)
    t_split_gm = t_split(t_gm, t_gm, callback)
    assert [(n.op, n.target if n.op != "call_function" else n.target.__name__)
            for n in e_split.graph.nodes] == \
        [(n.op, n.target if n.op != "call_function" else n.target.__name__)
         for n in t_split_gm.graph.nodes]
    for e, t in zip(e_split(*e_in), t_split_gm(*t_in), strict=True):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)


POINTWISE = [("relu", lambda m, x: m.relu(x)), ("neg", lambda m, x: -x),
             ("add1", lambda m, x: x + 1.5), ("mul_self", lambda m, x: x * x),
             ("tanh", lambda m, x: m.tanh(x)), ("exp_clamp", lambda m, x: x.clamp(-3, 3).exp()),
             ("sigmoid", lambda m, x: m.sigmoid(x)), ("sub_rev", lambda m, x: 2 - x),
             ("abs_sqrt", lambda m, x: m.sqrt(x.abs())), ("div", lambda m, x: x / 3)]


@given(st.lists(st.sampled_from(range(len(POINTWISE))), min_size=1, max_size=8),
       st.integers(0, 2**16))
def test_traced_pointwise_compositions_rerun_equal_eager(ops, seed):
    def program(x):
        for i in ops:
            x = POINTWISE[i][1](ember, x)
        return x
    gm = ember.fx.symbolic_trace(program)
    assert len([n for n in gm.graph.nodes if n.op not in ("placeholder", "output")]) >= len(ops)
    x = ember.tensor(np.random.default_rng(seed).standard_normal((3, 4)).astype(np.float32))
    np.testing.assert_array_equal(gm(x).numpy(), program(x).numpy())
    np.testing.assert_array_equal(ember.fx.Interpreter(gm).run(x).numpy(), program(x).numpy())


def test_generated_code_rebuilds_named_tuples_and_keeps_defaults():
    import collections
    Pair = collections.namedtuple("Pair", "a b")
    g = ember.fx.Graph()
    x = g.placeholder("x")
    k = g.placeholder("k", default_value=3)
    g.output(g.call_function(operator.getitem, (Pair(x, k), 1)))
    gm = ember.fx.GraphModule({}, g)
    assert gm(ember.ones(1)) == 3 and gm(ember.ones(1), 5) == 5
    copy = ember.fx.Transformer(gm).transform()
    assert copy(ember.ones(1)) == 3
