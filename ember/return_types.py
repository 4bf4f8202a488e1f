"""Named tuples returned by ops with several named outputs, like `torch.return_types`:
`ember.sort(x)` gives `ember.return_types.sort(values=..., indices=...)`, and the out=
form (`out=(values, indices)`) gives `ember.return_types.sort_out`.

    >>> ember.return_types.sort._fields
    ('values', 'indices')
"""
from __future__ import annotations

from collections import namedtuple


def return_type(name: str, fields: tuple):
    """The named tuple type `name` with `fields` (made once, then kept in this module)."""
    t = globals().get(name)
    if t is None:
        t = namedtuple(name, fields)
        t.__module__ = __name__
        t.__qualname__ = name
        globals()[name] = t
    return t


def out_tuple(out, n: int, op: str):
    """The `out=` argument of an op with `n` outputs: a tuple (or list) of `n` tensors."""
    if not isinstance(out, (tuple, list)) or len(out) != n:
        raise TypeError(f"{op}(): argument 'out' must be tuple of Tensors of length {n}, "
                        f"not {type(out).__name__}")
    return out
