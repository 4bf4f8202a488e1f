"""`ember.fx`: capture programs as graphs you can read, edit and run (torch.fx).

`symbolic_trace(model)` runs `forward` on Proxies and records each operation as a Node of
a `Graph`; the resulting `GraphModule` runs the Python code generated from that graph.
`ember.fx.experimental.proxy_tensor.make_fx` records ATen ops through the dispatcher.

    >>> gm = ember.fx.symbolic_trace(lambda x: ember.relu(x) * 2)
    >>> print(gm.graph)
    graph():
        %x : [num_users=1] = placeholder[target=x]
        %relu : [num_users=1] = call_function[target=ember.relu](args = (%x,), kwargs = {})
        %mul : [num_users=1] = call_function[target=operator.mul](args = (%relu, 2), kwargs = {})
        return mul
"""
from ._symbolic_trace import Tracer, symbolic_trace, wrap
from .graph import Graph, PythonCode
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, has_side_effect, map_arg
from .proxy import Proxy, TraceError
from .subgraph_rewriter import replace_pattern

__all__ = ["Graph", "GraphModule", "Interpreter", "Node", "Proxy", "PythonCode", "TraceError",
           "Tracer", "Transformer", "has_side_effect", "map_arg", "replace_pattern",
           "symbolic_trace", "wrap"]
