"""Complex dtypes against torch: creation, promotion, printing, the view ops (.real,
.imag, view_as_real/complex), conj, abs/angle/sgn/polar/complex, arithmetic and the
ops torch refuses on complex tensors, casts, serialization, and autograd (gradcheck in
the conjugate Wirtinger convention, gradients equal to torch's)."""
import io
import warnings

import numpy as np
import pytest
from helpers import assert_same, check, pair, raises_like, to_np

import ember

torch = pytest.importorskip("torch")

Z = np.array([[1 + 2j, 3 - 1j, 0j], [-0.5 + 0.25j, 2j, -4 + 0j]], np.complex64)


def _same_values(e, t, rtol=1e-6):
    """shape, dtype, strides as torch's; values within rtol (complex ops on NumPy and on
    torch's vectorised loops round differently)."""
    check(e, t, {"complex64": (rtol, rtol), "complex128": (1e-12, 1e-12),
                 "float32": (rtol, rtol), "float64": (1e-12, 1e-12)})


# ---- dtypes, promotion, creation ----------------------------------------------------------
def test_dtype_objects_and_aliases():
    assert ember.cfloat is ember.complex64 and ember.cdouble is ember.complex128
    for name in ("complex64", "complex128"):
        e, t = getattr(ember, name), getattr(torch, name)
        assert e.is_complex == t.is_complex and e.itemsize == t.itemsize
        assert e.is_floating_point == t.is_floating_point
        assert e.to_real().name == str(t.to_real()).removeprefix("torch.")
    assert ember.float64.to_complex() is ember.complex128
    assert repr(ember.complex64) == "ember.complex64"
    assert ember.finfo(ember.complex64).eps == torch.finfo(torch.complex64).eps


@pytest.mark.parametrize("a,b", [
    ("float32", "complex64"), ("float64", "complex64"), ("float16", "complex64"),
    ("bfloat16", "complex128"), ("int64", "complex64"), ("bool", "complex128"),
    ("complex64", "complex128")])
def test_promote_types(a, b):
    e = ember.promote_types(getattr(ember, a), getattr(ember, b))
    t = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert e.name == str(t).removeprefix("torch.")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bfloat16", "complex64"])
@pytest.mark.parametrize("number", [1j, 2.5 - 1j])
def test_result_type_with_a_complex_number(dtype, number):
    """A Python complex is a wrapped number: the default complex dtype, keeping a float
    tensor's precision (float64 + 1j is complex128)."""
    e = ember.ones(2, dtype=getattr(ember, dtype)) + number
    t = torch.ones(2, dtype=getattr(torch, dtype)) + number
    assert_same(e, t)


def test_zero_dim_complex_tensor_promotes_by_category():
    e = ember.ones(2) + ember.tensor(1j, dtype=ember.complex128)
    t = torch.ones(2) + torch.tensor(1j, dtype=torch.complex128)
    assert_same(e, t)        # complex64: the float32 tensor's precision


def test_default_complex_dtype_follows_the_default_float():
    assert ember.tensor([1j]).dtype is ember.complex64
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.tensor([1j]).dtype is ember.complex128
        assert ember.get_default_complex_dtype() is ember.complex128
    finally:
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("data,kw", [
    ([1 + 2j, 3], {}), ([[1, 2j], [3.5, -1]], {}), (1j, {}), ([1, 2], {"dtype": "complex128"}),
    ([1.5 + 2j], {"dtype": "complex64"}), ([True, 2j], {})])
def test_tensor_creation(data, kw):
    e = ember.tensor(data, **{k: getattr(ember, v) for k, v in kw.items()})
    t = torch.tensor(data, **{k: getattr(torch, v) for k, v in kw.items()})
    assert_same(e, t)


