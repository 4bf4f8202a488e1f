"""Pooling functions: max, average, adaptive and power-average pooling over 1-, 2- and
3-d inputs (the 2-d max/average ones are aten ops; the others compose ember ops)."""
from __future__ import annotations

import math

import numpy as np

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


# ---------------------------------------------------------------- pooling by window tables
# Pooling in any number of dims without a kernel of its own: each spatial dim gets an
# (out, k) table of the input positions its windows read (regular or adaptive windows),
# index_select cuts the windows out, and the reductions run over the last dim. Max pooling
# takes torch's argmax (the first maximum, NaN wins) on a detached copy and gathers the
# values at those indices, so the gradient goes to exactly the positions torch picks.

def _tuple(value, n, name):
    """An int for every spatial dim: (v,) * n for an int, else the n given values."""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"{name} must either be a single int, or a tuple of {n} ints")
    return value


def _out_size(size, k, s, p, d, ceil_mode):
    """torch's pooling_output_shape."""
    out = -(-(size + 2 * p - d * (k - 1) - 1) // s) if ceil_mode else \
        (size + 2 * p - d * (k - 1) - 1) // s
    out += 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


class _Windows:
    """Per spatial dim: positions (out, k) of each window's taps, which of them are real
    input, and which lie inside the zero padding too (for count_include_pad)."""

    def __init__(self, sizes):
        self.sizes = tuple(sizes)
        self.positions, self.valid, self.padded = [], [], []

    def add(self, positions, valid, padded):
        self.positions.append(positions)
        self.valid.append(valid)
        self.padded.append(padded)

    @classmethod
    def regular(cls, sizes, kernel, stride, padding, dilation, ceil_mode):
        self = cls(sizes)
        for size, k, s, p, d in zip(sizes, kernel, stride, padding, dilation, strict=True):
            out = _out_size(size, k, s, p, d, ceil_mode)
            pos = np.arange(out)[:, None] * s - p + np.arange(k)[None, :] * d
            self.add(pos, (pos >= 0) & (pos < size), pos < size + p)
        return self

    @classmethod
    def adaptive(cls, sizes, output_size):
        self = cls(sizes)
        for size, out in zip(sizes, output_size, strict=True):
            o = np.arange(out)
            start, end = (o * size) // out, -((-(o + 1) * size) // out)
            k = int((end - start).max()) if out else 0
            pos = start[:, None] + np.arange(k)[None, :]
            valid = pos < end[:, None]
            self.add(pos, valid, valid)
        return self

    @property
    def out_shape(self):
        return tuple(p.shape[0] for p in self.positions)

    def cut(self, x):
        """x (N, C, *sizes) -> (N, C, *out, prod(k)): every window's taps (clamped)."""
        n = len(self.sizes)
        for i, (pos, size) in enumerate(zip(self.positions, self.sizes, strict=True)):
            index = ember.tensor(np.clip(pos, 0, size - 1).ravel(), device=x.device)
            x = x.index_select(2 + 2 * i, index).unflatten(2 + 2 * i, pos.shape)
        order = [0, 1, *range(2, 2 + 2 * n, 2), *range(3, 3 + 2 * n, 2)]
        return x.permute(order).flatten(2 + n)

    def mask(self, which, device):
        """The (*out, prod(k)) bool mask of the taps in `which` (valid or padded)."""
        n = len(which)
        mask = np.ones((), bool)
        for i, m in enumerate(which):
            shape = [1] * (2 * n)
            shape[i], shape[n + i] = m.shape
            mask = mask & m.reshape(shape)
        mask = np.broadcast_to(mask, self.out_shape + tuple(m.shape[1] for m in which))
        return ember.tensor(mask.reshape(self.out_shape + (-1,)), device=device)

    def max(self, x):
        """(values, indices into the flattened spatial input) of each window's maximum."""
        n = len(self.sizes)
        taps = self.cut(x.detach())
        if taps.shape[-1] == 0:
            raise RuntimeError("pooling window is empty")
        valid = self.mask(self.valid, x.device)
        lowest = float("-inf") if x.is_floating_point() else ember.iinfo(x.dtype).min
        local = taps.masked_fill(valid.logical_not(), lowest).argmax(-1)
        index = ember.zeros_like(local)
        widths = [p.shape[1] for p in self.positions]
        inner = math.prod(widths)
        for i, (pos, size) in enumerate(zip(self.positions, self.sizes, strict=True)):
            inner //= widths[i]
            k = (local // inner) % widths[i]
            o = ember.arange(pos.shape[0], device=x.device).view(
                (-1,) + (1,) * (n - 1 - i)) * widths[i]
            table = ember.tensor(pos, device=x.device)
            index = index * size + ember.take(table, o + k)
        flat = x.flatten(2)
        values = flat.gather(2, index.flatten(2)).view(index.shape)
        return values, index

    def mean(self, x, count_include_pad=True, divisor_override=None):
        """The average of each window (taps outside the input count as zeros)."""
        taps = self.cut(x)
        valid = self.mask(self.valid, x.device)
        total = taps.masked_fill(valid.logical_not(), 0).sum(-1)
        if divisor_override:
            if not x.is_floating_point():
                return ember.div(total, divisor_override, rounding_mode="trunc")
            return total / divisor_override
        counted = self.mask(self.padded if count_include_pad else self.valid, x.device)
        counted = counted.sum(-1).to(total.dtype)
        if not x.is_floating_point():   # torch's integer kernels truncate
            return ember.div(total, counted, rounding_mode="trunc")
        return total / counted


def _batched(input, n):
    """(input with a batch dim, whether it had one) for n spatial dims."""
    if input.dim() not in (n + 1, n + 2) or input.numel() == 0 and input.dim() == n + 1:
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for "
                           "input")
    return (input, True) if input.dim() == n + 2 else (input.unsqueeze(0), False)


def _unbatch(result, batched):
    return result if batched else result.squeeze(0)


def _check_pool(input, n, kernel, stride, padding, dilation, ceil_mode):
    """torch's pool{2,3}d_shape_check: positive sizes, padding at most half the (effective)
    kernel, a non-empty output. Returns the normalised arguments."""
    kernel = _tuple(kernel, n, "kernel_size")
    stride = kernel if stride is None or stride == () or stride == [] else \
        _tuple(stride, n, "stride")
    padding, dilation = _tuple(padding, n, "padding"), _tuple(dilation, n, "dilation")
    if any(k <= 0 for k in kernel):
        raise RuntimeError("kernel size should be greater than zero, but got "
                           + " ".join(f"k{i}: {k}" for i, k in enumerate(kernel)))
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(s < 0 for s in stride):
        raise RuntimeError("stride should be greater than zero")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    for k, p, d in zip(kernel, padding, dilation, strict=True):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError("pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    sizes = input.shape[-n:]
    out = [_out_size(size, k, s, p, d, ceil_mode)
           for size, k, s, p, d in zip(sizes, kernel, stride, padding, dilation, strict=True)]
    if any(o < 1 for o in out):
        lead = input.shape[-n - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (lead, *sizes)))}). "
                           f"Calculated output size: ({'x'.join(map(str, (lead, *out)))}). "
                           "Output size is too small")
    return kernel, stride, padding, dilation


