"""Rprop, resilient backpropagation (torch.optim.Rprop).

    >>> w = nn.Parameter(ember.zeros(2))
    >>> opt = ember.optim.Rprop([w], lr=0.01)
    >>> for _ in range(2):              # two steps on the loss w[0] - w[1]
    ...     opt.zero_grad(); (w * ember.tensor([1., -1.])).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([-0.0220,  0.0220], requires_grad=True)
"""
from __future__ import annotations

from .. import full_like, ones_like, where, zeros_like
from .adam import _new_step_counter, _step_counters_as_tensors
from .optimizer import Optimizer, _check_hyper, _check_unsupported, _to_float

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Each element's step size grows by etas[1] while its gradient keeps its sign and
    shrinks by etas[0] when it flips (that step then skips the element); p moves by the
    step size against the gradient's sign. Step sizes stay within `step_sizes`."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False,
                 differentiable=False) -> None:
        _check_hyper(lr, "lr", "learning rate")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        _check_unsupported(defaults)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._fill_group_defaults(foreach=None, maximize=False, differentiable=False,
                                  capturable=False)
        _step_counters_as_tensors(self)

    def _update_group(self, group: dict) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            p_state = self.state[p]
            if not p_state:
                p_state["step"] = _new_step_counter()
                p_state["prev"] = zeros_like(p)
                p_state["step_size"] = full_like(grad, _to_float(group["lr"]))
            if group["maximize"]:
                grad = -grad
            p_state["step"].add_(1)
            prev, step_size = p_state["prev"], p_state["step_size"]
            sign = grad.mul(prev).sign()
            flipped = sign < 0
            factor = where(sign > 0, etaplus, where(flipped, etaminus, ones_like(sign)))
            step_size.mul_(factor).clamp_(step_size_min, step_size_max)
            grad = where(flipped, 0, grad)
            p.addcmul_(grad.sign(), step_size, value=-1)
            prev.copy_(grad)
