"""Nested lists, tuples (named ones too) and dicts of tensors: mapped, or flattened into their
tensors and a spec to rebuild them (torch.utils._pytree's place, for tensor leaves).

    >>> leaves, spec = tree_flatten((ember.ones(1), {"k": [ember.zeros(1), 3]}))
    >>> len(leaves), tree_unflatten(leaves, spec)[1]["k"][1]
    (2, 3)
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.tensor import Tensor


def _rebuild(obj, items):
    return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)


def tree_map(fn, obj):
    """`fn` applied to every tensor in `obj`; the structure and other values stay."""
    if isinstance(obj, Tensor):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        return _rebuild(obj, [tree_map(fn, x) for x in obj])
    if isinstance(obj, dict):
        return {k: tree_map(fn, v) for k, v in obj.items()}
    return obj


@dataclass(frozen=True)
class LeafSpec:
    """Where a tensor sat: its index in the flat list."""
    index: int


def tree_flatten(obj):
    """(the tensors of `obj` in order, a spec: `obj` with each tensor a LeafSpec)."""
    leaves: list = []

    def leaf(t):
        leaves.append(t)
        return LeafSpec(len(leaves) - 1)
    return leaves, tree_map(leaf, obj)


def tree_unflatten(leaves, spec):
    """The structure of `spec` with its LeafSpecs replaced by `leaves`."""
    if isinstance(spec, LeafSpec):
        return leaves[spec.index]
    if isinstance(spec, (list, tuple)):
        return _rebuild(spec, [tree_unflatten(leaves, x) for x in spec])
    if isinstance(spec, dict):
        return {k: tree_unflatten(leaves, v) for k, v in spec.items()}
    return spec
