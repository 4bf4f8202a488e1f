"""Meta kernels of torch.special and the pointwise math ops (digamma, i0, the Bessel
functions, the orthogonal polynomials, hypot, gcd, xlogy, ...): each op's result layout
after torch's dtype checks, shared with kernels/cpu/special.py so both backends agree.

    >>> from ember.core.alloc import empty_meta
    >>> special_ndtri(empty_meta((2,), ember.int64)).dtype
    ember.float32
    >>> special_ndtri(empty_meta((2,), ember.float16))
    Traceback (most recent call last):
    NotImplementedError: "ndtri_cpu" not implemented for 'Half'
"""
from __future__ import annotations

import functools

from ember.core import dtype as D
from ember.core.shapes import expand_strides, meta_elementwise_strides
from ember.core.tensor import Tensor, contiguous_strides
from ember.kernels.common import _pointwise as P
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.meta._pointwise import Layout, _inplace, _layout, _meta

# ops whose torch CPU kernel has no float16/bfloat16 loop
NO_HALF = frozenset((
    "special_ndtri", "special_log_ndtr", "special_erfcx", "special_bessel_j0",
    "special_bessel_j1", "special_bessel_y0", "special_bessel_y1",
    "special_modified_bessel_i0", "special_modified_bessel_i1", "special_modified_bessel_k0",
    "special_modified_bessel_k1", "special_scaled_modified_bessel_k0",
    "special_scaled_modified_bessel_k1", "special_spherical_bessel_j0", "special_airy_ai",
    "special_zeta", *(f"special_{kind}_polynomial_{v}" for kind, v in (
        ("chebyshev", "t"), ("chebyshev", "u"), ("chebyshev", "v"), ("chebyshev", "w"),
        ("shifted_chebyshev", "t"), ("shifted_chebyshev", "u"), ("shifted_chebyshev", "v"),
        ("shifted_chebyshev", "w"), ("hermite", "h"), ("hermite", "he"), ("laguerre", "l"),
        ("legendre", "p")))))


def cpu_name(op) -> str:
    """torch's CPU kernel name in its "not implemented for" errors: special_zeta -> zeta_cpu."""
    return op.removeprefix("special_") + "_cpu"


def float_layout(op, *operands) -> Layout:
    """A float op: the promoted dtype, bool/integral promoted to the default float dtype."""
    dt = P.float_result(D.result_type(*operands))
    lay = _layout(dt, *operands, cast_to=dt)
    if op in NO_HALF and lay._dtype in P.HALF:
        raise not_implemented_for(cpu_name(op), lay._dtype)
    return lay


def promote_layout(op, *operands, allowed=None) -> Layout:
    """A dtype-keeping op: the promoted dtype, which must be in `allowed` (a category test)."""
    dt = D.result_type(*operands)
    lay = _layout(dt, *operands, cast_to=dt)
    if allowed is not None and not allowed(lay._dtype):
        raise not_implemented_for(cpu_name(op), lay._dtype)
    return lay


def _is_float(dt):
    return dt.category == D.FLOAT


def _is_integral(dt):
    return dt.category == D.INT


# layout rules of the binary ops that are not float ops (op -> dtype test)
PROMOTE = {"hypot": _is_float, "nextafter": _is_float, "logaddexp": _is_float,
           "logaddexp2": _is_float, "gcd": _is_integral, "lcm": _is_integral,
           "fmax": None, "fmin": None, "igamma": _is_float, "igammac": _is_float}


def heaviside_layout(self, values) -> Layout:
    dt = D.result_type(self, values)
    lay = _layout(dt, self, values, cast_to=dt)
    if getattr(values, "_dtype", self._dtype) is not self._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return lay


def check_polygamma(n) -> None:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


def check_mvlgamma(self, p) -> None:
    if self._dtype is D.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


