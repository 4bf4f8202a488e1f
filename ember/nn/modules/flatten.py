"""Flatten and Unflatten.

    >>> nn.Flatten()(ember.zeros(2, 3, 4)).shape
    ember.Size([2, 12])
    >>> nn.Unflatten(1, (3, 4))(ember.zeros(2, 12)).shape
    ember.Size([2, 3, 4])
"""
from __future__ import annotations

from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flattens dims `start_dim`..`end_dim` into one (the batch dim stays by default)."""

    __constants__ = ("start_dim", "end_dim")

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dim `dim` into the shape `unflattened_size`."""

    __constants__ = ("dim", "unflattened_size")

    def __init__(self, dim: int, unflattened_size):
        super().__init__()
        if not isinstance(dim, int):
            raise TypeError("invalid argument type for dim parameter")
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for idx, elem in enumerate(unflattened_size):
            if not isinstance(elem, int):
                raise TypeError("unflattened_size must be tuple of ints, but found element of "
                                f"type {type(elem).__name__} at pos {idx}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
