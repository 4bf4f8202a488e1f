"""mm, bmm, addmm on CPU tensors: np.matmul on the ready arrays (BLAS for float32/64,
NumPy's own loops for integers), written into a fresh contiguous result. float16 and
bfloat16 are multiplied in float32 and rounded once at the end; bool is rejected like
torch's CPU kernels. Below them, torch.linalg's LAPACK ops.

    >>> ember.ones(2, 3).mm(ember.ones(3, 4)).shape
    ember.Size([2, 4])
"""
import numpy as np
import scipy.linalg as _sl
from scipy.linalg import blas as _blas
from scipy.linalg import cython_blas as _cython_blas
from scipy.linalg import lapack as _lapack

from ember._accel import speedups
from ember.core import dtype as D
from ember.core.alloc import empty_cpu
from ember.core.tensor import Tensor, contiguous_strides, from_array
from ember.kernels.common import _pointwise as P
from ember.kernels.common._errors import LinAlgError, not_implemented_for

from ..meta import linalg as _meta

_F32 = np.dtype(np.float32)


def _acc(dt):
    """The NumPy dtype the product is computed in."""
    return _F32 if dt is D.float16 or dt is D.bfloat16 else dt.np


def _as(a, acc):
    return a if a.dtype == acc else a.astype(acc)


def _matmul_into(shape, a, b, dt):
    """np.matmul(a, b) in the accumulation dtype, into a new C-contiguous array."""
    acc = _acc(dt)
    out = np.empty(shape, acc)
    np.matmul(_as(a, acc), _as(b, acc), out=out)
    return out


def _finish(out, dt):
    return from_array(out if out.dtype == dt.np else out.astype(dt.np), dt)


# The C++ types torch names when alpha/beta do not fit the result dtype.
def _scalar(x, dt):
    """alpha/beta as a number of the result's kind: torch's checked conversion to the
    computation type (integers truncate and wrap -1 to 255 for uint8; half types compute
    in float)."""
    if x.__class__ is int and (x == 1 or x == 0):   # the defaults: nothing to check
        return x
    if isinstance(x, Tensor):
        x = x.item()
    return P.scalar_arg(x, P.opmath_dtype(dt))


def _product(self, mat2, shape, kernel):
    """self @ mat2 into a fresh array of `shape` (bool has no CPU kernel in torch)."""
    dt = self._dtype
    if dt is D.bool_:
        raise not_implemented_for(kernel, dt)
    return _finish(_matmul_into(shape, self._np, mat2._np, dt), dt)


def mm(self, mat2):
    """`a.mm(b)`: the (n x k) @ (k x p) matrix product."""
    return _product(self, mat2, _meta.check_mm(self, mat2), "addmm_impl_cpu_")


def bmm(self, mat2):
    """`a.bmm(b)`: (b x n x k) @ (b x k x p), one product per batch entry."""
    return _product(self, mat2, _meta.check_bmm(self, mat2), "bmm")


def addmm(self, mat1, mat2, beta, alpha):
    """`beta * self + alpha * (mat1 @ mat2)`, self broadcast to the product's shape.

    As in BLAS, beta=0 ignores self (NaN included) and alpha=0 ignores the product.
    >>> ember.addmm(ember.zeros(4), ember.ones(2, 3), ember.ones(3, 4), alpha=2)[0, 0]
    tensor(6.)
    """
    dt = mat2._dtype
    plain = beta.__class__ is int and alpha.__class__ is int and beta == 1 and alpha == 1
    if plain and _gemm_ok and _c_bias_gemm is not None:
        # (a Linear's forward; the C path serves only arguments addmm accepts)
        out = _c_bias_gemm(self._np, mat1._np, mat2._np)
        if out is not None:
            return from_array(out, dt)
    shape = _meta.check_addmm(self, mat1, mat2)
    if plain:
        out = _bias_gemm(self, mat1, mat2, shape, dt)
        if out is not None:
            return from_array(out, dt)
    return _finish(_scaled_product(self, mat1, mat2, beta, alpha, shape, dt, "addmm_impl_cpu_"), dt)


