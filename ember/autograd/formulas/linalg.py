"""Backward helpers of torch.linalg (torch's formulas, FunctionsManual.cpp), for real and
complex inputs (A^H is A.mH). Every helper is written in ember ops, so backward is
differentiable.

    >>> A = ember.eye(2, dtype=ember.float64) * 2
    >>> linalg_inv_backward(ember.ones(2, 2, dtype=ember.float64), A.inverse())
    tensor([[-0.2500, -0.2500],
            [-0.2500, -0.2500]], dtype=ember.float64)
"""
from __future__ import annotations

import ember

from .common import conj, conjugate, maybe_multiply, sum_to_size


def _z(g, like):
    """An output's gradient, zeros when none reached it (the engine may pass None)."""
    return ember.zeros_like(like) if g is None else g


def _is_vector_rhs(A_shape, B_shape):
    """torch's linalg_solve_is_vector_rhs: B is a (batch of) vector(s)."""
    return len(B_shape) == 1 or (len(B_shape) == len(A_shape) - 1
                                 and tuple(B_shape) == tuple(A_shape[:-1]))


def column_major(sizes, strides) -> bool:
    """A matrix stored transposed (torch's test in mm_mat1/mm_mat2_backward)."""
    return strides[0] == 1 and strides[1] == sizes[0]


def mm_mat1_backward(grad, mat2, sizes, strides, alpha):
    """mat1's gradient of mat1 @ mat2 (mm, addmm): conj(alpha) grad @ mat2^H, computed transposed when
    mat1 is column-major, so the gradient takes mat1's layout (torch's FunctionsManual)."""
    alpha = conjugate(alpha)
    if column_major(sizes, strides):
        return maybe_multiply(conj(mat2).mm(grad.t()).t(), alpha)
    return maybe_multiply(grad.mm(conj(mat2.t())), alpha)


def mm_mat2_backward(grad, mat1, sizes, strides, alpha):
    """mat2's gradient: mat1^H @ grad, transposed for a column-major mat2 (a Linear's
    weight.t(): the weight's gradient comes out contiguous, as torch's)."""
    alpha = conjugate(alpha)
    if column_major(sizes, strides):
        return maybe_multiply(grad.t().mm(conj(mat1)).t(), alpha)
    return maybe_multiply(conj(mat1.t()).mm(grad), alpha)


def linalg_solve_backward(grad, A, B_shape, X, left):
    """AX = B (XA = B if not left): gB = A^{-H} gX (gX A^{-H}), gA = -gB X^H (-X^H gB);
    broadcast batch dims are summed back to each input's shape."""
    gB = ember.linalg_solve(A.mH, grad, left=left)
    if _is_vector_rhs(A.shape, B_shape):
        gB_m, X_m = gB.unsqueeze(-1), X.unsqueeze(-1)
    else:
        gB_m, X_m = gB, X
    gA = -(gB_m @ X_m.mH) if left else -(X_m.mH @ gB_m)
    return sum_to_size(gA, A.shape), sum_to_size(gB, B_shape)


def linalg_inv_backward(grad, inverse):
    """d(A^{-1}) = -A^{-1} dA A^{-1}, so gA = -A^{-H} g A^{-H}."""
    return -(inverse.mH @ grad @ inverse.mH)


def _eps(dtype):
    return ember.finfo(dtype).eps


def linalg_det_backward(grad, A, det):
    """gA = g conj(det) A^{-H} (solved, not inverted); near-singular matrices use the
    adjugate from the SVD, U diag(prod of the other singular values) Vh times
    conj(det(U) det(Vh))."""
    if A.numel() == 0:
        return ember.zeros_like(A)
    singular = det.abs() < 100 * _eps(A.dtype)
    d = (grad * conj(det)).unsqueeze(-1).unsqueeze(-1) * ember.eye(A.shape[-1], dtype=A.dtype)
    if not bool(singular.any()):
        return ember.linalg_solve(A.mH, d)
    U, S, Vh = ember.linalg_svd(A)
    alpha = conj(ember.linalg_det(U) * ember.linalg_det(Vh)) * grad
    adj = (U * (alpha.unsqueeze(-1) * _prod_of_others(S)).unsqueeze(-2)) @ Vh
    mask = singular.unsqueeze(-1).unsqueeze(-1)
    safe = ember.where(mask, ember.eye(A.shape[-1], dtype=A.dtype), A)   # solvable stand-ins
    return ember.where(mask, adj, ember.linalg_solve(safe.mH, d))


def _prod_of_others(S):
    """p_i = prod_{j != i} S_j, without dividing (exact for zeros)."""
    n = S.shape[-1]
    cols = [ember.cat([S[..., :i], S[..., i + 1:]], -1).prod(-1) for i in range(n)]
    return ember.stack(cols, -1)


