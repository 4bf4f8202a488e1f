"""Samples for torch.linalg and the legacy linear-algebra names (issue 22), registered
into `opinfo.OPS`.

Matrices are well conditioned (a random matrix plus n * I, or A A^T + n * I where a
symmetric positive-definite one is needed) so that float32 LAPACK results agree with
torch's to a few ulps; singular and non-PD inputs, integer and half dtypes, vectors and
shape mismatches are error samples. opinfo.py imports this module at its end;
`grad_extra()` adds gradient samples.
"""
from __future__ import annotations

import numpy as np
from helpers import ACCUMULATING_ULPS
from opinfo import (
    C64,
    C128,
    F16,
    F32,
    F64,
    I64,
    E,
    S,
    View,
    add_samples,
    make,
    out_of,
    own_rng,
    register,
)

_rng = own_rng(2222)
TOLS = ACCUMULATING_ULPS


def _rand(shape, dt=F32):
    return make(shape, dt, low=-1, high=1, rng=_rng)


def _cond(shape, dt=F32):
    """A well-conditioned (diagonally dominant) batch of square matrices."""
    a = make(shape, F64, low=-1, high=1, rng=_rng) + shape[-1] * np.eye(shape[-1])
    return a.astype(dt)


def _spd(shape, dt=F32):
    """A symmetric positive-definite batch."""
    a = make(shape, F64, low=-1, high=1, rng=_rng)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dt)


def _sym(shape, dt=F32):
    """A symmetric batch with well-separated eigenvalues."""
    q, _ = np.linalg.qr(make(shape, F64, low=-1, high=1, rng=_rng))
    w = np.arange(1, shape[-1] + 1) * 1.5 - 2.0
    return ((q * w[..., None, :]) @ np.swapaxes(q, -1, -2)).astype(dt)


def _T(a):
    """`a` laid out transposed in memory (a View of a.T's copy)."""
    return View(np.ascontiguousarray(np.swapaxes(a, -1, -2)), "transpose.int", (-1, -2))


def _tall(shape, dt=F32):
    """A full-rank rectangular batch with distinct singular values."""
    *b, m, n = shape
    k = min(m, n)
    u, _ = np.linalg.qr(make(tuple(b) + (m, m), F64, low=-1, high=1, rng=_rng))
    v, _ = np.linalg.qr(make(tuple(b) + (n, n), F64, low=-1, high=1, rng=_rng))
    s = np.zeros(tuple(b) + (m, n))
    idx = np.arange(k)
    s[..., idx, idx] = np.linspace(3.0, 1.0, k)
    return (u @ s @ v).astype(dt)


def _singular(n=3, dt=F32):
    """A matrix with a zero row: LAPACK's LU meets an exact zero pivot (det exactly 0)."""
    a = _rand((n, n), dt)
    a[-1] = 0
    return a


def _errors(*, name_1d="vector_error", square=True, int_ok=False, half_ok=False):
    """The error samples most ops share: an int64 and a float16 matrix, a vector and
    (square ops) a non-square matrix."""
    out = [S(np.ones(3, np.float32), name=name_1d)]
    if not int_ok:
        out.append(S(np.eye(3, dtype=I64), name="int64_error"))
    if not half_ok:
        out.append(S(np.eye(3, dtype=F16), name="float16_error"))
    if square:
        out.append(S(_rand((2, 3)), name="nonsquare_error"))
    return out


def _square_samples(make_a=_cond, **err):
    return [S(make_a((3, 3), F32), name="float32"), S(make_a((3, 3), F64), name="float64"),
            S(make_a((2, 4, 4), F32), name="batched"), S(_T(make_a((3, 3), F64)), name="transposed"),
            S(np.zeros((0, 2, 2), np.float32), name="empty_batch"),
            S(np.zeros((0, 0), np.float32), name="empty_matrix")] + _errors(**err)


def _reg(name, samples, **kw):
    register(name, samples, tols=TOLS, **kw)


# Singular vectors and eigenvectors are defined up to sign, which differs between LAPACK
# builds (NumPy's OpenBLAS, torch's MKL): their values are compared up to sign in
# tests/linalg/test_linalg_torch.py; here shapes, dtypes, strides and errors.
SIGNED = {"values": False}


# ---------------------------------------------------------------- solve, inv, det
def _solve_samples(check=False):
    def samples():
        kw = {"check_errors": True} if check else {}
        out = [
            S(_cond((3, 3)), _rand((3, 2)), name="float32", **kw),
            S(_cond((3, 3), F64), _rand((3,), F64), name="vector", **kw),
            S(_cond((2, 3, 3), F64), _rand((2, 3), F64), name="batched_vector", **kw),
            S(_cond((2, 3, 3)), _rand((3, 4)), name="broadcast_B", **kw),
            S(_cond((3, 3), F64), _rand((2, 2, 3, 1), F64), name="broadcast_A", **kw),
            S(_T(_cond((3, 3), F64)), _T(_rand((3, 2), F64)), name="transposed", **kw),
            S(_cond((3, 3)), _rand((2, 3)), left=False, name="right", **kw),
            S(_cond((3, 3)), _rand((4, 3)), name="shape_error", **kw),
            S(_cond((3, 3)), _rand((3, 2), F64), name="dtype_error", **kw),
            S(np.eye(3, dtype=I64), np.ones((3, 1), I64), name="int64_error", **kw),
            S(np.eye(3, dtype=F16), np.ones((3, 1), F16), name="float16_error", **kw),
            S(np.zeros((0, 3, 3), np.float32), np.zeros((0, 3, 2), np.float32), name="empty", **kw),
        ]
        if check:
            out.append(S(_singular(), _rand((3, 2)), name="singular_error", **kw))
        return out
    return samples