def addmm_(self, mat1, mat2, beta, alpha):
    """`self.addmm_(mat1, mat2)`: self = beta * self + alpha * (mat1 @ mat2), in place (self
    has the product's shape).

    >>> ember.ones(2, 2).addmm_(ember.ones(2, 3), ember.ones(3, 2))[0, 0]
    tensor(4.)
    """
    shape = _meta.check_addmm(self, mat1, mat2, inplace=True)
    out = _scaled_product(self, mat1, mat2, beta, alpha, shape, self._dtype, "addmm_impl_cpu_")
    self._np[...] = out
    return self


# BLAS's gemm over the bias: C = A @ B + C in one call, as torch's addmm (copy the bias into
# the result, then gemm with beta=1), instead of np.matmul and a second pass adding the
# bias. With k <= 256 the product is summed in one block and added to C once, so the bits
# are those of matmul-then-add; a probe on first use checks this for scipy's BLAS next to
# NumPy's (two builds of OpenBLAS in the wheels) and turns the path off when they differ.
_GEMM_MAX_K = 256
_gemm_ok = None     # the probe's verdict
_c_bias_gemm = None     # ember/_speedups_gemm.c's bias_gemm: the same call from C
if speedups is not None:
    speedups.setup_blas(_cython_blas.__pyx_capi__["sgemm"], _cython_blas.__pyx_capi__["dgemm"],
                        np.empty, np.dtype(np.float32), np.dtype(np.float64))
    _c_bias_gemm = speedups.bias_gemm


def _f_operand(a):
    """(an F-contiguous array to hand to gemm, whether gemm must transpose it) for a 2-D
    array a, or None when a is neither C- nor F-contiguous."""
    if a.flags.f_contiguous:
        return a, 0
    if a.flags.c_contiguous:
        return a.T, 1
    return None


def _gemm_into(out, a, b):
    """out = a @ b + out for a C-contiguous float32/float64 out, through gemm on the
    transposes (out.T is F-contiguous: out.T = b.T @ a.T); False when a or b has a layout
    gemm cannot take without a copy."""
    fb, fa = _f_operand(b.T), _f_operand(a.T)
    if fb is None or fa is None:
        return False
    gemm = (_blas.sgemm if out.dtype == np.float32 else _blas.dgemm)
    # (alpha, a, b, beta, c, trans_a, trans_b, overwrite_c): positional, f2py's keywords
    # cost 0.4 us
    gemm(1.0, fb[0], fa[0], 1.0, out.T, fb[1], fa[1], 1)
    return True


def _gemm_matches_matmul() -> bool:
    """Whether gemm over a bias gives np.matmul + bias's bits on a few Linear-like
    shapes and layouts (both float dtypes), the result written in place."""
    rng = np.random.default_rng(20)
    for dt in (np.float32, np.float64):
        for n, k, p in ((64, 64, 128), (64, 128, 10), (7, 33, 5), (2, 256, 3)):
            a = rng.standard_normal((n, k)).astype(dt)
            w = rng.standard_normal((p, k)).astype(dt)
            bias = rng.standard_normal(p).astype(dt)
            for b in (w.T, np.ascontiguousarray(w.T)):
                out = np.empty((n, p), dt)
                out[...] = bias
                if not _gemm_into(out, a, b):
                    return False
                ref = np.matmul(a, b)
                ref += bias
                if out.tobytes() != ref.tobytes():
                    return False
    return True


def _bias_gemm(self, mat1, mat2, shape, dt):
    """self + mat1 @ mat2 as a fresh C-contiguous array through _gemm_into, or None when
    the case is not one it serves: float32/float64 of one dtype, k <= 256, at least two
    rows and columns (np.matmul takes gemv for a vector), operands not sharing memory
    (np.matmul takes syrk for `a @ a.T`), no copy needed."""
    global _gemm_ok
    a, b, s = mat1._np, mat2._np, self._np
    if (dt is not D.float32 and dt is not D.float64) or a is None or b is None or s is None \
            or mat1._dtype is not dt or self._dtype is not dt or not 0 < a.shape[1] <= _GEMM_MAX_K \
            or shape[0] < 2 or shape[1] < 2 or np.may_share_memory(a, b):
        return None
    if _gemm_ok is None:
        _gemm_ok = _gemm_matches_matmul()
    if not _gemm_ok:
        return None
    out = np.empty(shape, dt.np)
    out[...] = s
    return out if _gemm_into(out, a, b) else None


