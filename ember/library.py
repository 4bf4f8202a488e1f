"""Registering ops and kernels from outside codegen, as torch.library does.

    >>> lib = ember.library.Library("mylib", "DEF")
    >>> lib.define("twice(Tensor x) -> Tensor")
    'twice'
    >>> lib.impl("twice", lambda x: x * 2, "CompositeImplicitAutograd")
    >>> ember.ops.mylib.twice(ember.ones(2))
    tensor([2., 2.])

Overriding an aten kernel at one key lasts until the Library is destroyed:

    >>> def my_neg(x):
    ...     print("my_neg")
    ...     return x * -1
    >>> lib = ember.library.Library("aten", "IMPL")
    >>> lib.impl("neg", my_neg, "CPU")
    >>> ember.ones(2).neg()
    my_neg
    tensor([-1., -1.])
    >>> lib._destroy()      # the original CPU kernel is back
    >>> ember.ones(2).neg()
    tensor([-1., -1.])
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .core.tensor import Tensor
from .dispatch import keys as K
from .dispatch import observers
from .dispatch.argcheck import ks_list, ks_number, ks_optlist
from .dispatch.dispatcher import OpOverload, find_op, ops, register_fallback
from .dispatch.tls import state as _tls

if TYPE_CHECKING:   # the schema model is imported on first use: `import ember` skips it
    from .codegen.model import FunctionSchema

KINDS = ("DEF", "IMPL", "FRAGMENT")
_defined: dict[str, Library] = {}


def _make_bind(schema: FunctionSchema):
    """A binder with the schema's exact Python signature, compiled once at define time."""
    args = schema.arguments
    names = [a.name for a in args.flat()]

    from .codegen.model import default_to_python

    def param(a):
        return a.name if a.default is None else f"{a.name}={default_to_python(a)}"
    parts = [param(a) for a in args.positional]
    kw = [param(a) for a in args.kwarg_only + args.out]
    if kw:
        parts += ["*"] + kw
    src = (f"def _bind({', '.join(parts)}):\n"
           f"    return ({', '.join(names)}{',' if len(names) == 1 else ''})\n")
    scope: dict = {"float": float}
    exec(src, scope)  # noqa: S102  (definition time only, from a parsed schema)
    return scope["_bind"]


def _make_entry(op: OpOverload, schema: FunctionSchema):
    """A generic dispatch entry: ORs the keysets of the tensor-like arguments."""
    getters = []
    for i, a in enumerate(schema.arguments.flat()):
        t = str(a.type)
        if t == "Tensor":
            getters.append((i, ks_number))
        elif t == "Tensor?":
            getters.append((i, lambda x: 0 if x is None else x._ks))
        elif t == "Tensor[]":
            getters.append((i, ks_list))
        elif t == "Tensor?[]":
            getters.append((i, ks_optlist))
    cache = op._cache

    def entry(*args):
        ks = 0 if getters else K.BACKEND_SELECT_BIT
        for i, g in getters:
            ks |= g(args[i])
        include, keep = _tls.masks
        ks = (ks | include) & keep
        k = cache.get(ks)
        if k is None:
            k = op._fill(ks)
        if observers.active is not None:
            return observers.call(op, k, args)
        return k(*args)
    return entry


def _schema_for(ns: str, name: str, schema: FunctionSchema) -> str:
    return str(schema)