def test_factories_and_numpy_round_trip():
    for shape in ((2, 3), (), (0, 2)):
        for f in ("zeros", "ones"):
            assert_same(getattr(ember, f)(shape, dtype=ember.complex64),
                        getattr(torch, f)(shape, dtype=torch.complex64))
    assert_same(ember.full((2,), 1 - 1j), torch.full((2,), 1 - 1j))
    e, t = pair(Z)
    assert_same(e, t)
    np.testing.assert_array_equal(e.numpy(), Z)
    assert ember.from_numpy(Z.astype(np.complex128)).dtype is ember.complex128
    assert e[0, 1].item() == t[0, 1].item() and e.tolist() == t.tolist()
    assert complex(e[0, 0]) == complex(t[0, 0])


def test_random_complex_factories():
    """randn's real and imaginary parts have variance 1/2 each (torch's); rand's are
    uniform on [0, 1)."""
    g = ember.Generator().manual_seed(0)
    z = ember.randn(20000, dtype=ember.complex128, generator=g)
    assert z.dtype is ember.complex128
    assert abs(float(z.real.var()) - 0.5) < 0.03 and abs(float(z.imag.var()) - 0.5) < 0.03
    u = ember.rand(1000, dtype=ember.complex64, generator=g)
    assert float(u.real.min()) >= 0 and float(u.imag.max()) < 1


@pytest.mark.parametrize("values", [
    Z, Z.astype(np.complex128), np.array(1 - 0j, np.complex64), np.zeros(0, np.complex64),
    np.array([1e-5 + 1j, 1000 + 2j]), np.array([1.5 + 2.25j, -3e10j]),
    np.array([complex(0, -0.0), 1e-6j, 2e9 + 1j]), np.array([np.nan + 1j * np.inf, 1]),
    (np.arange(2000) * 1j).astype(np.complex64)])
def test_printing(values):
    e, t = pair(values)
    assert repr(e) == repr(t).replace("torch.", "ember.")


# ---- views ------------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_real_imag_view_as_real_are_views(layout):
    e, t = pair(np.concatenate([Z, Z * 2j]))
    if layout == "transposed":
        e, t = e.t(), t.t()
    elif layout == "strided":
        e, t = e[1::2], t[1::2]
    for f in (lambda x: x.real, lambda x: x.imag, torch_or_ember("view_as_real")):
        re, rt = f(e), f(t)
        assert_same(re, rt)
        assert re.storage_offset() == rt.storage_offset()
        assert re.untyped_storage().data_ptr() == e.untyped_storage().data_ptr()
    assert_same(ember.view_as_complex(ember.view_as_real(e)),
                torch.view_as_complex(torch.view_as_real(t)))


def torch_or_ember(name):
    return lambda x: getattr(ember if isinstance(x, ember.Tensor) else torch, name)(x)


def test_writes_through_real_and_imag():
    e, t = pair(Z)
    for x in (e, t):
        x.real[0, 0] = 7.0
        x.imag.mul_(2)
        x.real = x.real + 1
    assert_same(e, t)


def test_view_errors():
    x = np.ones((3, 2), np.float32)
    raises_like(lambda: ember.view_as_real(ember.ones(2)), lambda: torch.view_as_real(torch.ones(2)),
                "view_as_real is only supported for complex tensors")
    raises_like(lambda: ember.ones(2).imag, lambda: torch.ones(2).imag,
                "imag is not implemented for tensors with non-complex dtypes.")
    for f, phrase in [(lambda m: m.view_as_complex(m.from_numpy(x).t()), "last dimension"),
                      (lambda m: m.view_as_complex(m.ones(2, 3)), "last dimension of size 2"),
                      (lambda m: m.view_as_complex(m.ones(5)[1:].view(2, 2)), "storage_offset"),
                      (lambda m: m.view_as_complex(m.ones(2, 2, dtype=m.int32)), "Int"),
                      (lambda m: m.view_as_complex(m.ones(())), "one or more dimensions")]:
        raises_like(lambda f=f: f(ember), lambda f=f: f(torch), phrase)


def test_real_of_a_real_tensor_is_itself():
    x = ember.ones(2)
    assert x.real is x and ember.conj(x) is x and x.conj_physical() is x
    assert x.resolve_conj() is x and not x.conj().is_conj()


