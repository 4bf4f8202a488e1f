"""Convolution functions (the ops themselves) and pad."""
from __future__ import annotations

from ember._generated import functions as _generated

#: ``conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``;
#: padding may also be 'valid' or 'same'.
conv1d = _generated.conv1d

#: ``conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``;
#: padding may also be 'valid' or 'same'.
conv2d = _generated.conv2d

#: ``pad(input, pad, mode='constant', value=None)``; pad lists (left, right) pairs from
#: the last dimension backwards.
pad = _generated.pad
