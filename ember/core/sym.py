"""Where the core learns of symbolic sizes: ember.fx.experimental.symbolic_shapes registers
its SymInt class here when imported, so the core never imports sympy and pays one empty
check when no symbolic size exists.

    >>> is_symint(3)
    False
"""
from __future__ import annotations

import operator

SYM_INT_TYPES: tuple = ()
SYM_SCALAR_TYPES: tuple = ()      # SymInt and SymFloat: symbolic Scalars (`x.shape[-1] ** 0.5`)


def register_symint_type(cls) -> None:
    global SYM_INT_TYPES
    SYM_INT_TYPES = (*SYM_INT_TYPES, cls)


def register_sym_scalar_type(cls) -> None:
    global SYM_SCALAR_TYPES
    SYM_SCALAR_TYPES = (*SYM_SCALAR_TYPES, cls)


def is_sym_scalar(x) -> bool:
    """Whether `x` is a symbolic int or float (a Scalar argument kept symbolic)."""
    return isinstance(x, SYM_SCALAR_TYPES)


def is_symint(x) -> bool:
    return isinstance(x, SYM_INT_TYPES)


def index_or_symint(x):
    """operator.index(x), or x itself when it is a symbolic int (kept, not guarded)."""
    return x if isinstance(x, SYM_INT_TYPES) else operator.index(x)