# ---- conj -------------------------------------------------------------------------------------
CONJ_CASES = {
    "conj": lambda x: x.conj(), "conj_conj": lambda x: x.conj().conj(),
    "conj_physical": lambda x: x.conj_physical(), "resolve": lambda x: x.conj().resolve_conj(),
    "mH": lambda x: x.mH, "adjoint": lambda x: x.adjoint(), "H": lambda x: x.H,
    "view_of_conj": lambda x: x.conj()[1:, ::2].t(), "clone": lambda x: x.conj().clone(),
    "arith": lambda x: x.conj() * 2 + x, "to": lambda x: x.conj().to(x.dtype),
    "contiguous": lambda x: x.conj().contiguous(), "detach": lambda x: x.conj().detach(),
    "cat": lambda x: x.__class__.__module__ and _lib(x).cat([x.conj(), x]),
    "sum": lambda x: x.conj().sum(0), "real": lambda x: x.conj().real,
    "imag": lambda x: x.conj().imag, "abs": lambda x: x.conj().abs(),
    "mm": lambda x: x.conj() @ x.mT, "index": lambda x: x.conj()[[1, 0]],
    "eq": lambda x: x.conj() == x.conj_physical(),
}


def _lib(x):
    return ember if isinstance(x, ember.Tensor) else torch


@pytest.mark.parametrize("case", sorted(CONJ_CASES))
def test_conj_bit(case):
    """conj() is a lazy view (the conjugate bit), as torch's: values, is_conj(), layout
    and whether the result shares the input's storage match."""
    f = CONJ_CASES[case]
    e, t = pair(Z)
    re, rt = f(e), f(t)
    assert re.is_conj() == rt.is_conj()
    if case == "imag":   # torch: a view with the negative bit; ember has none: a new tensor
        np.testing.assert_array_equal(to_np(re), to_np(rt))
        assert re.untyped_storage().data_ptr() != e.untyped_storage().data_ptr()
        return
    _same_values(re, rt)
    shares = [r.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
              for r, x in ((re, e), (rt, t))]
    assert shares[0] == shares[1]


def test_writes_through_a_conj_view():
    """In-place ops, setitem and out= into a conjugate view write the conjugate of the
    result into the viewed storage (torch's conjugate fallback)."""
    e, t = pair(Z)
    for x in (e, t):
        c = x.conj()
        assert c.add_(1j) is c
        c[0, 0] = 5 - 5j
        c[1].mul_(2)
        _lib(x).mul(c[:, 0], 1j, out=c[:, 1])
    assert_same(e, t)


def test_conj_bit_leaves_numpy_and_printing_to_torchs_rules():
    e, t = pair(Z)
    assert repr(e.conj()) == repr(t.conj()).replace("torch.", "ember.")
    raises_like(lambda: e.conj().numpy(), lambda: t.conj().numpy(),
                "Can't call numpy() on Tensor that has conjugate bit set")
    raises_like(lambda: ember.view_as_real(e.conj()), lambda: torch.view_as_real(t.conj()),
                "view_as_real doesn't work on unresolved conjugated tensors")
    np.testing.assert_array_equal(e.conj().numpy(force=True), Z.conj())
    assert e.conj().tolist() == t.conj().tolist()
    assert e.conj()[0, 1].item() == t.conj()[0, 1].item()
    m = e.conj().to("meta")
    assert m.is_conj() == t.conj().to("meta").is_conj()


# ---- pointwise ----------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["abs", "angle", "sgn", "neg", "exp", "log", "sqrt", "sin", "cos",
                                "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "sigmoid",
                                "reciprocal", "rsqrt", "exp2", "expm1", "log2", "log10", "log1p",
                                "isnan", "isinf", "isfinite", "logical_not"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_unary_ops(op, dtype):
    e, t = pair(Z.astype(dtype))
    _same_values(getattr(e, op)(), getattr(t, op)(), rtol=2e-6)


