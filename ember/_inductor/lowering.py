"""What each aten op becomes in generated code (torch._inductor.lowering's place).

One rule per op, in tables:
- `POINTWISE`: a scalar expression over the operands' scalars, for numba kernels
  (`t0 * t1`); a chain of these is fused into one loop (scheduler.py), which may end with
  a sum/mean/amax (`reduction`);
- `LOWERINGS`: a NumPy expression over whole arrays (`np.matmul(a, b)`), or a call of a
  hand-written numba kernel (`_log_softmax(x, 1)`), for ops run one by one;
  `OUT_LOWERINGS` the ones that write into a planned buffer (`out=`);
- `EXTERNS`: ops run by calling ember's CPU kernel directly (convolution, batch norm;
  no dispatcher, no autograd), torch's ExternKernel; also the fallback of a LOWERINGS
  rule that declines a case.

A node is lowered only when its metadata (the fake value make_fx recorded) says it is a
CPU tensor of a dtype the lowering computes as ember's kernel does (`lowerable`).
"""
from __future__ import annotations

import math
import operator

import sympy

from ..core import dtype as D
from ..core.sym import is_sym_scalar, is_symint
from ..core.tensor import Tensor, contiguous_format, preserve_format
from ..dispatch.dispatcher import ops
from ..fx.experimental.symbolic_shapes import sym_size

aten = ops.aten
EXACT = {D.float32, D.float64}           # dtypes the lowerings compute as ember's kernels
ANY = EXACT | {D.int64, D.int32, D.bool_}
_INT = {D.int64, D.int32}


def val(n):
    """The fake value make_fx recorded for a node (None for a non-node)."""
    return n.meta.get("val") if hasattr(n, "meta") else None


def _ok(v, dtypes):
    return isinstance(v, Tensor) and v.device.type == "cpu" and v.dtype in dtypes


# --- sizes: ints, or SymInts of the ShapeEnv's symbols (dynamic shapes) ----------------------------
# Generated code reads each symbol from an input's shape when it runs (`s0 = v0.shape[0]`)
# and computes every size from them; decisions (layouts, broadcasting) use the sizes the
# graph was traced with (hints), and compare sizes by expression, so lowering records no
# guard.
def size(s):
    """A size as an int or its sympy expression (hashable, compared by structure)."""
    return s.node.expr if is_symint(s) else s


def shape_of(v) -> tuple:
    return tuple(size(s) for s in v.shape)


def strides_of(v) -> tuple:
    return tuple(size(s) for s in v.stride())


def hint(s) -> int:
    """The value a size had when the graph was traced."""
    return s.node.hint if is_symint(s) else int(s)


def hint_shape(v) -> tuple:
    return tuple(hint(s) for s in v.shape)


def hint_strides(v) -> tuple:
    return tuple(hint(s) for s in v.stride())


def backed(v) -> bool:
    """Whether a tensor value's sizes and strides are ints or hinted SymInts (not the
    data-dependent sizes of nonzero & co., which have no value to plan with)."""
    return all(not is_symint(s) or s.node.hint is not None for s in (*v.shape, *v.stride()))


def size_code(e) -> str:
    """A size as Python code over the symbols (`s0*s1`, `(s0 // 2)`)."""
    if is_symint(e):
        e = e.node.expr
    return repr(e) if isinstance(e, int) else sympy.pycode(e)


def size_sources(node):
    """[(symbol, where)] for the size symbols an input node brings, `where` the dim of its
    shape that holds it (None: the input is that size itself)."""
    v = val(node)
    found = [(v, None)] if is_symint(v) else list(
        zip(v.shape, range(v.dim()))) if isinstance(v, Tensor) else []
    return [(s.node.expr, d) for s, d in found if is_symint(s) and s.node.expr.is_Symbol]


def size_fn(shape):
    """A function of the symbols' values (keywords: `s0=5`) giving these sizes as ints."""
    names = sorted({str(x) for e in shape if not isinstance(e, int) for x in e.free_symbols})
    return eval(f"lambda {''.join(f'{n}, ' for n in names)}**_: {shape_code(shape)}")


def shape_code(shape) -> str:
    """A tuple of sizes as code: `(s0, 3)`, `(s0,)`."""
    return f"({', '.join(size_code(s) for s in shape)}{',' * (len(shape) == 1)})"


