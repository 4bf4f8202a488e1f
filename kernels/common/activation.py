"""Device-generic kernels of the activations torch writes as CompositeExplicitAutograd:
celu (elu with input_scale 1 / alpha) and rrelu_with_noise_backward. They call other ember
ops; their Autograd kernels run them with Autograd excluded (no nested backward nodes)
and record the op's own node. The CUDA kernels of glu, log_sigmoid, prelu and
rrelu_with_noise are written here too, over the device's ops (`*_on_device`), with the
same exclusion.

    >>> ember.celu(ember.tensor([-1.0, 2.0]), 2.0)
    tensor([-0.7869,  2.0000])
"""
from __future__ import annotations

import functools

import ember
from ember.core.factory_args import real_scalar
from ember.core.outputs import copy_to_out
from ember.dispatch.keys import ADINPLACE_BIT, AUTOGRAD_BIT
from ember.dispatch.tls import excluding
from ember.kernels.meta import activation as M


def _input_scale(alpha) -> float:
    """elu's input_scale for celu: 1 / alpha (torch's ZeroDivisionError check for 0)."""
    alpha = real_scalar(alpha)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return 1.0 / alpha


def celu(self, alpha=1.0):
    return ember.elu(self, alpha, 1.0, _input_scale(alpha))


def celu_(self, alpha=1.0):
    return ember.elu_(self, alpha, 1.0, _input_scale(alpha))


def rrelu_with_noise_out(self, noise, lower, upper, training, generator, out):
    """rrelu_with_noise into `out` (resized when empty, torch's out= checks); noise is
    written as by the functional op."""
    result = ember.ops.aten.rrelu_with_noise.default(self, noise, lower, upper, training,
                                                     generator)
    return copy_to_out(result, out, False)


def rrelu_with_noise_functional(self, noise, lower=0.125, upper=1 / 3, training=False,
                                generator=None):
    """rrelu_with_noise on a copy of `noise`: (result, the noise it drew: the slopes of the
    negative elements, 1 elsewhere, in training; `noise` itself in eval), `noise` untouched.

        >>> r, n = ember.ops.aten.rrelu_with_noise_functional(
        ...     ember.tensor([-1.0, 2.0]), ember.zeros(2), 0.2, 0.2, True)
        >>> r, n
        (tensor([-0.2000,  2.0000]), tensor([0.2000, 1.0000]))
    """
    noise_out = noise.clone()
    return (ember.ops.aten.rrelu_with_noise.default(self, noise_out, lower, upper, training,
                                                    generator), noise_out)


def rrelu_with_noise_backward(grad_output, self, noise, lower, upper, training,
                              self_is_result):
    """grad * noise (the drawn slopes) in training, else leaky_relu's backward with the mean
    slope."""
    if training:
        return noise * grad_output
    return ember.leaky_relu_backward(grad_output, self, (lower + upper) / 2, self_is_result)


# --- CUDA: glu, log_sigmoid, prelu and rrelu_with_noise over the device's ops --------------
def _below_autograd(kernel):
    """Runs a kernel written over other ops with Autograd and ADInplaceOrView excluded:
    the op's own Autograd kernel records the node; the ops inside record none."""
    @functools.wraps(kernel)
    def run(*args):
        with excluding(AUTOGRAD_BIT | ADINPLACE_BIT):
            return kernel(*args)
    return run


def _into_layout(layout, result, device):
    """result copied into a new tensor of the Meta layout (shape, strides, dtype)."""
    out = ember.empty_strided(layout._shape, layout._stride, dtype=layout._dtype, device=device)
    return out.copy_(result)


@_below_autograd
def glu_on_device(self, dim=-1):
    """a * sigmoid(b) for self's halves a, b (CUDA: the device's sigmoid and mul)."""
    layout = M.glu_layout(self, dim)
    a, b = self.chunk(2, M.glu_dim(self, dim))
    return _into_layout(layout, a * b.sigmoid(), self.device)


@_below_autograd
def glu_backward_on_device(grad_output, self, dim):
    layout = M.glu_backward_layout(grad_output, self, dim)
    dim = M.glu_dim(self, dim)
    a, b = self.chunk(2, dim)
    sig_b = b.sigmoid()
    grad_a = sig_b * grad_output
    return _into_layout(layout, ember.cat([grad_a, grad_a * a * (1 - sig_b)], dim), self.device)


@_below_autograd
def log_sigmoid_forward_on_device(self):
    layout = M.log_sigmoid_forward_layout(self)
    buffer = _into_layout(layout, self.abs().neg().exp(), self.device)
    return _into_layout(layout, self.clamp(max=0) - buffer.log1p(), self.device), buffer


@_below_autograd
def log_sigmoid_backward_on_device(grad_output, self, buffer):
    layout = M.log_sigmoid_backward_layout(grad_output, self, buffer)
    z_ratio = buffer / (buffer + 1)
    factor = ember.where(self < 0, 1 - z_ratio, z_ratio)
    return _into_layout(layout, factor * grad_output, self.device)


@_below_autograd
def prelu_kernel_on_device(self, weight):
    layout = M.prelu_layout(self, weight)
    return _into_layout(layout, ember.where(self > 0, self, weight * self), self.device)


@_below_autograd
def prelu_kernel_backward_on_device(grad_output, self, weight):
    layout = M.prelu_kernel_backward_layout(grad_output, self, weight)
    positive = self > 0
    grad_self = ember.where(positive, grad_output, weight * grad_output)
    grad_weight = ember.where(positive, 0.0, self * grad_output)
    return (_into_layout(layout, grad_self, self.device),
            _into_layout(layout, grad_weight, self.device))


def _rrelu_on_device(self, noise, lower, upper, training, generator):
    M.check_rrelu(self, noise, lower, upper, training)
    if not training:
        return ember.leaky_relu(self, (lower + upper) / 2)
    slopes = ember.empty_like(noise).uniform_(float(lower), float(upper), generator=generator)
    noise.copy_(ember.where(self <= 0, slopes, 1.0))
    return self * noise


@_below_autograd
def rrelu_with_noise_on_device(self, noise, lower=0.125, upper=1 / 3, training=False,
                               generator=None):
    return _rrelu_on_device(self, noise, lower, upper, training, generator)


@_below_autograd
def rrelu_with_noise__on_device(self, noise, lower=0.125, upper=1 / 3, training=False,
                                generator=None):
    return self.copy_(_rrelu_on_device(self, noise, lower, upper, training, generator))