_reg("linalg_solve_ex.default", _solve_samples(True))
_reg("linalg_solve.default", _solve_samples())
_reg("linalg_inv_ex.default", lambda: _square_samples() + [
    S(np.stack([_cond((3, 3)), _singular()]), check_errors=True, name="singular_error")])
_reg("linalg_inv.default", lambda: _square_samples() + [S(_singular(), name="singular_error")])
_reg("inverse.default", lambda: _square_samples())
_reg("linalg_det.default", lambda: _square_samples() + [S(_singular(dt=F64), name="singular")])
_reg("det.default", lambda: _square_samples())
_reg("linalg_slogdet.default", lambda: _square_samples() + [
    S(-_cond((3, 3), F64), name="negative"), S(np.zeros((3, 3)), name="singular")])
_reg("slogdet.default", lambda: _square_samples())
_reg("logdet.default", lambda: _square_samples() + [
    S(np.diag([1.0, -2.0, 3.0]), name="negative_det_nan"), S(np.zeros((2, 2)), name="zero_det")])


# ---------------------------------------------------------------- factorizations
def _chol_samples(check=False):
    def samples():
        out = _square_samples(_spd) + [S(_spd((3, 3), F64), upper=True, name="upper"),
                                       S(_T(_spd((2, 3, 3), F64)), upper=True, name="upper_T")]
        bad = np.stack([_spd((3, 3)), -np.eye(3, dtype=np.float32)])
        out.append(S(bad, name="not_pd_info") if not check else
                   S(bad, check_errors=True, name="not_pd_error"))
        return out
    return samples


_reg("linalg_cholesky_ex.default", _chol_samples(True))
_reg("linalg_cholesky.default", lambda: _chol_samples()()[:-1] + [
    S(-np.eye(3), name="not_pd_error")])
_reg("cholesky.default", lambda: [S(_spd((3, 3)), name="float32"),
                                  S(_spd((2, 3, 3), F64), True, name="upper")])


def _chol_factor(shape, dt, upper):
    c = np.linalg.cholesky(_spd(shape, F64))
    return (np.swapaxes(c, -1, -2) if upper else c).astype(dt)


_reg("cholesky_solve.default", lambda: [
    S(_rand((3, 2)), _chol_factor((3, 3), F32, False), name="float32"),
    S(_rand((2, 3, 2), F64), _chol_factor((2, 3, 3), F64, True), True, name="upper_batched")])
_reg("cholesky_inverse.default", lambda: [
    S(_chol_factor((3, 3), F32, False), name="float32"),
    S(_chol_factor((3, 3), F64, True), True, name="upper")])


def _rect_samples(**err):
    return [S(_tall((4, 3)), name="tall"), S(_tall((3, 5), F64), name="wide"),
            S(_tall((2, 3, 3), F64), name="batched"), S(_T(_tall((4, 3), F64)), name="transposed"),
            S(np.zeros((0, 3, 2), np.float32), name="empty_batch")] + _errors(square=False, **err)


_reg("linalg_qr.default", lambda: _rect_samples() + [
    S(_tall((4, 3), F64), "complete", name="complete_tall_backward_error"),
    S(_tall((3, 4)), "r", name="r_backward_error"),
    S(_tall((2, 3), F64), "complete", name="complete_wide"),
    S(_tall((3, 3)), "bad", name="mode_error")])
_reg("qr.default", lambda: [S(_tall((4, 3)), name="some"), S(_tall((4, 3), F64), False, name="full")])
_reg("linalg_svd.default", **SIGNED, samples=lambda: [S(*s.args, False, name=s.name) for s in _rect_samples()] + [
    S(_tall((3, 3), F64), name="full_square"),
    S(_tall((4, 2), F64), name="full_tall"),
    S(_tall((3, 3)), driver="gesvd", name="driver_error")])
_reg("linalg_svdvals.default", lambda: _rect_samples())
_reg("svd.default", **SIGNED, samples=lambda: [S(_tall((4, 3)), name="some"), S(_tall((3, 3), F64), False, name="full"),
                             S(_tall((4, 3), F64), True, False, name="no_uv")])
_reg("linalg_eigh.default", **SIGNED, samples=lambda: _square_samples(_sym, int_ok=False) + [
    S(_sym((3, 3), F64), "U", name="upper"), S(_sym((3, 3)), "X", name="uplo_error")])
_reg("linalg_eigvalsh.default", lambda: _square_samples(_sym) + [
    S(_sym((3, 3), F64), "U", name="upper")])


_erng = own_rng(2224)   # (the shared stream left as it was for the samples after these)


def _eig_samples(nan=False):
    """General (non-symmetric) matrices: complex eigenvalues come in conjugate pairs. torch
    refuses non-finite input to eig (its eigvals' LAPACK result there is undefined, even a
    crash: tests/linalg checks ember's NaNs)."""
    def samples():
        def r(shape, dt=F32):
            return make(shape, dt, low=-1, high=1, rng=_erng)
        bad = r((2, 3, 3))
        bad[1, 0, 1] = np.nan
        out = [S(r((3, 3)), name="float32"), S(r((3, 3), F64), name="float64"),
               S(r((2, 4, 4)), name="batched"), S(_T(r((3, 3), F64)), name="transposed"),
               S(np.zeros((0, 2, 2), np.float32), name="empty_batch"),
               S(np.zeros((0, 0), np.float32), name="empty_matrix"),
               S(np.diag([1.0, 2.0, 3.0]), name="real_eigenvalues"),
               S(np.array([[0.0, -1.0], [1.0, 0.0]]), name="rotation"),
               S(np.ones(3, np.float32), name="vector_error"),
               S(np.eye(3, dtype=F16), name="float16_error"),
               S(r((2, 3)), name="nonsquare_error"),
               S(np.zeros((2, 3), I64), name="int64_nonsquare_error"),
               S(np.eye(2, dtype=np.bool_), name="bool_error")]
        return out + ([S(bad, name="nan_error")] if nan else [])
    return samples


