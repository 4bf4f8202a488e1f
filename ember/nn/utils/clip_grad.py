"""Gradient clipping: clip_grad_norm_, clip_grad_value_ (like torch.nn.utils).

    >>> w = nn.Parameter(ember.ones(3)); w.grad = ember.full((3,), 5.0)
    >>> nn.utils.clip_grad_norm_([w], max_norm=1.0)
    tensor(8.6603)
    >>> bool(w.grad.norm() <= 1.0)
    True

`foreach=` is accepted for torch compatibility: both settings give the same results. Plain
contiguous float CPU gradients with nothing observing the ops (the optimizers' multi-tensor
condition, ember/optim/_foreach.py) are summed and scaled straight on their NumPy arrays
(unless foreach=False), with the bits of the ops the general path runs.
"""
from __future__ import annotations

import types
import warnings

import numpy as np

import ember

from ...autograd import no_grad
from ...core.tensor import Tensor, from_array
from ...kernels.cpu import reduction as _cpu_reduction
from ...optim._foreach import arrays_of, bump_versions

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm"]


def _as_list(tensors) -> list:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _one_cpu_dtype(tensors) -> bool:
    """Whether every tensor is a plain CPU tensor of the first one's dtype."""
    dt = tensors[0].dtype
    return all(type(t) in (Tensor, ember.nn.Parameter) and t.device.type == "cpu" and
               t.dtype is dt for t in tensors)


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None):
    """The norm of the norms of `tensors` (as if they were concatenated)."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return ember.tensor(0.0)
    with no_grad():
        device = tensors[0].device
        if norm_type != 0 and _one_cpu_dtype(tensors):
            # the norm of all the elements equals the norm of the norms (for every order but
            # 0, whose norm of norms counts the tensors that have a non-zero): three ops, not
            # one norm per tensor and a stack
            total = _total_norm_of_arrays(tensors, norm_type, foreach)
            if total is None:
                total = ember.linalg_vector_norm(ember.cat([t.reshape(-1) for t in tensors]),
                                                 norm_type)
        else:
            norms = [ember.linalg_vector_norm(t, norm_type).to(device) for t in tensors]
            total = ember.linalg_vector_norm(ember.stack(norms), norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def _total_norm_of_arrays(tensors, norm_type, foreach):
    """linalg_vector_norm(cat of the flattened tensors) run on their arrays (the CPU
    kernel on their concatenation), or None when they do not take the array path."""
    arrays = arrays_of(foreach, tensors)
    if arrays is None:
        return None
    flat = from_array(np.concatenate([a.reshape(-1) for a in arrays[0]]), tensors[0].dtype)
    return _cpu_reduction.linalg_vector_norm(flat, norm_type, None, False, None)


def clip_grads_with_norm_(parameters, max_norm: float, total_norm, foreach=None) -> None:
    """Scales the gradients by min(1, max_norm / (total_norm + 1e-6)), in place."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = ember.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
        if _one_cpu_dtype([coef, *grads]):
            coef = coef.item()  # (the same product as by the 0-d tensor, without its promotion)
            arrays = arrays_of(foreach, grads)
            if arrays is not None:  # (the bits of mul_ by a float: the float in their dtype)
                for a in arrays[0]:
                    np.multiply(a, a.dtype.type(coef), out=a)
                bump_versions(grads)
                return
        for g in grads:
            g.mul_(coef if isinstance(coef, float) else coef.to(g.device))


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None):
    """Rescales the gradients of `parameters` so that their total norm is at most
    `max_norm`; returns the total norm before clipping (a 0-d tensor)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach=None):
    """Deprecated alias of clip_grad_norm_."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamps every gradient of `parameters` to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
