"""Vision functions: interpolate (nearest, nearest-exact, linear, bilinear, bicubic,
trilinear, area), pixel_shuffle/pixel_unshuffle, fold/unfold, composed of ember ops.

Interpolation is separable: each spatial dim, last first, is resampled with index_select
and per-position weights computed as torch's kernels compute them (float32 coordinates for
float32 inputs), so the values match torch's and the gradient accumulates like its own.
"""
from __future__ import annotations

import itertools
import math
import numbers
import warnings

import numpy as np

import ember

from ._common import _NO, _override, _tf
from ._pooling import (
    _tuple,
    _Windows,
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
)

_LINEAR = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}
_CUBIC_A = -0.75


def _opmath(dtype):
    """The NumPy type torch computes coordinates in: double for float64, else float."""
    return np.float64 if dtype == ember.float64 else np.float32


def _scale(in_size, out_size, scale, ftype):
    """torch's compute_scales_value: 1 / scale_factor when given, else in / out."""
    if scale is not None and scale > 0:
        return ftype(1.0 / scale)
    return ftype(in_size) / ftype(out_size)


def _nearest_index(in_size, out_size, scale, exact):
    """torch's nearest_idx / nearest_exact_idx (float arithmetic)."""
    o = np.arange(out_size)
    if not exact and out_size == in_size:
        return o
    if not exact and out_size == 2 * in_size:
        return o >> 1
    s = _scale(in_size, out_size, scale, np.float32)
    src = (o.astype(np.float32) + np.float32(0.5)) * s if exact else o.astype(np.float32) * s
    return np.minimum(np.floor(src).astype(np.int64), in_size - 1)


def _source(in_size, out_size, scale, align_corners, cubic, ftype):
    """torch's area_pixel_compute_scale + area_pixel_compute_source_index."""
    o = np.arange(out_size).astype(ftype)
    if out_size > 1:
        ratio = (ftype(in_size - 1) / ftype(out_size - 1) if align_corners
                 else _scale(in_size, out_size, scale, ftype))
    else:
        ratio = ftype(0)
    if align_corners:
        return ratio * o
    src = ratio * (o + ftype(0.5)) - ftype(0.5)
    return src if cubic else np.maximum(src, ftype(0))


def _taps(mode, in_size, out_size, scale, align_corners, ftype):
    """[(input index per output position, weight or None), ...] for one dim."""
    if mode in ("nearest", "nearest-exact"):
        return [(_nearest_index(in_size, out_size, scale, mode == "nearest-exact"), None)]
    if mode == "bicubic":
        src = _source(in_size, out_size, scale, align_corners, True, ftype)
        base = np.floor(src)
        t = (src - base).astype(ftype)
        a = ftype(_CUBIC_A)

        def conv1(x):
            return ((a + 2) * x - (a + 3)) * x * x + 1

        def conv2(x):
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

        weights = (conv2(t + 1), conv1(t), conv1(1 - t), conv2(2 - t))
        base = base.astype(np.int64)
        return [(np.clip(base - 1 + j, 0, in_size - 1), w) for j, w in enumerate(weights)]
    if in_size == out_size:
        return [(np.arange(out_size), None)]
    src = _source(in_size, out_size, scale, align_corners, False, ftype)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    lambda1 = np.clip(src - i0, 0, 1).astype(ftype)
    i1 = i0 + (i0 < in_size - 1)
    return [(i0, (1 - lambda1).astype(ftype)), (i1, lambda1)]


