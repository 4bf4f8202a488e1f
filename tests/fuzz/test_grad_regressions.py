"""Regression tests of the gradient bugs the gradient fuzzer (test_grad_differential.py)
found: each builds the failing call on ember and on torch and compares the forward, the
gradients and (where it was wrong) the double backward, or the error.

    .venv/bin/python -m pytest tests/fuzz/test_grad_regressions.py -q
"""
import math
import warnings

import numpy as np
import pytest
from grad_support import compare_tensor
from helpers import builtin_type, ember_of, to_np, torch_of

import ember

torch = pytest.importorskip("torch")

C = np.array([0.7 + 0.3j, -1.2 + 0.5j, 0.2 - 2.1j])       # complex points
W = np.array([0.4 - 0.9j, 1.1 + 0.2j, -0.6 + 0.8j])       # complex cotangents / weights


def _leaves(arrays, side):
    make = ember_of if side == "ember" else torch_of
    return [make(np.asarray(a)).requires_grad_() for a in arrays]


def check_grads(fn, *arrays, cotangent=None, double=False, inplace=False):
    """fn(lib, *leaves) on ember and torch leaves made of `arrays`: the output, the gradients
    for `cotangent` (ones when None) and, when `double`, the gradients of the gradients'
    sum (with respect to the leaves) match. `inplace`: fn gets clones of the leaves."""
    results = {}
    for side, lib in (("ember", ember), ("torch", torch)):
        leaves = _leaves(arrays, side)
        args = [x.clone() for x in leaves] if inplace else leaves
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(lib, *args)
        cot = np.ones(tuple(out.shape)) if cotangent is None else cotangent
        cot = (ember_of if side == "ember" else torch_of)(
            np.asarray(cot).astype(to_np(out.detach()).dtype))
        grads = lib.autograd.grad(out, leaves, cot, create_graph=double, allow_unused=True)
        second = None
        if double:
            used = [(g, x) for g, x in zip(grads, leaves) if g is not None and g.requires_grad]
            if used:
                total = sum(g.abs().sum() if g.is_complex() else g.sum() for g, _ in used)
                second = lib.autograd.grad(total, [x for _, x in used], allow_unused=True)
        results[side] = (out, grads, second)
    (e_out, e_g, e_gg), (t_out, t_g, t_gg) = results["ember"], results["torch"]
    compare_tensor(e_out, t_out, "output")
    for i, (e, t) in enumerate(zip(e_g, t_g)):
        assert (e is None) == (t is None), f"gradient {i}: ember {e}, torch {t}"
        if t is not None:
            compare_tensor(e, t, f"gradient {i}")
    for i, (e, t) in enumerate(zip(e_gg or (), t_gg or ())):
        if t is not None and e is not None:
            compare_tensor(e, t, f"second gradient {i}")
    return results


def raises_like_torch(fn):
    """fn(lib) raises on both sides, the same builtin type."""
    errors = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as info:
            fn(lib)
        errors.append(info.value)
    assert isinstance(errors[1], builtin_type(type(errors[0]))), errors


# --------------------------------------------------------------------------- complex conj
@pytest.mark.parametrize("op", ["acosh", "asinh", "atanh", "sinc"])
def test_complex_unary_gradients_are_conjugated(op):
    """d/dz of a holomorphic f is grad * conj(f'(z)) (torch's convention); the formulas
    lacked the conj()."""
    check_grads(lambda lib, z: getattr(lib, op)(z), C, cotangent=W, double=True)


def test_lerp_addcmul_addcdiv_complex_gradients():
    check_grads(lambda lib, a, b, w: lib.lerp(a, b, w), C, W, C[::-1].copy(), cotangent=W,
                double=True)
    check_grads(lambda lib, a, b: lib.lerp(a, b, 0.3), C, W, cotangent=W)
    check_grads(lambda lib, s, a, b: lib.addcmul(s, a, b, value=0.5), C, W, C[::-1].copy(),
                cotangent=W, double=True)
    check_grads(lambda lib, s, a, b: lib.addcdiv(s, a, b, value=-2), C, W, C[::-1].copy(),
                cotangent=W, double=True)
    # a real tensor1 with a complex result: the real part of the complex gradient
    check_grads(lambda lib, s, a, b: lib.addcmul(s, a, b), C, np.array([1.5, -2.0, 0.5]),
                W, cotangent=W)


def test_sinc_gradient_where_x_squared_underflows():
    """torch masks x * x == 0, so 1e-200 (whose square underflows) has gradient 0, not
    0/0 = NaN."""
    check_grads(lambda lib, x: lib.sinc(x), np.array([1e-200, 0.0, -1e-170, 0.25]))


def test_sinc_double_backward_at_zero_is_the_second_derivative():
    """sinc''(0) = -pi^2/3 (torch's double backward gives NaN there: not compared)."""
    x = ember.tensor([0.0, 0.5], dtype=ember.float64, requires_grad=True)
    g, = ember.autograd.grad(ember.sinc(x), x, ember.ones(2, dtype=ember.float64),
                             create_graph=True)
    gg, = ember.autograd.grad(g.sum(), x)
    t = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
    tg, = torch.autograd.grad(torch.sinc(t), t, create_graph=True)
    tgg, = torch.autograd.grad(tg.sum(), t)
    np.testing.assert_allclose(to_np(gg), [-math.pi ** 2 / 3, tgg.item()], rtol=1e-13)
    assert to_np(g.detach())[0] == 0


# --------------------------------------------------------------------------- pow
def test_pow_scalar_negative_base_gradient_is_nan():
    """d(b ** e)/de = b ** e * log(b): NaN for a negative real base (it raised a math
    domain error), the complex log for a complex exponent, masked for base 0."""
    e = np.array([0.5, 2.0, -1.0, 3.0])
    for base in (-2.0, -1, 0.0, 0, 2.5):
        check_grads(lambda lib, x, b=base: lib.pow(b, x), e)
    check_grads(lambda lib, x: lib.pow(-2.0, x), C, cotangent=W)
    check_grads(lambda lib, x: lib.pow(0.0, x), C, cotangent=W)
    check_grads(lambda lib, x: lib.float_power(-3, x), e)


