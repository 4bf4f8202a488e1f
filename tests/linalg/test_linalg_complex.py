"""linalg.eig/eigvals and complex linear algebra against torch: eigenvectors compared up to
a phase, gradients through phase-invariant losses (torch's OpInfo uses (L, |V|)), and
complex gradients of the main ops: gradcheck, and the same values as torch's for the same
cotangent."""
import numpy as np
import pytest
from helpers import check, pair, raises_like, to_np

import ember

torch = pytest.importorskip("torch")

TOLS = {"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-10),
        "complex64": (1e-4, 1e-4), "complex128": (1e-10, 1e-10)}
rng = np.random.default_rng(2929)


def crand(*shape):
    return rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)


def well_conditioned(*shape):
    return crand(*shape) + shape[-1] * np.eye(shape[-1])


def values_and_abs(pair):
    """(eigenvalues or S, |vectors|): the phase-invariant part of a decomposition."""
    return pair[0], pair[1].abs()


def phase_aligned(e, t):
    """ember's eigenvectors (columns) times the phases that make them torch's."""
    e, t = to_np(e), to_np(t)
    dots = np.sum(np.conj(e) * t, axis=-2, keepdims=True)
    return e * dots / np.abs(dots)


# --- eig, eigvals ------------------------------------------------------------------------------
@pytest.mark.parametrize("a", [rng.uniform(-1, 1, (4, 4)), rng.uniform(-1, 1, (2, 3, 3)),
                               crand(3, 3), np.array([[0.0, -1.0], [1.0, 0.0]])],
                         ids=["real", "real_batched", "complex", "rotation"])
def test_eig_matches_torch_up_to_phase(a):
    e_a, t_a = pair(a)
    (ew, ev), (tw, tv) = ember.linalg.eig(e_a), torch.linalg.eig(t_a)
    check(ew, tw, TOLS)
    assert (ev.dtype.name, tuple(ev.shape), ev.stride()) == \
        (str(tv.dtype).removeprefix("torch."), tuple(tv.shape), tv.stride())
    np.testing.assert_allclose(phase_aligned(ev, tv), to_np(tv), atol=1e-10)
    np.testing.assert_allclose(to_np(e_a.to(ev.dtype) @ ev), to_np(ev * ew.unsqueeze(-2)),
                               atol=1e-12)
    check(ember.linalg.eigvals(e_a), torch.linalg.eigvals(t_a), TOLS)


def test_eigvals_of_non_finite_matrices_are_nan_and_eig_refuses_them():
    a = np.stack([np.eye(2), [[1.0, np.inf], [2.0, 1.0]]])
    w = ember.linalg.eigvals(ember.tensor(a))
    np.testing.assert_array_equal(to_np(w[0]), [1, 1])
    assert np.isnan(to_np(w[1]).real).all() and np.isnan(to_np(w[1]).imag).all()
    raises_like(lambda: ember.linalg.eig(ember.tensor(a)), lambda: torch.linalg.eig(torch.tensor(a)),
                "should not contain infs or NaNs")


EIG_LOSSES = {
    "eig": lambda L, A: values_and_abs(L.linalg.eig(A)),
    "eigvals": lambda L, A: L.linalg.eigvals(A),
    "eig_values_only": lambda L, A: L.linalg.eig(A).eigenvalues,
}


@pytest.mark.parametrize("loss", EIG_LOSSES, ids=list(EIG_LOSSES))
@pytest.mark.parametrize("a", [rng.uniform(-1, 1, (3, 3)), crand(2, 3, 3)], ids=["real", "complex"])
def test_eig_gradients_match_torch_and_pass_gradcheck(loss, a):
    fn = EIG_LOSSES[loss]
    e_a, t_a = ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    e_out, t_out = fn(ember, e_a), fn(torch, t_a)
    e_out, t_out = (e_out, t_out) if isinstance(e_out, tuple) else ((e_out,), (t_out,))
    cots = [crand(*o.shape) if o.is_complex() else rng.uniform(-1, 1, tuple(o.shape))
            for o in t_out]
    (eg,) = ember.autograd.grad(e_out, e_a, [ember.tensor(c) for c in cots])
    (tg,) = torch.autograd.grad(t_out, t_a, [torch.tensor(c) for c in cots])
    check(eg, tg, TOLS)
    assert ember.autograd.gradcheck(lambda A: fn(ember, A), (e_a,))


