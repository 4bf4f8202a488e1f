"""A FusedKernel as numba source, and loading it through an on-disk cache.

The kernel loops over the iteration shape (the outer loop a `prange` when the kernel is
compiled with `parallel=True`), reads each input at the index broadcasting gives it (0 in a
dim of size 1, nothing for a missing leading dim), computes each member in its dtype (every
value and constant cast: numba would compute float32 * 2.5 in float64), stores the members
read outside, and accumulates a trailing-dims reduction (sums in float64 or int64, rounded
once). `error_model="numpy"` gives inf/nan where Python would raise, `fastmath=False` keeps
IEEE results. Sizes are arguments: a graph with symbolic sizes calls the same compiled
kernel (one numba signature: same dtypes, ndims and layouts) for every size.

    @njit(cache=True, error_model='numpy', fastmath=False, parallel=False)
    def kernel(n0, in0, in1, in2, out0):
        for i0 in prange(n0):
            x0 = in0[i0]
            ...
"""
from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import sys

import numpy as np

from . import config
from .lowering import (
    EXACT,
    POINTWISE,
    D,
    hint_shape,
    hint_strides,
    is_size,
    literal,
    np_name,
    reduction,
    scalar_expr,
    shape_of,
    val,
)


def render(k, aliased=None) -> str:
    """The numba source of a FusedKernel (deterministic: names come from positions).
    `aliased` ({output index: input index}): outputs written into an input read at the same
    index (an optimizer's in-place update) are stored through that input's argument, not
    a second one: with one array behind two arguments LLVM must assume they overlap and
    does not vectorize the loop (Adam's update on 1M float32: 3.5 ms against 0.5)."""
    aliased = aliased or {}
    ndim = len(k.shape)
    kind, dims, _ = reduction(k.red) if k.red is not None else (None, (), False)
    outer = ndim - len(dims)
    parallel = k.numel >= config.parallel_threshold and outer > 0
    sizes = [f"n{d}" for d in range(ndim)]
    ins = [f"in{j}" for j in range(len(k.inputs))]
    outs = [f"out{j}" for j in range(len(k.outputs)) if j not in aliased] + \
        ["red"] * (k.red is not None)
    lines = [f"@njit(cache=True, error_model='numpy', fastmath=False, parallel={parallel})",
             f"def kernel({', '.join(sizes + ins + outs)}):"]
    body, depth = [], 1

    def emit(line):
        body.append("    " * depth + line)

    names = {}
    for j, x in enumerate(k.inputs):       # 0-d inputs (scalars) read once, before the loops
        if not is_size(x) and len(shape_of(val(x))) == 0:
            names[x] = f"x{j}"
            emit(f"x{j} = in{j}[()]")
    acc_dt = None
    if kind is not None:
        src_dt = val(k.red.args[0]).dtype
        acc_dt = src_dt if kind == "amax" else (D.float64 if src_dt in EXACT else D.int64)
    for d in range(ndim):
        if d == outer and kind is not None:
            emit(f"acc = {_init(kind, acc_dt)}")
        loop = "prange" if d == 0 else "range"
        emit(f"for i{d} in {loop}(n{d}):")
        depth += 1
    for j, x in enumerate(k.inputs):
        if x in names:
            continue
        names[x] = f"x{j}"
        where = "" if is_size(x) else f"[{_index(shape_of(val(x)), k.shape)}]"   # (a size: a number)
        emit(f"x{j} = in{j}{where}")
    for j, m in enumerate(k.members):
        names[m] = f"t{j}"
        emit(f"t{j} = {_member(m, names)}")
    full = ", ".join(f"i{d}" for d in range(ndim))
    for j, m in enumerate(k.outputs):
        emit(f"{f'in{aliased[j]}' if j in aliased else f'out{j}'}[{full}] = {names[m]}")
    if kind is not None:
        v = names[k.red.args[0]]
        if kind == "amax":
            cond = f"{v} > acc or {v} != {v}" if acc_dt in EXACT else f"{v} > acc"
            emit(f"if {cond}:")
            emit(f"    acc = {v}")
        else:
            emit(f"acc = acc + {np_name(acc_dt)}({v})")
        depth = outer + 1
        result = "acc"
        if kind == "mean":
            result = f"acc / ({' * '.join(sizes[outer:])})"
        idx = ", ".join(f"i{d}" for d in range(outer)) or "0"
        emit(f"red[{idx}] = {np_name(val(k.red).dtype)}({result})")
    return "\n".join(lines + body) + "\n"


def _init(kind, dt):
    if kind != "amax":
        return literal(0, dt)
    if dt in EXACT:
        return literal(float("-inf"), dt)
    return "False" if dt is D.bool_ else literal(int(-(2 ** (8 * dt.itemsize - 1))), dt)


