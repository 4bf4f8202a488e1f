"""ember's "inductor" backend, first part: AOT autograd's forward and backward graphs
lowered to generated Python over NumPy arrays.

Each graph becomes one Python function whose body calls NumPy directly, one line per node
(`addmm = np.matmul(relu, permute_1) + arg4_1`), so a compiled step pays neither the
dispatcher nor the autograd engine per op. A node is lowered only when its metadata (the
fake value make_fx recorded) says it is a CPU tensor of a dtype the lowering computes
exactly as ember's kernel does; any other node runs its aten op on ember tensors, in the
same function. Loops are not fused yet (no numba kernels): that is the next step.

    >>> f = ember.compile(lambda x: (x @ x.t()).relu().sum(0), backend="inductor")
    >>> f(ember.eye(2))
    tensor([1., 1.])
"""
from __future__ import annotations

import numpy as np

from ..core import dtype as D
from ..core.tensor import Tensor, from_array
from ..dispatch.dispatcher import ops

aten = ops.aten
_EXACT = {D.float32, D.float64}        # dtypes the lowerings compute as ember's kernels
_ANY = _EXACT | {D.int64, D.int32, D.bool_}


def compile_fx(gm, example_inputs):
    """The backend: AOT autograd with this module's lowering as both graphs' compiler."""
    from .._decomp import core_aten_decompositions
    from .._functorch.aot_autograd import aot_graph
    return aot_graph(gm, example_inputs, fw_compiler=lower,
                     decompositions=core_aten_decompositions())


def _val(n):
    return n.meta.get("val") if hasattr(n, "meta") else None


def _ok(v, dtypes):
    return isinstance(v, Tensor) and v.device.type == "cpu" and v.dtype in dtypes


# --- the lowerings: (args as code, kwargs, node) -> code or None (not lowered) ------------------
def _binary(symbol):
    def lower(a, kw, node):
        if kw.get("alpha", 1) != 1:
            return None
        return f"({a[0]} {symbol} {a[1]})"
    return lower


def _ufunc(name):
    return lambda a, kw, node: f"np.{name}({a[0]})" if not kw else None


def _compare(name):
    return lambda a, kw, node: f"np.{name}({a[0]}, {a[1]})"


def _reduce(name):
    def lower(a, kw, node):
        dims = node.args[1] if len(node.args) > 1 else kw.get("dim")
        keep = node.args[2] if len(node.args) > 2 else kw.get("keepdim", False)
        if kw.get("dtype") is not None or len(node.args) > 3:
            return None
        dims = [dims] if isinstance(dims, int) else dims
        axis = "None" if not dims else repr(tuple(dims))
        return f"np.{name}({a[0]}, axis={axis}, keepdims={bool(keep)})"
    return lower


def _addmm(a, kw, node):
    if kw.get("beta", 1) != 1 or kw.get("alpha", 1) != 1 or len(a) > 3:
        return None
    return f"(np.matmul({a[1]}, {a[2]}) + {a[0]})"


def _clone(a, kw):
    """A copy as ember's clone makes it: C order for contiguous_format, the input's layout
    for preserve_format (NumPy's order="K" keeps it for dense inputs)."""
    from ..core.tensor import contiguous_format, preserve_format
    fmt = kw.get("memory_format")
    if fmt is None or fmt is preserve_format:
        return f"np.array({a[0]}, order='K')"
    return f"np.array({a[0]}, order='C')" if fmt is contiguous_format else None


def _slice(a, kw, node):
    dim, start, end, step = (list(node.args[1:]) + [0, None, None, 1][len(node.args) - 1:])[:4]
    if kw or any(not isinstance(v, (int, type(None))) for v in (dim, start, end, step)):
        return None
    dim %= max(_val(node).dim(), 1)
    return f"{a[0]}[{':, ' * dim}{'' if start is None else start}:" \
           f"{'' if end is None else end}:{step}]"


def _to_copy(a, kw, node):
    if set(kw) - {"dtype"}:
        return None
    return f"{a[0]}.astype(np.{_val(node).dtype.np.name})"


def _full(a, kw, node):
    return f"np.full({a[0]}, {a[1]}, dtype=np.{_val(node).dtype.np.name})"


