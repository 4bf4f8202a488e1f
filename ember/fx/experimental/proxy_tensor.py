"""make_fx: record the ATen ops a function runs, through the dispatcher, as an FX graph.

A TorchDispatchMode on the Python key sees every op after autocast, autograd and
composite decomposition, so the graph holds the backend-level ops (`aten.t` +
`aten.addmm` for `F.linear`), and a `.backward()` inside the function shows up as its
backward ops:

    >>> def f(x, y):
    ...     return ember.tanh(x @ y)
    >>> gm = make_fx(f)(ember.ones(2, 3), ember.ones(3, 4))
    >>> [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    ['aten.mm.default', 'aten.tanh.default']
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import math
import operator
import weakref
from collections.abc import Callable
from typing import Any

import ember
from ember._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from ember._subclasses.meta_utils import no_dispatch_modes
from ember.core.sym import is_sym_scalar, is_symint
from ember.core.tensor import Tensor
from ember.utils._python_dispatch import TorchDispatchMode

from ..graph import Graph
from ..graph_module import GraphModule
from ..node import Node, map_aggregate
from ..passes.shape_prop import _extract_tensor_metadata
from . import symbolic_shapes


def _meta_val(t: Tensor) -> Tensor:
    """A data-free stand-in with t's shape, strides and dtype: a fake gets a detached
    alias (torch's snapshot_fake: the graph holds no reference to the traced tensor, so
    reference counts stay as without tracing), a real tensor a Meta twin."""
    with no_dispatch_modes():
        if isinstance(t, FakeTensor):
            return t.detach()
        return ember.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")


_LIFT_FRESH = ember.ops.aten.lift_fresh.default


class _ProxyMode(TorchDispatchMode):
    """Runs each op for real and records it; tensors are mapped to the nodes that made
    them (an in-place op moves its tensor to the new node)."""

    def __init__(self, graph: Graph, constants: dict[str, Tensor],
                 decomposition_table: dict | None, symbolic: bool = False):
        super().__init__()
        self.graph = graph
        self.constants = constants
        self.decompositions = decomposition_table or {}
        # id(tensor) -> (weak reference to the tensor, node): weak, as torch's tracker, so
        # that tracing changes no reference count (AccumulateGrad steals a gradient only
        # when nothing else holds it)
        self.nodes: dict[int, tuple[weakref.ref, Node]] = {}
        self.symbolic = symbolic
        self.sym_sources: dict = {}        # size symbol -> (node of a tensor, dim)
        self.sym_nodes: dict = {}          # sympy expression -> its node
        self.by_storage: dict[int, list[tuple[weakref.ref, Node]]] = {}   # id(storage) -> same

    def track(self, t: Tensor, node: Node) -> None:
        ref = weakref.ref(t)
        self.nodes[id(t)] = (ref, node)
        if self.symbolic:
            for dim, n in enumerate(t._shape):    # where each size symbol can be read
                if is_symint(n) and n.node.expr.is_Symbol:
                    self.sym_sources.setdefault(n.node.expr, (node, dim))
        if t._storage is not None:
            self.by_storage.setdefault(id(t._storage), []).append((ref, node))
        node.meta["val"] = _meta_val(t)
        node.meta["tensor_meta"] = _extract_tensor_metadata(t)

    def arg(self, a):
        """A value as a node argument: tracked tensors become their node, others lifted
        as constants."""
        def one(x):
            if is_sym_scalar(x):
                return self._sym_node(x.node.expr, x.node.shape_env)
            if not isinstance(x, Tensor):
                return x
            hit = self.nodes.get(id(x))
            if hit is not None and hit[0]() is x:
                return hit[1]
            node = self._same_view(x)
            if node is not None:
                return node
            name = f"_tensor_constant{len(self.constants)}"
            self.constants[name] = x
            node = self.graph.get_attr(name)
            self.track(x, node)
            return node
        return map_aggregate(a, one)

    def _sym_node(self, expr, env):
        """A node computing a symbolic size: `sym_size.int(x, dim)` for a symbol, Python
        arithmetic on those for an expression (torch's graphs); its meta["val"] is the
        SymInt (a SymFloat for a float expression: `x.shape[-1] ** 0.5`)."""
        hit = self.sym_nodes.get(expr)
        if hit is not None:
            return hit
        if expr.is_Integer:
            return int(expr)
        if expr.is_Number:
            return float(expr)
        if expr.is_Symbol:
            if expr not in self.sym_sources:
                raise RuntimeError(f"make_fx: the size symbol {expr} comes from no traced tensor")
            node = self.graph.call_function(symbolic_shapes.sym_size, self.sym_sources[expr])
        else:
            fn, args = _sym_call(expr)
            node = self.graph.call_function(fn, tuple(self._sym_node(a, env) for a in args))
        node.meta["val"] = env.symint_of(expr, _pytype(expr))
        self.sym_nodes[expr] = node
        return node

    def _same_view(self, x: Tensor) -> Node | None:
        """The node of a tracked tensor that `x` is an alias of with the same view
        (a Python-level alias ember's runtime made without an op), if any."""
        st = x._storage
        key = (x._shape, x.stride(), x.storage_offset(), x._dtype)
        for ref, node in reversed(self.by_storage.get(id(st), ()) if st is not None else ()):
            t = ref()
            if t is not None and t._storage is st \
                    and (t._shape, t.stride(), t.storage_offset(), t._dtype) == key:
                return node
        return None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is _LIFT_FRESH:      # ember.tensor(...) inside f: a copy of the constant
            func = ember.ops.aten.lift_fresh_copy.default
        decomposition = self.decompositions.get(func)
        if decomposition is not None:
            with self:
                return decomposition(*args, **kwargs)
        out = func(*args, **kwargs)
        args, kwargs = _without_defaults(func, tuple(args), kwargs)
        node = self.graph.call_function(func, self.arg(args), self.arg(kwargs))
        if isinstance(out, Tensor):
            self.track(out, node)
        elif isinstance(out, (tuple, list)):
            for i, o in enumerate(out):
                if isinstance(o, Tensor):
                    self.track(o, self.graph.call_function(operator.getitem, (node, i)))
        return out


def _pytype(expr):
    """float for an expression with a float or fraction in it (`s0 ** 0.5`, `s0 / s1`),
    else int."""
    import sympy
    return float if any(isinstance(a, sympy.Float) or (a.is_Rational and not a.is_Integer)
                        or (isinstance(a, sympy.Pow) and a.exp.is_negative)
                        for a in sympy.preorder_traversal(expr)) else int


def _sym_call(expr):
    """(Python function, operands) that compute a sympy size expression."""
    import sympy
    if isinstance(expr, sympy.Add):
        return _fold(operator.add, expr.args)
    if isinstance(expr, sympy.Mul):
        inverse = [a for a in expr.args if isinstance(a, sympy.Pow) and a.exp == -1]
        if inverse:                 # a / b (sympy's a * b**-1)
            rest = [a for a in expr.args if a is not inverse[0]]
            return operator.truediv, (sympy.Mul(*rest), inverse[0].base)
        return _fold(operator.mul, expr.args)
    if isinstance(expr, symbolic_shapes.FloorDiv):
        return operator.floordiv, expr.args
    if isinstance(expr, sympy.Mod):
        return operator.mod, expr.args
    if isinstance(expr, sympy.Pow):
        if expr.exp == -1:
            return operator.truediv, (sympy.Integer(1), expr.base)
        return operator.pow, expr.args
    if isinstance(expr, sympy.Max):
        return _fold(max, expr.args)
    raise NotImplementedError(f"make_fx: no Python form for the size expression {expr}")


def _fold(fn, operands):
    """fn over two operands; more are nested left to right: ((a + b) + c)."""
    import sympy
    if len(operands) == 2:
        return fn, operands
    rest = {operator.add: sympy.Add, operator.mul: sympy.Mul, max: sympy.Max}[fn]
    return fn, (rest(*operands[:-1]), operands[-1])


@functools.cache
def _schema_defaults(func) -> dict[str, Any]:
    """The Python values of an overload's schema defaults (those that are literals)."""
    from ember.codegen.model import default_to_python
    out = {}
    for a in func.schema.arguments.flat():
        if a.default is not None:
            try:
                out[a.name] = eval(default_to_python(a), {"inf": math.inf})
            except Exception:  # noqa: BLE001, S112 - a non-literal default is simply kept
                continue
    return out


def _same_value(v, d) -> bool:
    if isinstance(v, (list, tuple)) and isinstance(d, (list, tuple)):
        return len(v) == len(d) and all(_same_value(a, b) for a, b in zip(v, d))
    return v is d or (type(v) is type(d) and v == d)


def _without_defaults(func, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Trailing positional arguments and keyword arguments at their schema default are
    left out of the node, as torch's graphs do (`aten.max.dim(x, 0)`)."""
    defaults = _schema_defaults(func)
    names = func._arg_names
    n = len(args)
    while n and names[n - 1] in defaults and _same_value(args[n - 1], defaults[names[n - 1]]):
        n -= 1
    kwargs = {k: v for k, v in kwargs.items()
              if not (k in defaults and _same_value(v, defaults[k]))}
    return args[:n], kwargs


def _placeholder_names(f: Callable, n: int) -> list[str]:
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        params = []
    if len(params) >= n and all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                                for p in params[:n]):
        return [f"{p.name}_1" for p in params[:n]]
    return [f"arg{i}_1" for i in range(n)]


def make_fx(f: Callable, decomposition_table: dict | None = None,
            tracing_mode: str = "real", _allow_non_fake_inputs: bool = False, *,
            pre_dispatch: bool = False, record_module_stack: bool = False,
            _allow_fake_constant: bool = False, _error_on_data_dependent_ops: bool = True):
    """`make_fx(f)(*args)` runs `f(*args)` once and returns a GraphModule of the aten
    overloads it ran (`decomposition_table` maps an overload to a function that replaces
    it while tracing)."""
    if tracing_mode not in ("real", "fake", "symbolic"):
        raise AssertionError(f"Unexpected tracing type: {tracing_mode}")
    if pre_dispatch:
        raise NotImplementedError("make_fx(pre_dispatch=True) is not supported yet: ember "
                                  "records ops at the Python key, below autograd")

    def wrapped(*args):
        graph = Graph()
        constants: dict[str, Tensor] = {}
        fake_mode = None
        names = _placeholder_names(f, len(args))
        if tracing_mode != "real":   # the ops run on fakes: nothing is computed
            fake_mode = next((a.fake_mode for a in args if isinstance(a, FakeTensor)), None)
            if fake_mode is None:     # (fakes given are traced in their own mode, as torch)
                env = symbolic_shapes.ShapeEnv() if tracing_mode == "symbolic" else None
                fake_mode = FakeTensorMode(allow_non_fake_inputs=_allow_non_fake_inputs,
                                           shape_env=env)
            args = tuple(fake_mode.from_tensor(a, source=name) if isinstance(a, Tensor) else a
                         for name, a in zip(names, args))
        mode = _ProxyMode(graph, constants, decomposition_table,
                          fake_mode is not None and fake_mode.shape_env is not None)
        for name, a in zip(names, args):
            node = graph.placeholder(name)
            if isinstance(a, Tensor):
                mode.track(a, node)
        with fake_mode or contextlib.nullcontext(), mode:
            out = f(*args)
        graph.output(mode.arg(out))
        gm = GraphModule(constants, graph)
        if fake_mode is not None and fake_mode.shape_env is not None:
            gm.shape_env = fake_mode.shape_env      # its guards say where the graph holds
        return gm
    return wrapped


__all__ = ["make_fx"]
