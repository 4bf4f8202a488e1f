"""ember's "inductor" backend: AOT autograd's forward and backward graphs lowered to one
generated Python module each, over NumPy arrays.

- lowering.py: what each aten op becomes (a scalar expression for fused kernels, a NumPy
  call, or ember's CPU kernel called directly);
- passes.py: graph rewrites first (an addmm feeding a pointwise op split into mm + add);
- scheduler.py: chains of pointwise ops, and a reduction they feed, grouped into kernels;
- kernels.py: those groups as numba kernels (njit, cached on disk in config.cache_dir),
  and hand-written ones (log_softmax, gather, scatter);
- cuda.py: for graphs of CUDA tensors, those groups as CUDA C kernels (compiled by the
  CUDA driver: NVRTC on a GPU, the emulator without one);
- runtime.py: the helpers generated modules call;
- memory.py: buffers reused once dead, results written with `out=`;
- codegen.py: the module (`EMBER_LOGS=output_code` prints it; config.debug keeps it in
  config.debug_dir).

A compiled step pays neither the dispatcher nor the autograd engine per op, and a fused
chain makes one pass over memory. Graphs with symbolic sizes (dynamic shapes) read them
from their inputs when they run: a new batch size or sequence length reuses the graph.

    >>> f = ember.compile(lambda x: (x @ x.t()).relu().sum(0), backend="inductor")
    >>> f(ember.eye(2))
    tensor([1., 1.])
"""
from __future__ import annotations

from . import config
from .codegen import lower
from .lowering import LOWERINGS, POINTWISE


def compile_fx(gm, example_inputs):
    """The backend: AOT autograd (the min-cut partition: cheap ops recomputed in the
    backward rather than saved, as torch's inductor) with `lower` as both graphs' compiler."""
    from .._decomp import core_aten_decompositions
    from .._functorch.aot_autograd import aot_graph
    from .._functorch.partitioners import min_cut_rematerialization_partition
    return aot_graph(gm, example_inputs, fw_compiler=_lower_for_device,
                     decompositions=core_aten_decompositions(),
                     partition_fn=min_cut_rematerialization_partition)


def _lower_for_device(gm, example_inputs=None):
    """CUDA graphs get CUDA C kernels (cuda.py), others the NumPy/numba module."""
    from .lowering import val
    if any(getattr(val(n), "device", None) is not None and val(n).device.type == "cuda"
           for n in gm.graph.nodes if n.op == "placeholder"):
        from .cuda import CudaGraph
        return CudaGraph(gm)
    return lower(gm, example_inputs)


__all__ = ["LOWERINGS", "POINTWISE", "compile_fx", "config", "lower"]
