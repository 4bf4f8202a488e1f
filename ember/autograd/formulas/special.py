"""Backward helpers of torch.special and the pointwise math ops (torch's formulas, in ember
ops): polygamma, mvlgamma, i0/i1 and their scaled forms, logit, sinc, xlogy/xlog1py, zeta,
copysign, fmax/fmin, logaddexp."""
from __future__ import annotations

import math

import ember

from .common import reduce_to, zero_where


def _aten():
    return ember.ops.aten


def polygamma_backward(grad, n, self):
    """d polygamma(n, x) = polygamma(n + 1, x) (digamma: n = 0)."""
    return grad * _aten().polygamma.default(n + 1, self)


def mvlgamma_backward(grad, self, p):
    """sum_j digamma(x - j/2), j < p, as torch: the offsets -(p-1)/2 ... 0 plus x (so
    -0.0 + 0.0 is +0.0, whose digamma is -inf), summed in torch's order.

        >>> x = ember.tensor([-0.0, 2.0], requires_grad=True)
        >>> ember.autograd.grad(ember.mvlgamma(x, 1).sum(), x)[0]
        tensor([  -inf, 0.4228])
    """
    offsets = ember.arange(-p / 2 + 0.5, 0.5, 0.5, dtype=self.dtype)
    return grad * _aten().digamma.default(offsets + self.unsqueeze(-1)).sum(-1)


def i0_backward(grad, self):
    return grad * _aten().special_i1.default(self)


def i0e_backward(grad, self, result):
    return grad * (_aten().special_i1e.default(self) - self.sign() * result)


def _power_series(u2, coefficients):
    """sum_k coefficients[k] * u2 ** k, by Horner's rule (an ember tensor `u2`)."""
    total = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        total = total * u2 + c
    return total


# i1(x) / x and i1'(x) = i0(x) - i1(x) / x as power series in x^2: sum_k x^(2k) /
# (2^(2k+1) k! (k+1)!) and the same terms times 2k + 1. The closed form's derivative (double
# backward) cancels near 0 (float32 i1''(1e-6) was 0, exact 3.75e-07; torch's 0.125); 9
# terms reach float64's precision for |x| < 1, where the series are used
_I1_OVER_X_SERIES = [1 / (2 ** (2 * k + 1) * math.factorial(k) * math.factorial(k + 1))
                     for k in range(9)]
_I1_SERIES = [(2 * k + 1) * c for k, c in enumerate(_I1_OVER_X_SERIES)]


def _i1_derivative(self, closed_form, series):
    """`closed_form(x)` for |x| >= 1 (taken with x = 1 elsewhere, so its 1 / x puts no inf
    or NaN into a double backward), `series(x, x^2)` for |x| < 1 and at NaN (taken at 0
    there: 0.5, torch's gradient at NaN)."""
    big = self.abs() >= 1
    x = ember.where(self.abs() < 1, self, self.new_zeros(()))
    return ember.where(big, closed_form(ember.where(big, self, self.new_ones(()))),
                       series(x, x * x))


def i1_backward(grad, self, result):
    """i0(x) - i1(x) / x, its power series for |x| < 1 (0.5 at 0, torch's value).

        >>> x = ember.tensor([0.0, 2.0], requires_grad=True)
        >>> ember.autograd.grad(ember.special.i1(x).sum(), x)[0]
        tensor([0.5000, 1.4843])
    """
    return grad * _i1_derivative(self, lambda x: _aten().i0.default(x) - result / x,
                                 lambda x, x2: _power_series(x2, _I1_SERIES))


def i1e_backward(grad, self, result):
    """i0e(x) - i1e(x) (sign(x) + 1 / x); exp(-|x|) (i1'(x) - |x| i1(x) / x) by their power
    series for |x| < 1 (0.5 at 0, torch's value)."""
    return grad * _i1_derivative(
        self, lambda x: _aten().special_i0e.default(x) - result * (x.sign() + x.reciprocal()),
        lambda x, x2: (-x.abs()).exp() * (_power_series(x2, _I1_SERIES) -
                                          x.abs() * _power_series(x2, _I1_OVER_X_SERIES)))


def logit_backward(grad, self, eps=None):
    """grad / (x (1 - x)), grad * inf at x = 0 (-0.0 too) and 1 (torch's kernel); outside
    [eps, 1 - eps] 0 (NaN outside [0, 1] without eps).

        >>> x = ember.tensor([-0.0, 0.5], requires_grad=True)
        >>> ember.autograd.grad(ember.logit(x).sum(), x)[0]
        tensor([inf, 4.])
    """
    edge = (self == 0) | (self == 1)
    # (a +0.0 divisor at the edges: grad / +0.0 is grad * inf; the where() keeps inf and
    # 0 * inf out of the other elements' double backward)
    d = grad / ember.where(edge, self.new_zeros(()), self * (1 - self))
    if eps is None or eps < 0:
        return ember.where((self < 0) | (self > 1), d.new_full((), float("nan")), d)
    return ember.where((self < eps) | (self > 1 - eps), d.new_zeros(()), d)


