"""derivatives.yaml -> Derivative records: formulas parsed with `ast`, names checked,
and what the forward pass must save worked out.

    - name: mul.Tensor(Tensor self, Tensor other) -> Tensor
      self: grad * other
      other: grad * self

A formula is a Python expression over `grad` (`grads[i]`, `grad_<output>` for ops with
several outputs), the op's inputs, `result` (`result0`, ..., or the output names), the
helpers of ember/autograd/formulas/ and ember ops. `self.shape`, `self.dtype`,
`self.dim()`, ... save that value instead of the tensor. `non_differentiable` and
`not_implemented("why")` mark inputs without a gradient; `raises_if_requires_grad` marks an
input torch refuses to see requiring grad (in grad mode the op raises torch's "... is not
differentiable with respect to argument ..." before running, e.g. loss weights). Entries name functional
overloads, and in-place variants reuse them; an in-place op without a functional twin
(`copy_`, `fill_`) has its own entry. In both, `self` in a formula is the value before
the op and `result` the value after.
"""
from __future__ import annotations

import ast
import builtins
import copy
from dataclasses import dataclass, field, replace
from pathlib import Path

from .api import py_name, varargs_param
from .loader import CodegenError, Entry, Loc
from .model import FunctionSchema, SchemaError
from .native import NativeFunction

SAVED_ATTRS = ("shape", "dtype", "device", "ndim", "is_leaf")
SAVED_METHODS = ("dim", "size", "numel", "stride", "storage_offset", "is_contiguous",
                 "scalar_type")
BUILTINS = ("len", "range", "tuple", "list", "int", "float", "bool", "zip", "enumerate", "any",
            "all", "reversed", "sorted", "isinstance", "None", "True", "False")
ENTRY_KEYS = ("name", "output_differentiability")


@dataclass(frozen=True)
class Saved:
    """One value the forward pass saves for backward."""
    local: str      # its name inside apply(): 'other', 'self_shape'
    kind: str       # 'tensor', 'tensor_list', 'output', 'value'
    forward: str    # how the forward kernel computes it: 'other', 'self.shape'
    output_index: int = -1   # >= 0: computed from that output, after the op ran


@dataclass(frozen=True)
class Formula:
    inputs: tuple[str, ...]   # the inputs this formula gives gradients for
    kind: str                 # 'expr', 'not_implemented', 'non_differentiable',
    #                           'raises_if_requires_grad'
    code: str                 # rewritten expression (or the not_implemented message)
    uses: tuple[str, ...]     # saved locals it reads
    grads: tuple[str, ...]    # grad locals it reads ('grad', 'grads', 'grad_values')
    loc: Loc
    array_code: str | None = None   # the version over NumPy arrays (None: not translatable)


@dataclass(frozen=True)
class Derivative:
    fn: NativeFunction
    loc: Loc
    node: str                                  # 'MulBackward0'
    formulas: tuple[Formula, ...]
    inputs: tuple[tuple[str, bool], ...]       # differentiable inputs: (name, is_list)
    saved: tuple[Saved, ...]
    output_differentiability: tuple[bool, ...]
    forbidden: tuple[str, ...] = ()            # inputs marked raises_if_requires_grad

    @property
    def qualified(self) -> str:
        return self.fn.qualified

    @property
    def ref(self) -> str:
        """The entry by its key: 'schema/derivatives.yaml: neg(Tensor self) -> Tensor'."""
        return f"{self.loc.file}: {self.fn.schema}"