# --- pointwise ops as scalar expressions: (operands, node, lit) -> code or None ------------------
# operands are already in the node's compute dtype (`compute_dtype`); lit(x) is the Python
# number x as a literal of that dtype (numba: float32 * 2.5 would be float64)
def _infix(symbol):
    def rule(x, node, lit):
        if node.kwargs.get("alpha", 1) != 1 or len(node.args) > 2:
            return None
        return f"{x[0]} {symbol} {x[1]}"
    return rule


def _scaled(symbol):
    """add/sub with alpha as eager computes it: alpha in the result dtype, and for float32
    and float64 one fused multiply-add rounded once (LLVM's fma, as eager's fma and torch's
    vectorized kernels)."""
    plain = _infix(symbol)

    def rule(x, node, lit):
        alpha = node.kwargs.get("alpha", 1)
        if alpha == 1 and alpha is not True or len(node.args) > 2:
            return plain(x, node, lit)
        dt = val(node).dtype
        if dt is D.float32 or dt is D.float64:
            return f"llvm_fma({x[1]}, {lit(alpha if symbol == '+' else -alpha)}, {x[0]})"
        if dt.is_floating_point or dt is D.bool_ or isinstance(alpha, float):
            return None          # (half types: eager's float32 opmath; bool: logical)
        return f"{x[0]} {symbol} {lit(alpha)} * {x[1]}"
    return rule


def _call1(fn):
    return lambda x, node, lit: None if node.kwargs else f"{fn}({x[0]})"


def _pow(x, node, lit):
    e = node.args[1]
    if not isinstance(e, (int, float)) or isinstance(e, bool):
        return None
    # NumPy's fast paths for these exponents (np.power(a, 2) is a * a, exactly)
    special = {1: "{0}", 2: "{0} * {0}", 0.5: "np.sqrt({0})", -1: "{1} / {0}"}
    if e in special:
        return special[e].format(x[0], lit(1))
    return f"{x[0]} ** {lit(e)}"


def _sign(x, node, lit):
    """torch's sign: 0 for NaN."""
    return f"{lit(1)} if {x[0]} > 0 else ({lit(-1)} if {x[0]} < 0 else {lit(0)})"


def _sigmoid(x, node, lit):
    """As ember's kernel: exp(-|x|) keeps it finite; 1 / (1 + e) or e / (1 + e)."""
    e = f"np.exp(-np.abs({x[0]}))"
    return f"{lit(1)} / ({lit(1)} + {e}) if {x[0]} >= 0 else {e} / ({lit(1)} + {e})"


def _to_copy(x, node, lit):
    if set(node.kwargs) - {"dtype"}:
        return None
    return f"{x[0]} != 0" if val(node).dtype is D.bool_ else x[0]


POINTWISE = {
    aten.add.Tensor: _scaled("+"), aten.sub.Tensor: _scaled("-"),
    aten.mul.Tensor: _infix("*"), aten.div.Tensor: _infix("/"),
    aten.add.Scalar: _infix("+"), aten.sub.Scalar: _infix("-"),
    aten.mul.Scalar: _infix("*"), aten.div.Scalar: _infix("/"),
    aten.neg.default: lambda x, node, lit: f"-{x[0]}",
    aten.exp.default: _call1("np.exp"), aten.log.default: _call1("np.log"),
    aten.sqrt.default: _call1("np.sqrt"), aten.tanh.default: _call1("np.tanh"),
    aten.abs.default: _call1("np.abs"),
    # np.maximum(x, 0): NaN stays NaN, -0.0 becomes 0
    aten.relu.default: lambda x, node, lit: f"{x[0]} if {x[0]} > 0 or {x[0]} != {x[0]} "
                                            f"else {lit(0)}",
    aten.pow.Tensor_Scalar: _pow,
    aten.sign.default: _sign, aten.sgn.default: _sign, aten.sigmoid.default: _sigmoid,
    aten.where.self: lambda x, node, lit: f"{x[1]} if {x[0]} else {x[2]}",
    aten.threshold_backward.default: lambda x, node, lit: f"{lit(0)} if {x[1]} <= {x[2]} "
                                                          f"else {x[0]}",
    aten._to_copy.default: _to_copy,
}
for _name, _sym in (("le", "<="), ("lt", "<"), ("ge", ">="), ("gt", ">"), ("eq", "=="),
                    ("ne", "!=")):
    for _ov in ("Scalar", "Tensor"):
        POINTWISE[getattr(getattr(aten, _name), _ov)] = _infix(_sym)
