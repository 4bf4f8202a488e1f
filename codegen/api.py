"""Naming conventions and Python signatures: the one place that decides how a schema
looks from Python. Emitters (templates) only print what these functions return.

    >>> from codegen.kernel_index import KernelIndex
    >>> from codegen.loader import load_yaml_list
    >>> from codegen.native import parse_native_functions
    >>> path = Path("schema/native_functions.yaml")
    >>> entries = load_yaml_list(path, str(path))    # str(path): the name errors show
    >>> fns = parse_native_functions(entries, KernelIndex(Path("kernels")))
    >>> add = {fn.qualified: fn for fn in fns if fn.op_name == "add"}
    >>> py_params(add["add.Tensor"], method=False, out_fn=add["add.out"])
    'input, other, *, alpha=1, out=None'
    >>> py_params(add["add.Tensor"], method=True, out_fn=None)
    'self, other, *, alpha=1'
"""
from __future__ import annotations

import keyword
from collections import defaultdict

from .model import FunctionSchema, default_to_python
from .native import NativeFunction

# Tensor dunders: (overload, *argument expressions over the dunder's self/other).
# Trailing schema arguments take their defaults; `_wrap(other, self)` turns a Python
# number into a 0-dim wrapped-number tensor so reflected ops (`2 - t`) keep torch's type
# promotion. The reflected dunders call what torch's Tensor class calls (torch/_tensor.py):
# `2 / t` is `t.reciprocal() * 2`, `2 ** t` is pow.Scalar, `2 % t` remainder.Scalar_Tensor.
DUNDERS = {
    "__add__": ("add.Tensor", "self", "other"), "__radd__": ("add.Tensor", "self", "other"),
    "__iadd__": ("add_.Tensor", "self", "other"),
    "__sub__": ("sub.Tensor", "self", "other"), "__isub__": ("sub_.Tensor", "self", "other"),
    "__rsub__": ("sub.Tensor", "_wrap(other, self)", "self"),
    "__mul__": ("mul.Tensor", "self", "other"), "__rmul__": ("mul.Tensor", "self", "other"),
    "__imul__": ("mul_.Tensor", "self", "other"),
    "__truediv__": ("div.Tensor", "self", "other"), "__itruediv__": ("div_.Tensor", "self", "other"),
    "__rtruediv__": ("mul.Tensor", "_entry_reciprocal(self)", "other"),
    "__floordiv__": ("floor_divide.default", "self", "other"),
    "__rfloordiv__": ("floor_divide.default", "_wrap(other, self)", "self"),
    "__mod__": ("remainder.Tensor", "self", "other"),
    "__rmod__": ("remainder.Scalar_Tensor", "other", "self"),
    "__pow__": ("pow.Tensor_Tensor", "self", "other"), "__ipow__": ("pow_.Tensor", "self", "other"),
    "__rpow__": ("pow.Scalar", "other", "self"),
    "__matmul__": ("matmul.default", "self", "other"),
    "__rmatmul__": ("matmul.default", "other", "self"),
    "__neg__": ("neg.default", "self"), "__pos__": ("positive.default", "self"),
    "__abs__": ("abs.default", "self"), "__invert__": ("bitwise_not.default", "self"),
    "__eq__": ("eq.Tensor", "self", "other"), "__ne__": ("ne.Tensor", "self", "other"),
    "__lt__": ("lt.Tensor", "self", "other"), "__le__": ("le.Tensor", "self", "other"),
    "__gt__": ("gt.Tensor", "self", "other"), "__ge__": ("ge.Tensor", "self", "other"),
    "__and__": ("bitwise_and.Tensor", "self", "other"),
    "__or__": ("bitwise_or.Tensor", "self", "other"),
    "__xor__": ("bitwise_xor.Tensor", "self", "other"),
    "__rand__": ("bitwise_and.Tensor", "self", "other"),
    "__ror__": ("bitwise_or.Tensor", "self", "other"),
    "__rxor__": ("bitwise_xor.Tensor", "self", "other"),
    "__iand__": ("bitwise_and_.Tensor", "self", "other"),
    "__ior__": ("bitwise_or_.Tensor", "self", "other"),
    "__ixor__": ("bitwise_xor_.Tensor", "self", "other"),
    "__lshift__": ("bitwise_left_shift.Tensor", "self", "other"),
    "__rshift__": ("bitwise_right_shift.Tensor", "self", "other"),
    "__rlshift__": ("bitwise_left_shift.Tensor", "_wrap(other, self)", "self"),
    "__rrshift__": ("bitwise_right_shift.Tensor", "_wrap(other, self)", "self"),
    "__ilshift__": ("bitwise_left_shift_.Tensor", "self", "other"),
    "__irshift__": ("bitwise_right_shift_.Tensor", "self", "other"),
    "__ifloordiv__": ("floor_divide_.Tensor", "self", "other"),
    "__imod__": ("remainder_.Tensor", "self", "other"),
}


