"""Graph rewrites before scheduling (torch._inductor's post-grad passes), in place.

`split_addmm`: `addmm(bias, a, b)` feeding a pointwise op becomes `add(mm(a, b), bias)`, so
the bias add joins the fused kernel of what follows (a Linear then ReLU: BLAS into a
buffer, then one loop adding the bias and applying the ReLU). Same rounding as ember's
addmm kernel, which adds the bias to the product's float32 result.
"""
from __future__ import annotations

from .lowering import EXACT, aten, val
from .scheduler import pointwise


def split_addmm(graph) -> bool:
    """Rewrites the graph; whether anything changed."""
    changed = False
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not aten.addmm.default or \
                len(node.args) != 3 or node.kwargs or val(node) is None or \
                val(node).dtype not in EXACT or not any(pointwise(u) for u in node.users):
            continue
        bias, a, b = node.args
        with graph.inserting_before(node):
            mm = graph.call_function(aten.mm.default, (a, b))
            mm.meta = dict(node.meta)          # the product's value: addmm's shape and layout
            add = graph.call_function(aten.add.Tensor, (mm, bias))
            add.meta = dict(node.meta)
        node.replace_all_uses_with(add)
        graph.erase_node(node)
        changed = True
    return changed