def frexp_layouts(self):
    """(mantissa, exponent): self's dtype and an int32 exponent, in self's layout."""
    if self._dtype.category != D.FLOAT:
        raise RuntimeError("ember.frexp() only supports floating-point dtypes")
    lay = _layout(self._dtype, self)
    return lay, Layout(lay._shape, lay._stride, D.int32)


# --- the kernels ---------------------------------------------------------------------------
def _float_op(op):
    def kernel(*operands):
        return _meta(float_layout(op, *operands))
    kernel.__name__ = op
    return kernel


def _promote_op(op):
    def kernel(self, other):
        return _meta(promote_layout(op, self, other, allowed=PROMOTE[op]))
    kernel.__name__ = op
    return kernel


acosh = _float_op("acosh")
asinh = _float_op("asinh")
atanh = _float_op("atanh")
digamma = _float_op("digamma")
lgamma = _float_op("lgamma")
erfinv = _float_op("erfinv")
erfc = _float_op("erfc")
i0 = _float_op("i0")
sinc = _float_op("sinc")
deg2rad = _float_op("deg2rad")
rad2deg = _float_op("rad2deg")
special_i0e = _float_op("special_i0e")
special_i1 = _float_op("special_i1")
special_i1e = _float_op("special_i1e")
special_ndtr = _float_op("special_ndtr")
special_ndtri = _float_op("special_ndtri")
special_log_ndtr = _float_op("special_log_ndtr")
special_erfcx = _float_op("special_erfcx")
special_entr = _float_op("special_entr")
special_bessel_j0 = _float_op("special_bessel_j0")
special_bessel_j1 = _float_op("special_bessel_j1")
special_bessel_y0 = _float_op("special_bessel_y0")
special_bessel_y1 = _float_op("special_bessel_y1")
special_modified_bessel_i0 = _float_op("special_modified_bessel_i0")
special_modified_bessel_i1 = _float_op("special_modified_bessel_i1")
special_modified_bessel_k0 = _float_op("special_modified_bessel_k0")
special_modified_bessel_k1 = _float_op("special_modified_bessel_k1")
special_scaled_modified_bessel_k0 = _float_op("special_scaled_modified_bessel_k0")
special_scaled_modified_bessel_k1 = _float_op("special_scaled_modified_bessel_k1")
special_spherical_bessel_j0 = _float_op("special_spherical_bessel_j0")
special_airy_ai = _float_op("special_airy_ai")

def copysign(self, other):
    """torch's Meta copysign is its reference, where(signbit(other), -abs(self), abs(self))
    over the operands converted to the float result and expanded to the result's shape: the
    sign's layout leads the result's
    (a contiguous self and a transposed other give the transposed layout, TensorIterator's
    CPU result the contiguous one)."""
    lay = float_layout("copysign", self, other)
    if not (isinstance(other, Tensor) and isinstance(self, Tensor)):
        return _meta(lay)
    shape = lay._shape      # (the reference expands both operands first)
    a, b = ((shape, expand_strides(*P._cast_copy_layout(t, lay._dtype), shape))
            for t in (self, other))
    sign = (shape, meta_elementwise_strides(shape, [b]))
    magnitude = (shape, meta_elementwise_strides(shape, [a]))
    stride = meta_elementwise_strides(shape, [sign, magnitude, magnitude])
    return _meta(Layout(lay._shape, stride, lay._dtype))
xlogy = _float_op("xlogy")
special_xlog1py = _float_op("special_xlog1py")
special_zeta = _float_op("special_zeta")
special_chebyshev_polynomial_t = _float_op("special_chebyshev_polynomial_t")
special_chebyshev_polynomial_u = _float_op("special_chebyshev_polynomial_u")
special_chebyshev_polynomial_v = _float_op("special_chebyshev_polynomial_v")
special_chebyshev_polynomial_w = _float_op("special_chebyshev_polynomial_w")
special_shifted_chebyshev_polynomial_t = _float_op("special_shifted_chebyshev_polynomial_t")
special_shifted_chebyshev_polynomial_u = _float_op("special_shifted_chebyshev_polynomial_u")
special_shifted_chebyshev_polynomial_v = _float_op("special_shifted_chebyshev_polynomial_v")
special_shifted_chebyshev_polynomial_w = _float_op("special_shifted_chebyshev_polynomial_w")
special_hermite_polynomial_h = _float_op("special_hermite_polynomial_h")
special_hermite_polynomial_he = _float_op("special_hermite_polynomial_he")
special_laguerre_polynomial_l = _float_op("special_laguerre_polynomial_l")
special_legendre_polynomial_p = _float_op("special_legendre_polynomial_p")