def linalg_slogdet_backward(grad_sign, grad_logabsdet, A, sign):
    """A^{-H} g: g = grad_logabsdet (sign is locally constant for real A); complex A adds
    i Im(grad_sign conj(sign)) (torch's slogdet_backward)."""
    n = A.shape[-1]
    g = grad_logabsdet
    if A.is_complex() and grad_sign is not None:
        phase = 1j * (grad_sign * conj(sign)).imag
        g = phase if g is None else g + phase
    if g is None:
        return None
    d = g.unsqueeze(-1).unsqueeze(-1) * ember.eye(n, dtype=A.dtype)
    return ember.linalg_solve(A.mH, d)


def cholesky_backward(grad, upper, L):
    """gA = L^{-H} Phi(L^H gL) L^{-1}, Phi taking the lower triangle with a halved diagonal,
    symmetrized (torch's cholesky_backward)."""
    if upper:
        L, grad = L.mH, grad.mH
    gA = (L.mH @ grad).tril()
    gA = 0.5 * (gA + gA.tril(-1).mH)
    gA = ember.linalg_solve_triangular(L.mH, gA, upper=True, left=True)
    return ember.linalg_solve_triangular(L, gA, upper=False, left=False)


def linalg_qr_backward(gQ, gR, Q, R, mode):
    """torch's linalg_qr_backward (real case)."""
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going "
                           "to differentiate through linalg.qr.")
    gQ, gR = _z(gQ, Q), _z(gR, R)
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    gA = gR @ R.mH - Q.mH @ gQ
    if m >= n:
        t = gA.triu()
        sym = t + t.mH
        sym = sym - 0.5 * ember.diag_embed(sym.diagonal(0, -2, -1))
        gA = Q @ sym + gQ
        return ember.linalg_solve_triangular(R.mH, gA, upper=False, left=False)
    X = -gA
    skew = (X - X.mH).tril()
    if skew.is_complex():       # its (imaginary) diagonal halved
        skew = skew - 0.5 * ember.diag_embed(skew.diagonal(0, -2, -1))
    gA = Q @ skew
    gA = ember.linalg_solve_triangular(R[..., :m].mH, gA, upper=False, left=False)
    gA = ember.cat([gA, gA.new_zeros(tuple(R.shape[:-1]) + (n - m,))], -1)
    return gA + Q @ gR


def _svd_E(S):
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    return E + ember.diag_embed(ember.ones_like(S))


def svd_backward(gU, gS, gVh, U, S, Vh, full_matrices):
    """torch's svd_backward (real case): distinct singular values (and full rank when
    rectangular) are assumed."""
    gU, gS, gVh = _z(gU, U), _z(gS, S), _z(gVh, Vh)
    if full_matrices:    # like torch: only the first k singular vectors count
        k = S.shape[-1]
        gU, U, gVh, Vh = gU[..., :k], U[..., :k], gVh[..., :k, :], Vh[..., :k, :]
    m, n = U.shape[-2], Vh.shape[-1]
    UhgU = U.mH @ gU
    UhgU = UhgU - UhgU.mH
    VhgV = Vh @ gVh.mH
    VhgV = VhgV - VhgV.mH
    gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / _svd_E(S) + ember.diag_embed(gS)
    if U.is_complex():      # the phase term: i Im(diag(U^H gU)) / S
        gA = gA + ember.diag_embed(UhgU.diagonal(0, -2, -1) / (2 * S))
    if m > n:
        gA = U @ gA
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U @ (U.mH @ gUSinv)
        return gA @ Vh
    if m < n:
        gA = gA @ Vh
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - (SinvgVh @ Vh.mH) @ Vh
        return U @ gA
    return U @ (gA @ Vh)


def eigh_backward(gL, gV, L, V):
    """torch's linalg_eig_backward for Hermitian input: gA = V (diag(gL) + skew(V^H gV) /
    2E) V^H with E_ij = L_j - L_i (distinct eigenvalues assumed)."""
    gL, gV = _z(gL, L), _z(gV, V)
    VhgV = V.mH @ gV
    VhgV = 0.5 * (VhgV - VhgV.mH)
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    E = E + ember.diag_embed(ember.ones_like(L))
    gA = VhgV / E
    gA = gA - ember.diag_embed(gA.diagonal(0, -2, -1)) + ember.diag_embed(gL)
    return V @ (gA @ V.mH)


