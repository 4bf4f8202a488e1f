"""Named tuples returned by ops with named outputs, like `torch.return_types`:
`ember.max(x, 0)` gives `ember.return_types.max(values=..., indices=...)`, a tuple whose
fields are also attributes. The out= variant's type is `<name>_out`.

    >>> r = ember.max(ember.tensor([1., 3.]), 0)
    >>> r.values, r.indices
    (tensor(3.), tensor(1))
"""
from __future__ import annotations

from collections import namedtuple

_TYPES: dict = {}


def _repr(self):
    fields = ",\n".join(f"{k}={v!r}" for k, v in zip(self._fields, self))
    return f"ember.return_types.{type(self).__name__}(\n{fields})"


def return_type(name: str, fields: tuple):
    """The named tuple class `name` with `fields` (one class per name)."""
    cls = _TYPES.get(name)
    if cls is None:
        cls = namedtuple(name, fields)
        cls.__module__ = __name__
        cls.__repr__ = _repr
        _TYPES[name] = cls
    return cls


def __getattr__(name):
    try:
        return _TYPES[name]
    except KeyError:
        raise AttributeError(f"module 'ember.return_types' has no attribute '{name}'") from None
