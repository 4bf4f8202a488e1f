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


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each sample over its spatial dims (torch's: a batch norm of
    the (1, N*C, *) view; running stats, when given, average the samples' statistics)."""
    if _tf[0] and (result := _override("instance_norm", locals())) is not _NO:
        return result
    if use_input_stats:
        spatial = 1
        for extent in input.shape[2:]:
            spatial *= extent
        if spatial == 1:
            raise ValueError("Expected more than 1 spatial element when training, got input "
                             f"size {input.shape}")
    n, c = input.shape[:2]

    def repeat(t):
        return None if t is None else t.repeat(n)
    mean, var = repeat(running_mean), repeat(running_var)
    out = ember.batch_norm(input.reshape(1, n * c, *input.shape[2:]), repeat(weight),
                           repeat(bias), mean, var, use_input_stats, momentum, eps, False)
    with ember.no_grad():
        for stat, repeated in ((running_mean, mean), (running_var, var)):
            if stat is not None and use_input_stats:
                stat.copy_(repeated.view(n, c).mean(0))
    return out.view(input.shape)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Divide by (k + alpha * mean of squares over `size` neighbouring channels) ** beta."""
    if _tf[0] and (result := _override("local_response_norm", locals())) is not _NO:
        return result
    from ._conv import pad
    from ._pooling import avg_pool2d, avg_pool3d
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality{' ' * 26}input (got {dim} "
                         "dimensions)")  # torch's message, spaces and all
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    return input / div.mul(alpha).add(k).pow(beta)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2) + eps) over the trailing normalized_shape dims, times weight; eps
    defaults to the machine epsilon of the computation (float32 for half types)."""
    if _tf[0] and (result := _override("rms_norm", locals())) is not _NO:
        return result
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    n = len(shape)
    if tuple(input.shape[input.dim() - n:]) != shape or input.dim() < n:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*{', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight.shape)} and normalized_shape = {list(shape)}")
    low_precision = input.dtype in (ember.float16, ember.bfloat16)
    x = input.float() if low_precision else input
    if eps is None:
        eps = ember.finfo(x.dtype).eps
    dims = list(range(input.dim() - n, input.dim()))
    out = (x * ((x * x).mean(dims, keepdim=True) + eps).rsqrt()).to(input.dtype)
    return out if weight is None else out * weight
