"""ember.fx.symbolic_trace against torch.fx.symbolic_trace on the same programs: node lists,
generated code, results, errors."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from programs import INPUT_SHAPES, PROGRAMS, methods_and_operators, uses_math

import ember
import ember.fx

torch = pytest.importorskip("torch")
pytest.importorskip("torch.fx")


def _same_weights(e_mod, t_mod):
    """Copies torch's initial parameters and buffers into the ember module."""
    state = {k: ember.tensor(v.detach().numpy()) for k, v in t_mod.state_dict().items()}
    e_mod.load_state_dict(state)


def _target(node) -> str:
    """A node's target with the library's name normalised."""
    if node.op != "call_function":
        return str(node.target)
    if isinstance(node, ember.fx.Node):
        from ember.fx.node import _qualified_name as qualified_name
    else:
        from torch.fx.node import _get_qualified_name as qualified_name
    name = qualified_name(node.target)
    name = name.replace("torch.nn.functional.", "F.").replace("ember.nn.functional.", "F.")
    name = name.replace("torch._C._nn.", "F.").replace("torch.", "").replace("ember.", "")
    if name in ("gelu",):      # ember's F.gelu is the generated ember.gelu
        name = f"F.{name}"
    name = name.replace("fx._symbolic_trace.", "").replace("_operator.", "operator.")
    name = name.replace("builtins.", "").replace("_C._nn.", "F.")
    return {"_VariableFunctionsClass.relu": "relu"}.get(name, name)


def _nodes(gm):
    return [(n.op, n.name, _target(n)) for n in gm.graph.nodes]


def _inputs(name, lib):
    rng = np.random.default_rng(0)
    return [lib.tensor(rng.standard_normal(s).astype(np.float32)) for s in INPUT_SHAPES[name]]


def _traced_pair(name):
    torch.manual_seed(0)
    t_mod = PROGRAMS[name](torch)
    e_mod = PROGRAMS[name](ember)
    _same_weights(e_mod, t_mod)
    return ember.fx.symbolic_trace(e_mod), torch.fx.symbolic_trace(t_mod), e_mod, t_mod


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _assert_outputs_equal(e_out, t_out):
    for e, t in zip(_flat(e_out), _flat(t_out), strict=True):
        if isinstance(t, (torch.Tensor, ember.Tensor)):
            np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5,
                                       atol=1e-6)
        else:
            assert e == t


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nodes_code_and_results_match_torch_fx(name):
    e_gm, t_gm, e_mod, _ = _traced_pair(name)
    assert _nodes(e_gm) == _nodes(t_gm)
    assert e_gm.code.replace("ember.", "") == t_gm.code.replace("torch.", "").replace(
        "_C._nn.", "")
    e_in, t_in = _inputs(name, ember), _inputs(name, torch)
    _assert_outputs_equal(e_gm(*e_in), t_gm(*t_in))
    _assert_outputs_equal(e_gm(*e_in), e_mod(*e_in))
    assert type(e_gm).__name__ == type(e_mod).__name__


@pytest.mark.parametrize("program", [methods_and_operators, uses_math], ids=lambda p: p.__name__)
def test_functions_trace_like_torch(program):
    e_gm = ember.fx.symbolic_trace(program(ember))
    t_gm = torch.fx.symbolic_trace(program(torch))
    assert _nodes(e_gm) == _nodes(t_gm)
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2)]
    args_e = [ember.tensor(a) for a in arrays][:len(e_gm.graph.find_nodes(op="placeholder"))]
    args_t = [torch.tensor(a) for a in arrays][:len(args_e)]
    _assert_outputs_equal(e_gm(*args_e), t_gm(*args_t))


def test_graph_prints_like_torch():
    e_gm, t_gm, _, _ = _traced_pair("attrs")
    e_text = str(e_gm.graph).replace("ember.", "")
    t_text = str(t_gm.graph).replace("torch.", "")
    assert e_text == t_text


def test_concrete_args_bake_in_a_guard():
    def f(lib):
        def fn(x, flag):
            return x + 1 if flag else x - 1
        return fn
    e_gm = ember.fx.symbolic_trace(f(ember), concrete_args={"flag": True})
    t_gm = torch.fx.symbolic_trace(f(torch), concrete_args={"flag": True})
    assert [(n.op, n.name) for n in e_gm.graph.nodes] == \
        [(n.op, n.name) for n in t_gm.graph.nodes]
    assert e_gm(ember.ones(2), True).tolist() == [2.0, 2.0]
    with pytest.raises(AssertionError, match="flag has been specialized to have value True"):
        e_gm(ember.ones(2), False)