# --------------------------------------------------------------------------- add / sub
def test_complex_add_sub_with_float_alpha():
    """torch's alpha check accepts a float alpha for complex results (ember raised
    'For integral input tensors ...')."""
    for op in ("add", "sub"):
        check_grads(lambda lib, a, b, f=op: getattr(lib, f)(a, b, alpha=0.5), C,
                    np.array([1.5, -2.0, 0.5]), cotangent=W)
    check_grads(lambda lib, a: lib.ops.aten.add.Scalar(a, False, 0.5), C, cotangent=W)
    raises_like_torch(lambda lib: lib.add(lib.tensor([1.0]), lib.tensor([2.0]), alpha=1j))


# --------------------------------------------------------------------------- autograd rules
@pytest.mark.parametrize("call", [
    lambda lib, x: lib.sum(x, dtype=lib.int64),
    lambda lib, x: lib.ops.aten.sum.default(x, dtype=lib.bool),
    lambda lib, x: lib.nansum(x, dtype=lib.int32),
    lambda lib, x: lib.prod(x, 0, dtype=lib.int64),
    lambda lib, x: lib.cumsum(x, 0, dtype=lib.int64),
    lambda lib, x: lib.cumprod(x, 0, dtype=lib.int16),
])
def test_integral_dtype_reductions_refuse_autograd(call):
    """torch: 'Autograd not support dtype: Long' (ember gave an output that silently did
    not require grad)."""
    raises_like_torch(lambda lib: call(lib, lib.tensor([1.5, 2.0], requires_grad=True)))
    # without grad recording they work
    for lib in (torch, ember):
        with lib.no_grad():
            call(lib, lib.tensor([1.5, 2.0], requires_grad=True))


def test_to_copy_to_an_integral_dtype_still_works():
    for lib in (torch, ember):
        out = lib.tensor([1.5], requires_grad=True).to(lib.int64)
        assert not out.requires_grad


@pytest.mark.parametrize("op", ["sgn_", "renorm_"])
def test_inplace_composites_do_not_save_the_overwritten_self(op):
    """sgn_/renorm_ computed from self then copied into it: the backward read the
    overwritten self ('modified by an inplace operation')."""
    def call(lib, x):
        y = x * 1.0
        return y.sgn_() if op == "sgn_" else y.renorm_(2, 0, 0.5)
    base = np.array([[0.3, -1.2, 0.0], [2.0, 0.5, -0.7]])
    check_grads(call, base, cotangent=base[::-1].copy(), double=op == "renorm_")
    check_grads(call, C.reshape(1, 3) if op == "sgn_" else base, cotangent=None)


@pytest.mark.parametrize("name", ["addr", "addmv", "addbmm"])
def test_beta_zero_gives_self_a_zero_gradient(name):
    """beta=0 ignores self's values (NaN included) but self keeps a zero gradient (ember's
    self was out of the graph: a None gradient, an error without allow_unused)."""
    self_ = {"addr": np.array([[np.nan, np.inf], [1.0, 2.0]]), "addmv": np.array([np.nan, 1.0]),
             "addbmm": np.array([[np.nan, np.inf], [1.0, 2.0]])}[name]
    a, b = {"addr": ([1.0, 2.0], [3.0, -4.0]),
            "addmv": ([[1.0, 2.0], [3.0, 4.0]], [0.5, -1.0]),
            "addbmm": (np.arange(8.0).reshape(2, 2, 2), np.ones((2, 2, 2)))}[name]
    res = check_grads(lambda lib, s, x, y: getattr(lib, name)(s, x, y, beta=0, alpha=2),
                      self_, np.asarray(a), np.asarray(b), double=True)
    for lib in (torch, ember):   # without allow_unused
        s = (ember_of if lib is ember else torch_of)(self_).requires_grad_()
        out = getattr(lib, name)(s, *(lib.tensor(np.asarray(v)) for v in (a, b)), beta=0)
        g, = lib.autograd.grad(out.sum(), s)
        assert not to_np(g).any()
    assert not to_np(res["ember"][0].detach()).size or np.isfinite(to_np(res["ember"][0].detach())).all()


def test_addbmm_of_empty_batches():
    check_grads(lambda lib, s, a, b: lib.addbmm(s, a, b, beta=0.5, alpha=2),
                np.array([[np.nan, 1.0]]), np.ones((0, 1, 3)), np.ones((0, 3, 2)))


def test_as_strided_of_an_expanded_input():
    """Input elements sharing a storage position share its gradient (torch divides by the
    count): the in-place as_strided_ of an expanded view gave twice the gradient."""
    def inplace(lib, x):
        y = x.clone().expand(1, 2)
        return y.as_strided_([1], [1])
    check_grads(inplace, np.array([[0.5]]), double=True)
    check_grads(lambda lib, x: x.expand(3, 2).as_strided([2, 2], [0, 1]), np.array([1.0, 2.0]))


# --------------------------------------------------------------------------- complex inputs
@pytest.mark.parametrize("call", [
    lambda lib, a: lib.median(a), lambda lib, a: lib.median(a, 0),
    lambda lib, a: lib.nanmedian(a), lambda lib, a: lib.mode(a, 0),
    lambda lib, a: lib.bincount(a), lambda lib, a: lib.fmax(a, a), lambda lib, a: lib.fmin(a, a),
    lambda lib, a: lib.xlogy(a, a), lambda lib, a: lib.special.xlog1py(a, a),
    lambda lib, a: lib.special.zeta(a, a), lambda lib, a: lib.heaviside(a, a),
    lambda lib, a: lib.aminmax(a), lambda lib, a: lib.special.chebyshev_polynomial_t(a, a),
    lambda lib, a: lib.sort(lib.zeros(0, 0, dtype=a.dtype), 2),
    lambda lib, a: lib.median(lib.zeros(0, dtype=a.dtype), 0),
    lambda lib, a: lib.lerp(lib.zeros(3, dtype=lib.float64), lib.zeros(3, dtype=lib.float64), a),
])
def test_complex_inputs_torch_refuses(call):
    """Ops without a complex kernel in torch raise its error (ember computed an answer, or
    raised a KeyError), after the checks torch makes first (dims)."""
    raises_like_torch(lambda lib: call(lib, lib.tensor(C)))


