"""`__torch_function__` support: Tensor subclasses and TorchFunctionMode.

Generated bindings test one flag, `tf_state[0]`, which is True once any Tensor
subclass exists or a mode is active; only then do they look for overrides.

    >>> class Logged(ember.Tensor):
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
    ...         print(func.__name__)
    ...         return super().__torch_function__(func, types, args, kwargs or {})
"""
from __future__ import annotations

from .core.tensor import Tensor
from .dispatch.tls import state as _tls

NO_OVERRIDE = object()
tf_state = [False]
_subclass_count = [0]
_disabled = [0]


def _refresh():
    tf_state[0] = bool(_subclass_count[0] or _tls.function_modes) and not _disabled[0]


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
    if _opts_in(cls):
        _subclass_count[0] += 1
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


def overloaded_types(args, accept) -> list:
    """The distinct types of the tensors in `args` that `accept` admits, subclasses before
    their bases and otherwise in argument order (the protocol's calling order)."""
    out: list = []
    for t in tensors_in(args):
        c = type(t)
        if c in out or not accept(c):
            continue
        out.insert(next((i for i, o in enumerate(out) if issubclass(c, o)), len(out)), c)
    return out


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
    overloaded = overloaded_types(relevant, _opts_in)
    if not overloaded:
        return NO_OVERRIDE
    types = tuple(overloaded)
    for c in overloaded:
        r = c.__torch_function__(public, types, args, kwargs)
        if r is not NotImplemented:
            return r
    raise TypeError(f"no implementation found for '{getattr(public, '__name__', public)}' on "
                    f"types that implement __torch_function__: {list(types)}")


def handle_torch_function_any(public, args, kwargs):
    return handle_torch_function(public, tuple(args) + tuple(kwargs.values()), args, kwargs)


class DisableTorchFunction:
    """Inside this block bindings skip __torch_function__ (like torch._C.DisableTorchFunction)."""

    def __enter__(self):
        _disabled[0] += 1
        _refresh()

    def __exit__(self, *exc):
        _disabled[0] -= 1
        _refresh()


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
    return any(_opts_in(type(a)) for a in tensors_in(args)) or bool(_tls.function_modes)