COMPARISONS = {op for op in POINTWISE if op.name in ("le", "lt", "ge", "gt", "eq", "ne")}
# ops whose inputs may differ in dtype from the result (comparisons, where's condition)
MIXED = COMPARISONS | {aten.where.self, aten._to_copy.default}
_INT_OK = {aten.add.Tensor, aten.sub.Tensor, aten.mul.Tensor, aten.add.Scalar,
           aten.sub.Scalar, aten.mul.Scalar, aten.neg.default, aten.sum.default,
           aten.sum.dim_IntList, aten.amax.default}


def compute_dtype(node):
    """The dtype a pointwise node computes in: its inputs' (promoted) for a comparison,
    else its result's."""
    if node.target in COMPARISONS:
        dts = [val(a).dtype for a in node.args if hasattr(a, "op") and not is_size(a)]
        dt = max(dts, key=lambda d: (d.is_floating_point, d is not D.bool_, d.itemsize))
        for a in node.args:         # a number of a higher kind: torch's default dtype of it
            if isinstance(a, float) and not dt.is_floating_point:
                dt = D.get_default_dtype()
            elif (isinstance(a, int) and not isinstance(a, bool) or is_size(a)) and \
                    dt is D.bool_:
                dt = D.int64
        return dt
    return val(node).dtype


def uncast_args(node):
    """Positions of a pointwise node's arguments that keep their own dtype."""
    return {0} if node.target in (aten.where.self, aten._to_copy.default) else set()


def scalar_expr(node, names, rules, cast, literal) -> str:
    """A fused member as one scalar expression of a kernel language: operands cast to the
    node's compute dtype (`cast(dtype, code)`, except those keeping their own), constants
    as `literal(x, dtype)`, the rule's expression cast to the result dtype."""
    dt = compute_dtype(node)
    keep = uncast_args(node)
    ops = []
    for i, a in enumerate(node.args):
        if hasattr(a, "op"):
            same = not is_size(a) and val(a).dtype is dt
            ops.append(names[a] if same or i in keep else cast(dt, names[a]))
        else:
            ops.append(literal(a, dt))
    return cast(val(node).dtype, rules[node.target](ops, node, lambda x: literal(x, dt)))


# --- reductions a fused kernel can finish with: op -> (kind, dims, keepdim) ----------------------
def reduction(node):
    """(kind, dims, keepdim) of a sum/mean/amax node (dims normalised, all when empty), or
    None when it is not one the kernels do."""
    t, a = node.target, node.args
    if t is aten.sum.default or t is aten.mean.default:
        if node.kwargs.get("dtype") is not None:
            return None
        return t.name.split("::")[-1], tuple(range(val(a[0]).dim())), False
    kinds = {aten.sum.dim_IntList: "sum", aten.mean.dim: "mean", aten.amax.default: "amax"}
    if t not in kinds or node.kwargs.get("dtype") is not None or len(a) > 3:
        return None
    ndim = val(a[0]).dim()
    dims = a[1] if len(a) > 1 else node.kwargs.get("dim", [])
    dims = [dims] if isinstance(dims, int) else list(dims or [])
    dims = tuple(sorted({d % ndim for d in dims})) if dims and ndim else tuple(range(ndim))
    keep = a[2] if len(a) > 2 else node.kwargs.get("keepdim", False)
    return kinds[t], dims, bool(keep)


# --- whole-array NumPy lowerings: (args as code, kwargs, node) -> code or None ------------------
def _binary(symbol):
    def lower(a, kw, node):
        return None if kw.get("alpha", 1) != 1 else f"({a[0]} {symbol} {a[1]})"
    return lower


def _ufunc(name):
    return lambda a, kw, node: f"np.{name}({a[0]})" if not kw else None


def _compare(name):
    return lambda a, kw, node: f"np.{name}({a[0]}, {a[1]})"