def linalg_eig_backward(gL, gV, L, V, dtype):
    """torch's linalg_eig_backward (non-Hermitian): with E_ij = conj(L_j - L_i) (1 on the
    diagonal), gA = V^{-H} (P(V^H gV) / E, diagonal gL) V^H, P projecting onto the tangent
    space of unit-norm columns; a loss that depends on the eigenvectors' phases is refused.
    A real input takes the real part."""
    Vh = V.mH
    if gV is None:
        gA = ember.linalg_solve(Vh, gL.unsqueeze(-1) * Vh)
    else:
        VhgV = Vh @ gV
        diag = VhgV.diagonal(0, -2, -1)
        if not ember.allclose(diag.imag, ember.zeros_like(diag.imag), rtol=1e-2, atol=1e-2):
            raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are "
                               "specified up to multiplication by e^{i phi}. The specified loss "
                               "function depends on this quantity, so it is ill-defined.")
        VhgV = VhgV - Vh @ (V * diag.real.unsqueeze(-2))
        Lc = conj(L)
        E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + ember.diag_embed(ember.ones_like(L))
        gA = VhgV / E
        if gL is not None:
            gA = gA - ember.diag_embed(gA.diagonal(0, -2, -1)) + ember.diag_embed(gL)
        gA = ember.linalg_solve(Vh, gA @ Vh)
    return gA if dtype.is_complex else gA.real


def pinv_backward(grad, pinvA, A):
    """The gradient of A^+ (torch's pinv_backward, real case)."""
    m, n = A.shape[-2], A.shape[-1]
    pinvAh, gradh = pinvA.mH, grad.mH
    if m <= n:
        K = gradh @ pinvA
        KpinvAh = K @ pinvAh
        return (-(pinvA @ K).mH + KpinvAh - (A @ pinvA) @ KpinvAh
                + (pinvAh @ pinvA) @ (gradh - K @ A))
    K = pinvA @ gradh
    pinvAhK = pinvAh @ K
    return (-(K @ pinvA).mH + ((gradh - A @ K) @ pinvA) @ pinvAh + pinvAhK
            - (pinvAhK @ pinvA) @ A)


def linalg_lstsq_backward(gX, gL, A, B, X):
    """torch's linalg_lstsq_backward: the solution's gradient through pinv(A), the
    residuals' (when computed) as if X did not depend on A and B (Danskin)."""
    gX = _z(gX, X)
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    gXm = gX.unsqueeze(-1) if vector else gX
    pinvA = ember.linalg_pinv(A)
    gA = pinv_backward(gXm @ Bm.mH, pinvA, A)
    gB = pinvA.mH @ gXm
    if gL is not None and gL.numel():
        Xm = X.unsqueeze(-1) if vector else X
        r = A @ Xm - Bm
        g = gL.unsqueeze(-2)
        gA = gA + 2 * (g * r) @ Xm.mH
        gB = gB - 2 * g * r
    return sum_to_size(gA, A.shape), sum_to_size(gB.squeeze(-1) if vector else gB, B.shape)


def linalg_lu_backward(gL, gU, P, L, U):
    """torch's linalg_lu_backward, A = P L U (k = min(m, n)):
    square: gA = P L^{-H} (tril(L^H gL, -1) + triu(gU U^H)) U^{-H};
    wide:   [gA1, gA2] = P L^{-H} [tril(L^H gL - gU U^H, -1) U1^{-H} + triu(gU1), gU2];
    tall:   [gA1; gA2] = P [L1^{-H} triu(gU U^H - L^H gL) + tril(gL1, -1); gL2] U^{-H}."""
    gL, gU = _z(gL, L), _z(gU, U)
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        gR = (L.mH @ gL).tril(-1) + (gU @ U.mH).triu()
        gR = ember.linalg_solve_triangular(L.mH, gR, upper=True, unitriangular=True)
        return P @ ember.linalg_solve_triangular(U.mH, gR, upper=False, left=False)
    if m < n:
        gA = (L.mH @ gL - gU.triu() @ U.mH).tril(-1)
        gA = ember.linalg_solve_triangular(U[..., :k].mH, gA, upper=False, left=False)
        gA = ember.cat([gA + gU[..., :k].triu(), gU[..., k:]], -1)
        return P @ ember.linalg_solve_triangular(L.mH, gA, upper=True, unitriangular=True)
    gA = (gU @ U.mH - L.mH @ gL.tril(-1)).triu()
    gA = ember.linalg_solve_triangular(L[..., :k, :].mH, gA, upper=True, unitriangular=True)
    gA = ember.cat([gA + gL[..., :k, :].tril(-1), gL[..., k:, :]], -2)
    return P @ ember.linalg_solve_triangular(U.mH, gA, upper=False, left=False)


def lu_factor_ex_backward(grad, LU, pivots):
    """Through lu_unpack: the packed gradient splits into gL (strictly lower, m x k) and
    gU (upper, k x n)."""
    P, _, _ = ember.lu_unpack(LU.detach(), pivots)
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + ember.eye(m, k, dtype=LU.dtype)
    U = LU[..., :k, :].triu()
    return linalg_lu_backward(grad[..., :, :k].tril(-1), grad[..., :k, :].triu(), P, L, U)


