"""RAdam, rectified Adam (torch.optim.RAdam).

    >>> w = nn.Parameter(ember.zeros(2))
    >>> opt = ember.optim.RAdam([w], lr=1e-3)
    >>> for _ in range(2):              # two steps on the loss w[0] - w[1]
    ...     opt.zero_grad(); (w * ember.tensor([1., -1.])).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([-0.0020,  0.0020], requires_grad=True)
"""
from __future__ import annotations

from .. import zeros_like
from .adam import _new_step_counter, _step_counters_as_tensors
from .optimizer import Optimizer, _check_betas, _check_hyper, _check_unsupported, _to_float

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Adam's moments; while the variance estimate is untrustworthy (rho_t <= 5) the step
    is plain momentum lr * m_hat, afterwards Adam's step scaled by the rectification."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False) -> None:
        _check_hyper(lr, "lr", "learning rate")
        _check_hyper(eps, "eps", "epsilon value")
        _check_betas(betas)
        _check_hyper(weight_decay, "weight_decay", "weight_decay value")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        _check_unsupported(defaults)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._fill_group_defaults(foreach=None, maximize=False, differentiable=False,
                                  capturable=False, decoupled_weight_decay=False)
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
                p_state["exp_avg_sq"] = zeros_like(p)
            if group["maximize"]:
                grad = -grad
            p_state["step"].add_(1)
            step = p_state["step"].item()
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            exp_avg, exp_avg_sq = p_state["exp_avg"], p_state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            bias_corrected_exp_avg = exp_avg / bias_correction1
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(eps)
                p.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
            else:
                p.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
