"""Double-backward helpers of the activations (torch's FunctionsManual): the `self`
derivatives of the *_backward ops."""
from __future__ import annotations

import math

import numpy as np

import ember

from .common import reduce_to

# Double-backward helpers (torch's FunctionsManual): the `self` derivatives of the
# *_backward ops, i.e. second derivatives of the activations times both incoming grads.
_GELU_K_BETA_TANH = math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5
_GELU_K_KAPPA = 0.044715
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def gelu_double_backward(ggI, gO, self, approximate):
    """d gelu_backward(gO, self) / d self, times ggI: ggI * gO * gelu''(self)."""
    x_sq = self * self
    if approximate == "tanh":
        inner = (self + x_sq * self * _GELU_K_KAPPA) * _GELU_K_BETA_TANH
        t = inner.tanh()
        g = 1 - t * t
        h = (x_sq * (3 * _GELU_K_KAPPA) + 1) * _GELU_K_BETA_TANH
        f = self * 0.5
        g_prime = g * t * h * -2
        h_prime = self * (6 * _GELU_K_KAPPA * _GELU_K_BETA_TANH)
        return ggI * gO * (g * h + f * h * g_prime + f * g * h_prime)
    pdf = (x_sq * -0.5).exp() * _INV_SQRT_2PI
    return ggI * gO * (pdf * 2 - x_sq * pdf)


def silu_double_backward(grad, grad_output, self):
    """grad * grad_output * silu''(self), silu'' = s (1 - s) (2 + x (1 - 2 s))."""
    s = self.sigmoid()
    return grad * grad_output * (s * (1 - s)) * (self * (1 - s * 2) + 2)


def softplus_double_backward(grad, self, beta, threshold):
    """grad * softplus''(self): beta * sigmoid'(beta x), 0 where beta x >= threshold."""
    x = self * beta
    return ember.sigmoid_backward(grad, x.sigmoid()) * (x < threshold) * beta


def elu_double_backward(grad, grad_output, alpha, scale_, input_scale, is_result,
                        self_or_result):
    """The self_or_result derivative of elu_backward (nonzero where the input is < 0)."""
    negative = self_or_result < 0
    if is_result:
        return grad * grad_output * input_scale * negative
    g = ember.elu_backward(grad * grad_output * input_scale, alpha, scale_, input_scale,
                           is_result, self_or_result)
    return g * negative


def hardswish_double_backward(grad, grad_output, self):
    """grad * grad_output * hardswish''(self): 1/3 strictly inside (-3, 3), else 0."""
    return ember.where((self > -3) & (self < 3), grad * grad_output / 3, 0.0)


def mish_double_backward(grad, grad_output, self):
    """grad * grad_output * mish''(self): with s = sigmoid(x), t = tanh(softplus(x)) and
    u = 1 - t**2, mish' = t + x s u and mish'' = s u (2 + x (1 - s - 2 t s))."""
    s = self.sigmoid()
    t = ember.softplus(self).tanh()
    su = s * (1 - t * t)
    return grad * grad_output * su * (self * (1 - s - t * s * 2) + 2)


def _glu_halves(x, dim):
    n = x.shape[dim] // 2
    return x.narrow(dim, 0, n), x.narrow(dim, n, n)


def glu_double_backward(grad, grad_output, self, dim):
    """The self derivative of glu_backward(grad_output, self, dim) (torch's
    glu_double_backward): grad is self-shaped, split like self into its halves."""
    a, b = _glu_halves(self, dim)
    gg_a, gg_b = _glu_halves(grad, dim)
    sig_b = b.sigmoid()
    one_minus = 1 - sig_b
    sig_one_minus = sig_b * one_minus
    grad_a = gg_b * grad_output * sig_one_minus
    second_order = sig_one_minus * one_minus - sig_b * sig_one_minus
    grad_b = gg_b * a * grad_output * second_order + gg_a * grad_output * sig_one_minus
    return ember.cat([grad_a, grad_b], dim)


def glu_double_backward_grad_output(grad, self, dim):
    """The grad_output derivative of glu_backward: glu_backward is linear in grad_output,
    so it is glu_backward(ones) times grad, its two halves summed."""
    dim = dim % self.dim()
    half = list(self.shape)
    half[dim] //= 2
    t = grad * ember.glu_backward(self.new_ones(half), self, dim)
    first, second = _glu_halves(t, dim)
    return first + second


def log_sigmoid_double_backward(grad, self):
    """grad * log_sigmoid''(self) = grad * (sigmoid(x) - 1) * sigmoid(x)."""
    z = self.sigmoid()
    return grad * (z - 1) * z


def celu_input_scale(alpha) -> float:
    """celu's elu input_scale in its derivative: 1 / alpha with alpha read as a float32
    (torch's `1.0 / alpha.toFloat()`)."""
    from ember.core import dtype as D
    from ember.core.factory_args import checked_scalar
    return 1.0 / float(np.float32(checked_scalar(alpha, D.float32)))   # (1e39 overflows)


def prelu_kernel_backward_reduced(grad, self, weight):
    """_prelu_kernel_backward, its weight gradient summed to weight's shape (torch's engine
    does that sum)."""
    grad_self, grad_weight = ember._prelu_kernel_backward(grad, self, weight)
    return grad_self, reduce_to(grad_weight, weight.shape, weight.dtype)


def prelu_double_backward(gg_self, gg_weight, grad_output, self, weight):
    """The (grad_output, self, weight) gradients of _prelu_kernel_backward's two outputs
    given their incoming gradients (either may be None), as torch's formula."""
    positive = self >= 0
    g_out = g_self = g_weight = None
    if gg_self is not None:
        g_out = ember.where(positive, gg_self, gg_self * weight)
        g_weight = reduce_to(ember.where(positive, 0.0, grad_output * gg_self),
                             weight.shape, weight.dtype)
    if gg_weight is not None:
        term = ember.where(positive, 0.0, gg_weight * self)
        g_out = term if g_out is None else g_out + term
        g_self = ember.where(positive, 0.0, grad_output * gg_weight)
    if g_out is not None:
        g_out = reduce_to(g_out, grad_output.shape, grad_output.dtype)
    if g_self is not None:
        g_self = reduce_to(g_self, self.shape, self.dtype)
    return g_out, g_self, g_weight
