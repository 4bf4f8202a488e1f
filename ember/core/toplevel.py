"""Plain functions at ember's top level that are not ops (torch.is_tensor, ...)."""
from __future__ import annotations

from .shapes import broadcast_shapes as _broadcast_shapes
from .tensor import Size, Tensor


def is_tensor(obj) -> bool:
    """Whether `obj` is an ember Tensor (subclasses included)."""
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def numel(input) -> int:
    return input.numel()


def broadcast_shapes(*shapes) -> Size:
    """The shape tensors of these shapes broadcast to (torch's error on a mismatch).

    >>> ember.broadcast_shapes((2, 1), (3,))
    ember.Size([2, 3])
    """
    return Size(_broadcast_shapes(*((s,) if isinstance(s, int) else tuple(s) for s in shapes)))