def test_norm_and_dist_of_complex_inputs():
    check_grads(lambda lib, x: lib.ops.aten.norm.Scalar(x, 3), C)
    check_grads(lambda lib, x, y: lib.dist(x, y), C, W)


def test_accumulate_grad_of_a_conjugate_view():
    """backward(gradient=y.conj()) into an empty .grad: the lazy conjugate's raw values were
    taken unconjugated (then every later accumulation was off)."""
    grads = {}
    for lib in (torch, ember):
        x = lib.tensor(C, requires_grad=True)
        y = lib.tensor(W).conj()
        x.backward(y)
        first = x.grad.clone()
        x.backward(y)
        z = lib.tensor(W).conj().requires_grad_()      # a conj() leaf
        (z * lib.tensor(C)).real.sum().backward()
        grads[lib] = [first, x.grad, z.grad]
    for e, t in zip(grads[ember], grads[torch]):
        compare_tensor(e, t, ".grad")
        assert not e.is_conj()


@pytest.mark.parametrize("op", ["xlogy", "xlog1py"])
def test_xlogy_gradients_where_self_is_zero(op):
    """The self gradient is log(other) (log1p) also where self == 0, masked only where the
    log is undefined; the double backward along other follows (ember masked every
    self == 0, giving 0 where torch gives log(other) and 1 / other)."""
    fn = (lambda lib, s, o: lib.xlogy(s, o)) if op == "xlogy" else \
        (lambda lib, s, o: lib.special.xlog1py(s, o))
    self_ = np.array([0.0, 0.0, 0.0, -0.0, 2.0, 0.0])
    other = np.array([1.0, -2.0, 0.5, 3.0, 3.0, np.inf])
    check_grads(fn, self_, other, double=True)


def test_renorm_of_a_nan_slice_passes_the_gradient_through():
    """A slice whose norm is NaN is not rescaled (NaN > maxnorm is false): its gradient is
    grad (ember's norm gradient leaked NaN * 0 into it)."""
    for op in ("renorm", "renorm_"):
        fn = (lambda lib, x, f=op: getattr(x * 1.0, f)(1, 0, 1.0))
        check_grads(fn, np.array([[np.nan, 1.0], [3.0, 4.0]]))   # (torch's 2nd order: NaN)
        check_grads(fn, np.array([[0.25, 0.5], [3.0, 4.0]]), double=True)


def test_cdist_p0_gradients_are_zeros():
    check_grads(lambda lib, a, b: lib.cdist(a, b, p=0.0), np.array([[1.0, 2.0], [3.0, 4.0]]),
                np.array([[0.0, 1.0]]))


def test_reductions_check_the_dim_before_refusing_complex():
    for name in ("max", "min", "median"):
        raises_like_torch(lambda lib, f=name: getattr(lib, f)(lib.zeros(0, dtype=lib.complex128), 0))
        with pytest.raises(IndexError):
            getattr(ember, name)(ember.zeros(0, dtype=ember.complex128), 0)


def test_logsumexp_of_complex_inputs():
    """The gradient is grad * conj(softmax) (ember's lacked the conj()); the max taken out
    is the real parts' (torch's), so the result's imaginary part is the principal one."""
    check_grads(lambda lib, z: lib.logsumexp(z, 0), C, cotangent=np.array(1 + 1j), double=True)
    check_grads(lambda lib, z: lib.logsumexp(z, 0), np.array([-3e5 - 3e5j]))


def test_kthvalue_checks_its_dim_before_refusing_complex():
    raises_like_torch(lambda lib: lib.kthvalue(lib.zeros(0, dtype=lib.complex128), 1, 0))
    with pytest.raises(IndexError):
        ember.kthvalue(ember.zeros(0, dtype=ember.complex128), 1, 0)


def test_tile_gradient_of_an_empty_result():
    """tile with a 0 repeat (and -1 beside it): the backward reshaped the empty grad to a
    split holding -1 and raised."""
    check_grads(lambda lib, x: lib.tile(x.expand(1, 1, 1, 0), [0, -1]), np.ones((1, 1, 1, 0)))
    check_grads(lambda lib, x: lib.tile(x, [0, 2]), np.ones((2, 3)))


def test_pow_of_zero_base_double_backward_has_no_nan():
    """0 ** x: the masked branch reads result 1, so no 0 * -inf reaches the second
    gradient (torch's is NaN there: not compared); first gradients equal torch's."""
    check_grads(lambda lib, x: lib.pow(0.0, x), np.array([0.5, 2.0, -1.0, 0.0]))
    x = ember.tensor([0.5, 2.0, 0.0], dtype=ember.float64, requires_grad=True)
    g, = ember.autograd.grad(ember.pow(0.0, x), x, ember.ones(3, dtype=ember.float64),
                             create_graph=True)
    gg, = ember.autograd.grad(g.sum(), x)
    assert not to_np(gg).any()


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.ops.aten.celu_(x, float("nan")),
    lambda lib, x: lib.ops.aten.elu_(x, float("nan")),
    lambda lib, x: lib.ops.aten.leaky_relu_(x, float("nan")),
    lambda lib, x: lib.ops.aten.elu_(x, -0.5),
])
def test_inplace_elu_backward_refuses_a_nan_or_negative_slope(call):
    """torch's check is `slope >= 0`, which a NaN slope fails too."""
    def run(lib):
        x = lib.tensor([-1.0, 2.0], dtype=lib.float64, requires_grad=True)
        call(lib, x.clone()).sum().backward()
    raises_like_torch(run)