# eigenvectors are defined up to a complex phase (LAPACK's: unit norm, largest component
# real): their values are compared in tests/linalg; eigenvalues here
_reg("linalg_eig.default", **SIGNED, samples=_eig_samples(nan=True))
_reg("linalg_eigvals.default", _eig_samples())
_reg("_linalg_eigvals.default", _eig_samples())


def _lstsq_samples():
    return [
        S(_tall((5, 3)), _rand((5, 2)), name="tall"),
        S(_tall((5, 3), F64), _rand((5, 2), F64), driver="gelsd", name="gelsd"),
        S(_tall((5, 3), F64), _rand((5, 2), F64), driver="gelss", name="gelss"),
        S(_tall((5, 3), F64), _rand((5, 2), F64), driver="gels", name="gels"),
        S(_tall((3, 5), F64), _rand((3, 2), F64), driver="gelsd", name="wide_gelsd"),
        S(_tall((2, 4, 3), F64), _rand((2, 4), F64), name="batched_vector"),
        S(_tall((2, 4, 3), F64), _rand((1, 4, 2), F64), driver="gelsd", name="broadcast"),
        S(_tall((2, 4, 3), F64), _rand((4, 2), F64), name="broadcast_error"),
        S(_tall((3, 3)), _rand((4, 2)), name="shape_error"),
        S(_tall((3, 3)), _rand((3, 2), F64), name="dtype_error"),
        S(_tall((3, 3)), _rand((3, 2)), driver="xyz", name="driver_error"),
        S(np.eye(3, dtype=F16), np.ones((3, 1), F16), name="float16_error"),
    ]


_reg("linalg_lstsq.default", _lstsq_samples)


def _lu_samples():
    return [S(_rand((3, 3)), name="float32"), S(_rand((3, 4), F64), name="wide"),
            S(_rand((2, 4, 3), F64), name="tall_batched"), S(_T(_rand((3, 3), F64)), name="transposed"),
            S(np.zeros((0, 2, 2), np.float32), name="empty_batch"),
            S(_rand((3, 3)), pivot=False, name="no_pivot_error")] + _errors(square=False)


_reg("linalg_lu.default", _lu_samples)
_reg("linalg_lu_factor_ex.default", lambda: _lu_samples() + [
    S(np.zeros((3, 3), np.float32), name="singular_info"),
    S(np.zeros((3, 3), np.float32), check_errors=True, name="singular_error")])
_reg("linalg_lu_factor.default", lambda: _lu_samples() + [
    S(np.zeros((3, 3), np.float32), name="singular_error")])


def _packed(shape, dt=F32):
    import scipy.linalg as sl
    a = _rand(shape, F64) + np.eye(shape[-2], shape[-1]) * 3
    lu, piv = sl.lu_factor(a)
    return lu.astype(dt), (piv + 1).astype(np.int32)


def _lu_unpack_samples():
    lu, piv = _packed((3, 3))
    lu4, piv4 = _packed((4, 4), F64)
    return [S(lu, piv, name="float32"), S(lu4, piv4, name="float64"),
            S(lu4, piv4, False, name="no_data_backward_error"), S(lu4, piv4, True, False, name="no_pivots"),
            S(lu, piv.astype(I64), name="int64_pivots_error")]


_reg("lu_unpack.default", _lu_unpack_samples)


def _lu_solve_samples():
    lu, piv = _packed((3, 3), F64)
    lu32, piv32 = _packed((3, 3))
    return [S(lu32, piv32, _rand((3, 2)), name="float32"),
            S(lu, piv, _rand((3, 2), F64), adjoint=True, name="adjoint"),
            S(lu, piv, _rand((2, 3), F64), left=False, name="right"),
            S(lu, piv, _rand((2, 3), F64), left=False, adjoint=True, name="right_adjoint"),
            S(lu, piv, _rand((2, 3, 1), F64), name="broadcast"),
            S(lu, piv, _rand((4, 2), F64), name="shape_error"),
            S(lu, piv.astype(I64), _rand((3, 2), F64), name="pivots_dtype_error")]


_reg("linalg_lu_solve.default", _lu_solve_samples)
_reg("lu_solve.default", lambda: [S(s.args[2], s.args[0], s.args[1], name=s.name)
                                  for s in _lu_solve_samples()[:1]])


def _tri(shape, dt=F32, upper=True):
    a = _cond(shape, dt)
    return np.triu(a) if upper else np.tril(a)


_reg("linalg_solve_triangular.default", lambda: [
    S(_tri((3, 3)), _rand((3, 2)), upper=True, name="upper"),
    S(_tri((3, 3), F64, False), _rand((3, 4), F64), upper=False, name="lower"),
    S(_cond((3, 3), F64), _rand((3, 2), F64), upper=True, name="reads_upper_triangle"),
    S(_tri((3, 3), F64), _rand((2, 3), F64), upper=True, left=False, name="right"),
    S(_tri((3, 3), F64, False), _rand((3, 2), F64), upper=False, unitriangular=True, name="unit"),
    S(_tri((2, 3, 3), F64), _T(_rand((3, 2), F64)), upper=True, name="broadcast_transposed"),
    S(_tri((3, 3)), _rand((4, 2)), upper=True, name="shape_error"),
    S(_tri((3, 3)), _rand((3,)), upper=True, name="vector_error"),
    S(_tri((3, 3)), _rand((3, 2), F64), upper=True, name="dtype_error")])
