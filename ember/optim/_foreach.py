"""The optimizers' multi-tensor path (torch's `foreach=True`): a parameter group's update
run straight on the NumPy arrays, with no dispatch per op.

Each step is the array form of the op the per-parameter path calls, taken from the CPU
kernels' own fast paths (kernels/cpu/binary.py: update_arrays, lerp_arrays, addc_arrays,
fma), so both paths give the same bits. `foreach=None` (the default) and `foreach=True`
take it when every tensor of the group is a plain contiguous float32/float64 CPU tensor of
its parameter's dtype and shape and nothing observes the ops (no mode, no
`__torch_function__` subclass, no dispatch key beyond CPU and autograd); else, and with
`foreach=False`, the optimizer runs its ops one parameter at a time.

    >>> w = nn.Parameter(ember.ones(2))
    >>> w.grad = ember.tensor([1., -1.])
    >>> opt = ember.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> opt.step(); w
    Parameter containing:
    tensor([0.9000, 1.1000], requires_grad=True)
"""
from __future__ import annotations

import numpy as np

from ..core import dtype as D
from ..core.tensor import Tensor, from_array
from ..dispatch import keys as K
from ..dispatch.tls import state as _tls
from ..kernels.common._pointwise import alpha_value
from ..kernels.cpu._pointwise import quiet_call
from ..kernels.cpu.binary import addc_arrays, fma, lerp_arrays, update_arrays, value_array
from ..overrides import _opts_in

_NO_MODES = (0, K.FULL)
_PLAIN_KEYS = K.ADINPLACE_BIT | K.AUTOGRAD_BIT   # besides CPU_BIT


def arrays_of(foreach, *tensor_lists):
    """The NumPy arrays of each list (parameters first) when the group takes the
    multi-tensor path, else None. Lists are aligned; None entries (no state yet) pass."""
    if foreach is False or _tls.function_modes or _tls.masks != _NO_MODES:
        return None
    first = tensor_lists[0]
    out = []
    for ts in tensor_lists:
        arrays = []
        for t, p in zip(ts, first):
            if t is None:
                arrays.append(None)
                continue
            a = t._np
            if (t._ks & ~_PLAIN_KEYS) != K.CPU_BIT or t._dtype is not p._dtype or \
                    (t.__class__ is not Tensor and _opts_in(t.__class__)) or \
                    t._shape != p._shape or (t._dtype is not D.float32 and
                                             t._dtype is not D.float64) or \
                    not a.flags.c_contiguous:
                return None
            arrays.append(a)
        out.append(arrays)
    return out


def bump_versions(*tensor_lists) -> None:
    """The version counter of every tensor written (what the in-place ops' ADInplaceOrView
    kernel does), so autograd still sees the change."""
    for ts in tensor_lists:
        for t in ts:
            if t is not None and t._ks & K.ADINPLACE_BIT:
                t.untyped_storage()._version += 1


def plain_scalars(tensors) -> bool:
    """Whether the step counters (0-d tensors of their own dtype) are plain CPU tensors."""
    return all(t.__class__ is Tensor and (t._ks & ~_PLAIN_KEYS) == K.CPU_BIT for t in tensors)


def _grad(p, g, dt, maximize, weight_decay):
    """The gradient as the update reads it: negated when maximizing, plus weight_decay * p
    (torch's `grad.add(p, alpha=weight_decay)`, one rounding)."""
    if maximize:
        g = np.negative(g)
    if weight_decay != 0:
        g = fma(p, alpha_value(dt, weight_decay), g)
    return g


def sgd(params, grads, bufs, lr, momentum, dampening, weight_decay, nesterov, maximize):
    """SGD on the arrays. `bufs`: the momentum buffers' arrays, None where there is none
    yet (the first step starts it from the gradient); returns the new buffers as tensors
    (None where a buffer existed)."""
    new_bufs = [None] * len(params)
    for i, (p, g) in enumerate(zip(params, grads)):
        dt = _dtype(p)
        g = _grad(p, g, dt, maximize, weight_decay)
        if momentum != 0:
            buf = bufs[i]
            if buf is None:
                buf = g.copy()
                new_bufs[i] = from_array(buf, dt)
            else:
                np.multiply(buf, momentum, out=buf)
                update_arrays(np.add, buf, g, 1 - dampening, dt)
            g = fma(buf, alpha_value(dt, momentum), g) if nesterov else buf
        update_arrays(np.add, p, g, -lr, dt)
    return new_bufs


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr, beta1, beta2, eps,
         weight_decay, decoupled, maximize):
    """Adam/AdamW on the arrays: parameters, moments and step counters updated in place
    (`max_exp_avg_sqs` None without amsgrad)."""
    for i, (p, g) in enumerate(zip(params, grads)):
        dt = _dtype(p)
        g = _grad(p, g, dt, maximize, 0)
        np.add(steps[i], 1, out=steps[i])
        if weight_decay != 0:
            if decoupled:
                np.multiply(p, 1 - lr * weight_decay, out=p)
            else:
                g = _grad(p, g, dt, False, weight_decay)
        exp_avg, exp_avg_sq = exp_avgs[i], exp_avg_sqs[i]
        quiet_call(lerp_arrays, exp_avg, g, value_array(1 - beta1, dt))
        np.multiply(exp_avg_sq, beta2, out=exp_avg_sq)
        quiet_call(addc_arrays, np.multiply, exp_avg_sq, g, g, value_array(1 - beta2, dt))
        step = steps[i].item()
        step_size = lr / (1 - beta1 ** step)
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        if max_exp_avg_sqs is not None:
            np.maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
            exp_avg_sq = max_exp_avg_sqs[i]
        denom = quiet_call(np.sqrt, exp_avg_sq)
        denom = quiet_call(np.true_divide, denom, bias_correction2_sqrt)
        np.add(denom, eps, out=denom)
        quiet_call(addc_arrays, np.divide, p, exp_avg, denom, value_array(-step_size, dt))


def _dtype(a) -> D.dtype:
    return D.float32 if a.dtype == np.float32 else D.float64

