"""ember.fft against torch.fft: every transform over real, complex and integer inputs, with
n/s, dim and the norm modes, on contiguous and transposed inputs (values, dtypes, shapes,
torch's permuted output strides, errors), the Meta layouts, fftfreq/fftshift, and the
gradients (gradcheck, and equal to torch's)."""
import numpy as np
import pytest
from helpers import check, raises_like, real_pairs, to_np

import ember

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
REAL = RNG.standard_normal((3, 4, 5)).astype(np.float32)
CPLX = (RNG.standard_normal((3, 4, 5)) + 1j * RNG.standard_normal((3, 4, 5))).astype(np.complex64)
INTS = RNG.integers(-5, 5, (4, 6))
INPUTS = {"float32": REAL, "float64": REAL.astype(np.float64), "complex64": CPLX,
          "complex128": CPLX.astype(np.complex128), "int64": INTS}
TOLS = {"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4), "float64": (1e-10, 1e-10),
        "complex128": (1e-10, 1e-10)}
ONE_DIM = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_DIM = [f"{f}{s}" for f in ONE_DIM for s in ("2", "n")]


def _both(fn, array, transpose=False):
    """fn(lib, tensor) for ember and torch; (ember, torch) results or exceptions."""
    out = []
    for lib in (ember, torch):
        x = lib.from_numpy(array.copy())
        if transpose:
            x = x.transpose(0, -1)
        try:
            out.append(fn(lib, x))
        except Exception as e:  # noqa: BLE001  (compared below)
            out.append(e)
    return out


def _compare(e, t):
    if isinstance(t, Exception):
        assert isinstance(e, Exception), f"torch raised {t!r}, ember returned"
        assert type(e) is type(t) or isinstance(e, type(t).__mro__[1]), (e, t)
        assert str(e) == str(t).replace("torch.", "ember."), (e, t)
        return
    assert not isinstance(e, Exception), e
    check(e, t.resolve_conj(), TOLS)


@pytest.mark.parametrize("kw", [{}, {"dim": 0}, {"dim": 1}, {"n": 7}, {"n": 2, "dim": 0},
                                {"norm": "ortho"}, {"norm": "forward"}, {"norm": "backward"},
                                {"norm": "bad"}, {"n": 0}, {"dim": 3}],
                         ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()) or "default")
@pytest.mark.parametrize("dtype", sorted(INPUTS))
@pytest.mark.parametrize("name", ONE_DIM)
def test_one_dim_transforms(name, dtype, kw):
    _compare(*_both(lambda lib, x: getattr(lib.fft, name)(x, **kw), INPUTS[dtype]))


@pytest.mark.parametrize("kw", [{}, {"dim": (0, 2)}, {"dim": (2, 0)}, {"s": (3, 8)},
                                {"s": (-1, 4)}, {"s": (2, 2), "dim": (0, 1)}, {"norm": "ortho"},
                                {"norm": "forward"}, {"dim": (0, 0)}, {"s": (2,), "dim": (0, 1)},
                                {"dim": (1,)}, {"s": (2, 2, 2, 2)}],
                         ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()) or "default")
@pytest.mark.parametrize("dtype", ["float32", "complex64", "int64"])
@pytest.mark.parametrize("name", N_DIM)
def test_n_dim_transforms(name, dtype, kw):
    _compare(*_both(lambda lib, x: getattr(lib.fft, name)(x, **kw), INPUTS[dtype]))


@pytest.mark.parametrize("name", ONE_DIM + N_DIM)
@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_transposed_inputs_give_torchs_layout(name, dtype):
    """torch's FFT writes its result in a permuted order (batch dims by input stride,
    then the transformed dims): the strides follow the input's layout."""
    _compare(*_both(lambda lib, x: getattr(lib.fft, name)(x), INPUTS[dtype], transpose=True))


@pytest.mark.parametrize("op,args", [
    ("_fft_r2c", ([2], 0, True)), ("_fft_r2c", ([0], 1, True)), ("_fft_r2c", ([1], 2, False)),
    ("_fft_r2c", ([0, 2], 0, True)), ("_fft_c2c", ([2, 0], 0, True)), ("_fft_c2c", ([1], 2, False)),
    ("_fft_c2r", ([0], 0, 4)), ("_fft_c2r", ([0, 2], 1, 9)), ("_fft_c2r", ([2], 2, 8)),
    ("_fft_c2r", ([1], 0, 6))])
