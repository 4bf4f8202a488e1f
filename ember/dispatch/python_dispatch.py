"""The Python dispatch key: `__torch_dispatch__` tensor subclasses and TorchDispatchMode.

A mode on the stack puts the Python key in the thread-local include set, so every op
reaches `python_fallback`, which pops the innermost mode while its handler runs:

    >>> class Log(TorchDispatchMode):
    ...     def __torch_dispatch__(self, func, types, args=(), kwargs=None):
    ...         print(func.__name__)
    ...         return func(*args, **(kwargs or {}))
    >>> with Log():
    ...     y = ember.ones(2) + 1
    ones.default
    add.Tensor
"""
from __future__ import annotations

from ..core.tensor import Tensor
from ..overrides import overloaded_types
from ..overrides import tensors_in as _tensor_args
from . import keys as K
from .dispatcher import register_fallback
from .tls import excluding
from .tls import state as _tls


def _sync_python_key():
    inc, keep = _tls.masks
    _tls.masks = (inc | K.PYTHON_BIT if _tls.dispatch_modes else inc & ~K.PYTHON_BIT, keep)


def _default_torch_dispatch(cls, func, types, args=(), kwargs=None):
    """Tensor.__torch_dispatch__: run the op below the Python key."""
    with excluding(K.PYTHON_BIT):
        return func(*args, **(kwargs or {}))


TENSOR_ATTRIBUTES = {"__torch_dispatch__": classmethod(_default_torch_dispatch)}


from ..core.tensor import _has_python_dispatch as has_python_dispatch

# The keys above Python have already run for this call (autocast cast, autograd
# recorded); while a handler runs they are excluded, so its `func(*args)` goes on from
# the Python key down, as torch's guards (AutoDispatchBelowADInplaceOrView, ...) do.
_HANDLED_ABOVE = K.FULL & ~K.below(K.Python + 1)


def python_fallback(op, keyset, *args):
    """The boxed kernel at the Python key for every op."""
    a, kw = op.split_args(args)
    if _tls.dispatch_modes:
        mode = _tls.dispatch_modes.pop()
        _sync_python_key()
        saved = _tls.masks
        _tls.masks = (saved[0], saved[1] & ~_HANDLED_ABOVE)
        try:
            types = tuple(dict.fromkeys(type(t) for t in _tensor_args(args)
                                        if has_python_dispatch(type(t))))
            r = mode.__torch_dispatch__(op, types, a, kw)
        finally:
            _tls.masks = (_tls.masks[0], saved[1])
            _tls.dispatch_modes.append(mode)
            _sync_python_key()
        if r is NotImplemented:
            raise TypeError(f"{type(mode).__name__}.__torch_dispatch__ returned NotImplemented "
                            f"for {op}")
        return r
    overloaded = overloaded_types(args, has_python_dispatch)
    if not overloaded:
        return op.redispatch(keyset & K.below(K.Python), *args)
    types = tuple(overloaded)
    with excluding(_HANDLED_ABOVE):
        for c in overloaded:
            r = c.__torch_dispatch__(op, types, a, kw)
            if r is not NotImplemented:
                return r
    raise TypeError(f"Multiple dispatch failed for '{op}'; all __torch_dispatch__ handlers "
                    f"returned NotImplemented: {[c.__name__ for c in types]}")


register_fallback(K.Python, python_fallback)


class TorchDispatchMode:
    """Intercepts every op at the Python key while active. Subclass and override
    `__torch_dispatch__(self, func, types, args=(), kwargs=None)`."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, *exc):
        m = _pop_mode()
        if m is not self:
            raise RuntimeError("TorchDispatchMode exited out of order")

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


def _push_mode(mode):
    _tls.dispatch_modes.append(mode)
    _sync_python_key()


def _pop_mode():
    m = _tls.dispatch_modes.pop()
    _sync_python_key()
    return m


def _get_current_dispatch_mode():
    return _tls.dispatch_modes[-1] if _tls.dispatch_modes else None


def _get_current_dispatch_mode_stack():
    return list(_tls.dispatch_modes)


def is_traceable_wrapper_subclass(t) -> bool:
    return isinstance(t, Tensor) and has_python_dispatch(type(t)) and t._np is None
