"""torch.linalg (issue 22) against torch, beyond the schema suite (tests/ops/opinfo_linalg.py):
singular vectors and eigenvectors compared up to sign, gradients through symmetric inputs,
LinAlgError (type, hierarchy, batch element), the errors torch raises in backward, the
namespace, and batched/broadcast calls whose values, dtypes, shapes and strides match."""
import numpy as np
import pytest
from helpers import check, pair, raises_like, to_np

import ember

torch = pytest.importorskip("torch")

TOLS = {"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-10)}
rng = np.random.default_rng(22)


def well_conditioned(shape, dtype=np.float64):
    a = rng.uniform(-1, 1, shape) + shape[-1] * np.eye(shape[-1])
    return a.astype(dtype)


def spd(shape, dtype=np.float64):
    a = rng.uniform(-1, 1, shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def aligned(e, t, axis):
    """ember's vectors with their signs flipped to torch's (vectors along `axis`)."""
    e, t = to_np(e), to_np(t)
    dots = np.sum(e * t, axis=axis, keepdims=True)
    return e * np.where(dots < 0, -1, 1)


# --- the namespace ---------------------------------------------------------------------------
def test_every_torch_linalg_function_is_offered():
    missing = {n for n in dir(torch.linalg) if not n.startswith("_") and n != "common_notes"
               and not hasattr(ember.linalg, n)}
    assert not missing, missing
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)
    assert ember.linalg.LinAlgError.__name__ == torch.linalg.LinAlgError.__name__


# --- decompositions up to sign ---------------------------------------------------------------
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_matches_torch_up_to_sign(shape, full):
    """Singular values, vectors up to sign, layouts; U S Vh rebuilds A."""
    e_a, t_a = pair(rng.uniform(-1, 1, shape))
    (eu, es, evh), (tu, ts, tvh) = ember.linalg.svd(e_a, full), torch.linalg.svd(t_a, full)
    check(es, ts, TOLS)
    k = min(shape[-2:])
    np.testing.assert_allclose(aligned(eu, tu, -2)[..., :k], to_np(tu)[..., :k], atol=1e-10)
    np.testing.assert_allclose(aligned(evh, tvh, -1)[..., :k, :], to_np(tvh)[..., :k, :],
                               atol=1e-10)
    for e, t in ((eu, tu), (evh, tvh)):
        assert (e.shape, e.stride()) == (t.shape, t.stride())
    rebuilt = (eu[..., :, :k] * es.unsqueeze(-2)) @ evh[..., :k, :]
    np.testing.assert_allclose(to_np(rebuilt), to_np(t_a), atol=1e-12)


def test_eigh_matches_torch_up_to_sign():
    e_a, t_a = pair(spd((3, 4, 4)))
    (ew, ev), (tw, tv) = ember.linalg.eigh(e_a), torch.linalg.eigh(t_a)
    check(ew, tw, TOLS)
    np.testing.assert_allclose(aligned(ev, tv, -2), to_np(tv), atol=1e-10)
    assert ev.stride() == tv.stride()
    check(ember.linalg.eigvalsh(e_a, "U"), torch.linalg.eigvalsh(t_a, "U"), TOLS)


def test_legacy_svd_returns_V():
    e_a, t_a = pair(rng.uniform(-1, 1, (4, 3)))
    (_, es, ev), (_, ts, tv) = ember.svd(e_a), torch.svd(t_a)
    check(es, ts, TOLS)
    np.testing.assert_allclose(aligned(ev, tv, -2), to_np(tv), atol=1e-10)


# --- LinAlgError -----------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda L, A: L.linalg.inv(A), lambda L, A: L.linalg.solve(A, A),
    lambda L, A: L.linalg.cholesky(A), lambda L, A: L.inverse(A),
    lambda L, A: L.linalg.inv_ex(A, check_errors=True)],
    ids=["inv", "solve", "cholesky", "inverse", "inv_ex"])
def test_singular_batch_raises_linalg_error_naming_the_element(call):
    a = np.stack([spd((3, 3)), np.zeros((3, 3))])
    e_a, t_a = pair(a)
    with pytest.raises(torch.linalg.LinAlgError) as t_err:
        call(torch, t_a)
    with pytest.raises(ember.linalg.LinAlgError) as e_err:
        call(ember, e_a)
    assert str(e_err.value) == str(t_err.value).replace("torch.", "ember.")
    assert "(Batch element 1)" in str(e_err.value)


def test_ex_variants_report_info_instead_of_raising():
    a = np.stack([spd((3, 3)), -np.eye(3)])
    e_a, t_a = pair(a)
    (eL, e_info), (tL, t_info) = ember.linalg.cholesky_ex(e_a), torch.linalg.cholesky_ex(t_a)
    check(e_info, t_info)
    check(eL[0], tL[0], TOLS)
    _, e_info = ember.linalg.solve_ex(*pair(np.zeros((2, 2)))[:1] * 2)
    assert e_info.item() == torch.linalg.solve_ex(torch.zeros(2, 2), torch.zeros(2, 2))[1].item()


