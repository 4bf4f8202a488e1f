"""Averaged SGD (torch.optim.ASGD).

    >>> w = nn.Parameter(ember.zeros(2))
    >>> opt = ember.optim.ASGD([w], lr=0.1)
    >>> for _ in range(2):              # two steps on the loss w[0] - w[1]
    ...     opt.zero_grad(); (w * ember.tensor([1., -1.])).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([-0.2000,  0.2000], requires_grad=True)
"""
from __future__ import annotations

from .. import tensor, zeros_like
from .adam import _new_step_counter, _step_counters_as_tensors
from .optimizer import Optimizer, _check_hyper, _check_unsupported, _to_float

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """p <- p (1 - lambd eta) - eta g, with eta = lr / (1 + lambd lr t)^alpha; the average
    ax of the iterates starts at step t0 (its rate mu = 1 / max(1, t - t0))."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False,
                 capturable=False) -> None:
        _check_hyper(lr, "lr", "learning rate")
        _check_hyper(weight_decay, "weight_decay", "weight_decay value")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        _check_unsupported(defaults)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._fill_group_defaults(foreach=None, maximize=False, differentiable=False,
                                  capturable=False)
        _step_counters_as_tensors(self)
        for p_state in self.state.values():
            for key in ("eta", "mu"):
                if key in p_state and not hasattr(p_state[key], "item"):
                    p_state[key] = _new_step_counter(p_state[key])

    def _update_group(self, group: dict) -> None:
        lr, lambd, alpha, t0 = _to_float(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        weight_decay = group["weight_decay"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            p_state = self.state[p]
            if not p_state:
                p_state["step"] = _new_step_counter()
                p_state["eta"] = _new_step_counter(lr)
                p_state["mu"] = _new_step_counter(1.0)
                p_state["ax"] = zeros_like(p)
            if group["maximize"]:
                grad = -grad
            p_state["step"].add_(1)
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            eta, mu, ax = p_state["eta"], p_state["mu"], p_state["ax"]
            eta_value = eta.item()
            p.mul_(1 - lambd * eta_value)
            p.add_(grad, alpha=-eta_value)
            if mu.item() != 1:
                ax.add_(p.sub(ax).mul_(mu))
            else:
                ax.copy_(p)
            step = p_state["step"].item()
            # (through a default-dtype tensor, as torch: a float64 eta, once loaded from a
            # state_dict, gets float32-rounded values)
            eta.copy_(tensor(lr / ((1 + lambd * lr * step) ** alpha)))
            mu.copy_(tensor(1 / max(1, step - t0)))
