"""Custom ops from Python functions, as torch.library.custom_op.

The schema is inferred from the type annotations; the op is registered with the
dispatcher (so it works under autograd, FakeTensorMode, make_fx and the other modes) and
appears as `ember.ops.<ns>.<name>.default`:

    >>> @custom_op("mylib::scale", mutates_args=())
    ... def scale(x: ember.Tensor, k: float) -> ember.Tensor:
    ...     return x * k
    >>> scale._schema
    'mylib::scale(Tensor x, float k) -> Tensor'
    >>> @scale.register_fake
    ... def _(x, k):
    ...     return ember.empty_like(x)
    >>> scale.register_autograd(lambda ctx, g: (g * ctx.k, None),
    ...                         setup_context=lambda ctx, inputs, output: setattr(ctx, "k", inputs[1]))
    >>> x = ember.ones(2, requires_grad=True)
    >>> scale(x, 3.0).sum().backward(); x.grad
    tensor([3., 3.])
"""
from __future__ import annotations

import inspect
import numbers
import typing
from collections.abc import Sequence

import ember
from ember.core.device import device as Device
from ember.core.dtype import dtype as DType
from ember.core.tensor import Tensor
from ember.dispatch import keys as K

_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}
# op -> its fake implementation: FakeTensorMode runs it inside the mode (so the factories
# it calls make fakes), the Meta key runs it on meta tensors
FAKE_IMPLS: dict = {}
_TYPES = {Tensor: "Tensor", int: "SymInt", float: "float", bool: "bool", str: "str",
          DType: "ScalarType", Device: "Device", numbers.Number: "Scalar"}


# --- schema inference ------------------------------------------------------------------------
def _type_name(ann, where: str) -> str:
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is typing.Union or type(ann).__name__ == "UnionType":
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return _type_name(rest[0], where) + "?"
    if origin in (list, Sequence, typing.Sequence) and len(args) == 1:
        inner = _type_name(args[0], where)
        if inner in ("Tensor", "SymInt", "float", "bool", "Tensor?"):
            return inner + "[]"
    if ann in _TYPES:
        return _TYPES[ann]
    raise ValueError(f"infer_schema(func): Parameter {where} has unsupported type {ann}. "
                     f"The valid types are: {', '.join(sorted(set(_TYPES.values())))} and "
                     "Optional/list of them.")


def _returns(ann) -> str:
    if ann is None or ann is type(None):
        return "()"
    if typing.get_origin(ann) is tuple:
        return "(" + ", ".join(_type_name(a, "return") for a in typing.get_args(ann)) + ")"
    return _type_name(ann, "return")


def _default(v) -> str:
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, (int, float, str)):
        return f'"{v}"' if isinstance(v, str) else str(v)
    raise ValueError(f"infer_schema: unsupported default value {v!r}")


def infer_schema(prototype_function, /, *, mutates_args, op_name: str | None = None) -> str:
    """The schema string of a function's annotations, e.g. `(Tensor x, float k) -> Tensor`
    (`op_name` prepends a name); `mutates_args` names the Tensor parameters it writes to
    ("unknown" is not supported)."""
    sig = inspect.signature(prototype_function)
    hints = typing.get_type_hints(prototype_function)
    if mutates_args == "unknown":
        raise ValueError("mutates_args='unknown' is not supported by ember: name the "
                         "arguments the function mutates")
    mutated = set(mutates_args)
    unknown = mutated - set(sig.parameters)
    if unknown:
        raise ValueError(f"mutates_args contains {sorted(unknown)}, which are not "
                         "parameters of the function")
    params = []
    kw_only_started = False
    for index, (name, p) in enumerate(sig.parameters.items()):
        if name not in hints:
            raise ValueError(f"infer_schema(func): Parameter {name} must have a type "
                             "annotation.")
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError("infer_schema(func): *args and **kwargs are not supported")
        t = _type_name(hints[name], name)
        if name in mutated:
            if not t.startswith("Tensor"):
                raise ValueError(f"mutates_args: {name} is not a Tensor")
            # the alias set is named by the parameter's position (torch's a0, a1, ...)
            t = t.replace("Tensor", f"Tensor({chr(ord('a') + index)}!)", 1)
        text = f"{t} {name}"
        if p.default is not p.empty:
            text += f"={_default(p.default)}"
        if p.kind == p.KEYWORD_ONLY and not kw_only_started:
            params.append("*")
            kw_only_started = True
        params.append(text)
    ret = _returns(hints.get("return", None))
    schema = f"({', '.join(params)}) -> {ret}"
    return f"{op_name}{schema}" if op_name else schema