def _antialias_taps(mode, in_size, out_size, scale, align_corners, ftype):
    """torch's _compute_index_ranges_weights with antialias: each output position averages
    the inputs under a filter (triangle for bilinear, Keys cubic with a = -0.5 for bicubic)
    stretched by the downscaling factor, normalised to sum 1; in torch's float/double
    arithmetic, padded to the widest window with zero weights."""
    interp = 2 if mode == "bilinear" else 4
    if align_corners:
        s = ftype(in_size - 1) / ftype(out_size - 1) if out_size > 1 else ftype(0)
    else:
        s = _scale(in_size, out_size, scale, ftype)
    support = ftype(interp * 0.5 * float(s)) if s >= 1 else ftype(interp * 0.5)
    width = math.ceil(support) * 2 + 1
    invscale = ftype(1.0 / float(s)) if s >= 1 else ftype(1)
    center = (float(s) * (np.arange(out_size) + 0.5)).astype(ftype)
    xmin = np.maximum(((center - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    xmax = ((center + support).astype(np.float64) + 0.5).astype(np.int64)
    xsize = np.clip(np.minimum(xmax, in_size) - xmin, 0, width)
    j = np.arange(width)
    x = (j + xmin[:, None]).astype(ftype) - center[:, None]
    x = np.abs(((x.astype(np.float64) + 0.5) * float(invscale)).astype(ftype))
    if mode == "bilinear":
        w = np.where(x < 1, (1.0 - x).astype(ftype), ftype(0))
    else:
        a = ftype(-0.5)
        w = np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                     np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, ftype(0)))
    w = np.where(j < xsize[:, None], w, ftype(0)).astype(ftype)
    total = np.zeros(out_size, ftype)
    for k in range(width):       # (summed in order, as torch)
        total = total + w[:, k]
    w = np.where(total[:, None] != 0, w / np.where(total == 0, 1, total)[:, None], w)
    index = np.clip(xmin[:, None] + j, 0, in_size - 1)
    return [(index[:, k], w[:, k].astype(ftype)) for k in range(width)]


def _resample(x, mode, output_size, scales, align_corners, antialias=False):
    """Resample each spatial dim of (N, C, *spatial) x, innermost first (half types in
    float32, as torch's kernels compute them)."""
    if antialias and x.dtype not in (ember.float32, ember.float64, ember.uint8):
        raise NotImplementedError('"compute_index_ranges_weights" not implemented for '
                                  f"'{x.dtype.scalar_name}'")
    if x.dtype in (ember.float16, ember.bfloat16):
        return _resample(x.float(), mode, output_size, scales, align_corners).to(x.dtype)
    if mode not in ("nearest", "nearest-exact") and not x.is_floating_point():
        raise NotImplementedError(f"interpolate: mode '{mode}' of {x.dtype.scalar_name} "
                                  "input is not supported by ember (convert it to float)")
    n = x.dim() - 2
    ftype = _opmath(x.dtype)
    for i in reversed(range(n)):
        axis = 2 + i
        taps = (_antialias_taps if antialias else _taps)(
            mode, x.shape[axis], output_size[i], scales[i], align_corners, ftype)
        out = None
        for index, weight in taps:
            part = x.index_select(axis, ember.tensor(index, device=x.device))
            if weight is not None:
                w = ember.tensor(weight, device=x.device).to(x.dtype)
                part = part * w.view((-1,) + (1,) * (n - 1 - i))
            out = part if out is None else out + part
        x = out
    return x


def _output_size(input, size, scale_factor, recompute_scale_factor, mode):
    """torch's interpolate argument checks: (output size, scale per dim or None)."""
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(s, numbers.Integral) for s in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}")
            output_size = list(size)
        else:
            output_size = [size] * dim
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        return output_size, [None] * dim
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {list(input.shape[2:])} and "
                f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, C, "
                "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * dim
    output_size = [math.floor(float(input.shape[i + 2]) * scales[i]) for i in range(dim)]
    if mode == "area" or recompute_scale_factor:
        scales = [None] * dim
    return output_size, scales


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize (N, C, *spatial) input to `size` or by `scale_factor`.

    Modes: nearest, nearest-exact, area (adaptive average pooling), linear (3-d input),
    bilinear and bicubic (4-d), trilinear (5-d); align_corners for the interpolating ones.
    """
    if _tf[0] and (result := _override("interpolate", locals())) is not _NO:
        return result
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    output_size, scales = _output_size(input, size, scale_factor, recompute_scale_factor, mode)
    if antialias:
        if not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
            raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                             "modes and requires a 4-D tensor as input")
        if mode == "lanczos":
            raise NotImplementedError("interpolate: mode 'lanczos' is not supported by ember")
    if mode == "area" and input.dim() in (3, 4, 5):
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[input.dim() - 3]
        return pool(input, output_size)
    if mode in ("nearest", "nearest-exact") and input.dim() in (3, 4, 5) \
            or _LINEAR.get(mode) == input.dim():
        if any(s <= 0 for s in output_size) or any(s == 0 for s in input.shape[2:]):
            raise RuntimeError(f"Input and output sizes should be greater than 0, but got "
                               f"input ({', '.join(map(str, input.shape[2:]))}) and output "
                               f"({', '.join(map(str, output_size))})")
        return _resample(input, mode, output_size, scales, align_corners, antialias)
    if mode in _LINEAR and input.dim() in (3, 4, 5):
        want = {"linear": "3D", "bilinear": "4D", "trilinear": "5D", "bicubic": "4D"}[mode]
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {want} "
                                  "input")
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported (got "
        f"{input.dim()}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | "
        f"lanczos | area | nearest-exact (got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated spelling of :func:`interpolate` (warns, like torch)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: interpolate(mode='nearest')."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: interpolate(mode='bilinear', align_corners=True)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---------------------------------------------------------------- pixel shuffle
def _check_shuffle(input, factor, name):
    if input.dim() < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {input.dim()} dimension(s)")
    if factor <= 0:
        what = "upscale_factor" if name == "pixel_shuffle" else "downscale_factor"
        raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")


def pixel_shuffle(input, upscale_factor):
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r)."""
    if _tf[0] and (result := _override("pixel_shuffle", locals())) is not _NO:
        return result
    r = upscale_factor
    _check_shuffle(input, r, "pixel_shuffle")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W)."""
    if _tf[0] and (result := _override("pixel_unshuffle", locals())) is not _NO:
        return result
    r = downscale_factor
    _check_shuffle(input, r, "pixel_unshuffle")
    *lead, c, h, w = input.shape
    for size, name in ((h, "height"), (w, "width")):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({-2 if name == 'height' else -1})"
                               f"={size} is not divisible by {r}")
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


# ---------------------------------------------------------------- fold / unfold
def _fold_args(kernel_size, dilation, padding, stride):
    return tuple(_tuple(v, 2, name) for v, name in (
        (kernel_size, "kernel_size"), (dilation, "dilation"), (padding, "padding"),
        (stride, "stride")))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: the sliding (kh, kw) blocks of (N, C, H, W) as columns (N, C*kh*kw, L)."""
    if _tf[0] and (result := _override("unfold", locals())) is not _NO:
        return result
    if input.dim() not in (3, 4) or input.numel() == 0 and input.dim() == 3:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           "and other non-zero dimensions for input, but got: "
                           f"[{', '.join(map(str, input.shape))}]")
    kernel, dilation, padding, stride = _fold_args(kernel_size, dilation, padding, stride)
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    windows = _Windows.regular(x.shape[2:], kernel, stride, padding, dilation, False)
    oh, ow = windows.out_shape
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"Given input with spatial size ({x.shape[2]}, {x.shape[3]}), kernel_size="
            f"({kernel[0]}, {kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding="
            f"({padding[0]}, {padding[1]}), calculated shape of the array of sliding blocks as "
            f"({oh}, {ow}), but its components must be at least one.")
    taps = windows.cut(x).masked_fill(windows.mask(windows.valid, x.device).logical_not(), 0)
    n, c = x.shape[:2]
    cols = taps.permute(0, 1, 4, 2, 3).reshape(n, c * kernel[0] * kernel[1], oh * ow)
    return cols if batched else cols.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, the adjoint of :func:`unfold`: sums columns (N, C*kh*kw, L) into
    (N, C, *output_size), overlapping blocks adding up."""
    if _tf[0] and (result := _override("fold", locals())) is not _NO:
        return result
    if input.dim() not in (2, 3) or input.numel() == 0 and input.dim() == 2:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"[{', '.join(map(str, input.shape))}]")
    kernel, dilation, padding, stride = _fold_args(kernel_size, dilation, padding, stride)
    output_size = _tuple(output_size, 2, "output_size")
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    blocks = kernel[0] * kernel[1]
    if x.shape[1] % blocks:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={x.shape[1]} and kernel_size="
                           f"({kernel[0]}, {kernel[1]}).")
    windows = _Windows.regular(output_size, kernel, stride, padding, dilation, False)
    oh, ow = windows.out_shape
    if x.shape[2] != oh * ow:
        raise RuntimeError(
            f"Given output_size=({output_size[0]}, {output_size[1]}), kernel_size=({kernel[0]}, "
            f"{kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, "
            f"{padding[1]}), stride=({stride[0]}, {stride[1]}), expected size of input's "
            f"dimension 2 to match the calculated number of sliding blocks {oh} * {ow} = "
            f"{oh * ow}, but got input.size(2)={x.shape[2]}.")
    n, c = x.shape[0], x.shape[1] // blocks
    vals = x.reshape(n, c, kernel[0], kernel[1], oh, ow).permute(0, 1, 4, 2, 5, 3).flatten(2)
    (ph, pw), (vh, vw) = windows.positions, windows.valid
    target = (ph[:, :, None, None] * output_size[1] + pw[None, None]).ravel()
    keep = np.flatnonzero((vh[:, :, None, None] & vw[None, None]).ravel())
    vals = vals.index_select(2, ember.tensor(keep, device=x.device))
    out = ember.zeros((n, c, output_size[0] * output_size[1]), dtype=x.dtype, device=x.device)
    out = out.index_add(2, ember.tensor(target[keep], device=x.device), vals)
    out = out.view(n, c, *output_size)
    return out if batched else out.squeeze(0)


def channel_shuffle(input, groups):
    """Interleave the channels of groups: (N, g * k, *) channels c*k+j -> j*g+c."""
    if _tf[0] and (result := _override("channel_shuffle", locals())) is not _NO:
        return result
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if input.dim() <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    n, c = input.shape[:2]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    rest = input.shape[2:]
    return (input.reshape(n, groups, c // groups, *rest).transpose(1, 2)
            .reshape(input.shape))


def pdist(input, p=2):
    """The p-norm distances between every pair of rows i < j of a (N, M) input."""
    if _tf[0] and (result := _override("pdist", locals())) is not _NO:
        return result
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    rows = input.shape[0]
    i, j = ember.triu_indices(rows, rows, 1, device=input.device)
    return ember.linalg_vector_norm(input[i] - input[j], p, 1)


# ---------------------------------------------------------------- spatial transformers
_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details.")


def _linspace_from_neg_one(theta, steps, align_corners):
    if steps <= 1:
        return ember.zeros(1, dtype=theta.dtype, device=theta.device)
    values = ember.linspace(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    return values if align_corners else values * ((steps - 1) / steps)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, *spatial, 2 or 3) of the affine maps theta (N, 2, 3) or
    (N, 3, 4) over an output of `size` (N, C, H, W) or (N, C, D, H, W)."""
    if _tf[0] and (result := _override("affine_grid", locals())) is not _NO:
        return result
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(
                "Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                f"{size}. Got {theta.shape}.")
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(
                "Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                f"{size}. Got {theta.shape}.")
    else:
        raise NotImplementedError(
            f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n, spatial = size[0], size[2:]
    axes = [_linspace_from_neg_one(theta, s, align_corners) for s in reversed(spatial)]
    mesh = ember.meshgrid(*reversed(axes), indexing="ij")        # D?, H, W
    coords = [m for m in reversed(mesh)]                           # x, y(, z)
    base = ember.stack(coords + [ember.ones_like(coords[0])], -1)  # (*spatial, k + 1)
    base = base.reshape(1, -1, len(spatial) + 1).expand(n, -1, -1)
    return base.bmm(theta.transpose(1, 2)).view(n, *spatial, len(spatial))


def _reflect(coord, twice_low, twice_high):
    """torch's reflect_coordinates: fold coord into [low, high] by reflection."""
    if twice_low == twice_high:
        return ember.zeros_like(coord)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    extra = ember.fmod(coord, span)
    flips = (coord / span).floor()
    return ember.where(ember.fmod(flips, 2) == 0, extra + low, span - extra + low)


def _unnormalize(coord, size, align_corners):
    """Grid values in [-1, 1] -> input pixel coordinates."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _pad_coordinates(coord, size, padding_mode, align_corners):
    """torch's compute_coordinates: fold coordinates outside the input by padding_mode."""
    if padding_mode == "border":
        coord = coord.clamp(0, size - 1)
    elif padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        coord = coord.clamp(0, size - 1)
    return coord


def _source_coordinates(coord, size, padding_mode, align_corners):
    """Grid values in [-1, 1] -> input pixel coordinates, folded by padding_mode."""
    return _pad_coordinates(_unnormalize(coord, size, align_corners), size, padding_mode,
                            align_corners)


def _cubic_coefficients(t):
    """The four weights of torch's cubic convolution (A = -0.75) at fraction t."""
    a = -0.75

    def near(x):     # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):      # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _check_grid_sampler(input, grid, mode):
    """torch's check_grid_sampler_common and check_grid_sampler_{2d,3d}, in its order."""
    sizes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.device != grid.device:
        raise RuntimeError("grid_sampler(): expected input and grid to be on same device, but "
                           f"input is on {input.device} and grid is on {grid.device}")
    if input.dim() < 1 or grid.dim() < 1 or input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got {sizes}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {list(grid.shape)}")
    for i in range(2, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {i} being empty")
    rank = 4 if input.dim() == 4 else 5
    if input.dim() != rank or grid.dim() != rank:
        raise RuntimeError(f"grid_sampler(): expected {rank}D input and grid with same number "
                           f"of dimensions, but got {sizes}")
    if mode == "bicubic" and rank == 5:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if grid.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.scalar_name} but found "
                           f"{grid.dtype.scalar_name}")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample (N, C, H, W) input at the (N, H_out, W_out, 2) grid's (x, y) locations in
    [-1, 1], or (N, C, D, H, W) input at a (N, D_out, H_out, W_out, 3) grid's (x, y, z):
    nearest, bilinear (trilinear on 5-D) or bicubic (4-D); zeros, border or reflection
    padding."""
    if _tf[0] and (result := _override("grid_sample", locals())) is not _NO:
        return result
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    _check_grid_sampler(input, grid, mode)
    n, c, *sizes = input.shape
    out = grid.shape[1:-1]
    flat = input.reshape(n, c, -1)
    # the grid's last dim runs x (W), y (H)(, z (D)): reversed against the input's dims
    coords = [grid[..., len(sizes) - 1 - d] for d in range(len(sizes))]

    def tap(index):
        """The input at integer coordinates (one per spatial dim), zero outside it."""
        inside, flat_index = True, 0
        for i, size in zip(index, sizes, strict=True):
            inside = inside & (i >= 0) & (i <= size - 1)
            flat_index = flat_index * size + i.clamp(0, size - 1).to(ember.int64)
        values = flat.gather(2, flat_index.reshape(n, 1, -1).expand(n, c, -1))
        return values.view(n, c, *out) * inside.unsqueeze(1).to(input.dtype)

    if mode == "bicubic":
        points = [_unnormalize(x, size, align_corners) for x, size in zip(coords, sizes)]
        base = [p.floor().detach() for p in points]
        weights = [_cubic_coefficients(p - b) for p, b in zip(points, base)]

        def tap_padded(iy, ix):
            return tap([_pad_coordinates(b + k - 1, size, padding_mode, align_corners)
                        for b, k, size in zip(base, (iy, ix), sizes)])

        rows = [sum(weights[1][ix].unsqueeze(1) * tap_padded(iy, ix) for ix in range(4))
                for iy in range(4)]
        return sum(weights[0][iy].unsqueeze(1) * rows[iy] for iy in range(4))
    points = [_source_coordinates(x, size, padding_mode, align_corners)
              for x, size in zip(coords, sizes)]
    if mode == "nearest":   # weight 1, still tied to grid: its gradient is zeros, as torch's
        one = ember.where(ember.zeros_like(points[0], dtype=ember.bool), points[0], 1.0)
        return tap([p.round().detach() for p in points]) * one.unsqueeze(1)
    base = [p.floor().detach() for p in points]
    frac = [p - b for p, b in zip(points, base)]
    result = 0
    for corner in itertools.product((0, 1), repeat=len(sizes)):   # torch's order: nw, ne, ...
        weight = 1
        for bit, f in zip(corner, frac):
            weight = weight * (f if bit else 1 - f)
        result = result + tap([b + bit for b, bit in zip(base, corner)]) \
            * weight.unsqueeze(1)
    return result
