"""Fused CUDA kernels for the inductor backend (torch inductor's GPU code generation place).

A graph of CUDA tensors is scheduled like a CPU one (scheduler.py, with this module's
predicates): each group of pointwise ops, optionally ending with a sum/mean/amax over its
trailing dims, becomes one CUDA C kernel over kernels/cuda/common.cuh, compiled through the
active driver (NVRTC through CuPy on a GPU, the emulator without one) once per source, and
launched over a grid-stride loop. Every other node runs its aten op on the CUDA tensors.

    extern "C" __global__ void fused(i64 n, i64 reduced, const i64* meta,
                                     const float* in0, const float* in1, float* out0) {
      ember::Offsets<3> o(meta);
      EMBER_LOOP(i, n) {
        i64 off[3]; o.get(i, off);
        float x0 = in0[off[0]]; float x1 = in1[off[1]];
        float t0 = x0 * x1; float t1 = ((t0 > 0 || t0 != t0) ? t0 : static_cast<float>(0));
        out0[off[2]] = t1;
      }
    }

A thread computes one element (or, with a reduction, one output element: it loops over the
`reduced` elements, accumulating in double or int64 and rounding once). Values compute in
their own C type (float stays float), constants are cast to it, as ember's kernels do.
Sizes are arguments, computed per call from the inputs' shapes: one kernel serves every
size of a graph with symbolic sizes (dynamic shapes).
"""
from __future__ import annotations

import math

import numpy as np

import ember
from ember.kernels.cuda import _launch

from ..core import dtype as D
from ..core.tensor import Tensor
from .lowering import _call1 as _call
from .lowering import (
    _infix,
    aten,
    backed,
    reduction,
    scalar_expr,
    shape_of,
    size_fn,
    size_sources,
    val,
)

C_TYPES = {D.float32: "float", D.float64: "double", D.int64: "i64", D.int32: "int",
           D.bool_: "bool"}
_FLOATS = {D.float32, D.float64}


def _pow(x, node, lit):
    e = node.args[1]
    if not isinstance(e, (int, float)) or isinstance(e, bool):
        return None
    special = {1: "{0}", 2: "({0} * {0})", 0.5: "sqrt({0})", -1: "({1} / {0})"}
    if e in special:
        return special[e].format(x[0], lit(1))
    return f"pow({x[0]}, {lit(e)})"


def _abs(x, node, lit):
    """fabs for floats (C's abs is the int one), a select for integers."""
    if val(node).dtype in _FLOATS:
        return f"fabs({x[0]})"
    return f"(({x[0]} < {lit(0)}) ? -{x[0]} : {x[0]})"


def _sigmoid(x, node, lit):
    e = f"exp(-fabs({x[0]}))"
    return (f"(({x[0]} >= {lit(0)}) ? {lit(1)} / ({lit(1)} + {e}) "
            f": {e} / ({lit(1)} + {e}))")


def _to_copy(x, node, lit):
    if set(node.kwargs) - {"dtype"}:
        return None
    out = val(node).dtype
    return f"({x[0]} != 0)" if out is D.bool_ else f"static_cast<{C_TYPES[out]}>({x[0]})"


RULES = {
    aten.add.Tensor: _infix("+"), aten.sub.Tensor: _infix("-"),
    aten.mul.Tensor: _infix("*"), aten.div.Tensor: _infix("/"),
    aten.add.Scalar: _infix("+"), aten.sub.Scalar: _infix("-"),
    aten.mul.Scalar: _infix("*"), aten.div.Scalar: _infix("/"),
    aten.neg.default: lambda x, node, lit: f"(-{x[0]})",
    aten.exp.default: _call("exp"), aten.log.default: _call("log"),
    aten.sqrt.default: _call("sqrt"), aten.tanh.default: _call("tanh"),
    aten.abs.default: _abs,
    aten.relu.default: lambda x, node, lit: (f"(({x[0]} > {lit(0)} || {x[0]} != {x[0]}) "
                                             f"? {x[0]} : {lit(0)})"),
    aten.pow.Tensor_Scalar: _pow, aten.sigmoid.default: _sigmoid,
    aten.sign.default: lambda x, node, lit: (f"(({x[0]} > {lit(0)}) ? {lit(1)} : "
                                             f"(({x[0]} < {lit(0)}) ? {lit(-1)} : {lit(0)}))"),
    aten.where.self: lambda x, node, lit: f"({x[0]} ? {x[1]} : {x[2]})",
    aten.threshold_backward.default: lambda x, node, lit: (f"(({x[1]} <= {x[2]}) ? "
                                                           f"{lit(0)} : {x[0]})"),
    aten._to_copy.default: _to_copy,
}
for _name, _sym in (("le", "<="), ("lt", "<"), ("ge", ">="), ("gt", ">"), ("eq", "=="),
                    ("ne", "!=")):
    for _ov in ("Scalar", "Tensor"):
        RULES[getattr(getattr(aten, _name), _ov)] = _infix(_sym)