@pytest.mark.parametrize("values", [np.array([-1.0, 0.0, -0.0, 2.0, np.nan], np.float32),
                                    np.array([-3, 0, 2]), np.array([1.5, -2.0])])
def test_angle_and_sgn_of_real_tensors(values):
    e, t = pair(values)
    assert_same(e.angle(), t.angle())
    assert_same(e.sgn(), t.sgn())


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "eq", "ne"])
@pytest.mark.parametrize("other", ["complex", "float64", "int", "complex_number", "float"])
def test_binary_ops(op, other):
    e, t = pair(Z + 0.5)   # (no zero base: 0 ** w is inf+nanj in torch, nan+nanj in NumPy)
    if other == "complex":
        oe, ot = pair(Z[::-1].copy() + 1)
    elif other == "float64":
        oe, ot = pair(np.array([1.5, -2.0, 3.0]))
    elif other == "int":
        oe, ot = pair(np.array([1, 2, 3]))
    else:
        oe = ot = 2 - 1.5j if other == "complex_number" else 2.5
    _same_values(getattr(e, op)(oe), getattr(t, op)(ot), rtol=1e-5)


def test_polar_and_complex():
    r, th = np.array([1.0, 2.0, 0.5], np.float32), np.array([0.0, 1.0, -2.0], np.float32)
    (er, tr), (eth, tth) = pair(r), pair(th)
    _same_values(ember.polar(er, eth), torch.polar(tr, tth))
    assert_same(ember.complex(er, eth), torch.complex(tr, tth))
    raises_like(lambda: ember.complex(er, eth.double()), lambda: torch.complex(tr, tth.double()),
                "Expected object of scalar type Float but got scalar type Double")
    raises_like(lambda: ember.polar(er.long(), eth.long()), lambda: torch.polar(tr.long(), tth.long()),
                "Expected both inputs to be Half, Float or Double tensors but got Long and Long")


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "var", "std", "cumsum", "cumprod"])
def test_reductions(op):
    e, t = pair(Z)
    args = (0,) if op.startswith("cum") else ()
    _same_values(getattr(e, op)(*args), getattr(t, op)(*args), rtol=1e-5)


def test_matmul():
    (a, ta), (b, tb) = pair(Z), pair(Z.T.copy() * 1j)
    _same_values(a @ b, ta @ tb, rtol=1e-5)
    _same_values(ember.mm(a, b), torch.mm(ta, tb), rtol=1e-5)
    _same_values(a[0].dot(b[:, 0]), ta[0].dot(tb[:, 0]), rtol=1e-5)


@pytest.mark.parametrize("expr", [
    "x < 1", "x > x", "x <= 1", "x >= x", "x.max()", "x.min()", "x.amax()", "x.argmax()",
    "torch.maximum(x, x)", "torch.minimum(x, x)", "x.clamp(0, 1)", "x.clamp(min=0)", "x.floor()",
    "x.ceil()", "x.round()", "x.trunc()", "x.frac()", "x.sign()", "x % 2", "torch.fmod(x, 2)",
    "x // 2", "x.sort()", "x.topk(1)", "torch.relu(x)", "torch.atan2(x, x)", "torch.erf(x)",
    "x.signbit()", "x.argsort()", "x.bitwise_not()", "x & x", "x.unique()", "x.max(0)",
    "torch.div(x, x, rounding_mode='trunc')", "x.softmax(0)", "x < 1j", "torch.ones(2) < 1j",
    # a complex number in a Scalar argument, complex views of real tensors, conj views
    "torch.ones(2).lt(1j)", "torch.remainder(torch.ones(2), 1j)", "torch.ones(2).fmod(1j)",
    "torch.floor_divide(torch.ones(2), 1j)", "torch.view_as_complex(torch.ones(3, 2)) < 1",
    "x.conj().clamp(0, 1)", "x[1:].relu()",
    # torch.special and the reductions from main
    "torch.isin(x, 1)", "torch.mvlgamma(x, 1)", "torch.polygamma(0, x)", "torch.polygamma(1, x)",
    "torch.polygamma(3, x)", "x.polygamma_(1)", "x.to(torch.complex128).mvlgamma_(2)",
    "x.digamma()", "x.lgamma()", "x.erfc()", "x.erfinv()", "x.i0()", "torch.special.i1(x)",
    "torch.special.ndtr(x)", "torch.special.ndtri(x)", "torch.special.bessel_j0(x)",
    "torch.special.airy_ai(x)", "torch.special.entr(x)", "torch.special.erfcx(x)",
    "x.isposinf()", "x.isneginf()", "x.deg2rad()", "x.rad2deg_()", "x.abs_()",
    "x.geometric_(0.5)", "torch.ops.aten.threshold_backward(x, x, 0)",
    "torch.nn.functional.max_pool2d(x.view(1, 1, 1, 3), 1)"])
