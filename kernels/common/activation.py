"""Device-generic kernels of the activations torch writes as CompositeExplicitAutograd:
celu (elu with input_scale 1 / alpha) and rrelu_with_noise_backward. They call other ember
ops; their Autograd kernels run them with Autograd excluded (no nested backward nodes)
and record the op's own node.

    >>> ember.celu(ember.tensor([-1.0, 2.0]), 2.0)
    tensor([-0.7869,  2.0000])
"""
from __future__ import annotations

import ember


def _input_scale(alpha) -> float:
    """elu's input_scale for celu: 1 / alpha (torch's ZeroDivisionError check for 0)."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return 1.0 / float(alpha)


def celu(self, alpha=1.0):
    return ember.elu(self, alpha, 1.0, _input_scale(alpha))


def celu_(self, alpha=1.0):
    return ember.elu_(self, alpha, 1.0, _input_scale(alpha))


def rrelu_with_noise_backward(grad_output, self, noise, lower, upper, training,
                              self_is_result):
    """grad * noise (the drawn slopes) in training, else leaky_relu's backward with the mean
    slope."""
    if training:
        return noise * grad_output
    return ember.leaky_relu_backward(grad_output, self, (lower + upper) / 2, self_is_result)