@pytest.mark.parametrize("transpose", [False, True])
def test_aten_ops_and_their_meta_layouts(op, args, transpose):
    array = REAL if op == "_fft_r2c" else CPLX
    if transpose and op == "_fft_c2r":    # (the same transform over the transposed shape)
        array = np.ascontiguousarray(CPLX.transpose(2, 1, 0))
    e, t = _both(lambda lib, x: getattr(lib.ops.aten, op).default(x, *args), array, transpose)
    _compare(e, t)
    x = ember.from_numpy(array.copy())
    if transpose:
        x = x.transpose(0, -1)
    m = getattr(ember.ops.aten, op).default(x.to("meta"), *args)
    assert (m.shape, m.stride(), m.dtype) == (e.shape, e.stride(), e.dtype)


def test_c2r_input_length_is_checked():
    """_fft_c2r needs last_dim_size // 2 + 1 input points (torch's MKL asserts; ember says
    what is expected rather than truncating or padding)."""
    raises_like(lambda: ember.ops.aten._fft_c2r.default(ember.from_numpy(CPLX), [2], 0, 4),
                lambda: torch.ops.aten._fft_c2r.default(torch.from_numpy(CPLX), [2], 0, 4))
    with pytest.raises(RuntimeError, match="expects 3 points along dim 2 for last_dim_size=4"):
        ember.ops.aten._fft_c2r.default(ember.from_numpy(CPLX).to("meta"), [2], 0, 4)


def test_aten_op_errors():
    for f, phrase in [(lambda m: m.ops.aten._fft_r2c.default(m.ones(3, dtype=m.int64), [0], 0, True),
                       "Only supports floating-point dtypes, but found: Long"),
                      (lambda m: m.ops.aten._fft_c2c.default(m.ones(3), [0], 0, True),
                       "Only supports complex dtypes, but found: Float"),
                      (lambda m: m.ops.aten._fft_c2r.default(m.ones(3), [0], 0, 4),
                       "Only supports complex dtypes, but found: Float"),
                      (lambda m: m.fft.fft(m.ones(3, dtype=m.float16)), "Unsupported dtype Half"),
                      (lambda m: m.fft.rfft(m.ones(3, dtype=m.complex64)),
                       "rfft expects a real input tensor, but got ComplexFloat"),
                      (lambda m: m.fft.rfftn(m.ones(3, 3), dim=()),
                       "rfftn must transform at least one axis"),
                      (lambda m: m.fft.fft(m.ones(())), "has no dimensions")]:
        raises_like(lambda f=f: f(ember), lambda f=f: f(torch), phrase)


@pytest.mark.parametrize("n", [0, 1, 4, 5, -1])
@pytest.mark.parametrize("d", [1.0, 0.3])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int64"])
@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies(name, n, d, dtype):
    e, t = _both(lambda lib, _: getattr(lib.fft, name)(n, d, dtype=getattr(lib, dtype)), REAL)
    if isinstance(t, Exception):
        _compare(e, t)
    else:
        check(e, t)        # exactly: k * float(1 / (n * d)) in the result dtype


def test_frequencies_on_meta():
    m = ember.fft.rfftfreq(7, device="meta")
    assert m.shape == (4,) and m.device.type == "meta" and m.dtype is ember.float32


@pytest.mark.parametrize("kw", [{}, {"dim": 0}, {"dim": (0, 2)}, {"dim": -1}])
@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts(name, kw):
    _compare(*_both(lambda lib, x: getattr(lib.fft, name)(x, **kw), REAL))
    _compare(*_both(lambda lib, x: getattr(lib.fft, name)(x, **kw), CPLX[:, :3, :1]))


def test_namespace_matches_torch():
    names = {n for n in dir(torch.fft) if not n.startswith("_") and n != "Tensor"
             and callable(getattr(torch.fft, n))}
    assert names <= set(ember.fft.__all__), names - set(ember.fft.__all__)
    assert ember.fft.rfft.__name__ == torch.fft.rfft.__name__ == "fft_rfft"
    assert not hasattr(ember, "fft_fft")        # public in ember.fft only, as in torch


