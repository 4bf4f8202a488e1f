"""Convolution functions (the ops themselves: conv1d/2d/3d, conv_transpose1d/2d/3d) and pad."""
from __future__ import annotations

from ember._generated import functions as _generated

#: ``conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``;
#: padding may also be 'valid' or 'same'.
conv1d = _generated.conv1d

#: ``conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``;
#: padding may also be 'valid' or 'same'.
conv2d = _generated.conv2d

#: ``conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``;
#: padding may also be 'valid' or 'same'.
conv3d = _generated.conv3d

#: ``conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
#: groups=1, dilation=1)``; weight is (in_channels, out_channels // groups, k).
conv_transpose1d = _generated.conv_transpose1d

#: ``conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
#: groups=1, dilation=1)``.
conv_transpose2d = _generated.conv_transpose2d

#: ``conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
#: groups=1, dilation=1)``.
conv_transpose3d = _generated.conv_transpose3d

#: ``pad(input, pad, mode='constant', value=None)``; pad lists (left, right) pairs from
#: the last dimension backwards.
pad = _generated.pad