# --- the op -------------------------------------------------------------------------------
class CustomOpDef:
    """What `@custom_op` returns: callable like the function, with the registration
    methods (register_fake, register_kernel, register_autograd, register_autocast)."""

    def __init__(self, namespace: str, name: str, schema: str, fn, device_types, tags=()):
        from ember.library import Library
        self._namespace, self._name = namespace, name
        self._init_fn = fn
        self._lib = Library(namespace, "FRAGMENT")
        self._lib.define(f"{name}{schema}", tags=tuple(tags or ()))
        self._opoverload = getattr(getattr(ember.ops, namespace), name).default
        self._schema = f"{namespace}::{name}{schema}"
        self._backward = self._setup_context = None
        self.register_kernel(device_types)(fn)
        self._lib.impl(name, _no_fake(self), "Meta")
        self._lib.impl(name, _autograd_kernel(self), "Autograd", with_keyset=True)
        self.__name__ = name
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def register_kernel(self, device_types, fn=None, /):
        """The implementation for some device types ("cpu", "cuda"; None: all)."""
        def register(f):
            types = [device_types] if isinstance(device_types, str) else device_types
            keys = ["CPU", "CUDA"] if types is None else [_DEVICE_KEYS[t] for t in types]
            for key in keys:
                self._lib.impl(self._name, _checked(self, f), key)
            return f
        return register(fn) if fn is not None else register

    def register_fake(self, fn=None, /):
        """The FakeTensor/Meta implementation: outputs of the right metadata, no data."""
        def register(f):
            self._lib.impl(self._name, f, "Meta")
            FAKE_IMPLS[self._opoverload] = f
            return f
        return register(fn) if fn is not None else register

    def register_autograd(self, backward, /, *, setup_context=None):
        """`backward(ctx, *grads) -> one gradient (or None) per input`; `setup_context(ctx,
        inputs, output)` saves what backward needs."""
        if any("!" in a for a in self._schema.split("->")[0].split(",")):
            raise RuntimeError(f"Attempted to register an autograd formula for {self._schema}, "
                               "but it mutates its inputs: autograd of mutable custom ops "
                               "is not supported")
        self._backward, self._setup_context = backward, setup_context

    def register_autocast(self, device_type: str, cast_inputs):
        """Inside autocast on `device_type`, floating Tensor inputs are cast to
        `cast_inputs` first."""
        key = {"cpu": "AutocastCPU", "cuda": "AutocastCUDA"}[device_type]
        op = self._opoverload
        below = K.below(K.key_of(key))

        def kernel(ks, *args):
            cast = tuple(a.to(cast_inputs) if isinstance(a, Tensor) and a.is_floating_point()
                         else a for a in args)
            return op.redispatch(ks & below, *cast)
        self._lib.impl(self._name, kernel, key, with_keyset=True)


def _checked(opdef, fn):
    """The user's kernel, with torch's check that outputs do not alias inputs."""
    def kernel(*args):
        out = fn(*args)
        ins = {id(a) for a in args if isinstance(a, Tensor)}
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(o, Tensor) and id(o) in ins:
                raise RuntimeError(
                    f"{opdef._namespace}::{opdef._name} (with implementation in {fn}): The "
                    "output of this custom operator (1) must not also be an input to this "
                    "custom operator and (2) may not alias any inputs to this custom operator "
                    "or other returns. The most common way to trigger this error is if we "
                    "have y = custom_op(x) and y and x are the same Tensor. Please instead "
                    "return a clone of the offending output tensor(s) (e.g. return x.clone()) "
                    "or refactor the custom operator to not return y.")
        return out
    kernel.__qualname__ = f"custom_op[{opdef._namespace}::{opdef._name}]"
    return kernel