def test_out_argument():
    for lib in (ember, torch):
        out = lib.empty(3, dtype=lib.complex64)
        r = lib.fft.rfft(lib.tensor([1.0, 2.0, 3.0, 4.0]), out=out)
        assert r is out
    np.testing.assert_allclose(ember.fft.rfft(ember.tensor([1.0, 2.0, 3.0, 4.0])).numpy(),
                               [10, -2 + 2j, -2])


# ---- gradients --------------------------------------------------------------------------------
GRADS = {
    "fft_real": (lambda lib, x: lib.fft.fft(x), "real"),
    "fft": (lambda lib, x: lib.fft.fft(x, norm="ortho"), "complex"),
    "ifft": (lambda lib, x: lib.fft.ifft(x, n=6), "complex"),
    "rfft": (lambda lib, x: lib.fft.rfft(x), "real"),
    "rfft_odd": (lambda lib, x: lib.fft.rfft(x, n=5, norm="forward"), "real"),
    "irfft": (lambda lib, x: lib.fft.irfft(x), "complex"),
    "irfft_odd": (lambda lib, x: lib.fft.irfft(x, n=7, norm="ortho"), "complex"),
    "hfft": (lambda lib, x: lib.fft.hfft(x, n=6), "complex"),
    "ihfft": (lambda lib, x: lib.fft.ihfft(x), "real"),
    "fft2": (lambda lib, x: lib.fft.fft2(x), "complex"),
    "rfft2": (lambda lib, x: lib.fft.rfft2(x), "real"),
    "irfftn": (lambda lib, x: lib.fft.irfftn(x, s=(3, 5)), "complex"),
    "hfftn": (lambda lib, x: lib.fft.hfftn(x), "complex"),
    "ihfftn": (lambda lib, x: lib.fft.ihfftn(x), "real"),
    "fftshift": (lambda lib, x: lib.fft.fftshift(x), "real"),
}


def _leaf(lib, kind, precision):
    a = RNG_G.standard_normal((3, 4))
    if kind == "complex":
        a = a + 1j * RNG_G.standard_normal((3, 4))
    dt = {("real", 64): np.float64, ("real", 32): np.float32, ("complex", 64): np.complex128,
          ("complex", 32): np.complex64}[kind, precision]
    return lib.from_numpy(a.astype(dt)).requires_grad_()


RNG_G = np.random.default_rng(11)


@pytest.mark.parametrize("case", sorted(GRADS))
def test_gradients(case):
    f, kind = GRADS[case]
    x = _leaf(ember, kind, 64)
    assert ember.autograd.gradcheck(lambda a: f(ember, a), (x,))
    assert ember.autograd.gradgradcheck(lambda a: f(ember, a), (x,))
    e = ember.from_numpy(to_np(x.detach()).copy()).requires_grad_()
    t = torch.from_numpy(to_np(x.detach()).copy()).requires_grad_()
    eo, to = f(ember, e), f(torch, t)
    cot = np.random.default_rng(0).standard_normal(tuple(to.shape))
    if to.is_complex():
        cot = cot + 1j * np.random.default_rng(1).standard_normal(tuple(to.shape))
    (eg,) = ember.autograd.grad(eo, [e], ember.from_numpy(cot.astype(to_np(to).dtype)))
    (tg,) = torch.autograd.grad(to, [t], torch.from_numpy(cot.astype(to_np(to).dtype)))
    np.testing.assert_allclose(real_pairs(to_np(eg)), real_pairs(to_np(tg)), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["fft", "ifft", "fft2", "fftn", "ihfft", "rfft"])
def test_results_print_like_torch(name):
    """Signed zeros too: the full transform of a real input is filled from its onesided half
    by conjugate symmetry, as torch's; ifft/ihfft of real inputs are conjugate views."""
    x = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 0.0, -1.0, 2.0]], np.float32)
    e, t = getattr(ember.fft, name)(ember.from_numpy(x)), getattr(torch.fft, name)(torch.from_numpy(x))
    assert repr(e) == repr(t).replace("torch.", "ember.")
    assert e.is_conj() == t.is_conj()


