"""Operators, their kernel tables, and the per-keyset kernel cache.

Every operator overload (`aten::add.Tensor`) is one `OpOverload`. Calling it
computes the keyset of its arguments, looks the kernel up in `op._cache[keyset]`
(filled on a miss by walking the keys from the highest), and calls it:

    >>> aten = ember.ops.aten
    >>> aten.add.Tensor(ember.ones(2), ember.ones(2), alpha=2)
    tensor([3., 3.])

A kernel registered `with_keyset=True` receives the keyset first, so it can
redispatch below itself: `op.redispatch(keyset & keys.below(keys.Autograd), *args)`.
"""
from __future__ import annotations

import os
import sys
from functools import partial

from . import keys as K
from . import observers


class Fallthrough:
    """Marker kernel: skip this key and try the next one down."""

    def __repr__(self):
        return "fallthrough"


FALLTHROUGH = Fallthrough()

# Per-key boxed fallbacks: fallback(op, keyset, *args) for every op without a kernel there.
_fallbacks: dict[int, object] = {}
for _k in (K.ADInplaceOrView, K.AutocastCPU, K.AutocastCUDA, K.Functionalize,
           K.PreDispatch, K.BackendSelect, K.Autograd):
    _fallbacks[_k] = FALLTHROUGH

_all_ops: list[OpOverload] = []
_DECOMPOSING_KEYS = (K.Autograd, K.ADInplaceOrView, K.Functionalize, K.Python)


def register_fallback(key: int, fn, *, boxed=True) -> None:
    """One kernel for every op at `key` (boxed: called as fn(op, keyset, *args))."""
    _fallbacks[key] = fn
    clear_caches()


def clear_caches() -> None:
    for op in _all_ops:
        op._clear_caches()


def clear_entry_caches() -> None:
    """Forget the kernels the entries cached (the profiler started or stopped)."""
    for op in _all_ops:
        op._entry_cache.clear()


def _print_step(op, keyset, key, fn, args):
    name = getattr(fn, "__qualname__", None) or getattr(getattr(fn, "func", None),
                                                        "__qualname__", repr(fn))
    print(f"[dispatch] {op._cpp_name}  keys={K.names(keyset)}  -> {K.KEY_NAMES[key]}: {name}",
          file=sys.stderr)


def set_dispatch_trace(flag: bool) -> None:
    """Print each op, its keyset and the kernel chosen (also EMBER_SHOW_DISPATCH_TRACE=1)."""
    if flag and _print_step not in observers.step_hooks:
        observers.add_step_hook(_print_step)
    elif not flag and _print_step in observers.step_hooks:
        observers.remove_step_hook(_print_step)


