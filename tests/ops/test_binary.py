"""The binary family (issue 4) through the public API against torch: numbers on either
side, Tensor dunders (reflected and in-place), torch's error messages, and the gradients
torch defines at special points (maximum/minimum ties, atan2 at the origin,
floor_divide's missing formula, in-place comparisons)."""
import operator

import numpy as np
import pytest
from helpers import to_np
from hypothesis import given, settings
from hypothesis import strategies as st

import ember

torch = pytest.importorskip("torch")

INTS = np.array([[7, -7, 5], [-5, 0, 9]], np.int64)
FLOATS = np.array([[5.5, -5.5, 2.0], [-0.5, 3.25, -7.0]], np.float32)
DIVISORS = np.array([3, -3, 2], np.int64)


def both(a):
    return ember.tensor(a), torch.tensor(a)


def same(e, t, rtol=1e-6):
    assert e.dtype.name == str(t.dtype).removeprefix("torch.")
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(to_np(e).astype(np.float64), to_np(t).astype(np.float64),
                               rtol=rtol, atol=1e-6, equal_nan=True)


# --- numbers on either side, dunders ---------------------------------------------------------
@pytest.mark.parametrize("expr", [
    "x // d", "x % d", "x // 2", "x % -3", "7 // d", "-7 % d", "x // 2.5", "x % 2.5",
    "x & d", "x | d", "x ^ d", "3 & x", "True | (x > 0)", "5 ^ x",
    "f // 2", "f % -2", "7.5 % f", "f // f",
])
def test_operators(expr):
    (ex, tx), (ed, td), (ef, tf) = both(INTS), both(DIVISORS), both(FLOATS)
    e = eval(expr, {"x": ex, "d": ed, "f": ef})
    t = eval(expr, {"x": tx, "d": td, "f": tf})
    same(e, t)


@pytest.mark.parametrize("op,rhs", [
    (operator.ifloordiv, "d"), (operator.imod, "d"), (operator.iand, "d"), (operator.ior, 3),
    (operator.ixor, "d"), (operator.ifloordiv, 2), (operator.imod, -4)])
def test_inplace_operators_keep_identity(op, rhs):
    (ex, tx), (ed, td) = both(INTS), both(DIVISORS)
    e = op(ex, ed if rhs == "d" else rhs)
    t = op(tx, td if rhs == "d" else rhs)
    assert e is ex
    same(e, t)


@pytest.mark.parametrize("call", [
    "M.remainder(x, 3)", "M.remainder(-7, d)", "M.fmod(x, -3)", "M.fmod(f, 2.5)",
    "M.floor_divide(x, d)", "M.rsub(x, d, alpha=2)", "M.rsub(f, 1.5)", "M.maximum(f, x.float())",
    "M.minimum(x, d)", "M.atan2(x, d)", "M.logical_and(x, f)", "M.logical_xor(x, d)",
    "M.bitwise_and(x, 6)", "M.lerp(f, f * 2, 0.75)", "M.addcmul(f, f, f, value=-0.5)",
    "M.addcdiv(f, f, f + 10, value=2)", "M.where(x > 0, 1, 2.5)", "M.where(x > 0, x, 2.5)",
    "M.where(x > 0, 1.5, x)", "M.div(x, 2, rounding_mode='floor')",
    "M.div(x, -2.5, rounding_mode='trunc')", "f.clone().div_(2, rounding_mode='floor')",
    "x.clone().eq_(5)", "f.clone().lt_(d)", "x.clone().pow_(2)", "f.clone().lerp_(f, 0.5)",
])
def test_public_api(call):
    (ex, tx), (ed, td), (ef, tf) = both(INTS), both(DIVISORS), both(FLOATS)
    e = eval(call, {"M": ember, "x": ex, "d": ed, "f": ef})
    t = eval(call, {"M": torch, "x": tx, "d": td, "f": tf})
    same(e, t)


def test_out_variants():
    (ex, tx), (ed, td) = both(INTS), both(DIVISORS)
    for name in ("remainder", "fmod", "floor_divide", "maximum", "bitwise_xor", "logical_or"):
        eo, to = ember.empty(0, dtype=ember.int64), torch.empty(0, dtype=torch.int64)
        r = getattr(ember, name)(ex, ed, out=eo)
        getattr(torch, name)(tx, td, out=to)
        assert r is eo
        same(eo, to)
    eo, to = ember.empty(2, 3, dtype=ember.float32), torch.empty(2, 3)
    ember.eq(ex, 5, out=eo)
    torch.eq(tx, 5, out=to)
    same(eo, to)


