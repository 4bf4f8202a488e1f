"""ember.compile's backends: a name or any callable `(GraphModule, example_inputs) -> callable`.

- "eager": the captured graph (functionalized aten ops) runs as it is;
- "aot_eager": AOT autograd (ember._functorch.aot_autograd): the forward and the backward
  traced ahead of time into two graphs of core-opset ops, run as one autograd Function;
- "aot_eager_decomp_partition": the same with the min-cut partition (cheap ops recomputed
  in the backward rather than saved);
- "inductor" (torch's default name): AOT autograd's graphs (min-cut partition) lowered to
  generated Python over NumPy arrays with fused numba kernels, or CUDA C kernels for CUDA
  graphs (ember._inductor).
"""
from __future__ import annotations


def eager(gm, example_inputs):
    return gm


def aot_eager(gm, example_inputs):
    from .._decomp import core_aten_decompositions
    from .._functorch.aot_autograd import aot_graph
    return aot_graph(gm, example_inputs, decompositions=core_aten_decompositions())


def aot_eager_decomp_partition(gm, example_inputs):
    """aot_eager with the min-cut partition inductor uses (recomputes cheap ops)."""
    from .._decomp import core_aten_decompositions
    from .._functorch.aot_autograd import aot_graph
    from .._functorch.partitioners import min_cut_rematerialization_partition
    return aot_graph(gm, example_inputs, decompositions=core_aten_decompositions(),
                     partition_fn=min_cut_rematerialization_partition)


def inductor(gm, example_inputs):
    from .._inductor import compile_fx
    return compile_fx(gm, example_inputs)


BACKENDS = {"eager": eager, "aot_eager": aot_eager,
            "aot_eager_decomp_partition": aot_eager_decomp_partition, "inductor": inductor}


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