def _index(shape, full):
    """An input's index inside the loops over `full` (broadcasting: right-aligned, 0 where
    the input has size 1)."""
    if len(shape) == 0:
        return "()"
    lead = len(full) - len(shape)
    return ", ".join("0" if s == 1 and full[lead + d] != 1 else f"i{lead + d}"
                     for d, s in enumerate(shape))


def _member(node, names):
    return scalar_expr(node, names, POINTWISE, lambda dt, code: f"{np_name(dt)}({code})",
                       literal)


def compile_for(fn, k, aliased=None) -> None:
    """Compiles a kernel now for the argument types the graph's values will have (sizes,
    then arrays of the fake values' dtypes, dims and layouts); raises numba's error when it
    cannot (the caller then runs the group's ops one by one)."""
    import numba
    from numpy.lib.stride_tricks import as_strided

    def like(v, shape=None):
        if is_size(v):
            return numba.types.float64 if isinstance(val(v).node.hint, float) else \
                numba.types.int64
        v = val(v)
        shape = hint_shape(v) if shape is None else shape
        strides = hint_strides(v) if len(shape) == v.dim() else [
            math.prod(shape[d + 1:]) for d in range(len(shape))]
        item = v.dtype.np.itemsize
        base = np.empty(1, v.dtype.np)          # only its flags are read (typeof)
        return numba.typeof(as_strided(base, shape, [s * item for s in strides]))
    types = [numba.types.int64] * len(k.shape) + [like(x) for x in k.inputs]
    types += [like(n) for j, n in enumerate(k.outputs) if j not in (aliased or {})]
    if k.red is not None:
        outer = k.hint[:len(k.shape) - len(reduction(k.red)[1])] or (1,)
        types.append(like(k.red, outer))
    fn.compile(tuple(types))


# --- loading ---------------------------------------------------------------------------------------
_HEADER = ("import numpy as np\nfrom numba import njit, prange\n\n"
           "from ember.kernels.cpu._fma_loop import llvm_fma\n\n\n")
_loaded: dict[str, object] = {}


def load(src: str):
    """The compiled kernel of a source: written once to config.cache_dir (named by its hash)
    and imported from there, so numba's `cache=True` finds it again in a new process."""
    src = _HEADER + src.lstrip("\n")     # (the module's text starts it on a new line)
    key = hashlib.sha256(src.encode()).hexdigest()[:20]
    fn = _loaded.get(key)
    if fn is None:
        folder = os.path.join(config.cache_dir, "kernels")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"k{key}.py")
        if not os.path.exists(path):
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                f.write(src)
            os.replace(tmp, path)
        name = f"ember_inductor_k{key}"      # importable by name: numba's cache reloads it
        spec = importlib.util.spec_from_file_location(name, path)
        module = sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        fn = _loaded[key] = module.kernel
    return fn


# --- hand-written kernels of ops that are not pointwise chains ----------------------------------
_JIT = "@njit(cache=True, error_model='numpy', fastmath=False)\n"
TEMPLATES = {
    # log_softmax over the last dim of (rows, n > 0), as ember's kernel: x - max -
    # log(sum(exp(x - max))), the sum and its log in float64, rounded once
    "log_softmax": _JIT + """def kernel(x, out):
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(x.shape[1]):
            if x[i, j] > m or x[i, j] != x[i, j]:
                m = x[i, j]
        s = 0.0
        for j in range(x.shape[1]):
            s += np.exp(x[i, j] - m)
        lse = np.log(s)
        for j in range(x.shape[1]):
            out[i, j] = (x[i, j] - m) - lse
""",
    # gather/scatter along the middle dim of (pre, n, post) arrays; False for an index out of
    # range (the caller then runs ember's kernel, which raises eager's error)
    "gather": _JIT + """def kernel(x, index, out):
    n = x.shape[1]
    for a in range(index.shape[0]):
        for b in range(index.shape[1]):
            for c in range(index.shape[2]):
                k = index[a, b, c]
                if k < 0 or k >= n:
                    return False
                out[a, b, c] = x[a, k, c]
    return True
""",
    "scatter_value": _JIT + """def kernel(out, index, value):
    n = out.shape[1]
    for a in range(index.shape[0]):
        for b in range(index.shape[1]):
            for c in range(index.shape[2]):
                k = index[a, b, c]
                if k < 0 or k >= n:
                    return False
                out[a, k, c] = value
    return True
""",
}


_templates: dict[str, object] = {}


def template(name):
    """A hand-written kernel of TEMPLATES, loaded (and cached) as the generated ones."""
    fn = _templates.get(name)
    if fn is None:
        fn = _templates[name] = load(TEMPLATES[name])
    return fn
