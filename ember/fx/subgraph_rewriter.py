"""replace_pattern: find each match of a pattern function's graph in a GraphModule and
splice in the graph of a replacement function.

    >>> def pattern(x):
    ...     return ember.relu(ember.neg(x))
    >>> def replacement(x):
    ...     return ember.clamp(ember.neg(x), min=0)
    >>> gm = ember.fx.symbolic_trace(lambda a: ember.relu(ember.neg(a)) + 1)
    >>> len(replace_pattern(gm, pattern, replacement))
    1
    >>> [n.name for n in gm.graph.nodes]
    ['a', 'neg_1', 'clamp', 'add', 'output']
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .graph import Graph
from .graph_module import GraphModule
from .node import Node


class Match(NamedTuple):
    anchor: Node                   # the pattern's output node
    nodes_map: dict[Node, Node]    # pattern node -> target node


class ReplacedPatterns(NamedTuple):
    anchor: Node
    nodes_map: dict[Node, Node]
    replacements: list[Node]       # the nodes the replacement added


def _graph_of(fn) -> Graph:
    if isinstance(fn, GraphModule):
        return fn.graph
    if isinstance(fn, Graph):
        return fn
    from ._symbolic_trace import symbolic_trace
    return symbolic_trace(fn).graph


class _Matcher:
    """Matches a pattern graph against a target graph from the pattern's outputs back
    to its placeholders (which match any value, consistently)."""

    def __init__(self, pattern: Graph, ignore_literals: bool):
        self.pattern = pattern
        self.ignore_literals = ignore_literals
        out = next(n for n in pattern.nodes if n.op == "output")
        result = out.args[0]
        self.anchors = list(result) if isinstance(result, (tuple, list)) else [result]
        self.placeholders = [n for n in pattern.nodes if n.op == "placeholder"]

    def _match_arg(self, p, t, m: dict) -> bool:
        if isinstance(p, Node):
            return isinstance(t, Node) and self._match_node(p, t, m) if p.op != \
                "placeholder" else self._bind(p, t, m)
        if isinstance(p, (tuple, list)):
            return (isinstance(t, (tuple, list)) and len(p) == len(t)
                    and all(self._match_arg(a, b, m) for a, b in zip(p, t)))
        if isinstance(p, dict):
            return (isinstance(t, dict) and p.keys() == t.keys()
                    and all(self._match_arg(p[k], t[k], m) for k in p))
        if self.ignore_literals and not isinstance(t, Node):
            return True
        return type(p) is type(t) and p == t

    def _bind(self, p: Node, t, m: dict) -> bool:
        if p in m:
            return m[p] is t if isinstance(t, Node) else m[p] == t
        m[p] = t
        return True

    def _match_node(self, p: Node, t: Node, m: dict) -> bool:
        if p in m:
            return m[p] is t
        if p.op != t.op or p.target != t.target or t.op in ("placeholder", "output"):
            return False
        if len(p.args) != len(t.args) or p.kwargs.keys() != t.kwargs.keys():
            return False
        trial = dict(m)
        trial[p] = t
        if not all(self._match_arg(a, b, trial) for a, b in zip(p.args, t.args)):
            return False
        if not all(self._match_arg(p.kwargs[k], t.kwargs[k], trial) for k in p.kwargs):
            return False
        m.clear()
        m.update(trial)
        return True

    def _self_contained(self, m: dict) -> bool:
        """Internal matched nodes have no users outside the match (else erasing them
        would break the graph)."""
        inner = {t for p, t in m.items() if p.op != "placeholder"}
        anchors = {m[a] for a in self.anchors}
        return all(u in inner for t in inner - anchors for u in t.users)

    def matches(self, target: Graph) -> list[dict]:
        found: list[dict] = []
        used: set = set()
        candidates = [n for n in target.nodes]
        for t in candidates:
            m: dict = {}
            if not self._match_all(0, t, candidates, m):
                continue
            inner = {v for p, v in m.items() if p.op != "placeholder"}
            if inner & used or not self._self_contained(m):
                continue
            used |= inner
            found.append(m)
        return found

    def _match_all(self, i: int, first: Node, candidates: list, m: dict) -> bool:
        if i == len(self.anchors):
            return True
        options = [first] if i == 0 else candidates
        for t in options:
            trial = dict(m)
            if isinstance(t, Node) and self._match_node(self.anchors[i], t, trial) and \
                    self._match_all(i + 1, first, candidates, trial):
                m.clear()
                m.update(trial)
                return True
        return False


def replace_pattern_with_filters(gm: GraphModule, pattern, replacement,
                                 match_filters: list[Callable[..., bool]] | None = None,
                                 ignore_literals: bool = False) -> list[ReplacedPatterns]:
    """`replace_pattern`, keeping only the matches every filter
    `f(match, original_graph, pattern_graph)` accepts."""
    pattern_graph = _graph_of(pattern)
    replacement_graph = _graph_of(replacement)
    matcher = _Matcher(pattern_graph, ignore_literals)
    graph = gm.graph
    results = []
    replaced: dict[Node, Any] = {}     # a node an earlier replacement took the place of

    def current(v):
        while isinstance(v, Node) and v in replaced:
            v = replaced[v]
        return v
    for m in matcher.matches(graph):
        anchors = [m[a] for a in matcher.anchors]
        match = Match(matcher.anchors[0], m)
        if match_filters and not all(f(match, graph, pattern_graph) for f in match_filters):
            continue
        inputs = [current(m[p]) for p in matcher.placeholders]
        rep_placeholders = [n for n in replacement_graph.nodes if n.op == "placeholder"]
        if len(rep_placeholders) != len(inputs):
            raise RuntimeError("The pattern and the replacement must take the same number of "
                               f"inputs ({len(inputs)} vs {len(rep_placeholders)})")
        val_map: dict[Node, Any] = dict(zip(rep_placeholders, inputs))
        # torch's place: just before the first node that uses one of the match's results
        order = {n: i for i, n in enumerate(graph.nodes)}
        first_user = min((u for a in anchors for u in a.users), key=order.__getitem__)
        before = set(graph.nodes)
        with graph.inserting_before(first_user):
            out = graph.graph_copy(replacement_graph, val_map)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        for anchor, new in zip(anchors, outs):
            anchor.replace_all_uses_with(new)
            replaced[anchor] = new
        for p in reversed(list(pattern_graph.nodes)):
            if p.op in ("placeholder", "output"):
                continue
            t = m[p]
            if not t.users:
                graph.erase_node(t)
        added = [n for n in graph.nodes if n not in before]
        results.append(ReplacedPatterns(matcher.anchors[0], m, added))
    gm.recompile()
    return results


def replace_pattern(gm: GraphModule, pattern: Callable | GraphModule,
                    replacement: Callable | GraphModule) -> list[Match]:
    """Replaces every non-overlapping match of `pattern` in `gm` by `replacement` (both
    functions, traced, or GraphModules); returns the matches."""
    return [Match(r.anchor, r.nodes_map)
            for r in replace_pattern_with_filters(gm, pattern, replacement)]


__all__ = ["Match", "ReplacedPatterns", "replace_pattern", "replace_pattern_with_filters"]
