"""Stochastic gradient descent, optionally with momentum (torch.optim.SGD).

    >>> w = nn.Parameter(ember.zeros(2))
    >>> opt = ember.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> for _ in range(2):              # two steps on the loss w[0] - w[1]
    ...     opt.zero_grad(); (w * ember.tensor([1., -1.])).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([-0.2900,  0.2900], requires_grad=True)
"""
from __future__ import annotations

from . import _foreach
from .optimizer import Optimizer, _check_hyper, _check_unsupported, _to_float

__all__ = ["SGD"]


class SGD(Optimizer):
    """p <- p - lr * g, where g is the gradient (plus weight_decay * p), or its momentum
    buffer b <- momentum * b + (1 - dampening) * g (Nesterov: g + momentum * b).
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None) -> None:
        _check_hyper(lr, "lr", "learning rate")
        _check_hyper(momentum, "momentum", "momentum value")
        _check_hyper(weight_decay, "weight_decay", "weight_decay value")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_unsupported(defaults)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._fill_group_defaults(nesterov=False, maximize=False, foreach=None,
                                  differentiable=False, fused=False)

    def _update_group(self, group: dict) -> None:
        neg_lr = -_to_float(group["lr"])
        momentum = group["momentum"]
        weight_decay = _to_float(group["weight_decay"])
        maximize = group["maximize"]
        dampening, nesterov, state = group["dampening"], group["nesterov"], self.state
        params = [p for p in group["params"] if p.grad is not None]
        grads = [p.grad for p in params]
        bufs = [state[p].get("momentum_buffer") if p in state else None for p in params]
        arrays = _foreach.arrays_of(group["foreach"], params, grads, bufs)
        if arrays is not None:  # the multi-tensor path
            new_bufs = _foreach.sgd(*arrays, -neg_lr, momentum, dampening, weight_decay,
                                    nesterov, maximize)
            for p, buf in zip(params, new_bufs):
                if buf is not None:
                    state[p]["momentum_buffer"] = buf
            _foreach.bump_versions(params, bufs)
            return
        if momentum == 0 and weight_decay == 0 and not maximize:  # plain SGD: one op a param
            for p, grad in zip(params, grads):
                p.add_(grad, alpha=neg_lr)
            return
        for p, grad in zip(params, grads):
            if maximize:
                grad = -grad
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            if momentum != 0:
                p_state = state[p]
                buf = p_state.get("momentum_buffer")
                if buf is None:
                    buf = p_state["momentum_buffer"] = grad.detach().clone()
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                grad = grad.add(buf, alpha=momentum) if nesterov else buf
            p.add_(grad, alpha=neg_lr)