# --- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    "M.remainder(x, x * 0)", "M.fmod(x, 0)", "M.floor_divide(x, 0)", "x % 0",
    "M.div(x, 0, rounding_mode='trunc')",
    "M.rsub(x > 0, x > 0)", "M.rsub(x, x > 0)", "M.rsub(x, 2, alpha=0.5)",
    "M.addcdiv(f, x, x)", "M.lerp(f, f.double(), 0.5)", "M.lerp(f, f, f.double())",
    "M.lerp(x, x, 0.5)", "M.bitwise_and(f, f)", "M.remainder(x > 0, x > 0)",
    "M.floor_divide(x > 0, x > 0)", "(x > 0).bitwise_or_(x)", "x.clone().atan2_(x)",
    "x.clone().fmod_(2.5)", "f.clone().eq_(M.ones(4, 3))", "M.addcmul(x > 0, x > 0, x > 0)",
])
def test_errors_match_torch(call):
    (ex, tx), (ef, tf) = both(INTS), both(FLOATS)
    with pytest.raises(Exception) as t_info:
        eval(call, {"M": torch, "x": tx, "f": tf})
    with pytest.raises(type(t_info.value)) as e_info:
        eval(call, {"M": ember, "x": ex, "f": ef})
    assert str(e_info.value) == str(t_info.value).replace("torch.", "ember.")


# --- gradients at special points ---------------------------------------------------------------
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_ties_share_the_gradient(name):
    a, b = [1.0, 2.0, 3.0], [1.0, 5.0, 0.0]
    grads = []
    for M in (ember, torch):
        x, y = M.tensor(a, requires_grad=True), M.tensor(b, requires_grad=True)
        getattr(M, name)(x, y).sum().backward()
        grads.append((to_np(x.grad), to_np(y.grad)))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])
    assert grads[0][0][0] == 0.5


def test_atan2_gradient_at_the_origin_is_zero():
    x = ember.tensor([0.0, 1.0], requires_grad=True)
    y = ember.tensor([0.0, 0.0], requires_grad=True)
    ember.atan2(x, y).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0] and y.grad.tolist()[0] == 0.0


@pytest.mark.parametrize("call", ["M.floor_divide(x, 2)", "M.remainder(2.5, x)",
                                  "x.clone().floor_divide_(x)"])
def test_no_formula_like_torch(call):
    """torch has no derivative for these: the output requires grad, backward raises."""
    for M in (ember, torch):
        x = M.tensor([1.5, 2.5], requires_grad=True)
        r = eval(call, {"M": M, "x": x})
        assert r.requires_grad
        with pytest.raises(RuntimeError, match="is not implemented"):
            r.sum().backward()


def test_inplace_comparison_gives_zero_gradient():
    for M in (ember, torch):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        y.ge_(1.5)
        assert y.requires_grad
        y.sum().backward()
        assert x.grad.tolist() == [0.0, 0.0]


# --- properties -----------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=1, max_size=8),
       st.integers(-9, 9).filter(lambda v: v != 0),
       st.sampled_from(["remainder", "fmod", "floor_divide"]))
def test_integer_division_family_matches_python(values, divisor, name):
    e = getattr(ember, name)(ember.tensor(values), divisor)
    t = getattr(torch, name)(torch.tensor(values), divisor)
    assert e.tolist() == t.tolist()


NUMBER_OPS = ("add", "sub", "mul", "div", "floor_divide", "eq", "ne", "lt", "le", "gt", "ge",
              "remainder", "fmod", "pow", "bitwise_and", "bitwise_or", "bitwise_xor",
              "maximum", "minimum", "atan2", "logical_and", "logical_or", "logical_xor")


@pytest.mark.parametrize("method", [False, True], ids=["function", "method"])
@pytest.mark.parametrize("name", NUMBER_OPS)
def test_python_number_for_the_second_argument_like_torch(name, method):
    """torch's bindings take a number for a Tensor argument only in add/sub/mul/div/
    floor_divide; other ops use a Scalar overload, or raise TypeError (maximum, atan2)."""
    a = np.array([3, 4, 7], np.int64)

    def call(lib, x):
        return getattr(x, name)(2) if method else getattr(lib, name)(x, 2)
    try:
        want = call(torch, torch.tensor(a))
    except TypeError:
        with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'other' .* must be Tensor"):
            call(ember, ember.tensor(a))
        return
    got = call(ember, ember.tensor(a))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]


def test_half_operands_are_rounded_to_half_before_computing_like_torch():
    """torch casts a 0-d float64 divisor to float16 first, then computes in float32: fmod
    near a multiple of the divisor shows the difference."""
    a = np.linspace(-5, 5, 401).astype(np.float16)
    b = np.array(1.2345678901234)
    want = torch.fmod(torch.tensor(a), torch.tensor(b)).numpy()
    got = ember.fmod(ember.tensor(a), ember.tensor(b)).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(70000,), (300, 700), (3, 65536)])
