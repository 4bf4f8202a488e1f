"""One generated Python module per graph: NumPy calls, fused numba kernels, planned buffers.

    def call(v0, v1, v2):
        v3 = np.empty((64, 128), np.float32)
        np.matmul(v0, v1, out=v3)
        v5 = np.empty((64, 128), np.float32)
        _k0(64, 128, v3, v2, v5)                   # add, relu
        return [v5]

`lower(gm)` returns a callable over ember tensors; its `.source` is the module's text,
logged with EMBER_LOGS=output_code and kept in config.debug_dir when config.debug is on.
"""
from __future__ import annotations

import itertools
import logging
import math
import operator
import os
import sys

import numpy as np

from ..core.tensor import Tensor
from ..dispatch.dispatcher import ops
from . import config, kernels, runtime
from .lowering import (
    EXACT_RESULT,
    EXTERNS,
    LOWERINGS,
    OUT_LOWERINGS,
    POINTWISE,
    SIZE_OPS,
    VIEWS,
    empty_code,
    hint_shape,
    hint_strides,
    int_operands,
    is_size,
    lowerable,
    np_name,
    reduction,
    shape_code,
    shape_of,
    size_code,
    size_sources,
    strides_of,
    val,
)
from .memory import Pool, buffer_ends
from .passes import split_addmm
from .scheduler import FusedKernel, schedule

aten_copy_ = ops.aten.copy_.default
log = logging.getLogger("ember._inductor.output_code")
log_kernels = logging.getLogger("ember._inductor.kernels")
_graph_ids = itertools.count()


def lower(gm, example_inputs=None):
    """The graph as one generated module (see the module docstring); returns a callable
    taking and returning ember tensors, with `.source`, `.lowered` (nodes lowered),
    `.fallbacks` (the ops run through the dispatcher), `.externs` (the ops run by calling
    their CPU kernel), `.kernels` (how many fused kernels) and `.kernel_fns` (theirs)."""
    gen = _Codegen(gm)
    src = gen.module()
    gid = next(_graph_ids)
    filename = _keep(src, gid)
    # (ember's module name: NumPy's floating-point RuntimeWarnings are silenced for ember's
    # modules, kernels/__init__.py, as eager's inf/nan come quietly)
    scope = {"np": np, "_c": gen.consts, "_load": kernels.load, **runtime.HELPERS,
             "__name__": "ember._inductor.generated"}
    exec(compile(src, filename, "exec"), scope)  # noqa: S102  (generated code)
    run = runtime.runner(scope["call"], gm)
    run.source, run.lowered, run.fallbacks = src, gen.lowered, gen.fallbacks
    run.kernels, run.externs = gen.n_kernels, sorted(gen.externs)
    run.kernel_fns = [scope[f"_k{i}"] for i in range(gen.n_kernels)]    # numba dispatchers
    return run


def _keep(src, gid):
    """Logs the module (EMBER_LOGS=output_code) and writes it to the debug directory."""
    if config.output_code:
        if not log.handlers:
            log.addHandler(logging.StreamHandler(sys.stderr))
            log.setLevel(logging.INFO)
        log.info("Output code of graph %d:\n%s", gid, src)
    if not config.debug:
        return f"<ember._inductor graph {gid}>"
    os.makedirs(config.debug_dir, exist_ok=True)
    path = os.path.join(config.debug_dir, f"graph_{gid}_output_code.py")
    with open(path, "w") as f:
        f.write(src)
    return path


def _aliases(node, fused=frozenset()):
    """`node` and the values that may be views of it (views, and ops run by a kernel that
    may give back an input; not the members of fused kernels, `fused`: they compute fresh
    values)."""
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        out.append(n)
        todo += [u for u in n.users if u.op == "call_function" and u.target is not aten_copy_
                 and not is_size(u) and u not in fused and (
                     u.target in VIEWS or u.target is operator.getitem or
                     not _numpy_lowered(u))]
    return out


def _numpy_lowered(node) -> bool:
    """Whether a node runs as a NumPy expression of LOWERINGS."""
    return lowerable(node) and node.target in LOWERINGS and LOWERINGS[node.target](
        ["a"] * len(node.args), dict(node.kwargs), node) is not None


def _layout(node):
    v = val(node)
    return shape_of(v), strides_of(v), v.dtype


def _recyclable(v) -> bool:
    """Whether a buffer may be large enough for config.recycle_bytes (symbolic sizes:
    decided when it runs)."""
    if any(not isinstance(s, int) for s in shape_of(v)):
        return True
    return math.prod(shape_of(v)) * v.dtype.itemsize >= config.recycle_bytes


def _dense_c(v):
    """Whether a value's strides are C order's (dims of size 1 aside)."""
    expect = 1
    for n, s in zip(reversed(hint_shape(v)), reversed(hint_strides(v))):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