def _scaled_product(self, a, b, beta, alpha, shape, dt, name):
    """The array `beta * self + alpha * (a @ b)` of `shape`, accumulated in `dt`'s
    accumulation dtype; beta=0 ignores self (NaN included) and alpha=0 the product, like
    BLAS. Shared by addmm and baddbmm."""
    if dt is D.bool_:
        raise not_implemented_for(name, dt)
    alpha, beta = _scalar(alpha, dt), _scalar(beta, dt)
    if alpha == 0:
        out = np.zeros(shape, _acc(dt))
    else:
        out = _matmul_into(shape, a._np, b._np, dt)
        if alpha != 1:
            out *= alpha
    if beta != 0:
        s = _as(self._np, out.dtype)
        out += s if beta == 1 else s * beta
    return out


# ---------------------------------------------------------------- torch.linalg
# LAPACK through NumPy's batched gufuncs and scipy.linalg (batched via its `_apply_over_batch`
# wrappers). Results that come from LAPACK get torch's batched column-major layout
# (`_colmajor`); failures are reported in `info` like LAPACK's, and the *_ex ops with
# check_errors=True (and the composites over them) raise LinAlgError with torch's message.
_I32 = np.dtype(np.int32)


def _colmajor(a):
    """`a` copied into torch's LAPACK layout (each matrix column-major; a fresh buffer, so
    that size-1 dims get torch's strides too)."""
    out = np.empty(a.shape[:-2] + (a.shape[-1], a.shape[-2]), a.dtype)
    out = np.swapaxes(out, -1, -2)
    np.copyto(out, a)
    return out


def _wrap(a, dt, colmajor=False):
    """A fresh LAPACK result as a tensor of dtype `dt`, C- or batched column-major."""
    a = np.asarray(a, dt.np)
    if colmajor and a.ndim >= 2:
        if a.size == 0:     # an empty array keeps no strides: torch's layout explicitly
            *batch, m, n = a.shape
            st = contiguous_strides((*batch, n, m))
            return empty_cpu(a.shape, dt, st[:-2] + (st[-1], st[-2]))
        return from_array(_colmajor(a), dt)
    return from_array(a if a.flags.c_contiguous else a.copy(), dt)


def _int32(a):
    return from_array(np.array(a, _I32), D.int32)


def _no_convergence(a, api, what, finite_check=True):
    """torch's LinAlgError for an iterative LAPACK routine that did not converge on `a`:
    non-finite input named as such (where torch checks it), else ill-conditioning."""
    flat = a.reshape((-1,) + a.shape[-2:])
    bad = np.flatnonzero(~np.isfinite(flat).all(axis=(1, 2)))
    where = f"(Batch element {bad[0] if bad.size else 0}): " if a.ndim > 2 else ""
    reason = "contained non-finite values." if finite_check and bad.size else \
        f"is ill-conditioned or has too many repeated {what}."
    return LinAlgError(f"{api}: {where}The algorithm failed to converge because the input "
                       f"matrix {reason}")


def _each(fn, *arrays, batch):
    """fn applied to the matrices of each batch entry (arrays broadcast to `batch`); the
    results, a tuple per entry, stacked into arrays of shape batch + their own."""
    arrays = [np.broadcast_to(a, tuple(batch) + a.shape[a.ndim - 2 if a.ndim >= 2 else 0:])
              for a in arrays]
    outs = [fn(*(a[i] for a in arrays)) for i in np.ndindex(*batch)] if batch else \
        [fn(*arrays)]
    return tuple(np.array([o[j] for o in outs]).reshape(tuple(batch) + np.shape(outs[0][j]))
                 if outs else None for j in range(len(outs[0]) if outs else 0))


def _getrf(a):
    """LAPACK getrf on one matrix: (LU, 1-based pivots, info)."""
    getrf = _lapack.get_lapack_funcs("getrf", (a,))
    lu, piv, info = getrf(a)
    return lu, piv + 1, info


