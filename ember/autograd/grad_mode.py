"""Grad mode, thread-local: `no_grad`, `enable_grad`, `set_grad_enabled`.

Each works as a context manager and as a decorator:

    >>> with ember.no_grad():
    ...     y = x * 2          # not recorded
"""
from __future__ import annotations

import functools

from ..dispatch.tls import state as _tls


def is_grad_enabled() -> bool:
    return _tls.grad_enabled


class _GradModeContext:
    """Base for the grad-mode context managers; usable as decorators."""

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args()):
                return fn(*args, **kwargs)
        return wrapper

    def _args(self):
        return ()

    def clone(self):
        return self.__class__(*self._args())


class no_grad(_GradModeContext):
    def __enter__(self):
        self.prev = _tls.grad_enabled
        _tls.grad_enabled = False

    def __exit__(self, *exc):
        _tls.grad_enabled = self.prev


class enable_grad(_GradModeContext):
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
