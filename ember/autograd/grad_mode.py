"""Grad mode, thread-local: `no_grad`, `enable_grad`, `set_grad_enabled`.

Each works as a context manager and as a decorator:

    >>> x = ember.ones(2, requires_grad=True)
    >>> with ember.no_grad():
    ...     y = x * 2          # not recorded
    >>> @ember.no_grad()
    ... def double(t):
    ...     return t * 2
    >>> y.requires_grad, double(x).requires_grad, (x * 2).requires_grad
    (False, False, True)
"""
from __future__ import annotations

import functools
import inspect

from ..dispatch.tls import state as _tls


def is_grad_enabled() -> bool:
    return _tls.grad_enabled


class _GradModeContext:
    """Base for the grad-mode context managers; usable as decorators (also on generator
    functions, where the mode holds while the generator body runs)."""

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            return self._wrap_generator(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def _wrap_generator(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            gen = fn(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:  # noqa: BLE001  (forwarded into the generator)
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value
        return wrapper

    def _args(self):
        return ()

    def clone(self):
        return self.__class__(*self._args())


class _NoArgDecorator(_GradModeContext):
    """`@no_grad` works with and without parentheses, like torch."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return object.__new__(cls)
        return cls()(orig_func)


class no_grad(_NoArgDecorator):
    def __enter__(self):
        self.prev = _tls.grad_enabled
        _tls.grad_enabled = False

    def __exit__(self, *exc):
        _tls.grad_enabled = self.prev


class enable_grad(_NoArgDecorator):
    def __enter__(self):
        self.prev = _tls.grad_enabled
        _tls.grad_enabled = True

    def __exit__(self, *exc):
        _tls.grad_enabled = self.prev


class set_grad_enabled(_GradModeContext):
    """Sets grad mode on construction (like torch), restores it on exit."""

    def __init__(self, mode: bool):
        self.mode = bool(mode)
        self.prev = _tls.grad_enabled
        _tls.grad_enabled = self.mode

    def _args(self):
        return (self.mode,)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _tls.grad_enabled = self.prev


# torch.autograd.grad_mode also holds inference_mode (imported last: it builds on the above)
from .inference_mode import inference_mode  # noqa: F401