class _Codegen:
    def __init__(self, gm):
        self.gm = gm
        for n in gm.graph.nodes:        # constants (closed-over tensors): their own layout
            if n.op == "get_attr":      # (a trace may have recorded a meta tensor)
                n.meta["val"] = getattr(gm, n.target)
        if split_addmm(gm.graph):
            gm.recompile()
        self.steps = schedule(gm.graph)
        self.names, self.consts, self.lines, self.kernel_defs = {}, [], [], []
        self.externs = set()
        self.bound = set()                # the size symbols read from the inputs
        self.lowered = self.n_kernels = self.n_sites = 0
        self.fallbacks = []
        self.position = {}
        for i, s in enumerate(self.steps):
            for n in (s.members + [s.red] * (s.red is not None) if isinstance(s, FusedKernel)
                      else [s]):
                self.position[n] = i
        self.roots = {}
        for s in self.steps:
            self._roots(s)
        out_node = self.steps[-1]
        outputs = {a for a in out_node.args[0] if hasattr(a, "op")}
        self.pool = Pool(buffer_ends(self.steps, self.position, self.roots, outputs))
        for n in gm.graph.nodes:
            self.names[n] = f"v{len(self.names)}"
        self.in_place = self._in_place(outputs)

    def _in_place(self, outputs):
        """{kernel output: the graph input it is copied into}, for the input mutations a
        kernel can write straight into the input (an optimizer's parameters and momentum
        buffers): one copy_ into the input, from a kernel output of the input's layout that
        is no graph output, and nothing but that kernel reading the input (or a view of
        it) from the kernel on. The copy_ then is the input itself."""
        kernel_of = {n: s for s in self.steps if isinstance(s, FusedKernel) for n in s.outputs}
        fused = {m for s in self.steps if isinstance(s, FusedKernel) for m in s.members}
        copies = [n for n in self.gm.graph.nodes if n.target is aten_copy_]
        out = {}
        for c in copies:
            dst, src = c.args[0], c.args[1]
            k = kernel_of.get(src)
            if dst.op != "placeholder" or k is None or src in outputs or \
                    sum(x.args[0] is dst for x in copies) != 1 or \
                    _layout(src) != _layout(dst) or shape_of(val(src)) != k.shape:
                continue
            at = self.position[src]
            if all(self.position[u] < at or (u in k.members and a is dst)
                   for a in _aliases(dst, fused) for u in a.users if u is not c):
                out[src] = dst
        return out

    # --- which planned buffers each value may alias ----------------------------------------
    def _out_rule(self, node):
        if node.op != "call_function" or node.target not in OUT_LOWERINGS or \
                not lowerable(node) or not isinstance(val(node), Tensor):
            return None
        rule = OUT_LOWERINGS[node.target]
        return rule if rule(["a"] * len(node.args), dict(node.kwargs), node, "o") else None

    def _roots(self, s):
        if isinstance(s, FusedKernel):
            for n in s.outputs + [s.red] * (s.red is not None):
                self.roots[n] = {n}
            for m in s.members:
                self.roots.setdefault(m, set())
            return
        if s.op != "call_function" or is_size(s):
            self.roots[s] = set()
        elif self._out_rule(s) is not None:
            self.roots[s] = {s}
        elif not _numpy_lowered(s):  # kernels, the dispatcher, getitem: may alias any input
            self.roots[s] = set().union(*(self.roots.get(a, ()) for a in s.all_input_nodes))
        elif s.target in VIEWS:
            self.roots[s] = set(self.roots.get(s.args[0], ()))
        else:
            self.roots[s] = set()

    # --- code -----------------------------------------------------------------------------
    def code(self, a):
        if hasattr(a, "op"):
            return self.names[a]
        if isinstance(a, (list, tuple)):
            inner = ", ".join(self.code(x) for x in a)
            return f"[{inner}]" if isinstance(a, list) else f"({inner}{',' * (len(a) == 1)})"
        if a is None or isinstance(a, (bool, int, float, str)) and repr(a) not in (
                "inf", "-inf", "nan"):
            return repr(a)
        self.consts.append(a)
        return f"_c[{len(self.consts) - 1}]"

    def alloc(self, node, step, contiguous=False):
        """A line binding the node's name to a buffer for its result (reused or new)."""
        shape, strides, dtype = _layout(node)
        if contiguous:
            strides = tuple(math.prod(shape[d + 1:]) for d in range(len(shape)))
        key = (shape, strides, dtype)
        name = self.names[node]
        dead = self.pool.take(key, step)
        self.pool.add(node, key)
        if dead is not None:
            return f"{name} = {self.names[dead]}  # reuses {self.names[dead]}'s buffer"
        site = None
        if _recyclable(val(node)):         # (kept across calls: runtime._reuse)
            site = f"_r{self.n_sites}"
            self.n_sites += 1
            self.kernel_defs.append(f"{site} = [None]  # {name}'s buffer, recycled\n")
        return f"{name} = {empty_code(val(node), contiguous, site)}"

    def module(self) -> str:
        params = []
        for i, s in enumerate(self.steps):
            if isinstance(s, FusedKernel):
                self.kernel(s, i)
            elif s.op == "placeholder":
                params.append(self.names[s])
                self.bind_sizes(s)
            elif s.op == "get_attr":
                self.lines.append(f"{self.names[s]} = "
                                  f"{self.code(getattr(self.gm, s.target)._np)}")
            elif s.op == "output":
                self.lines.append(f"return [{', '.join(self.code(x) for x in s.args[0])}]")
            else:
                self.node(s, i)
        body = "".join(f"    {ln}\n" for ln in self.lines)
        head = "".join(self.kernel_defs)
        return f"{head}{chr(10) * 2 * bool(head)}def call({', '.join(params)}):\n{body}"

    def bind_sizes(self, node):
        """Lines reading the size symbols an input brings (`s0 = v0.shape[0]`; a size input:
        `s0 = v3`) the first time one appears."""
        for sym, d in size_sources(node):
            if sym not in self.bound:
                self.bound.add(sym)
                read = "" if d is None else f".shape[{d}]"
                self.lines.append(f"{sym} = {self.names[node]}{read}")

    def node(self, node, step):
        name = self.names[node]
        args = [self.code(a) for a in node.args]
        if node.target in SIZE_OPS:
            self.lines.append(f"{name} = {SIZE_OPS[node.target].format(*args)}")
            return
        if node.target is aten_copy_ and node.args[1] in self.in_place:
            self.lines.append(f"{name} = {args[0]}  # (the kernel wrote it)")
            return
        out_rule = self._out_rule(node)
        if out_rule is not None:
            self.lines.append(self.alloc(node, step))
            self.lines.append(out_rule(args, dict(node.kwargs), node, name))
            self.lowered += 1
            return
        if node.target is operator.getitem:
            self.lines.append(f"{name} = {args[0]}[{args[1]}]")
            return
        if lowerable(node) and node.target in LOWERINGS:
            for i in int_operands(node):
                args[i] = f"{args[i]}.astype({np_name(val(node).dtype)})"
            expr = LOWERINGS[node.target](args, dict(node.kwargs), node)
            if expr is not None:
                if node.target in VIEWS:                  # an array of the input's dtype
                    self.lines.append(f"{name} = {expr}")
                elif node.target in POINTWISE and not _dense_c(val(node)):
                    # NumPy's result would be C-ordered: eager's layout follows the inputs'
                    self.lines.append(f"{name} = _copy_into({empty_code(val(node))}, "
                                      f"{expr})")
                elif node.target in EXACT_RESULT:
                    self.lines.append(f"{name} = {expr}")
                else:
                    self.lines.append(f"{name} = _as({expr}, {np_name(val(node).dtype)})")
                self.lowered += 1
                return
        kwargs = ", ".join(f"{k}={self.code(v)}" for k, v in node.kwargs.items())
        call = ", ".join(args + ([kwargs] if kwargs else []))
        if lowerable(node) and node.target in EXTERNS:
            fn = f"_extern_{node.target.name}_{node.target.overload_name}"
            if f"{fn} = " not in "".join(self.kernel_defs):
                self.kernel_defs.append(f"{fn} = _extern({self.code(node.target)})  "
                                        f"# {node.target}\n")
            self.lines.append(f"{name} = {fn}({call})")
            self.externs.add(str(node.target))
            self.lowered += 1
            return
        kw = ", ".join(f"{k!r}: {self.code(v)}" for k, v in node.kwargs.items())
        self.lines.append(f"{name} = _call({self.code(node.target)}, "
                          f"({', '.join(args)}{',' * (len(args) == 1)}), {{{kw}}})")
        self.fallbacks.append(str(node.target))

    def kernel(self, k, step):
        aliased = {j: k.inputs.index(self.in_place[n]) for j, n in enumerate(k.outputs)
                   if n in self.in_place and self.in_place[n] in k.inputs}
        src = kernels.render(k, aliased)
        try:
            kernels.compile_for(kernels.load(src), k, aliased)
        except Exception as e:  # noqa: BLE001  (numba cannot type it: the ops one by one)
            log_kernels.warning("kernel not compiled (%s): its ops run one by one", e)
            for n in k.members + [k.red] * (k.red is not None):
                self.node(n, step)
            return
        kid = self.n_kernels
        self.n_kernels += 1
        self.lowered += len(k.members) + (k.red is not None)
        self.kernel_defs.append(f"_k{kid} = _load('''\n{src}''')\n")
        for n in k.outputs:
            if n in self.in_place:
                dst = self.names[self.in_place[n]]
                self.lines.append(f"{self.names[n]} = {dst}  # written in place")
            else:
                self.lines.append(self.alloc(n, step))
        args = [size_code(s) for s in k.shape] + [self.names[x] for x in k.inputs]
        args += [self.names[n] for j, n in enumerate(k.outputs) if j not in aliased]
        if k.red is not None:
            self.lines.append(self.alloc(k.red, step, contiguous=True))
            outer = k.shape[:len(k.shape) - len(reduction(k.red)[1])]
            red, outer = self.names[k.red], outer or (1,)
            args.append(red if outer == shape_of(val(k.red)) else
                        f"{red}.reshape({shape_code(outer)})")
        ops = ", ".join(str(m.target).split(".")[1] for m in k.members + [k.red] * (
            k.red is not None))
        self.lines.append(f"_k{kid}({', '.join(args)})  # {ops}")