def _reduce(name):
    def lower(a, kw, node):
        r = reduction(node)
        if r is None:
            return None
        axis = repr(r[1]) if r[1] else "None"
        if name == "mean":     # as np.mean computes it, without its warning for no elements
            shape = shape_of(val(node.args[0]))
            count = size_code(math.prod(shape[d] for d in r[1]))
            return f"np.divide(np.add.reduce({a[0]}, axis={axis}, keepdims={r[2]}), {count})"
        # the ufuncs' reduce: np.sum and np.amax's results without their Python wrapper
        return f"np.{_REDUCE_UFUNC[name]}.reduce({a[0]}, axis={axis}, keepdims={r[2]})"
    return lower


_REDUCE_UFUNC = {"sum": "add", "amax": "maximum"}


def _addmm(a, kw, node):
    if kw.get("beta", 1) != 1 or kw.get("alpha", 1) != 1 or len(a) > 3:
        return None
    return f"(np.matmul({a[1]}, {a[2]}) + {a[0]})"


def _clone(a, kw, node):
    """A copy as ember's clone makes it: C order for contiguous_format, the input's layout
    for preserve_format (NumPy's order="K" keeps it for dense inputs)."""
    fmt = kw.get("memory_format")
    if fmt is None or fmt is preserve_format:
        return f"np.array({a[0]}, order='K')"
    return f"np.array({a[0]}, order='C')" if fmt is contiguous_format else None


def _slice(a, kw, node):
    dim, start, end, step = (list(node.args[1:]) + [0, None, None, 1][len(node.args) - 1:])[:4]
    if kw or not isinstance(dim, int) or not isinstance(step, int) or any(
            not isinstance(v, (int, type(None))) and not is_size(v) for v in (start, end)):
        return None
    dim %= max(val(node).dim(), 1)
    bound = [("" if v is None else a[i]) for i, v in ((2, start), (3, end))]
    return f"{a[0]}[{':, ' * dim}{bound[0]}:{bound[1]}:{step}]"


def _select(a, kw, node):
    """Basic indexing: a view, as eager's (np.take would copy; `...` keeps a 0-d result an
    array)."""
    dim = node.args[1]
    if kw or not isinstance(dim, int):
        return None
    return f"{a[0]}[{':, ' * (dim % val(node.args[0]).dim())}{a[2]}, ...]"


def _result_shape(node) -> str:
    return shape_code(shape_of(val(node)))


def _reshape(a, kw, node):
    """Adding or dropping dims of size 1 is always a view: reshape makes it fastest."""
    return f"{a[0]}.reshape({_result_shape(node)})"


def is_size(a) -> bool:
    """Whether a node argument is a symbolic size computed in the graph (or a SymFloat of
    sizes: `x.shape[-1] ** 0.5`)."""
    return hasattr(a, "op") and is_sym_scalar(val(a))


def _np_dtype(node):
    return np_name(val(node).dtype)


def empty_code(v, contiguous=False, site=None) -> str:
    """Code allocating an uninitialised array of a value's layout: `np.empty(shape)` for C
    order (or `contiguous`), a transposed `np.empty` for a permuted dense layout
    (channels-last, a transpose's), C order for anything else. `site`: the name of an
    allocation site's slot, whose buffer is recycled (`_reuse(site, shape)`, runtime.py)."""
    shape, dtype = shape_of(v), np_name(v.dtype)
    empty = "np.empty(" if site is None else f"_reuse({site}, "
    n, strides = hint_shape(v), hint_strides(v)
    dims = [d for d in range(len(n)) if n[d] != 1]
    order = sorted(range(len(n)), key=lambda d: (-strides[d], d))
    expect, numel = {}, 1
    for d in reversed(order):
        expect[d], numel = numel, numel * n[d]
    if contiguous or [d for d in order if d in dims] == dims or any(
            strides[d] != expect[d] for d in dims):
        return f"{empty}{shape_code(shape)}, {dtype})"
    inv = tuple(order.index(d) for d in range(len(n)))
    return f"{empty}{shape_code([shape[d] for d in order])}, {dtype}).transpose({inv!r})"


def _empty_like(node):
    return empty_code(val(node))


