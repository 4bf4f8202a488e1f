"""Convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d/3d, with torch's parameters,
initialisation and repr."""

from __future__ import annotations

import math

import ember

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import _uniform_bias_
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(value, n):
    """(v,) * n for a single int, else the value as a tuple: _ntuple(3, 2) == (3, 3)."""
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


def _reversed_padding_repeated_twice(padding, kernel_size, dilation):
    """The F.pad argument for a padding mode other than zeros: pairs from the last dim back.

    'same' splits dilation * (k - 1) with the extra element on the right, like torch.
    """
    if padding == "valid":
        return [0, 0] * len(kernel_size)
    if padding == "same":
        pads = []
        for d, k in zip(reversed(dilation), reversed(kernel_size), strict=True):
            total = d * (k - 1)
            pads += [total // 2, total - total // 2]
        return pads
    return [p for p in reversed(padding) for _ in range(2)]


class _ConvNd(Module):
    """The convolutions (which set _dims and _conv): torch's signature and argument checks,
    parameters, reset_parameters, repr."""

    _dims = 0  # spatial dimensions
    _conv = None  # F.conv1d, F.conv_transpose2d ...
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None,
                 output_padding=0):
        super().__init__()
        n = self._dims
        kernel_size, stride, dilation = (_ntuple(v, n) for v in (kernel_size, stride, dilation))
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = _reversed_padding_repeated_twice(
            padding, kernel_size, dilation
        )
        channels = ((in_channels, out_channels // groups) if self.transposed
                    else (out_channels, in_channels // groups))
        self.weight = Parameter(ember.empty((*channels, *kernel_size), device=device,
                                            dtype=dtype))
        if bias:
            self.bias = Parameter(ember.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """torch's default: kaiming_uniform_(a=sqrt(5)) weight, bias U(-1/sqrt(fan_in), ...)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            _uniform_bias_(self.bias, self.weight)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self._conv(input, weight, bias, self.stride, 0, self.dilation, self.groups)
        return self._conv(input, weight, bias, self.stride, self.padding, self.dilation,
                          self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    """1-d convolution over (N, C_in, L) or (C_in, L) inputs.

    >>> conv = ember.nn.Conv1d(4, 8, 3, padding="same")
    >>> conv(ember.randn(2, 4, 10)).shape
    ember.Size([2, 8, 10])
    """

    _dims = 1
    _conv = staticmethod(F.conv1d)


class Conv2d(_ConvNd):
    """2-d convolution over (N, C_in, H, W) or (C_in, H, W) inputs.

    >>> conv = ember.nn.Conv2d(3, 16, kernel_size=3, stride=2, padding=1)
    >>> conv(ember.randn(1, 3, 28, 28)).shape
    ember.Size([1, 16, 14, 14])
    """

    _dims = 2
    _conv = staticmethod(F.conv2d)


class Conv3d(_ConvNd):
    """3-d convolution over (N, C_in, D, H, W) or (C_in, D, H, W) inputs."""

    _dims = 3
    _conv = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    """The transposed convolutions: weight (in_channels, out_channels // groups, *kernel);
    forward's output_size picks the output_padding that reaches it."""

    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, output_padding)

    def _output_padding(self, input, output_size, stride, padding, kernel_size,
                        num_spatial_dims, dilation=None):
        """self.output_padding, or the one that makes the output output_size."""
        if output_size is None:
            return list(self.output_padding)
        non_spatial = 2 if input.dim() == num_spatial_dims + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must "
                f"have {num_spatial_dims} or {non_spatial + num_spatial_dims} elements (got "
                f"{len(output_size)})")
        min_sizes = [(input.shape[d + non_spatial] - 1) * stride[d] - 2 * padding[d]
                     + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1
                     for d in range(num_spatial_dims)]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, stride, strict=True)]
        for size, lo, hi in zip(output_size, min_sizes, max_sizes, strict=True):
            if size < lo or size > hi:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{min_sizes} to {max_sizes} (for an input of {input.shape[2:]})")
        return [size - lo for size, lo in zip(output_size, min_sizes, strict=True)]

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, self._dims, self.dilation)
        return self._conv(input, self.weight, self.bias, self.stride, self.padding,
                          output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution (the gradient of Conv1d with respect to its input)."""

    _dims = 1
    _conv = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution, e.g. DCGAN's upsampling generator layers.

    >>> up = ember.nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1)
    >>> up(ember.randn(1, 8, 5, 5)).shape
    ember.Size([1, 4, 10, 10])
    """

    _dims = 2
    _conv = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution."""

    _dims = 3
    _conv = staticmethod(F.conv_transpose3d)
