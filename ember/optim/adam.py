"""Adam and its decoupled-weight-decay form (torch.optim.Adam).

    >>> w = nn.Parameter(ember.zeros(2))
    >>> opt = ember.optim.Adam([w], lr=1e-3, betas=(0.9, 0.999))
    >>> for _ in range(2):              # two steps on the loss w[0] - w[1]
    ...     opt.zero_grad(); (w * ember.tensor([1., -1.])).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([-0.0020,  0.0020], requires_grad=True)
"""
from __future__ import annotations

from .. import float32, float64, full, get_default_dtype, maximum, tensor, zeros_like
from .._guards import is_compiling
from ..core.tensor import Tensor
from . import _foreach
from .optimizer import Optimizer, _check_betas, _check_hyper, _check_unsupported, _to_float

__all__ = ["Adam"]


def _new_step_counter(value: float = 0.0) -> Tensor:
    """The per-parameter step count: a 0-dim float tensor like torch's (float64 when the
    default dtype is float64, else float32)."""
    dtype = float64 if get_default_dtype() is float64 else float32
    return tensor(float(value), dtype=dtype)


def _step_counters_as_tensors(optimizer: Optimizer) -> None:
    """A state saved with Python-number step counts gets tensor ones (torch does too)."""
    for p_state in optimizer.state.values():
        step = p_state.get("step") if isinstance(p_state, dict) else None
        if step is not None and not isinstance(step, Tensor):
            p_state["step"] = _new_step_counter(step)


def _tensor_step_update(p, exp_avg, exp_avg_sq, step_t, lr, beta1, beta2, eps) -> None:
    """Adam's bias-corrected update with the step count kept a tensor (under ember.compile,
    as torch's `_get_value` keeps it: `.item()` would break the graph). The same ops as
    the eager update, the step size and bias corrections computed in float64 as Python's
    numbers are, so results equal eager's (the one difference: sqrt for `** 0.5`, which
    can round the last bit of the bias correction the other way)."""
    step = step_t.to(float64)
    neg_step_size = full((), -lr, dtype=float64).div(1 - beta1 ** step)
    denom = (exp_avg_sq.sqrt() / (1 - beta2 ** step).sqrt()).add_(eps)
    p.add_(exp_avg.mul(neg_step_size.to(p.dtype)).div_(denom))   # addcdiv's (v * a) / b


class Adam(Optimizer):
    """Adam: m <- lerp(m, g, 1 - beta1), v <- beta2 v + (1 - beta2) g^2 (its running max
    with `amsgrad`), p <- p - lr m_hat / (sqrt(v_hat) + eps) with bias-corrected moments.
    `weight_decay` adds decay * p to g, or with `decoupled_weight_decay` (AdamW) scales p
    by 1 - lr * decay first.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False) -> None:
        _check_hyper(lr, "lr", "learning rate")
        _check_hyper(eps, "eps", "epsilon value")
        for i, beta in enumerate(betas):
            if isinstance(beta, Tensor) and beta.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
        _check_betas(betas)
        _check_hyper(weight_decay, "weight_decay", "weight_decay value")
        if not (all(isinstance(b, float) for b in betas)
                or all(isinstance(b, Tensor) for b in betas)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable,
                    "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        _check_unsupported(defaults)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._fill_group_defaults(amsgrad=False, maximize=False, foreach=None,
                                  capturable=False, differentiable=False,
                                  decoupled_weight_decay=False, fused=None)
        _step_counters_as_tensors(self)

    def _update_group(self, group: dict) -> None:
        beta1, beta2 = (_to_float(b) for b in group["betas"])
        lr, eps = _to_float(group["lr"]), group["eps"]
        weight_decay = _to_float(group["weight_decay"])
        decoupled, amsgrad, maximize = (group["decoupled_weight_decay"], group["amsgrad"],
                                        group["maximize"])
        params = [p for p in group["params"] if p.grad is not None]
        states = [self._state_of(p, amsgrad) for p in params]
        moments = [[s[k] for s in states] for k in
                   ("exp_avg", "exp_avg_sq", *(("max_exp_avg_sq",) if amsgrad else ()))]
        steps = [s["step"] for s in states]
        arrays = _foreach.arrays_of(group["foreach"], params, [p.grad for p in params],
                                    *moments)
        if arrays is not None and _foreach.plain_scalars(steps):  # the multi-tensor path
            p_arrays, grads, exp_avgs, exp_avg_sqs, *maxes = arrays
            _foreach.adam(p_arrays, grads, exp_avgs, exp_avg_sqs, maxes[0] if amsgrad else None,
                          [s._np for s in steps], lr, beta1, beta2, eps, weight_decay,
                          decoupled, maximize)
            _foreach.bump_versions(params, steps, *moments)
            return
        for p, p_state in zip(params, states):
            grad = p.grad
            if maximize:
                grad = -grad
            step_t = p_state["step"]
            step_t.add_(1)
            if weight_decay != 0:
                if decoupled:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            exp_avg, exp_avg_sq = p_state["exp_avg"], p_state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

            if amsgrad:
                max_exp_avg_sq = p_state["max_exp_avg_sq"]
                maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
                exp_avg_sq = max_exp_avg_sq
            if is_compiling():
                _tensor_step_update(p, exp_avg, exp_avg_sq, step_t, lr, beta1, beta2, eps)
                continue
            step = step_t.item()
            step_size = lr / (1 - beta1 ** step)
            bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            p.addcdiv_(exp_avg, denom, value=-step_size)

    def _state_of(self, p: Tensor, amsgrad: bool) -> dict:
        """p's state, made on its first step: the step counter and zero moments."""
        p_state = self.state[p]
        if not p_state:
            p_state["step"] = _new_step_counter()
            p_state["exp_avg"] = zeros_like(p)
            p_state["exp_avg_sq"] = zeros_like(p)
            if amsgrad:
                p_state["max_exp_avg_sq"] = zeros_like(p)
        return p_state
