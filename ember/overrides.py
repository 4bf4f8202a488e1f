"""`__torch_function__` support: Tensor subclasses and TorchFunctionMode.

Generated bindings test one flag, `tf_state[0]`, which is True while a Tensor subclass
that opts in exists or a mode is active; only then do they look for overrides.

    >>> class Logged(ember.Tensor):
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
    ...         print(func.__name__)
    ...         return super().__torch_function__(func, types, args, kwargs or {})
"""
from __future__ import annotations

import functools
import inspect
import weakref

from .core.tensor import Tensor
from .dispatch.tls import state as _tls

NO_OVERRIDE = object()
tf_state = [False]
_subclass_count = [0]
_objects_live = [0]     # tracers whose non-Tensor proxies take part (ember.fx.Proxy)
_disabled = [0]


def _refresh():
    tf_state[0] = bool(_subclass_count[0] or _objects_live[0]
                       or _tls.function_modes) and not _disabled[0]


class _Counting:
    """A context manager that counts itself into `counter` while active."""

    counter: list

    def __enter__(self):
        self.counter[0] += 1
        _refresh()

    def __exit__(self, *exc):
        self.counter[0] -= 1
        _refresh()


class objects_take_part(_Counting):
    """While active, every binding looks for `__torch_function__` on its arguments, so
    non-Tensor objects (FX's Proxy) are intercepted without first failing a type check."""

    counter = _objects_live


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """A subclass that sets `__torch_function__ = _disabled_torch_function_impl` (like
    nn.Parameter) opts out of the protocol: bindings treat its instances as plain Tensors,
    so ops on them take the fast path and return plain Tensors."""
    with DisableTorchFunction():
        return func(*args, **(kwargs or {}))


def _opts_in(cls) -> bool:
    """Does `cls` take part in the torch-function protocol?"""
    return cls is not Tensor and cls.__torch_function__ is not _disabled_torch_function_impl


def _on_subclass(cls):
    """Counts a subclass that opts in while the class lives (its finalizer uncounts it),
    so the flag goes off again once such classes are gone."""
    if _opts_in(cls):
        _subclass_count[0] += 1
        _refresh()
        weakref.finalize(cls, _subclass_gone)


def _subclass_gone():
    _subclass_count[0] -= 1
    _refresh()


def _init_subclass(cls, **kwargs):
    _on_subclass(cls)


# Tensor subclasses that define __torch_function__ turn the protocol on (ember/_assembly.py)
TENSOR_ATTRIBUTES = {"__init_subclass__": classmethod(_init_subclass)}


def tensors_in(args):
    """The tensors among `args`, looking one level into lists and tuples."""
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, Tensor):
                    yield b


def _flat(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a


def _is_torch_function_object(x) -> bool:
    """A non-Tensor argument that overrides ember functions (FX's Proxy, a TensorLike)."""
    return not isinstance(x, Tensor) and hasattr(type(x), "__torch_function__")


def _distinct_in_order(objects, accept) -> list:
    """The distinct types of `objects` that `accept` admits, subclasses before their
    bases and otherwise in argument order (the protocol's calling order)."""
    out: list = []
    for t in objects:
        c = type(t)
        if c in out or not accept(c):
            continue
        out.insert(next((i for i, o in enumerate(out) if issubclass(c, o)), len(out)), c)
    return out


def overloaded_types(args, accept) -> list:
    """`_distinct_in_order` over the tensors in `args` (the __torch_dispatch__ protocol)."""
    return _distinct_in_order(tensors_in(args), accept)


def _torch_function_types(args) -> list:
    """Types whose __torch_function__ applies: Tensor subclasses that opt in and any
    non-Tensor object that defines it."""
    return _distinct_in_order(
        (a for a in _flat(args) if isinstance(a, Tensor) or _is_torch_function_object(a)),
        lambda c: not issubclass(c, Tensor) or _opts_in(c))


def handle_torch_function(public, relevant, args, kwargs=None):
    """Runs the torch-function protocol for one call; NO_OVERRIDE if nothing applies."""
    if _disabled[0]:
        return NO_OVERRIDE
    kwargs = kwargs or {}
    if _tls.function_modes:
        mode = _tls.function_modes.pop()
        try:
            _refresh()
            types = tuple(dict.fromkeys(type(t) for t in tensors_in(relevant)))
            return mode.__torch_function__(public, types, args, kwargs)
        finally:
            _tls.function_modes.append(mode)
            _refresh()
    overloaded = _torch_function_types(relevant)
    if not overloaded:
        return NO_OVERRIDE
    types = tuple(overloaded)
    for c in overloaded:
        r = c.__torch_function__(public, types, args, kwargs)
        if r is not NotImplemented:
            return r
    raise TypeError(f"no implementation found for '{getattr(public, '__name__', public)}' on "
                    f"types that implement __torch_function__: {list(types)}")


@functools.cache
def _defaults(fn) -> dict:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {p.name: p.default for p in params if p.default is not p.empty}


def _given(fn, kwargs: dict) -> dict:
    """The keyword arguments a caller wrote: a generated binding has every keyword at
    hand, defaults included (`out=None`), where torch's argument parser passes the
    protocol only those given."""
    defaults = _defaults(fn)
    return {k: v for k, v in kwargs.items()
            if k not in defaults or not (v is defaults[k] or (
                type(v) is type(defaults[k]) and v == defaults[k]))}


def handle_torch_function_given(public, relevant, args, kwargs=None):
    """`handle_torch_function` for a generated binding (which passes every keyword)."""
    return handle_torch_function(public, relevant, args, _given(public, kwargs or {}))


def handle_torch_function_any(public, args, kwargs):
    return handle_torch_function(public, tuple(args) + tuple(kwargs.values()), args, kwargs)


def handle_rejected_arguments(public, relevant, args, kwargs=None):
    """A binding's type check failed: if the culprit is a non-Tensor object with
    `__torch_function__`, run the protocol (torch's argument parser does the same);
    NO_OVERRIDE otherwise, and the binding re-raises its TypeError. Costs nothing on the
    fast path: bindings call it from their `except TypeError`."""
    if tf_state[0] or _disabled[0] or not any(map(_is_torch_function_object, _flat(relevant))):
        return NO_OVERRIDE
    return handle_torch_function(public, relevant, args, _given(public, kwargs or {}))


def handle_rejected_arguments_any(public, args, kwargs):
    """For an overloaded binding (`*args, **kwargs`: the keywords are the caller's)."""
    return handle_rejected_arguments(public, tuple(args) + tuple(kwargs.values()), args, kwargs)


class DisableTorchFunction(_Counting):
    """Inside this block bindings skip __torch_function__ (like torch._C.DisableTorchFunction)."""

    counter = _disabled


def _convert(ret, cls):
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        return type(ret)(_convert(r, cls) for r in ret)
    return ret


def default_torch_function(cls, func, types, args=(), kwargs=None):
    """Tensor.__torch_function__: run func without overrides, wrap results in cls."""
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunction():
        ret = func(*args, **(kwargs or {}))
    return _convert(ret, cls)


class TorchFunctionMode:
    """Intercepts every public ember function while active (`with MyMode():`)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _tls.function_modes.append(self)
        _refresh()
        return self

    def __exit__(self, *exc):
        _tls.function_modes.remove(self)
        _refresh()


def has_torch_function(args) -> bool:
    return bool(_torch_function_types(args)) or bool(_tls.function_modes)