def test_ops_torch_refuses_on_complex(expr):
    """torch's exception type and message (not NumPy's lexicographic order)."""
    def run(lib):
        x = lib.tensor([1 + 2j, 3 - 1j, -0.5 + 0.25j])
        return eval(expr, {"torch": lib, "x": x})
    with pytest.raises(Exception) as te:
        run(torch)
    with pytest.raises(type(te.value)) as ee:
        run(ember)
    assert str(ee.value) == str(te.value).replace("torch.", "ember.")


def test_complex_key_follows_dtype():
    """Complex tensors (and their complex views) carry the Complex dispatch key, where the
    refusals above sit; real tensors, real views of complex ones and real calls do not
    reach it, and compute as torch."""
    from ember.dispatch.keys import COMPLEX_BIT
    e, t = pair(Z)
    assert e._ks & COMPLEX_BIT and e.conj()._ks & COMPLEX_BIT and e[0]._ks & COMPLEX_BIT
    assert not ember.ones(2)._ks & COMPLEX_BIT
    assert ember.view_as_complex(ember.ones(3, 2))._ks & COMPLEX_BIT
    for real_e, real_t in ((ember.view_as_real(e), torch.view_as_real(t)), (e.real, t.real),
                           (e.imag, t.imag), (e.abs(), t.abs())):
        assert not real_e._ks & COMPLEX_BIT
        assert_same(real_e.clamp(0, 1), real_t.clamp(0, 1))
        assert_same(real_e < 1, real_t < 1)
        assert_same(real_e.relu(), real_t.relu())


@pytest.mark.parametrize("expr", ["x < 1", "x.max()", "x.clamp(0, 1)", "x.relu()", "x.floor()",
                                  "x.argmax()", "torch.maximum(x, x)", "x.sort()[0]", "x % 2"])
def test_meta_tensors_take_complex_like_torch(expr):
    """torch's meta functions have no dtype dispatch: the refusals are the CPU kernels'."""
    def run(lib):
        return eval(expr, {"torch": lib, "x": lib.tensor([1 + 2j, 3 - 1j]).to("meta")})
    e, t = run(ember), run(torch)
    assert e.device.type == "meta" and str(e.dtype) == str(t.dtype).replace("torch", "ember")
    assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride()


@pytest.mark.parametrize("expr", [
    "torch.cov(x)", "torch.cov(x, correction=0, fweights=torch.tensor([1, 2, 1]))",
    "torch.cov(x[0])", "torch.corrcoef(x)", "torch.float_power(x, 2)",
    "torch.float_power(x.real, 1j)", "torch.float_power(2, x)", "torch.float_power(x.real, 2)"])
def test_statistics_and_float_power_on_complex(expr):
    """cov conjugates its second factor, corrcoef clips the real and imaginary parts, and
    float_power computes in complex128 when an operand is complex, as torch's."""
    def run(lib):
        x = lib.tensor([[1 + 2j, 3 - 1j, 0.5j], [2 - 1j, -1 + 0j, 4 + 4j]])
        return eval(expr, {"torch": lib, "x": x})
    _same_values(run(ember), run(torch), rtol=1e-5)


