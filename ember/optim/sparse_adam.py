"""SparseAdam (torch.optim.SparseAdam): Adam for sparse gradients. Ember has no sparse
tensors yet, so a step with a gradient raises torch's error for dense gradients."""
from __future__ import annotations

from ..autograd.grad_mode import enable_grad
from .optimizer import Optimizer, _check_betas

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """torch's constructor and checks; `step` needs sparse gradients (see the module)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False) -> None:
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        if any(p.grad is not None for g in self.param_groups for p in g["params"]):
            raise RuntimeError("SparseAdam does not support dense gradients, please consider "
                               "Adam instead")
        return loss