# Python 2 names torch's Tensor still has, as aliases of the dunders above.
DUNDER_ALIASES = {"__div__": "__truediv__", "__rdiv__": "__rtruediv__",
                  "__idiv__": "__itruediv__"}


# Dunders that write into a temporary operand instead of a fresh result (ember/core/
# elision.py): dunder -> (in-place overload, whether `other` may be the temporary too).
ELIDING_DUNDERS = {
    "__add__": ("add_.Tensor", True), "__mul__": ("mul_.Tensor", True),
    "__sub__": ("sub_.Tensor", False), "__truediv__": ("div_.Tensor", False),
}


def qualified_key(fn: NativeFunction) -> str:
    """'add.Tensor', 'neg.default' (the keys DUNDERS uses)."""
    return f"{fn.op_name}.{fn.overload}"


def py_name(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def accepts_numbers(fn: NativeFunction, index: int) -> bool:
    """Non-first Tensor arguments of pointwise ops also take Python numbers (wrapped numbers)
    inside ember: kernels, dunders and formulas pass them."""
    return index > 0 and "pointwise" in fn.tags


# torch's Python bindings take a number for a Tensor argument only in these ops
# (python_arg_parser's allow_numbers_as_tensors); the others have Scalar overloads or raise
NUMBERS_AS_TENSORS = frozenset({"add", "sub", "mul", "div", "floor_divide", "true_divide",
                                "multiply", "subtract", "divide", "copy", "_to_copy", "to"})


def python_accepts_numbers(fn: NativeFunction, index: int) -> bool:
    """Whether the public binding (`ember.add`, `Tensor.add`) takes a number there."""
    return accepts_numbers(fn, index) and fn.op_name.rstrip("_") in NUMBERS_AS_TENSORS


def python_wraps_numbers(fn: NativeFunction) -> list[int]:
    """Positions of the non-first Tensor arguments torch's parser takes a number for where
    ember's entry does not (copy_'s src, not a pointwise op): the binding wraps such a
    number (`t.copy_(2.5)`) when the entry refuses it."""
    if fn.op_name.rstrip("_") not in NUMBERS_AS_TENSORS:
        return []
    return [i for i, a in enumerate(fn.schema.arguments.flat_non_out())
            if i > 0 and str(a.type) == "Tensor" and not accepts_numbers(fn, i)]


def python_accepts_numbers_as_self(fn: NativeFunction) -> bool:
    """`ember.add(2, t)`: torch's parser also takes a number for `input` in these ops' public
    functions (a wrapped number, promoting as a Python scalar)."""
    first = fn.schema.arguments.flat_non_out()[:1]
    return (fn.op_name in NUMBERS_AS_TENSORS - {"copy", "_to_copy", "to"} and
            "pointwise" in fn.tags and bool(first) and str(first[0].type) == "Tensor")


def ks_expr(fn: NativeFunction, names=None) -> str:
    """The expression OR-ing the keysets of all tensor arguments, and the Complex key for a
    complex number among the Scalar ones (ops without complex kernels refuse there).
    `names`: the expression passed for each argument, when not its own name (a dunder's
    `other`, or a literal default: a real number adds no key)."""
    parts, scalars = [], []
    for i, a in enumerate(fn.schema.arguments.flat()):
        t, n = str(a.type), names[i] if names else py_name(a.name)
        if t in ("Scalar", "Scalar?") and (not n.isidentifier() or keyword.iskeyword(n)):
            if "j" in n:
                scalars.append("_COMPLEX")
            continue
        if t == "Tensor":
            # (a float number, the commonest: no call; ks_number does the rest)
            parts.append(f"({n}._ks if {n}.__class__ is _Tensor else 0 if {n}.__class__ is "
                         f"float else _ks_num({n}))" if accepts_numbers(fn, i) else f"{n}._ks")
        elif t == "Tensor?":
            parts.append(f"({n}._ks if {n} is not None else 0)")
        elif t == "Tensor[]":
            parts.append(f"_ks_list({n})")
        elif t == "Tensor?[]":
            parts.append(f"_ks_optlist({n})")
        elif t in ("Scalar", "Scalar?"):
            scalars.append(f"(_COMPLEX if {n}.__class__ is _complex else 0)")
    return " | ".join(parts + scalars) if parts else "_BACKEND_SELECT"


def device_arg_index(fn: NativeFunction) -> int | None:
    for i, a in enumerate(fn.schema.arguments.flat()):
        if a.name == "device" and str(a.type).startswith("Device"):
            return i
    return None


def is_factory(fn: NativeFunction) -> bool:
    return ks_expr(fn) == "_BACKEND_SELECT"


def _param(a, rename_self: bool, python: bool = False) -> str:
    """`name=default`; Python bindings take `dtype=None` for a ScalarType default (like
    torch's: None means the schema's default, and an out= call checks only a given dtype)."""
    name = "input" if (rename_self and a.name == "self") else py_name(a.name)
    if a.default is None:
        return name
    if python and str(a.type).startswith("ScalarType"):
        return f"{name}=None"
    return f"{name}={default_to_python(a)}"


def schema_params(schema: FunctionSchema) -> str:
    """The schema's own parameter list (used by OpOverload binding)."""
    args = schema.arguments
    parts = [_param(a, False) for a in args.positional]
    kw = [_param(a, False) for a in args.kwarg_only + args.out]
    if kw:
        parts += ["*"] + kw
    return ", ".join(parts)


def call_args(schema: FunctionSchema, rename_self=False) -> list[str]:
    out = []
    for a in schema.arguments.flat():
        out.append("input" if rename_self and a.name == "self" else py_name(a.name))
    return out


def varargs_param(fn: NativeFunction, method: bool):
    """torch lets an int list be given as varargs when it is the only positional parameter:
    `x.view(2, 3)`, `ember.zeros(2, 3)`. Returns that argument or None."""
    pos = list(fn.schema.arguments.positional)
    if method:
        pos = [a for a in pos if a.name != "self"]
    if len(pos) == 1 and str(pos[0].type).split("[")[0] in ("int", "SymInt") and "[" in str(pos[0].type) \
            and not str(pos[0].type).endswith("?"):
        return pos[0]
    return None


def takes_requires_grad(fn: NativeFunction) -> bool:
    """Like torch's bindings: ops with tensor options (`pin_memory=`) also take a
    Python-only `requires_grad=False`, applied to the result."""
    return any(a.name == "pin_memory" for a in fn.schema.arguments.flat())


def varargs_local(a) -> str:
    """The local name of an int-list varargs parameter (`*_size`); `size=` is its keyword."""
    return f"_{py_name(a.name)}"


def py_params(fn: NativeFunction, method: bool, out_fn: NativeFunction | None) -> str:
    """The Python binding's parameters: `self` is `input` for functions; out= added."""
    args = fn.schema.arguments
    pos = [a for a in args.positional if not (method and a.name == "self")]
    va = varargs_param(fn, method)
    parts = ["self"] if method else []
    for a in pos:
        parts.append(f"*{varargs_local(a)}" if a is va else _param(a, not method, True))
    kw = [_param(a, not method, True) for a in args.kwarg_only]
    if va is not None:  # `zeros(2, 3)` or, like torch, `zeros(size=(2, 3))`
        kw.insert(0, f"{py_name(va.name)}=None")
    if out_fn is not None and not method:
        kw.append("out=None")
    if takes_requires_grad(fn):
        kw.append("requires_grad=False")
    if kw:
        if va is None:
            parts.append("*")
        parts += kw
    return ", ".join(parts)


def py_keywords(fn: NativeFunction, method: bool, out_fn: NativeFunction | None) -> list[str]:
    """Every name the binding accepts as a keyword argument."""
    names = [("input" if a.name == "self" and not method else py_name(a.name))
             for a in fn.schema.arguments.flat_non_out() if not (method and a.name == "self")]
    if out_fn is not None and not method:
        names.append("out")
    if takes_requires_grad(fn):
        names.append("requires_grad")
    return names


def hidden_from_python(fn: NativeFunction, siblings: dict[str, NativeFunction]) -> bool:
    """Like torch's bindings: a `*Scalar` overload is hidden when a `*Tensor` overload with
    the same argument names takes numbers for its Tensor arguments (add, sub, mul, div)."""
    ov = fn.schema.name.overload
    if not ov.endswith("Scalar"):
        return False
    twin = siblings.get(ov[: -len("Scalar")] + "Tensor")
    if twin is None or not any(python_accepts_numbers(twin, i)
                               for i in range(len(twin.schema.arguments.flat()))):
        return False
    names = lambda f: [a.name for a in f.schema.arguments.flat()]
    return names(twin) == names(fn)


class Binding:
    """One Python-visible overload of a public name, with its out= twin if any."""

    def __init__(self, fn: NativeFunction, out_fn: NativeFunction | None):
        self.fn = fn
        self.out_fn = out_fn


TENSOR_OPTIONS = ("dtype", "layout", "device", "pin_memory")


def _without_options(key):
    """A factory's signature key without its tensor options (dtype, layout, device,
    pin_memory), which torch's out= variants of factories drop (out gives them)."""
    base, args = key
    return base, tuple(a for a in args if a[0] not in TENSOR_OPTIONS)


def _with_options(key):
    """The key an out= variant is looked up with among factories (see _without_options)."""
    return ("options-dropped",) + key


def out_drops_options(fn: NativeFunction, out_fn: NativeFunction) -> bool:
    """Whether `out_fn` is the out= twin of factory `fn` without its tensor options."""
    return fn.schema.signature_key() != out_fn.schema.signature_key()


def _tensor_before_int(a: Binding, b: Binding) -> bool:
    """Whether a takes a Tensor where b takes an int, at the first argument where they differ."""
    for x, y in zip(a.fn.schema.arguments.flat(), b.fn.schema.arguments.flat()):
        if str(x.type) != str(y.type):
            return str(x.type) == "Tensor" and str(y.type) in ("int", "SymInt")
    return False


def _overload_order(bindings: list[Binding]) -> list[Binding]:
    """torch's overload order: fewer Scalar arguments first (`add.Tensor` before `add.Scalar`),
    and an overload taking a Tensor before one taking an int there, so that a 0-d tensor (which
    torch's parser also takes for an int) picks `max(a, other)`, not `max(a, dim)`."""
    out: list[Binding] = []
    for b in sorted(bindings, key=lambda b: sum(str(a.type).startswith("Scalar")
                                                 for a in b.fn.schema.arguments.flat())):
        at = next((i for i, o in enumerate(out) if _tensor_before_int(b, o)), len(out))
        out.insert(at, b)
    return out


def group_bindings(fns: list[NativeFunction], variant: str) -> dict[str, list[Binding]]:
    """Public name -> the overloads a Python call can reach, in declaration order. An out=
    variant pairs with the functional overload of the same arguments, or (factories, like
    torch's `zeros(size, *, out)`) with the one that adds the tensor options."""
    by_op: dict[str, dict[str, NativeFunction]] = defaultdict(dict)
    for fn in fns:
        by_op[fn.op_name][fn.schema.name.overload] = fn
    functional_key = {}
    for fn in fns:
        if fn.schema.kind() != "out":
            functional_key[(fn.op_name, fn.schema.signature_key())] = fn
            if is_factory(fn):
                stripped = _without_options(fn.schema.signature_key())
                functional_key.setdefault((fn.op_name, _with_options(stripped)), fn)
    outs = {}
    for fn in fns:
        if fn.schema.kind() == "out":
            twin = functional_key.get((fn.op_name, fn.schema.signature_key()))
            if twin is None:
                twin = functional_key.get((fn.op_name, _with_options(fn.schema.signature_key())))
            if twin is not None:
                outs[twin.qualified] = fn
    groups: dict[str, list[Binding]] = {}
    for fn in fns:
        if variant not in fn.variants or fn.schema.kind() == "out" or fn.manual_binding:
            continue
        if hidden_from_python(fn, by_op[fn.op_name]):
            continue
        if variant == "method" and not any(a.name == "self" for a in fn.schema.arguments.positional):
            continue
        groups.setdefault(fn.op_name, []).append(Binding(fn, outs.get(fn.qualified)))
    return {name: _overload_order(bindings) for name, bindings in sorted(groups.items())}
