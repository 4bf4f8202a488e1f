"""Meta kernels of the pointwise ops: shape (broadcast), dtype (promotion), strides
(TensorIterator's layout), and the same errors as the CPU kernels.

    >>> add(empty_meta((2, 1), float32), empty_meta((3,), int64), 1).shape
    ember.Size([2, 3])
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.kernels.common import _pointwise as P


def _result(dt, *operands):
    P.check_same_device(*P.tensors_of(*operands))
    shape, stride = P.out_layout(*operands)
    return empty_meta(shape, dt, stride)


def _inplace(self, dt, *others):
    P.check_same_device(self, *P.tensors_of(*others))
    P.check_inplace(self, dt, *others)
    return self


def add(self, other, alpha=1):
    P.check_alpha(D.result_type(self, other), alpha)
    return _result(D.result_type(self, other), self, other)


def sub(self, other, alpha=1):
    P.check_bool_sub(self, other)
    return add(self, other, alpha)


def mul(self, other):
    return _result(D.result_type(self, other), self, other)


def div(self, other):
    return _result(P.float_result(D.result_type(self, other)), self, other)


def div_mode(self, other, rounding_mode):
    P.check_div_mode(rounding_mode, D.result_type(self, other))
    if rounding_mode is None:
        return div(self, other)
    return mul(self, other)


def pow(self, exponent):
    return _result(P.pow_dtype(self, exponent), self, exponent)


def pow_scalar(self, exponent):
    """torch computes `scalar ** t` into a fresh contiguous tensor."""
    P.check_same_device(exponent)
    return empty_meta(exponent._shape, P.pow_dtype(self, exponent))


def _compare(self, other):
    D.result_type(self, other)
    return _result(D.bool_, self, other)


eq = ne = lt = le = gt = ge = _compare


def where(condition, self, other):
    P.check_where_condition(condition)
    return _result(P.where_dtype(self, other), condition, self, other)


def clamp(self, min=None, max=None):
    return _result(P.clamp_dtype(self, min, max), self, *P.tensors_of(min, max))


def masked_fill(self, mask, value):
    """torch clones the broadcast self contiguously, then fills: a contiguous result."""
    P.check_bool_mask(mask)
    P.check_fill_value(value)
    P.check_same_device(self, mask)
    return empty_meta(P.broadcast_shapes(self._shape, mask._shape), self._dtype)


# --- in place -------------------------------------------------------------------------
def add_(self, other, alpha=1):
    P.check_alpha(self._dtype, alpha)
    return _inplace(self, D.result_type(self, other), other)


def sub_(self, other, alpha=1):
    P.check_bool_sub(self, other)
    return add_(self, other, alpha)


def mul_(self, other):
    return _inplace(self, D.result_type(self, other), other)


def div_(self, other):
    return _inplace(self, P.float_result(D.result_type(self, other)), other)


def div_mode_(self, other, rounding_mode):
    P.check_div_mode(rounding_mode, D.result_type(self, other))
    return div_(self, other) if rounding_mode is None else mul_(self, other)


def pow_(self, exponent):
    return _inplace(self, P.pow_dtype(self, exponent), exponent)


def clamp_(self, min=None, max=None):
    return _inplace(self, P.clamp_dtype(self, min, max), *P.tensors_of(min, max))


def masked_fill_(self, mask, value):
    P.check_bool_mask(mask)
    P.check_fill_value(value)
    return _inplace(self, self._dtype, mask)


# --- unary ------------------------------------------------------------------------------
def unary_same(self):
    """relu-like ops: same dtype and layout as the input."""
    return _result(self._dtype, self)


def neg(self):
    P.check_bool_neg(self)
    return _result(self._dtype, self)


def neg_(self):
    P.check_bool_neg(self)
    return self


def unary_float(self):
    """exp, log, sigmoid, tanh: integral inputs give the default float dtype."""
    return _result(P.float_result(self._dtype), self)


def unary_inplace(self):
    return self


def unary_inplace_float(self):
    return _inplace(self, P.float_result(self._dtype))
