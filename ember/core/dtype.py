"""Data types and PyTorch's type promotion.

    >>> import ember
    >>> ember.promote_types(ember.uint8, ember.int8)
    ember.int16
    >>> ember.result_type(ember.ones(2, dtype=ember.int32), 2.5)
    ember.float32
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

# Categories, lowest to highest: a Python scalar or a 0-dim tensor only wins
# when its category is higher than the dimensioned operands' category.
BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3


_SCALAR_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                 "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
                 "float64": "Double", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


class dtype:
    """An element type. One instance per type: compare with `is` or `==`."""

    __slots__ = (
        "_rank",
        "category",
        "differentiable",
        "is_complex",
        "is_floating_point",
        "is_signed",
        "itemsize",
        "name",
        "np",
        "scalar_name",
    )

    def __init__(self, name, np_dtype, category, rank):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.category = category
        self.is_floating_point = category == FLOAT
        self.is_complex = category == COMPLEX
        self.differentiable = category >= FLOAT  # what autograd can track (torch's rule)
        self.is_signed = name not in ("bool", "uint8")
        self.scalar_name = _SCALAR_NAMES[name]  # torch's C++ name, used in its error messages
        self._rank = rank

    def __repr__(self):
        return f"ember.{self.name}"

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_real(self):
        """The real counterpart of a complex dtype (complex64 -> float32); others unchanged."""
        return _REAL_OF.get(self, self)

    def to_complex(self):
        """The complex counterpart of a floating dtype (float64 -> complex128)."""
        if self.is_complex:
            return self
        try:
            return _COMPLEX_OF[self]
        except KeyError:    # (torch's complex32: its CPU kernels refuse it, the same type)
            raise NotImplementedError(f"ember has no complex counterpart of {self!r} (torch's "
                                      "'ComplexHalf' is not implemented)") from None


bool_ = dtype("bool", np.bool_, BOOL, 0)
uint8 = dtype("uint8", np.uint8, INT, 1)
int8 = dtype("int8", np.int8, INT, 2)
int16 = dtype("int16", np.int16, INT, 3)
int32 = dtype("int32", np.int32, INT, 4)
int64 = dtype("int64", np.int64, INT, 5)
float16 = dtype("float16", np.float16, FLOAT, 6)
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, FLOAT, 7)
float32 = dtype("float32", np.float32, FLOAT, 8)
float64 = dtype("float64", np.float64, FLOAT, 9)
complex64 = dtype("complex64", np.complex64, COMPLEX, 10)
complex128 = dtype("complex128", np.complex128, COMPLEX, 11)

ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
              complex64, complex128)
ALIASES = {"bool": bool_, "half": float16, "float": float32, "double": float64,
           "short": int16, "int": int32, "long": int64, "cfloat": complex64,
           "cdouble": complex128}
_REAL_OF = {complex64: float32, complex128: float64}
# (torch's bfloat16 promotes with a complex type to complex64; float16's would be complex32)
_COMPLEX_OF = {bfloat16: complex64, float32: complex64, float64: complex128}
_BY_NAME = {d.name: d for d in ALL_DTYPES} | ALIASES
_BY_NP = {d.np: d for d in ALL_DTYPES}


def _dtype_by_name(name):
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype) -> dtype:
    """The ember dtype of a NumPy dtype; torch's ValueError for a non-native byte order,
    TypeError for types ember lacks."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        if not np.dtype(np_dtype).isnative:
            raise ValueError("given numpy array has byte order different from the native byte "
                             "order. Conversion between byte orders is currently not "
                             "supported.") from None
        raise TypeError(f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).type.__name__}. The "
                        "only supported types are: float64, float32, float16, bfloat16, "
                        "complex64, complex128, int64, int32, int16, int8, uint8, and bool.") from None


_default = [float32]


def get_default_dtype() -> dtype:
    return _default[0]


def get_default_complex_dtype() -> dtype:
    """The dtype of Python complex numbers: the default float dtype's complex counterpart."""
    return complex128 if _default[0] is float64 else complex64


def set_default_dtype(d: dtype, /) -> None:
    """Sets the dtype of float factories and Python floats; floating types only."""
    if not isinstance(d, dtype) or d.category != FLOAT:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default[0] = d


