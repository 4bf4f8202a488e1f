"""`inference_mode`: like no_grad, and cheaper. Thread-local, nestable, a context manager
and a decorator.

Inside it the Autograd key is excluded from the thread-local keyset (no recording,
no grad-mode check), grad mode is off, and new tensors are *inference tensors*: they
lack the ADInplaceOrView key, so they have no version counter and no view tracking.
Normal tensors still carry ADInplaceOrView, so in-place ops on them keep bumping their
version (torch does the same). Outside, inference tensors cannot be modified in place
or saved for backward.

    >>> x = ember.ones(2, requires_grad=True)
    >>> with ember.inference_mode():
    ...     y = x * 2
    >>> y.is_inference(), y.requires_grad
    (True, False)
"""
from __future__ import annotations

from ..dispatch import keys as K
from ..dispatch.tls import set_inference
from ..dispatch.tls import state as _tls
from .grad_mode import _GradModeContext


class inference_mode(_GradModeContext):
    """Enables (mode=True) or disables inference mode for the block."""

    def __new__(cls, mode=True):
        if mode.__class__ is bool or not callable(mode):
            return object.__new__(cls)
        return cls()(mode)          # bare `@inference_mode` on a function

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def _args(self):
        return (self.mode,)

    def __call__(self, fn=None):
        if fn is None:          # `@inference_mode()` written with parentheses and no function
            return self
        return super().__call__(fn)

    def __enter__(self):
        s = _tls
        masks = s.masks
        self._prev = (masks, s.grad_enabled, s.inference)
        if self.mode:
            s.masks = (masks[0], masks[1] & _NO_AUTOGRAD)
            s.grad_enabled = False
        else:
            s.masks = (masks[0], masks[1] | K.AUTOGRAD_BIT)
            s.grad_enabled = True
        set_inference(self.mode)

    def __exit__(self, *exc):
        s = _tls
        masks, s.grad_enabled, inference = self._prev
        set_inference(inference)
        s.masks = (s.masks[0], masks[1])


_NO_AUTOGRAD = ~K.AUTOGRAD_BIT


def is_inference_mode_enabled() -> bool:
    return _tls.inference


INPLACE_ON_INFERENCE = ("Inplace update to inference tensor outside InferenceMode is not "
                        "allowed.You can make a clone to get a normal tensor before doing inplace "
                        "update.See https://github.com/pytorch/rfcs/pull/17 for more details.")


def check_inplace_on_inference(t) -> None:
    """Called by generated entries of mutating ops when a written tensor `t` lacks
    ADInplaceOrView (an inference tensor): allowed only inside inference mode."""
    if not _tls.inference:
        raise RuntimeError(INPLACE_ON_INFERENCE)
