"""Decompositions: aten ops rewritten in terms of other aten ops, as torch._decomp.

`decomposition_table` maps an OpOverload to a Python function over ember ops that
computes the same result from ops nearer the core opset (the overloads tagged `core` in
schema/native_functions.yaml, torch's core aten IR). `make_fx(f, decomposition_table=...)`
records the decomposed ops instead of the original:

    >>> from ember.fx.experimental.proxy_tensor import make_fx
    >>> gm = make_fx(ember.nn.functional.silu,
    ...              decomposition_table=get_decompositions([ember.ops.aten.silu]))(ember.ones(3))
    >>> [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    ['aten.sigmoid.default', 'aten.mul.Tensor']
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from ember.dispatch.dispatcher import OpOverload, OpOverloadPacket

decomposition_table: dict[OpOverload, Callable] = {}
_CORE: set[OpOverload] = set()       # the decompositions that core_aten_decompositions gives


def register_decomposition(aten_op, registry=None, *, type="post_autograd", unsafe=False,
                           core=True):
    """`@register_decomposition(aten.silu.default)` (or a packet: all its overloads, or a
    list) adds the function to `registry` (the global table by default)."""
    table = decomposition_table if registry is None else registry

    def register(fn):
        for op in _overloads(aten_op):
            if op in table and registry is None:
                raise RuntimeError(f"duplicate registrations for {op}")
            table[op] = fn
            if core and registry is None:
                _CORE.add(op)
        return fn
    return register


def _overloads(ops) -> list[OpOverload]:
    if isinstance(ops, OpOverload):
        return [ops]
    if isinstance(ops, OpOverloadPacket):
        return [getattr(ops, name) for name in ops.overloads()]
    if isinstance(ops, Iterable):
        return [o for op in ops for o in _overloads(op)]
    raise TypeError(f"expected an OpOverload, an OpOverloadPacket or a list, got {ops!r}")


def get_decompositions(aten_ops, type="post_autograd") -> dict[OpOverload, Callable]:
    """The table's entries for these ops (overloads or packets: every overload of it
    that has a decomposition)."""
    _load()
    out = {}
    for op in aten_ops:
        if isinstance(op, OpOverloadPacket):
            out.update({o: decomposition_table[o] for o in _overloads(op)
                        if o in decomposition_table})
        elif op in decomposition_table:
            out[op] = decomposition_table[op]
    return out


def core_aten_decompositions() -> dict[OpOverload, Callable]:
    """Every decomposition that takes an op towards the core opset."""
    _load()
    return {op: fn for op, fn in decomposition_table.items() if op in _CORE}


def _load():
    from . import decompositions  # noqa: F401 - registers on import


__all__ = ["core_aten_decompositions", "decomposition_table", "get_decompositions",
           "register_decomposition"]
