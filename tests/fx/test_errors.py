"""ember.fx's error paths: each bad use gets a clear error, as torch.fx gives."""
from __future__ import annotations

import copy
import operator

import pytest

import ember
import ember.fx
from ember.fx.interpreter import Interpreter
from ember.fx.node import _fetch_attr
from ember.fx.proxy import TraceError


def _graph():
    g = ember.fx.Graph()
    x = g.placeholder("x")
    y = g.call_function(operator.add, (x, 1))
    g.output(y)
    return g, x, y


def test_nodes_are_checked_when_made():
    g, x, _ = _graph()
    with pytest.raises(ValueError, match="unknown node op 'jump'"):
        g.create_node("jump", "x")
    with pytest.raises(ValueError, match="target for op 'call_method' must be a string"):
        g.create_node("call_method", operator.add)
    with pytest.raises(ValueError, match="but a Callable is expected"):
        g.call_function("add", (x,))
    other, ox, _ = _graph()
    with pytest.raises(RuntimeError, match="belongs to another graph"):
        g.call_function(operator.neg, (ox,))
    with pytest.raises(RuntimeError, match="from wrong graph"):
        other.erase_node(next(n for n in g.nodes if n.op == "output"))


def test_replace_all_uses_with_propagate_meta_needs_an_empty_meta():
    g, x, y = _graph()
    with g.inserting_after(y):
        z = g.call_function(operator.neg, (x,))
    z.meta["val"] = 1
    with pytest.raises(AssertionError, match="replace_with already has meta keys"):
        y.replace_all_uses_with(z, propagate_meta=True)


def test_missing_attributes_name_the_path():
    owner = ember.nn.Module()
    owner.l1 = ember.nn.ReLU()
    with pytest.raises(RuntimeError, match="nonexistent target l1.nope"):
        _fetch_attr(owner, "l1.nope")
    with pytest.raises(RuntimeError, match="Unsupported type"):
        ember.fx.GraphModule(42, _graph()[0])


def test_tracer_refuses_what_it_cannot_record():
    class Opaque:
        pass

    with pytest.raises(NotImplementedError, match="argument of type"):
        ember.fx.symbolic_trace(lambda x: x + Opaque())
    with pytest.raises(NotImplementedError, match="argument of type"):
        ember.fx.symbolic_trace(lambda x: ember.add(x, Opaque()))

    def varargs(*xs):
        return xs[0]
    with pytest.raises(NotImplementedError, match=r"\*args is not supported"):
        ember.fx.symbolic_trace(varargs)

    def varkw(x, **kw):
        return x
    with pytest.raises(NotImplementedError, match=r"\*\*kwargs is not supported"):
        ember.fx.symbolic_trace(varkw)
    with pytest.raises(TypeError, match="concrete_args names parameters"):
        ember.fx.symbolic_trace(lambda x: x, concrete_args={"y": 1})


def test_modules_outside_the_root_and_proxy_copies():
    stray = ember.nn.Linear(2, 2)

    class UsesStray(ember.nn.Module):
        def forward(self, x):
            return stray(x)
    with pytest.raises(NameError, match="module is not installed as a submodule"):
        ember.fx.symbolic_trace(UsesStray())
    with pytest.raises(TraceError, match="cannot be deep-copied"):
        ember.fx.symbolic_trace(lambda x: copy.deepcopy(x))


def test_proxies_of_two_tracers_do_not_mix():
    _, x1, _ = _graph()
    _, x2, _ = _graph()
    with pytest.raises(RuntimeError, match="Found multiple different tracers"):
        ember.add(ember.fx.Proxy(x1), ember.fx.Proxy(x2))


def test_interpreter_reports_values_it_does_not_have():
    g, _, y = _graph()
    out = next(n for n in g.nodes if n.op == "output")
    gm = ember.fx.GraphModule({}, g)
    with pytest.raises(RuntimeError, match="referenced nonexistent value add"):
        Interpreter(gm).map_nodes_to_values((y,), out)


def test_replace_pattern_needs_matching_inputs():
    gm = ember.fx.symbolic_trace(lambda a, b: ember.relu(a + b))
    with pytest.raises(RuntimeError, match="same number of inputs"):
        ember.fx.replace_pattern(gm, lambda x, y: ember.relu(x + y), lambda x: ember.relu(x))


def test_split_module_refuses_partition_cycles():
    from ember.fx.passes.split_module import split_module
    gm = ember.fx.symbolic_trace(lambda x: ember.relu(x + 1) * 2)
    part = {"add": 0, "relu": 1, "mul": 0}      # 0 -> 1 -> 0
    with pytest.raises(RuntimeError, match="cycle exists between partitions"):
        split_module(gm, gm, lambda n: part[n.name])
