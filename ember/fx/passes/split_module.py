"""split_module: cut a GraphModule into submodules `submod_<i>`, one per partition.

    >>> gm = ember.fx.symbolic_trace(lambda x: ember.relu(x + 1) * 2)
    >>> parts = split_module(gm, gm, lambda n: 0 if n.name == "add" else 1)
    >>> [n.target for n in parts.graph.nodes if n.op == "call_module"]
    ['submod_0', 'submod_1']
"""
from __future__ import annotations

import operator
from collections.abc import Callable

from ..graph import Graph
from ..graph_module import GraphModule
from ..node import Node, _fetch_attr, map_arg


class Partition:
    """The nodes of one partition, what it reads from outside and what it gives back."""

    def __init__(self, name: str):
        self.name = name
        self.nodes: list[Node] = []
        self.inputs: dict[Node, None] = {}
        self.outputs: dict[Node, None] = {}
        self.dependencies: dict[str, None] = {}


def split_module(m: GraphModule, root_m, split_callback: Callable[[Node], int],
                 qualname_map: dict | None = None, keep_original_order: bool = False,
                 keep_original_node_name: bool = False) -> GraphModule:
    """A GraphModule that calls one submodule per value of `split_callback(node)`; each
    submodule's graph holds its partition's nodes (get_attr nodes are copied into every
    partition that reads them). Partitions run in dependency order."""
    partitions: dict[str, Partition] = {}
    owner: dict[Node, Partition] = {}
    for node in m.graph.nodes:
        if node.op in ("placeholder", "get_attr", "output"):
            continue
        key = str(split_callback(node))
        part = partitions.setdefault(key, Partition(f"submod_{key}"))
        part.nodes.append(node)
        owner[node] = part
    for part in partitions.values():
        for node in part.nodes:
            for used in node.all_input_nodes:
                src = owner.get(used)
                if src is part or used.op == "get_attr":
                    continue
                part.inputs.setdefault(used, None)
                if src is not None:
                    src.outputs.setdefault(used, None)
                    part.dependencies.setdefault(src.name, None)
    out_node = next(n for n in m.graph.nodes if n.op == "output")
    for used in out_node.all_input_nodes:
        if used in owner:
            owner[used].outputs.setdefault(used, None)

    order = _dependency_order(list(partitions.values()))
    base = Graph()
    env: dict[Node, Node] = {}
    for node in m.graph.nodes:
        if node.op == "placeholder" or node.op == "get_attr" and any(u not in owner for u in node.users):
            env[node] = base.node_copy(node)
    for part in order:
        sub = Graph()
        sub_env: dict[Node, Node] = {}
        for inp in part.inputs:
            sub_env[inp] = sub.placeholder(inp.name)
        for node in part.nodes:
            for used in node.all_input_nodes:
                if used.op == "get_attr" and used not in sub_env:
                    sub_env[used] = sub.node_copy(used)
            sub_env[node] = sub.node_copy(node, sub_env.__getitem__)
        outs = list(part.outputs)
        sub.output(sub_env[outs[0]] if len(outs) == 1 else tuple(sub_env[o] for o in outs))
        part.submodule = GraphModule(root_m, sub)
        call = base.call_module(part.name, tuple(env[i] for i in part.inputs))
        if len(outs) == 1:
            env[outs[0]] = call
        else:
            for i, o in enumerate(outs):
                env[o] = base.call_function(operator.getitem, (call, i))
    base.output(map_arg(out_node.args[0], lambda n: env[n]))
    root = {p.name: p.submodule for p in order}
    for node in base.nodes:
        if node.op == "get_attr":
            root[node.target] = _fetch_attr(root_m, node.target)
    return GraphModule(root, base)


def _dependency_order(parts: list[Partition]) -> list[Partition]:
    done: dict[str, None] = {}
    by_name = {p.name: p for p in parts}
    ordered: list[Partition] = []
    while len(ordered) < len(parts):
        ready = [p for p in parts if p.name not in done
                 and all(d in done for d in p.dependencies)]
        if not ready:
            raise RuntimeError("cycle exists between partitions: "
                               f"{[p.name for p in parts if p.name not in done]}")
        for p in ready[:1]:
            done[p.name] = None
            ordered.append(by_name[p.name])
    return ordered


__all__ = ["Partition", "split_module"]
