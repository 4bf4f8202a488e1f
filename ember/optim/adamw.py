"""AdamW: Adam with decoupled weight decay (torch.optim.AdamW).

    >>> w = nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.AdamW([w], lr=1e-3, weight_decay=1e-2)
    >>> for _ in range(2):              # two steps on the loss w[0] - w[1]
    ...     opt.zero_grad(); (w * ember.tensor([1., -1.])).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([0.9980, 1.0020], requires_grad=True)
"""
from __future__ import annotations

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam whose weight decay scales the parameters (p <- p (1 - lr decay)) instead of
    adding to the gradient, so it never enters the moments. Default weight_decay=1e-2."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
