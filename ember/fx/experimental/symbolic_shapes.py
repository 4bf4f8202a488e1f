"""Symbolic sizes: SymInt/SymFloat/SymBool over sympy expressions, and the ShapeEnv that
owns their symbols and records the guards Python's control flow forces.

A fake tensor made with a ShapeEnv has sizes that are symbols (`s0`, `s1`, ...; sizes 0
and 1 stay ints, and equal sizes share a symbol, torch's "duck sizing"). Arithmetic on
them stays symbolic; a comparison that Python needs as a bool is answered from the
symbol's hint (the real size) and recorded as a guard, which also specialises:

    >>> from ember._subclasses.fake_tensor import FakeTensorMode
    >>> env = ShapeEnv()
    >>> x = FakeTensorMode(shape_env=env).from_tensor(ember.ones(4, 3))
    >>> n = x.shape[0] * x.shape[1]
    >>> n, type(n).__name__
    (s0*s1, 'SymInt')
    >>> bool(x.shape[0] > 3), env.guards
    (True, [s0 > 3])

Data-dependent values (`nonzero`'s length, `.item()`) are unbacked symbols (`u0`): they
have no hint, and guarding on one raises GuardOnDataDependentSymNode.
"""
from __future__ import annotations

import builtins
import operator

import sympy

from ember.core.sym import register_sym_scalar_type, register_symint_type

__all__ = ["GuardOnDataDependentSymNode", "ShapeEnv", "SymBool", "SymFloat", "SymInt",
           "SymNode", "guard_int", "has_free_symbols", "hint_int", "is_concrete_int",
           "statically_known_true", "sym_max", "sym_min"]


class GuardOnDataDependentSymNode(RuntimeError):
    """A bool or int was needed from a symbol whose value depends on data."""


class FloorDiv(sympy.Function):
    """Integer division of sizes (Python's //), kept symbolic."""
    is_integer = True

    @classmethod
    def eval(cls, a, b):
        if a.is_Integer and b.is_Integer:
            return sympy.Integer(int(a) // int(b))
        if b == 1:
            return a
        if a == 0:
            return sympy.Integer(0)
        q = sympy.simplify(a / b)
        if q.is_integer:       # (s0*4) // 4 -> s0
            return q
        return None

    def _pythoncode(self, printer):
        """Python's `//` (sympy.pycode: the guards' and the generated code's form)."""
        a, b = (printer.parenthesize(x, 50) for x in self.args)
        return f"({a} // {b})"

    def _eval_is_nonnegative(self):
        a, b = self.args
        if a.is_nonnegative and b.is_positive:
            return True
        return None


_OPS_ON_HINTS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
                 "floordiv": operator.floordiv, "mod": operator.mod, "truediv": operator.truediv,
                 "pow": operator.pow}


def _sympy_of(x):
    if isinstance(x, (SymInt, SymFloat, SymBool)):
        return x.node.expr
    if isinstance(x, bool):
        return sympy.true if x else sympy.false
    if isinstance(x, int):
        return sympy.Integer(x)
    if isinstance(x, float):
        return sympy.Float(x)
    return None


def _hint_of(x):
    return x.node.hint if isinstance(x, (SymInt, SymFloat, SymBool)) else x


class SymNode:
    """A sympy expression, its pytype (int, float, bool), its ShapeEnv and its hint (the
    value it has for the inputs it was traced with; None when unbacked)."""

    __slots__ = ("expr", "hint", "pytype", "shape_env")

    def __init__(self, expr, shape_env, pytype, hint):
        self.expr = expr
        self.shape_env = shape_env
        self.pytype = pytype
        self.hint = hint

    def __repr__(self):
        return str(self.expr)