# --- batched and broadcast calls ---------------------------------------------------------------
@pytest.mark.parametrize("a_shape,b_shape,left", [
    ((3, 3), (3,), True), ((2, 3, 3), (2, 3), True), ((2, 1, 3, 3), (4, 3, 2), True),
    ((3, 3), (2, 5, 3), False), ((3, 3), (5, 2, 3, 1), True)])
def test_solve_broadcasts_like_torch(a_shape, b_shape, left):
    (e_a, t_a), (e_b, t_b) = pair(well_conditioned(a_shape)), pair(rng.uniform(-1, 1, b_shape))
    check(ember.linalg.solve(e_a, e_b, left=left), torch.linalg.solve(t_a, t_b, left=left), TOLS)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")])
def test_norms_match_torch(ord):
    e_a, t_a = pair(rng.uniform(-1, 1, (2, 3, 4)))
    check(ember.linalg.norm(e_a, ord, (0, 2), True), torch.linalg.norm(t_a, ord, (0, 2), True),
          TOLS)
    if ord is not None:
        check(ember.linalg.matrix_norm(e_a, ord), torch.linalg.matrix_norm(t_a, ord), TOLS)


def test_pinv_lstsq_rank_of_a_rank_deficient_matrix():
    a = rng.uniform(-1, 1, (5, 4))
    a[:, 3] = a[:, 0] - a[:, 1]
    (e_a, t_a), (e_b, t_b) = pair(a), pair(rng.uniform(-1, 1, (5, 2)))
    check(ember.linalg.pinv(e_a), torch.linalg.pinv(t_a), TOLS)
    check(ember.linalg.matrix_rank(e_a), torch.linalg.matrix_rank(t_a))
    e, t = ember.linalg.lstsq(e_a, e_b, driver="gelsd"), torch.linalg.lstsq(t_a, t_b, driver="gelsd")
    for x, y in zip(e, t):
        check(x, y, TOLS)


def test_multi_dot_picks_the_cheap_order_and_matches():
    shapes = [(10, 2), (2, 30), (30, 3), (3, 40)]
    es, ts = zip(*(pair(rng.uniform(-1, 1, s)) for s in shapes))
    check(ember.linalg.multi_dot(list(es)), torch.linalg.multi_dot(list(ts)), TOLS)


def test_lu_factor_then_solve_matches_torch():
    (e_a, t_a), (e_b, t_b) = pair(well_conditioned((2, 4, 4))), pair(rng.uniform(-1, 1, (2, 4, 3)))
    (e_lu, e_piv), (t_lu, t_piv) = ember.linalg.lu_factor(e_a), torch.linalg.lu_factor(t_a)
    check(e_lu, t_lu, TOLS)
    check(e_piv, t_piv)
    check(ember.linalg.lu_solve(e_lu, e_piv, e_b), torch.linalg.lu_solve(t_lu, t_piv, t_b), TOLS)
    for e, t in zip(ember.lu_unpack(e_lu, e_piv), torch.lu_unpack(t_lu, t_piv)):
        check(e, t, TOLS)


# --- gradients -----------------------------------------------------------------------------
def _leaf(a):
    return ember.tensor(a, requires_grad=True)


@pytest.mark.parametrize("fn", [
    lambda X: ember.linalg.cholesky(X @ X.mT + 3 * ember.eye(3, dtype=X.dtype)),
    lambda X: ember.linalg.cholesky(X @ X.mT + 3 * ember.eye(3, dtype=X.dtype), upper=True),
    lambda X: ember.linalg.eigh(X + X.mT).eigenvalues,
    lambda X: ember.linalg.eigvalsh(X + X.mT, "U"),
    lambda X: ember.linalg.eigh(X + X.mT).eigenvectors.abs(),
], ids=["cholesky", "cholesky_upper", "eigh_values", "eigvalsh", "eigh_vectors"])
def test_symmetric_input_gradients_pass_gradcheck(fn):
    X = _leaf(np.array([[0.9, 0.1, -0.3], [0.4, 1.7, 0.2], [-0.5, 0.6, -1.1]]))
    assert ember.autograd.gradcheck(fn, (X,))
    assert ember.autograd.gradgradcheck(fn, (X,))


@pytest.mark.parametrize("name,fn", [
    ("svdvals", lambda L, A: L.linalg.svdvals(A)),
    ("pinv", lambda L, A: L.linalg.pinv(A)),
    ("matrix_norm_nuc", lambda L, A: L.linalg.matrix_norm(A, "nuc")),
    ("matrix_norm_2", lambda L, A: L.linalg.matrix_norm(A, 2)),
    ("lstsq", lambda L, A: L.linalg.lstsq(A, A[..., :2] * 2.0 + 1.0).solution),
    ("det", lambda L, A: L.linalg.det(A[..., :3, :])),
    ("logdet", lambda L, A: L.logdet(A[..., :3, :] @ A[..., :3, :].mT)),
])
def test_composite_gradients_match_torch(name, fn):
    a = rng.uniform(-1, 1, (2, 4, 3)) + np.eye(4, 3)
    e_a, t_a = _leaf(a), torch.tensor(a, requires_grad=True)
    e_out, t_out = fn(ember, e_a), fn(torch, t_a)
    # values here; the layouts of these composites are the schema suite's (torch's batched
    # pinv of a non-square matrix comes out column-major, ember's row-major)
    check(e_out.detach().contiguous(), t_out.detach().contiguous(), TOLS)
    cot = rng.uniform(-1, 1, tuple(t_out.shape))
    (eg,) = ember.autograd.grad(e_out, e_a, ember.tensor(cot))
    (tg,) = torch.autograd.grad(t_out, t_a, torch.tensor(cot))
    check(eg.contiguous(), tg.contiguous(), TOLS)
    assert ember.autograd.gradcheck(lambda A: fn(ember, A), (e_a,))


