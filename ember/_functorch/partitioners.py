"""Partitioners (torch._functorch.partitioners' place): a joint forward+backward graph split
into a forward graph, which returns the outputs and the values the backward reads (the
saved values), and a backward graph, which takes the saved values and the cotangents.

- `default_partition`: the forward holds what the outputs and input mutations need; every
  forward value the backward reads is saved.
- `min_cut_rematerialization_partition`: saves the fewest bytes (a minimum cut of the
  graph, computed with networkx) and recomputes cheap ops (pointwise ops, views, reshapes)
  in the backward rather than saving their results. Ops that draw random numbers and
  expensive ops (matmuls, reductions, convolutions) are never recomputed.

    >>> from ember.fx.experimental.proxy_tensor import make_fx
    >>> def joint(x, t):      # d/dx sum(cos(sin(x)) * t) = -sin(sin(x)) * cos(x) * t
    ...     y = x.sin().cos()
    ...     return [y, -(x.sin().sin()) * x.cos() * t]
    >>> gm = make_fx(joint)(ember.ones(3), ember.ones(3))
    >>> fw, bw, n_out = min_cut_rematerialization_partition(gm, 1, 1, 1)
    >>> [n.name for n in bw.graph.nodes if n.op == "placeholder"]   # only x is saved
    ['saved_0', 'tangent_0']
"""
from __future__ import annotations

import math
import operator

from ..core.tensor import Tensor
from ..fx.graph import Graph
from ..fx.graph_module import GraphModule


def default_partition(joint_gm, n_primals, n_tangents, n_grads):
    """(forward GraphModule, backward GraphModule, number of outputs); every forward value
    the backward reads is saved."""
    parts = _Parts(joint_gm, n_primals, n_tangents, n_grads)
    saved = [n for n in parts.nodes if n in parts.forward and any(
        u not in parts.forward and u.op != "output" for u in n.users)]
    return parts.build(saved)


def min_cut_rematerialization_partition(joint_gm, n_primals, n_tangents, n_grads):
    """As default_partition, with the saved values chosen by a minimum cut: each forward
    value costs its size in bytes to save; recomputable values may instead be recomputed
    in the backward from the saved ones."""
    import networkx as nx
    parts = _Parts(joint_gm, n_primals, n_tangents, n_grads)
    needed = set()
    _ancestors([g for g in parts.grads if hasattr(g, "op")], needed, stop=parts.tangents)
    flow = nx.DiGraph()
    for n in parts.nodes:
        if n.op == "output" or n in parts.tangents or n not in needed:
            continue
        if n in parts.on_tangents:                 # the backward's own work
            flow.add_edge(f"{n.name}_in", "sink", capacity=math.inf)
            continue
        if n.op == "placeholder" or not _recomputable(n):
            flow.add_edge("source", f"{n.name}_in", capacity=math.inf)
        flow.add_edge(f"{n.name}_in", f"{n.name}_out", capacity=_bytes(n))
        for u in n.users:
            if u in needed and u.op != "output":
                flow.add_edge(f"{n.name}_out", f"{u.name}_in", capacity=math.inf)
    for g in parts.grads:        # a gradient that reads no cotangent (zeros of an input's
        if hasattr(g, "op") and g not in parts.on_tangents:      # sizes): the backward's too
            flow.add_edge(f"{g.name}_out", "sink", capacity=math.inf)
    if "sink" not in flow or "source" not in flow:
        return default_partition(joint_gm, n_primals, n_tangents, n_grads)
    _, (reachable, _) = nx.minimum_cut(flow, "source", "sink")
    by_name = {n.name: n for n in parts.nodes}
    saved = [by_name[name[:-3]] for name in sorted(reachable) if name.endswith("_in")
             and f"{name[:-3]}_out" not in reachable and name[:-3] in by_name]
    saved.sort(key=parts.order.__getitem__)
    return parts.build(saved)


_RECOMPUTABLE_TAGS = {"pointwise", "view"}
_RECOMPUTABLE_NAMES = {"reshape", "_unsafe_view", "clone", "squeeze", "unsqueeze",
                       "expand", "permute", "t", "transpose", "slice", "select",
                       "view_copy", "permute_copy", "expand_copy", "t_copy", "transpose_copy",
                       "unsqueeze_copy", "squeeze_copy", "slice_copy", "select_copy",
                       "alias", "alias_copy", "full", "full_like", "zeros_like",
                       "ones_like", "scalar_tensor", "_to_copy"}