def literal(x, dt) -> str:
    """A Python number as a C constant of dtype `dt`."""
    if dt is D.bool_:
        return "true" if x else "false"
    if isinstance(x, float) and not math.isfinite(x):
        x = "NAN" if math.isnan(x) else ("INFINITY" if x > 0 else "-INFINITY")
    elif isinstance(x, float):
        x = repr(x)
    else:
        x = f"{int(x)}LL" if dt not in _FLOATS else f"{int(x)}.0"
    return f"static_cast<{C_TYPES[dt]}>({x})"


def _cuda(v) -> bool:
    return isinstance(v, Tensor) and v.device.type == "cuda" and v.dtype in C_TYPES \
        and backed(v)


def pointwise(node) -> bool:
    """Whether a node can be a member of a fused CUDA kernel."""
    if node.op != "call_function" or node.target not in RULES:
        return False
    v = val(node)
    if not _cuda(v) or v.dim() == 0 or not all(_cuda(val(a)) for a in node.all_input_nodes):
        return False
    if any(isinstance(a, complex) for a in node.args):
        return False
    names = [f"a{i}" for i in range(len(node.args))]
    return RULES[node.target](names, node, str) is not None


def fusible_reduction(node):
    """(kind, dims, keepdim) of a trailing-dims reduction a CUDA kernel can end with."""
    if node.op != "call_function":
        return None
    r = reduction(node)
    if r is None or not _cuda(val(node)) or not _cuda(val(node.args[0])):
        return None
    x = val(node.args[0])
    if x.dim() == 0 or (r[0] == "mean" and x.dtype not in _FLOATS):
        return None
    return r if r[1] == tuple(range(x.dim() - len(r[1]), x.dim())) else None


def render(k) -> str:
    """The CUDA source of a FusedKernel (deterministic: names come from positions)."""
    kind = reduction(k.red)[0] if k.red is not None else None
    n_ops = len(k.inputs) + len(k.outputs)
    params = ["i64 n", "i64 reduced", "const i64* meta"]
    params += [f"const {C_TYPES[val(x).dtype]}* in{j}" for j, x in enumerate(k.inputs)]
    params += [f"{C_TYPES[val(m).dtype]}* out{j}" for j, m in enumerate(k.outputs)]
    lines = ['#include "common.cuh"', "using namespace ember;", "",
             f'extern "C" __global__ void fused({", ".join(params)}) {{',
             f"  Offsets<{max(n_ops, 1)}> o(meta);"]
    names = {}
    body = [f"i64 off[{max(n_ops, 1)}]; o.get(e, off);"]
    for j, x in enumerate(k.inputs):
        names[x] = f"x{j}"
        body.append(f"{C_TYPES[val(x).dtype]} x{j} = in{j}[off[{j}]];")
    for j, m in enumerate(k.members):
        names[m] = f"t{j}"
        body.append(f"{C_TYPES[val(m).dtype]} t{j} = {_member(m, names)};")
    for j, m in enumerate(k.outputs):
        body.append(f"out{j}[off[{len(k.inputs) + j}]] = {names[m]};")
    if kind is None:
        lines += ["  EMBER_LOOP(e, n) {", *(f"    {b}" for b in body), "  }", "}"]
        return "\n".join(lines) + "\n"
    src = val(k.red.args[0]).dtype
    acc = C_TYPES[src] if kind == "amax" else ("double" if src in _FLOATS else "i64")
    out_t = C_TYPES[val(k.red).dtype]
    v = names[k.red.args[0]]
    if kind == "amax":
        step = f"if ({v} > acc || {v} != {v}) acc = {v};" if src in _FLOATS else \
            f"if ({v} > acc) acc = {v};"
        init = literal(float("-inf"), src) if src in _FLOATS else (
            "false" if src is D.bool_ else f"static_cast<{acc}>({-(2 ** (8 * src.itemsize - 1))}LL)")
    else:
        step, init = f"acc += static_cast<{acc}>({v});", f"static_cast<{acc}>(0)"
    result = f"acc / static_cast<{acc}>(reduced)" if kind == "mean" else "acc"
    lines[3] = lines[3][:-3] + f", {out_t}* red) {{"
    lines += ["  EMBER_LOOP(row, n) {", f"    {acc} acc = {init};",
              "    for (i64 r = 0; r < reduced; ++r) {",
              "      i64 e = row * reduced + r;", *(f"      {b}" for b in body),
              f"      {step}", "    }", f"    red[row] = static_cast<{out_t}>({result});", "  }",
              "}"]
    return "\n".join(lines) + "\n"