_reg("triangular_solve.default", lambda: [
    S(_rand((3, 2)), _tri((3, 3)), name="upper"),
    S(_rand((3, 2), F64), _tri((3, 3), F64, False), False, True, name="lower_transpose")])


def _hh_samples():
    return [S(_rand((4, 3)), _rand((3,)), name="float32"),
            S(_rand((4, 3), F64), _rand((2,), F64), name="fewer_reflectors"),
            S(_rand((2, 3, 3), F64), _rand((2, 3), F64), name="batched"),
            S(_rand((3, 4)), _rand((3,)), name="wide_error"),
            S(_rand((4, 3)), _rand((4,)), name="tau_error"),
            S(_rand((4, 3)), _rand((3,), F64), name="dtype_error")]


_reg("linalg_householder_product.default", _hh_samples)
_reg("orgqr.default", lambda: _hh_samples()[:2])

# ---------------------------------------------------------------- matrix functions
_reg("linalg_matrix_exp.default", lambda: [
    S(_rand((3, 3)), name="float32"), S(_rand((2, 3, 3), F64), name="batched"),
    S(_T(_rand((3, 3), F64)), name="transposed"),
    S(np.zeros((0, 2, 2), np.float32), name="empty")] + _errors(half_ok=True))
_reg("matrix_exp.default", lambda: [S(_rand((3, 3)), name="float32")])


def _power_samples():
    return [S(_cond((3, 3)), 3, name="cube"), S(_cond((2, 3, 3), F64), -2, name="inverse_square"),
            S(_cond((3, 3), F64), 0, name="zero"), S(_cond((3, 3), F64), 1, name="one"),
            S(_T(_cond((3, 3), F64)), 5, name="transposed"),
            S(np.arange(9, dtype=I64).reshape(3, 3), 2, name="int64"),
            S(np.arange(9, dtype=I64).reshape(3, 3), -1, name="int64_inverse_error"),
            S(_rand((2, 3)), 2, name="nonsquare_error"), S(_rand((3,)), 2, name="vector_error")]


_reg("linalg_matrix_power.default", _power_samples)
_reg("matrix_power.default", lambda: _power_samples()[:3])


# ---------------------------------------------------------------- norms
def _matrix_norm_samples():
    out = [S(_tall((3, 4)), o, name=f"ord_{o}") for o in (1, -1, 2, -2, float("inf"),
                                                           float("-inf"))]
    return out + [
        S(_tall((2, 3, 4), F64), 2, [0, 2], True, name="dims_keepdim_2"),
        S(_tall((2, 3, 4), F64), 1, [2, 0], name="dims_1"),
        S(_tall((2, 3, 4), F64), float("inf"), [-1, -2], True, name="inf_keepdim"),
        S(_tall((3, 4)), 1, dtype=E.float64, name="dtype_float64"),
        S(np.ones((3, 3), F16), 1, name="float16"),
        S(np.ones((3, 3), F16), 2, name="float16_2_error"),
        S(_tall((3, 4)), 3, name="ord_error"),
        S(_tall((3, 4)), 1, [0], name="dim_error"),
        S(_tall((3, 4)), 1, [1, 1], name="same_dims_error"),
        S(np.ones(3, np.float32), 1, name="vector_error"),
        S(np.eye(3, dtype=I64), 1, name="int64_error")]


_reg("linalg_matrix_norm.default", _matrix_norm_samples)
_reg("linalg_matrix_norm.str_ord", lambda: [
    S(_tall((3, 4))), S(_tall((3, 4), F64), "nuc", name="nuc"),
    S(_tall((2, 3, 4), F64), "nuc", [0, 2], True, name="nuc_dims_keepdim"),
    S(_tall((2, 3, 4)), "fro", [-1, 0], True, name="fro_dims_keepdim"),
    S(np.ones((3, 3), F16), "fro", name="float16_fro"),
    S(_tall((3, 4)), "bad", name="ord_error")])
_reg("linalg_norm.default", lambda: [
    S(_rand((3, 4))), S(_rand((3, 4), F64), 1, name="matrix_1"),
    S(_rand((2, 3, 4), F64), None, [0, 2], True, name="vector_2_dims"),
    S(_rand((2, 3, 4), F64), float("inf"), [1, 2], name="matrix_inf_dims"),
    S(_rand((2, 3, 4)), 3, [1], name="vector_3"), S(_rand((4,)), 0.5, name="vector"),
    S(_rand((2, 3, 4)), 2, name="3d_ord_error"),
    S(_rand((2, 3, 4)), 2, [0, 1, 2], name="dims_error")])
_reg("linalg_norm.ord_str", lambda: [
    S(_rand((3, 4)), "fro"), S(_rand((2, 3, 4), F64), "nuc", [1, 2], True, name="nuc_dims"),
    S(_rand((2, 3, 4)), "fro", name="3d_error")])


# ---------------------------------------------------------------- rank, pinv
def _rank_deficient(dt=F32):
    a = _tall((4, 3), F64)
    a[:, 2] = a[:, 0] + a[:, 1]
    return a.astype(dt)


_reg("linalg_matrix_rank.atol_rtol_float", lambda: [
    S(_tall((4, 3)), name="full"), S(_rank_deficient(F64), name="deficient"),
    S(_tall((2, 3, 5), F64), atol=1.5, name="atol"), S(_tall((3, 3), F64), rtol=0.5, name="rtol"),
    S(_sym((3, 3), F64), hermitian=True, name="hermitian"),
    S(np.ones(3, np.float32), name="vector_error"), S(np.eye(3, dtype=I64), name="int64_error")])
