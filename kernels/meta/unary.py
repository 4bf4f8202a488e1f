"""Meta kernels of the unary family: layouts and torch's dtype checks, shared
with the CPU kernels of kernels/cpu/unary.py so both backends agree.

The float ops (exp, log, sin, sqrt, erf, ...) use `unary_float`; the others keep the input's dtype (with torch's dtype restrictions) or give a bool result.
Their in-place forms are derived by the generator (functional, then copy into self).

    >>> floor(empty_meta((2,), D.bool_))
    Traceback (most recent call last):
    NotImplementedError: "floor_vml_cpu" not implemented for 'Bool'
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.kernels.common import _pointwise as P
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.meta._pointwise import Layout, _layout, _meta

_FLOATS = frozenset(d for d in D.ALL_DTYPES if d.category == D.FLOAT)
_NOT_FLOAT = frozenset(D.ALL_DTYPES) - _FLOATS
_BOOL = frozenset((D.bool_,))

# op: (torch's kernel name in its "not implemented" error, the dtypes it rejects)
CHECKS = {
    "abs": ("abs_cpu", _BOOL),
    "floor": ("floor_vml_cpu", _BOOL),
    "ceil": ("ceil_vml_cpu", _BOOL),
    "round": ("round_vml_cpu", _BOOL),
    "round_decimals": ("round_cpu", _NOT_FLOAT),
    "trunc": ("trunc_vml_cpu", _BOOL),
    "frac": ("frac_cpu", _NOT_FLOAT),
    "bitwise_not": ("bitwise_not_cpu", _FLOATS),
}


def check(op, self) -> None:
    """torch's NotImplementedError when `op` has no kernel for self's dtype."""
    name, rejected = CHECKS[op]
    if self._dtype in rejected:
        raise not_implemented_for(name, self._dtype)


def layout(self, dt=None) -> Layout:
    """A unary result: self's shape and (elementwise) layout, dtype `dt` or self's."""
    shape, stride = P.out_layout(self)
    return Layout(shape, stride, self._dtype if dt is None else dt)


def checked_layout(op, self) -> Layout:
    check(op, self)
    return layout(self)


def bool_layout(self) -> Layout:
    return layout(self, D.bool_)


def _alloc(lay: Layout):
    return empty_meta(lay._shape, lay._dtype, lay._stride)


def _same(op):
    def kernel(self, *args):
        return _alloc(checked_layout(op, self))
    kernel.__name__ = op
    return kernel




def abs(self):
    """abs keeps the dtype, but a complex input gives its real dtype."""
    check("abs", self)
    return _alloc(layout(self, self._dtype.to_real()))


floor = _same("floor")
ceil = _same("ceil")
round = _same("round")
round_decimals = _same("round_decimals")
trunc = _same("trunc")
frac = _same("frac")
bitwise_not = _same("bitwise_not")


def unary_bool(self):
    """logical_not, isnan, isinf, isfinite, signbit: a bool result of self's layout."""
    return _alloc(bool_layout(self))


def nan_to_num(self, nan=None, posinf=None, neginf=None):
    return _alloc(layout(self))


# --- layouts and kernels shared by the elementwise unary ops -------------------------
def same_layout(self) -> Layout:
    """relu-like unary ops: same dtype and layout as the input."""
    return _layout(self._dtype, self)


def neg_layout(self) -> Layout:
    P.check_bool_neg(self)
    return _layout(self._dtype, self)


def float_layout(self) -> Layout:
    """exp, log, sigmoid, tanh: integral inputs give the default float dtype (cast to it
    first on the CPU, as torch's TensorIterator does)."""
    dt = P.float_result(self._dtype)
    return _layout(dt, self, cast_to=dt)


def unary_same(self):
    return _meta(same_layout(self))


def neg(self):
    return _meta(neg_layout(self))


def unary_float(self):
    return _meta(float_layout(self))


def unary_inplace(self):
    return self
