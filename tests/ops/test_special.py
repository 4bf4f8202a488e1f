"""torch.special and the pointwise math ops (issue 22) beyond the OpInfo samples: every
public name of `ember.special` against torch's, Python numbers for either operand of the
binary ones, out=, the values scipy and torch disagree on (ember follows torch), errors,
and gradients through the public API.

    .venv/bin/python -m pytest tests/ops/test_special.py -q
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers import check, check_call, pair, raises_like

import ember

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(22)
X = _RNG.uniform(0.2, 3.0, (3, 4)).astype(np.float32)
UNIT = _RNG.uniform(0.05, 0.95, (3, 4)).astype(np.float32)
TOLS = {"float32": (1e-5, 1e-6), "float64": (1e-7, 1e-12)}

UNARY = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr",
         "erf", "erfc", "erfcx", "exp2", "expit", "expm1", "gammaln", "i0", "i0e", "i1", "i1e",
         "log1p", "log_ndtr", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
         "modified_bessel_k1", "ndtr", "psi", "round", "scaled_modified_bessel_k0",
         "scaled_modified_bessel_k1", "sinc", "spherical_bessel_j0"]
BINARY = ["xlogy", "xlog1py", "zeta"]
POLYNOMIALS = [f"{kind}_polynomial_{v}" for kind, vs in (
    ("chebyshev", "tuvw"), ("shifted_chebyshev", "tuvw")) for v in vs] + [
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p"]


def test_the_namespace_covers_torch_special():
    """Every public torch.special function has an ember.special twin, except the ones
    listed."""
    missing = {n for n in dir(torch.special) if not n.startswith("_") and
               callable(getattr(torch.special, n)) and not hasattr(ember.special, n)}
    assert not missing


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_unary_matches_torch(name, dtype):
    if (name, dtype) == ("round", "int64"):
        pytest.skip("torch.special.round has no integer kernel")
    a = (X * 3).astype(dtype) if dtype == "int64" else X.astype(dtype)
    e, t = pair(a)
    check(getattr(ember.special, name)(e), getattr(torch.special, name)(t), TOLS)


@pytest.mark.parametrize("name", BINARY + POLYNOMIALS)
def test_binary_takes_numbers_either_side(name):
    """torch's Scalar overloads: a number promotes as a wrapped number (float32 stays)."""
    x = UNIT if "polynomial" in name else X + 1.2
    e, t = pair(x)
    f, g = getattr(ember.special, name), getattr(torch.special, name)
    check(f(e, 3), g(t, 3), TOLS)
    check(f(e, e), g(t, t), TOLS)
    check(f(2.5 if name != "zeta" else 2, e), g(2.5 if name != "zeta" else 2, t), TOLS)


def test_out_and_one_arg_functions():
    e, t = pair(UNIT)
    eo, to = pair(np.zeros((3, 4), np.float32))
    assert ember.special.logit(e, 0.1, out=eo) is eo
    check(eo, torch.special.logit(t, 0.1, out=to), TOLS)
    check(ember.special.polygamma(2, e), torch.special.polygamma(2, t), TOLS)
    check(ember.special.multigammaln(e + 2, 3), torch.special.multigammaln(t + 2, 3), TOLS)
    check(ember.special.ndtri(e), torch.special.ndtri(t), TOLS)
    for name in ("gammainc", "gammaincc"):
        check(getattr(ember.special, name)(e + 1, e * 3), getattr(torch.special, name)(t + 1, t * 3),
              TOLS)
    for name in ("softmax", "log_softmax"):
        check(getattr(ember.special, name)(e, 1, dtype=ember.float64),
              getattr(torch.special, name)(t, 1, dtype=torch.float64), TOLS)
    check(ember.special.logsumexp(e, 0, True), torch.special.logsumexp(t, 0, True), TOLS)