@pytest.mark.parametrize("call", [
    lambda L, A: L.linalg.qr(A, "r").R,
    lambda L, A: L.linalg.qr(A, "complete").Q,
], ids=["qr_r", "qr_complete_tall"])
def test_undifferentiable_decompositions_raise_in_backward_like_torch(call):
    a = rng.uniform(-1, 1, (4, 3))
    e_a, t_a = _leaf(a), torch.tensor(a, requires_grad=True)
    raises_like(lambda: call(ember, e_a).sum().backward(),
                lambda: call(torch, t_a).sum().backward())


def test_meta_results_have_torchs_layout():
    for fn in (lambda L, A: L.linalg.inv(A), lambda L, A: L.linalg.qr(A).Q,
               lambda L, A: L.linalg.svd(A, False).Vh, lambda L, A: L.linalg.lu_factor(A).LU,
               lambda L, A: L.linalg.solve(A, A[..., 0])):
        e = fn(ember, ember.empty(2, 3, 3, device="meta", dtype=ember.float64))
        t = fn(torch, torch.eye(3, dtype=torch.float64).expand(2, 3, 3).clone())
        assert (tuple(e.shape), e.stride(), e.device.type) == (tuple(t.shape), t.stride(), "meta")


# --- singular and non-finite input: torch's results or torch's LinAlgError, never NumPy's -----
def _singular_upper(batch=()):
    a = np.triu(np.ones(batch + (3, 3)))
    a[..., 1, 1] = 0
    return a


@pytest.mark.parametrize("kw", [{"upper": True}, {"upper": True, "left": False},
                                {"upper": False}, {"upper": True, "unitriangular": True}],
                         ids=["upper", "right", "lower_reads_other_triangle", "unit"])
def test_solve_triangular_of_a_singular_matrix_gives_torchs_infs_and_nans(kw):
    """NumPy/SciPy's LinAlgError ("singular matrix") escaped; torch's trsm divides by the
    zero pivot."""
    b = np.random.default_rng(7).uniform(-1, 1, (2, 3, 3))
    (e_a, t_a), (e_b, t_b) = pair(_singular_upper((2,))), pair(b)
    # the same infs and NaNs; finite values within an ulp (BLAS trsm's order may differ)
    check(ember.linalg.solve_triangular(e_a, e_b, **kw),
          torch.linalg.solve_triangular(t_a, t_b, **kw), {"float64": (1e-15, 1e-15)})


@pytest.mark.parametrize("name,call", [
    ("svd", lambda L, A: L.linalg.svd(A)), ("svdvals", lambda L, A: L.linalg.svdvals(A)),
    ("pinv", lambda L, A: L.linalg.pinv(A)), ("matrix_norm_2", lambda L, A: L.linalg.matrix_norm(A, 2)),
    ("eigh", lambda L, A: L.linalg.eigh(A)), ("eigvalsh", lambda L, A: L.linalg.eigvalsh(A))])
def test_no_convergence_on_nan_raises_torchs_linalg_error(name, call):
    a = np.full((2, 3, 3), np.nan)
    a[0] = np.eye(3)
    e_a, t_a = pair(a)
    with pytest.raises(torch.linalg.LinAlgError) as t_err:
        call(torch, t_a)
    with pytest.raises(ember.linalg.LinAlgError) as e_err:
        call(ember, e_a)
    # torch's eigh adds LAPACK's error code, which NumPy does not report
    assert str(e_err.value) == str(t_err.value).split(" (error code")[0].rstrip(".") + "."


def test_nan_matrices_get_torchs_slogdet_sign_and_cholesky_info():
    a = np.full((2, 3, 3), np.nan)
    a[0] = np.eye(3)
    e_a, t_a = pair(a)
    for e, t in zip(ember.linalg.slogdet(e_a), torch.linalg.slogdet(t_a)):
        check(e, t)
    check(ember.linalg.cholesky_ex(e_a).info, torch.linalg.cholesky_ex(t_a).info)


def test_lstsq_that_does_not_converge_raises_linalg_error():
    a = np.full((3, 3), np.inf)
    with pytest.raises(ember.linalg.LinAlgError, match="could not be computed"):
        ember.linalg.lstsq(ember.tensor(a), ember.tensor(a), driver="gelsd")
