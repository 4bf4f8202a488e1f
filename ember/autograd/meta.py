"""Per-tensor autograd metadata, allocated only for tensors that need it (like torch's
AutogradMeta): plain tensors keep `_ag = None` and pay nothing.
"""
from __future__ import annotations

from ..dispatch import keys as K


class AutogradMeta:
    __slots__ = (
        "grad",
        "grad_fn",
        "hooks",
        "name",
        "output_nr",
        "requires_grad",
        "retains_grad",
    )

    def __init__(self):
        self.requires_grad = False
        self.grad = None
        self.grad_fn = None
        self.retains_grad = False
        self.hooks = None
        self.output_nr = 0
        self.name = None


def autograd_meta(t) -> AutogradMeta:
    ag = t._ag
    if ag is None:
        ag = t._ag = AutogradMeta()
    return ag


def set_requires_grad(t, flag: bool) -> None:
    """`t.requires_grad_(flag)`: leaves only, floating point only (torch's errors)."""
    if flag and not t.is_floating_point():
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
    ag = t._ag
    if ag is not None and ag.grad_fn is not None:
        if not flag:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you "
                               "want to use a computed variable in a subgraph that doesn't require "
                               "differentiation use var_no_grad = var.detach().")
        return
    if flag and t.is_inference():
        raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode "
                           "is not allowed.")
    autograd_meta(t).requires_grad = flag
    if flag:
        t._ks |= K.AUTOGRAD_BIT
    else:
        t._ks &= ~K.AUTOGRAD_BIT


def set_grad(t, value) -> None:
    from ..core.tensor import Tensor
    if value is not None:
        if not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                            f"type {type(value).__name__}")
        if value.shape != t.shape:
            raise RuntimeError(f"assigned grad has data of a different size: {tuple(value.shape)} "
                               f"vs {tuple(t.shape)}")
        if value.dtype is not t.dtype:
            raise RuntimeError("assigned grad has data of a different type")
        if value.device != t.device:
            raise RuntimeError("assigned grad has data located on a different device")
    autograd_meta(t).grad = value