def test_values_where_scipy_differs_from_torch():
    """lgamma(-inf) is +inf (scipy's gammaln gives -inf); polynomials of negative order are
    0 and float orders are truncated; xlogy(0, nan) is nan; heaviside(nan) is 0."""
    for f, g, args in [
        (ember.lgamma, torch.lgamma, ([-np.inf, np.inf, 0.0, -1.0, -2.5],)),
        (ember.special.chebyshev_polynomial_t, torch.special.chebyshev_polynomial_t,
         ([0.5, 1.0, -1.0, 2.0], [-1.0, 3.0, 3.0, 2.7])),
        (ember.special.hermite_polynomial_h, torch.special.hermite_polynomial_h,
         ([0.5, 1.0, -1.0, 2.0], [-2.0, 0.0, 5.0, 2.9])),
        (ember.xlogy, torch.xlogy, ([0.0, 0.0, 1.0], [np.nan, 0.0, 0.0])),
        (ember.heaviside, torch.heaviside, ([np.nan, 0.0, -0.0, -3.0], [0.5, 0.5, 2.0, 1.0])),
    ]:
        pairs = [pair(np.array(a, np.float32)) for a in args]
        check(f(*[p[0] for p in pairs]), g(*[p[1] for p in pairs]), TOLS)


def test_nextafter_steps_one_unit_of_each_dtype():
    """float16 and bfloat16 step their own units (no float32 detour), toward other, from
    +-0 to the smallest subnormal, and stay put when self == other."""
    a = np.array([1.0, 1.0, 0.0, -0.0, -2.0, 3.0, np.inf, np.nan], np.float32)
    b = np.array([2.0, 0.0, -1.0, 1.0, -3.0, 3.0, 0.0, 1.0], np.float32)
    for dt in ("float16", "bfloat16", "float32", "float64"):
        ea, ta = pair(a)
        eb, tb = pair(b)
        edt, tdt = getattr(ember, dt), getattr(torch, dt)
        check(ember.nextafter(ea.to(edt), eb.to(edt)), torch.nextafter(ta.to(tdt), tb.to(tdt)))


def test_frexp_and_ldexp_round_trip():
    a = np.array([0.0, -0.0, 1.0, 0.75, -3.0, 1e-30, 1e30, np.inf, np.nan], np.float32)
    e, t = pair(a)
    (em, ee), (tm, te) = ember.frexp(e), torch.frexp(t)
    check(em, tm)
    check(ee, te)
    check(ember.ldexp(em, ee), torch.ldexp(tm, te))


def test_integer_ops_and_float_power_dtypes():
    a, b = np.array([0, -4, 6, 12], np.int64), np.array([0, 6, -4, 18], np.int32)
    (ea, ta), (eb, tb) = pair(a), pair(b)
    check(ember.gcd(ea, eb), torch.gcd(ta, tb))
    check(ember.lcm(ea, eb), torch.lcm(ta, tb))
    check(ember.float_power(ea, 2), torch.float_power(ta, 2))
    check(ember.float_power(2, eb), torch.float_power(2, tb))
    check(ember.fmax(ea, eb), torch.fmax(ta, tb))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_gcd_lcm_wrap_like_c_abs(dtype):
    """torch's Euclid runs on C's abs, which wraps the dtype's minimum: gcd(-32768, 5) is
    -1 in int16 (NumPy's gcd gives 1). The minimum stays out of lcm for int32/int64,
    where torch's MIN / -1 traps."""
    info = np.iinfo(dtype)
    vals = np.array([v for v in (info.min, info.min + 1, info.max, -6, -1, 0, 1, 5, 12)
                     if info.min <= v <= info.max], dtype)
    (ea, ta), (eb, tb) = pair(np.repeat(vals, len(vals))), pair(np.tile(vals, len(vals)))
    check(ember.gcd(ea, eb), torch.gcd(ta, tb))
    if dtype in ("int32", "int64"):
        (ea, ta), (eb, tb) = pair(vals[1:].repeat(len(vals) - 1)), pair(np.tile(vals[1:], len(vals) - 1))
    check(ember.lcm(ea, eb), torch.lcm(ta, tb))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("eps", [None, 1e-5, 0.1, 0.0, -1.0, 0.6])