def _wrap(env, expr, pytype, hint):
    """A Sym value for `expr`, or a plain Python value when it is a constant."""
    expr = env.simplify(expr)
    if expr.is_number or expr in (sympy.true, sympy.false):
        if pytype is bool:
            return bool(expr)
        return int(expr) if pytype is int else float(expr)
    cls = {int: SymInt, float: SymFloat, bool: SymBool}[pytype]
    return cls(SymNode(expr, env, pytype, hint))


class _SymBase:
    __slots__ = ("node",)

    def __init__(self, node: SymNode):
        self.node = node

    def __repr__(self):
        return str(self.node.expr)

    __str__ = __repr__

    def __hash__(self):
        raise TypeError(f"unhashable type: non-nested {type(self).__name__}")

    def _arith(self, other, name, pytype=None, reverse=False):
        o = _sympy_of(other)
        if o is None:
            return NotImplemented
        a, b = (o, self.node.expr) if reverse else (self.node.expr, o)
        ha, hb = (_hint_of(other), self.node.hint) if reverse else (self.node.hint,
                                                                     _hint_of(other))
        if name == "add":
            e = a + b
        elif name == "sub":
            e = a - b
        elif name == "mul":
            e = a * b
        elif name == "floordiv":
            e = FloorDiv(a, b)
        elif name == "mod":
            e = sympy.Mod(a, b)
        elif name == "truediv":
            e = a / b
        else:
            e = a ** b
        res_type = pytype or (float if float in (self.node.pytype, type(_hint_of(other)))
                              or isinstance(other, SymFloat) else int)
        hint = None if ha is None or hb is None else _OPS_ON_HINTS[name](ha, hb)
        return _wrap(self.node.shape_env, e, res_type, hint)

    def _compare(self, other, rel):
        o = _sympy_of(other)
        if o is None:
            return NotImplemented
        e = rel(self.node.expr, o)
        ha, hb = self.node.hint, _hint_of(other)
        hint = None if ha is None or hb is None else _PY_REL[rel](ha, hb)
        return _wrap(self.node.shape_env, e, bool, hint)

    __add__ = lambda s, o: s._arith(o, "add")
    __radd__ = lambda s, o: s._arith(o, "add", reverse=True)
    __sub__ = lambda s, o: s._arith(o, "sub")
    __rsub__ = lambda s, o: s._arith(o, "sub", reverse=True)
    __mul__ = lambda s, o: s._arith(o, "mul")
    __rmul__ = lambda s, o: s._arith(o, "mul", reverse=True)
    __truediv__ = lambda s, o: s._arith(o, "truediv", float)
    __rtruediv__ = lambda s, o: s._arith(o, "truediv", float, reverse=True)
    __pow__ = lambda s, o: s._arith(o, "pow")
    __eq__ = lambda s, o: s._compare(o, sympy.Eq)
    __ne__ = lambda s, o: s._compare(o, sympy.Ne)
    __lt__ = lambda s, o: s._compare(o, sympy.Lt)
    __le__ = lambda s, o: s._compare(o, sympy.Le)
    __gt__ = lambda s, o: s._compare(o, sympy.Gt)
    __ge__ = lambda s, o: s._compare(o, sympy.Ge)

    def __neg__(self):
        return self._arith(-1, "mul")

    def conjugate(self):
        """Itself, as a real number's (backward formulas conjugate their Scalars)."""
        return self

    def __pos__(self):
        return self

    def __abs__(self):
        return self if self >= 0 else -self

    def __bool__(self):
        return bool(self != 0)

    def __int__(self):
        return guard_int(self)

    def __float__(self):
        return float(self.node.shape_env.evaluate(self.node, want=float))


_PY_REL = {sympy.Eq: operator.eq, sympy.Ne: operator.ne, sympy.Lt: operator.lt,
           sympy.Le: operator.le, sympy.Gt: operator.gt, sympy.Ge: operator.ge}