_reg("linalg_matrix_rank.default", lambda: [S(_tall((4, 3), F64), 1.5, name="tol"),
                                            S(_sym((3, 3), F64), 0.1, True, name="hermitian")])
_reg("linalg_pinv.atol_rtol_float", lambda: [
    S(_tall((4, 3)), name="tall"), S(_tall((3, 5), F64), name="wide"),
    S(_rank_deficient(F64), name="deficient"), S(_tall((2, 3, 3), F64), atol=1.5, name="atol"),
    S(_sym((3, 3), F64), hermitian=True, name="hermitian"),
    S(np.zeros((0, 3), np.float32), name="empty"),
    S(np.ones(3, np.float32), name="vector_error"), S(np.eye(3, dtype=I64), name="int64_error")])
_reg("linalg_pinv.default", lambda: [S(_tall((4, 3), F64), 0.5, name="rcond"),
                                     S(_sym((3, 3), F64), 0.1, True, name="hermitian")])
_reg("pinverse.default", lambda: [S(_tall((4, 3))), S(_tall((3, 5), F64), 0.5, name="rcond")])


# ---------------------------------------------------------------- products
def _multi_dot_samples():
    return [
        S([_rand((2, 3)), _rand((3, 4))], name="two"),
        S([_rand((5, 2), F64), _rand((2, 6), F64), _rand((6, 3), F64), _rand((3, 4), F64)],
          name="chain"),
        S([_rand((3,)), _rand((3, 4)), _rand((4,))], name="vectors"),
        S([_rand((3,), F64), _rand((3, 2), F64)], name="first_vector"),
        S([np.arange(6, dtype=I64).reshape(2, 3), np.arange(6, dtype=I64).reshape(3, 2)],
          name="int64"),
        S([_rand((2, 3))], name="one_error"),
        S([_rand((2, 3)), _rand((2, 3))], name="shape_error"),
        S([_rand((2, 3)), _rand((3, 4), F64)], name="dtype_error"),
        S([_rand((2, 2, 3)), _rand((3, 4))], name="3d_error")]


_reg("linalg_multi_dot.default", _multi_dot_samples)
_reg("chain_matmul.default", lambda: [S([_rand((2, 3)), _rand((3, 4)), _rand((4, 2))]),
                                      S([_rand((2, 3))], name="one")])
_reg("linalg_cross.default", lambda: [
    S(_rand((4, 3)), _rand((4, 3)), name="float32"),
    S(_rand((3, 2), F64), _rand((3, 1), F64), dim=0, name="dim0_broadcast"),
    S(np.arange(6, dtype=I64).reshape(2, 3), np.ones((2, 3), I64), name="int64"),
    S(_rand((4, 2)), _rand((4, 2)), name="length_error"),
    S(_rand((4, 3)), _rand((3,)), name="ndim_error")])
_reg("cross.default", lambda: [S(_rand((3, 4)), _rand((3, 4)), name="dim_none"),
                               S(_rand((4, 3), F64), _rand((4, 3), F64), 1, name="dim1")])
_reg("linalg_vecdot.default", lambda: [
    S(_rand((3, 4)), _rand((3, 4)), name="float32"),
    S(_rand((3, 4), F64), _rand((4,), F64), dim=-1, name="broadcast"),
    S(_rand((3, 4), F64), _rand((3, 4), F64), dim=0, name="dim0"),
    S(np.ones((3, 4), I64), np.ones((3, 4), I64), name="int64_error"),
    S(_rand((3, 4)), _rand((3, 4), F64), name="dtype_error")])
_reg("linalg_tensorinv.default", lambda: [
    S(_cond((6, 6)).reshape(2, 3, 6), name="ind2"), S(_cond((4, 4), F64).reshape(4, 2, 2), 1,
                                                      name="ind1"),
    S(_rand((2, 3, 4)), name="shape_error"), S(_rand((2, 3)), 0, name="ind_error")])
_reg("linalg_tensorsolve.default", lambda: [
    S(_cond((6, 6)).reshape(2, 3, 6), _rand((2, 3)), name="float32"),
    S(np.moveaxis(_cond((6, 6), F64).reshape(2, 3, 6), 0, 2).copy(), _rand((3, 2), F64),
      [0], name="dims"),
    S(_rand((2, 3, 4)), _rand((2, 3)), name="shape_error")])
_reg("linalg_vander.default", lambda: [
    S(_rand((4,))), S(_rand((2, 3), F64), N=5, name="batched_N"),
    S(np.arange(1, 4, dtype=I64), name="int64"), S(np.array(2.0, np.float32), N=3, name="0d"),
    S(_rand((3,)), N=1, name="N_error"), S(_rand((3,)).astype(F16), name="float16_error")])
_vrng = own_rng(2233)   # (linalg's own stream _rng left as it was for the samples after)
_reg("vander.default", lambda: [
    S(make((4,), F32, rng=_vrng)), S(make((3,), F64, rng=_vrng), 5, name="N"),
    S(make((3,), F32, rng=_vrng), 2, True, name="increasing"),
    S(np.arange(1, 4, dtype=np.int8), name="int8"), S(np.array([True, False]), name="bool"),
    S(make((3,), F32, rng=_vrng), 0, name="N0"), S(np.zeros((0,), F64), name="empty"),
    S(make((2, 3), F32, rng=_vrng), name="2d_error"),
    S(make((3,), F32, rng=_vrng), -1, name="negative_N_error")])