def test_logit_clamps_with_bounds_of_the_result_dtype(dtype, eps):
    """torch rounds eps and 1 - eps to the dtype (1 - 1e-5 is 1 in float16: inf) and
    computes in float32 for float32 (11.511559 at x = 3, eps = 1e-5); eps > 0.5 clamps
    below first."""
    x = np.array([3.0, 0.5, 0.999, 1e-7, -1, 1.0, 0.0, np.nan, 0.2], np.float32)
    e, t = pair(x)
    e, t = e.to(getattr(ember, dtype)), t.to(getattr(torch, dtype))
    tols = {"float16": (2e-3, 0), "bfloat16": (8e-3, 0), "float32": (1e-6, 0)}
    check(ember.logit(e, eps), torch.logit(t, eps), tols)
    check(e.logit_(eps), t.logit_(eps), tols)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_igamma_edge_cases_in_torch_order(name):
    """torch tests x < 0 or a < 0, a == 0, x == 0, infinite a, infinite x in that order
    before computing: igamma(nan, inf) is 1 and igamma(inf, nan) is 0."""
    vals = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -4.5, 3.1, 1e4], np.float64)
    (ea, ta), (ex, tx) = pair(np.repeat(vals, len(vals))), pair(np.tile(vals, len(vals)))
    check(getattr(ember, name)(ea, ex), getattr(torch, name)(ta, tx), TOLS)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int8"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_polygamma_at_poles_and_infinities_like_torch(dtype, n):
    """trigamma is torch's own formula: finite at negative integers in float32
    (polygamma(1, -1) = 1.29e15) and NaN at -inf; n >= 2 is NaN at +inf (torch's zeta)."""
    x = np.array([-1, -2, -2.38387866, -np.inf, np.inf, np.nan, 0, 0.5, 1, 1e4, -3.5, 0.49])
    e, t = pair(x)
    e, t = e.to(getattr(ember, dtype)), t.to(getattr(torch, dtype))
    tols = {"float16": (2e-3, 0), "bfloat16": (1.6e-2, 0), "float32": (8e-7, 0),
            "float64": (8e-15, 0)}
    check(ember.polygamma(n, e), torch.polygamma(n, t), tols)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("p", [1, 3])
def test_mvlgamma_rounds_its_arguments_like_torch(dtype, p):
    """torch's composite adds self to arange(...) in self's dtype, then lgamma (+inf at
    -inf): 1e-6 - 1 is -1 in float16, a pole."""
    x = np.array([3, 0, np.inf, -4, 1e-6, -1, -np.inf, -3.162, -4.375, 1e4], np.float32)
    e, t = pair(x)
    e, t = e.to(getattr(ember, dtype)), t.to(getattr(torch, dtype))
    tols = {"float16": (4e-3, 0), "float32": (1e-6, 0), "float64": (1e-12, 0)}
    check(ember.mvlgamma(e, p), torch.mvlgamma(t, p), tols)


@pytest.mark.parametrize("call,phrase", [
    (lambda m: m.gcd(m.ones(2), m.ones(2)), '"gcd_cpu" not implemented for \'Float\''),
    (lambda m: m.hypot(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)),
     '"hypot_cpu" not implemented for \'Long\''),
    (lambda m: m.special.ndtri(m.ones(2, dtype=m.float16)),
     '"ndtri_cpu" not implemented for \'Half\''),
    (lambda m: m.special.zeta(m.ones(2, dtype=m.bfloat16), 2),
     '"zeta_cpu" not implemented for \'BFloat16\''),
    (lambda m: m.polygamma(-1, m.ones(2)), "does not support negative n"),
    (lambda m: m.mvlgamma(m.ones(2), 0), "p has to be greater than or equal to 1"),
    (lambda m: m.frexp(m.ones(2, dtype=m.int32)), "frexp() only supports floating-point"),
    (lambda m: m.heaviside(m.ones(2), m.ones(2, dtype=m.float64)),
     "heaviside is not yet implemented for tensors with different dtypes"),
    (lambda m: m.ones(2, dtype=m.int64).digamma_(), "can't be cast to the desired output"),
])
def test_errors_match_torch(call, phrase):
    raises_like(lambda: call(ember), lambda: call(torch), phrase)


@pytest.mark.parametrize("name,args", [
    ("digamma", ()), ("lgamma", ()), ("erfinv", ()), ("i0", ()), ("sinc", ()),
    ("special.i1", ()), ("special.i0e", ()), ("special.ndtr", ()), ("special.log_ndtr", ()),
    ("special.erfcx", ()), ("special.entr", ()), ("logit", (0.1,)),
])
def test_unary_gradients_match_torch(name, args):
    x = UNIT.astype(np.float64)
    e = ember.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)

    def get(mod):
        for part in name.split("."):
            mod = getattr(mod, part)
        return mod
    ge, = ember.autograd.grad(get(ember)(e, *args).sum(), e)
    gt, = torch.autograd.grad(get(torch)(t, *args).sum(), t)
    check(ge, gt, {"float64": (1e-9, 1e-12)})


