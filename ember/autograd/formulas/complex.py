"""Backward helpers of the complex ops (torch's formulas, FunctionsManual.cpp), in the
conjugate Wirtinger convention torch uses: for a real loss L of z = x + iy the gradient
is dL/dx + i dL/dy."""
from __future__ import annotations

import ember


def angle_backward(grad, self):
    """d angle(z): grad * z / |z|^2 * i for complex z (0 at z = 0); zero for reals."""
    if not self.is_complex():
        return ember.zeros_like(self)
    r = grad * self / self.abs().pow(2) * 1j
    return ember.where(self == 0, ember.zeros((), dtype=r.dtype), r)


def sgn_backward(self, grad, result):
    """d sgn(z) = (g - sgn(z) * Re(g * conj(sgn(z)))) / |z| (0 at z = 0)."""
    if not self.is_complex():
        return ember.zeros_like(self)
    abs = self.abs()
    r = (grad - result * ember.real(grad * result.conj())) / abs
    return ember.where(abs == 0, ember.zeros((), dtype=r.dtype), r)


def polar_backward(grad, result):
    """(grad of abs, grad of angle) of polar(abs, angle) = result."""
    g = grad.conj()
    return ember.real(g * ember.sgn(result)), ember.real(g * (result * 1j))


def real_grad(grad):
    """The real part of a gradient flowing into a real input (torch's handle_r_to_c)."""
    return ember.real(grad) if grad.is_complex() else grad


def imag_grad(grad):
    return ember.imag(grad) if grad.is_complex() else ember.zeros_like(grad)
