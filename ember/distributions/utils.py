"""Helpers shared by the distributions (torch.distributions.utils)."""
from __future__ import annotations

from numbers import Number

import ember

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs",
           "probs_to_logits"]


def broadcast_all(*values):
    """The values as tensors broadcast to one shape: numbers become tensors of the
    tensors' dtype (the default dtype when all are numbers)."""
    if not all(isinstance(v, (ember.Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not any(isinstance(v, ember.Tensor) for v in values):
        dtype = ember.get_default_dtype()
        return tuple(ember.tensor(v, dtype=dtype) for v in values)
    like = next(v for v in values if isinstance(v, ember.Tensor))
    tensors = [v if isinstance(v, ember.Tensor) else ember.tensor(v, dtype=like.dtype)
               for v in values]
    return ember.broadcast_tensors(*tensors)


def clamp_probs(probs):
    """Probabilities kept within [eps, 1 - eps] of their dtype."""
    eps = ember.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Log-probabilities (log-odds when `is_binary`)."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ps_clamped.log() - (-ps_clamped).log1p()
    return ps_clamped.log()


def logits_to_probs(logits, is_binary=False):
    """Probabilities from log-probabilities (sigmoid of log-odds when `is_binary`)."""
    if is_binary:
        return logits.sigmoid()
    return ember.nn.functional.softmax(logits, dim=-1)


class lazy_property:
    """A property computed on first access and then kept in the instance's __dict__."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with ember.enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value
