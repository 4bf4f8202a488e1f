"""Linear functions: linear (the op itself) and bilinear."""
from __future__ import annotations

import ember
from ember._generated import functions as _generated

from ._common import _NO, _override, _tf

#: ``linear(input, weight, bias=None) -> Tensor``: y = x W^T + b (aten::linear).
linear = _generated.linear


def bilinear(input1, input2, weight, bias=None):
    """y = x1^T A x2 + b over the last dimension, weight (out, in1, in2).

    >>> F.bilinear(ember.randn(4, 2), ember.randn(4, 3), ember.randn(5, 2, 3)).shape
    ember.Size([4, 5])
    """
    if _tf[0] and (result := _override("bilinear", locals())) is not _NO:
        return result
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            "bilinear(): input batch dimensions do not match: got "
            f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}"
        )
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, got {weight.dim()}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} "
            f"but expected {weight.shape[1]}"
        )
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} "
            f"but expected {weight.shape[2]}"
        )
    output = ember.einsum("...i,oij,...j->...o", input1, weight, input2)
    return output if bias is None else output + bias
