"""dropout and dropout_ as decompositions (torch's _dropout_impl): autograd comes from
the ops they call (a product with the scaled Bernoulli noise).

    >>> x = ember.ones(4)
    >>> ember.dropout(x, 0.5, False) is x
    True
"""
from __future__ import annotations

from ember._generated import ops as _ops


def _check(p) -> None:
    if not (p >= 0 and p <= 1):
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise(input, p):
    """empty_like(input).bernoulli_(1 - p).div_(1 - p)."""
    noise = _ops._entry_empty_like(input, None, None, None, None, None)
    _ops._entry_bernoulli__float(noise, 1 - p, None)
    return _ops._entry_div__Tensor(noise, 1 - p)


def dropout(input, p, train):
    """input itself when p == 0, not training or empty; input * 0 when p == 1."""
    _check(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = _ops._entry_zeros((), input._dtype, None, input._device, None)
        return _ops._entry_mul_Tensor(input, zero)
    return _ops._entry_mul_Tensor(input, _noise(input, p))


def dropout_(self, p, train):
    _check(p)
    if p == 0 or not train or self.numel() == 0:
        return self
    if p == 1:
        zero = _ops._entry_zeros((), self._dtype, None, self._device, None)
        return _ops._entry_mul__Tensor(self, zero)
    return _ops._entry_mul__Tensor(self, _noise(self, p))