def _no_fake(opdef):
    def kernel(*args):
        raise RuntimeError(
            f"There was no fake impl registered for {opdef._namespace}::{opdef._name}. This "
            "is necessary for ember.compile/export/fx tracing to work. Please use "
            f"`{opdef._name}.register_fake` to add an fake impl.")
    return kernel


def _autograd_kernel(opdef):
    """At the Autograd key: an autograd.Function around the op below Autograd, whose
    backward is register_autograd's (or raises, torch's message, when there is none)."""
    below = K.below(K.Autograd)

    def kernel(ks, *args):
        return _function_for(opdef).apply(ks & below, *args)
    return kernel


def _function_for(opdef):
    fn = getattr(opdef, "_function", None)
    if fn is not None and fn._user_backward is opdef._backward:
        return fn
    op, user_backward, setup = opdef._opoverload, opdef._backward, opdef._setup_context

    def forward(ks, *args):
        return op.redispatch(ks, *args)

    def setup_context(ctx, inputs, output):
        if setup is not None:
            setup(ctx, inputs[1:], output)

    def backward(ctx, *grads):
        if user_backward is None:
            raise RuntimeError(f"Trying to backward through {op} but no autograd formula "
                               "was registered. Please use register_autograd to add one.")
        out = user_backward(ctx, *grads)
        return (None, *(out if isinstance(out, tuple) else (out,)))
    name = f"GeneratedBackwardFor_{op.namespace}_{op.name}_{op.overload_name}"
    CustomOpFunction = type(name, (ember.autograd.Function,), {
        "forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
        "backward": staticmethod(backward), "_user_backward": user_backward})
    opdef._function = CustomOpFunction
    return CustomOpFunction


def custom_op(name: str, fn=None, /, *, mutates_args, device_types=None, schema=None,
              tags=None):
    """`@custom_op("ns::name", mutates_args=())` turns a function into an op (see the
    module docstring); `schema=` gives the schema instead of inferring it."""
    def wrap(f):
        ns, _, opname = name.partition("::")
        if not ns or not opname or "." in opname:
            raise ValueError(f"custom_op: expected a name 'namespace::op_name', got '{name}'")
        s = schema if schema is not None else infer_schema(f, mutates_args=mutates_args)
        return CustomOpDef(ns, opname, s, f, device_types, tags)
    return wrap(fn) if fn is not None else wrap


# --- module-level registration, for any op ----------------------------------------------------
def _opdef_or_op(op):
    if isinstance(op, CustomOpDef):
        return op, op._opoverload
    if isinstance(op, str):
        from ember.dispatch.dispatcher import find_op
        op = find_op(op)
    return None, op


def register_fake(op, fn=None, /, *, lib=None):
    """The fake implementation of a custom op (by CustomOpDef or "ns::name")."""
    opdef, overload = _opdef_or_op(op)
    if opdef is not None:
        return opdef.register_fake(fn) if fn is not None else opdef.register_fake

    def register(f):
        from ember.library import Library
        library = lib or Library(overload.namespace, "FRAGMENT")
        library.impl(overload, f, "Meta")
        FAKE_IMPLS[overload] = f
        _keep.append(library)
        return f
    return register(fn) if fn is not None else register


def register_kernel(op, device_types, fn=None, /, *, lib=None):
    opdef, overload = _opdef_or_op(op)
    if opdef is None:
        raise ValueError(f"register_kernel: {overload} is not a custom op made by custom_op")
    return opdef.register_kernel(device_types, fn) if fn is not None else \
        opdef.register_kernel(device_types)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    opdef, overload = _opdef_or_op(op)
    if opdef is None:
        raise ValueError(f"register_autograd: {overload} is not a custom op made by custom_op")
    opdef.register_autograd(backward, setup_context=setup_context)


def register_autocast(op, device_type, cast_inputs, /, *, lib=None):
    opdef, overload = _opdef_or_op(op)
    if opdef is None:
        raise ValueError(f"register_autocast: {overload} is not a custom op made by custom_op")
    opdef.register_autocast(device_type, cast_inputs)


_keep: list = []      # Libraries of module-level registrations live as long as the process