def test_addcdiv_backward_refuses_a_value_overflowing_tensor2():
    """torch's formula computes value / tensor2 as C++'s Scalar / Tensor,
    empty_like(tensor2).fill_(value).div_(tensor2): 1e39 does not fit float32."""
    def run(lib):
        s = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        t1 = lib.ones(3, requires_grad=True)
        t2 = lib.full((3,), 2.0, requires_grad=True)
        lib.autograd.grad(lib.addcdiv(s, t1, t2, value=1e39).sum(), [s, t1, t2])
    raises_like_torch(run)
    check_grads(lambda lib, s, a, b: lib.addcdiv(s, a, b, value=-2.5),
                np.array([1.0, 2.0]), np.array([0.5, -3.0]), np.array([4.0, 0.25]), double=True)


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_of_complex_check_the_dim_first(op):
    """torch wraps the dim (IndexError) before its dtype check, and a 0-d or empty complex
    self never reaches the check (no error)."""
    raises_like_torch(lambda lib: getattr(lib, op)(lib.tensor([1 + 2j]).expand(4), 1))
    raises_like_torch(lambda lib: getattr(lib, op)(lib.tensor([1 + 2j]).expand(4), 0))
    for make in (lambda lib: lib.tensor(2 - 1j), lambda lib: lib.ones(0, dtype=lib.complex64)):
        e, t = getattr(ember, op)(make(ember), 0), getattr(torch, op)(make(torch), 0)
        compare_tensor(e.values, t.values, "values")
        compare_tensor(e.indices, t.indices, "indices")


# --------------------------------------------------------------------------- session 34
@pytest.mark.parametrize("eps", [None, 0.0, -1.0])
def test_logit_gradient_at_negative_zero_is_grad_times_inf(eps):
    """torch's logit_backward gives grad * inf at x == 0, -0.0 included (its scalar loop:
    one element, strided inputs; its vectorized lanes give -grad * inf at -0.0, see
    grad_support.TORCH_NEGATIVE_ZERO_PATH); ember gave -grad * inf."""
    check_grads(lambda lib, x: lib.logit(x, eps), np.array([-0.0]), cotangent=np.array([-2.0]))
    check_grads(lambda lib, x: lib.logit(x[::2], eps), np.array([-0.0, 0.5, 0.0, 0.5, 1.0]))
    check_grads(lambda lib, x: lib.logit(x, eps), np.array([-0.0], np.float32))


@pytest.mark.parametrize("p", [1, 2, 3])
def test_mvlgamma_gradient_at_negative_zero(p):
    """torch adds x to the offsets -(p-1)/2 ... 0, so -0.0 + 0.0 is +0.0 (digamma -inf);
    ember's x - 0 kept -0.0 (digamma +inf)."""
    x = np.array([-0.0, 0.0, 1.5, 2.5])   # (neither torch nor ember checks x > (p-1)/2)
    check_grads(lambda lib, t: lib.mvlgamma(t, p), x, cotangent=np.array([-1.0, 0.5, 2.0, 1.0]))
    check_grads(lambda lib, t: t.mvlgamma_(p), x.astype(np.float32), inplace=True)
    check_grads(lambda lib, t: lib.mvlgamma(t, p), x + 2.25, double=True)


def test_float32_pow_with_an_exponent_beyond_float32_integers():
    """torch's vectorized float32 pow rounds an integral exponent to float32 (2**31 - 1 is
    2**31: even), ember's too; the lanes cover a 64-element tensor (its scalar loop, for
    short or strided inputs, keeps the exponent exact: grad_support drops those cases)."""
    x = np.full(64, -3e5, np.float32)
    x[::3] = -1.0
    check_grads(lambda lib, t: lib.pow(t, 2**31 - 1), x)
    check_grads(lambda lib, t: t.pow_(2**31), x, inplace=True)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.xlogy(x, math.nan),
    lambda lib, x: lib.special.xlogy(x, math.nan),
    lambda lib, x: lib.special.xlog1py(x, math.nan),
    lambda lib, x: x.xlogy_(math.nan),
    lambda lib, x: lib.xlogy(x, -1.5),
    lambda lib, x: lib.special.xlog1py(x, -1.0),
    lambda lib, x: lib.xlogy(x, 2.5),
])
def test_xlogy_with_a_python_number_other(call):
    """torch's Scalar-other formulas zero the gradient where self == 0 unless other > 0
    (> -1 for xlog1py), so a NaN other gives 0 there (ember's went through the Tensor
    formula: NaN)."""
    check_grads(call, np.array([0.0, 2.0, -0.0, 0.5]), inplace=True, double=True)


def test_xlogy_double_backward_of_an_empty_broadcast_with_a_nan_other():
    """The self gradient is xlogy(grad, other) at the (empty) result's shape, as torch's: no
    0 * (1 / NaN) reaches other's second gradient (ember took log(other) at other's shape)."""
    for op in ("xlogy", "xlog1py"):
        fn = (lambda lib, s, o, f=op: lib.xlogy(s, o) if f == "xlogy" else
              lib.special.xlog1py(s, o))
        check_grads(fn, np.zeros(0), np.array([np.nan]), double=True)
        check_grads(fn, np.array([[0.0], [1.5]]), np.array([np.nan, 2.0, -1.0]), double=True)


@pytest.mark.parametrize("op", ["std_mean", "var_mean", "std", "var"])
def test_std_var_with_empty_dims_double_backward(op):
    """dim=[] reduces everything, but torch's backward counts no elements (2 / (1 - 1) is
    inf) and scales grad by that factor before multiplying by self - mean: the second
    gradient along the cotangent is a finite sum times inf (ember scaled the product: inf
    - inf = NaN)."""
    def fn(lib, x):
        out = getattr(lib, op)(x, [])
        return out[0] + 2 * out[1] if isinstance(out, tuple) else out
    res = check_grads(fn, np.array([1.0, -3e5]), double=True)
    assert np.isinf(to_np(res["torch"][1][0].detach())).all()   # (torch's infinite gradient)
    for side, lib in (("ember", ember), ("torch", torch)):
        x = (ember_of if side == "ember" else torch_of)(np.array([1.0, -3e5])).requires_grad_()
        c = lib.tensor(0.7, dtype=lib.float64, requires_grad=True)
        out = getattr(lib, op)(x, [])
        g, = lib.autograd.grad(out[0] if isinstance(out, tuple) else out, x, c,
                               create_graph=True)
        gc, = lib.autograd.grad(g, c, lib.tensor([0.3, 0.2], dtype=lib.float64))
        res[side] = gc
    compare_tensor(res["ember"], res["torch"], "second gradient along the cotangent")


