"""Backward helpers of the random ops (dropout)."""
from __future__ import annotations


def dropout_grad_scale(p, train):
    """native_dropout's backward scale, as torch's derivatives.yaml has it: 1/(1-p) when
    train is True (0 for p == 1), else 1 (also for train=None, like torch)."""
    if train is None or not train:
        return 1.0
    return 0.0 if p == 1 else 1.0 / (1.0 - p)