LOWERINGS = {
    aten.add.Tensor: _binary("+"), aten.sub.Tensor: _binary("-"),
    aten.mul.Tensor: _binary("*"), aten.div.Tensor: _binary("/"),
    aten.add.Scalar: _binary("+"), aten.sub.Scalar: _binary("-"),
    aten.mul.Scalar: _binary("*"), aten.div.Scalar: _binary("/"),
    aten.neg.default: _ufunc("negative"), aten.exp.default: _ufunc("exp"),
    aten.log.default: _ufunc("log"), aten.sqrt.default: _ufunc("sqrt"),
    aten.tanh.default: _ufunc("tanh"), aten.abs.default: _ufunc("abs"),
    aten.relu.default: lambda a, kw, node: f"np.maximum({a[0]}, 0)",
    aten.le.Scalar: _compare("less_equal"), aten.lt.Scalar: _compare("less"),
    aten.ge.Scalar: _compare("greater_equal"), aten.gt.Scalar: _compare("greater"),
    aten.eq.Scalar: _compare("equal"), aten.ne.Scalar: _compare("not_equal"),
    aten.le.Tensor: _compare("less_equal"), aten.lt.Tensor: _compare("less"),
    aten.ge.Tensor: _compare("greater_equal"), aten.gt.Tensor: _compare("greater"),
    aten.eq.Tensor: _compare("equal"), aten.ne.Tensor: _compare("not_equal"),
    aten.where.self: lambda a, kw, node: f"np.where({a[0]}, {a[1]}, {a[2]})",
    aten.sum.dim_IntList: _reduce("sum"), aten.amax.default: _reduce("amax"),
    aten.sum.default: lambda a, kw, node: f"np.sum({a[0]})" if not kw else None,
    aten.mm.default: lambda a, kw, node: f"np.matmul({a[0]}, {a[1]})",
    aten.addmm.default: _addmm,
    aten.permute.default: lambda a, kw, node: f"{a[0]}.transpose({a[1]})",
    aten.view.default: lambda a, kw, node: f"{a[0]}.reshape({a[1]})",
    aten.expand.default: lambda a, kw, node: (
        f"np.broadcast_to({a[0]}, {tuple(_val(node).shape)!r})" if not kw else None),
    aten.detach.default: lambda a, kw, node: a[0],
    aten.alias.default: lambda a, kw, node: a[0],
    aten.clone.default: lambda a, kw, node: _clone(a, kw),
    aten.scalar_tensor.default: lambda a, kw, node: (
        f"np.array({a[0]}, dtype=np.{_val(node).dtype.np.name})"),
    aten.full.default: _full,
    aten.slice.Tensor: _slice,
    aten.select.int: lambda a, kw, node: f"np.take({a[0]}, {a[2]}, axis={a[1]})",
    aten._to_copy.default: _to_copy,
}
# ops whose inputs may differ in dtype from the result (comparisons, where's condition)
_MIXED = {op for op in LOWERINGS if op.name in ("le", "lt", "ge", "gt", "eq", "ne", "where",
                                                 "_to_copy")}


def _lowerable(node) -> bool:
    if node.target not in LOWERINGS:
        return False
    out = _val(node)
    if not _ok(out, _ANY):
        return False
    ins = [_val(a) for a in node.args if hasattr(a, "op")]
    if not all(_ok(v, _ANY) for v in ins):
        return False
    if node.target in _MIXED:
        return True
    # float32 with float64 computes in float64 in NumPy as in ember (then rounds once)
    return out.dtype in _EXACT and all(v.dtype in _EXACT for v in ins)


# --- code generation ----------------------------------------------------------------------------
def lower(gm, example_inputs=None):
    """The graph as one generated Python function over NumPy arrays (see the module
    docstring); returns a callable taking and returning ember tensors."""
    names, lines, consts = {}, [], []

    def code(a):
        if hasattr(a, "op"):
            return names[a]
        if isinstance(a, (list, tuple)):
            inner = ", ".join(code(x) for x in a)
            return f"[{inner}]" if isinstance(a, list) else f"({inner}{',' if len(a) == 1 else ''})"
        if a is None or isinstance(a, (bool, int, float, str)) and repr(a) not in (
                "inf", "-inf", "nan"):
            return repr(a)
        consts.append(a)
        return f"_c[{len(consts) - 1}]"

    params, lowered = [], 0
    for node in gm.graph.nodes:
        name = f"v{len(names)}"
        names[node] = name
        if node.op == "placeholder":
            params.append(name)
        elif node.op == "output":
            lines.append(f"return [{', '.join(code(x) for x in node.args[0])}]")
        elif node.op == "call_function" and _lowerable(node):
            args = [code(a) for a in node.args]
            expr = LOWERINGS[node.target](args, dict(node.kwargs), node)
            if expr is None:
                lines.append(_fallback_line(name, node, code))
            else:
                dt = _val(node).dtype.np.name
                lines.append(f"{name} = _as({expr}, np.{dt})")
                lowered += 1
        else:
            lines.append(_fallback_line(name, node, code))
    src = f"def compiled({', '.join(params)}):\n" + "".join(f"    {ln}\n" for ln in lines)
    scope = {"np": np, "_c": consts, "_as": _as, "_call": _call}
    exec(compile(src, "<ember._inductor>", "exec"), scope)  # noqa: S102  (generated code)
    fn = scope["compiled"]
    fn.source, fn.lowered = src, lowered

    def run(*args):
        arrays = [a._np if isinstance(a, Tensor) else a for a in args]
        if any(a is None for a in arrays):          # not CPU data: the graph as it is
            return gm(*args)
        return [_wrap(r, args) for r in fn(*arrays)]
    run.source, run.lowered = src, lowered
    return run


def _fallback_line(name, node, code):
    args = ", ".join(code(a) for a in node.args) + ("," if len(node.args) == 1 else "")
    kwargs = ", ".join(f"{k!r}: {code(v)}" for k, v in node.kwargs.items())
    return f"{name} = _call({code(node.target)}, ({args}), {{{kwargs}}})"


def _as(a, dt):
    a = np.asarray(a)
    return a if a.dtype == dt else a.astype(dt)


def _to_tensor(x):
    if isinstance(x, np.ndarray):
        return from_array(x)
    if isinstance(x, list):
        return [_to_tensor(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_to_tensor(v) for v in x)
    return x


def _from_tensor(x):
    if isinstance(x, Tensor):
        return x._np
    if isinstance(x, (list, tuple)):
        return type(x)(_from_tensor(v) for v in x)
    return x


def _call(target, args, kwargs):
    """A node that is not lowered: its op on ember tensors over the arrays."""
    out = target(*_to_tensor(args), **{k: _to_tensor(v) for k, v in kwargs.items()})
    return _from_tensor(out)


def _wrap(r, args):
    """An output array as an ember tensor (an input given back is that input)."""
    if not isinstance(r, np.ndarray):
        return r
    for a in args:
        if isinstance(a, Tensor) and a._np is r:
            return a
    return from_array(r)
