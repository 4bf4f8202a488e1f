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
from ember.kernels.common import _pointwise as P


class Layout:
    """The shape, strides and dtype of a result, before any tensor exists."""

    __slots__ = ("_dtype", "_shape", "_stride")

    def __init__(self, shape, stride, dtype):
        self._shape, self._stride, self._dtype = shape, stride, dtype


def _layout(dt, *operands, cast_to=None) -> Layout:
    """A result of dtype `dt` over `operands`; `cast_to` as in `P.out_layout`."""
    P.check_same_device(*P.tensors_of(*operands))
    shape, stride = P.out_layout(*operands, cast_to=cast_to)
    return Layout(shape, stride, dt)


def _meta(layout: Layout):
    return empty_meta(layout._shape, layout._dtype, layout._stride)


def _inplace(self, dt, *others):
    P.check_same_device(self, *P.tensors_of(*others))
    P.check_inplace(self, dt, *others)
    return self
