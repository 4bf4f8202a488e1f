"""Double-backward helpers of the activations (torch's FunctionsManual): the `self`
derivatives of the *_backward ops."""
from __future__ import annotations

import math

import ember

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