@pytest.mark.parametrize("name", ["relu_", "floor_", "ceil_", "trunc_", "fix_", "sign_",
                                  "clamp_min_", "clamp_max_", "hardtanh_", "mvlgamma_",
                                  "abs_", "clip_"])
def test_complex_refusal_comes_before_the_overlap_error(name):
    """torch refuses complex input in these ops' meta functions (or, for mvlgamma_, in the
    arange before its copy_), before its in-place overlap check: an expanded complex self
    gets the refusal (ember raised the overlap error)."""
    args = {"clamp_min_": (0.5,), "clamp_max_": (0.5,), "mvlgamma_": (1,), "clip_": (0.0, 1.0)}
    errors = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as info:
            getattr(lib.ops.aten, name).default(lib.tensor([2 + 1j]).expand(2),
                                                *args.get(name, ()))
        errors.append(info.value)
    t_err, e_err = errors
    assert isinstance(e_err, builtin_type(type(t_err))), errors
    assert str(e_err).replace("ember", "torch") == str(t_err)
    # a real expanded self still gets the overlap error
    with pytest.raises(RuntimeError, match="more than one element"):
        getattr(ember.ops.aten, name).default(ember.tensor([2.0]).expand(2), *args.get(name, ()))


def test_trapezoid_gradients_with_infinite_samples():
    """Real samples with infinities match torch; complex samples whose parts are infinite
    differ where torch's complex add (self + alpha * other, a complex product) makes NaN
    of the finite part, (1+1j) + (inf-2j) = inf+nanj, ember's (NumPy's) inf-1j:
    grad_support.TORCH_COMPLEX_ADD_NAN."""
    y = np.array([0.5, np.inf, -2.0, 1.5, -np.inf, 3.0])
    x = np.array([1.0, -2.0, 0.5, 4.0, 3.0, -1.0])
    for op in ("trapz", "trapezoid", "cumulative_trapezoid"):
        check_grads(lambda lib, a, b, f=op: getattr(lib, f)(a, b), y, x,
                    cotangent=None if op != "cumulative_trapezoid" else np.arange(5.0) - 2)
        check_grads(lambda lib, a, b, f=op: getattr(lib, f)(a, b), C, x[:3])
    e = ember.tensor([1 + 1j]) + ember.tensor([complex(math.inf, -2)])
    t = torch.tensor([1 + 1j]) + torch.tensor([complex(math.inf, -2)])
    assert to_np(e)[0] == complex(math.inf, -1)
    assert math.isinf(t[0].real) and math.isnan(t[0].imag)


# --------------------------------------------------------------------------- addmm_
def test_addmm_inplace_gradients():
    """addmm_ (new) differentiates as addmm (AddmmBackward0 on self), real and complex,
    double backward included; on a view of a non-leaf it rebases the base's history
    (CopySlices)."""
    rng = np.random.default_rng(0)
    s, a, b = rng.normal(size=(2, 4)), rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    results = check_grads(lambda lib, s, a, b: s.addmm_(a, b, beta=0.5, alpha=2), s, a, b,
                          double=True, inplace=True)
    assert [r[0].grad_fn.name() for r in results.values()] == ["AddmmBackward0"] * 2
    check_grads(lambda lib, s, a, b: s.addmm_(a, b, beta=0.5, alpha=2), s + 1j * s[::-1],
                a + 0j, b * (1 - 1j), cotangent=np.ones((2, 4)) * (0.5 + 1j), double=True,
                inplace=True)

    def on_a_view(lib, s, a, b):
        base = s * 1
        base[:, 1:3].addmm_(a, b[:, :2])
        return base
    results = check_grads(on_a_view, s, a, b, double=True)
    assert [r[0].grad_fn.name() for r in results.values()] == [
        "CopySlices", "torch::autograd::CopySlices"]



# --------------------------------------------------------------------------- node names
@pytest.mark.parametrize("call", [
    lambda lib, x: lib.xlogy(x, 3.0),                        # XlogyBackward2
    lambda lib, x: lib.xlogy(3.0, x),                        # XlogyBackward1
    lambda lib, x: lib.xlogy(x, x.detach() + 1),             # XlogyBackward0
    lambda lib, x: lib.xlogy(0, x),
    lambda lib, x: lib.special.xlogy(2, x),
    lambda lib, x: x.clone().xlogy_(2.0),
    lambda lib, x: lib.special.xlog1py(2.0, x),
    lambda lib, x: lib.special.xlog1py(x, 2.0),
    lambda lib, x: lib.special.zeta(2.0, x + 3),
    lambda lib, x: lib.ops.aten.div.Scalar(x, 2.0),
    lambda lib, x: lib.ops.aten.div.Tensor_mode(x, x.detach() + 3, rounding_mode=None),
    lambda lib, x: lib.ops.aten.divide.Tensor_mode(x, x.detach() + 3, rounding_mode=None),
    lambda lib, x: lib.ops.aten.true_divide.Scalar(x, 2.0),
    lambda lib, x: lib.ops.aten.multiply.Scalar(x, 2.0),
    lambda lib, x: lib.ops.aten.subtract.Scalar(x, 2.0),
    lambda lib, x: lib.ops.aten.pow.Tensor_Scalar(x, 3),
    lambda lib, x: lib.ops.aten.remainder.Scalar(x, 1.5),
    lambda lib, x: lib.ops.aten.fmod.Scalar(x, 1.5),
    lambda lib, x: lib.ops.aten.fill.Tensor(x, x.detach()[0]),
    lambda lib, x: x.clone().fill_(x[0]),
    lambda lib, x: x.clone().lt_(1.0),
    lambda lib, x: x.clone().unsqueeze_(0),
    lambda lib, x: x.clone().unsqueeze(0).squeeze_(0),
    lambda lib, x: x.clone().reshape(2, 2).t_(),
    lambda lib, x: x.clone().reshape(2, 2).transpose_(0, 1),
    lambda lib, x: x.clone().as_strided_((2,), (2,)),
    lambda lib, x: lib.mvlgamma(x + 3, 2).clone().mvlgamma_(1),
    lambda lib, x: lib.select_copy(x, 0, 1),
])
def test_node_names_and_gradients_are_torchs(call):
    """grad_fn.name() is torch's: torch numbers the nodes of an op's overloads by their
    derivatives.yaml order (xlogy(t, 3.0) gave XlogyBackward1, torch's XlogyBackward2), skips
    entries without a differentiable input (lt_.Scalar: LtBackward0), gives in-place views
    nodes of their own (TransposeBackward1), names view_copy nodes '<view node>_copy'; the
    Python-number-self overloads take torch's formulas (grad * self / other)."""
    results = check_grads(call, np.array([0.5, 2.0, 0.0, 3.5]), double=True)
    names = [out.grad_fn.name().removeprefix("torch::autograd::")
             for out, _, _ in results.values()]
    assert names[0] == names[1], names