class Library:
    """A set of definitions and registrations in one namespace; `_destroy()` undoes them."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = ""):
        if kind not in KINDS:
            raise ValueError(f"Unsupported kind '{kind}' (expected one of {', '.join(KINDS)})")
        if kind == "DEF" and ns in _defined and ns != "aten":
            raise RuntimeError(f"Only a single Library(\"{ns}\", \"DEF\") is allowed; use "
                               "FRAGMENT to add more definitions")
        if kind == "DEF" and ns == "aten":
            raise ValueError("aten ops are declared in schema/native_functions.yaml; use IMPL")
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._registrations: list = []   # (op, key, previous entry)
        self._defs: list = []
        self._fallbacks: list = []
        if kind == "DEF":
            _defined[ns] = self

    def define(self, schema: str, alias_analysis: str = "", *, tags=()) -> str:
        """Declares `name.overload(args) -> returns` in this namespace; returns its name."""
        if self.kind == "IMPL":
            raise RuntimeError("define() is not allowed on an IMPL library")
        from .codegen.model import FunctionSchema, SchemaError
        try:
            parsed = FunctionSchema.parse(schema)
        except SchemaError as e:
            raise RuntimeError(f"Library.define: malformed schema '{schema}': {e}") from None
        name = parsed.name.name
        overload = parsed.name.overload or "default"
        packet = ops.namespace(self.ns)._packet(name)
        if overload in packet._overloads:
            raise RuntimeError(f"{self.ns}::{name}.{overload} is already defined")
        op = OpOverload(self.ns, name, overload, str(parsed),
                        tuple(a.name for a in parsed.arguments.flat()),
                        len(parsed.arguments.positional), tags=tags)
        op._schema_obj = parsed
        op._bind = _make_bind(parsed)
        op._entry = _make_entry(op, parsed)
        packet._add(op)
        self._defs.append((packet, overload))
        return name

    def _resolve(self, op_name) -> OpOverload:
        if isinstance(op_name, OpOverload):
            return op_name
        if "::" in op_name:
            return find_op(op_name)
        return find_op(f"{self.ns}::{op_name}")

    def impl(self, op_name, fn, dispatch_key: str = "", *, with_keyset: bool = False):
        """Registers `fn` for an op at a dispatch key (or alias key) of this library."""
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        if key not in K.ALIAS_KEYS:
            K.key_of(key)
        op = self._resolve(op_name)
        if op.namespace != self.ns and self.ns != "_":
            raise RuntimeError(f"impl of {op._cpp_name} in a Library for namespace '{self.ns}'")
        prev = op.register(key, fn, with_keyset=with_keyset)
        self._registrations.append((op, key, prev))

    def fallback(self, fn, dispatch_key: str = ""):
        """A boxed kernel fn(op, keyset, *args) for every op at `dispatch_key`."""
        from .dispatch.dispatcher import _fallbacks
        k = K.key_of(dispatch_key or self.dispatch_key)
        self._fallbacks.append((k, _fallbacks.get(k)))
        register_fallback(k, fn)

    def _destroy(self):
        for op, key, prev in reversed(self._registrations):
            op.restore(key, prev)
        self._registrations.clear()
        for k, prev in reversed(self._fallbacks):
            from .dispatch.dispatcher import _fallbacks, clear_caches
            if prev is None:
                _fallbacks.pop(k, None)
            else:
                _fallbacks[k] = prev
            clear_caches()
        self._fallbacks.clear()
        for packet, overload in self._defs:
            op = packet._overloads.pop(overload, None)
            if op is not None and hasattr(packet, overload):
                delattr(packet, overload)
        self._defs.clear()
        if _defined.get(self.ns) is self:
            del _defined[self.ns]

    def __del__(self):
        pass  # registrations stay until _destroy(), like a module-level torch Library


def impl(qualname: str, dispatch_key: str, fn=None):
    """Decorator form: `@ember.library.impl("mylib::twice", "CPU")` (kept for the process)."""
    ns = qualname.split("::")[0]
    lib = Library(ns, "FRAGMENT")

    def register(f):
        lib.impl(qualname, f, dispatch_key)
        return f
    return register(fn) if fn is not None else register


_CUSTOM_OPS = ("CustomOpDef", "custom_op", "infer_schema", "register_autocast",
               "register_autograd", "register_fake", "register_kernel")


def __getattr__(name):
    """custom_op & co. (ember/_library/custom_ops.py) and opcheck, loaded on first use."""
    if name in _CUSTOM_OPS:
        from ._library import custom_ops
        return getattr(custom_ops, name)
    if name == "opcheck":
        from ._library.opcheck import opcheck
        return opcheck
    raise AttributeError(f"module 'ember.library' has no attribute '{name}'")


__all__ = ["Library", "Tensor", "impl"]   # (and, loaded on first use, _CUSTOM_OPS and opcheck)
