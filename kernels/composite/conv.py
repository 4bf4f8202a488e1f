"""conv1d/2d/3d (int and string padding), conv_transpose1d/2d/3d, max_pool2d, adaptive_avg_pool2d, pad and
one_hot, decomposed into ember ops like torch's CompositeImplicitAutograd kernels.

    >>> ember.conv2d(ember.ones(3, 5, 5), ember.ones(2, 3, 3, 3), padding="same").shape
    ember.Size([2, 5, 5])
"""
from __future__ import annotations

import warnings

import ember
from ember.kernels.common._pointwise import CPP_NAMES


def _batchify(input, spatial, name):
    """torch's batchify: (input with a batch dim, whether it had one)."""
    no_batch = spatial + 1
    batched = input.dim() == no_batch + 1
    if input.dim() != no_batch and not batched:
        raise RuntimeError(f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input "
                           f"to {name}, but got input of size: [{', '.join(map(str, input.shape))}]")
    return (input if batched else input.unsqueeze(0)), batched


def _check_bias(input, bias):
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({CPP_NAMES[input.dtype.name]}) and bias type "
                           f"({CPP_NAMES[bias.dtype.name]}) should be the same")


def _conv(input, weight, bias, stride, padding, dilation, groups, spatial, name):
    _check_bias(input, bias)
    x, batched = _batchify(input, spatial, name)
    out = ember.convolution(x, weight, bias, stride, padding, dilation, False, [0] * spatial,
                            groups)
    return out if batched else out.squeeze(0)


def conv1d(input, weight, bias, stride, padding, dilation, groups):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias, stride, padding, dilation, groups):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias, stride, padding, dilation, groups):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                    spatial, name):
    """torch's conv_transpose{1,2,3}d: convolution(transposed=True) with an optional batch."""
    x, batched = _batchify(input, spatial, name)
    out = ember.convolution(x, weight, bias, stride, padding, dilation, True, output_padding,
                            groups)
    return out if batched else out.squeeze(0)


def conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1, "conv_transpose1d")


def conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2, "conv_transpose2d")


def conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 3, "conv_transpose3d")


def _as_list(v, n):
    return [v] * n if isinstance(v, int) else list(v)


