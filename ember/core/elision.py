"""Temporary elision for large elementwise expressions, as NumPy does it: in `a * b + c`
the product is a temporary nothing else refers to, so the sum can be written into it
instead of into a fresh array (one allocation less; for 10M floats, 40 MB of pages the
kernel would zero on first touch). The generated `__add__`, `__sub__`, `__mul__` and
`__truediv__` call the in-place op instead of the functional one when

    getrefcount(self) == TEMP_REFS and reusable(self, other)

(the count is read by `binary_keys`, which also gives the dunder its keyset)

(`__add__` and `__mul__` also try `other`, as in `c + a * b`: `reusable(other, self,
swapped=True)`). Why this cannot change a value anyone else sees, with t the operand
written into and (lhs, rhs) the dunder's operands:

1. Counts are exact (refcounts.EXACT: CPython 3.11-3.13 with the GIL) and
   getrefcount(t) is 3, so t has exactly three owners. C code holding t without owning
   it (NumPy's object loop holding an array's elements) borrows from an owner, so
   whatever can reach t reaches it through one of the three.
2. Two are known: getrefcount's own argument and the dunder's parameter.
3. The third is the interpreter's value stack: the Python frame below the dunder is
   executing BINARY_OP and the two stack slots of that instruction's operands hold
   exactly (lhs, rhs). refcounts.binary_operands reads them at the depth the compiler
   fixed for that instruction (not values left above the live stack). So no variable,
   container (list, dict, tuple, NumPy object array, the argument tuple of a map,
   reduce or partial call) or C structure owns t: it would be a fourth reference. A
   count alone cannot tell the stack slot from such an owner: NumPy's object loop calls
   `arr[0] + 1.0` with a count of 3, and the user's `arr + 1.0` is the BINARY_OP below,
   but its operands are (arr, 1.0).
4. Only that BINARY_OP uses its stack slot: it calls PyNumber_<op>(lhs, rhs), which for
   operands of class Tensor (or a Tensor and a float or int) goes straight to Tensor's
   type slot and the generated dunder; when that returns, BINARY_OP drops both operands
   and keeps the result. Nothing reads t's old values after the in-place op.

reusable also makes sure no other tensor shares t's memory (a view, a storage object,
autograd metadata, a weak reference) and that the result has t's dtype and shape. Not
covered, as in NumPy: introspection that makes references from nothing (gc.get_objects,
a tracer reading frame locals).

NumPy (temp_elide.c) checks the C stack instead: only the Python binary or libpython
between its ufunc and the interpreter loop. That is weaker: with a
`functools.partial(operator.add, big)` as some class's `__radd__`, `1.0 + w` reaches
the operator through libpython only, with `big` owned by the partial, and NumPy 2.4
overwrites `big`. Where the stack cannot be read (refcounts.STACK_READABLE false: other
Python versions, free-threaded or 32-bit builds, a frame layout refcounts' import-time
self-test does not confirm) TEMP_REFS is 0, which no reference count equals: no elision.
"""
from __future__ import annotations

import sys
from weakref import getweakrefcount

from .._accel import speedups
from ..dispatch import keys as K
from ..dispatch.tls import state as _tls
from . import dtype as D
from .refcounts import STACK_READABLE, binary_operands
from .tensor import CPU_KS, Tensor

# getrefcount's own argument + the dunder's parameter + the interpreter's stack slot
TEMP_REFS = 3 if STACK_READABLE else 0
MIN_BYTES = 256 * 1024          # NumPy's threshold: below it, allocating is cheap
_NO_KEYS = (0, K.FULL)          # no dispatch keys included or excluded (no modes)
_getrefcount = sys.getrefcount


def py_binary_keys(t, other, include, keep) -> int:
    """An arithmetic dunder's dispatch keyset, `(t._ks | other's keys | include) & keep`, when
    `other` is a Tensor or a float or int (-4 when it is anything else: the dunder computes
    it, with its errors); but first, minus the bits of its large temporary operands (-1 for
    self `t`, -2 for `other`, -3 both): each with exactly TEMP_REFS owners (counted as from
    the dunder, so one more here: this function's own parameter) and an array of at least
    MIN_BYTES; `reusable` then decides. ember/_speedups.c has the same function in C (a C
    call adds no reference), which the generated dunders use when built.

    >>> py_binary_keys(ember.ones(3), 2.0, 0, -1) == ember.ones(3)._ks
    True
    """
    refs = TEMP_REFS + 1
    bits = 0
    if TEMP_REFS and _getrefcount(t) == refs and isinstance(t, Tensor) and t._np is not None \
            and t._np.nbytes >= MIN_BYTES:
        bits = 1
    if TEMP_REFS and _getrefcount(other) == refs and other.__class__ is Tensor and \
            other._np is not None and other._np.nbytes >= MIN_BYTES:
        bits |= 2
    if bits:
        return -bits
    if not isinstance(t, Tensor):
        return -4
    cls = other.__class__
    if cls is Tensor:
        return (t._ks | other._ks | include) & keep
    if cls is float or cls is int:
        return (t._ks | include) & keep
    return -4


binary_keys = py_binary_keys
if speedups is not None:
    speedups.set_elision(TEMP_REFS, MIN_BYTES)
    binary_keys = speedups.binary_keys


def reusable(t, other, swapped=False) -> bool:
    """Whether the dunder's result may be computed into `t`'s array, `t` being its self
    (its other when `swapped`) and known to have TEMP_REFS references: `t` is a plain
    CPU float tensor of at least MIN_BYTES that alone owns its writeable C-contiguous
    array (no view, storage object, autograd metadata or weak reference), `other` gives
    a result of t's dtype and shape (a Python number, or a tensor of t's dtype and shape
    or 0-d that needs no gradient), no dispatch mode is active, and the caller's frame
    is at the BINARY_OP whose operands are the dunder's (point 3 above)."""
    if t.__class__ is not Tensor:
        return False
    a = t._np
    # refs to `a`: t._np (and t._contig when it marks `a`), this local, the argument
    if a is None or a.nbytes < MIN_BYTES or t._ks != CPU_KS \
            or t._dtype.category != D.FLOAT or t._base is not None or t._ag is not None \
            or t._storage is not None or a.base is not None or not a.flags.c_contiguous \
            or not a.flags.writeable or _getrefcount(a) != 3 + (t._contig is a) \
            or getweakrefcount(t) or _tls.masks != _NO_KEYS:
        return False
    if other.__class__ is Tensor:
        if other._dtype is not t._dtype or other._ks & (K.AUTOGRAD_BIT | K.PYTHON_BIT) or \
                other._device is not t._device or (other._shape != t._shape and other._shape):
            return False
    elif other.__class__ is not float and other.__class__ is not int:
        return False
    operands = (id(other), id(t)) if swapped else (id(t), id(other))
    return binary_operands(sys._getframe(2)) == operands
