"""Pooling functions: max, average and adaptive average pooling over 2-d inputs."""
from __future__ import annotations

import ember

from ._common import _NO, _override, _tf


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """2-d max pooling returning (output, indices); stride defaults to kernel_size."""
    if _tf[0] and (result := _override("max_pool2d_with_indices", locals())) is not _NO:
        return result
    return ember.max_pool2d_with_indices(
        input, kernel_size, () if stride is None else stride, padding, dilation, ceil_mode
    )


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling over (N, C, H, W) or (C, H, W); stride defaults to kernel_size.

    ``return_indices=True`` returns (output, indices) as torch does.
    """
    if _tf[0] and (result := _override("max_pool2d", locals())) is not _NO:
        return result
    if stride is None:
        stride = ()
    if return_indices:
        return ember.max_pool2d_with_indices(
            input, kernel_size, stride, padding, dilation, ceil_mode
        )
    return ember.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-d average pooling; stride defaults to kernel_size."""
    if _tf[0] and (result := _override("avg_pool2d", locals())) is not _NO:
        return result
    return ember.avg_pool2d(
        input, kernel_size, () if stride is None else stride, padding, ceil_mode,
        count_include_pad, divisor_override,
    )


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed output size; a None entry keeps that input size."""
    if _tf[0] and (result := _override("adaptive_avg_pool2d", locals())) is not _NO:
        return result
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    elif None in output_size:
        output_size = tuple(
            input.shape[-2 + i] if size is None else size for i, size in enumerate(output_size)
        )
    return ember.adaptive_avg_pool2d(input, output_size)
