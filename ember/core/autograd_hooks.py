"""The one door between the core layer and autograd.

The core layer (tensors, views, storage, factories) never imports `ember.autograd`: it
calls the functions below, and autograd puts its own in their place when ember is
assembled (`register`, called from ember/autograd/__init__.py; the order is in
ember/_assembly.py). Until then they do what a library without autograd would.

    >>> from ember.core import autograd_hooks
    >>> autograd_hooks.mark_inference_view.__module__
    'ember.autograd.graph'
"""
from __future__ import annotations


def mark_inference_view(view, base) -> None:
    """A view of a normal tensor was made inside inference_mode (called by make_view);
    autograd records how it was made, for its in-place checks."""


_HOOKS = ("mark_inference_view",)


def register(**hooks) -> None:
    """Installs autograd's implementations: `register(mark_inference_view=f)`."""
    for name, fn in hooks.items():
        if name not in _HOOKS:
            raise TypeError(f"unknown autograd hook {name!r} (expected one of {_HOOKS})")
        globals()[name] = fn