# --------------------------------------------------------------------------- renorm
@pytest.mark.parametrize("p, maxnorm", [(256, 2.0), (256, 1e-5), (3, 0.5), (2, 1.0), (1.5, 0.1)])
def test_renorm_gradient_follows_torchs_formula(p, maxnorm):
    """renorm has torch's own derivative (renorm_backward, RenormBackward0): the norms in the
    CPU accumulation dtype, float64 for float32, where |x| ** 256 of the float32 forward
    overflows (the gradient was NaN, torch's -inf); float16 accumulates in float32."""
    x = np.array([[1.3696, -2.3021, -4.5903], [-4.8347, 3.1327, 4.1276]])
    for dtype in (np.float32, np.float64, np.float16):
        results = check_grads(lambda lib, s: lib.renorm(s, p, 0, maxnorm), x.astype(dtype),
                              cotangent=np.arange(6.0).reshape(2, 3) - 2, double=True)
        assert [r[0].grad_fn.name() for r in results.values()] == ["RenormBackward0"] * 2
    check_grads(lambda lib, s: s.renorm_(p, 1, maxnorm), x.astype(np.float32), inplace=True)


# --------------------------------------------------------------------------- cov
def _cov_call(input_of, **weights):
    def call(lib):
        dt = {"dtype": lib.float64}
        kwargs = {k: (lib.tensor(v, **dt) if k == "aweights" else lib.tensor(v))
                  for k, v in weights.items()}
        return lib.cov(input_of(lib, dt), **kwargs)
    return call


@pytest.mark.parametrize("call", [
    _cov_call(lambda lib, dt: lib.tensor([1.0], **dt, requires_grad=True), aweights=[4.97]),
    _cov_call(lambda lib, dt: lib.tensor([[1.0]], **dt, requires_grad=True), fweights=[2]),
    _cov_call(lambda lib, dt: lib.tensor([[1.0], [2.0]], **dt, requires_grad=True).t()[:, :1].t(),
              aweights=[0.5]),
    _cov_call(lambda lib, dt: lib.tensor([[1.0]], **dt, requires_grad=True), fweights=[2],
              aweights=[0.5]),
    _cov_call(lambda lib, dt: lib.tensor([[1.0]], **dt, requires_grad=True) * 2, aweights=[0.5]),
    _cov_call(lambda lib, dt: lib.tensor([1.0, 3.0], **dt, requires_grad=True), aweights=[1, 2.]),
])
def test_cov_of_one_weighted_observation_refuses_a_leaf_like_torch(call):
    """One observation with one kind of weights: torch zeroes the input's deviations in place,
    which autograd refuses for a leaf (or a leaf's view) requiring grad; ember answered (it
    computes the zeros without touching the input, and now makes torch's check)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = call(torch)
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match=str(e).split(".")[0]):
                call(ember)
            return
        compare_tensor(call(ember), expected, "cov")


# --------------------------------------------------------------------------- seed 3502
def test_complex_isfinite_isinf_isnan_and_nan_to_num():
    """isfinite/isinf/isnan of complex tensors read both parts (they answered True/False/False
    whatever the values); nan_to_num replaces the non-finite parts of complex elements, and
    its gradient is zero there (through isfinite)."""
    z = np.array([1 + 1j, complex(-math.inf, 3), complex(2, math.nan), 4 + 0j,
                  complex(math.nan, math.inf)])
    for op in ("isfinite", "isinf", "isnan"):
        e, t = (getattr(M, op)(M.tensor(z)) for M in (ember, torch))
        np.testing.assert_array_equal(to_np(e), t.numpy())
    for args in ((), (1.5, 2.0, -3.0)):
        e, t = (M.nan_to_num(M.tensor(z), *args) for M in (ember, torch))
        np.testing.assert_array_equal(to_np(e), t.numpy())
    check_grads(lambda lib, x: x.nan_to_num_(), z, cotangent=W.tolist() + [1j, 2.0],
                inplace=True)


def test_seed_3502_gradients():
    """celu's derivative reads alpha as a float32 (torch's alpha.toFloat(): 1e39 overflows);
    cumprod's takes grad in self's dtype first (a complex self with dtype=float32 gets the
    complex formula); 0 ** x's double backward is 0, not NaN, along the cotangent; unfold of
    a 0-d self with size 0 has gradient 0."""
    x = np.array([-3.5, 0.5])
    for lib in (ember, torch):
        t = lib.tensor(x, requires_grad=True)
        with pytest.raises(RuntimeError, match="cannot be converted to type float without "
                                               "overflow"):
            lib.autograd.grad(lib.nn.functional.celu(t, 1e39).sum(), t)
    check_grads(lambda lib, z: lib.cumprod(z, -1, dtype=lib.float32).to(lib.float64),
                np.array([3.8 + 1j, 0.28 + 0j, -1.4 + 0j]))
    second = []
    for lib in (ember, torch):
        e = lib.tensor([1.5, -2.1, 2.5], dtype=lib.float64, requires_grad=True)
        cot = lib.ones(3, dtype=lib.float64, requires_grad=True)
        g, = lib.autograd.grad(lib.float_power(-0.0, e), e, cot, create_graph=True)
        second.append(lib.autograd.grad(g.sum(), cot)[0])
    compare_tensor(*second, "second gradient along the cotangent")
    for size in (0, 1):
        check_grads(lambda lib, s, n=size: s.unfold(-1, n, 2), np.array(4.0), double=True)


def test_adjoint_of_a_real_0d_tensor_is_itself():
    """torch's adjoint of a 0-d tensor (deprecated) returns a real self itself (no view, no
    grad_fn; the gradient fuzzer compares grad_fn.name()), a complex one's conj()."""
    for lib in (ember, torch):
        x = lib.tensor(2.0, requires_grad=True)
        with warnings.catch_warnings():     # (torch warns once per process)
            warnings.simplefilter("ignore")
            assert x.adjoint() is x
            z = lib.tensor(2.0 + 1j).adjoint()
        assert z.is_conj() and z.resolve_conj().item() == 2 - 1j


