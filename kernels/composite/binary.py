"""where with Python numbers (CompositeImplicitAutograd, like torch): where.self with the
number in place of a tensor, so autograd comes from where.self.

    >>> where_scalar(ember.tensor([True, False]), 1, 2.5).tolist()
    [1.0, 2.5]
"""
import ember


def where_scalar_self(condition, self, other):
    return ember.ops.aten.where.self(condition, self, other)


def where_scalar_other(condition, self, other):
    return ember.ops.aten.where.self(condition, self, other)


def where_scalar(condition, self, other):
    """Both numbers: torch makes them 0-dim tensors of their result type."""
    return ember.ops.aten.where.self(condition, self, other)