def _full_like(a, kw, node):
    if kw.get("memory_format") not in (None, preserve_format, contiguous_format):
        return None
    return f"_filled({_empty_like(node)}, {a[1]})"


def _same_but(node, dim_arg=1, index_arg=2):
    """Whether the index has the input's shape in every dim but `dim` (the gather and
    scatter kernels then see both as (pre, n, post) arrays)."""
    x, idx, dim = val(node.args[0]), val(node.args[index_arg]), node.args[dim_arg]
    if not isinstance(dim, int) or x.dim() == 0 or x.dim() != idx.dim():
        return False
    dim %= x.dim()
    return all(a == b for d, (a, b) in enumerate(zip(shape_of(x), shape_of(idx))) if d != dim)


def _gather(a, kw, node):
    if kw or len(node.args) > 3 or not _same_but(node):
        return None
    return f"_gather({a[0]}, {node.args[1] % val(node).dim()}, {a[2]})"


def _scatter_value(a, kw, node):
    v = val(node)
    if kw or not _same_but(node) or not isinstance(node.args[3], (int, float)) or \
            hint_strides(v) != _c_strides(hint_shape(v)):
        return None
    return f"_scatter(_copy_into({empty_code(v)}, {a[0]}), {node.args[1] % v.dim()}, " \
           f"{a[2]}, {a[3]})"


def _c_strides(shape):
    return tuple(math.prod(shape[d + 1:]) for d in range(len(shape)))


def _log_softmax(a, kw, node):
    x, (dim, half) = val(node.args[0]), node.args[1:3]
    if kw or half or x.dim() == 0 or dim % x.dim() != x.dim() - 1 or 0 in hint_shape(x) or \
            x.dtype not in EXACT:
        return None
    return f"_log_softmax({a[0]}, {x.dim() - 1})"


def _scatter_into(dim, index):
    def lower(a, kw, node):
        """A copy of the input (in the result's layout) with `src` written at the index."""
        if kw:
            return None
        d = node.args[dim] if len(node.args) > dim else 0
        d %= max(val(node).dim(), 1)
        where = index(node, d)
        if where is None:
            return None
        return f"_put(_copy_into({_empty_like(node)}, {a[0]}), {where}, {a[1]})"
    return lower


def _slice_index(node, d):
    start, end, step = (list(node.args[3:]) + [None, None, 1][len(node.args) - 3:])[:3]
    if any(hasattr(v, "op") for v in (start, end, step)):
        return None
    return f"{(slice(None),) * d + (slice(start, end, step),)!r}"