def test_known_hardswish_backward_at_nan_depends_on_the_lane():
    """TORCH_SIMD_NAN (grad_support): torch's hardswish_backward at a NaN self gives NaN in
    its vectorized lanes and grad in its scalar tail, so the element's position decides;
    ember gives the scalar loop's grad everywhere."""
    x = torch.zeros(17, dtype=torch.float64)
    x[0] = x[16] = math.nan
    g = torch.ops.aten.hardswish_backward(torch.full((17,), 2.0, dtype=torch.float64), x)
    assert math.isnan(g[0]) and g[16] == 2.0
    e = ember.ops.aten.hardswish_backward(ember.full((17,), 2.0, dtype=ember.float64),
                                          ember_of(x.numpy()))
    assert to_np(e)[[0, 16]].tolist() == [2.0, 2.0]


def test_seed_3651_gradients():
    """Complex Scalars in the gradient fuzzer: var/std's backward reads a complex correction
    with no imaginary part as torch (it raised TypeError); celu/elu with such a parameter
    differentiate as with the real one."""
    x = np.array([[1e4, 1e4], [1.5, -2.0]])
    for op in ("var", "std"):
        check_grads(lambda lib, t, op=op: getattr(lib, op)(t, [-1], correction=0j), x)
    check_grads(lambda lib, t: lib.nn.functional.celu(t, 2 + 0j), x, double=True)
    check_grads(lambda lib, t: lib.nn.functional.elu(t, 1.5 + 0j), x, double=True)


def test_known_pow_second_gradient_of_a_nan_self_broadcast_away():
    """TORCH_SECOND_ORDER_NAN (float_power.Tensor_Tensor): self = [nan] and an empty
    exponent give an empty result; the second gradient with respect to self (through the
    exponent's gradient result * log(self)) is torch's sum-then-divide 0 / nan = NaN,
    ember's divide-then-sum over no elements 0."""
    second = {}
    for lib in (ember, torch):
        s = lib.tensor([math.nan], dtype=lib.float64, requires_grad=True)
        e = lib.tensor([], dtype=lib.float64, requires_grad=True)
        out = lib.float_power(s, e)
        _, ge = lib.autograd.grad(out, (s, e), lib.ones(0, dtype=lib.float64), create_graph=True)
        second[lib] = lib.autograd.grad(ge, s, lib.ones(0, dtype=lib.float64))[0].tolist()
    assert math.isnan(second[torch][0]) and second[ember] == [0.0]