# ---- stft / istft -------------------------------------------------------------------------
SIGNAL = np.random.default_rng(5).standard_normal((2, 40)).astype(np.float32)
STFT_CASES = {
    "default": {"n_fft": 8, "return_complex": True},
    "hop3_1d": {"n_fft": 8, "hop_length": 3, "return_complex": True, "one_dim": True},
    "hann_short": {"n_fft": 8, "win_length": 6, "window": "hann", "return_complex": True},
    "not_centered": {"n_fft": 8, "center": False, "return_complex": True},
    "normalized_twosided": {"n_fft": 8, "normalized": True, "onesided": False,
                            "return_complex": True},
    "constant_pad": {"n_fft": 16, "pad_mode": "constant", "return_complex": True},
    "real_output": {"n_fft": 8, "return_complex": False},
}


def _stft_kwargs(lib, case):
    kw = dict(STFT_CASES[case])
    kw.pop("one_dim", None)
    if kw.get("window") == "hann":
        kw["window"] = lib.hann_window(kw["win_length"])
    return kw


@pytest.mark.parametrize("case", sorted(STFT_CASES))
@pytest.mark.filterwarnings("ignore:stft with return_complex=False")
def test_stft_and_istft_match_torch(case):
    x = SIGNAL[0] if STFT_CASES[case].get("one_dim") else SIGNAL
    e, t = (lib.stft(lib.from_numpy(x.copy()), **_stft_kwargs(lib, case))
            for lib in (ember, torch))
    check(e, t, TOLS)
    if not STFT_CASES[case]["return_complex"]:
        return
    inv = {k: v for k, v in _stft_kwargs(ember, case).items()
           if k in ("n_fft", "hop_length", "win_length", "center", "normalized", "onesided")}
    tinv = dict(inv, window=_stft_kwargs(torch, case).get("window"))
    einv = dict(inv, window=_stft_kwargs(ember, case).get("window"))
    with pytest.warns(UserWarning) if einv["window"] is None else _no_warning():
        re = ember.istft(e, length=x.shape[-1], **einv)
    rt = torch.istft(t, length=x.shape[-1], **tinv)
    check(re, rt, TOLS)
    np.testing.assert_allclose(to_np(re), x, atol=1e-5)      # the round trip


def _no_warning():
    import contextlib
    return contextlib.nullcontext()


def test_stft_istft_errors():
    x = SIGNAL
    for f, phrase in [(lambda m: m.stft(m.from_numpy(x), 8), "return_complex parameter"),
                      (lambda m: m.stft(m.from_numpy(x), 80, center=False, return_complex=True),
                       "expected 0 < n_fft < 40, but got n_fft=80"),
                      (lambda m: m.stft(m.from_numpy(x), 8, win_length=9, return_complex=True),
                       "expected 0 < win_length <= n_fft, but got win_length=9"),
                      (lambda m: m.istft(m.stft(m.from_numpy(x), 8, return_complex=True).real, 8),
                       "istft requires a complex-valued input tensor"),
                      (lambda m: m.istft(m.stft(m.from_numpy(x), 8, return_complex=True), 8,
                                         window=m.zeros(8)), "window overlap add min"),
                      (lambda m: m.stft(m.from_numpy(x), 8, return_complex=True,
                                        align_to_window=True),
                       "align_to_window should only be set when center = false")]:
        raises_like(lambda f=f: f(ember), lambda f=f: f(torch), phrase)


def test_stft_istft_gradients():
    w = ember.hann_window(8, dtype=ember.float64)
    x = ember.from_numpy(SIGNAL[0, :20].astype(np.float64)).requires_grad_()
    assert ember.autograd.gradcheck(lambda a: ember.stft(a, 8, 2, window=w,
                                                         return_complex=True), (x,))
    spec = ember.stft(x.detach(), 8, 2, window=w, return_complex=True).requires_grad_()
    assert ember.autograd.gradcheck(lambda s: ember.istft(s, 8, 2, window=w, length=20),
                                    (spec,))