def _convolution_mode(input, weight, bias, stride, padding, dilation, groups):
    """torch's _convolution_mode: padding "valid" (none) or "same" (output size = input
    size; an odd total padding puts the extra element on the right, by a constant pad)."""
    dim = weight.dim() - 2
    if padding == "valid":
        return ember.convolution(input, weight, bias, stride, [0] * max(dim, 1), dilation, False,
                                 [0] * max(dim, 1), groups)
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in _as_list(stride, 1)):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    k = weight.dim()
    if k != input.dim():
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight"
                           f"[{', '.join(map(str, weight.shape))}], but got {input.dim()}-"
                           f"dimensional input of size [{', '.join(map(str, input.shape))}] "
                           "instead")
    dilation = _as_list(dilation, dim)
    if len(dilation) == 1:
        dilation = dilation * dim
    if len(dilation) != dim:
        raise RuntimeError(f"expected dilation to be a single integer value or a list of {dim} "
                           "values to match the convolution dimensions, but got "
                           f"dilation=[{', '.join(map(str, dilation))}]")
    pad_l, pad_nd, symmetric = [], [0] * (2 * dim), True
    for i in range(dim):
        total = dilation[i] * (weight.shape[i + 2] - 1)
        left = total // 2
        pad_l.append(left)
        if total - left != left:
            symmetric = False
    if not symmetric:
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                      "require a zero-padded copy of the input be created", stacklevel=2)
        for i in range(dim):
            total = dilation[i] * (weight.shape[i + 2] - 1)
            delta = (total - total // 2) - pad_l[i]
            idx = 2 * (dim - 1 - i)
            if delta > 0:
                pad_nd[idx + 1] = delta
            else:
                pad_nd[idx] = delta
                pad_l[i] += delta
        input = ember.constant_pad_nd(input, pad_nd, 0)
    return ember.convolution(input, weight, bias, stride, pad_l, dilation, False, [0] * dim,
                             groups)


def _conv_padding(input, weight, bias, stride, padding, dilation, groups, spatial, name):
    _check_bias(input, bias)
    x, batched = _batchify(input, spatial, name)
    out = _convolution_mode(x, weight, bias, stride, padding, dilation, groups)
    return out if batched else out.squeeze(0)


def conv1d_padding(input, weight, bias, stride, padding, dilation, groups):
    return _conv_padding(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d_padding(input, weight, bias, stride, padding, dilation, groups):
    return _conv_padding(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d_padding(input, weight, bias, stride, padding, dilation, groups):
    return _conv_padding(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


# ---------------------------------------------------------------- pooling
def max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode):
    return ember.max_pool2d_with_indices(self, kernel_size, stride, padding, dilation,
                                         ceil_mode)[0]


def adaptive_avg_pool2d(self, output_size):
    size = [output_size] if isinstance(output_size, int) else list(output_size)
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if size[0] < 0 or size[1] < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or "
                           f"equal to 0 but received {{{size[0]}, {size[1]}}}")
    if size == [1, 1]:
        return self.mean([-1, -2], True)
    return ember._adaptive_avg_pool2d(self, size)


# ---------------------------------------------------------------- padding
_NON_CONSTANT = ("Supported combinations for non-constant padding:\n"
                 "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                 "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                 "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _pad_index(n, before, after, mode, device):
    """The source positions of a reflect/replicate/circular padded dim of size n."""
    j = ember.arange(-before, n + after, device=device)
    if mode == "replicate":
        return j.clamp(0, n - 1)
    if mode == "circular":  # like torch: wraps within what negative pads leave of the dim
        lo = max(-before, 0)
        j = j - lo
        m = n - lo - max(-after, 0)
        return lo + j - j.div(m, rounding_mode="floor") * m
    # reflect: -j below 0, 2 (n - 1) - j above n - 1
    j = ember.where(j < 0, -j, j)
    return ember.where(j > n - 1, 2 * (n - 1) - j, j)


def pad(self, pad, mode, value):
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = list(pad)
    dim = self.dim()
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * dim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{dim}")
    if mode == "constant":
        return ember.constant_pad_nd(self, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if k not in (1, 2, 3) or dim not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {dim}D input "
                                  f"tensor.\n{_NON_CONSTANT}")
    if mode != "circular" and 0 in self.shape[dim - k - 1 if dim == k + 2 else 0:]:
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 "
                           "batch size and other non-zero dimensions for input, but got: "
                           f"[{', '.join(map(str, self.shape))}]")
    out = self
    for i in range(k):
        d = dim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        n = self.shape[d]
        if mode == "reflect" and (before >= n or after >= n):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({before}, {after}) at "
                               f"dimension {d} of input [{', '.join(map(str, self.shape))}]")
        kept = n - max(-before, 0) - max(-after, 0)  # (torch: garbage or an error past it)
        if mode == "circular" and (before > n or after > n or max(before, after) > kept):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if n + before + after < 1:
            raise RuntimeError(f"input (size {n}) is too small. Calculated output size: "
                               f"{n + before + after}")
        idx = _pad_index(n, before, after, mode, self.device)
        out = ember.index(out, [None] * d + [idx])
    return out


# ---------------------------------------------------------------- one_hot
def one_hot(self, num_classes):
    if self.dtype is not ember.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    shape = tuple(self.shape)
    if self.device.type == "meta":
        # torch's functional path: no value checks (num_classes=-1 needs the values)
        if num_classes == -1:
            num_classes = self.amax().item() + 1
        index = ember.arange(num_classes, device=self.device)
        return ember.eq(self.unsqueeze(-1), index).to(ember.int64)
    if self.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return ember.zeros(shape + (num_classes,), dtype=ember.int64, device=self.device)
    if (-self).amax().item() > 0:
        raise RuntimeError("Class values must be non-negative.")
    top = self.amax().item()
    if num_classes == -1:
        num_classes = top + 1
    elif num_classes <= top:
        raise RuntimeError("Class values must be smaller than num_classes.")
    index = ember.arange(num_classes, device=self.device)
    return ember.eq(self.unsqueeze(-1), index).to(ember.int64)
