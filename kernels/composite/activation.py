"""Decompositions of the activations torch writes as CompositeImplicitAutograd: selu and
relu6 (elu, hardtanh), log_sigmoid (log_sigmoid_forward's output), prelu (_prelu_kernel on
a weight reshaped to broadcast over the channel dim) and rrelu (rrelu_with_noise). Their
autograd, make_fx graphs and Meta shapes come from the ops they call, as in torch.

    >>> ember.relu6(ember.tensor([-1.0, 3.0, 7.0]))
    tensor([0., 3., 6.])
"""
from __future__ import annotations

import ember
from ember.core.outputs import copy_to_out

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def selu(self):
    return ember.elu(self, SELU_ALPHA, SELU_SCALE)


def selu_(self):
    return ember.elu_(self, SELU_ALPHA, SELU_SCALE)


def relu6(self):
    return ember.hardtanh(self, 0, 6)


def relu6_(self):
    return ember.hardtanh_(self, 0, 6)


def log_sigmoid(self):
    return ember.log_sigmoid_forward(self)[0]


def log_sigmoid_out(self, out):
    return copy_to_out(ember.log_sigmoid_forward(self)[0], out)


def prelu(self, weight):
    """torch's checks (same dtype, one weight or one per channel, at most 1-d), then
    _prelu_kernel with weight reshaped to (1, C, 1, ...)."""
    if self.dtype != weight.dtype:
        raise RuntimeError("prelu: Type promoting not supported. Got "
                           f"{self.dtype.scalar_name} and {weight.dtype.scalar_name}")
    ndim = self.dim()
    if weight.numel() != 1:
        if ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = self.shape[1] if ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if ndim != weight.dim():
        shape = [1] * ndim
        if ndim > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return ember._prelu_kernel(self, weight)


def rrelu(self, lower, upper, training, generator):
    noise = ember.empty_like(self, memory_format=ember.contiguous_format)
    return ember.rrelu_with_noise(self, noise, lower, upper, training, generator)


def rrelu_(self, lower, upper, training, generator):
    noise = ember.empty_like(self, memory_format=ember.contiguous_format)
    return ember.rrelu_with_noise_(self, noise, lower, upper, training, generator)