LOWERINGS = {
    aten.add.Tensor: _binary("+"), aten.sub.Tensor: _binary("-"),
    aten.mul.Tensor: _binary("*"), aten.div.Tensor: _binary("/"),
    aten.add.Scalar: _binary("+"), aten.sub.Scalar: _binary("-"),
    aten.mul.Scalar: _binary("*"), aten.div.Scalar: _binary("/"),
    aten.neg.default: _ufunc("negative"), aten.exp.default: _ufunc("exp"),
    aten.log.default: _ufunc("log"), aten.sqrt.default: _ufunc("sqrt"),
    aten.tanh.default: _ufunc("tanh"), aten.abs.default: _ufunc("abs"),
    aten.relu.default: lambda a, kw, node: f"np.maximum({a[0]}, 0)",
    aten.sigmoid.default: lambda a, kw, node: f"_sigmoid({a[0]})",
    aten.sign.default: lambda a, kw, node: f"np.sign(np.nan_to_num({a[0]}, nan=0))",
    aten.sgn.default: lambda a, kw, node: f"np.sign(np.nan_to_num({a[0]}, nan=0))",
    aten.pow.Tensor_Scalar: lambda a, kw, node: f"np.power({a[0]}, {a[1]})",
    # a number to a tensor's power (Adam's bias corrections, beta ** step), as eager
    aten.pow.Scalar: lambda a, kw, node: f"_power({a[0]}, {a[1]})",
    aten.threshold_backward.default: lambda a, kw, node: (
        f"np.where({a[1]} <= {a[2]}, 0, {a[0]})"),
    aten.where.self: lambda a, kw, node: f"np.where({a[0]}, {a[1]}, {a[2]})",
    aten.sum.dim_IntList: _reduce("sum"), aten.amax.default: _reduce("amax"),
    aten.mean.dim: _reduce("mean"), aten.mean.default: _reduce("mean"),
    aten.sum.default: _reduce("sum"),
    aten.mm.default: lambda a, kw, node: f"np.matmul({a[0]}, {a[1]})",
    aten.bmm.default: lambda a, kw, node: f"np.matmul({a[0]}, {a[1]})",
    aten.addmm.default: _addmm,
    aten.permute.default: lambda a, kw, node: f"{a[0]}.transpose({a[1]})",
    aten.view.default: lambda a, kw, node: f"{a[0]}.reshape({a[1]})",
    aten._unsafe_view.default: lambda a, kw, node: f"{a[0]}.reshape({a[1]})",  # (reshape's copy)
    aten.expand.default: lambda a, kw, node: (
        f"np.broadcast_to({a[0]}, {_result_shape(node)})" if not kw else None),
    aten.unsqueeze.default: _reshape, aten.squeeze.dim: _reshape, aten.squeeze.dims: _reshape,
    aten.detach.default: lambda a, kw, node: a[0],
    aten.alias.default: lambda a, kw, node: a[0],
    aten.clone.default: _clone,
    aten.scalar_tensor.default: lambda a, kw, node: f"np.array({a[0]}, dtype={_np_dtype(node)})",
    aten.full.default: lambda a, kw, node: f"np.full({a[0]}, {a[1]}, dtype={_np_dtype(node)})",
    aten.full_like.default: _full_like,
    aten.slice.Tensor: _slice,
    aten.select.int: _select,
    aten._to_copy.default: lambda a, kw, node: (
        None if set(kw) - {"dtype"} else f"{a[0]}.astype({_np_dtype(node)})"),
    aten.gather.default: _gather, aten.scatter.value: _scatter_value,
    aten._log_softmax.default: _log_softmax,
    aten.slice_scatter.default: _scatter_into(2, _slice_index),
    aten.select_scatter.default: _scatter_into(
        2, lambda node, d: None if hasattr(node.args[3], "op") else
        f"{(slice(None),) * d + (node.args[3],)!r}"),
    aten.copy.default: lambda a, kw, node: f"_copy_into({_empty_like(node)}, {a[1]})",
    aten.copy_.default: lambda a, kw, node: f"_copy_into({a[0]}, {a[1]})",
}
for _name, _ufn in (("le", "less_equal"), ("lt", "less"), ("ge", "greater_equal"),
                    ("gt", "greater"), ("eq", "equal"), ("ne", "not_equal")):
    for _ov in ("Scalar", "Tensor"):
        LOWERINGS[getattr(getattr(aten, _name), _ov)] = _compare(_ufn)
# ops whose lowering gives an array of the result's dtype already (no `_as` cast)
EXACT_RESULT = {aten.full_like.default, aten.gather.default, aten.scatter.value,
                aten._log_softmax.default, aten.scalar_tensor.default}
# ops whose result is a view of (or is) their first argument: they share its buffer
VIEWS = {aten.permute.default, aten.view.default, aten._unsafe_view.default,
         aten.expand.default, aten.unsqueeze.default,
         aten.squeeze.dim, aten.squeeze.dims, aten.detach.default, aten.alias.default,
         aten.slice.Tensor, aten.select.int, aten.copy_.default}


# --- lowerings writing into a planned buffer: (args, kwargs, node, out) -> code or None ---------
def _out_ufunc(name):
    def lower(a, kw, node, out):
        if kw.get("alpha", 1) != 1 or kw:
            return None
        ins = [val(x) for x in node.args if hasattr(x, "op")]
        if any(not isinstance(v, Tensor) or v.dtype is not ins[0].dtype for v in ins):
            return None
        return f"np.{name}({', '.join(a)}, out={out})"
    return lower


def _out_addmm(a, kw, node, out):
    if _addmm(a, kw, node) is None:
        return None
    return f"np.add(np.matmul({a[1]}, {a[2]}, out={out}), {a[0]}, out={out})"