def test_seed_3652_gradients():
    """The in-place activations' backward reads a complex slope/alpha with no imaginary part
    (its negative-slope check raised TypeError), threshold_backward a complex threshold (it
    refused the real self at the Complex key)."""
    x = np.array([[3.5, -0.75], [1.25, -2.0]])
    for fn in (lambda lib, t: lib.nn.functional.elu_(t * 1, 1.5 + 0j),
               lambda lib, t: lib.nn.functional.celu_(t * 1, 1.5 + 0j),
               lambda lib, t: lib.nn.functional.leaky_relu_(t * 1, 1.5 + 0j),
               lambda lib, t: lib.threshold(t, 1 + 0j, 2.0)):
        check_grads(fn, x, double=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sinc_second_derivative_near_zero(dtype):
    """sinc's derivative is a Taylor series for |pi x| < 0.5: its second derivative near 0 is
    -pi^2/3 + pi^4 x^2 / 10 (torch's float32 closed form cancels: 0 at 1e-6, -3.2454 at
    1e-3; TORCH_CANCELLATION), and the first derivative is torch's away from 0."""
    xs = [1e-6, -1e-3, 0.02, 0.1, 0.3, -1.7, 4.2]
    x = ember.tensor(xs, dtype=getattr(ember, dtype), requires_grad=True)
    g, = ember.autograd.grad(ember.sinc(x).sum(), x, create_graph=True)
    gg, = ember.autograd.grad(g.sum(), x)
    u = np.pi * np.array(xs[:2])
    exact = -np.pi ** 2 / 3 + np.pi ** 2 * u ** 2 / 10
    np.testing.assert_allclose(to_np(gg)[:2], exact, rtol=1e-6)
    t = torch.tensor(xs, dtype=getattr(torch, dtype), requires_grad=True)
    tg, = torch.autograd.grad(torch.sinc(t).sum(), t)
    np.testing.assert_allclose(to_np(g.detach())[3:], tg.numpy()[3:], rtol=1e-6, atol=1e-6)


def test_sinc_second_derivative_of_large_inputs():
    """Seed 3653: sinc's series was evaluated at every element and masked by a where(): its
    u^16 overflows in float32 from |x| ~ 1e4, and the masked branch's 0 * inf made the second
    derivative NaN there (torch: -1.72e-07 at 3e5)."""
    check_grads(lambda lib, x: lib.sinc(x), np.array([-3e5, 1e4, 2e19, 2.5], np.float32),
                double=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["i1", "i1e"])
def test_i1_i1e_second_derivatives_near_zero(op, dtype):
    """i1' is a power series for |x| < 1 (the closed form i0(x) - i1(x) / x cancels when
    differentiated again: float32 i1''(1e-6) was 0, torch's 0.125, exact 3x/8 = 3.75e-07;
    i1e''(1e-6) -1.0, torch's -0.84375, exact -1 + 15x/8); elsewhere the first and second
    derivatives are torch's float64 ones."""
    xs = [1e-6, -1e-6, 2e-3, -0.3, 0.9, -1.0, 1.7, 4.2]
    x = ember.tensor(xs, dtype=getattr(ember, dtype), requires_grad=True)
    g, = ember.autograd.grad(getattr(ember.special, op)(x).sum(), x, create_graph=True)
    gg, = ember.autograd.grad(g.sum(), x)
    near_zero = np.array(xs[:2])
    exact = 3 * near_zero / 8 if op == "i1" else np.sign(near_zero) * (15 * np.abs(near_zero)
                                                                        / 8 - 1)
    rtol = 1e-6 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(to_np(gg)[:2], exact, rtol=rtol)
    t = torch.tensor(xs[2:], dtype=torch.float64, requires_grad=True)
    tg, = torch.autograd.grad(getattr(torch.special, op)(t).sum(), t, create_graph=True)
    tgg, = torch.autograd.grad(tg.sum(), t)
    # (torch's closed forms cancel a little there too: errors relative to 1)
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(to_np(g.detach())[2:], tg.detach().numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(to_np(gg)[2:], tgg.numpy(), rtol=tol, atol=tol)


def _node_chain(out) -> list:
    """grad_fn.name() along each node's first input, down to the leaf."""
    names, node = [], out.grad_fn
    while node is not None:
        names.append(node.name().removeprefix("torch::autograd::"))
        node = node.next_functions[0][0] if node.next_functions else None
    return names


_RNG = np.random.default_rng(5)


@pytest.mark.parametrize("shapes, call", [
    # (3, 4) @ (2, 4, 5): torch folds the batch into one mm of the transposed operands and
    # makes the transposed result contiguous (CloneBackward0); ember gave bmm's UnsafeView
    (((3, 4), (2, 4, 5)), lambda lib, a, b: a @ b),
    (((4,), (2, 4, 5)), lambda lib, a, b: a @ b),
    (((2, 3, 4), (4, 5)), lambda lib, a, b: a @ b),
    # a constant other and a self whose batch does not fold into rows: bmm, and for a
    # vector other torch's squeeze (SqueezeBackward1) before the view
    (((3, 1, 2, 4), (4,)), lambda lib, a, b: a.transpose(0, 2) @ b.detach()),
    (((3, 2, 4), (4, 5)), lambda lib, a, b: a.transpose(0, 1) @ b.detach()),
    (((3, 4), (2, 4, 5)), lambda lib, a, b: a.detach() @ b),
    # kron: torch's _unsafe_views of both inputs and of the product
    (((2, 3), (3, 2)), lambda lib, a, b: lib.kron(a, b)),
    (((3,), (2, 2)), lambda lib, a, b: lib.kron(a, b)),
])
def test_matmul_and_kron_graphs_are_torchs(shapes, call):
    """matmul follows torch's _matmul_impl (should_fold, the transposed fold, bmm with a
    squeezed vector) and kron its _unsafe_views: the same nodes, values and gradients."""
    results = check_grads(call, *(_RNG.standard_normal(s) for s in shapes), double=True)
    # (reshape's own difference, grad_support.NODE_NAMES_DIFFER: torch's reshape of a
    # viewable non-contiguous tensor records ReshapeAlias, ember's View)
    chains = [[n.replace("ReshapeAlias", "View") for n in _node_chain(out)]
              for out, _, _ in results.values()]
    assert chains[0] == chains[1], chains
    outs = [out for out, _, _ in results.values()]
    assert outs[0].stride() == outs[1].stride()


def test_add_of_a_0d_meta_tensor_into_a_cpu_tensor_raises():
    """ember.ones(3).add_(0-d meta tensor) raises torch's device error for the out-of-place
    add (`Tensor on device meta is not on the expected device cpu!`); torch's in-place
    add_ picks the Meta kernel for the mixed key set and returns self unchanged, a wrong
    answer (ones(3) + that tensor raises in torch too), not a rule to follow."""
    meta = {lib: lib.tensor(2.0, device="meta") for lib in (ember, torch)}
    assert torch.ones(3).add_(meta[torch]).tolist() == [1.0] * 3      # (torch's no-op)
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="Tensor on device meta is not on the "
                                               "expected device cpu"):
            lib.ones(3) + meta[lib]
    for inplace in (lambda t, m: t.add_(m), lambda t, m: t.mul_(m), lambda t, m: t.copy_(m)):
        with pytest.raises((RuntimeError, NotImplementedError)):
            inplace(ember.ones(3), meta[ember])


def test_seed_3653_findings():
    """nan_to_num wrote its replacements one after another over masks read from the output
    itself: a +inf replaced by a negative posinf then counted as a -inf (nan_to_num(inf,
    posinf=-1.5, neginf=0.0) gave 0.0), in each part of a complex element too; aminmax of a
    complex self checks its dim (IndexError) before refusing the dtype, as torch."""
    values = np.array([math.inf, -math.inf, math.nan, 2.0])
    check_grads(lambda lib, x: lib.nan_to_num(x, -1.5, -1.5, 0.0), values)
    check_grads(lambda lib, x: x.clone().nan_to_num_(-1.5, -1.5, 0.0), values)
    z = [complex(math.inf, 1), complex(1, math.inf), complex(math.nan, -math.inf)]
    e, t = (lib.nan_to_num(lib.tensor(z), -1.5, -1.5, 0.0) for lib in (ember, torch))
    np.testing.assert_array_equal(to_np(e), t.numpy())
    raises_like_torch(lambda lib: lib.aminmax(lib.tensor([[1j]]), dim=-3))


@pytest.mark.parametrize("op", ["std", "var", "std_mean", "var_mean"])
def test_seed_3654_variance_of_equal_values_is_zero(op):
    """Seed 3654: var/std of a row of equal values was a rounding error of the mean (2e-31),
    and std's gradient there the quotient of two rounding errors (-1.35, torch's masked 0);
    the corrected two-pass sum subtracts (sum dev)^2 / n: exactly 0, as torch's Welford."""
    def fn(lib, x, n=21):
        out = getattr(lib, op)(x.expand(2, n), [1], keepdim=True)
        return out[0] if isinstance(out, tuple) else out
    results = check_grads(fn, np.array([[3.08560746], [-0.22184905]]))
    assert to_np(results["ember"][0].detach()).tolist() == [[0.0], [0.0]]
    check_grads(lambda lib, x: fn(lib, x, 3), np.array([[-4.37533432 + 5j], [-2.9036721 + 1j]]))