def _lu_batch(a):
    """(LU, pivots, info) of each matrix of `a` (..., m, n)."""
    batch = a.shape[:-2]
    k = min(a.shape[-2:])
    if 0 in a.shape:
        return a.copy(), np.tile(np.arange(1, k + 1, dtype=_I32), batch + (1,)), \
            np.zeros(batch, _I32)
    return _each(_getrf, a, batch=batch)


def _solve_fallback(a, b, lu, piv, info):
    """Each system of the broadcast batch by A's LU (getrf); the singular ones get NaN
    (LAPACK's result there is no solution)."""
    def one(lu1, piv1, info1, b1):
        if info1.item():
            return (np.full(b1.shape, np.nan, a.dtype),)
        return (_sl.lu_solve((lu1, piv1.reshape(-1) - 1), b1, check_finite=False),)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    (x,) = _each(one, lu, piv[..., None], info[..., None, None], b, batch=batch)
    return x


def linalg_solve_ex(A, B, left, check_errors):
    """`linalg.solve_ex(A, B)`: X with AX = B (XA = B if not left), and LAPACK's info."""
    shape, batch, vector = _meta.solve_layout(A, B, left)
    _meta.linalg_solve_ex(A, B, left, check_errors)
    a, b = A._np, B._np
    if vector:
        b = b[..., None]
    if not left:
        a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
    info = np.zeros(a.shape[:-2], _I32)      # one per matrix of A (not of the broadcast)
    try:
        x = np.linalg.solve(np.broadcast_to(a, batch + a.shape[-2:]),
                            np.broadcast_to(b, batch + b.shape[-2:]))
    except np.linalg.LinAlgError:
        lu, piv, info = _lu_batch(a)
        x = _solve_fallback(a, b, lu, piv, info)
    if check_errors:
        _meta.raise_for_info(info, "ember.linalg.solve_ex", "solve")
    if not left:
        x = np.swapaxes(x, -1, -2)
    return _wrap(x.reshape(shape), A._dtype, colmajor=left), _int32(info)


def linalg_inv_ex(A, check_errors):
    """`linalg.inv_ex(A)`: the inverse and getrf's info (its first zero pivot, 1-based)."""
    _meta.linalg_inv_ex(A, check_errors)
    a = A._np
    try:
        inv, info = np.linalg.inv(a), np.zeros(a.shape[:-2], _I32)
    except np.linalg.LinAlgError:
        _, _, info = _lu_batch(a)
        inv = np.linalg.inv(np.where(info[..., None, None] != 0, np.eye(a.shape[-1]), a))
        inv[info != 0] = np.nan
    if check_errors:
        _meta.raise_for_info(info, "linalg.inv_ex", "inv")
    return _wrap(inv, A._dtype, colmajor=True), _int32(info)


def linalg_det(A):
    """`linalg.det(A)` over LAPACK's LU (NumPy's batched det)."""
    _meta.linalg_det(A)
    return _wrap(np.linalg.det(A._np), A._dtype)


def linalg_slogdet(A):
    """`linalg.slogdet(A)`: sign and log|det|; a singular matrix gives (0, -inf)."""
    _meta.linalg_slogdet(A)
    sign, logabs = np.linalg.slogdet(A._np)
    sign = np.where(np.isnan(logabs), 0, sign)     # torch's sign of a NaN determinant
    return _wrap(sign, A._dtype), _wrap(logabs, A._dtype.to_real())


def _potrf(a, lower):
    potrf = _lapack.get_lapack_funcs("potrf", (a,))
    c, info = potrf(a, lower=lower, clean=True)
    return c, info