_reg("linalg_diagonal.default", lambda: [
    S(_rand((2, 3, 4)), name="float32"), S(_rand((3, 4), F64), offset=1, name="offset"),
    S(_rand((2, 3, 4)), dim1=0, dim2=2, name="dims")], exact_strides=True)
_reg("linalg_matmul.default", lambda: [S(_rand((2, 3, 4)), _rand((4, 5))),
                                       S(_rand((3,), F64), _rand((3,), F64), name="dot")])
_reg("trace.default", lambda: [S(_rand((3, 4)), name="float32"),
                               S(np.arange(12, dtype=I64).reshape(3, 4), name="int64"),
                               S(_rand((3,)), name="vector_error")])


# ---------------------------------------------------------------- ldl, cond
_lrng = own_rng(2225)


def _lsym(shape, dt=F32):
    """A symmetric indefinite batch (Bunch-Kaufman picks 1x1 and 2x2 pivots)."""
    a = make(shape, F64, low=-1, high=1, rng=_lrng)
    return (a + np.swapaxes(a, -1, -2)).astype(dt)


def _ldl_samples(check=False):
    def samples():
        kw = {"check_errors": True} if check else {}
        out = [S(_lsym((3, 3)), name="float32", **kw), S(_lsym((2, 4, 4), F64), name="batched", **kw),
               S(_T(_lsym((3, 3), F64)), name="transposed", **kw),
               S(np.array([[0.0, 1.0], [1.0, 0.0]]), name="2x2_pivot", **kw),
               S(_lsym((3, 3), F64), hermitian=True, name="hermitian_real", **kw),
               S(np.zeros((0, 3, 3), np.float32), name="empty_batch", **kw),
               S(np.ones(3, np.float32), name="vector_error", **kw),
               S(np.ones((2, 3), np.float32), name="nonsquare_error", **kw),
               S(np.eye(3, dtype=I64), name="int64_error", **kw),
               S(np.eye(3, dtype=F16), name="float16_error", **kw)]
        return out + ([] if check else [S(np.zeros((2, 2)), name="singular_info")])
    return samples


def _ldl_factored(shape, dt=F64, hermitian=False, make_a=_lsym):
    import scipy.linalg.lapack as la
    a = make_a(shape, dt)
    kind = "he" if hermitian and np.iscomplexobj(a) else "sy"
    ldu, piv, _ = la.get_lapack_funcs(kind + "trf", (a,))(a, lower=1)
    return np.tril(ldu), piv.astype(np.int32)


def _ldl_solve_samples():
    ld, piv = _ldl_factored((3, 3))
    ld32, piv32 = _ldl_factored((3, 3), F32)
    b = make((3, 2), F64, low=-1, high=1, rng=_lrng)
    return [S(ld32, piv32, b.astype(F32), name="float32"), S(ld, piv, b, name="float64"),
            S(ld, piv, make((2, 3, 1), F64, rng=_lrng), name="broadcast_B"),
            S(*_ldl_factored((3, 3), hermitian=True), b, hermitian=True, name="hermitian_real"),
            S(ld, piv, b[:, 0], name="vector_error"), S(ld, piv, b.astype(F32), name="dtype_error"),
            S(ld, piv, make((4, 2), F64, rng=_lrng), name="shape_error"),
            S(ld, piv[:2], b, name="pivots_shape_error")]


_reg("linalg_ldl_factor_ex.default", _ldl_samples())
_reg("linalg_ldl_factor.default", lambda: _ldl_samples()()[:-1])
_reg("linalg_ldl_solve.default", _ldl_solve_samples)


def _cond_samples():
    return [S(_cond((3, 3))), S(_rand((2, 3, 3), F64), 2, name="batched_2"),
            S(_tall((4, 3), F64), name="rectangular"), S(_cond((3, 3), F64), -2, name="minus_2"),
            *(S(_cond((2, 3, 3), F64), o, name=f"ord_{o}") for o in (1, -1, float("inf"),
                                                                    float("-inf"))),
            S(_singular(dt=F64), 1, name="singular_inf"), S(np.zeros((0, 0)), name="empty"),
            S(np.zeros((2, 0, 0)), 1, name="empty_1"),
            S(_rand((3, 4)), 1, name="nonsquare_error"), S(_rand((3, 4)), 1.0, name="float_ord_error"),
            S(_rand((3,)), name="vector_error"), S(_cond((3, 3)), 3, name="ord_error"),
            S(np.eye(3, dtype=I64), name="int64_error")]


_reg("linalg_cond.default", _cond_samples)
_reg("linalg_cond.p_str", lambda: [
    S(_cond((3, 3)), "fro"), S(_cond((2, 3, 3), F64), "nuc", name="nuc"),
    S(_singular(dt=F64), "fro", name="singular_inf"), S(np.zeros((2, 0, 0)), "fro", name="empty"),
    S(_rand((3, 4)), "fro", name="nonsquare_error"), S(_cond((3, 3)), "bad", name="ord_error")])


# ---------------------------------------------------------------- complex
# complex64/complex128 inputs of the ops NumPy/SciPy's LAPACK computes directly (norms,
# singular values and eigenvalues of Hermitian matrices real, like torch's)
_crng = own_rng(2223)


def _crand(shape, dt=C64):
    a = _crng.uniform(-1, 1, shape) + 1j * _crng.uniform(-1, 1, shape)
    return a.astype(dt)


def _ccond(shape, dt=C64):
    return (_crand(shape, C128) + shape[-1] * np.eye(shape[-1])).astype(dt)


def _chpd(shape, dt=C64):
    """A Hermitian positive-definite batch."""
    a = _crand(shape, C128)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dt)


