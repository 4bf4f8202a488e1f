"""Autograd-key kernels shared by many ops (the per-op ones are generated):

- `autograd_out(op)`: out= variants are not differentiable; torch's error if an
  argument requires grad while grad mode is on.
- `autograd_not_implemented(op)`: ops without a derivatives.yaml entry record a node
  whose backward raises "derivative for aten::foo is not implemented".
"""
from __future__ import annotations

from ..core.tensor import Tensor
from ..dispatch import keys as K
from ..dispatch.tls import state as _tls
from . import graph as G

_BELOW = K.below(K.Autograd)


def not_implemented(why: str) -> NotImplementedError:
    """What a `not_implemented("why")` formula raises in backward (NotImplementedError,
    a RuntimeError subclass, like torch's)."""
    return NotImplementedError(f"the derivative for '{why}' is not implemented.")


def _tensors(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            for x in a:
                if isinstance(x, Tensor):
                    yield x


def autograd_out(op):
    def kernel(ks, *args):
        if _tls.grad_enabled and any(t._ks & K.AUTOGRAD_BIT for t in _tensors(args)):
            raise RuntimeError(f"{op.name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires grad.")
        return op.redispatch(ks & _BELOW, *args)
    kernel.__qualname__ = f"autograd_out[{op._cpp_name}]"
    return kernel


def autograd_not_implemented(op):
    inplace = op.schema.kind() == "inplace"

    def kernel(ks, *args):
        node = None
        if _tls.grad_enabled:
            edges = [G.gradient_edge(t) for t in _tensors(args)]
            if any(e is not None for e in edges):
                if inplace:
                    G.check_inplace(args[0])
                node = G.new_node(G.NotImplementedNode, tuple(e or G.NO_EDGE for e in edges),
                                  tuple(e is not None for e in edges))
                node.op_name = op._cpp_name.split(".")[0]
        out = op.redispatch(ks & _BELOW, *args)
        if node is not None:
            if inplace:
                G.rebase_history(args[0], node)
            elif isinstance(out, Tensor):
                G.set_history_one(out, node)
            else:
                G.set_history_many(out, node)
        return out
    kernel.__qualname__ = f"autograd_not_implemented[{op._cpp_name}]"
    return kernel