def test_large_add_with_alpha_is_torch_fused_multiply_add(dtype, shape):
    """add/sub with alpha on operands past the blocked fused multiply-add's threshold
    (an optimizer's weight decay): torch's values bit for bit (one rounding of
    self + alpha * other, alpha rounded to float32 first for float32 results), shape and
    strides, also from a transposed operand."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    for alpha in (5e-4, -0.1, 3):
        for name in ("add", "sub"):
            e = getattr(ember, name)(ember.from_numpy(a), ember.from_numpy(b), alpha=alpha)
            t = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(b), alpha=alpha)
            assert e.dtype.name == dtype and e.shape == tuple(t.shape)
            assert e.stride() == t.stride()
            same_bits(e.numpy(), t.numpy())
    bt = np.ascontiguousarray(b.T).T      # a column-major operand of the same shape
    e = ember.add(ember.from_numpy(a), ember.from_numpy(bt), alpha=0.25)
    t = torch.add(torch.from_numpy(a), torch.from_numpy(bt), alpha=0.25)
    same_bits(e.numpy(), t.numpy())


def same_bits(e, t):
    """Equal values, NaNs in the same places and the same signs of zero."""
    np.testing.assert_array_equal(e, t)
    zeros = t == 0
    np.testing.assert_array_equal(np.signbit(e[zeros]), np.signbit(t[zeros]))


def _alpha_operands(dtype, n, seed):
    """Values over a wide exponent range (cancellation, subnormal and overflowing results)
    with zeros of both signs, infinities, NaN and the dtype's extremes mixed in."""
    rng = np.random.default_rng(seed)
    fi = np.finfo(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fi.max, -fi.max, fi.tiny,
                         fi.tiny / 4, fi.smallest_subnormal, 1.5, 2.0 ** -60], dtype)
    out = []
    for _ in range(2):
        with np.errstate(over="ignore"):
            x = (rng.standard_normal(n) * 2.0 ** rng.integers(-40, 40, n)).astype(dtype)
        x[rng.choice(n, n // 20)] = rng.choice(specials, n // 20)
        out.append(x)
    out[0][:200] = rng.standard_normal(200) * fi.tiny   # results near the subnormals
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("alpha", [0.1, 1 / 3, -2.5e-8, 7, 1e30, 3e-300])
def test_alpha_ops_round_once_like_torch(dtype, alpha):
    """add/sub/rsub with alpha, add_/sub_ (the in-place update path included) and addcmul
    are one fused multiply-add in the result dtype, as torch's CPU kernels (vfmadd): the
    same bits as torch on 20000 random and special values, and numbers taken as operands
    rounded to the dtype first. (Before: float64 went through long double and add_ rounded
    alpha * other first: last-bit differences on up to 1 element in 5.)"""
    if dtype == "float32" and abs(alpha) > 1e20:
        alpha = -alpha * 1e-25 if alpha > 1 else 3e-39   # float32's range
    a, b = _alpha_operands(dtype, 20000, seed=int(abs(np.log2(abs(alpha)))))
    ea, eb, ta, tb = (f(x) for f in (ember.from_numpy, torch.from_numpy) for x in (a, b))
    with np.errstate(all="ignore"):
        cases = [(ember.add(ea, eb, alpha=alpha), torch.add(ta, tb, alpha=alpha)),
                 (ember.sub(ea, eb, alpha=alpha), torch.sub(ta, tb, alpha=alpha)),
                 (ember.rsub(ea, eb, alpha=alpha), torch.rsub(ta, tb, alpha=alpha)),
                 (ember.add(ea, 0.7, alpha=alpha), torch.add(ta, 0.7, alpha=alpha)),
                 (ember.add(ea[:1], eb, alpha=alpha), torch.add(ta[:1], tb, alpha=alpha)),
                 (ember.addcmul(ea, eb, ea, value=alpha),
                  torch.addcmul(ta, tb, ta, value=alpha)),
                 (ea.clone().add_(eb, alpha=alpha), ta.clone().add_(tb, alpha=alpha)),
                 (ea.clone().sub_(eb, alpha=alpha), ta.clone().sub_(tb, alpha=alpha)),
                 (ea[::2].clone().add_(eb[1::2], alpha=alpha),
                  ta[::2].clone().add_(tb[1::2], alpha=alpha))]
    for e, t in cases:
        assert (e.dtype.name, e.shape, e.stride()) == (dtype, tuple(t.shape), t.stride())
        same_bits(e.numpy(), t.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("alpha", [0.1, -2.5e-8, 7, 3e-39])
def test_fma_compiled_loop_equals_the_numpy_emulation(dtype, alpha):
    """Operands of one shape with a number for y take the compiled loop (LLVM's fma),
    others (broadcast operands, an array y) the NumPy emulation: the same bits on random
    and special values, so an op's result never depends on its path."""
    from ember.kernels.cpu import binary
    from ember.kernels.cpu._fma_loop import fma_scalar, fma_ufunc
    a, b = _alpha_operands(dtype, 20000, seed=7)
    y = np.asarray(alpha, dtype)
    emulate = binary._fma32 if dtype == "float32" else binary._fma64
    with np.errstate(all="ignore"):
        emulated = emulate(a, y, b)
    same_bits(fma_scalar(a, y, b), np.asarray(emulated, dtype))
    # the ufunc: broadcast operands, an array y, strided and transposed views, out=
    x2, z2 = a.reshape(100, 200), b.reshape(100, 200)
    for x, yy, z in [(x2, y, z2), (x2, z2[0] * y, z2), (x2[:, :1], y, z2), (x2.T, z2.T, x2.T),
                     (x2[::3, 1::2], y, z2[::3, ::2]), (x2, x2[:1, ::-1], z2.T.copy().T)]:
        with np.errstate(all="ignore"):
            want = np.asarray(emulate(x, yy, z), dtype)
        got = fma_ufunc(x, yy, z)
        assert got.shape == want.shape
        same_bits(got, want)
        out = np.array(np.broadcast_to(z, want.shape))
        fma_ufunc(x, yy, out, out=out)
        same_bits(out, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_alpha_ops_broadcast_and_strided_like_torch(dtype):
    """add/sub with alpha, addcmul and add_ on broadcast, transposed and strided operands
    (the compiled fma ufunc): torch's bits, dtype, shape and strides, and the gradients."""
    a, b = (x.reshape(100, 200) for x in _alpha_operands(dtype, 20000, seed=11))
    ea, eb, ta, tb = (f(x) for f in (ember.from_numpy, torch.from_numpy) for x in (a, b))
    pairs = [(lambda m, x, y: m.add(x, y[:1], alpha=0.3)),
             (lambda m, x, y: m.sub(x.t(), y.t()[:, 3:4], alpha=-7)),
             (lambda m, x, y: m.add(x[::3, 1::2], y[::3, ::2], alpha=1 / 3)),
             (lambda m, x, y: m.addcmul(x.t(), y.t(), y[:1].t(), value=0.7)),
             (lambda m, x, y: m.addcmul(x[:, :1], y, x[1], value=-2.5)),
             (lambda m, x, y: x.clone().t().add_(y.t()[:, 5:6], alpha=0.1))]
    with np.errstate(all="ignore"):
        for f in pairs:
            e, t = f(ember, ea, eb), f(torch, ta, tb)
            assert (e.dtype.name, tuple(e.shape), e.stride()) == (dtype, tuple(t.shape), t.stride())
            same_bits(e.numpy(), t.numpy())
    rng = np.random.default_rng(0)
    x, y, w = (rng.standard_normal(s).astype(dtype) for s in [(4, 5), (5, 4), (1, 5)])
    grads = []
    for m in (ember, torch):
        ops = [m.from_numpy(v.copy()).requires_grad_() for v in (x, y, w)]
        out = m.addcmul(ops[0], ops[1].t(), ops[2], value=0.5) + m.sub(ops[0], ops[2], alpha=3)
        grads.append(m.autograd.grad(out, ops, m.ones_like(out)))
    for e, t in zip(*grads):
        assert e.stride() == t.stride()
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [4099, 7])
@pytest.mark.parametrize("weight", [0.1, 0.3, 0.7, 0.999, -0.2, "tensor", "broadcast"])
def test_lerp_and_addcmul_are_torchs_fused_multiply_add(dtype, n, weight):
    """torch's kernels compute lerp as fma(w or w - 1, end - self, self or end) and
    addcmul as fma(value * t1, t2, self): the same bits, functional and in place."""
    rng = np.random.default_rng(n)
    a, b, x, y, w = (rng.standard_normal(n).astype(np.float32) for _ in range(5))
    edt, tdt = getattr(ember, dtype), getattr(torch, dtype)
    E = lambda v: ember.tensor(v).to(edt)
    T = lambda v: torch.tensor(v).to(tdt)
    if weight == "tensor":
        we, wt = E(w), T(w)
    elif weight == "broadcast":
        a, we, wt = a[:1], E(np.float32(0.6)), T(np.float32(0.6))
    else:
        we = wt = weight
    for got, want in ((ember.lerp(E(a), E(b), we), torch.lerp(T(a), T(b), wt)),
                      (E(a).expand(n).clone().lerp_(E(b), we),
                       T(a).expand(n).clone().lerp_(T(b), wt)),
                      (E(b).addcmul_(E(x), E(y), value=0.3), T(b).addcmul_(T(x), T(y), value=0.3)),
                      (E(b).addcmul(E(x), E(y), value=0.3), T(b).addcmul(T(x), T(y), value=0.3))):
        np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