def _cherm(shape, dt=C64):
    """A Hermitian batch with well-separated eigenvalues."""
    q, _ = np.linalg.qr(_crand(shape, C128))
    w = np.arange(1, shape[-1] + 1) * 1.5 - 2.0
    return ((q * w) @ np.conj(np.swapaxes(q, -1, -2))).astype(dt)


def _ctall(shape, dt=C64):
    """A full-rank rectangular complex batch with distinct singular values."""
    *b, m, n = shape
    u, _ = np.linalg.qr(_crand(tuple(b) + (m, m), C128))
    v, _ = np.linalg.qr(_crand(tuple(b) + (n, n), C128))
    s = np.zeros(tuple(b) + (m, n))
    k = min(m, n)
    s[..., np.arange(k), np.arange(k)] = np.linspace(3.0, 1.0, k)
    return (u @ s @ v).astype(dt)


def _csquare(make_a):
    return lambda: [S(make_a((3, 3)), name="complex64"),
                    S(make_a((2, 3, 3), C128), name="complex128_batched")]


def _crect():
    return [S(_ctall((4, 3)), name="complex64_tall"), S(_ctall((2, 3, 4), C128), name="complex128_wide")]


for _name in ("linalg_inv_ex", "linalg_inv", "inverse", "linalg_det", "det", "linalg_slogdet",
              "slogdet", "logdet", "linalg_matrix_exp", "linalg_eig", "linalg_eigvals",
              "_linalg_eigvals"):
    add_samples(f"{_name}.default", _csquare(_ccond))
for _name in ("linalg_cholesky_ex", "linalg_cholesky", "cholesky"):
    add_samples(f"{_name}.default", _csquare(_chpd))
for _name in ("linalg_eigh", "linalg_eigvalsh"):
    add_samples(f"{_name}.default", _csquare(_cherm))
for _name in ("linalg_qr", "linalg_svdvals", "linalg_lu", "linalg_lu_factor_ex", "linalg_pinv.atol_rtol_float",
              "linalg_matrix_rank.atol_rtol_float", "linalg_matrix_norm.str_ord"):
    add_samples(_name if "." in _name else f"{_name}.default", _crect)
add_samples("linalg_svd.default", lambda: [S(*s.args, False, name=s.name) for s in _crect()])
add_samples("linalg_matrix_norm.default", lambda: [
    S(_ctall((3, 4)), o, name=f"complex64_ord_{o}") for o in (1, 2, -2, float("inf"))] + [
    S(_ctall((3, 4)), 1, dtype=E.float64, name="complex_real_dtype_error")])
add_samples("linalg_norm.default", lambda: [S(_crand((3, 4))), S(_crand((2, 3, 4), C128), 3, [2],
                                                                 name="complex128_vector_3")])
add_samples("linalg_vector_norm.default", lambda: [
    S(_crand((3, 4)), name="complex64"), S(_crand((3, 4), C128), 1, [0], True, name="complex128_1"),
    S(_crand((3, 4)), float("inf"), dtype=E.complex128, name="complex64_dtype_complex128"),
    S(_crand((3, 4)), 3, dtype=E.float64, name="complex_real_dtype_error"),
    S(_rand((3, 4)), 2, dtype=E.complex64, name="real_complex_dtype_error")])
add_samples("linalg_solve_ex.default", lambda: [
    S(_ccond((3, 3)), _crand((3, 2)), name="complex64"),
    S(_ccond((2, 3, 3), C128), _crand((2, 3), C128), name="complex128_vector")])
add_samples("linalg_solve.default", lambda: [
    S(_ccond((3, 3), C128), _crand((2, 3), C128), left=False, name="complex128_right"),
    S(_ccond((3, 3)), _crand((3, 2), C128), name="complex_dtype_error")])
add_samples("linalg_lstsq.default", lambda: [
    S(_ctall((5, 3)), _crand((5, 2)), name="complex64"),
    S(_ctall((5, 3), C128), _crand((5, 2), C128), driver="gelsd", name="complex128_gelsd")])


def _cpacked(shape, dt=C128):
    import scipy.linalg as sl
    lu, piv = sl.lu_factor(_ccond(shape, dt))
    return lu, (piv + 1).astype(np.int32)


add_samples("linalg_lu_solve.default", lambda: [
    S(*_cpacked((3, 3)), _crand((3, 2), C128), adjoint=True, name="complex128_adjoint"),
    S(*_cpacked((3, 3)), _crand((2, 3), C128), left=False, name="complex128_right"),
    S(_cpacked((3, 3))[0], np.zeros(3, np.int32), _crand((3, 2), C128),
      name="zero_pivots_error")])
add_samples("linalg_solve_triangular.default", lambda: [
    S(np.triu(_ccond((3, 3))), _crand((3, 2)), upper=True, name="complex64"),
    S(np.tril(_ccond((3, 3), C128)), _crand((2, 3), C128), upper=False, left=False,
      name="complex128_right")])
add_samples("linalg_householder_product.default", lambda: [
    S(_crand((4, 3), C128), _crand((3,), C128), name="complex128")])
add_samples("linalg_vecdot.default", lambda: [S(_crand((3, 4)), _crand((3, 4)), name="complex64")])
add_samples("linalg_cond.default", lambda: [S(_ccond((2, 3, 3)), name="complex64"),
                                            S(_ccond((3, 3), C128), 1, name="complex128_1")])
add_samples("linalg_ldl_factor_ex.default", lambda: [
    S(_ccond((3, 3), C128), name="complex128_symmetric"),
    S(_cherm((2, 3, 3)), hermitian=True, name="complex64_hermitian")])