def linalg_cholesky_ex(self, upper, check_errors):
    """`linalg.cholesky_ex(A, upper=False)`: L (lower, from A's lower triangle) or U = L^H
    (from the upper one), with potrf's info."""
    _meta.linalg_cholesky_ex(self, upper, check_errors)
    a = self._np
    if 0 in a.shape:
        c, info = a.copy(), np.zeros(a.shape[:-2], _I32)
    else:
        c, info = _each(lambda x: _potrf(x, not upper), a, batch=a.shape[:-2])
        c = np.triu(c) if upper else np.tril(c)
        # a NaN pivot fails LAPACK's check (ajj <= 0 or NaN), which OpenBLAS' potrf skips
        nan = np.isnan(np.diagonal(c, 0, -2, -1))
        info = np.where((info == 0) & nan.any(-1), nan.argmax(-1) + 1, info)
    if check_errors:
        _meta.raise_for_info(info, "linalg.cholesky_ex", "cholesky")
    return _wrap(c, self._dtype, colmajor=True), _int32(info)


def linalg_qr(A, mode):
    """`linalg.qr(A, mode)`: Householder QR (geqrf/orgqr, NumPy's batched qr)."""
    q_shape, r_shape = _meta.qr_shapes(A, mode)
    dt = A._dtype
    if mode == "r":
        r = np.linalg.qr(A._np, mode="r") if 0 not in A._shape else np.zeros(r_shape, dt.np)
        return _wrap(np.zeros(0), dt), _wrap(r, dt, colmajor=True)
    q, r = np.linalg.qr(A._np, mode=mode) if 0 not in A._shape else \
        (_eye_like(q_shape, dt), np.zeros(r_shape, dt.np))
    return _wrap(q, dt, colmajor=True), _wrap(r, dt, colmajor=True)


def _eye_like(shape, dt):
    """Identity matrices of `shape` (..., m, k): what LAPACK leaves for empty inputs."""
    return np.broadcast_to(np.eye(shape[-2], shape[-1], dtype=dt.np), shape).copy()


def linalg_svd(A, full_matrices, driver):
    """`linalg.svd(A, full_matrices=True)`: U, S (descending), Vh by gesdd (NumPy's)."""
    u_shape, s_shape, vh_shape = _meta.svd_shapes(A, full_matrices, driver)
    dt = A._dtype
    if 0 in A._shape:
        u, s, vh = _eye_like(u_shape, dt), np.zeros(s_shape), _eye_like(vh_shape, dt)
    else:
        try:
            u, s, vh = np.linalg.svd(A._np, full_matrices=full_matrices)
        except np.linalg.LinAlgError:
            raise _no_convergence(A._np, "linalg.svd", "singular values") from None
    return _wrap(u, dt, colmajor=True), _wrap(s, dt.to_real()), _wrap(vh, dt, colmajor=True)


def linalg_eigh(self, UPLO):
    """`linalg.eigh(A, UPLO='L')`: ascending eigenvalues and orthonormal eigenvectors of the
    symmetric matrix read from A's lower (or upper) triangle."""
    _meta.eigh_check(self, UPLO)
    dt = self._dtype
    if 0 in self._shape:
        w, v = np.zeros(self._shape[:-1]), np.zeros(self._shape, dt.np)
    else:
        try:
            w, v = np.linalg.eigh(self._np, UPLO=UPLO)
        except np.linalg.LinAlgError:   # (torch does not check finiteness here)
            raise _no_convergence(self._np, "linalg.eigh", "eigenvalues", False) from None
    return _wrap(w, dt.to_real()), _wrap(v, dt, colmajor=True)


def _lstsq_one(driver, rcond, k_sv):
    def one(a, b):
        if driver == "gels":
            gels = _lapack.get_lapack_funcs("gels", (a, b))
            _, x, _ = gels(a, b)
            return x[:a.shape[1]], np.int64(a.shape[1]), np.zeros(k_sv, a.real.dtype)
        x, _, rank, sv = _sl.lstsq(a, b, cond=rcond, lapack_driver=driver, check_finite=False)
        return x, np.int64(rank), (np.zeros(k_sv, a.real.dtype) if sv is None else sv)
    return one


