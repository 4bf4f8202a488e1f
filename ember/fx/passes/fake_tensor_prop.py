"""FakeTensorProp: run a GraphModule on fake tensors and record each node's value.

Every node gets `node.meta["val"]`, a FakeTensor with the value's shape, dtype, strides
and device (and aliasing), and `node.meta["tensor_meta"]`; nothing is computed:

    >>> gm = ember.fx.symbolic_trace(lambda x: x.t() @ x)
    >>> _ = FakeTensorProp(gm).propagate(ember.ones(3, 2))
    >>> [tuple(n.meta["val"].shape) for n in gm.graph.nodes if n.op != "output"]
    [(3, 2), (2, 3), (2, 2)]
"""
from __future__ import annotations

from ember._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from ember.core.tensor import Tensor

from ..interpreter import Interpreter
from ..node import map_aggregate
from .shape_prop import _extract_tensor_metadata


class FakeTensorProp(Interpreter):
    """`FakeTensorProp(gm, mode).propagate(*real_args)`: converts the inputs with `mode`
    (a new FakeTensorMode if None) and runs the graph inside it; inputs already fake go
    through `propagate_dont_convert_inputs`."""

    def __init__(self, module, mode: FakeTensorMode | None = None):
        super().__init__(module)
        self._mode = mode if mode is not None else FakeTensorMode()

    def run_node(self, n):
        result = super().run_node(n)
        if any(isinstance(t, Tensor) for t in _leaves(result)):
            n.meta["val"] = result
            n.meta["tensor_meta"] = map_aggregate(
                result, lambda a: _extract_tensor_metadata(a) if isinstance(a, Tensor) else None)
        return result

    def propagate(self, *args):
        fake = [self._mode.from_tensor(a) if isinstance(a, Tensor) and not isinstance(
            a, FakeTensor) else a for a in args]
        return self.propagate_dont_convert_inputs(*fake)

    def propagate_dont_convert_inputs(self, *args):
        with self._mode:
            return super().run(*args)


def _leaves(value):
    out = []
    map_aggregate(value, lambda a: out.append(a) or a)
    return out


__all__ = ["FakeTensorProp"]