def _promote_same_category(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if {a, b} == {uint8, int8}:
        return int16
    if {a, b} == {float16, bfloat16}:
        return float32
    if a is uint8 or b is uint8:  # uint8 with a wider signed int: the signed one
        return a if b is uint8 else b
    return a if a._rank > b._rank else b


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both `a` and `b` can be cast to without losing category.

    >>> promote_types(int64, float16)
    ember.float16
    """
    if a is b:
        return a
    if a.category != b.category:
        hi, lo = (a, b) if a.category > b.category else (b, a)
        if hi.is_complex and lo.category == FLOAT:   # float64 + complex64 -> complex128
            return promote_types(hi, lo.to_complex()) if lo is not float16 else hi
        return hi
    return _promote_same_category(a, b)


def can_cast(from_: dtype, to: dtype) -> bool:
    """Whether a same-kind cast is allowed (torch.can_cast: no float->int, no int->bool)."""
    return from_.category <= to.category


_INT_MIN, _UINT64_END = -(2 ** 63), 2 ** 64


def check_int_range(x: int) -> int:
    """torch's Python argument parser: a Python int must fit int64 (or uint64)."""
    if not _INT_MIN <= x < _UINT64_END:
        raise OverflowError("int too big to convert")
    return x


def scalar_category(x) -> int:
    t = type(x)
    if t is bool:
        return BOOL
    if t is int:
        check_int_range(x)
        return INT
    if t is float:
        return FLOAT
    if isinstance(x, (bool, np.bool_)):
        return BOOL
    if isinstance(x, (int, np.integer)):
        return INT
    if isinstance(x, (float, np.floating)):
        return FLOAT
    if isinstance(x, (complex, np.complexfloating)):
        return COMPLEX
    pytype = getattr(getattr(x, "node", None), "pytype", None)   # a SymInt/SymFloat/SymBool
    if pytype is not None and type(x).__name__.startswith("Sym"):
        return {bool: BOOL, int: INT, float: FLOAT}[pytype]
    raise TypeError(f"expected a Tensor or a Python number, got {type(x).__name__}")


def scalar_default_dtype(x) -> dtype:
    """The dtype ember.tensor(x) would have for a Python scalar x."""
    return _default_of_category(scalar_category(x))


def _default_of_category(c) -> dtype:
    return (bool_, int64, _default[0], get_default_complex_dtype())[c]


def wrapped_number_dtype(x) -> dtype:
    """The dtype of the tensor torch wraps a Python number in: bool, int64, float64 or
    complex128 (exact; it still promotes like the number, see result_type)."""
    return (bool_, int64, float64, complex128)[scalar_category(x)]


class _State:
    """Three promotion tiers, as in torch's ResultTypeState."""
    __slots__ = ("dim", "wrapped", "zero")

    def __init__(self):
        self.dim = self.zero = self.wrapped = None


def _add(current, d):
    return d if current is None else promote_types(current, d)


def result_type(*operands) -> dtype:
    """The dtype of an elementwise op over `operands` (tensors, Python scalars, dtypes).

    Dimensioned tensors decide first; 0-dim tensors and then Python scalars (also when
    wrapped in a 0-dim tensor by wrap_number) only count when their category is higher.
    >>> result_type(ember.tensor([1, 2], dtype=ember.uint8), 1000)
    ember.uint8
    """
    s = _State()
    for x in operands:
        if isinstance(x, dtype):
            s.dim = _add(s.dim, x)
        elif hasattr(x, "_dtype"):
            if x.dim() > 0:
                s.dim = _add(s.dim, x._dtype)
            elif getattr(x, "_wrapped_number", False):  # a Python number in a 0-dim tensor
                d = x._dtype
                s.wrapped = _add(s.wrapped, _default_of_category(d.category)
                                 if d.category >= FLOAT else d)
            else:
                s.zero = _add(s.zero, x._dtype)
        else:
            s.wrapped = _add(s.wrapped, scalar_default_dtype(x))
    return _combine(s)


def _combine_categories(higher, lower):
    """torch's rule: a lower tier only matters when it brings a higher category (a complex
    one keeps a floating higher tier's precision: float64 tensor + 1j is complex128)."""
    if higher is None:
        return lower
    if lower is None or higher.category >= FLOAT and lower.category <= FLOAT or higher.is_complex:
        return higher
    if lower.is_complex:
        return higher.to_complex() if higher.category == FLOAT else lower
    if higher is bool_ or lower.category == FLOAT:
        return promote_types(higher, lower)
    return higher


def _combine(s: _State) -> dtype:
    return _combine_categories(s.dim, _combine_categories(s.zero, s.wrapped))
