"""ShapeProp: run a GraphModule once and record each node's tensor metadata.

    >>> gm = ember.fx.symbolic_trace(lambda x: x.t() @ x)
    >>> _ = ShapeProp(gm).propagate(ember.ones(3, 2))
    >>> [tuple(n.meta["tensor_meta"].shape) for n in gm.graph.nodes if n.op != "output"]
    [(3, 2), (2, 3), (2, 2)]
"""
from __future__ import annotations

from typing import Any, NamedTuple

import ember
from ember.core.tensor import Tensor

from ..interpreter import Interpreter
from ..node import Node, map_aggregate


class TensorMetadata(NamedTuple):
    """What a pass needs to know about a tensor without its data."""
    shape: ember.Size
    dtype: Any
    requires_grad: bool
    stride: tuple[int, ...]
    memory_format: Any
    is_quantized: bool
    qparams: dict[str, Any]


def _memory_format(t: Tensor):
    for fmt in (ember.contiguous_format, ember.channels_last):
        if t.is_contiguous(memory_format=fmt):
            return fmt
    return None


def _extract_tensor_metadata(t: Tensor) -> TensorMetadata:
    return TensorMetadata(t.shape, t.dtype, t.requires_grad, t.stride(), _memory_format(t),
                          False, {})


def meta_of(value):
    """TensorMetadata for each tensor in a (nested) value; other leaves stay out."""
    found = []

    def visit(a):
        if isinstance(a, Tensor):
            found.append(_extract_tensor_metadata(a))
        return a
    map_aggregate(value, visit)
    if isinstance(value, Tensor):
        return found[0]
    return map_aggregate(value, lambda a: _extract_tensor_metadata(a)
                         if isinstance(a, Tensor) else None) if found else None


class ShapeProp(Interpreter):
    """`ShapeProp(gm).propagate(*args)` runs the graph and stores `tensor_meta` (shape,
    dtype, requires_grad, stride, memory_format) in each node's meta, plus its `type`."""

    def run_node(self, n: Node) -> Any:
        result = super().run_node(n)
        meta = meta_of(result)
        if meta is not None:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        return super().run(*args)


__all__ = ["ShapeProp", "TensorMetadata"]