class OpOverload:
    """One overload of an operator, e.g. `aten::add.Tensor`, with its parsed schema.

    `op(*args, **kwargs)` binds arguments against the schema and dispatches.
    Generated bindings skip the binding and call `op._entry(*positional)`.
    """

    __slots__ = (
        "__dict__",
        "__weakref__",
        "_arg_names",
        "_bind",
        "_cache",
        "_composite_explicit",
        "_composite_implicit",
        "_entry",
        "_entry_cache",
        "_n_positional",
        "_schema_obj",
        "_schema_str",
        "_table",
        "name",
        "namespace",
        "overload_name",
        "tags",
    )

    def __init__(self, namespace, name, overload_name, schema_str, arg_names=(), n_positional=0,
                 tags=(), bind=None, entry=None):
        self.namespace = namespace
        self.name = name                      # "add"
        self.overload_name = overload_name    # "Tensor" or "default"
        self._schema_str = schema_str
        self._schema_obj = None               # the parsed FunctionSchema, made on first use
        self._arg_names = tuple(arg_names)    # every argument, schema order
        self._n_positional = n_positional     # how many of them are positional
        self.tags = tuple(tags)
        self._table: dict[int, tuple] = {}    # key -> (fn, with_keyset)
        self._cache: dict[int, object] = {}   # keyset -> callable(*args)
        self._entry_cache: dict[int, object] = {}  # the same for calls from the entry
        self._entry = entry
        self._bind = bind
        self._composite_implicit = None
        self._composite_explicit = None
        _all_ops.append(self)

    # --- identity -----------------------------------------------------------------
    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}::{self.name}"

    def __str__(self):
        return self._opname()    # torch's: aten.add.Tensor (a graph prints this)

    @property
    def _cpp_name(self) -> str:
        """`aten::add.Tensor`, as torch's C++ errors name the overload."""
        ov = "" if self.overload_name == "default" else f".{self.overload_name}"
        return f"{self.namespace}::{self.name}{ov}"

    def __repr__(self):
        return f"<OpOverload(op='{self.namespace}.{self.name}', overload='{self.overload_name}')>"

    def _opname(self):
        return f"{self.namespace}.{self.name}.{self.overload_name}"

    @property
    def __name__(self):
        return f"{self.name}.{self.overload_name}"

    @property
    def schema(self):
        """The parsed schema (ember.codegen.model.FunctionSchema)."""
        if self._schema_obj is None:
            from ember.codegen.model import FunctionSchema
            self._schema_obj = FunctionSchema.parse(self._schema_str)
        return self._schema_obj

    _schema = schema

    def split_args(self, args):
        """Positional tuple in schema order -> (args, kwargs) as __torch_dispatch__ sees them."""
        n = self._n_positional
        return tuple(args[:n]), dict(zip(self._arg_names[n:], args[n:]))

    # --- calling --------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        return self._entry(*self._bind(*args, **kwargs))

    def redispatch(self, keyset: int, *args):
        """Call the kernel for `keyset` (already masked by the caller)."""
        k = self._cache.get(keyset)
        if k is None:
            k = self._fill(keyset)
        return k(*args)

    def call_at(self, key_name: str, *args):
        """Run the kernel registered for one key directly (tests, debugging)."""
        return self._kernel_for(K.key_of(key_name))(*args)

    def _kernel_for(self, key):
        entry = self._resolve(key)
        if entry is None or entry is FALLTHROUGH:
            raise NotImplementedError(f"no kernel for {self._cpp_name} at {K.KEY_NAMES[key]}")
        fn, with_ks = entry
        return partial(fn, K.bit(key) | K.below(key)) if with_ks else fn

    # --- registration ---------------------------------------------------------------
    def register(self, key, fn, *, with_keyset=False):
        """Registers `fn` at a dispatch key name or alias ('CPU', 'CompositeImplicitAutograd').

        Returns the previous entry so a Library can restore it.
        """
        if key == "CompositeImplicitAutograd":
            prev, self._composite_implicit = self._composite_implicit, (fn, with_keyset)
        elif key == "CompositeExplicitAutograd":
            prev, self._composite_explicit = self._composite_explicit, (fn, with_keyset)
        else:
            k = K.key_of(key) if isinstance(key, str) else key
            prev = self._table.get(k)
            self._table[k] = FALLTHROUGH if fn is FALLTHROUGH else (fn, with_keyset)
        self._clear_caches()
        return prev

    def restore(self, key, prev):
        if key == "CompositeImplicitAutograd":
            self._composite_implicit = prev
        elif key == "CompositeExplicitAutograd":
            self._composite_explicit = prev
        else:
            k = K.key_of(key) if isinstance(key, str) else key
            if prev is None:
                self._table.pop(k, None)
            else:
                self._table[k] = prev
        self._clear_caches()

    def _clear_caches(self) -> None:
        self._cache.clear()
        self._entry_cache.clear()

    def has_kernel_for(self, key_name: str) -> bool:
        e = self._resolve(K.key_of(key_name))
        return e is not None and e is not FALLTHROUGH

    def _resolve(self, key: int):
        """The kernel entry for one key: direct, then alias, then the key's fallback."""
        e = self._table.get(key)
        if e is not None:
            return e
        if key in (K.CPU, K.CUDA, K.Meta):
            if self._composite_explicit is not None:
                return self._composite_explicit
            if self._composite_implicit is not None:
                return self._composite_implicit
        elif key in _DECOMPOSING_KEYS and self._composite_implicit is not None:
            # torch decomposes at Autograd, a key every torch tensor carries; an ember tensor
            # carries it only when it requires grad, so the first key reached below it does.
            return self._composite_implicit
        fb = _fallbacks.get(key)
        if fb is None:
            return None
        if fb is FALLTHROUGH:
            return FALLTHROUGH
        return (partial(fb, self), True)

    def _fill_entry(self, keyset: int):
        """The kernel the entry (`_entry`) calls for `keyset`: `_fill`'s, run inside the
        profiler's `aten::<name>` range while one records (observers.set_active clears
        these when that changes)."""
        kernel = self._cache.get(keyset) or self._fill(keyset)
        if observers.active is not None:
            kernel = observers.profiled_kernel(self, kernel)
        self._entry_cache[keyset] = kernel
        return kernel

    def _fill(self, keyset: int):
        ks = keyset
        while ks:
            key = ks.bit_length() - 1
            entry = self._resolve(key)
            if entry is FALLTHROUGH:
                ks &= ~(1 << key)
                continue
            if entry is None:
                raise NotImplementedError(_missing_kernel_message(self, key, keyset))
            fn, with_ks = entry
            kernel = partial(fn, keyset) if with_ks else fn
            if observers.step_hooks:
                kernel = observers.observed_kernel(self, keyset, key, fn, kernel)
            self._cache[keyset] = kernel
            return kernel
        raise NotImplementedError(f"There were no tensor arguments to {self._cpp_name} and no device, "
                                  "so no kernel could be chosen")


