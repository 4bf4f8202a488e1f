"""`nn.init`: in-place initialisers, run under no_grad, with torch's fan and gain rules.

    >>> w = ember.empty(128, 64)
    >>> _ = nn.init.kaiming_uniform_(w, a=math.sqrt(5))    # nn.Linear's default
    >>> bool(w.abs().max() <= 1 / math.sqrt(64))
    True

Each random initialiser takes an optional `generator=` (an `ember.Generator`).
"""
from __future__ import annotations

import math
import warnings

import ember

from ..autograd import no_grad

__all__ = [
    "calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_", "kaiming_uniform_",
    "normal_", "ones_", "orthogonal_", "sparse_", "trunc_normal_", "uniform_", "xavier_normal_",
    "xavier_uniform_", "zeros_",
]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for a nonlinearity (an nn.functional name).

    >>> calculate_gain("relu"), calculate_gain("leaky_relu", 0.2)
    (1.4142135623730951, 1.3867504905630728)
    """
    if nonlinearity in _LINEAR_FNS:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight laid out as (out, in, *kernel)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _calculate_correct_fan(tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    """Fills `tensor` from U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    """Fills `tensor` from N(mean, std²)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None):
    """Fills `tensor` from N(mean, std²) truncated to [a, b] (values outside are redrawn)."""
    if tensor.is_meta:
        return tensor
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        if _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std) > 0.3:
            _redraw_outside(tensor, mean, std, a, b, generator)
        else:
            _rejection_from_uniform(tensor, mean, std, a, b, generator)
    return tensor


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _redraw_outside(tensor, mean, std, a, b, generator):
    """Most of the mass is inside [a, b]: draw normals, redraw those outside."""
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < a) | (result > b)
        if not outside.any():
            break
        fresh = ember.empty_like(result).normal_(mean, std, generator=generator)
        result = ember.where(outside, fresh, result)
    if result is not tensor:
        tensor.copy_(result)


def _rejection_from_uniform(tensor, mean, std, a, b, generator):
    """Little mass inside [a, b]: propose U(a, b), accept with the normal density ratio."""
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def log_ratio(x):
        return ((x - mean) / std).pow(2).mul(-0.5).sub(log_peak)

    result = tensor.uniform_(a, b, generator=generator)
    pending = ember.empty_like(tensor).uniform_(generator=generator).log().gt(log_ratio(result))
    while pending.any():
        candidates = ember.empty_like(tensor).uniform_(a, b, generator=generator)
        result = ember.where(pending, candidates, result)
        rejected = ember.empty_like(tensor).uniform_(generator=generator).log().gt(
            log_ratio(candidates))
        pending = pending & rejected
    if result is not tensor:
        tensor.copy_(result)


def constant_(tensor, val: float):
    """Fills `tensor` with `val`."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fills `tensor` with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fills `tensor` with zeros."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fills a 2-D `tensor` with the identity matrix."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(ember.eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))
    return tensor


def dirac_(tensor, groups: int = 1):
    """Fills a 3-, 4- or 5-D conv weight with the Dirac delta (identity convolution)."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.is_meta:
        return tensor
    out_per_group = sizes[0] // groups
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(out_per_group, sizes[1])):
                tensor[(g * out_per_group + d, d, *centre)] = 1
    return tensor


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    """Glorot uniform: U(-a, a) with a = gain·sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    """Glorot normal: N(0, std²) with std = gain·sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    """gain / sqrt(fan), or None (with torch's warning) for a zero-element tensor."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None):
    """He uniform: U(-bound, bound) with bound = gain·sqrt(3 / fan_mode)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None):
    """He normal: N(0, std²) with std = gain / sqrt(fan_mode)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0, std, generator)


def orthogonal_(tensor, gain: float = 1, generator=None):
    """Fills `tensor` (>= 2-D, trailing dims flattened) with a (semi-)orthogonal matrix."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    import numpy as np
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flat = ember.empty(rows, cols, dtype=ember.float64).normal_(0, 1, generator=generator)
    a = flat.numpy()
    a = a.T if rows < cols else a
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diag(r))
    q = q.T if rows < cols else q
    with no_grad():
        tensor.view(rows, cols).copy_(ember.from_numpy(np.ascontiguousarray(q)))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity: float, std: float = 0.01, generator=None):
    """Fills a 2-D `tensor` from N(0, std²) with a `sparsity` fraction of each column zeroed."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            zero_rows = ember.randperm(rows, generator=generator)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


def _deprecated(new):
    """torch's old spellings without the trailing underscore (they warn, then run `new`)."""
    old = new.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.",
                      FutureWarning, stacklevel=2)
        return new(*args, **kwargs)
    deprecated_init.__name__ = old
    deprecated_init.__doc__ = f"Deprecated: use `nn.init.{new.__name__}`."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