hypot = _promote_op("hypot")
nextafter = _promote_op("nextafter")
def _pointwise(shape, *operands):
    """(shape, strides) of a pointwise reference over operand layouts of `shape`."""
    return shape, meta_elementwise_strides(shape, list(operands))


def logaddexp(self, other):
    """torch's Meta logaddexp is its reference over the operands expanded to one shape:
    mask = a >= b, max_/min_ = where(mask, ...), then where(~isfinite(a) & (a == b), a,
    max_ + log1p(exp(min_ - max_))): the inf mask leads the result's layout."""
    lay = promote_layout("logaddexp", self, other, allowed=PROMOTE["logaddexp"])
    if not (isinstance(other, Tensor) and isinstance(self, Tensor)):
        return _meta(lay)
    shape = lay._shape
    a, b = ((shape, expand_strides(*P._cast_copy_layout(t, lay._dtype), shape))
            for t in (self, other))
    f = functools.partial(_pointwise, shape)
    mask = f(a, b)
    largest, smallest = f(mask, a, b), f(mask, b, a)
    infinite = f(f(f(a)), f(a, b))
    stride = f(infinite, a, f(largest, f(f(f(smallest, largest)))))[1]
    return _meta(Layout(shape, stride, lay._dtype))
logaddexp2 = _promote_op("logaddexp2")
gcd = _promote_op("gcd")
lcm = _promote_op("lcm")
fmax = _promote_op("fmax")
fmin = _promote_op("fmin")
igamma = _promote_op("igamma")
igammac = _promote_op("igammac")


def heaviside(self, values):
    return _meta(heaviside_layout(self, values))


def logit(self, eps=None):
    return _meta(float_layout("logit", self))


def polygamma(n, self):
    check_polygamma(n)
    return _meta(float_layout("polygamma", self))


def mvlgamma_layout(self) -> Layout:
    """torch's mvlgamma is a composite (a sum over a new last dim): a contiguous result."""
    lay = float_layout("mvlgamma", self)
    return Layout(lay._shape, contiguous_strides(lay._shape), lay._dtype)


def mvlgamma(self, p):
    check_mvlgamma(self, p)
    return _meta(mvlgamma_layout(self))


def frexp(self):
    return tuple(_meta(lay) for lay in frexp_layouts(self))


def polygamma_(self, n):
    """`x.polygamma_(n)`: torch's in-place checks (a float result into self's dtype)."""
    check_polygamma(n)
    return _inplace(self, float_layout("polygamma", self)._dtype)


def _integral_inplace(op):
    """gcd_/lcm_: torch checks that the result casts into self (and the shapes) before its
    kernel's dtype support."""
    def kernel(self, other):
        _inplace(self, D.result_type(self, other), other)
        promote_layout(op, self, other, allowed=PROMOTE[op])
        return self
    kernel.__name__ = op + "_"
    return kernel


gcd_ = _integral_inplace("gcd")
lcm_ = _integral_inplace("lcm")


def mvlgamma_(self, p):
    """torch's in-place mvlgamma refuses integral selves with its own message."""
    check_mvlgamma(self, p)
    if not self._dtype.is_floating_point:
        raise RuntimeError(f"mvlgamma: result type {self._dtype.scalar_name} can't be cast to "
                           f"the desired output type {D.get_default_dtype().scalar_name}")
    return self