def test_eig_backward_refuses_a_phase_dependent_loss_like_torch():
    a = crand(3, 3)
    e_a, t_a = ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    raises_like(lambda: ember.linalg.eig(e_a).eigenvectors.real.sum().backward(),
                lambda: torch.linalg.eig(t_a).eigenvectors.real.sum().backward(),
                "specified up to multiplication by e^{i phi}")


# --- complex inputs to the other ops -------------------------------------------------------------
def test_complex_results_have_torchs_dtypes():
    e_a, t_a = pair(well_conditioned(2, 3, 3).astype(np.complex64))
    for fn in (lambda L, A: L.linalg.slogdet(A), lambda L, A: L.linalg.svdvals(A),
               lambda L, A: L.linalg.eigvalsh(A + A.mH), lambda L, A: L.linalg.norm(A),
               lambda L, A: L.linalg.matrix_norm(A, "nuc"), lambda L, A: L.norm(A),
               lambda L, A: L.linalg.lstsq(A, A, driver="gelsd"), lambda L, A: L.logdet(A),
               lambda L, A: L.linalg.matrix_rank(A), lambda L, A: L.linalg.det(A)):
        e, t = fn(ember, e_a), fn(torch, t_a)
        for x, y in zip(e if isinstance(e, tuple) else (e,), t if isinstance(t, tuple) else (t,)):
            check(x, y, TOLS)


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_norm_dtype_must_match_the_input_kind_like_torch(dtype):
    a = crand(3, 4) if dtype == "float64" else rng.uniform(-1, 1, (3, 4))
    e_a, t_a = pair(a)
    for name in ("vector_norm", "matrix_norm", "norm"):
        e_fn, t_fn = getattr(ember.linalg, name), getattr(torch.linalg, name)
        raises_like(lambda f=e_fn: f(e_a, dtype=getattr(ember, dtype)),
                    lambda f=t_fn: f(t_a, dtype=getattr(torch, dtype)), "dtype should be")


def polar_and_s(usv):
    """(U Vh, S): invariant under U -> U e^{i phi}, Vh -> e^{-i phi} Vh."""
    return usv[0] @ usv[2], usv[1]


def herm_pd(L, X):
    return X @ X.mH + 3 * L.eye(X.shape[-1], dtype=X.dtype)


COMPLEX_GRADS = {
    "solve": (lambda L, A, B: L.linalg.solve(A, B), (3, 3), (3, 2)),
    "solve_right": (lambda L, A, B: L.linalg.solve(A, B, left=False), (3, 3), (2, 3)),
    "inv": (lambda L, A: L.linalg.inv(A), (2, 3, 3)),
    "det": (lambda L, A: L.linalg.det(A), (2, 3, 3)),
    "slogdet": (lambda L, A: L.linalg.slogdet(A), (3, 3)),
    "logdet": (lambda L, A: L.logdet(A), (3, 3)),
    "svdvals": (lambda L, A: L.linalg.svdvals(A), (4, 3)),
    "svd_phase_invariant": (lambda L, A: polar_and_s(L.linalg.svd(A, False)), (3, 4)),
    "vector_norm": (lambda L, x: L.linalg.vector_norm(x), (3, 4)),
    "vector_norm_1": (lambda L, x: L.linalg.vector_norm(x, 1, -1), (3, 4)),
    "vector_norm_inf": (lambda L, x: L.linalg.vector_norm(x, float("inf")), (3, 4)),
    "cholesky": (lambda L, X: L.linalg.cholesky(herm_pd(L, X)), (3, 3)),
    "cholesky_upper": (lambda L, X: L.linalg.cholesky(herm_pd(L, X), upper=True), (3, 3)),
    "qr_tall": (lambda L, A: L.linalg.qr(A), (4, 3)),
    "qr_wide": (lambda L, A: L.linalg.qr(A), (3, 5)),
    "eigh_phase_invariant": (lambda L, X: values_and_abs(L.linalg.eigh(X + X.mH)), (3, 3)),
    "lstsq": (lambda L, A, B: L.linalg.lstsq(A, B).solution, (4, 3), (4, 2)),
    "lu": (lambda L, A: L.linalg.lu(A)[1:], (3, 4)),
    "lu_solve_adjoint": (lambda L, A, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B,
                                                           adjoint=True), (3, 3), (3, 2)),
    "lu_solve_right": (lambda L, A, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B, left=False),
                       (3, 3), (2, 3)),
    "solve_triangular": (lambda L, A, B: L.linalg.solve_triangular(A.triu(), B, upper=True),
                         (3, 3), (3, 2)),
    "pinv": (lambda L, A: L.linalg.pinv(A), (4, 3)),
    "matrix_exp": (lambda L, A: L.linalg.matrix_exp(A), (3, 3)),
    "householder_product": (lambda L, A, t: L.linalg.householder_product(A, t), (4, 3), (3,)),
    "cholesky_inverse": (lambda L, X: L.cholesky_inverse(L.linalg.cholesky(herm_pd(L, X))),
                         (3, 3)),
}