def acosh_backward(grad, self):
    """grad / sqrt(x^2 - 1); for complex x, conj(1 / (sqrt(x + 1) sqrt(x - 1))), the
    derivative on acosh's branch (sqrt(x^2 - 1) takes the other sign where Re x < 0), as
    torch."""
    if self.is_complex():
        return grad * ((self + 1).rsqrt() * (self - 1).rsqrt()).conj()
    return grad * (self * self - 1).rsqrt()


# sinc'(x) = pi f'(pi x), f(u) = sin(u) / u: f'(u) = u * sum_k C[k] u^(2k) near 0, where the
# closed form (u cos u - sin u) / u^2 cancels (float32 at x = 1e-3: 3% off, its derivative
# worse); 8 terms reach float64's precision for |u| < 0.5
_SINC_SERIES = [(-1) ** k * 2 * k / math.factorial(2 * k + 1) for k in range(1, 9)]


def sinc_backward(grad, self):
    """grad * conj(sinc'(x)): the closed form (cos(pi x) pi x - sin(pi x)) / (pi x^2) for
    |pi x| >= 0.5, its Taylor series below (no cancellation, in double backward either:
    sinc''(0) = -pi^2 / 3, where torch's double backward gives NaN); the closed form is
    computed at 1 there, the series at 0 elsewhere (its u^16 overflows from |x| ~ 1e4 in
    float32), so no inf or NaN leaks into a double backward."""
    small = (self * math.pi).abs() < 0.5
    x = ember.where(small, self.new_ones(()), self)
    px = x * math.pi
    u = ember.where(small, self, self.new_zeros(())) * math.pi
    series = _power_series(u * u, _SINC_SERIES)
    d = ember.where(small, u * series * math.pi, (px * px.cos() - px.sin()) / (px * x))
    return grad * d.conj()


def xlogy_backward(grad, self, other, log1p=False):
    """(d/dself, d/dother) of xlogy(self, other) or xlog1py: xlogy(grad, other)
    (xlog1py), 0 where self == 0 and the log is undefined (other <= 0; <= -1), as torch
    (log(1) at self == 0 is log(1), not 0: its own derivative along other is 1 / other).
    The log is taken at the result's shape, as torch's, so a double backward through an
    empty broadcast result sums no 1 / other (NaN for other = NaN) into other's gradient."""
    xlog = _aten().special_xlog1py.default if log1p else _aten().xlogy.Tensor
    undefined = (self == 0) * (other <= (-1 if log1p else 0))
    g_self = reduce_to(zero_where(undefined, xlog(grad, other)), self.shape, self.dtype)
    g_other = reduce_to(grad * self / (other + 1 if log1p else other), other.shape, other.dtype)
    return g_self, g_other


def xlogy_other_scalar_backward(grad, self, other, log1p=False):
    """d/dself of xlogy(self, other) (xlog1py) for a Python number `other`, as torch:
    xlogy(grad, other), 0 where self == 0 unless other > 0 (> -1), so a NaN other gives 0
    there (xlogy_backward, the Tensor overloads', keeps the NaN).

        >>> x = ember.tensor([0.0, 2.0], requires_grad=True)
        >>> ember.autograd.grad(ember.xlogy(x, float("nan")).sum(), x)[0]
        tensor([0., nan])
    """
    xlog = _aten().special_xlog1py.other_scalar if log1p else _aten().xlogy.Scalar_Other
    g = xlog(grad, other)
    return g if other > (-1 if log1p else 0) else zero_where(self == 0, g)


def zeta_other_backward(grad, self, other):
    """d zeta(x, q) / dq = -x zeta(x + 1, q)."""
    x = self.to(grad.dtype)
    return reduce_to(grad * -x * _aten().special_zeta.default(x + 1.0, other),
                     other.shape, other.dtype)


def copysign_backward(grad, self, result):
    """result / self, 0 where self is 0."""
    zero = self == 0
    d = zero_where(zero, result / ember.where(zero, self.new_ones(()), self))
    return reduce_to(grad * d, self.shape, self.dtype)


def fmax_fmin_backward(grad, self, other, wins):
    """fmax/fmin: grad to self where it wins or other is NaN, else to other."""
    to_self = wins | other.isnan()
    return (reduce_to(zero_where(to_self.logical_not(), grad), self.shape, self.dtype),
            reduce_to(zero_where(to_self, grad), other.shape, other.dtype))


def logaddexp_backward(grad, self, other, base2=False):
    """grad / (1 + e^(other - self)) and grad / (1 + e^(self - other)) (base 2 for
    logaddexp2)."""
    def part(a, b):
        d = b.to(grad.dtype) - a.to(grad.dtype)
        e = d.exp2() if base2 else d.exp()
        return reduce_to(grad / (1 + e), a.shape, a.dtype)
    return part(self, other), part(other, self)


def igamma_other_backward(grad, self, other, complement=False):
    """d P(a, x) / dx = exp((a - 1) log x - x - lgamma(a)) (negated for Q = 1 - P)."""
    a = self.to(grad.dtype)
    d = ((a - 1) * other.log() - other - a.lgamma()).exp()
    return reduce_to(grad * (-d if complement else d), other.shape, other.dtype)
