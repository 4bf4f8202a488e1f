"""Adadelta (torch.optim.Adadelta).

    >>> w = nn.Parameter(ember.zeros(2))
    >>> opt = ember.optim.Adadelta([w], lr=1.0)
    >>> for _ in range(2):              # two steps on the loss w[0] - w[1]
    ...     opt.zero_grad(); (w * ember.tensor([1., -1.])).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([-0.0064,  0.0064], requires_grad=True)
"""
from __future__ import annotations

from .. import zeros_like
from .adam import _new_step_counter, _step_counters_as_tensors
from .optimizer import Optimizer, _check_hyper, _check_unsupported, _to_float

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """v <- rho v + (1 - rho) g^2; delta = sqrt(u + eps) / sqrt(v + eps) * g;
    u <- rho u + (1 - rho) delta^2; p <- p - lr delta."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False) -> None:
        _check_hyper(lr, "lr", "learning rate")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_hyper(eps, "eps", "epsilon value")
        _check_hyper(weight_decay, "weight_decay", "weight_decay value")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        _check_unsupported(defaults)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._fill_group_defaults(foreach=None, maximize=False, differentiable=False,
                                  capturable=False)
        _step_counters_as_tensors(self)

    def _update_group(self, group: dict) -> None:
        lr, rho, eps = _to_float(group["lr"]), group["rho"], group["eps"]
        weight_decay, maximize = group["weight_decay"], group["maximize"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            p_state = self.state[p]
            if not p_state:
                p_state["step"] = _new_step_counter()
                p_state["square_avg"] = zeros_like(p)
                p_state["acc_delta"] = zeros_like(p)
            p_state["step"].add_(1)
            if maximize:
                grad = -grad
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            square_avg, acc_delta = p_state["square_avg"], p_state["acc_delta"]
            square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
            acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
            p.add_(delta, alpha=-lr)