@pytest.mark.parametrize("name", COMPLEX_GRADS)
def test_complex_gradients_match_torch_and_pass_gradcheck(name):
    fn, *shapes = COMPLEX_GRADS[name]
    arrays = [well_conditioned(*s) if len(s) > 1 and s[-1] == s[-2] else crand(*s) for s in shapes]
    e_in = [ember.tensor(a, requires_grad=True) for a in arrays]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    e_out, t_out = fn(ember, *e_in), fn(torch, *t_in)
    e_out, t_out = (e_out, t_out) if isinstance(e_out, tuple) else ((e_out,), (t_out,))
    for e, t in zip(e_out, t_out):
        check(e.detach(), t.detach(), TOLS)
    cots = [crand(*o.shape) if o.is_complex() else rng.uniform(-1, 1, tuple(o.shape))
            for o in t_out]
    e_g = ember.autograd.grad(e_out, e_in, [ember.tensor(c) for c in cots])
    t_g = torch.autograd.grad(t_out, t_in, [torch.tensor(c) for c in cots])
    for e, t in zip(e_g, t_g):
        np.testing.assert_allclose(to_np(e), to_np(t), rtol=1e-9, atol=1e-9)
    assert ember.autograd.gradcheck(lambda *xs: fn(ember, *xs), tuple(e_in))


# --- cond, ldl ---------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, float("inf"), float("-inf"), "fro", "nuc"])
@pytest.mark.parametrize("kind", ["real", "complex"])
def test_cond_and_its_gradient_match_torch(p, kind):
    a = rng.uniform(-1, 1, (2, 3, 3)) + 3 * np.eye(3)
    if kind == "complex":
        a = a + 1j * rng.uniform(-1, 1, (2, 3, 3))
    e_a, t_a = ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    e, t = ember.linalg.cond(e_a, p), torch.linalg.cond(t_a, p)
    check(e.detach(), t.detach(), TOLS)
    if p not in (None, 2, -2, "nuc"):
        # torch's backward of the other orders fails: its cond fills the inverse it saved
        # in place ("modified by an inplace operation"); ember's (out of place) is gradchecked
        assert ember.autograd.gradcheck(lambda A: ember.linalg.cond(A, p), (e_a,))
        return
    cot = rng.uniform(-1, 1, tuple(t.shape))
    (eg,) = ember.autograd.grad(e, e_a, ember.tensor(cot))
    (tg,) = torch.autograd.grad(t, t_a, torch.tensor(cot))
    np.testing.assert_allclose(to_np(eg), to_np(tg), rtol=1e-9, atol=1e-9)


def test_ldl_of_a_singular_matrix_raises_where_torch_fails_an_internal_assert():
    """torch's _linalg_check_errors has no message for ldl's info > 0 ("Unknown error code",
    an internal assert); ember's LinAlgError (a RuntimeError, as torch's) names D's zero."""
    a = np.zeros((2, 2, 2))
    a[0] = np.eye(2)
    e_a, t_a = pair(a)
    raises_like(lambda: ember.linalg.ldl_factor(e_a), lambda: torch.linalg.ldl_factor(t_a))
    with pytest.raises(ember.linalg.LinAlgError, match=r"\(Batch element 1\).*D\[1,1\] is exactly "
                                                       "zero"):
        ember.linalg.ldl_factor_ex(e_a, check_errors=True)
    check(ember.linalg.ldl_factor_ex(e_a).info, torch.linalg.ldl_factor_ex(t_a).info)


def test_ldl_has_no_derivative_like_torch():
    a = rng.uniform(-1, 1, (3, 3))
    e_a, t_a = ember.tensor(a + a.T, requires_grad=True), torch.tensor(a + a.T, requires_grad=True)
    # torch raises RuntimeError; ember's not_implemented formulas raise NotImplementedError,
    # a RuntimeError subclass
    with pytest.raises(RuntimeError, match="not implemented"):
        torch.linalg.ldl_factor(t_a).LD.sum().backward()
    with pytest.raises(RuntimeError, match="derivative for 'linalg_ldl_factor_ex' is not "
                                           "implemented"):
        ember.linalg.ldl_factor(e_a).LD.sum().backward()
