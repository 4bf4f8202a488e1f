"""Adamax, Adam with the infinity norm (torch.optim.Adamax).

    >>> w = nn.Parameter(ember.zeros(2))
    >>> opt = ember.optim.Adamax([w], lr=2e-3)
    >>> for _ in range(2):              # two steps on the loss w[0] - w[1]
    ...     opt.zero_grad(); (w * ember.tensor([1., -1.])).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([-0.0040,  0.0040], requires_grad=True)
"""
from __future__ import annotations

from .. import maximum, zeros_like
from .adam import _new_step_counter, _step_counters_as_tensors
from .optimizer import Optimizer, _check_betas, _check_hyper, _check_unsupported, _to_float

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """m <- lerp(m, g, 1 - beta1); u <- max(beta2 u, |g| + eps);
    p <- p - lr / (1 - beta1^t) m / u."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False,
                 capturable=False) -> None:
        _check_hyper(lr, "lr", "learning rate")
        _check_hyper(eps, "eps", "epsilon value")
        _check_betas(betas)
        _check_hyper(weight_decay, "weight_decay", "weight_decay value")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        _check_unsupported(defaults)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._fill_group_defaults(foreach=None, maximize=False, differentiable=False,
                                  capturable=False)
        _step_counters_as_tensors(self)

    def _update_group(self, group: dict) -> None:
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = _to_float(group["lr"]), group["eps"], group["weight_decay"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            p_state = self.state[p]
            if not p_state:
                p_state["step"] = _new_step_counter()
                p_state["exp_avg"] = zeros_like(p)
                p_state["exp_inf"] = zeros_like(p)
            if group["maximize"]:
                grad = -grad
            step_t = p_state["step"]
            step_t.add_(1)
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            exp_avg, exp_inf = p_state["exp_avg"], p_state["exp_inf"]
            exp_avg.lerp_(grad, 1 - beta1)
            maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
            clr = lr / (1 - beta1 ** step_t.item())
            p.addcdiv_(exp_avg, exp_inf, value=-clr)
