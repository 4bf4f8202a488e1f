"""NAdam, Adam with Nesterov momentum (torch.optim.NAdam).

    >>> w = nn.Parameter(ember.zeros(2))
    >>> opt = ember.optim.NAdam([w], lr=2e-3)
    >>> for _ in range(2):              # two steps on the loss w[0] - w[1]
    ...     opt.zero_grad(); (w * ember.tensor([1., -1.])).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([-0.0037,  0.0037], requires_grad=True)
"""
from __future__ import annotations

from .. import zeros_like
from .adam import _new_step_counter, _step_counters_as_tensors
from .optimizer import Optimizer, _check_betas, _check_hyper, _check_unsupported, _to_float

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Adam's moments with the momentum schedule mu_t = beta1 (1 - 0.5 * 0.96^(t psi))
    (psi: `momentum_decay`), stepping by the current gradient and the next momentum."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False) -> None:
        _check_hyper(lr, "lr", "learning rate")
        _check_hyper(eps, "eps", "epsilon value")
        _check_betas(betas)
        _check_hyper(weight_decay, "weight_decay", "weight_decay value")
        _check_hyper(momentum_decay, "momentum_decay", "momentum_decay value")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        _check_unsupported(defaults)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._fill_group_defaults(maximize=False, foreach=None, capturable=False,
                                  differentiable=False, decoupled_weight_decay=False)
        _step_counters_as_tensors(self)
        for p_state in self.state.values():
            if "mu_product" in p_state and not hasattr(p_state["mu_product"], "item"):
                p_state["mu_product"] = _new_step_counter(p_state["mu_product"])

    def _update_group(self, group: dict) -> None:
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = _to_float(group["lr"]), group["eps"], group["weight_decay"]
        momentum_decay = group["momentum_decay"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            p_state = self.state[p]
            if not p_state:
                p_state["step"] = _new_step_counter()
                p_state["mu_product"] = _new_step_counter(1.0)
                p_state["exp_avg"] = zeros_like(p)
                p_state["exp_avg_sq"] = zeros_like(p)
            if group["maximize"]:
                grad = -grad
            p_state["step"].add_(1)
            step = p_state["step"].item()
            bias_correction2 = 1 - beta2 ** step
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            mu_product = p_state["mu_product"].mul_(mu).item()
            exp_avg, exp_avg_sq = p_state["exp_avg"], p_state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
            p.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
            p.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product * mu_next))