@dataclass(frozen=True)
class Signature:
    """What a function formulas call accepts, to check a call's arity at generation time."""
    positional: tuple[str, ...]
    keyword_only: tuple[str, ...] = ()
    required: frozenset[str] = frozenset()
    varargs: bool = False          # *args (or an int list given as varargs: `view(2, 3)`)
    varkw: bool = False            # **kwargs

    @staticmethod
    def of_def(node: ast.FunctionDef) -> Signature:
        a = node.args
        pos = [x.arg for x in a.posonlyargs + a.args]
        required = pos[:len(pos) - len(a.defaults)]
        required += [x.arg for x, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
        return Signature(tuple(pos), tuple(x.arg for x in a.kwonlyargs), frozenset(required),
                         a.vararg is not None, a.kwarg is not None)

    @staticmethod
    def of_function(fn: NativeFunction) -> Signature:
        """The public binding `ember.<op>(input, ...)` of one overload."""
        def name(a):
            return "input" if a.name == "self" else py_name(a.name)
        args = fn.schema.arguments
        required = {name(a) for a in args.flat_non_out() if a.default is None}
        return Signature(tuple(name(a) for a in args.positional),
                         tuple(name(a) for a in args.kwarg_only + args.out),
                         frozenset(required), varargs_param(fn, False) is not None)

    def accepts(self, n_positional: int, keywords: list[str]) -> bool:
        if n_positional > len(self.positional) and not self.varargs:
            return False
        bound = set(self.positional[:n_positional])
        for k in keywords:
            if k in bound or not (k in self.positional[n_positional:] or k in self.keyword_only
                                  or self.varkw):
                return False
            bound.add(k)
        return self.required <= bound or (self.varargs and n_positional > 0)

    def __str__(self) -> str:
        parts = list(self.positional) + (["*args"] if self.varargs else [])
        if self.keyword_only:
            parts += ([] if self.varargs else ["*"]) + list(self.keyword_only)
        return "(" + ", ".join(parts + (["**kwargs"] if self.varkw else [])) + ")"


def helper_names(path: Path, marker: str = "forward_value", table: bool = False
                 ) -> tuple[dict[str, Signature], set[str]]:
    """(every helper with its signature, the ones decorated with `@marker`) defined in the
    modules of the package ember/autograd/formulas/ (or in one module, when `path` is a
    file). `table`: the module is ember/autograd/array_formulas.py (marker "aliasing"),
    whose `_name`s count too (ops like `_softmax_backward_data`), and so do names bound to
    a call (`add = _binary(np.add, ...)`)."""
    path = Path(path)
    files = sorted(p for p in path.glob("*.py") if p.name != "__init__.py") if path.is_dir() \
        else [path]
    body = [node for f in files for node in ast.parse(f.read_text(), filename=str(f)).body]
    names, forward = {}, set()
    for node in body:
        if isinstance(node, ast.FunctionDef) and (table or not node.name.startswith("_")):
            names[node.name] = Signature.of_def(node)
            if any(isinstance(d, ast.Name) and d.id == marker for d in node.decorator_list):
                forward.add(node.name)
        elif table and isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            names.update({t.id: Signature((), varargs=True, varkw=True) for t in node.targets
                          if isinstance(t, ast.Name) and not t.id.startswith("_")})
    names.pop(marker, None)
    return names, forward


def camel(name: str) -> str:
    """Node-name stem as torch spells it: `max_pool2d_with_indices` -> `MaxPool2DWithIndices`,
    a trailing `_forward` dropped (`nll_loss_forward` -> `NllLoss`)."""
    stem = "".join(p.title() for p in name.split("_") if p)
    return stem.removesuffix("Forward")


def return_names(schema: FunctionSchema) -> list[str]:
    rets = schema.returns
    if len(rets) == 1 and rets[0].name is None:
        return ["result"]
    return [r.name or f"result{i}" for i, r in enumerate(rets)]


@dataclass(frozen=True)
class ArrayTable:
    """What ember/autograd/array_formulas.py offers: the functions formulas may be
    translated to, and those whose result may alias an argument."""
    names: frozenset[str] = frozenset()
    aliasing: frozenset[str] = field(default_factory=frozenset)


def parse_derivatives(entries: list[Entry], fns: list[NativeFunction], helpers: set[str],
                      forward_helpers: set[str], array: ArrayTable = ArrayTable()
                      ) -> list[Derivative]:
    by_name = {fn.qualified: fn for fn in fns}
    by_name.update({f"{fn.op_name}.default": fn for fn in fns if fn.overload == "default"})
    op_names: dict[str, list[Signature]] = {}
    for fn in fns:
        if "function" in fn.variants:
            op_names.setdefault(fn.op_name, []).append(Signature.of_function(fn))
    seen: dict[str, Loc] = {}
    counters: dict[str, int] = {}
    out = []
    for e in entries:
        fn = _lookup(e, by_name)
        if fn.qualified in seen:
            raise CodegenError(e.at("name"), f"second derivative entry for '{fn.qualified}' "
                               f"(first at {seen[fn.qualified]})")
        seen[fn.qualified] = e.at("name")
        # numbered per node name in entry order, so an in-place entry (elu_) does not reuse
        # its functional twin's class name: EluBackward0, EluBackward1; like torch, only an
        # entry with a differentiable input takes a number (lt.Scalar's does not, so lt_.Scalar
        # is LtBackward0)
        base = camel(fn.schema.name.name)
        d = _parse_entry(e, fn, f"{base}Backward", helpers, forward_helpers, op_names, array)
        if d.inputs:
            n = counters.get(base, 0)
            counters[base] = n + 1
            d = replace(d, node=f"{base}Backward{n}")
        out.append(d)
    return out + _view_copy_derivatives(out, fns)


def _view_copy_derivatives(derivs: list[Derivative], fns: list[NativeFunction]) -> list[Derivative]:
    """A `{view}_copy` op differentiates like its view (torch generates the same): the
    view's entry, its node renamed as torch's (`select_copy.int` -> SelectBackward0_copy)."""
    of_view = {d.qualified: d for d in derivs}
    out = []
    for fn in fns:
        d = of_view.get(fn.view_copy_of) if fn.view_copy_of else None
        if d is not None:
            out.append(replace(d, fn=fn, node=f"{d.node}_copy"))
    return out


def _lookup(e: Entry, by_name) -> NativeFunction:
    name = e.data.get("name")
    if not isinstance(name, str):
        raise CodegenError(e.loc, "derivative entry has no 'name' (expected 'name: <schema>')")
    key = name.split("(")[0].strip()
    fn = by_name.get(key) or by_name.get(f"{key}.default")
    if fn is None:
        raise CodegenError(e.at("name"), f"derivative for '{key}', which is not declared in "
                           "schema/native_functions.yaml (expected the name of a declared overload)")
    if "(" in name:
        try:
            given = FunctionSchema.parse(name)
        except SchemaError as err:
            raise CodegenError(e.at("name"), f"malformed name: {err}") from None
        if str(given) != str(fn.schema):
            raise CodegenError(e.at("name"), f"derivative signature '{given}' differs from the "
                               f"declared '{fn.schema}' (expected the same schema)")
    # ("mutable": a functional op that also writes a buffer argument, rrelu_with_noise's noise)
    if fn.schema.kind() not in ("functional", "inplace", "mutable"):
        raise CodegenError(e.at("name"), f"derivative for '{fn.qualified}', which is "
                           f"{fn.schema.kind()} (expected a functional, in-place or mutable "
                           "overload; out= variants are not differentiable)")
    return fn


def _parse_entry(e, fn, node_name, helpers, forward_helpers, op_names, array) -> Derivative:
    schema = fn.schema
    args = {a.name: a for a in schema.arguments.flat_non_out()}
    tensor_args = [a.name for a in schema.arguments.flat_non_out() if a.type.is_tensor_like()]
    rets = return_names(schema)
    out_diff = e.data.get("output_differentiability")
    if out_diff is None:
        out_diff = [True] * len(rets)
    if not isinstance(out_diff, list) or len(out_diff) != len(rets) or not all(
            isinstance(b, bool) for b in out_diff):
        raise CodegenError(e.at("output_differentiability") if "output_differentiability" in
                           e.data else e.loc, f"output_differentiability must list {len(rets)} "
                           "booleans (expected one per output)")
    ctx = _Context(args, rets, helpers, forward_helpers, op_names, len(schema.returns), array)
    formulas = []
    covered: dict[str, Loc] = {}
    for key, value in e.data.items():
        if key in ENTRY_KEYS:
            continue
        loc = e.at(key)
        if key == "result":
            raise CodegenError(loc, "forward-mode formulas ('result: ...') are not supported "
                               "(expected formulas for inputs only)")
        names = tuple(s.strip() for s in str(key).split(","))
        for n in names:
            if n not in args:
                raise CodegenError(loc, f"'{n}' is not an input of '{fn.qualified}' (expected "
                                   f"one of {', '.join(args)}, output_differentiability)")
            if n not in tensor_args:
                raise CodegenError(loc, f"input '{n}' of '{fn.qualified}' is a "
                                   f"{args[n].type}, not a Tensor (expected a tensor input)")
            if n in covered:
                raise CodegenError(loc, f"input '{n}' has two formulas (first at {covered[n]})")
            covered[n] = loc
        if not isinstance(value, str):
            raise CodegenError(loc, f"formula for {key} must be a string expression")
        formulas.append(ctx.formula(names, value.strip(), loc))
    for n in tensor_args:
        if n not in covered:
            raise CodegenError(e.at("name"), f"input '{n}' of '{fn.qualified}' has no formula "
                               "(expected a formula, non_differentiable or not_implemented(...))")
    undiff = ("non_differentiable", "raises_if_requires_grad")
    diff = {n for f in formulas if f.kind not in undiff for n in f.inputs}
    forbidden = tuple(n for f in formulas if f.kind == "raises_if_requires_grad" for n in f.inputs)
    inputs = tuple((n, args[n].type.is_tensor_list()) for n in tensor_args if n in diff)
    if sum(1 for _, is_list in inputs if is_list) > 1:
        raise CodegenError(e.loc, "at most one differentiable Tensor[] input is supported")
    return Derivative(fn, e.at("name"), node_name,
                      tuple(f for f in formulas if f.kind not in undiff), inputs,
                      tuple(sorted(ctx.saved.values(), key=lambda s: s.local)), tuple(out_diff),
                      forbidden)


class _Context:
    """Checks and rewrites the formulas of one entry, collecting what they save."""

    def __init__(self, args, rets, helpers, forward_helpers, op_names, n_returns, array):
        self.args, self.rets, self.array = args, rets, array
        self.helpers, self.forward_helpers, self.op_names = helpers, forward_helpers, op_names
        self.n_returns = n_returns
        self.saved: dict[str, Saved] = {}

    def formula(self, names, text, loc) -> Formula:
        if text in ("non_differentiable", "raises_if_requires_grad"):
            return Formula(names, text, "", (), (), loc)
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as err:
            raise CodegenError(loc, f"formula '{text}' is not a Python expression: "
                               f"{err.msg}") from None
        body = tree.body
        if isinstance(body, ast.Call) and isinstance(body.func, ast.Name) and \
                body.func.id == "not_implemented":
            if len(body.args) != 1 or not isinstance(body.args[0], ast.Constant):
                raise CodegenError(loc, "not_implemented takes one string (expected "
                                   "not_implemented(\"why\"))")
            return Formula(names, "not_implemented", str(body.args[0].value), (), (), loc)
        rewriter = _Rewriter(self, loc, _bound_names(body))
        new = rewriter.visit(body)
        ast.fix_missing_locations(new)
        array_code = None
        if len(names) == 1 and all(self.saved[u].kind != "tensor_list" for u in rewriter.uses):
            array_code = _to_array(new, self.array)
        return Formula(names, "expr", ast.unparse(new), tuple(sorted(rewriter.uses)),
                       tuple(sorted(rewriter.grads)), loc, array_code)

    def save(self, local, kind, forward, index=-1) -> str:
        self.saved.setdefault(local, Saved(local, kind, forward, index))
        return local


def _bound_names(tree) -> set[str]:
    """Names bound inside the expression (comprehension targets, lambda arguments)."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            bound |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Lambda):
            bound |= {a.arg for a in node.args.args}
    return bound


def _number(node):
    """The value of a number literal (`2`, `-0.5`; not a bool), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _number(node.operand)
        return None if value is None else (-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _helper_call(name, *args):
    return ast.Call(ast.Attribute(ast.Name("_H", ast.Load()), name, ast.Load()), list(args), [])


class _Rewriter(ast.NodeTransformer):
    def __init__(self, ctx: _Context, loc, bound):
        self.ctx, self.loc, self.bound = ctx, loc, bound
        self.uses: set[str] = set()
        self.grads: set[str] = set()

    def _err(self, msg):
        return CodegenError(self.loc, msg)

    def _is_value_source(self, node) -> bool:
        return isinstance(node, ast.Name) and (node.id in self.ctx.args or node.id in self.ctx.rets)

    def _saved_from(self, name, suffix, forward) -> ast.Name:
        kind = "value"
        local = self.ctx.save(f"{name}_{suffix}", kind, forward,
                              self.ctx.rets.index(name) if name in self.ctx.rets else -1)
        self.uses.add(local)
        return ast.Name(local, ast.Load())

    def visit_BinOp(self, node):
        """`2 * t`, `t * 2`, `t / 2` with a number literal: torch's C++ formulas run these as
        mul.Scalar / div.Scalar (`operator*(Scalar, Tensor)`), so they call
        _H.mul_number / _H.div_number (the Scalar overload when the other side is a
        tensor), not Python's operators (mul.Tensor with a wrapped number)."""
        self.generic_visit(node)
        left, right = _number(node.left), _number(node.right)
        if isinstance(node.op, ast.Mult) and (left is None) != (right is None):
            tensor, number = (node.right, node.left) if right is None else (node.left, node.right)
            return _helper_call("mul_number", tensor, number)
        if isinstance(node.op, ast.Div) and left is None and right is not None:
            return _helper_call("div_number", node.left, node.right)
        return node

    def visit_Attribute(self, node):
        if self._is_value_source(node.value) and node.attr in SAVED_ATTRS:
            return self._saved_from(node.value.id, node.attr, f"{node.value.id}.{node.attr}")
        return self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        if (isinstance(f, ast.Attribute) and self._is_value_source(f.value)
                and f.attr in SAVED_METHODS and not node.args and not node.keywords):
            return self._saved_from(f.value.id, f.attr, f"{f.value.id}.{f.attr}()")
        if (isinstance(f, ast.Name) and f.id in self.ctx.forward_helpers and node.args
                and all(isinstance(a, ast.Name) and a.id in self.ctx.args for a in node.args)):
            argnames = [a.id for a in node.args]
            local = self.ctx.save(f"{f.id}_{'_'.join(argnames)}", "value",
                                  f"_H.{f.id}({', '.join(argnames)})", -1)
            self.uses.add(local)
            return ast.Name(local, ast.Load())
        if isinstance(f, ast.Name) and f.id not in self.bound:
            self._check_arity(f.id, node)
        if (isinstance(f, ast.Attribute) and f.attr == "conj" and not node.args
                and not node.keywords and "conj" in self.ctx.helpers
                and not (isinstance(f.value, ast.Name) and f.value.id == "grad")):
            # `x.conj()` -> `_H.conj(x)`: no dispatch for a real x, as torch's inline conj
            # (not `grad.conj()`, _conj's formula: a complex grad, its node's direct view)
            return _helper_call("conj", self.visit(f.value))
        return self.generic_visit(node)

    def _check_arity(self, name, call):
        """A call of a helper or an ember op must bind to its signature (one of the op's
        overloads): `mul(grad, 2, self)` fails here, not at backward time."""
        ctx = self.ctx
        if name in ctx.helpers and isinstance(ctx.helpers, dict):
            options = [ctx.helpers[name]]
        elif name not in ctx.helpers and name in ctx.op_names:
            options = ctx.op_names[name]
        else:
            return
        if any(isinstance(a, ast.Starred) for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            return
        keywords = [k.arg for k in call.keywords]
        if not any(s.accepts(len(call.args), keywords) for s in options):
            given = ", ".join(["_"] * len(call.args) + [f"{k}=_" for k in keywords])
            raise self._err(f"'{name}({given})' does not match '{name}' (expected one of: "
                            f"{'; '.join(name + str(s) for s in options)})")

    def visit_Name(self, node):
        n = node.id
        ctx = self.ctx
        if not isinstance(node.ctx, ast.Load) or n in self.bound:
            return node
        if n == "grad":
            if ctx.n_returns != 1:
                raise self._err("'grad' is ambiguous for an op with several outputs (expected "
                                "grads[i] or grad_<output name>)")
            self.grads.add("grad")
            return node
        if n == "grads":
            self.grads.add("grads")
            return node
        if n.startswith("grad_") and n[5:] in ctx.rets:
            self.grads.add(n)
            return node
        if n in ctx.rets:
            i = ctx.rets.index(n)
            ctx.save(n, "output", n, i)
            self.uses.add(n)
            return node
        if n in ctx.args:
            a = ctx.args[n]
            if a.type.is_tensor_list():
                kind = "tensor_list"
            elif a.type.is_tensor_like():
                kind = "tensor"
            else:
                kind = "value"
            ctx.save(n, kind, n)
            self.uses.add(n)
            return node
        if n in ctx.helpers:
            return ast.Attribute(ast.Name("_H", ast.Load()), n, ast.Load())
        if n in ctx.op_names:
            return ast.Attribute(ast.Name("_F", ast.Load()), n, ast.Load())
        if n in BUILTINS and hasattr(builtins, n):
            return node
        raise self._err(f"unknown name '{n}' in formula (expected grad, grads, grad_<output>, "
                        f"{', '.join(ctx.rets)}, an input ({', '.join(ctx.args)}), a helper from "
                        "ember/autograd/formulas/ or an ember op)")


# --- the array-level version ----------------------------------------------------------------
class _Untranslatable(Exception):
    pass


_ARRAY_OPERATORS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}


def _to_array(tree, table: ArrayTable) -> str | None:
    """The formula (rewritten for ember ops) over NumPy arrays: each `_H.f(...)`/`_F.f(...)`
    call and each method call `x.f(...)` becomes `_A.f(x, ...)` and `a * b` `_A.mul(a, b)`,
    for the functions of ember/autograd/array_formulas.py; None when the formula uses
    anything else, or when its result may alias an argument (a view)."""
    body = tree
    if isinstance(body, ast.Call) and isinstance(body.func, ast.Attribute) and \
            body.func.attr in table.aliasing:
        return None
    try:
        new = _ArrayRewriter(table).visit(copy.deepcopy(tree))
    except _Untranslatable:
        return None
    return ast.unparse(ast.fix_missing_locations(new))


def _a_func(name: str, table: ArrayTable) -> ast.Attribute:
    if name not in table.names:
        raise _Untranslatable(name)
    return ast.Attribute(ast.Name("_A", ast.Load()), name, ast.Load())


class _ArrayRewriter(ast.NodeTransformer):
    def __init__(self, table: ArrayTable):
        self.table = table

    def visit_Call(self, node):
        f = node.func
        args = [self.visit(a) for a in node.args]
        keywords = [self.visit(k) for k in node.keywords]
        if isinstance(f, ast.Attribute):
            if isinstance(f.value, ast.Name) and f.value.id in ("_H", "_F"):
                return ast.Call(_a_func(f.attr, self.table), args, keywords)
            # a method call x.f(...)
            return ast.Call(_a_func(f.attr, self.table), [self.visit(f.value), *args], keywords)
        if isinstance(f, ast.Name) and f.id in ("len", "tuple", "list", "int", "float"):
            return ast.Call(f, args, keywords)
        raise _Untranslatable(ast.unparse(f))

    def visit_BinOp(self, node):
        name = _ARRAY_OPERATORS.get(type(node.op))
        if name is None:
            raise _Untranslatable(type(node.op).__name__)
        return ast.Call(_a_func(name, self.table), [self.visit(node.left), self.visit(node.right)],
                        [])

    def visit_UnaryOp(self, node):
        if not isinstance(node.op, ast.USub):
            raise _Untranslatable(type(node.op).__name__)
        if isinstance(node.operand, ast.Constant):
            return node                          # a number: -2
        return ast.Call(_a_func("neg", self.table), [self.visit(node.operand)], [])

    def visit_Attribute(self, node):
        raise _Untranslatable(node.attr)     # e.g. `grad.dtype`: an ember value, not NumPy's

    def generic_visit(self, node):
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.DictComp,
                             ast.SetComp, ast.IfExp, ast.Compare, ast.BoolOp)):
            raise _Untranslatable(type(node).__name__)
        return super().generic_visit(node)