class SymInt(_SymBase):
    """An int that is a sympy expression of size symbols (torch.SymInt)."""

    __slots__ = ()

    __floordiv__ = lambda s, o: s._arith(o, "floordiv")
    __rfloordiv__ = lambda s, o: s._arith(o, "floordiv", reverse=True)
    __mod__ = lambda s, o: s._arith(o, "mod")
    __rmod__ = lambda s, o: s._arith(o, "mod", reverse=True)

    def __index__(self):
        return guard_int(self)

    def max1(self):
        """max(self, 1) kept symbolic (a size's contribution to contiguous strides)."""
        return _wrap(self.node.shape_env, sympy.Max(self.node.expr, 1), int,
                     None if self.node.hint is None else builtins.max(self.node.hint, 1))

    def __round__(self, ndigits=None):
        return self


class SymFloat(_SymBase):
    """A float that is a sympy expression (torch.SymFloat)."""

    __slots__ = ()


class SymBool(_SymBase):
    """A bool that is a sympy relation of size symbols (torch.SymBool); `bool()` on it
    records a guard."""

    __slots__ = ()

    def __bool__(self):
        return bool(self.node.shape_env.evaluate(self.node, want=bool))

    def __and__(self, other):
        return _wrap(self.node.shape_env, sympy.And(self.node.expr, _sympy_of(other)), bool,
                     None if _hint_of(other) is None or self.node.hint is None
                     else self.node.hint and _hint_of(other))

    def __or__(self, other):
        return _wrap(self.node.shape_env, sympy.Or(self.node.expr, _sympy_of(other)), bool,
                     None if _hint_of(other) is None or self.node.hint is None
                     else self.node.hint or _hint_of(other))

    def __invert__(self):
        return _wrap(self.node.shape_env, sympy.Not(self.node.expr), bool,
                     None if self.node.hint is None else not self.node.hint)