@pytest.mark.parametrize("expr", [
    "L.linalg.det(a)", "L.linalg.solve(a, a)", "L.linalg.svd(a)", "L.linalg.eigh(a)",
    "L.linalg.pinv(a)", "L.linalg.lstsq(a, a)", "L.linalg.vector_norm(a)", "L.linalg.lu_factor(a)",
    "L.linalg.vecdot(a, a)", "L.linalg.solve_triangular(a, a, upper=True)",
    "L.linalg.householder_product(a, a[0])", "L.norm(a)"])
def test_linalg_computes_complex_like_torch(expr):
    """torch.linalg takes complex matrices, and so does ember's (it refused them before):
    the results' dtypes (norms, singular values, ... real) and shapes are torch's."""
    z = Z[:, :2].T + 3 * np.eye(2, dtype=np.complex64)
    e = eval(expr, {"L": ember, "a": ember.tensor(z)})
    t = eval(expr, {"L": torch, "a": torch.tensor(z)})
    e, t = (e, t) if isinstance(e, tuple) else ((e,), (t,))
    for x, y in zip(e, t):
        assert (x.dtype.name, tuple(x.shape)) == (str(y.dtype).removeprefix("torch."),
                                                  tuple(y.shape))


# ---- casts and in-place --------------------------------------------------------------------
def test_casts():
    e, t = pair(Z)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert_same(e.to(ember.float32), t.to(torch.float32))
    assert any("discards the imaginary part" in str(x.message) for x in w)
    assert_same(e.to(ember.bool), t.to(torch.bool))
    assert_same(e.to(ember.complex128), t.to(torch.complex128))
    (f, tf) = pair(np.array([1.5, -2.0], np.float32))
    assert_same(f.to(ember.complex64), tf.to(torch.complex64))


def test_fill_with_complex_values():
    e, t = pair(np.zeros(2, np.complex64))
    assert_same(e.fill_(2j), t.fill_(2j))
    raises_like(lambda: ember.zeros(2).fill_(1 + 1j), lambda: torch.zeros(2).fill_(1 + 1j),
                "value cannot be converted to type float without overflow")
    assert_same(ember.zeros(2).fill_(3 + 0j), torch.zeros(2).fill_(3 + 0j))
    e[0] = 1 - 1j
    t[0] = 1 - 1j
    assert_same(e, t)


def test_inplace_complex_result_into_a_real_tensor_fails():
    raises_like(lambda: ember.ones(2).mul_(1j), lambda: torch.ones(2).mul_(1j),
                "result type ComplexFloat can't be cast to the desired output type Float")


# ---- serialization -------------------------------------------------------------------------
def test_save_and_load_round_trip():
    buf = io.BytesIO()
    e = ember.tensor(Z)
    ember.save({"z": e, "w": e.to(ember.complex128)[1:], "v": e.real.clone()}, buf)
    buf.seek(0)
    out = ember.load(buf)
    np.testing.assert_array_equal(out["z"].numpy(), Z)
    assert out["z"].dtype is ember.complex64 and out["w"].dtype is ember.complex128
    np.testing.assert_array_equal(out["w"].numpy(), Z[1:])
    np.testing.assert_array_equal(out["v"].numpy(), Z.real)
    # a complex tensor and its real view share bytes under two dtypes: torch refuses too
    t = torch.tensor(Z)
    raises_like(lambda: ember.save({"z": e, "v": e.real}, io.BytesIO()),
                lambda: torch.save({"z": t, "v": t.real}, io.BytesIO()),
                "view the same data as different types")


def test_torch_saved_complex_tensors_load():
    buf = io.BytesIO()
    torch.save({"z": torch.from_numpy(Z.astype(np.complex128))}, buf)
    buf.seek(0)
    out = ember.load(buf)
    assert out["z"].dtype is ember.complex128
    np.testing.assert_array_equal(out["z"].numpy(), Z)