def _missing_kernel_message(op, key, keyset):
    return (f"Could not run '{op._cpp_name}' with arguments from the '{K.KEY_NAMES[key]}' "
            f"backend. '{op._cpp_name}' is only available for these backends: "
            f"[{', '.join(_available(op))}]. (dispatch keys of the call: {K.names(keyset)})")


def _available(op):
    out = [K.KEY_NAMES[k] for k in sorted(op._table, reverse=True)]
    if op._composite_explicit:
        out.append("CompositeExplicitAutograd")
    if op._composite_implicit:
        out.append("CompositeImplicitAutograd")
    return out


class OpOverloadPacket:
    """All overloads of one operator name: `ember.ops.aten.add.Tensor`, `.out`, ...

    Calling the packet picks the first overload whose schema accepts the arguments.
    """

    def __init__(self, namespace, name):
        self._namespace = namespace
        self._name = name
        self._overloads: dict[str, OpOverload] = {}

    @property
    def __name__(self):
        return self._name

    def overloads(self):
        return list(self._overloads)

    def _add(self, op: OpOverload):
        self._overloads[op.overload_name] = op
        setattr(self, op.overload_name, op)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(f"The underlying op of '{self._namespace}.{self._name}' has no "
                             f"overload name '{name}'")

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._namespace}.{self._name}')>"

    def __str__(self):
        return f"{self._namespace}.{self._name}"    # torch's: aten.mm

    def __call__(self, *args, **kwargs):
        from .argcheck import bind_first_match
        op, bound = bind_first_match(list(self._overloads.values()), args, kwargs,
                                     f"{self._namespace}.{self._name}")
        return op._entry(*bound)


class OpNamespace:
    """`ember.ops.aten`: attribute access gives OpOverloadPackets."""

    def __init__(self, name):
        self._name = name
        self._packets: dict[str, OpOverloadPacket] = {}

    def _packet(self, name) -> OpOverloadPacket:
        p = self._packets.get(name)
        if p is None:
            p = self._packets[name] = OpOverloadPacket(self._name, name)
        return p

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self._packets[name]
        except KeyError:
            raise AttributeError(f"'_OpNamespace' '{self._name}' object has no attribute "
                                 f"'{name}'") from None

    def __iter__(self):
        return iter(sorted(self._packets))


class _Ops:
    """`ember.ops`: namespaces created on first use (custom libraries add their own)."""

    def __init__(self):
        self._namespaces: dict[str, OpNamespace] = {}

    def namespace(self, name) -> OpNamespace:
        ns = self._namespaces.get(name)
        if ns is None:
            ns = self._namespaces[name] = OpNamespace(name)
        return ns

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self.namespace(name)


ops = _Ops()


def find_op(qualname: str) -> OpOverload:
    """'aten::add.Tensor' or 'aten::neg' -> the OpOverload."""
    ns, _, rest = qualname.partition("::")
    name, _, overload = rest.partition(".")
    return getattr(getattr(ops.namespace(ns), name), overload or "default")


if os.environ.get("EMBER_SHOW_DISPATCH_TRACE", "") not in ("", "0"):
    set_dispatch_trace(True)