def linalg_lstsq(self, b, rcond, driver):
    """`linalg.lstsq(A, B, rcond=None, driver=None)`: min ||AX - B|| by LAPACK's gelsy
    (default), gels, gelsd or gelss; residuals when m > n and every A has full rank (gels:
    always), rank for all but gels, singular values for gelsd/gelss (torch's rules)."""
    drv, vector, batch, m, n, k = _meta.lstsq_layout(self, b, driver)
    _, res_shape, rank_shape, sv_shape = _meta.lstsq_shapes(self, b, driver)
    dt, rt = self._dtype, self._dtype.to_real()
    a, bb = self._np, (b._np[..., None] if vector else b._np)
    if rcond is None:
        rcond = float(np.finfo(dt.np).eps) * max(m, n)
    if 0 in a.shape or k == 0:
        x, rank, sv = np.zeros(batch + (n, k), dt.np), np.zeros(batch, np.int64), \
            np.zeros(batch + (min(m, n),), rt.np)
    else:
        try:
            x, rank, sv = _each(_lstsq_one(drv, rcond, min(m, n)), a, bb, batch=batch)
        except np.linalg.LinAlgError:     # gelsd/gelss: their SVD did not converge
            raise LinAlgError("ember.linalg.lstsq: The least squares solution could not be "
                              "computed because the input matrix does not have full rank."
                              ) from None
    buf = np.zeros(batch + (max(m, n), k), dt.np)
    buf[..., :n, :] = x
    buf = _colmajor(buf)[..., :n, :]
    sol = buf[..., 0] if vector else buf
    full_rank = drv == "gels" or bool(np.all(rank == n))
    if res_shape != (0,) and full_rank:
        r = np.einsum("...ij,...jk->...ik", a, x) - bb
        res = np.sum(np.abs(r) ** 2, axis=-2)
    else:
        res = np.zeros((0,), rt.np)
    rank = rank if rank_shape != (0,) else np.zeros((0,), np.int64)
    sv = sv if sv_shape != (0,) else np.zeros((0,), rt.np)
    return (from_array(sol, dt), _wrap(res, rt), from_array(np.array(rank, np.int64)),
            _wrap(sv, rt))


def linalg_lu_factor_ex(A, pivot, check_errors):
    """`linalg.lu_factor_ex(A)`: getrf's packed LU, 1-based int32 pivots and info."""
    _meta.linalg_lu_factor_ex(A, pivot, check_errors)
    lu, piv, info = _lu_batch(A._np)
    if check_errors:
        _meta.raise_for_info(info, "ember.linalg.lu_factor_ex", "lu_factor")
    return _wrap(lu, A._dtype, colmajor=True), _int32(piv), _int32(info)


def _unpack(lu, piv, m, dt):
    """P, L, U of a packed LU (..., m, n) and its 1-based pivots."""
    k = min(lu.shape[-2:])
    L = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=dt)
    U = np.triu(lu[..., :k, :])
    perm = np.broadcast_to(np.arange(m), piv.shape[:-1] + (m,)).copy()
    for i in range(piv.shape[-1]):       # apply the row swaps in order
        j = piv[..., i].astype(np.int64) - 1
        pi = perm[..., i].copy()
        pj = np.take_along_axis(perm, j[..., None], -1)[..., 0]
        perm[..., i] = pj
        np.put_along_axis(perm, j[..., None], pi[..., None], -1)
    P = np.swapaxes(np.eye(m, dtype=dt)[perm], -1, -2)    # A = P L U
    return P, L, U


def linalg_lu(A, pivot):
    """`linalg.lu(A)`: A = P L U with L unit lower trapezoidal and U upper trapezoidal."""
    _meta.linalg_lu(A, pivot)
    lu, piv, _ = _lu_batch(A._np)
    P, L, U = _unpack(lu, piv, A._shape[-2], A._dtype.np)
    dt = A._dtype
    return _wrap(P, dt), _wrap(L, dt), _wrap(U, dt)


def lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots):
    """`lu_unpack(LU, pivots)`: P, L, U of lu_factor's packed result."""
    _meta.lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)
    dt = LU_data._dtype
    P, L, U = _unpack(LU_data._np, LU_pivots._np, LU_data._shape[-2], dt.np)
    empty = np.zeros((0,), dt.np)
    return (_wrap(P if unpack_pivots else empty, dt), _wrap(L if unpack_data else empty, dt),
            _wrap(U if unpack_data else empty, dt))