def _recomputable(node) -> bool:
    """Cheap, deterministic ops whose result the backward may recompute."""
    if node.op != "call_function":
        return False
    if _is_sym(node):        # a size read from a tensor is saved as an int; arithmetic on
        return not _is_size_read(node)    # sizes is recomputed from those
    if node.target is operator.getitem:
        return False                      # (its tuple is not a value that can be saved)
    tags = set(getattr(node.target, "tags", ()))
    if "nondeterministic_seeded" in tags:
        return False
    name = getattr(node.target, "name", None) or getattr(node.target, "__name__", "")
    name = name.split("::")[-1]
    return bool(tags & _RECOMPUTABLE_TAGS) or name in _RECOMPUTABLE_NAMES


def _bytes(node) -> float:
    """What saving the node's value costs; a node without one tensor value cannot be saved."""
    v = node.meta.get("val")
    if _is_sym(node):       # (the backward's sizes are then symbols it can bind)
        return 1 if _is_size_read(node) else math.inf
    if not isinstance(v, Tensor):
        return math.inf
    from ..fx.experimental.symbolic_shapes import hint_int
    n = 1
    for s in v.shape:
        n *= hint_int(s)
    return max(n, 1) * v.dtype.itemsize


def _is_sym(node) -> bool:
    """Whether a node computes a symbolic size (sym_size, arithmetic on sizes, a SymFloat
    of them: `x.shape[-1] ** 0.5`)."""
    from ..core.sym import is_sym_scalar
    return is_sym_scalar(node.meta.get("val"))


def _is_size_read(node) -> bool:
    from ..fx.experimental.symbolic_shapes import sym_size
    return node.target is sym_size


class _Parts:
    """The joint graph's pieces: primals, tangents, outputs, gradients, the nodes that
    depend on a cotangent, and the forward set the outputs and mutations need."""

    def __init__(self, joint_gm, n_primals, n_tangents, n_grads):
        self.joint_gm = joint_gm
        self.nodes = list(joint_gm.graph.nodes)
        self.order = {n: i for i, n in enumerate(self.nodes)}
        placeholders = [n for n in self.nodes if n.op == "placeholder"]
        self.primals = placeholders[:n_primals]
        self.tangent_list = placeholders[n_primals:n_primals + n_tangents]
        self.tangents = set(self.tangent_list)
        output = next(n for n in self.nodes if n.op == "output")
        results = list(output.args[0])
        self.n_out = len(results) - n_grads
        self.outs, self.grads = results[:self.n_out], results[self.n_out:]
        self.on_tangents = set(self.tangents)
        for n in self.nodes:
            if n.op == "call_function" and any(a in self.on_tangents for a in _inputs(n)):
                self.on_tangents.add(n)
        self.forward = set(self.primals)
        roots = [o for o in self.outs if hasattr(o, "op")] + [
            n for n in self.nodes
            if n.op == "call_function" and n.is_impure() and n not in self.on_tangents]
        _ancestors(roots, self.forward)
        self._with_items(self.forward)

    @staticmethod
    def _with_items(nodes):
        for n in list(nodes):    # a multi-output op's items stay with it (saved one by one)
            nodes.update(u for u in n.users if u.target is operator.getitem)

    def build(self, saved):
        """The two GraphModules for this choice of saved values."""
        forward = set(self.forward)
        _ancestors(saved, forward)
        self._with_items(forward)
        fw = Graph()
        env = {}
        for n in self.nodes:
            if n in forward:
                env[n] = fw.node_copy(n, lambda a: env[a])
        fw.output([env[o] if hasattr(o, "op") else o for o in self.outs]
                  + [env[s] for s in saved])
        bw = Graph()
        benv = {}
        for prefix, group in (("saved", saved), ("tangent", self.tangent_list)):
            for i, n in enumerate(group):
                benv[n] = bw.placeholder(f"{prefix}_{i}")
                benv[n].meta = dict(n.meta)          # the value's metadata, for compilers
        needed = set()
        _ancestors([g for g in self.grads if hasattr(g, "op")], needed, stop=set(benv))
        for n in self.nodes:
            if n in needed and n not in benv:
                if n.op == "placeholder":
                    raise AssertionError(f"partition: the backward reads the input {n.name} "
                                         "without saving it")
                benv[n] = bw.node_copy(n, lambda a: benv[a])
        bw.output([benv[g] if hasattr(g, "op") else g for g in self.grads])
        return (GraphModule(self.joint_gm, fw), GraphModule(self.joint_gm, bw), self.n_out)


def _inputs(node):
    out = []

    def visit(a):
        if hasattr(a, "op"):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            for x in a:
                visit(x)
        elif isinstance(a, dict):
            for x in a.values():
                visit(x)
    visit(node.args)
    visit(node.kwargs)
    return out


def _ancestors(roots, into, stop=frozenset()):
    stack = list(roots)
    while stack:
        n = stack.pop()
        if n in into or n in stop:
            continue
        into.add(n)
        stack.extend(_inputs(n))