@pytest.mark.parametrize("lib", ["ember", "torch"])
def test_control_flow_on_a_proxy_raises_trace_error(lib):
    mod = {"ember": ember, "torch": torch}[lib]

    def branchy(x):
        if x.sum() > 0:
            return x
        return -x
    with pytest.raises(mod.fx.proxy.TraceError, match="symbolically traced variables cannot "
                       "be used as inputs to control flow"):
        mod.fx.symbolic_trace(branchy)

    def loops(x):
        return [y for y in x]
    with pytest.raises(mod.fx.proxy.TraceError, match="Proxy object cannot be iterated"):
        mod.fx.symbolic_trace(loops)

    def length(x):
        return x + len(x)
    with pytest.raises(RuntimeError, match="'len' is not supported in symbolic tracing"):
        mod.fx.symbolic_trace(length)


def _count_positive(x):
    return int((x > 0).sum())


ember.fx.wrap("_count_positive")
torch.fx.wrap("_count_positive")


def test_wrap_records_a_call_instead_of_tracing_through():
    def fn(x):
        return x * _count_positive(x)
    e_gm = ember.fx.symbolic_trace(fn)
    t_gm = torch.fx.symbolic_trace(fn)
    assert [(n.op, n.name) for n in e_gm.graph.nodes] == \
        [(n.op, n.name) for n in t_gm.graph.nodes]
    assert e_gm(ember.tensor([1.0, -2.0, 3.0])).tolist() == [2.0, -4.0, 6.0]
    # outside tracing the module's function is the original again
    assert _count_positive(ember.tensor([1.0])) == 1


def test_wrap_only_at_module_level():
    with pytest.raises(NotImplementedError, match="wrap must be called at the top level"):
        ember.fx.wrap("len")


def test_custom_leaf_modules():
    class Leafy(ember.fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return super().is_leaf_module(m, qualname) or type(m).__name__ == "Block"
    net = PROGRAMS["nested"](ember)
    graph = Leafy().trace(net)
    assert [n.target for n in graph.nodes if n.op == "call_module"] == \
        ["blocks.0", "blocks.1", "norm"]


def test_stack_traces_when_recorded():
    tracer = ember.fx.Tracer()
    tracer.record_stack_traces = True

    def fn(x):
        return ember.relu(x)
    graph = tracer.trace(fn)
    relu = next(n for n in graph.nodes if n.name == "relu")
    assert "return ember.relu(x)" in relu.stack_trace


def test_graph_module_copies_pickles_and_writes_a_folder(tmp_path):
    gm, _, _, _ = _traced_pair("attrs")
    x = _inputs("attrs", ember)[0]
    expected = gm(x)[0].tolist()
    for clone in (copy.deepcopy(gm), pickle.loads(pickle.dumps(gm)), copy.copy(gm)):
        assert clone(x)[0].tolist() == expected
        assert clone.code == gm.code
    deep = copy.deepcopy(gm)
    deep.l1.weight.data.zero_()
    assert gm(x)[0].tolist() == expected      # a deep copy owns its parameters
    seq_gm, _, _, _ = _traced_pair("sequential")
    seq_gm.to_folder(tmp_path / "pkg", "SeqModule")
    import importlib
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        rebuilt = importlib.import_module("pkg").SeqModule()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("pkg", None)
        sys.modules.pop("pkg.module", None)
    y = _inputs("sequential", ember)[0]
    np.testing.assert_allclose(rebuilt(y).detach().numpy(), seq_gm(y).detach().numpy(),
                               rtol=1e-6)


def test_print_readable_and_submodule_edits():
    gm, t_gm, _, _ = _traced_pair("mlp")
    text = gm.print_readable(print_output=False)
    assert text.startswith("class MLP(ember.nn.Module):") and "def forward(self, x):" in text
    assert gm.add_submodule("extra.inner", ember.nn.Tanh())
    assert isinstance(gm.extra.inner, ember.nn.Tanh)
    gm.delete_all_unused_submodules()
    t_gm.add_submodule("extra.inner", torch.nn.Tanh())
    t_gm.delete_all_unused_submodules()
    assert sorted(n for n, _ in gm.named_modules()) == sorted(n for n, _ in t_gm.named_modules())


def test_graph_module_from_a_dict_root():
    g = ember.fx.Graph()
    x = g.placeholder("x")
    w = g.get_attr("w")
    g.output(g.call_function(ember.matmul, (x, w)))
    gm = ember.fx.GraphModule({"w": ember.eye(2) * 3}, g)
    assert gm(ember.ones(1, 2)).tolist() == [[3.0, 3.0]]
    with pytest.raises(RuntimeError, match="referenced target w but that target was not "
                       "provided"):
        ember.fx.GraphModule({}, g)


def test_fx_is_reachable_from_import_ember_like_torch():
    import subprocess
    import sys
    code = "import ember; print(ember.fx.symbolic_trace.__module__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "ember.fx._symbolic_trace"
    with pytest.raises(AttributeError, match="module 'ember' has no attribute 'fxx'"):
        ember.fxx  # noqa: B018