# ---- autograd ------------------------------------------------------------------------------
GRAD_CASES = {
    "abs": lambda m, a, b: a.abs(), "angle": lambda m, a, b: a.angle(),
    "sgn": lambda m, a, b: a.sgn(), "real": lambda m, a, b: a.real * 2,
    "imag": lambda m, a, b: a.imag, "view_as_real": lambda m, a, b: m.view_as_real(a),
    "conj": lambda m, a, b: a.conj() * b, "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b, "exp": lambda m, a, b: a.exp(), "log": lambda m, a, b: a.log(),
    "sqrt": lambda m, a, b: a.sqrt(), "sin": lambda m, a, b: a.sin(),
    "tanh": lambda m, a, b: a.tanh(), "sigmoid": lambda m, a, b: a.sigmoid(),
    "pow": lambda m, a, b: a.pow(3), "pow_tensor": lambda m, a, b: a.pow(b),
    "reciprocal": lambda m, a, b: a.reciprocal(), "sum": lambda m, a, b: (a * b).sum(),
    "mean": lambda m, a, b: a.mean(), "prod": lambda m, a, b: a.prod(),
    "cumprod": lambda m, a, b: a.cumprod(0), "mm": lambda m, a, b: a.view(3, 1).mm(b.view(1, 3)),
    "dot": lambda m, a, b: a.dot(b), "mixed_real": lambda m, a, b: a * b.real,
    "where": lambda m, a, b: m.where(a.real > 0, a, b),
}


def _leaves(lib, dtype):
    rng = np.random.default_rng(3)
    vals = [rng.standard_normal(3) + 1j * rng.standard_normal(3) + 0.5 for _ in range(2)]
    return [lib.from_numpy(v.astype(dtype)).requires_grad_() for v in vals]


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_complex_gradcheck_and_gradients_match_torch(case):
    f = GRAD_CASES[case]
    leaves = _leaves(ember, np.complex128)
    assert ember.autograd.gradcheck(lambda a, b: f(ember, a, b), leaves)
    ea, eb = _leaves(ember, np.complex64)
    ta, tb = _leaves(torch, np.complex64)
    eo, to = f(ember, ea, eb), f(torch, ta, tb)
    rng = np.random.default_rng(0)
    cot = rng.standard_normal(tuple(to.shape)) + (1j * rng.standard_normal(tuple(to.shape))
                                                   if to.is_complex() else 0)
    ec, tc = (lib.from_numpy(np.asarray(cot).astype(to_np(to).dtype)) for lib in (ember, torch))
    eg = ember.autograd.grad(eo, [ea, eb], ec, allow_unused=True)
    tg = torch.autograd.grad(to, [ta, tb], tc, allow_unused=True)
    for x, y in zip(eg, tg):
        assert (x is None) == (y is None)
        if y is not None:
            _same_values(x, y, rtol=1e-5)


