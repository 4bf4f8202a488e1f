"""ember.compile's backends: a name or any callable `(GraphModule, example_inputs) -> callable`.

- "eager": the captured graph (functionalized aten ops) runs as it is;
- "aot_eager": AOT autograd (ember._functorch.aot_autograd): the forward and the backward
  traced ahead of time into two graphs of core-opset ops, run as one autograd Function;
- "inductor" (torch's default name): ember's fusing code generator is not built yet, so it
  runs as "aot_eager" (a warning says so once).
"""
from __future__ import annotations

import warnings


def eager(gm, example_inputs):
    return gm


def aot_eager(gm, example_inputs):
    from .._decomp import core_aten_decompositions
    from .._functorch.aot_autograd import aot_graph
    return aot_graph(gm, example_inputs, decompositions=core_aten_decompositions())


_warned = []


def inductor(gm, example_inputs):
    if not _warned:
        warnings.warn("ember.compile: the 'inductor' backend (a fusing code generator) is not "
                      "built yet; graphs run as backend='aot_eager'", stacklevel=3)
        _warned.append(True)
    return aot_eager(gm, example_inputs)


BACKENDS = {"eager": eager, "aot_eager": aot_eager, "inductor": inductor}


def lookup(backend):
    if callable(backend):
        return backend
    try:
        return BACKENDS[backend]
    except KeyError:
        raise ValueError(f"ember.compile: unknown backend {backend!r} (expected one of "
                         f"{', '.join(sorted(BACKENDS))}, or a callable)") from None


def list_backends():
    return sorted(BACKENDS)