def linalg_lu_solve_backward(grad, LU, pivots, B_shape, X, left, adjoint):
    """(gLU, gB) of linalg.lu_solve (torch's linalg_lu_solve_LU). With op2 = identity when
    left, the transpose otherwise: if left != adjoint, gR = -U^{-H} op2(gX) op2(X)^H,
    gU = triu(gR), gL = tril(L^{-H} gR U^H, -1); else gR = -P^T op2(X)^H... written below
    with the transposes spelled out; gLU = gL + gU."""
    gB = sum_to_size(ember.linalg_lu_solve(LU, pivots, grad, left=left, adjoint=not adjoint),
                     B_shape)
    n = LU.shape[-1]
    L = LU.tril(-1) + ember.eye(n, dtype=LU.dtype)
    U = LU.triu()
    gX, Xo = (grad, X) if left else (grad.mH, X.mH)
    if left != adjoint:
        gR = ember.linalg_solve_triangular(U.mH, -gX @ Xo.mH, upper=False)
        gLo = ember.linalg_solve_triangular(L.mH, gR @ U.mH, upper=True, unitriangular=True)
        gLU = gLo.tril(-1) + gR.triu()
    else:
        P, _, _ = ember.lu_unpack(LU.detach(), pivots)
        gR = -(P.mH @ Xo @ gX.mH @ P)
        gR = ember.linalg_solve_triangular(L.mH, gR, upper=True, left=False, unitriangular=True)
        gUo = ember.linalg_solve_triangular(U.mH, L.mH @ gR, upper=False, left=False)
        gLU = gR.tril(-1) + gUo.triu()
    return sum_to_size(gLU, LU.shape), gB


def linalg_solve_triangular_backward(grad, A, B_shape, X, upper, left, unitriangular):
    """gB = A^{-H} gX; gA = -gB X^H (-X^H gB) projected on A's triangle."""
    gB = ember.linalg_solve_triangular(A.mH, grad, upper=not upper, left=left,
                                       unitriangular=unitriangular)
    gA = -(gB @ X.mH) if left else -(X.mH @ gB)
    k = int(unitriangular)
    gA = gA.triu(k) if upper else gA.tril(-k)
    return sum_to_size(gA, A.shape), sum_to_size(gB, B_shape)


def lu_unpack_backward(gL, gU, shape):
    """The packed LU's gradient: gL's strictly lower part and gU's upper part, each padded
    to the (m, n) of `shape`."""
    m, n = shape[-2], shape[-1]
    if gL is None or gL.dim() < 2:      # unpack_data=False: L and U are empty
        return None
    gL, gU = gL.tril(-1), gU.triu()
    if m < n:
        gL = ember.cat([gL, gL.new_zeros(tuple(gL.shape[:-1]) + (n - m,))], -1)
    elif m > n:
        gU = ember.cat([gU, gU.new_zeros(tuple(gU.shape[:-2]) + (m - n, n))], -2)
    return gL + gU


def householder_product_backward(grad, input, tau):
    """Through the product written out in ember ops, H_1 ... H_k with H_i = I - tau_i v_i
    v_i^T (v_i: column i below the diagonal, 1 on it), first n columns, differentiated by
    the engine. Under create_graph it is built on the inputs themselves, so the gradient
    stays differentiable with respect to them."""
    create = ember.is_grad_enabled()
    with ember.enable_grad():
        ins = [x if create and x.requires_grad else x.detach().requires_grad_()
               for x in (input, tau)]
        A, t = ins
        m, n = A.shape[-2], A.shape[-1]
        V = A.tril(-1) + ember.eye(m, n, dtype=A.dtype)
        Q = ember.eye(m, dtype=A.dtype).expand(tuple(A.shape[:-2]) + (m, m))
        for i in range(t.shape[-1]):
            v = V[..., :, i:i + 1]
            Q = Q - (Q @ v) * t[..., i, None, None] @ v.mH
        return ember.autograd.grad(Q[..., :, :n], ins, grad, create_graph=create,
                                   allow_unused=True)


def matrix_exp_backward(self, grad):
    """exp([[A^H, G], [0, A^H]]) holds the adjoint of d exp at A in its upper right block
    (Mathias' chain rule for analytic matrix functions)."""
    A = self.mH
    n = A.shape[-1]
    Z = ember.zeros_like(A)
    M = ember.cat([ember.cat([A, grad], -1), ember.cat([Z, A], -1)], -2)
    return ember.linalg_matrix_exp(M)[..., :n, n:]
