"""Pooling layers: max, average, adaptive and power-average pooling in 1, 2 and 3 d."""

from __future__ import annotations

from .. import functional as F
from .conv import _ntuple
from .module import Module

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
    "FractionalMaxPool2d", "FractionalMaxPool3d",
    "LPPool1d", "LPPool2d", "LPPool3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d",
    "MaxUnpool2d", "MaxUnpool3d",
]


class _MaxPoolNd(Module):
    """Max pooling (subclasses set _pool); stride defaults to kernel_size."""

    _pool = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return self._pool(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """1-d max pooling over (N, C, L) or (C, L)."""

    _pool = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """2-d max pooling; stride defaults to kernel_size.

    >>> ember.nn.MaxPool2d(2)(ember.randn(1, 3, 8, 8)).shape
    ember.Size([1, 3, 4, 4])
    """

    _pool = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """3-d max pooling over (N, C, D, H, W) or (C, D, H, W)."""

    _pool = staticmethod(F.max_pool3d)


class AvgPool1d(Module):
    """1-d average pooling; torch keeps its sizes as 1-tuples."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = F._tuple(kernel_size, 1, "kernel_size")
        self.stride = F._tuple(stride if stride is not None else kernel_size, 1, "stride")
        self.padding = F._tuple(padding, 1, "padding")
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Module):
    """2-d and 3-d average pooling (subclasses set _pool); stride defaults to kernel_size."""

    _pool = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return self._pool(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """2-d average pooling; stride defaults to kernel_size.

    >>> ember.nn.AvgPool2d(3, stride=2, padding=1)(ember.randn(1, 3, 8, 8)).shape
    ember.Size([1, 3, 4, 4])
    """

    _pool = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    """3-d average pooling over (N, C, D, H, W) or (C, D, H, W)."""

    _pool = staticmethod(F.avg_pool3d)


class _AdaptivePoolNd(Module):
    """Pooling to a fixed output size (subclasses set _pool); None keeps that input size."""

    _pool = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return self._pool(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    """Adaptive max pooling; return_indices adds the argmax positions."""

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        return self._pool(input, self.output_size, self.return_indices)


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    """Average pooling to a fixed length."""

    _pool = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    """Average pooling to a fixed (H, W) output size; None keeps that input size.

    >>> ember.nn.AdaptiveAvgPool2d((1, 1))(ember.randn(2, 3, 7, 5)).shape
    ember.Size([2, 3, 1, 1])
    """

    _pool = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptivePoolNd):
    """Average pooling to a fixed (D, H, W) output size."""

    _pool = staticmethod(F.adaptive_avg_pool3d)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed length; return_indices adds the argmax positions."""

    _pool = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed (H, W) output size."""

    _pool = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed (D, H, W) output size."""

    _pool = staticmethod(F.adaptive_max_pool3d)


class _LPPoolNd(Module):
    """Power-average pooling (subclasses set _pool): (sum of x^p over a window)^(1/p)."""

    _pool = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return self._pool(input, float(self.norm_type), self.kernel_size, self.stride,
                          self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """Power-average pooling over 1-d windows."""

    _pool = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Power-average pooling over 2-d windows."""

    _pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over 3-d windows."""

    _pool = staticmethod(F.lp_pool3d)


class _MaxUnpoolNd(Module):
    """The partial inverse of max pooling (subclasses set _dims and _unpool)."""

    _dims = 0
    _unpool = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._dims
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = F._tuple(stride if stride is not None else kernel_size, n, "stride")
        self.padding = F._tuple(padding, n, "padding")

    def forward(self, input, indices, output_size=None):
        return self._unpool(input, indices, self.kernel_size, self.stride, self.padding,
                            output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Inverse of MaxPool1d (given its indices)."""

    _dims = 1
    _unpool = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Inverse of MaxPool2d (given its indices)."""

    _dims = 2
    _unpool = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Inverse of MaxPool3d (given its indices)."""

    _dims = 3
    _unpool = staticmethod(F.max_unpool3d)


class _FractionalMaxPoolNd(Module):
    """Fractional max pooling (subclasses set _n and _pool) to output_size, or to
    output_ratio (each in (0, 1)) of the input size; `_random_samples` (N, C, n), when
    given, fixes the windows' placement instead of drawing it each call."""

    _n = 2
    _pool = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        n, name = self._n, type(self).__name__
        if n == 3 and (isinstance(kernel_size, int) and kernel_size <= 0 or isinstance(
                kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a "
                             "pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return self._pool(input, self.kernel_size, self.output_size, self.output_ratio,
                          self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-d fractional max pooling (Graham, 2014) over (N, C, H, W) or (C, H, W)."""

    _n = 2
    _pool = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-d fractional max pooling over (N, C, T, H, W) or (C, T, H, W)."""

    _n = 3
    _pool = staticmethod(F.fractional_max_pool3d)