# --- the environment ---------------------------------------------------------------------------
class ShapeEnv:
    """Owns the size symbols of one trace: their hints, where each came from, and the
    guards recorded when Python needed a concrete answer."""

    def __init__(self, *, duck_shape=True, specialize_zero_one=True):
        self.duck_shape = duck_shape
        self.specialize_zero_one = specialize_zero_one
        self.var_to_val: dict[sympy.Symbol, int] = {}
        self.var_to_sources: dict[sympy.Symbol, list[tuple[str, int]]] = {}
        self.val_to_var: dict[int, sympy.Symbol] = {}
        self.replacements: dict[sympy.Symbol, sympy.Expr] = {}
        self.guards: list[sympy.Basic] = []
        self.unbacked_symbols: list[sympy.Symbol] = []
        self._shifted: dict[sympy.Symbol, sympy.Expr] = {}

    # --- symbols ---------------------------------------------------------------------------
    def create_symbol(self, val: int, source: tuple[str, int] | None = None) -> sympy.Expr:
        """The symbol for a size `val` (an existing one of the same value when duck
        sizing; sizes 0 and 1 are not symbolic)."""
        if self.specialize_zero_one and val in (0, 1):
            return sympy.Integer(val)
        sym = self.val_to_var.get(val) if self.duck_shape else None
        if sym is None:
            sym = sympy.Symbol(f"s{len(self.var_to_val)}", integer=True, positive=True)
            self.var_to_val[sym] = val
            self._shifted[sym] = sympy.Symbol(f"_{sym}", integer=True, nonnegative=True) + 2
            if self.duck_shape:
                self.val_to_var[val] = sym
        if source is not None:
            self.var_to_sources.setdefault(sym, []).append(source)
        return sym

    def create_symint(self, val: int, source=None):
        """A SymInt of a new (or duck-shared) symbol with hint `val`; 0 and 1 as ints."""
        return _wrap(self, self.create_symbol(val, source), int, val)

    def symint_of(self, expr, pytype=int):
        """A SymInt (`pytype` float: a SymFloat) of an expression over this env's symbols
        (hinted when they all are)."""
        hint = expr.xreplace({k: sympy.Integer(v) for k, v in self.var_to_val.items()})
        return _wrap(self, expr, pytype, pytype(hint) if hint.is_number else None)

    def create_unbacked_symint(self) -> SymInt:
        """A data-dependent size (nonzero's length): an integer >= 0 without a hint."""
        sym = sympy.Symbol(f"u{len(self.unbacked_symbols)}", integer=True, nonnegative=True)
        self.unbacked_symbols.append(sym)
        self._shifted[sym] = sym
        return SymInt(SymNode(sym, self, int, None))

    def create_unbacked_symfloat(self) -> SymFloat:
        sym = sympy.Symbol(f"f{len(self.unbacked_symbols)}", real=True)
        self.unbacked_symbols.append(sym)
        return SymFloat(SymNode(sym, self, float, None))

    def create_unbacked_symbool(self) -> SymBool:
        return self.create_unbacked_symint() == 1

    def symbolic_sizes_strides(self, shape, stride, source: str | None, dynamic_dims=None):
        """Symbolic sizes for a tensor of `shape` (named `source` for guards); its strides
        become the contiguous strides of those sizes when they were contiguous (other
        layouts keep static sizes). `dynamic_dims`, when given, limits the symbols to those
        dims (the others stay ints)."""
        contiguous = tuple(stride) == _contiguous(shape)
        if not contiguous:
            return tuple(shape), tuple(stride)
        sizes = tuple(self.create_symint(n, (source, i) if source else None)
                      if dynamic_dims is None or i in dynamic_dims else n
                      for i, n in enumerate(shape))
        return sizes, _contiguous(sizes)

    # --- evaluating -----------------------------------------------------------------------------
    def simplify(self, expr):
        if self.replacements:
            expr = expr.xreplace(self.replacements)
        if isinstance(expr, sympy.Basic) and not expr.is_Atom:
            static = self._static_value(expr)
            if static is not None:
                return static
        return expr

    def _static_value(self, expr):
        """expr's value when every size >= 2 decides it (torch's value ranges), else None."""
        try:
            shifted = expr.xreplace(self._shifted)
            if shifted in (sympy.true, sympy.false) or shifted.is_number:
                return shifted
            if isinstance(shifted, sympy.core.relational.Relational):
                return _decide(type(shifted), sympy.expand(shifted.lhs - shifted.rhs))
        except (sympy.PolynomialError, TypeError, ValueError):
            return None
        return None

    def evaluate(self, node: SymNode, want=bool):
        """The concrete value Python asked for, recorded as a guard."""
        expr = self.simplify(node.expr)
        if expr in (sympy.true, sympy.false) or expr.is_number:
            return want(expr)
        if node.hint is None or any(s in self.unbacked_symbols for s in expr.free_symbols):
            raise GuardOnDataDependentSymNode(
                f"Could not guard on data-dependent expression {expr} (unhinted: {expr}). "
                f"(Size-like symbols: none)")
        value = want(node.hint)
        if want is bool:
            guard = expr if value else sympy.Not(expr)
            self._record(guard)
            if isinstance(guard, sympy.Eq):
                self._learn_equal(guard.lhs, guard.rhs)
        else:
            self._record(sympy.Eq(expr, value))
            self._learn_equal(expr, sympy.Integer(value) if want is int else sympy.Float(value))
        return value

    def _record(self, guard):
        if guard not in self.guards:
            self.guards.append(guard)

    def _learn_equal(self, a, b):
        """After `a == b` is guarded: a symbol equal to a constant or another symbol is
        replaced by it from now on (specialisation)."""
        for x, y in ((a, b), (b, a)):
            if isinstance(x, sympy.Symbol) and x not in self.replacements:
                if isinstance(y, sympy.Symbol) and str(y) > str(x):
                    continue
                self.replacements[x] = y
                return

    def evaluate_guards_for(self, sizes: dict[sympy.Symbol, int]) -> bool:
        """Whether every guard holds when the symbols take these values (for a new call)."""
        return all(bool(g.xreplace({k: sympy.Integer(v) for k, v in sizes.items()}))
                   for g in self.guards)

    def bind_symbols(self, placeholders_and_tensors) -> dict[sympy.Symbol, int]:
        """The symbols' values for new tensors given with the same sources."""
        values = {}
        by_source = dict(placeholders_and_tensors)
        for sym, sources in self.var_to_sources.items():
            name, dim = sources[0]
            if name in by_source:
                values[sym] = by_source[name].shape[dim]
        return values

    def format_guards(self) -> str:
        return "\n".join(f" - {g}" for g in self.guards)


