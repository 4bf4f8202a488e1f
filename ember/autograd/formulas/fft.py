"""Backward helpers of the FFT ops (torch's FunctionsManual.cpp): each transform's adjoint
is another transform with the same normalization."""
from __future__ import annotations

import ember


def _c2c(x, dim, normalization, forward):
    return ember.ops.aten._fft_c2c.default(x, dim, normalization, forward)


def fft_r2c_backward(grad, dim, normalization, onesided, self_shape):
    """A onesided result's gradient is zero-filled back to the full length, then an inverse
    c2c; the real part is the real input's gradient."""
    if onesided:
        d = dim[-1] % len(self_shape)
        missing = self_shape[d] - grad.shape[d]
        if missing > 0:
            pad = [0] * (2 * grad.dim())
            pad[2 * (grad.dim() - 1 - d) + 1] = missing
            grad = ember.constant_pad_nd(grad, pad, 0)
    return ember.real(_c2c(grad, dim, normalization, False))


def fft_c2r_backward(grad, dim, normalization):
    """An r2c of the gradient, with the entries whose mirror image lies outside the onesided
    range doubled (conjugate symmetry)."""
    g = ember.ops.aten._fft_r2c.default(grad, dim, normalization, True)
    d = dim[-1] % grad.dim()
    double = grad.shape[d] - g.shape[d]
    if double > 0:
        w = [1.0] + [2.0] * double + [1.0] * (g.shape[d] - 1 - double)
        shape = [1] * g.dim()
        shape[d] = g.shape[d]
        g = g * ember.tensor(w, dtype=grad.dtype, device=grad.device).view(shape)
    return g


def fft_c2c_backward(grad, dim, normalization, forward):
    return _c2c(grad, dim, normalization, not forward)