OUT_LOWERINGS = {
    aten.mm.default: lambda a, kw, node, out: f"np.matmul({a[0]}, {a[1]}, out={out})",
    aten.bmm.default: lambda a, kw, node, out: f"np.matmul({a[0]}, {a[1]}, out={out})",
    aten.addmm.default: _out_addmm,
}
for _op, _ufn in ((aten.add.Tensor, "add"), (aten.sub.Tensor, "subtract"),
                  (aten.mul.Tensor, "multiply"), (aten.div.Tensor, "divide"),
                  (aten.exp.default, "exp"), (aten.log.default, "log"),
                  (aten.neg.default, "negative"), (aten.sqrt.default, "sqrt"),
                  (aten.tanh.default, "tanh")):
    OUT_LOWERINGS[_op] = _out_ufunc(_ufn)

# --- sizes computed in the graph (dynamic shapes): Python on ints -------------------------------
SIZE_OPS = {sym_size: "{}.shape[{}]", operator.add: "{} + {}", operator.sub: "{} - {}",
            operator.mul: "{} * {}", operator.floordiv: "{} // {}", operator.mod: "{} % {}",
            operator.pow: "{} ** {}", operator.truediv: "{} / {}", max: "max({}, {})",
            min: "min({}, {})"}

# --- ops run by their CPU kernel, called directly ------------------------------------------------
EXTERNS = {aten._log_softmax.default, aten._log_softmax_backward_data.default,
           aten.convolution.default, aten.convolution_backward.default,
           aten.native_batch_norm.default, aten.native_batch_norm_backward.default,
           aten.nll_loss_forward.default, aten.nll_loss_backward.default,
           aten.gather.default, aten.scatter.value, aten.scatter.src}


def lowerable(node) -> bool:
    """Whether a call_function node may be lowered (as NumPy, fused or extern): CPU
    tensors of dtypes the lowering computes as ember's kernel does."""
    t = node.target
    if t not in LOWERINGS and t not in EXTERNS:
        return False
    ins = [val(a) for a in node.args if hasattr(a, "op") and not is_size(a)]
    if not all(_ok(v, ANY) and backed(v) for v in ins) or any(
            isinstance(a, complex) for a in node.args):
        return False     # (a complex number: the kernel raises as in eager)
    if t in EXTERNS:
        return True
    if t is aten.pow.Tensor_Scalar and not ins[0].dtype.is_floating_point and not (
            isinstance(node.args[1], int) and node.args[1] >= 0):
        return False                   # (integers to negative powers: eager's error)
    out = val(node)
    if not _ok(out, ANY) or not backed(out):
        return False
    if t in MIXED or t in VIEWS or t in (aten.copy.default, aten.full_like.default,
                                         aten.clone.default):
        return True
    if t in _INT_OK and out.dtype in _INT and all(v.dtype in _INT | {D.bool_} for v in ins):
        return True                    # integer arithmetic: NumPy's as torch's
    if t in (aten.sum.default, aten.sum.dim_IntList) and out.dtype is D.int64:
        return all(v.dtype in _INT | {D.bool_} for v in ins)
    # float32 with float64 computes in float64 in NumPy as in ember (then rounds once);
    # integer operands of a pointwise float op are cast to its dtype first (`int_operands`)
    return out.dtype in EXACT and all(v.dtype in (ANY if t in POINTWISE else EXACT)
                                      for v in ins)


def int_operands(node):
    """Positions of a float op's integer or bool tensor operands, which the generated code
    casts to the result dtype (torch computes float32 / int64 in float32, NumPy in
    float64)."""
    out = val(node)
    if node.target not in POINTWISE or node.target in MIXED or out.dtype not in EXACT:
        return []
    return [i for i, a in enumerate(node.args) if hasattr(a, "op") and not is_size(a)
            and val(a).dtype not in EXACT]


def literal(x, dtype) -> str:
    """A Python number as numba code of `dtype` (np.float32(2.5), np.float64(np.inf))."""
    if isinstance(x, float) and not math.isfinite(x):
        x = "np.nan" if math.isnan(x) else ("np.inf" if x > 0 else "-np.inf")
    return f"{np_name(dtype)}({x if isinstance(x, str) else repr(x)})"


def np_name(dtype) -> str:
    """NumPy's scalar type of an ember dtype as code (`np.float32`, `np.bool_`)."""
    return "np.bool_" if dtype is D.bool_ else f"np.{dtype.np.name}"
