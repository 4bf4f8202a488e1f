"""The compiled paths of the digits MLP's ops (issue 20): relu, log_softmax and its
backward along a short last dim, nll_loss forward/backward, add_/sub_ with alpha. Each
gives the bits of the NumPy path it replaces (run here by switching the compiled path
off) and torch's values, dtypes, shapes and strides.

    .venv/bin/python -m pytest tests/ops/test_mlp_kernels.py -q
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers import check, to_np

import ember
from ember.kernels.cpu import binary as cpu_binary
from ember.kernels.cpu import linalg as cpu_linalg
from ember.kernels.cpu import nn as cpu_nn

torch = pytest.importorskip("torch")
aten, taten = ember.ops.aten, torch.ops.aten

FLOATS = [np.float32, np.float64]


def bits(t):
    """A tensor's bytes with its dtype, shape and strides (what 'same bits' compares)."""
    return to_np(t).tobytes(), t.dtype, tuple(t.shape), t.stride()


def special_values(a):
    """a with NaN, infinities, -0.0 and a tie written into its first rows (when it has room)."""
    if a.ndim == 2 and a.shape[0] >= 4 and a.shape[1] >= 3:
        a[0, 1] = np.nan
        a[1, :] = -np.inf
        a[2, 0] = np.inf
        a[3, :2] = a[3, 2]
        a[3, 0] = -0.0
    return a


# --- relu ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16, np.int32])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "0-d"])
def test_relu_matches_torch_bits(dt, layout):
    a = np.array([[-1.5, -0.0, 0.0, 2.0], [np.nan, np.inf, -np.inf, 3.0], [-2, 5, -7, 1]])
    if np.dtype(dt).kind == "i":
        a = np.nan_to_num(a, posinf=9, neginf=-9)
    a = a.astype(dt)
    a = {"contiguous": a, "transposed": a.T, "0-d": np.asarray(a[0, 1])}[layout]
    e, t = ember.relu(ember.from_numpy(a.copy())), torch.relu(torch.from_numpy(a.copy()))
    check(e, t)
    assert (np.signbit(to_np(e)) == np.signbit(t.numpy())).all()   # relu(-0.0) is -0.0


def test_relu_inplace_and_bool_error_as_torch():
    a = np.array([-1.0, -0.0, np.nan, 4.0], np.float32)
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    assert ember.relu_(e) is e
    torch.relu_(t)
    check(e, t)
    assert np.signbit(to_np(e)).tolist() == np.signbit(t.numpy()).tolist()
    with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
        ember.relu(ember.tensor([True]))


# --- log_softmax -----------------------------------------------------------------------------
def _numpy_path(monkeypatch, module, name):
    """Switch a compiled path off: `name` (the function choosing it) returns None."""
    monkeypatch.setattr(module, name, lambda *args: None)


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 10, 16, 63, 64, 100, 127, 128])
def test_log_softmax_compiled_gives_the_numpy_paths_bits(dt, n, monkeypatch):
    rng = np.random.default_rng(n)
    x = special_values((rng.standard_normal((9, n)) * 20).astype(dt))
    g = rng.standard_normal((9, n)).astype(dt)
    xe, ge = ember.from_numpy(x), ember.from_numpy(g)
    assert cpu_nn._short_rows(x, 1) is not None        # (the compiled path is taken)

    def run():
        with np.errstate(all="ignore"):
            y = aten._log_softmax.default(xe, 1, False)
            return y, aten._log_softmax_backward_data.default(ge, y, 1, xe.dtype)

    fast = run()
    _numpy_path(monkeypatch, cpu_nn, "_short_rows")
    slow = run()
    for f, s in zip(fast, slow):
        assert bits(f) == bits(s)


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("shape", [(64, 10), (3, 4, 5), (1, 128), (5,)])
def test_log_softmax_and_backward_match_torch(dt, shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dt)
    tols = {"float32": (1e-6, 1e-6), "float64": (1e-14, 1e-14)}
    xe = ember.from_numpy(x.copy()).requires_grad_()
    xt = torch.from_numpy(x.copy()).requires_grad_()
    ye, yt = ember.log_softmax(xe, -1), torch.log_softmax(xt, -1)
    check(ye.detach(), yt.detach(), tols)
    g = rng.standard_normal(shape).astype(dt)
    (ye * ember.from_numpy(g)).sum().backward()
    (yt * torch.from_numpy(g)).sum().backward()
    check(xe.grad, xt.grad, tols)


def test_log_softmax_gradient_float64_numerically():
    x = ember.from_numpy(np.random.default_rng(1).standard_normal((4, 6))).requires_grad_()
    assert ember.autograd.gradcheck(lambda t: ember.log_softmax(t, 1), (x,))


