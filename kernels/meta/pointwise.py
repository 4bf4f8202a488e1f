"""Meta kernels of the pointwise ops: shape (broadcast), dtype (promotion), strides
(TensorIterator's layout), and the same errors as the CPU kernels.

Each functional op has a `*_layout` function returning a `Layout` (shape, strides,
dtype, after torch's checks); the Meta kernel allocates it, and the CPU kernel uses the
same function off its fast path, so both backends always agree.

    >>> out = add(empty_meta((2, 1), ember.float32), empty_meta((3,), ember.int64), 1)
    >>> out.shape, out.dtype, out.device
    (ember.Size([2, 3]), ember.float32, device(type='meta'))
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.core.tensor import contiguous_strides
from ember.kernels.common import _pointwise as P


class Layout:
    """The shape, strides and dtype of a result, before any tensor exists."""

    __slots__ = ("_dtype", "_shape", "_stride")

    def __init__(self, shape, stride, dtype):
        self._shape, self._stride, self._dtype = shape, stride, dtype


def _layout(dt, *operands) -> Layout:
    P.check_same_device(*P.tensors_of(*operands))
    shape, stride = P.out_layout(*operands)
    return Layout(shape, stride, dt)


def _meta(layout: Layout):
    return empty_meta(layout._shape, layout._dtype, layout._stride)


def _inplace(self, dt, *others):
    P.check_same_device(self, *P.tensors_of(*others))
    P.check_inplace(self, dt, *others)
    return self


# --- layouts (shared with the CPU kernels) ---------------------------------------------------
def mul_layout(self, other) -> Layout:
    """add, sub and mul (alpha already folded in): promoted dtype, broadcast shape."""
    return _layout(D.result_type(self, other), self, other)


def div_layout(self, other) -> Layout:
    return _layout(P.float_result(D.result_type(self, other)), self, other)


def div_mode_layout(self, other, rounding_mode) -> Layout:
    P.check_div_mode(rounding_mode, D.result_type(self, other))
    return div_layout(self, other) if rounding_mode is None else mul_layout(self, other)


def pow_layout(self, exponent) -> Layout:
    return _layout(P.pow_dtype(self, exponent), self, exponent)


def pow_scalar_layout(self, exponent) -> Layout:
    """torch computes `scalar ** t` into a fresh contiguous tensor."""
    P.check_same_device(exponent)
    return Layout(exponent._shape, contiguous_strides(exponent._shape),
                  P.pow_dtype(self, exponent))


def compare_layout(self, other) -> Layout:
    D.result_type(self, other)
    return _layout(D.bool_, self, other)


def where_layout(condition, self, other) -> Layout:
    P.check_where_condition(condition)
    return _layout(P.where_dtype(self, other), condition, self, other)


def clamp_layout(self, min=None, max=None) -> Layout:
    return _layout(P.clamp_dtype(self, min, max), self, *P.tensors_of(min, max))


def masked_fill_layout(self, mask, value) -> Layout:
    """torch clones the broadcast self contiguously, then fills: a contiguous result."""
    P.check_bool_mask(mask)
    P.check_fill_value(value)
    P.check_same_device(self, mask)
    shape = P.broadcast_shapes(self._shape, mask._shape)
    return Layout(shape, contiguous_strides(shape), self._dtype)


# --- Meta kernels --------------------------------------------------------------------------
def add(self, other, alpha=1):
    P.alpha_value(D.result_type(self, other), alpha)
    return _meta(mul_layout(self, other))


def sub(self, other, alpha=1):
    P.check_bool_sub(self, other)
    return add(self, other, alpha)


def mul(self, other):
    return _meta(mul_layout(self, other))


def div(self, other):
    return _meta(div_layout(self, other))


def div_mode(self, other, rounding_mode):
    return _meta(div_mode_layout(self, other, rounding_mode))


def pow(self, exponent):
    return _meta(pow_layout(self, exponent))


def pow_scalar(self, exponent):
    return _meta(pow_scalar_layout(self, exponent))


def _compare(self, other):
    return _meta(compare_layout(self, other))


eq = ne = lt = le = gt = ge = _compare


def where(condition, self, other):
    return _meta(where_layout(condition, self, other))


def clamp(self, min=None, max=None):
    return _meta(clamp_layout(self, min, max))


def masked_fill(self, mask, value):
    return _meta(masked_fill_layout(self, mask, value))


# --- in place -------------------------------------------------------------------------
def add_(self, other, alpha=1):
    dt = D.result_type(self, other)
    _inplace(self, dt, other)
    P.alpha_value(dt, alpha)
    return self


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


def clamp_(self, min=None, max=None):
    P.check_same_device(self, *P.tensors_of(min, max))
    P.check_inplace(self, P.clamp_dtype(self, min, max), *P.tensors_of(min, max), cpp_name=True)
    return self


def masked_fill_(self, mask, value):
    P.check_bool_mask(mask)
    P.check_fill_value(value)
    return _inplace(self, self._dtype, mask)
