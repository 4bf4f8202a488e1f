"""RMSprop (torch.optim.RMSprop).

    >>> w = nn.Parameter(ember.zeros(2))
    >>> opt = ember.optim.RMSprop([w], lr=1e-2, alpha=0.99)
    >>> for _ in range(2):              # two steps on the loss w[0] - w[1]
    ...     opt.zero_grad(); (w * ember.tensor([1., -1.])).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([-0.1709,  0.1709], requires_grad=True)
"""
from __future__ import annotations

from .. import zeros_like
from .adam import _new_step_counter, _step_counters_as_tensors
from .optimizer import Optimizer, _check_hyper, _check_unsupported, _to_float

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """v <- alpha v + (1 - alpha) g^2; p <- p - lr g / (sqrt(v) + eps). `centered` subtracts
    the squared running mean of g from v; `momentum` accumulates g / (sqrt(v) + eps) in a
    buffer b <- momentum b + g / (...) and steps by lr * b."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False) -> None:
        _check_hyper(lr, "lr", "learning rate")
        _check_hyper(eps, "eps", "epsilon value")
        _check_hyper(momentum, "momentum", "momentum value")
        _check_hyper(weight_decay, "weight_decay", "weight_decay value")
        _check_hyper(alpha, "alpha", "alpha value")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        _check_unsupported(defaults)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._fill_group_defaults(momentum=0, centered=False, foreach=None, maximize=False,
                                  differentiable=False, capturable=False)
        _step_counters_as_tensors(self)

    def _update_group(self, group: dict) -> None:
        lr, alpha, eps = _to_float(group["lr"]), group["alpha"], group["eps"]
        weight_decay, momentum = _to_float(group["weight_decay"]), group["momentum"]
        centered, maximize, state = group["centered"], group["maximize"], self.state
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            p_state = state[p]
            if not p_state:
                p_state["step"] = _new_step_counter()
                p_state["square_avg"] = zeros_like(p)
                if momentum > 0:
                    p_state["momentum_buffer"] = zeros_like(p)
                if centered:
                    p_state["grad_avg"] = zeros_like(p)
            if maximize:
                grad = -grad
            p_state["step"].add_(1)
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            square_avg = p_state["square_avg"]
            square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if centered:
                grad_avg = p_state["grad_avg"]
                grad_avg.lerp_(grad, 1 - alpha)
                avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg.add_(eps)
            if momentum > 0:
                buf = p_state["momentum_buffer"]
                buf.mul_(momentum).addcdiv_(grad, avg)
                p.add_(buf, alpha=-lr)
            else:
                p.addcdiv_(grad, avg, value=-lr)