# --- nll_loss --------------------------------------------------------------------------------
NLL_CASES = [(dt, n, reduction, weighted, ignore)
             for dt in FLOATS for n in (1, 5, 64, 128, 200) for reduction in (0, 1, 2)
             for weighted in (False, True) for ignore in (-100, 1)]


def _nll_inputs(dt, n, weighted, ignore, classes=10, seed=0):
    rng = np.random.default_rng(seed)
    x = np.log(rng.dirichlet(np.ones(classes), n)).astype(dt)
    t = rng.integers(0, classes, n)
    if ignore >= 0:
        t[::3] = ignore
    w = rng.random(classes).astype(dt) if weighted else None
    return x, t, w


def _nll(lib, x, t, w, reduction, ignore, go=None):
    A = taten if lib is torch else aten
    T = lib.from_numpy
    args = (T(x.copy()), T(t.copy()), None if w is None else T(w.copy()), reduction, ignore)
    out, total = A.nll_loss_forward.default(*args)
    go = T(np.ones(out.shape, x.dtype) if go is None else go.copy())
    return out, total, A.nll_loss_backward.default(go, *args, total)


@pytest.mark.parametrize("dt,n,reduction,weighted,ignore", NLL_CASES)
def test_nll_loss_fused_gives_the_numpy_paths_bits(dt, n, reduction, weighted, ignore,
                                                   monkeypatch):
    x, t, w = _nll_inputs(dt, n, weighted, ignore)
    go = np.random.default_rng(1).standard_normal(n if reduction == 0 else ()).astype(dt)
    assert cpu_nn._nll_fused_arrays(ember.from_numpy(x), ember.from_numpy(t),
                                    None if w is None else ember.from_numpy(w)) is not None
    fast = _nll(ember, x, t, w, reduction, ignore, go)
    _numpy_path(monkeypatch, cpu_nn, "_nll_fused_arrays")
    slow = _nll(ember, x, t, w, reduction, ignore, go)
    if reduction == 0 and ignore >= 0:
        # the NumPy path wrote -x[i, 0] * 0 (-0.0) for an ignored row; torch and the fused
        # path write +0.0: the same numbers
        np.testing.assert_array_equal(to_np(fast[0]), to_np(slow[0]))
        assert not np.signbit(to_np(fast[0])[t == ignore]).any()
        fast, slow = fast[1:], slow[1:]
    for f, s in zip(fast, slow):
        assert bits(f) == bits(s)


@pytest.mark.parametrize("dt,n,reduction,weighted,ignore", NLL_CASES)
def test_nll_loss_matches_torch(dt, n, reduction, weighted, ignore):
    x, t, w = _nll_inputs(dt, n, weighted, ignore)
    go = np.random.default_rng(1).standard_normal(n if reduction == 0 else ()).astype(dt)
    tols = {"float32": (1e-5, 1e-6), "float64": (1e-13, 1e-14)}
    for e, tt in zip(_nll(ember, x, t, w, reduction, ignore, go),
                     _nll(torch, x, t, w, reduction, ignore, go)):
        check(e, tt, tols)
        assert np.signbit(to_np(e)).tolist() == np.signbit(tt.numpy()).tolist()


@pytest.mark.parametrize("n", [4, 200])
@pytest.mark.parametrize("reduction", [1, 2])
def test_nll_loss_all_ignored_as_torch(n, reduction):
    """The mean over no rows is NaN (0 / 0), the sum 0."""
    x, t, _ = _nll_inputs(np.float32, n, False, -100)
    t[:] = 3
    for e, tt in zip(_nll(ember, x, t, None, reduction, 3), _nll(torch, x, t, None, reduction, 3)):
        check(e, tt)


@pytest.mark.parametrize("bad", [10, -1, 99])
@pytest.mark.parametrize("backward", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])   # (the fused path, NumPy's)
def test_nll_loss_out_of_bounds_target_is_torchs_error(bad, backward, dtype):
    x, t, _ = _nll_inputs(np.float32, 6, False, -100)
    t[4] = bad

    def call(lib):
        A, T = (taten if lib is torch else aten), lib.from_numpy
        dt = getattr(lib, dtype)
        args = (T(x).to(dt), T(t), None, 1, -100)
        if backward:
            return A.nll_loss_backward.default(T(np.ones((), np.float32)).to(dt), *args,
                                               T(np.array(6, np.float32)).to(dt))
        return A.nll_loss_forward.default(*args)

    with pytest.raises(IndexError) as te:
        call(torch)
    with pytest.raises(IndexError) as ee:
        call(ember)
    assert str(ee.value) == str(te.value) == f"Target {bad} is out of bounds."


