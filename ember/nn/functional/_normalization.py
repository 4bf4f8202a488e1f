"""Normalization functions: batch_norm, layer_norm, group_norm, normalize."""
from __future__ import annotations

import ember

from ._common import _NO, _override, _tf


def _check_batch_size(size):
    values_per_channel = size[0]
    for extent in size[2:]:
        values_per_channel *= extent
    if values_per_channel == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalisation over dim 1; updates running stats in place when training."""
    if _tf[0] and (result := _override("batch_norm", locals())) is not _NO:
        return result
    if training:
        _check_batch_size(input.shape)
    return ember.batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps, False
    )


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing ``normalized_shape`` dimensions."""
    if _tf[0] and (result := _override("layer_norm", locals())) is not _NO:
        return result
    return ember.layer_norm(input, normalized_shape, weight, bias, eps, False)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each sample over groups of channels (dim 1 split into num_groups).

    >>> F.group_norm(ember.randn(2, 6, 4), 3).shape
    ember.Size([2, 6, 4])
    """
    if _tf[0] and (result := _override("group_norm", locals())) is not _NO:
        return result
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    batch, channels = input.shape[0], input.shape[1]
    if channels % num_groups != 0:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    _check_batch_size([batch * channels // num_groups, num_groups, *input.shape[2:]])
    low_precision = input.dtype in (ember.float16, ember.bfloat16)  # computed in float32
    grouped = (input.float() if low_precision else input).reshape(batch, num_groups, -1)
    variance, mean = ember.var_mean(grouped, -1, correction=0, keepdim=True)
    output = ((grouped - mean) * ember.rsqrt(variance + eps)).reshape(input.shape)
    affine_shape = (channels,) + (1,) * (input.dim() - 2)
    if weight is not None:
        output = output * weight.reshape(affine_shape)
    if bias is not None:
        output = output + bias.reshape(affine_shape)
    return output.to(input.dtype) if low_precision else output


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p along dim, eps).

    >>> F.normalize(ember.tensor([[3.0, 4.0]])).tolist()
    [[0.6000000238418579, 0.800000011920929]]
    """
    if _tf[0] and (result := _override("normalize", locals())) is not _NO:
        return result
    denom = ember.linalg_vector_norm(input, p, [dim], True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return ember.div(input, denom, out=out)
