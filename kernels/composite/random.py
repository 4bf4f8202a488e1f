"""dropout and its variants as decompositions (torch's _dropout_impl): autograd comes from
the ops they call (a product with the scaled Bernoulli noise).

    >>> x = ember.ones(4)
    >>> ember.dropout(x, 0.5, False) is x
    True

feature_* drop whole channels (noise of shape (N, C, 1, ...)); alpha_* keep the mean and
variance of SELU activations (dropped values go to -alpha * scale, then an affine fix).
"""
from __future__ import annotations

import math

from ember._generated import ops as _ops

_ALPHA = 1.7580993408473766


def _check(p) -> None:
    if not (p >= 0 and p <= 1):
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_noise(input):
    """An uninitialised (N, C, 1, ..., 1) tensor: one draw per channel."""
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    sizes = list(input._shape[:2]) + [1] * (input.dim() - 2)
    return _ops._entry_new_empty(input, sizes, None, None, None, None)


def _dropout_impl(input, p, train, feature, alpha, inplace):
    _check(p)
    mul = _ops._entry_mul__Tensor if inplace else _ops._entry_mul_Tensor
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        return mul(input, _ops._entry_zeros((), input._dtype, None, input.device, None))
    noise = (_feature_noise(input) if feature
             else _ops._entry_empty_like(input, None, None, None, None, None))
    _ops._entry_bernoulli__float(noise, 1 - p, None)
    if not alpha:
        return mul(input, _ops._entry_div__Tensor(noise, 1 - p))
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = _ops._entry_add_Scalar(noise, -1, 1)
    b = _ops._entry_add__Scalar(_ops._entry_mul__Scalar(b, _ALPHA * a), _ALPHA * a * p, 1)
    _ops._entry_mul__Scalar(noise, a)
    return _ops._entry_add__Tensor(mul(input, noise), b, 1)


def dropout(input, p, train):
    """input itself when p == 0, not training or empty; input * 0 when p == 1."""
    return _dropout_impl(input, p, train, False, False, False)


def dropout_(self, p, train):
    return _dropout_impl(self, p, train, False, False, True)


def feature_dropout(input, p, train):
    return _dropout_impl(input, p, train, True, False, False)


def feature_dropout_(self, p, train):
    return _dropout_impl(self, p, train, True, False, True)


def alpha_dropout(input, p, train):
    return _dropout_impl(input, p, train, False, True, False)


def alpha_dropout_(self, p, train):
    return _dropout_impl(self, p, train, False, True, True)


def feature_alpha_dropout(input, p, train):
    return _dropout_impl(input, p, train, True, True, False)


def feature_alpha_dropout_(self, p, train):
    return _dropout_impl(self, p, train, True, True, True)