def test_gradcheck_catches_a_missing_conjugate():
    """The numerical check sees the conjugate Wirtinger convention: a holomorphic formula
    without .conj() fails."""
    class NoConj(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * g * a          # torch's convention needs (2 * a).conj()
    x = _leaves(ember, np.complex128)[0]
    assert not ember.autograd.gradcheck(NoConj.apply, (x,), raise_exception=False)


def test_backward_of_a_complex_output_needs_a_gradient():
    x = _leaves(ember, np.complex64)[0]
    raises_like(lambda: x.sum().backward(), lambda: _leaves(torch, np.complex64)[0].sum().backward(),
                "grad can be implicitly created only for real scalar outputs")


def test_real_loss_of_a_complex_leaf():
    ea, ta = _leaves(ember, np.complex64)[0], _leaves(torch, np.complex64)[0]
    (ea.abs() ** 2).sum().backward()
    (ta.abs() ** 2).sum().backward()
    _same_values(ea.grad, ta.grad, rtol=1e-5)


# ---- dropout and convolutions on complex input (issue 22): torch's behaviour per op ------------
DROPOUTS = {
    "dropout": lambda F, x: F.dropout(x, 0.5), "dropout1d": lambda F, x: F.dropout1d(x[0, 0], 0.5),
    "dropout2d": lambda F, x: F.dropout2d(x, 0.5), "dropout3d": lambda F, x: F.dropout3d(x, 0.5),
    "alpha_dropout": lambda F, x: F.alpha_dropout(x, 0.5, True),
    "feature_alpha_dropout": lambda F, x: F.feature_alpha_dropout(x, 0.5, True),
    "bernoulli_": lambda F, x: x.clone().bernoulli_(0.5),
}


@pytest.mark.parametrize("name", DROPOUTS)
def test_training_dropout_refuses_complex_like_torch(name):
    """torch's dropout draws its mask with bernoulli_, which has no complex kernel; in eval
    mode (or p=0) the input comes back."""
    import torch.nn.functional as TF

    import ember.nn.functional as EF
    e, t = pair(np.ones((2, 3, 2, 2, 2), np.complex64))
    raises_like(lambda: DROPOUTS[name](EF, e), lambda: DROPOUTS[name](TF, t),
                "not implemented for 'ComplexFloat'")
    assert EF.dropout(e, 0.5, training=False) is e and EF.dropout(e, 0.0) is e


def test_native_dropout_scales_complex_like_torch():
    x = ember.tensor(Z)
    out, mask = ember.native_dropout(x, 0.25, True)
    t_out, t_mask = torch.native_dropout(torch.tensor(Z), 0.25, True)
    assert (out.dtype.name, mask.dtype.name) == (str(t_out.dtype)[6:], str(t_mask.dtype)[6:])
    np.testing.assert_allclose(out.numpy(), Z * mask.numpy() / 0.75, rtol=1e-6)


@pytest.mark.parametrize("name,args", [
    ("conv1d", ((1, 2, 5), (3, 2, 2))), ("conv2d", ((1, 4, 5, 5), (4, 2, 2, 2))),
    ("conv3d", ((1, 2, 3, 3, 3), (3, 2, 2, 2, 2))),
    ("conv_transpose1d", ((1, 2, 5), (2, 3, 2))), ("conv_transpose2d", ((1, 2, 4, 4), (2, 3, 2, 2)))])
def test_convolutions_compute_complex_like_torch(name, args):
    import torch.nn.functional as TF

    import ember.nn.functional as EF
    rng = np.random.default_rng(5)
    x, w = ((rng.standard_normal(s) + 1j * rng.standard_normal(s)).astype(np.complex128)
            for s in args)
    kw = {"groups": 2} if name == "conv2d" else {}
    e = getattr(EF, name)(ember.tensor(x), ember.tensor(w), **kw)
    t = getattr(TF, name)(torch.tensor(x), torch.tensor(w), **kw)
    assert e.dtype.name == "complex128" and tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_mul_and_div_round_as_torch(dtype):
    """Complex multiply and divide give the bits of torch's vectorized loops (textbook
    products each rounded; Smith's division with fused multiply-adds): NumPy's own loops
    differed in the last bit for a third of random operands. Lengths that are multiples
    of 4: torch's scalar loop, which takes a contiguous tensor's last n % 4 elements (and
    strided ones), fuses the multiply's products as NumPy does."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(256) + 1j * rng.standard_normal(256) for _ in range(2))
    a[:4], b[:4] = 0.1 + 0.1j, [0.1 - 0.1j, 0, complex(np.inf, 1), complex(np.nan, 0)]
    a, b = a.astype(dtype), b.astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op in ("mul", "div"):
            e = getattr(ember, op)(ember.tensor(a), ember.tensor(b))
            t = getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(b))
            np.testing.assert_array_equal(to_np(e), t.numpy())
            inplace = ember.tensor(a)
            getattr(inplace, op + "_")(ember.tensor(b))
            np.testing.assert_array_equal(to_np(inplace), t.numpy())
    assert (ember.tensor(a[:4]) * ember.tensor(b[:4]))[0].item().imag == 0
