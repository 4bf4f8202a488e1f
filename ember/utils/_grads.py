"""Gradient resets shared by `nn.Module.zero_grad` and `optim.Optimizer.zero_grad`."""
from __future__ import annotations


def zero_grads(params, set_to_none: bool = True) -> None:
    """Resets each parameter's .grad: to None (default), or to zeros in place (a grad that
    has a graph is detached first, like torch)."""
    for p in params:
        grad = p.grad
        if grad is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        if grad.grad_fn is not None:
            grad.detach_()
        else:
            grad.requires_grad_(False)
        grad.zero_()
