"""The pointwise machinery of the Meta backend, shared by the unary, binary, activation
and reduction families: a result's `Layout` (shape, strides, dtype) computed before any
tensor exists, the Meta tensor of a layout, and the checks of an in-place result.

    >>> from ember.core.alloc import empty_meta
    >>> _meta(_layout(ember.float32, empty_meta((2, 1), ember.float32),
    ...               empty_meta((3,), ember.float32))).shape
    ember.Size([2, 3])
"""
from __future__ import annotations

from ember.core.alloc import empty_meta
from ember.core.shapes import meta_elementwise_strides
from ember.kernels.common import _pointwise as P


class Layout:
    """The shape, strides and dtype of a result, before any tensor exists."""

    __slots__ = ("_dtype", "_shape", "_stride")

    def __init__(self, shape, stride, dtype):
        self._shape, self._stride, self._dtype = shape, stride, dtype


def _layout(dt, *operands, cast_to=None, zero_dim_numbers=False) -> Layout:
    """A result of dtype `dt` over `operands`; `cast_to`, `zero_dim_numbers` as in
    `P.out_layout`."""
    P.check_same_device(*P.tensors_of(*operands))
    shape, stride = P.out_layout(*operands, cast_to=cast_to, zero_dim_numbers=zero_dim_numbers)
    return Layout(shape, stride, dt)


# a number as the 0-d tensor torch's where.ScalarSelf/ScalarOther make of it on the device
NUMBER = ((), ())


def where_number_strides(shape, stride, number_first: bool) -> tuple:
    """Strides of torch's Meta `where(<pointwise test of x>, number, x)` (number_first) or
    `where(..., x, number)`: its reference lays out [condition, self, other] with the
    number a 0-d operand (stride 0 once expanded: no contiguous short-circuit).

    >>> where_number_strides((2, 1), (1, 2), True)      # relu of a (2, 1) strided (1, 2)
    (1, 2)
    """
    x = (shape, tuple(stride))
    cond = (shape, meta_elementwise_strides(shape, [x]))
    return meta_elementwise_strides(shape, [cond, NUMBER, x] if number_first else
                                    [cond, x, NUMBER])


def clamp_number_strides(shape, stride, has_min: bool, has_max: bool) -> tuple:
    """Strides of torch's Meta clamp with number bounds (clamp_min, clamp_max, hardtanh,
    relu6): its reference is one `where(ge(x, min) | isnan(x), x, min)` per bound."""
    for present in (has_min, has_max):
        if present:
            x = (shape, tuple(stride))
            test = meta_elementwise_strides(shape, [x])
            cond = (shape, meta_elementwise_strides(shape, [(shape, test), (shape, test)]))
            stride = meta_elementwise_strides(shape, [cond, x, NUMBER])
    return tuple(stride)


def clamp_number_layout(self, dt, has_min: bool, has_max: bool) -> Layout:
    """torch's Meta clamp of `self` with number bounds, result dtype `dt` (its reference
    converts self to dt first)."""
    shape, stride = P._cast_copy_layout(self, dt)
    return Layout(shape, clamp_number_strides(shape, stride, has_min, has_max), dt)


def _meta(layout: Layout):
    return empty_meta(layout._shape, layout._dtype, layout._stride)


def _inplace(self, dt, *others):
    P.check_same_device(self, *P.tensors_of(*others))
    P.check_inplace(self, dt, *others)
    return self