add_samples("linalg_ldl_solve.default", lambda: [
    S(*_ldl_factored((3, 3), C128, True, _cherm), _crand((3, 2), C128), hermitian=True,
      name="complex128_hermitian")])
add_samples("cholesky_inverse.default", lambda: [
    S(np.linalg.cholesky(_chpd((3, 3), C128)), name="complex128")])


# ---------------------------------------------------------------- out= variants
_OUT_DTYPE_FIRST = {"linalg_cholesky_ex.L", "linalg_inv_ex.inverse", "linalg_eig.out", "linalg_eigvals.out", "linalg_ldl_factor.out",
                    "linalg_ldl_factor_ex.out", "linalg_lu_factor.out", "linalg_lu_factor_ex.out",
                    "linalg_solve_ex.out", "linalg_matrix_rank.atol_rtol_float_out"}
# torch's out= overloads of the linalg ops (schema `autogen:` entries): the functional
# op's samples (with their complex ones), `out=` allocated like its result
for _out, _functional in [
        ("linalg_solve_ex.out", "linalg_solve_ex.default"),
        ("linalg_solve.out", "linalg_solve.default"),
        ("linalg_inv_ex.inverse", "linalg_inv_ex.default"),
        ("linalg_inv.out", "linalg_inv.default"),
        ("inverse.out", "inverse.default"),
        ("linalg_det.out", "linalg_det.default"),
        ("linalg_slogdet.out", "linalg_slogdet.default"),
        ("slogdet.out", "slogdet.default"),
        ("linalg_cholesky_ex.L", "linalg_cholesky_ex.default"),
        ("linalg_cholesky.out", "linalg_cholesky.default"),
        ("cholesky.out", "cholesky.default"),
        ("cholesky_solve.out", "cholesky_solve.default"),
        ("cholesky_inverse.out", "cholesky_inverse.default"),
        ("linalg_qr.out", "linalg_qr.default"),
        ("qr.Q", "qr.default"),
        ("linalg_svd.U", "linalg_svd.default"),
        ("linalg_svdvals.out", "linalg_svdvals.default"),
        ("svd.U", "svd.default"),
        ("linalg_eigh.eigvals", "linalg_eigh.default"),
        ("linalg_eigvalsh.out", "linalg_eigvalsh.default"),
        ("linalg_eig.out", "linalg_eig.default"),
        ("linalg_eigvals.out", "linalg_eigvals.default"),
        ("linalg_lstsq.out", "linalg_lstsq.default"),
        ("linalg_lu.out", "linalg_lu.default"),
        ("linalg_lu_factor_ex.out", "linalg_lu_factor_ex.default"),
        ("linalg_lu_factor.out", "linalg_lu_factor.default"),
        ("lu_unpack.out", "lu_unpack.default"),
        ("linalg_lu_solve.out", "linalg_lu_solve.default"),
        ("linalg_ldl_factor_ex.out", "linalg_ldl_factor_ex.default"),
        ("linalg_ldl_factor.out", "linalg_ldl_factor.default"),
        ("linalg_ldl_solve.out", "linalg_ldl_solve.default"),
        ("lu_solve.out", "lu_solve.default"),
        ("linalg_solve_triangular.out", "linalg_solve_triangular.default"),
        ("triangular_solve.X", "triangular_solve.default"),
        ("linalg_householder_product.out", "linalg_householder_product.default"),
        ("orgqr.out", "orgqr.default"),
        ("linalg_matrix_exp.out", "linalg_matrix_exp.default"),
        ("linalg_matrix_power.out", "linalg_matrix_power.default"),
        ("matrix_power.out", "matrix_power.default"),
        ("linalg_matrix_norm.out", "linalg_matrix_norm.default"),
        ("linalg_matrix_norm.str_ord_out", "linalg_matrix_norm.str_ord"),
        ("linalg_norm.out", "linalg_norm.default"),
        ("linalg_norm.ord_str_out", "linalg_norm.ord_str"),
        ("linalg_cond.out", "linalg_cond.default"),
        ("linalg_cond.p_str_out", "linalg_cond.p_str"),
        ("linalg_matrix_rank.atol_rtol_float_out", "linalg_matrix_rank.atol_rtol_float"),
        ("linalg_matrix_rank.out", "linalg_matrix_rank.default"),
        ("linalg_pinv.atol_rtol_float_out", "linalg_pinv.atol_rtol_float"),
        ("linalg_pinv.out", "linalg_pinv.default"),
        ("linalg_multi_dot.out", "linalg_multi_dot.default"),
        ("chain_matmul.out", "chain_matmul.default"),
        ("linalg_cross.out", "linalg_cross.default"),
        ("cross.out", "cross.default"),
        ("linalg_vecdot.out", "linalg_vecdot.default"),
        ("linalg_tensorinv.out", "linalg_tensorinv.default"),
        ("linalg_tensorsolve.out", "linalg_tensorsolve.default"),
        ("linalg_matmul.out", "linalg_matmul.default"),
        ("trace.out", "trace.default"),
]:
    out_of(_out, _functional, errors=_out not in _OUT_DTYPE_FIRST)


# ---------------------------------------------------------------- gradients
def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    return {
        "linalg_det.default": [S(_singular(dt=F64), name="singular")],
        "linalg_svd.default": [S(_tall((3, 3), F64), True, name="full_square_grad")],
        "linalg_qr.default": [S(_tall((2, 4), F64), name="wide_grad")],
        "linalg_lu_solve.default": [S(*_lu_solve_samples()[0].args[:2], _rand((3, 2), F64),
                                      name="float64_grad")],
    }
