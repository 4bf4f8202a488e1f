"""Temporary elision for large elementwise expressions, as NumPy does it: in `a * b + c`
the product is a temporary nothing else refers to, so the sum can be written into it
instead of into a fresh array (one allocation less; for 10M floats, 40 MB of pages the
kernel would zero on first touch). The generated `__add__`, `__sub__`, `__mul__` and
`__truediv__` call the in-place op instead of the functional one when

    getrefcount(self) == TEMP_REFS and reusable(self, other)

(`__add__` and `__mul__` also try `other`, as `c + a * b`). A temporary is recognised
like NumPy recognises it: only the interpreter's stack and the dunder's argument refer
to it, and the dunder was entered from a binary operator (an explicit `t.__add__(u)`
on a named `t` has the same count but is a CALL). Python versions whose reference
counts work differently (3.14 borrows stack references, free-threaded builds) never
elide: TEMP_REFS is then 0, which no reference count equals.
"""
from __future__ import annotations

import dis
import sys
import sysconfig
from weakref import getweakrefcount

from ..dispatch import keys as K
from ..dispatch.tls import state as _tls
from . import dtype as D
from .tensor import CPU_KS, Tensor

_SUPPORTED = (3, 11) <= sys.version_info < (3, 14) and \
    not sysconfig.get_config_var("Py_GIL_DISABLED")
# getrefcount's own argument + the dunder's parameter + the interpreter's stack slot
TEMP_REFS = 3 if _SUPPORTED else 0
MIN_BYTES = 256 * 1024          # NumPy's threshold: below it, allocating is cheap
_BINARY_OP = dis.opmap.get("BINARY_OP")
_NO_KEYS = (0, K.FULL)          # no dispatch keys included or excluded (no modes)
_getrefcount = sys.getrefcount


def reusable(t, other) -> bool:
    """Whether `t op other` may be computed into `t`'s array: `t` (known to be a
    temporary by its reference count) is a plain CPU float tensor of at least MIN_BYTES
    that alone owns its writeable C-contiguous array (no view, storage object, autograd
    metadata or weak reference), `other` gives a result of t's dtype and shape (a
    Python number, or a tensor of t's dtype and shape or 0-d that needs no gradient),
    no dispatch mode is active, and the dunder was entered from a binary operator."""
    if t.__class__ is not Tensor:
        return False
    a = t._np
    if a is None or a.nbytes < MIN_BYTES or t._ks != CPU_KS \
            or t._dtype.category != D.FLOAT or t._base is not None or t._ag is not None \
            or t._storage is not None or a.base is not None or not a.flags.c_contiguous \
            or not a.flags.writeable or _getrefcount(a) != 3 or getweakrefcount(t) \
            or _tls.masks != _NO_KEYS:      # refs to `a`: t._np, this local, the argument
        return False
    if other.__class__ is Tensor:
        if other._dtype is not t._dtype or other._ks & (K.AUTOGRAD_BIT | K.PYTHON_BIT) or \
                other._device is not t._device or (other._shape != t._shape and other._shape):
            return False
    elif other.__class__ is not float and other.__class__ is not int:
        return False
    caller = sys._getframe(2)
    return caller.f_code.co_code[caller.f_lasti] == _BINARY_OP
