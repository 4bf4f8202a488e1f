"""Convolution layers: Conv1d and Conv2d, with torch's parameters, initialisation and repr."""

from __future__ import annotations

import math

import ember

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import _uniform_bias_
from .module import Module

__all__ = ["Conv1d", "Conv2d"]

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
    """Conv1d and Conv2d (which set _dims and _conv): torch's signature and argument checks,
    parameters, reset_parameters, repr."""

    _dims = 0  # spatial dimensions
    _conv = None  # F.conv1d or F.conv2d

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
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
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = _reversed_padding_repeated_twice(
            padding, kernel_size, dilation
        )
        self.weight = Parameter(ember.empty(
            (out_channels, in_channels // groups, *kernel_size), device=device, dtype=dtype
        ))
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