def test_non_differentiable_outputs_as_torch():
    """Bessel functions and polynomials have no derivative in torch: their outputs do not
    require grad; zeta's first argument raises in backward."""
    e = ember.tensor(X, requires_grad=True)
    assert not ember.special.bessel_j0(e).requires_grad
    assert not ember.special.chebyshev_polynomial_t(e, 2).requires_grad
    z = ember.special.zeta(e + 1, 2.0)
    with pytest.raises(NotImplementedError, match="the derivative for 'zeta' is not implemented"):
        z.sum().backward()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_top_level_xlogy_scalar_overloads_as_torch(dtype):
    """xlogy.Scalar_Self/Scalar_Other (and out=, method, in-place): the number is a wrapped
    number in promotion (int64 and bool tensors give float32, float32 stays float32)."""
    e, t = pair((X * 2).astype(dtype))
    for call in (lambda m, x: m.xlogy(x, 2), lambda m, x: m.xlogy(2.5, x),
                 lambda m, x: m.xlogy(True, x), lambda m, x: x.xlogy(0.5),
                 lambda m, x: m.special.xlogy(3, x), lambda m, x: m.special.xlog1py(x, 2)):
        check(call(ember, e), call(torch, t), TOLS)
    if dtype.startswith("float"):
        check(ember.xlogy(2, e, out=ember.empty(0, dtype=e.dtype)),
              torch.xlogy(2, t, out=torch.empty(0, dtype=t.dtype)), TOLS)
        check(e.clone().xlogy_(3), t.clone().xlogy_(3), TOLS)
    else:
        raises_like(lambda: e.clone().xlogy_(3), lambda: t.clone().xlogy_(3), "can't be cast")


@pytest.mark.parametrize("name,number", [("xlogy", 3.0), ("xlog1py", 3.0), ("zeta", 2.0)])
def test_scalar_overload_gradients_as_torch(name, number):
    """The gradient flows to the Tensor operand of either Scalar overload, as torch's
    derivatives of xlogy.Scalar_Self/Scalar_Other and special_*.self_scalar/other_scalar."""
    x = X.astype(np.float64) + 1.0
    for order in ((0, 1), (1, 0)):
        if name == "zeta" and order == (0, 1):
            continue  # torch: the derivative of zeta in its first argument is not implemented
        grads = []
        for m in (ember, torch):
            leaf = m.tensor(x, requires_grad=True)
            args = (leaf, number) if order == (0, 1) else (number, leaf)
            getattr(m.special, name)(*args).sum().backward()
            grads.append(leaf.grad)
        check(grads[0], grads[1], TOLS)
    raises_like(lambda: ember.special.zeta(ember.tensor(x, requires_grad=True), 2.0).sum().backward(),
                lambda: torch.special.zeta(torch.tensor(x, requires_grad=True), 2.0).sum().backward(),
                "not implemented")


@pytest.mark.parametrize("call", [
    lambda M: M.igamma(M.tensor([7, -9, -2**31, 2**31 - 1, 0, 3], dtype=M.int32),
                       M.tensor([float("nan")], dtype=M.float16)),
    lambda M: M.igammac(M.tensor([float("nan")], dtype=M.float16),
                        M.tensor([7, 2**31 - 1, 0], dtype=M.int32)),
    lambda M: M.xlogy(M.tensor([1.369, -2.303], dtype=M.float16),
                      M.tensor([2**31 - 1, 1], dtype=M.int32)),
    lambda M: M.tensor([1.369, -2.303], dtype=M.float16).xlogy_(
        M.tensor([2**31 - 1, 1], dtype=M.int32)),
    lambda M: M.ops.aten.special_xlog1py.default(M.tensor([2.0]),
                                                 M.tensor([2**24 + 1], dtype=M.int32)),
    lambda M: M.ops.aten.silu_backward.default(M.tensor([-2.385], dtype=M.float16),
                                               M.tensor([-2**31, 3, 0], dtype=M.int32)),
])
def test_operands_are_cast_to_a_float_result_dtype_first(call):
    """An operand of another dtype is cast to the result dtype before the wider computation,
    as torch's TensorIterator: int32 2**31 - 1 is inf in a float16 result (igamma(inf, nan)
    is then torch's 0, xlogy gives inf; before, ember computed from 2147483647)."""
    check_call(call, {"float16": (1e-3, 1e-3), "float32": (1e-6, 0)})