def linalg_lu_solve(LU, pivots, B, left, adjoint):
    """`linalg.lu_solve(LU, pivots, B, left=True, adjoint=False)`: getrs with lu_factor's
    result; XA = B is solved as A^H X^H = B^H (getrs' trans: 0 A, 2 A^H)."""
    shape = _meta.lu_solve_layout(LU, pivots, B, left)
    if pivots._np.size and pivots._np.min() < 1:
        raise RuntimeError("Pivots given to lu_solve must all be greater or equal to 1. Did you "
                           "properly pass the result of lu_factor?")
    batch = shape[:-2]
    b = B._np if left else np.conj(np.swapaxes(B._np, -1, -2))
    trans = 2 * int(adjoint if left else not adjoint)
    if 0 in shape:
        x = np.zeros(b.shape if not batch else batch + b.shape[-2:], B._dtype.np)
    else:
        def one(lu1, piv1, b1):
            getrs = _lapack.get_lapack_funcs("getrs", (lu1, b1))
            x1, _ = getrs(lu1, piv1.reshape(-1) - 1, b1, trans=trans)
            return (x1,)
        (x,) = _each(one, LU._np, pivots._np[..., None], b, batch=batch)
    if not left:
        x = np.conj(np.swapaxes(x, -1, -2))
    return _wrap(x, B._dtype, colmajor=left)


def linalg_solve_triangular(self, B, upper, left, unitriangular):
    """`linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False)`: trtrs
    on A's upper (or lower) triangle; XA = B as A^T X^T = B^T."""
    shape = _meta.solve_triangular_layout(self, B, left)
    a, b = self._np, _as(B._np, self._dtype.np)
    if not left:
        a, b, upper = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper
    if 0 in shape:
        x = np.zeros(shape, self._dtype.np)
    else:
        a = np.broadcast_to(a, shape[:-2] + a.shape[-2:])
        b = np.broadcast_to(b, shape[:-2] + b.shape[-2:])
        with np.errstate(all="ignore"):
            try:
                x = _sl.solve_triangular(a, b, lower=not upper, unit_diagonal=unitriangular,
                                         check_finite=False)
            except np.linalg.LinAlgError:     # a zero on the diagonal: BLAS trsm divides
                x = _trsm(a, b, not upper, unitriangular)
        if not left:
            x = np.swapaxes(x, -1, -2)
    return _wrap(x, self._dtype, colmajor=True)


def _trsm(a, b, lower, unit):
    """X with A X = B by BLAS trsm for each matrix (no singularity check: a zero pivot gives
    infs and NaNs, like torch's)."""
    from scipy.linalg import blas

    def one(a1, b1):
        trsm = blas.get_blas_funcs("trsm", (a1, b1))
        return (trsm(1.0, a1, b1, lower=int(lower), diag=int(unit)),)
    (x,) = _each(one, a, b, batch=a.shape[:-2])
    return x


def linalg_householder_product(input, tau):
    """`linalg.householder_product(A, tau)`: the first n columns of the product of the
    Householder reflectors stored below A's diagonal (LAPACK orgqr)."""
    _meta.householder_check(input, tau)
    a, t = input._np, tau._np
    n = a.shape[-1]
    if 0 in a.shape:
        return _wrap(np.zeros(a.shape, a.dtype), input._dtype, colmajor=True)
    t = np.concatenate([t, np.zeros(t.shape[:-1] + (n - t.shape[-1],), t.dtype)], -1)

    def one(a1, t1):
        orgqr = _lapack.get_lapack_funcs("ungqr" if a1.dtype.kind == "c" else "orgqr", (a1,))
        q, _, _ = orgqr(a1, t1[0])
        return (q,)
    (q,) = _each(one, a, t[..., None, :], batch=a.shape[:-2])
    return _wrap(q, input._dtype, colmajor=True)


def linalg_matrix_exp(self):
    """`linalg.matrix_exp(A)`: scipy's Pade approximant with scaling and squaring
    (float16/bfloat16 computed in float32)."""
    _meta.linalg_matrix_exp(self)
    dt = self._dtype
    a = _as(self._np, _acc(dt))
    r = _sl.expm(a) if a.size else a.copy()
    return _wrap(r, dt)