def _member(node, names) -> str:
    return scalar_expr(node, names, RULES, lambda dt, code: f"static_cast<{C_TYPES[dt]}>({code})",
                       literal)


class CudaKernel:
    """A FusedKernel compiled for the active CUDA driver: `run(inputs, sizes) -> outputs`
    (the members read outside, as contiguous tensors, then the reduction's result; `sizes`:
    the size symbols' values, which the shapes are computed from)."""

    def __init__(self, k):
        from ..cuda import _runtime
        self.source = render(k)
        self.fn = _runtime.require_driver().source_kernel(self.source, "fused")
        self.shape = size_fn(k.shape)
        self.out_dtypes = [val(m).dtype for m in k.outputs]
        self.red = (size_fn(shape_of(val(k.red))), val(k.red).dtype) if k.red is not None \
            else None
        self.n_reduced = len(reduction(k.red)[1]) if k.red is not None else 0

    def run(self, inputs, sizes):
        dev = inputs[0].device
        shape = self.shape(**sizes)
        outs = [ember.empty(shape, dtype=dt, device=dev) for dt in self.out_dtypes]
        strides = [_launch.broadcast_strides(t, shape) for t in inputs]
        strides += [o.stride() for o in outs]
        meta = _launch_meta(dev, shape, strides)
        args = [meta, *(t.data_ptr() for t in inputs), *(o.data_ptr() for o in outs)]
        reduced = math.prod(shape[len(shape) - self.n_reduced:])
        if self.red is not None:
            red = ember.empty(self.red[0](**sizes), dtype=self.red[1], device=dev)
            outs.append(red)
            args.append(red.data_ptr())
        n = red.numel() if self.red is not None else math.prod(shape)
        if n:
            grid = (max(1, min(-(-n // _launch.BLOCK), _launch.MAX_GRID)),)
            self.fn(grid, (_launch.BLOCK,), (np.int64(n), np.int64(reduced), *args),
                    fibers=False)
        elif self.red is not None:
            outs[-1].fill_(0)
        return outs


def _launch_meta(device, shape, strides):
    """The [ndim, sizes, strides of each operand] array Offsets reads (not collapsed: a
    reduction's trailing dims must stay whole)."""
    from ..cuda import _runtime
    shape = tuple(shape) or (1,)
    strides = [tuple(s) or (0,) for s in strides]
    return _runtime.constant_buffer(_runtime.device_index(device),
                                    (len(shape), *shape, *[x for st in strides for x in st]))


class CudaGraph:
    """A graph of CUDA tensors run step by step: fused groups as CUDA kernels, every other
    node through its aten op (torch inductor's wrapper code for GPU graphs)."""

    def __init__(self, gm):
        from .scheduler import FusedKernel, schedule
        self.gm = gm
        self.steps = []
        for step in schedule(gm.graph, pointwise=pointwise,
                             fusible_reduction=fusible_reduction):
            if isinstance(step, FusedKernel):
                self.steps.append((step, CudaKernel(step)))
            else:
                self.steps.append((step, None))
        self.kernels = [k for _, k in self.steps if k is not None]
        self.source = "\n".join(k.source for k in self.kernels)

    def __call__(self, *args):
        from ..fx.node import map_aggregate
        env, sizes = {}, {}
        placeholders = iter(args)

        def load(a):
            return map_aggregate(a, lambda x: env[x] if hasattr(x, "op") else x)
        for step, kernel in self.steps:
            if kernel is not None:
                outs = kernel.run([env[x] for x in step.inputs], sizes)
                for m, o in zip(step.outputs + ([step.red] if step.red is not None else []),
                                outs):
                    env[m] = o
                continue
            node = step
            if node.op == "placeholder":
                env[node] = next(placeholders)
                for sym, d in size_sources(node):     # (dynamic shapes: the symbols' values)
                    sizes.setdefault(str(sym), env[node] if d is None else env[node].shape[d])
            elif node.op == "get_attr":
                env[node] = getattr(self.gm, node.target)
            elif node.op == "output":
                return load(node.args[0])
            else:
                env[node] = node.target(*load(node.args), **load(node.kwargs))
        return None