def _max_pool(input, n, kernel_size, stride, padding, dilation, ceil_mode):
    x, batched = _batched(input, n)
    args = _check_pool(x, n, kernel_size, stride, padding, dilation, ceil_mode)
    values, index = _Windows.regular(x.shape[2:], *args, ceil_mode).max(x)
    return _unbatch(values, batched), _unbatch(index, batched)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """1-d max pooling returning (output, indices); stride defaults to kernel_size."""
    if _tf[0] and (result := _override("max_pool1d_with_indices", locals())) is not _NO:
        return result
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    stride = () if stride is None else _tuple(stride, 1, "stride")
    out, index = ember.max_pool2d_with_indices(
        input.unsqueeze(-2), (1, *_tuple(kernel_size, 1, "kernel_size")),
        (1, *stride) if stride else (), (0, *_tuple(padding, 1, "padding")),
        (1, *_tuple(dilation, 1, "dilation")), ceil_mode)
    return out.squeeze(-2), index.squeeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-d max pooling over (N, C, L) or (C, L); return_indices adds the argmax positions."""
    if _tf[0] and (result := _override("max_pool1d", locals())) is not _NO:
        return result
    result = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return result if return_indices else result[0]


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """3-d max pooling returning (output, indices into each flattened D*H*W input)."""
    if _tf[0] and (result := _override("max_pool3d_with_indices", locals())) is not _NO:
        return result
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-d max pooling over (N, C, D, H, W) or (C, D, H, W)."""
    if _tf[0] and (result := _override("max_pool3d", locals())) is not _NO:
        return result
    result = _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode)
    return result if return_indices else result[0]


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-d average pooling (torch's: avg_pool2d over a unit height)."""
    if _tf[0] and (result := _override("avg_pool1d", locals())) is not _NO:
        return result
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "avg_pool1d)")
    stride = () if stride is None else (1, *_tuple(stride, 1, "stride"))
    out = ember.avg_pool2d(input.unsqueeze(-2), (1, *_tuple(kernel_size, 1, "kernel_size")),
                           stride, (0, *_tuple(padding, 1, "padding")), ceil_mode,
                           count_include_pad)
    return out.squeeze(-2)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-d average pooling; stride defaults to kernel_size."""
    if _tf[0] and (result := _override("avg_pool3d", locals())) is not _NO:
        return result
    x, batched = _batched(input, 3)
    kernel, stride, padding, _ = _check_pool(x, 3, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    windows = _Windows.regular(x.shape[2:], kernel, stride, padding, (1, 1, 1), ceil_mode)
    return _unbatch(windows.mean(x, count_include_pad, divisor_override), batched)


def _adaptive_size(input, output_size, n, name):
    """The output size as n ints (None keeps the input's size)."""
    if isinstance(output_size, int):
        return (output_size,) * n
    output_size = tuple(output_size)
    if len(output_size) != n:
        if n == 1:
            raise RuntimeError(f"{name}() argument 'output_size' should contain one int "
                               f"(got {len(output_size)})")
        raise RuntimeError(f"{name}: internal error: output_size.size() must be {n}")
    return tuple(input.shape[i - n] if s is None else s for i, s in enumerate(output_size))


def _floating_only(input, kernel):
    """torch's error for the adaptive pools' missing integer kernels."""
    if not input.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{input.dtype.scalar_name}'")


def _adaptive_max(input, output_size, n, name):
    _floating_only(input, "adaptive_max_pool2d" if n < 3 else "adaptive_max_pool3d_cpu")
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    x, batched = _batched(input, n)
    size = _adaptive_size(x, output_size, n, name)
    values, index = _Windows.adaptive(x.shape[2:], size).max(x)
    return _unbatch(values, batched), _unbatch(index, batched)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """Max pooling of (N, C, L) or (C, L) to output_size windows; (values, indices)."""
    if _tf[0] and (result := _override("adaptive_max_pool1d_with_indices", locals())) is not _NO:
        return result
    return _adaptive_max(input, output_size, 1, "adaptive_max_pool1d")


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling to a fixed output length."""
    if _tf[0] and (result := _override("adaptive_max_pool1d", locals())) is not _NO:
        return result
    result = _adaptive_max(input, output_size, 1, "adaptive_max_pool1d")
    return result if return_indices else result[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """Max pooling to a fixed (H, W); (values, indices into each flattened H*W input)."""
    if _tf[0] and (result := _override("adaptive_max_pool2d_with_indices", locals())) is not _NO:
        return result
    return _adaptive_max(input, output_size, 2, "adaptive_max_pool2d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a fixed (H, W) output size; None keeps that input size."""
    if _tf[0] and (result := _override("adaptive_max_pool2d", locals())) is not _NO:
        return result
    result = _adaptive_max(input, output_size, 2, "adaptive_max_pool2d")
    return result if return_indices else result[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """Max pooling to a fixed (D, H, W); (values, indices into each flattened input)."""
    if _tf[0] and (result := _override("adaptive_max_pool3d_with_indices", locals())) is not _NO:
        return result
    return _adaptive_max(input, output_size, 3, "adaptive_max_pool3d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling to a fixed (D, H, W) output size."""
    if _tf[0] and (result := _override("adaptive_max_pool3d", locals())) is not _NO:
        return result
    result = _adaptive_max(input, output_size, 3, "adaptive_max_pool3d")
    return result if return_indices else result[0]


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of (N, C, L) or (C, L) to a fixed length (torch's: the 2-d op)."""
    if _tf[0] and (result := _override("adaptive_avg_pool1d", locals())) is not _NO:
        return result
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "adaptive_avg_pool1d)")
    size = _adaptive_size(input, output_size, 1, "adaptive_avg_pool1d")
    return ember.adaptive_avg_pool2d(input.unsqueeze(-2), (1, *size)).squeeze(-2)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of (N, C, D, H, W) or (C, D, H, W) to a fixed (D, H, W)."""
    if _tf[0] and (result := _override("adaptive_avg_pool3d", locals())) is not _NO:
        return result
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{list(input.shape)}")
    _floating_only(input, "adaptive_avg_pool3d_cpu")
    x, batched = _batched(input, 3)
    size = _adaptive_size(x, output_size, 3, "adaptive_avg_pool3d")
    return _unbatch(_Windows.adaptive(x.shape[2:], size).mean(x), batched)


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, n, avg_pool):
    """torch's lp_pool: (sum over the window of x^p)^(1/p), through average pooling."""
    kernel = _tuple(kernel_size, n, "kernel_size")
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 1-d windows."""
    if _tf[0] and (result := _override("lp_pool1d", locals())) is not _NO:
        return result
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, avg_pool1d)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 2-d windows."""
    if _tf[0] and (result := _override("lp_pool2d", locals())) is not _NO:
        return result
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, avg_pool2d)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 3-d windows."""
    if _tf[0] and (result := _override("lp_pool3d", locals())) is not _NO:
        return result
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, avg_pool3d)


# ---------------------------------------------------------------- max unpooling
def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """torch's _unpool_output_size: the inverse of max pooling's size, or output_size
    (checked to be within one stride of it)."""
    n = len(kernel_size)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for d in range(n):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f"{low} and {high})")
    return list(output_size)


def _max_unpool(input, indices, n, kernel_size, stride, padding, output_size):
    kernel = _tuple(kernel_size, n, "kernel_size")
    stride = kernel if stride is None else _tuple(stride, n, "stride")
    size = _unpool_output_size(input, kernel, stride, _tuple(padding, n, "padding"),
                               output_size)
    if indices.shape != input.shape:
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    lead, volume = input.shape[:-n], math.prod(size)
    if indices.numel():
        bad = indices[(indices < 0) | (indices >= volume)]
        if bad.numel():
            raise RuntimeError(f"Found an invalid max index: {int(bad[0])} (output volumes are "
                               f"of size {'x'.join(map(str, size))})")
    flat = ember.zeros((*lead, volume), dtype=input.dtype, device=input.device)
    out = flat.scatter(-1, indices.flatten(-n), input.flatten(-n))
    return out.view(*lead, *size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: each value back at its index, zeros elsewhere."""
    if _tf[0] and (result := _override("max_unpool1d", locals())) is not _NO:
        return result
    return _max_unpool(input, indices, 1, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d."""
    if _tf[0] and (result := _override("max_unpool2d", locals())) is not _NO:
        return result
    return _max_unpool(input, indices, 2, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d."""
    if _tf[0] and (result := _override("max_unpool3d", locals())) is not _NO:
        return result
    return _max_unpool(input, indices, 3, kernel_size, stride, padding, output_size)


# ---------------------------------------------------------------- fractional max pooling
# Graham's fractional max pooling: per input plane, a random sample u in [0, 1) per spatial
# dim places the windows at start_i = int((i + u) * alpha) - int(u * alpha), the last at
# size - k, with alpha = (size - k) / (out - 1) computed in the input's dtype (as torch's
# kernel). torch's max keeps the first maximum, or the last NaN.

def _fractional_starts(u, size, out, k):
    """(..., out) int64 window starts from the samples u (...) of one spatial dim."""
    dt = u.dtype
    alpha = ember.tensor(size - k, dtype=dt) / ember.tensor(max(out - 1, 1), dtype=dt)
    i = ember.arange(out - 1, dtype=dt, device=u.device)
    u = u.unsqueeze(-1)
    starts = ((i + u) * alpha).to(ember.int64) - (u * alpha).to(ember.int64)
    last = ember.full((*u.shape[:-1], min(out, 1)), size - k, dtype=ember.int64,
                      device=u.device)
    return ember.cat([starts, last], -1)


def _fractional_max_pool(input, kernel_size, output_size, samples, n):
    name = f"fractional_max_pool{n}d"
    count = "three Ints" if n == 3 else "Ints"
    kernel = _tuple_or_fail(kernel_size, n, f"{name}: kernel_size must either be a single Int "
                                            f"or tuple of {count}")
    out = _tuple_or_fail(output_size, n, f"{name}: output_size must either be a single Int or "
                                         f"tuple of {count}")
    where = f"{name}()" if n == 2 else f"{name}_out()"
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{where}: Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for i in range(1, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension {i} "
                               "being empty.")
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"{where}: kernel_size must be greater than zero, but got "
                           f"{list(kernel)}")
    sizes = input.shape[-n:]
    for label, size, k, o in zip(("time", "height", "width")[3 - n:], sizes, kernel, out,
                                 strict=True):
        if not (o + k - 1 < size if n == 3 else o + k - 1 <= size):  # (torch's 3-d: strict)
            raise RuntimeError(f"{where}: pool {label} {k} too large relative to input "
                               f"{label} {size}")
    x, batched = (input, True) if input.dim() == n + 2 else (input.unsqueeze(0), False)
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    if samples.shape[0] < x.shape[0]:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != x.shape[1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got "
                           f"{samples.shape[2]}.")
    samples = samples[:x.shape[0]].detach()
    # the flat index of every tap: (N, C, *out, *kernel); torch's samples run W, H for 2-d
    # and T, H, W for 3-d
    order = (1, 0) if n == 2 else (0, 1, 2)
    index = ember.zeros((), dtype=ember.int64, device=x.device)
    for d, (size, k, o) in enumerate(zip(sizes, kernel, out, strict=True)):
        pos = _fractional_starts(samples[..., order[d]], size, o, k).unsqueeze(-1) \
            + ember.arange(k, device=x.device)
        shape = [*x.shape[:2]] + [1] * (2 * n)
        shape[2 + d], shape[2 + n + d] = o, k
        index = index * size + pos.view(shape)
    index = index.expand(*x.shape[:2], *out, *kernel).flatten(2 + n)
    flat = x.flatten(2)
    taps = flat.detach().gather(2, index.flatten(2)).view(index.shape)
    nan = taps.isnan()
    last_nan = index.shape[-1] - 1 - nan.flip(-1).to(ember.uint8).argmax(-1)
    pick = ember.where(nan.any(-1), last_nan, taps.argmax(-1))
    index = index.gather(-1, pick.unsqueeze(-1)).squeeze(-1)
    values = flat.gather(2, index.flatten(2)).view(index.shape)
    return _unbatch(values, batched), _unbatch(index, batched)


def _tuple_or_fail(value, n, message):
    """An int per spatial dim from an int or a 1- or n-tuple; else torch's message."""
    value = (value,) if isinstance(value, int) else tuple(value)
    if len(value) not in (1, n):
        raise RuntimeError(message)
    return value * n if len(value) == 1 else value


def _fractional(input, kernel_size, output_size, output_ratio, _random_samples, n):
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an "
                         "output_ratio")
    if output_size is None:
        if n == 2 and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or "
                             "tuple of Ints.")
        ratio = tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) else \
            (output_ratio,) * n
        output_size = [int(input.size(i - n) * r) for i, r in enumerate(ratio)]
    if _random_samples is None:
        n_batch = 1 if input.dim() == n + 1 else input.size(0)
        _random_samples = ember.rand(n_batch, input.size(-n - 1), n, dtype=input.dtype,
                                     device=input.device)
    return _fractional_max_pool(input, kernel_size, output_size, _random_samples, n)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """2-d fractional max pooling of (N, C, H, W) or (C, H, W) to output_size (or
    output_ratio of the input size); (values, indices into each flattened H*W plane)."""
    if _tf[0] and (result := _override("fractional_max_pool2d_with_indices",
                                       locals())) is not _NO:
        return result
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """2-d fractional max pooling; `return_indices=True` also returns the indices."""
    if _tf[0] and (result := _override("fractional_max_pool2d", locals())) is not _NO:
        return result
    result = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return result if return_indices else result[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """3-d fractional max pooling of (N, C, T, H, W) or (C, T, H, W); (values, indices
    into each flattened T*H*W volume)."""
    if _tf[0] and (result := _override("fractional_max_pool3d_with_indices",
                                       locals())) is not _NO:
        return result
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """3-d fractional max pooling; `return_indices=True` also returns the indices."""
    if _tf[0] and (result := _override("fractional_max_pool3d", locals())) is not _NO:
        return result
    result = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return result if return_indices else result[0]
