"""Fusion: which nodes of a graph run together as one numba kernel (torch._inductor.scheduler's
place).

The graph is walked in order. A pointwise node joins the open group of one of its inputs when
it iterates over the same shape; a sum/mean/amax over the trailing dims of a group's value
ends that group (the kernel accumulates while it loops). Open groups a node reads are merged (nothing outside
has read them yet). A group is closed, and its kernel placed in the schedule, as soon as anything outside it reads one of its values (or before a
node that mutates an input), so every kernel runs after its inputs exist and before its
readers. A group of a single op is not worth a kernel: its node runs as NumPy.

    schedule(gm.graph) -> [node, FusedKernel, node, ...]
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import config
from .lowering import (
    ANY,
    POINTWISE,
    D,
    backed,
    compute_dtype,
    hint_shape,
    is_size,
    lowerable,
    reduction,
    shape_of,
    val,
)


@dataclass(eq=False)
class FusedKernel:
    """A group of pointwise nodes over one iteration `shape` (ints and sympy expressions of
    the size symbols; `hint`: its sizes when traced), optionally finished by a reduction
    over its trailing dims; `inputs` are the values it reads from outside (arrays, or
    symbolic sizes as numbers), `outputs` the members something outside reads (written to
    arrays)."""
    shape: tuple
    hint: tuple
    members: list = field(default_factory=list)
    red: object = None
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)

    def finish(self):
        inside = set(self.members) | {self.red}
        for n in self.members + [self.red] * (self.red is not None):
            for a in n.all_input_nodes:
                if a not in inside and a not in self.inputs:
                    self.inputs.append(a)
        self.outputs = [m for m in self.members if any(u not in inside for u in m.users)]

    @property
    def numel(self):
        return math.prod(self.hint)


def _dry(x):
    return [f"a{i}" for i in range(len(x))]


def _tensor_args_ok(node):
    return all(is_size(a) or backed(val(a)) for a in node.all_input_nodes)


def pointwise(node) -> bool:
    """Whether a node can be a member of a fused kernel."""
    if node.op != "call_function" or node.target not in POINTWISE or not lowerable(node):
        return False
    v = val(node)
    if v.dim() == 0 or not backed(v) or not _tensor_args_ok(node):
        return False
    if not compute_dtype(node).is_floating_point and any(
            isinstance(a, float) for a in node.args):
        return False                # (a float number would be truncated to the int dtype)
    return POINTWISE[node.target](_dry(node.args), node, str) is not None


def fusible_reduction(node):
    """(kind, dims, keepdim) of a reduction a kernel can end with, else None."""
    if node.op != "call_function" or not lowerable(node):
        return None
    r = reduction(node)
    if r is None:
        return None
    x = val(node.args[0])
    if x.dim() == 0 or not backed(x) or x.dtype not in ANY:
        return None
    if r[0] == "mean" and x.dtype not in (D.float32, D.float64):
        return None
    return r if r[1] == tuple(range(x.dim() - len(r[1]), x.dim())) else None


def schedule(graph, pointwise=pointwise, fusible_reduction=fusible_reduction) -> list:
    """The graph's nodes in order, fused groups replaced by their FusedKernel (the
    predicates say which nodes may fuse: numba's by default, cuda.py's for CUDA graphs)."""
    steps, open_, owner = [], [], {}
    order = {n: i for i, n in enumerate(graph.nodes)}

    def close(group):
        if group not in open_:
            return
        open_.remove(group)
        group.finish()
        if len(group.members) + (group.red is not None) >= 2:
            steps.append(group)
        else:
            steps.extend(group.members)

    def close_readers_of(node):
        for a in node.all_input_nodes:
            if a in owner:
                close(owner[a])

    for node in graph.nodes:
        if node.op == "output" or (node.op == "call_function" and node.is_impure()):
            while open_:
                close(open_[0])
            steps.append(node)
        elif config.fusion and pointwise(node):
            shape = shape_of(val(node))
            same = [owner[a] for a in node.all_input_nodes if a in owner and owner[a] in open_
                    and owner[a].shape == shape and owner[a].red is None]
            group = same[0] if same else None
            for other in dict.fromkeys(same[1:]):    # open groups it joins are merged
                if other is not group:
                    group.members = sorted(group.members + other.members, key=order.get)
                    owner.update(dict.fromkeys(other.members, group))
                    open_.remove(other)
            for a in node.all_input_nodes:
                if a in owner and owner[a] is not group:
                    close(owner[a])
            if group is None:
                group = FusedKernel(shape, hint_shape(val(node)))
                open_.append(group)
            group.members.append(node)
            owner[node] = group
        elif config.fusion and fusible_reduction(node) is not None and \
                owner.get(node.args[0]) in open_:
            group = owner[node.args[0]]
            group.red = node
            owner[node] = group
            close_readers_of(node)
        else:
            close_readers_of(node)
            steps.append(node)
    return steps