def test_cross_entropy_gradient_matches_torch_and_numerically():
    x, t, w = _nll_inputs(np.float64, 12, True, 2, classes=5)
    xe = ember.from_numpy(x.copy()).requires_grad_()
    xt = torch.from_numpy(x.copy()).requires_grad_()
    kw = {"ignore_index": 2}
    ember.nn.functional.cross_entropy(xe, ember.from_numpy(t), ember.from_numpy(w), **kw) \
        .backward()
    torch.nn.functional.cross_entropy(xt, torch.from_numpy(t), torch.from_numpy(w), **kw) \
        .backward()
    check(xe.grad, xt.grad, {"float64": (1e-13, 1e-15)})
    assert ember.autograd.gradcheck(
        lambda v: ember.nn.functional.cross_entropy(v, ember.from_numpy(t),
                                                    ember.from_numpy(w), **kw), (xe,))


# --- add_ / sub_ with alpha ------------------------------------------------------------------
ALPHAS = [0.1, -0.1, 1e-3, 3, -2, 0.0, -0.0, float("nan"), float("inf"), 1 / 3]


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("op", ["add_", "sub_"])
def test_inplace_alpha_matches_torch_bits_call_after_call(dt, op):
    rng = np.random.default_rng(0)
    p, g = rng.standard_normal((2, 33, 7)).astype(dt)
    p[0, :3] = [-0.0, 0.0, -0.0]
    cpu_binary._ALPHAS.clear()
    for alpha in ALPHAS + ALPHAS:               # the second round reads remembered factors
        e, tt = ember.from_numpy(p.copy()), torch.from_numpy(p.copy())
        assert getattr(e, op)(ember.from_numpy(g), alpha=alpha) is e
        getattr(tt, op)(torch.from_numpy(g), alpha=alpha)
        assert to_np(e).tobytes() == tt.numpy().tobytes(), alpha


def test_inplace_alpha_keeps_torchs_errors():
    p = ember.zeros(3)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="value cannot be converted to type float"):
            p.sub_(ember.ones(3), alpha=1e39)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported"):
        p.add_(ember.ones(3), alpha=True)


# --- addmm with a bias -----------------------------------------------------------------------
def _addmm_operands(dt, n, k, p, bias_shape, layout, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, k)).astype(dt)
    w = rng.standard_normal((p, k)).astype(dt)
    b = {"transposed": w.T, "contiguous": np.ascontiguousarray(w.T),
         "strided": np.ascontiguousarray(np.repeat(w.T, 2, axis=1))[:, ::2]}[layout]
    bias = rng.standard_normal(bias_shape(n, p)).astype(dt)
    return bias, a, b


BIAS_SHAPES = {"row": lambda n, p: (p,), "1xp": lambda n, p: (1, p), "nx1": lambda n, p: (n, 1),
               "full": lambda n, p: (n, p), "0-d": lambda n, p: ()}


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("n,k,p", [(64, 64, 128), (64, 128, 10), (2, 3, 2), (1, 8, 4),
                                   (5, 8, 1), (9, 256, 7), (9, 300, 7), (3, 0, 4)])
@pytest.mark.parametrize("bias", list(BIAS_SHAPES))
@pytest.mark.parametrize("layout", ["transposed", "contiguous", "strided"])
def test_addmm_bias_gemm_gives_the_numpy_paths_bits(dt, n, k, p, bias, layout, monkeypatch):
    args = [ember.from_numpy(v) for v in _addmm_operands(dt, n, k, p, BIAS_SHAPES[bias], layout)]
    fast = ember.addmm(*args)
    monkeypatch.setattr(cpu_linalg, "_bias_gemm", lambda *a: None)
    slow = ember.addmm(*args)
    assert bits(fast) == bits(slow)


def test_addmm_bias_gemm_is_taken_and_matches_torch():
    for dt in FLOATS:
        ops = _addmm_operands(dt, 64, 64, 128, BIAS_SHAPES["row"], "transposed")
        e = [ember.from_numpy(v) for v in ops]
        shape = (64, 128)
        out = cpu_linalg._bias_gemm(*e, shape, e[0].dtype)
        assert out is not None and out.flags.c_contiguous and out.shape == shape
        check(ember.addmm(*e), taten.addmm(*[torch.from_numpy(v) for v in ops]),
              {"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)})


def test_addmm_of_a_matrix_and_its_transpose_keeps_numpys_path():
    a = ember.from_numpy(np.random.default_rng(0).standard_normal((6, 4)))
    zeros = ember.zeros(6, dtype=a.dtype)
    assert cpu_linalg._bias_gemm(zeros, a, a.t(), (6, 6), a.dtype) is None
    assert bits(ember.addmm(zeros, a, a.t())) == \
        bits(ember.from_numpy(np.matmul(a.numpy(), a.numpy().T) + 0.0))
