"""FxGraphDrawer: an FX graph as a graphviz picture (a pydot.Dot), the way users look at
their graphs.

    >>> gm = ember.fx.symbolic_trace(lambda x: ember.relu(x) + 1)
    >>> dot = FxGraphDrawer(gm, "f").get_dot_graph()
    >>> sorted(n.get_name() for n in dot.get_nodes())
    ['add', 'output', 'relu', 'x']
"""
from __future__ import annotations

import pydot

from ..graph_module import GraphModule
from ..node import Node, _fetch_attr, _format_arg, _qualified_name

_COLORS = {"placeholder": "AliceBlue", "get_attr": "LemonChiffon1", "output": "Gainsboro",
           "call_module": "LightGreen", "call_method": "Thistle",
           "call_function": "CadetBlue1"}


def _escape(text: str) -> str:
    """Characters that a record-shaped graphviz label treats as syntax."""
    for ch in "\\{}<>|\"":
        text = text.replace(ch, "\\" + ch)
    return text


class FxGraphDrawer:
    """`FxGraphDrawer(gm, name).get_dot_graph()`: one record-shaped box per node (name,
    opcode, target, arguments, and the tensor shape/dtype when ShapeProp or make_fx
    recorded it), an edge from each input to its users; `get_all_dot_graphs()` adds
    one picture per GraphModule submodule."""

    def __init__(self, graph_module: GraphModule, name: str, ignore_getattr: bool = False,
                 ignore_parameters_and_buffers: bool = False,
                 skip_node_names_in_args: bool = True, parse_stack_trace: bool = False,
                 dot_graph_shape: str | None = None, normalize_args: bool = False):
        self._name = name
        self._shape = dot_graph_shape or "record"
        self._dot_graphs = {name: self._to_dot(graph_module, name, ignore_getattr)}
        for node in graph_module.graph.nodes:
            if node.op == "call_module":
                sub = _fetch_attr(graph_module, node.target)
                if isinstance(sub, GraphModule):
                    key = f"{name}_{node.target}"
                    self._dot_graphs[key] = self._to_dot(sub, key, ignore_getattr)

    def get_dot_graph(self, submod_name: str | None = None) -> pydot.Dot:
        if submod_name is None:
            return self.get_main_dot_graph()
        return self.get_submod_dot_graph(submod_name)

    def get_main_dot_graph(self) -> pydot.Dot:
        return self._dot_graphs[self._name]

    def get_submod_dot_graph(self, submod_name: str) -> pydot.Dot:
        return self._dot_graphs[f"{self._name}_{submod_name}"]

    def get_all_dot_graphs(self) -> dict[str, pydot.Dot]:
        return self._dot_graphs

    def _label(self, node: Node) -> str:
        target = _qualified_name(node.target) if node.op == "call_function" else node.target
        fields = [f"name=%{node.name}", f"op_code={node.op}", f"target={target}"]
        if node.args:
            fields.append(f"args={_format_arg(node.args)}")
        if node.kwargs:
            fields.append(f"kwargs={_format_arg(node.kwargs)}")
        meta = node.meta.get("tensor_meta")
        if meta is not None and hasattr(meta, "shape"):
            fields.append(f"shape={tuple(meta.shape)}")
            fields.append(f"dtype={meta.dtype}")
        return "{" + "|".join(_escape(f) for f in fields) + "}"

    def _to_dot(self, gm: GraphModule, name: str, ignore_getattr: bool) -> pydot.Dot:
        dot = pydot.Dot(name, rankdir="TB")
        for node in gm.graph.nodes:
            if ignore_getattr and node.op == "get_attr":
                continue
            dot.add_node(pydot.Node(node.name, label=self._label(node), shape=self._shape,
                                    fillcolor=_COLORS[node.op], style='"filled,rounded"'))
            for src in node.all_input_nodes:
                if not (ignore_getattr and src.op == "get_attr"):
                    dot.add_edge(pydot.Edge(src.name, node.name))
        return dot


__all__ = ["FxGraphDrawer"]
