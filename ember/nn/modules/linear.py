"""Linear, Bilinear and Identity.

    >>> lin = nn.Linear(64, 128)
    >>> lin
    Linear(in_features=64, out_features=128, bias=True)
    >>> lin(ember.randn(32, 64)).shape
    ember.Size([32, 128])
"""
from __future__ import annotations

import math

import ember

from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Bilinear", "Identity", "Linear", "NonDynamicallyQuantizableLinear"]


class Identity(Module):
    """Returns its input; takes (and ignores) any constructor arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """`y = x @ weight.T + bias`, weight (out_features, in_features) initialised like torch:
    kaiming_uniform_(a=sqrt(5)), bias from U(-1/sqrt(in_features), 1/sqrt(in_features))."""

    __constants__ = ("in_features", "out_features")

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(ember.empty((out_features, in_features), device=device,
                                            dtype=dtype))
        if bias:
            self.bias = Parameter(ember.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            _uniform_bias_(self.bias, self.weight)

    def forward(self, input):
        return ember.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


def _uniform_bias_(bias, weight) -> None:
    """torch's default bias init: U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    init.uniform_(bias, -bound, bound)


class Bilinear(Module):
    """`y[..., o] = x1 @ weight[o] @ x2 + bias[o]`, weight (out, in1, in2), all initialised
    from U(-1/sqrt(in1), 1/sqrt(in1)) like torch."""

    __constants__ = ("in1_features", "in2_features", "out_features")

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(ember.empty((out_features, in1_features, in2_features),
                                            device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(ember.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        if input1.shape[:-1] != input2.shape[:-1]:
            raise RuntimeError("bilinear(): input batch dimensions do not match: got "
                               f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}")
        for i, (x, n) in enumerate(((input1, self.in1_features), (input2, self.in2_features))):
            if x.dim() == 0 or x.shape[-1] != n:
                raise RuntimeError(f"bilinear(): input{i + 1} size does not match weight size: "
                                   f"got {x.shape[-1] if x.dim() else 0} but expected {n}")
        out = ember.einsum("...i,oij,...j->...o", input1, self.weight, input2)
        return out if self.bias is None else out + self.bias

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """The Linear MultiheadAttention keeps as out_proj (torch's name, shown by repr, and
    its place: torch.nn.modules.linear)."""