def _bounds(diff):
    """(low, high) bounds of a polynomial in nonnegative symbols whose coefficients all
    have one sign (None where unknown)."""
    if diff.is_number:
        return diff, diff
    coeffs = sympy.Poly(diff, *diff.free_symbols).coeffs()
    const = diff.xreplace({x: 0 for x in diff.free_symbols})
    if all(c >= 0 for c in coeffs):
        return const, None
    if all(c <= 0 for c in coeffs):
        return None, const
    return None, None


def _decide(rel, diff):
    """The truth of `diff rel 0` from its bounds, or None."""
    low, high = _bounds(diff)
    if low is not None:
        if low > 0:
            return sympy.sympify(rel in (sympy.Gt, sympy.Ge, sympy.Ne))
        if rel is sympy.Ge:
            return sympy.true
        if rel is sympy.Lt:
            return sympy.false
    if high is not None:
        if high < 0:
            return sympy.sympify(rel in (sympy.Lt, sympy.Le, sympy.Ne))
        if rel is sympy.Le:
            return sympy.true
        if rel is sympy.Gt:
            return sympy.false
    return None


def _contiguous(shape):
    strides = []
    acc = 1
    for n in reversed(tuple(shape)):
        strides.append(acc)
        acc = acc * (n.max1() if isinstance(n, SymInt) else builtins.max(n, 1))
    return tuple(reversed(strides))


# --- helpers torch has --------------------------------------------------------------------------
def guard_int(a) -> int:
    """A concrete int (guarding a symbolic one)."""
    if isinstance(a, SymInt):
        return int(a.node.shape_env.evaluate(a.node, want=int))
    return int(a)


def hint_int(a) -> int:
    """The value a symbolic int has for the traced inputs (no guard)."""
    if isinstance(a, SymInt):
        if a.node.hint is None:
            raise GuardOnDataDependentSymNode(f"{a} has no hint (data-dependent)")
        return a.node.hint
    return int(a)


def is_concrete_int(a) -> bool:
    return isinstance(a, int) and not isinstance(a, bool)


def has_free_symbols(a) -> bool:
    return isinstance(a, _SymBase)


def statically_known_true(b) -> bool:
    """True only when `b` holds for every size (no guard is recorded)."""
    if isinstance(b, SymBool):
        return b.node.shape_env.simplify(b.node.expr) == sympy.true
    return bool(b)


def sym_max(a, b):
    return a if bool(a >= b) else b


def sym_min(a, b):
    return a if bool(a <= b) else b


register_symint_type(SymInt)
register_sym_scalar_type(SymInt)
register_sym_scalar_type(SymFloat)


def _sym_size(self, dim):
    return self.size(dim)


def _define_sym_size():
    """aten.sym_size.int: what a symbolic graph calls to read a size at run time."""
    from ember.dispatch.dispatcher import ops
    try:
        return ops.aten.sym_size.int
    except AttributeError:
        from ember.library import Library
        lib = Library("aten", "FRAGMENT")
        lib.define("sym_size.int(Tensor self, int dim) -> SymInt")
        lib.impl("sym_size.int", _sym_size, "CompositeExplicitAutograd")
        _define_sym_size.lib = lib        # the definition lives as long as the process
        return ops.aten.sym_size.int


sym_size = _define_sym_size()