def _eig(A, vectors, fn):
    """geev (NumPy's batched eig) on each matrix of A: eigenvalues (and unit-norm
    eigenvectors) in A's complex dtype."""
    ct = _meta.eig_check(A, fn)
    a = A._np
    if 0 in a.shape:
        return np.zeros(a.shape[:-1], ct.np), np.zeros(a.shape, ct.np)
    if vectors:
        w, v = np.linalg.eig(a)
        return w.astype(ct.np, copy=False), v.astype(ct.np, copy=False)
    return np.linalg.eigvals(a).astype(ct.np, copy=False), None


def linalg_eig(self):
    """`linalg.eig(A)`: the (complex) eigenvalues and eigenvectors of a general matrix;
    torch refuses infs and NaNs (LAPACK's geev does not converge on them)."""
    if not np.isfinite(self._np).all():
        raise RuntimeError("ember.linalg.eig: input tensor should not contain infs or NaNs.")
    w, v = _eig(self, True, "linalg.eig")
    ct = self._dtype.to_complex()
    return _wrap(w, ct), _wrap(v, ct, colmajor=True)


def linalg_eigvals_only(self):
    """The eigenvalues alone (geev without vectors); a matrix with infs or NaNs gets NaN
    eigenvalues (torch's LAPACK result is undefined there: NaNs, or a crash)."""
    a = self._np
    bad = ~np.isfinite(a).all(axis=(-2, -1)) if a.ndim >= 2 else None
    if bad is not None and bad.any():
        self = from_array(np.where(bad[..., None, None], 0, a), self._dtype)
    w = _eig(self, False, "linalg.eigvals")[0]
    if bad is not None and bad.any():
        w[bad] = np.nan + 1j * np.nan
    return _wrap(w, self._dtype.to_complex())


def _ldl_func(name, a, hermitian):
    """LAPACK's sy* routine for `a`, or he* (Hermitian) for a complex `a` when asked."""
    kind = "he" if hermitian and a.dtype.kind == "c" else "sy"
    return _lapack.get_lapack_funcs(kind + name, (a,))


def linalg_ldl_factor_ex(self, hermitian, check_errors):
    """`linalg.ldl_factor_ex(A, hermitian=False)`: A = L D L^T (L^H if hermitian) by
    Bunch-Kaufman pivoting (sytrf/hetrf on the lower triangle): the packed LD (upper
    triangle zeroed), LAPACK's 1-based pivots (negative for 2x2 blocks) and info."""
    _meta.linalg_ldl_factor_ex(self, hermitian, check_errors)
    a = self._np
    n = a.shape[-1]
    if 0 in a.shape:
        ld, piv, info = a.copy(), np.zeros(a.shape[:-1], _I32), np.zeros(a.shape[:-2], _I32)
    else:
        def one(a1):
            ldu, ipiv, info1 = _ldl_func("trf", a1, hermitian)(a1, lower=1)
            return np.tril(ldu), ipiv, info1
        ld, piv, info = _each(one, a, batch=a.shape[:-2])
    if check_errors:
        _meta.raise_for_info(info, "ember.linalg.ldl_factor_ex", "ldl_factor")
    return _wrap(ld.reshape(a.shape), self._dtype, colmajor=True), \
        _int32(np.reshape(piv, a.shape[:-2] + (n,))), _int32(info)


def linalg_ldl_solve(LD, pivots, B, hermitian):
    """`linalg.ldl_solve(LD, pivots, B, hermitian=False)`: X with A X = B from
    ldl_factor's result (sytrs/hetrs), batches broadcast."""
    shape = _meta.ldl_solve_layout(LD, pivots, B)
    if 0 in shape:
        return _wrap(np.zeros(shape, B._dtype.np), B._dtype, colmajor=True)

    def one(ld1, piv1, b1):
        x1, _ = _ldl_func("trs", ld1, hermitian)(ld1, piv1.reshape(-1).astype(np.int32), b1,
                                                 lower=1)
        return (x1,)
    (x,) = _each(one, LD._np, pivots._np[..., None], B._np, batch=shape[:-2])
    return _wrap(x, B._dtype, colmajor=True)
