"""parameters_to_vector / vector_to_parameters (like torch.nn.utils).

    >>> lin = nn.Linear(3, 2)
    >>> parameters_to_vector(lin.parameters()).shape
    ember.Size([8])
"""
from __future__ import annotations

import ember

from ...core.tensor import Tensor


def parameters_to_vector(parameters):
    """One 1-D tensor: the parameters flattened and concatenated (differentiable)."""
    return ember.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters) -> None:
    """Copies slices of the 1-D `vec` into `parameters` (replacing their `.data`)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[offset:offset + n].view_as(param).data
        offset += n
