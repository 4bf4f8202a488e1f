"""matmul and linear, decomposed into mm/bmm/addmm and view ops (torch's rank rules).

    >>> ember.matmul(ember.ones(5, 2, 3), ember.ones(3)).shape   # batched matrix-vector
    ember.Size([5, 2])
    >>> ember.matmul(ember.ones(3), ember.ones(3))              # 1-D . 1-D: a 0-d dot
    tensor(3.)
"""
import math

import ember
from ember._generated import ops as _ops
from ember.core import dtype as D
from ember.core.shapes import broadcast_shapes
from ember.kernels.meta import linalg as _lm


def _dot(a, b):
    """1-D . 1-D -> 0-d: aten dot (its checks and gradient), like torch's matmul."""
    return ember.dot(a, b)


def _mv(mat, vec):
    """(n x k) . (k,) -> (n,): aten mv."""
    return ember.mv(mat, vec)


def matmul(self, other):
    """The matrix product with broadcasting, like torch.matmul / NumPy's `@`:

    1-D.1-D dot, 2-D.1-D mv, 1-D.2-D and 2-D.2-D mm; N-D (N >= 3) by 1-D/2-D (or the
    reverse, transposed) folds the batch into the rows of one mm when torch does
    (`_should_fold`); everything else broadcasts the batch dims and runs bmm. The graph is
    torch's: (3, 4) @ (2, 4, 5) ends in CloneBackward0 (the transposed product made
    contiguous), a folded product in UnsafeViewBackward0.
    """
    d1, d2 = self.dim(), other.dim()
    if d1 == 0 or d2 == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return _dot(self, other)
    if d1 == 2 and d2 == 1:
        return _mv(self, other)
    if d1 == 1 and d2 == 2:
        return ember.mm(self.unsqueeze(0), other).squeeze(0)
    if d1 == 2 and d2 == 2:
        return ember.mm(self, other)
    if _should_fold(self, other):
        # (the larger operand first: b @ a = (a^T @ b^T)^T for a 1-D/2-D self)
        transpose = d2 > d1
        big = other.mT if transpose else self
        small = (self.t() if d1 == 2 else self) if transpose else other
        rows = big.shape[:-1]
        folded = big.reshape(_prod(rows), big._shape[-1])
        # (torch's: the result is an _unsafe_view, UnsafeViewBackward0, not a tracked view)
        if small.dim() == 1:
            return _ops._entry__unsafe_view(_mv(folded, small), rows)
        out = _ops._entry__unsafe_view(ember.mm(folded, small), rows + (small._shape[1],))
        return out.mT.contiguous() if transpose else out
    return _batched(self, other, d1, d2)


def _should_fold(a, b):
    """torch's rule for folding the batch of the larger (N >= 3) operand into one mm against
    the 1-D/2-D other: always when the small one requires grad (its gradient stays small),
    never for a 2-D self (the transposed result would be copied), else when the fold is a
    view (an empty operand, or batch dims laid out row-major)."""
    a_larger = len(a._shape) >= len(b._shape)
    big, small = (a, b) if a_larger else (b, a)
    if len(big._shape) < 3 or len(small._shape) > 2:
        return False
    if small.requires_grad:
        return True
    if len(a._shape) == 2:
        return False
    # (the batch dims of big, which is other.mT for a 1-D self: its dims but the last two)
    if 0 in big._shape:
        return True
    shape, strides = big._shape, big.stride()
    n = len(shape) - 2
    last = n if a_larger else n + 1     # (the rows of the fold: other.mT's are its columns)
    for i in range(n - 1):
        if strides[i] != strides[i + 1] * shape[i + 1]:
            return False
    return strides[n - 1] == strides[last] * shape[last]


def _batched(a, b, d1, d2):
    """Broadcast batch dims, flatten them into one, bmm, and view back."""
    n = a._shape[-2] if d1 > 1 else 1
    k1 = a._shape[-1]
    k2 = b._shape[-2] if d2 > 1 else b._shape[0]
    p = b._shape[-1] if d2 > 1 else 1
    batch = broadcast_shapes(a._shape[:-2], b._shape[:-2] if d2 > 2 else ())
    size = _prod(batch)
    a3 = a.expand(batch + (n, k1)).reshape(size, n, k1)
    if d2 == 1:
        b3 = b.expand(batch + (k2,)).reshape(size, k2).unsqueeze(2)
    else:
        b3 = b.expand(batch + (k2, p)).reshape(size, k2, p)
    out_shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    out = ember.bmm(a3, b3)
    # (torch squeezes a vector's column first: SqueezeBackward1 in the graph)
    return _ops._entry__unsafe_view(out.squeeze(-1) if d2 == 1 else out, out_shape)


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def linear(input, weight, bias):
    """`input @ weight.T + bias`: one addmm for 2-D input (and contiguous N-D input, whose
    leading dims are flattened, like torch), else matmul then add.

    >>> ember.linear(ember.ones(5, 3), ember.ones(4, 3), ember.zeros(4)).shape
    ember.Size([5, 4])
    """
    if bias is not None:
        if len(input._shape) == 2:      # (the entries: a composite's inner ops skip the bindings)
            return _ops._entry_addmm(bias, input, _ops._entry_t(weight), 1, 1)
        shape = input._shape
        if len(shape) >= 3 and input.is_contiguous() and (len(shape) == 3 or bias.dim() == 1):
            # torch's _flatten_nd_linear: reshape to 2-D, addmm, view back
            flat = _ops._entry_reshape(input, (_prod(shape[:-1]), shape[-1]))
            out = _ops._entry_addmm(bias, flat, _ops._entry_t(weight), 1, 1)
            return _ops._entry_view(out, shape[:-1] + (weight._shape[0],))
    out = ember.matmul(input, weight.t())
    return out if bias is None else ember.add(out, bias)


# ---------------------------------------------------------------- torch.linalg
# The checking front ends (linalg.solve = solve_ex(check_errors=True), ...), the legacy
# top-level names (det, inverse, svd, ...) and the ops torch builds from others (norms,
# pinv, matrix_rank, multi_dot, ...), over the LAPACK ops: autograd comes with them.


def _checked(result, info, api, kind):
    """result, after raising LinAlgError like torch's `api` if `info` reports a failure."""
    _lm.raise_for_info(info, api, kind)
    return result


def linalg_solve(A, B, left):
    """`linalg.solve(A, B, left=True)`; a singular A raises LinAlgError."""
    return _checked(*ember.linalg_solve_ex(A, B, left=left), "ember.linalg.solve", "solve")


def linalg_inv(A):
    return _checked(*ember.linalg_inv_ex(A), "linalg.inv", "inv")


def inverse(self):
    return linalg_inv(self)


def det(self):
    return ember.linalg_det(self)


def slogdet(self):
    return ember.linalg_slogdet(self)


def logdet(self):
    """log det A: NaN where det < 0, -inf where it is 0 (complex: log(sign) + log|det|)."""
    _lm.square_input(self, "logdet")
    sign, logabsdet = ember.linalg_slogdet(self)
    if self.is_complex():
        return sign.log() + logabsdet
    return ember.where(sign == -1, math.nan, logabsdet)


def linalg_cholesky(self, upper):
    return _checked(*ember.linalg_cholesky_ex(self, upper=upper), "linalg.cholesky", "cholesky")


def cholesky(self, upper):
    return linalg_cholesky(self, upper)


def _check_b_A(b, A):
    """torch's linearSolveCheckInputs dtype check (cholesky_solve, triangular_solve)."""
    if b.dtype is not A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{b.dtype.scalar_name} and A of type {A.dtype.scalar_name} instead.")


def cholesky_solve(self, input2, upper):
    """X with A X = self, A = L L^H (upper: U^H U) given its factor `input2`."""
    _check_b_A(self, input2)
    f = input2.mH if upper else input2
    y = ember.linalg_solve_triangular(f, self, upper=False)
    return ember.linalg_solve_triangular(f.mH, y, upper=True)


def cholesky_inverse(self, upper):
    n = self.shape[-1]
    eye = ember.eye(n, dtype=self.dtype, device=self.device)
    return cholesky_solve(eye.expand(self.shape), self, upper)


def qr(self, some):
    return ember.linalg_qr(self, "reduced" if some else "complete")


def linalg_svdvals(A, driver):
    return ember.linalg_svd(A, False, driver=driver)[1]


def svd(self, some, compute_uv):
    """The legacy svd: V (not Vh); compute_uv=False gives zero-filled U and V."""
    U, S, Vh = ember.linalg_svd(self, not some)
    if not compute_uv:
        m, n = self.shape[-2:]
        batch = tuple(self.shape[:-2])
        return self.new_zeros(batch + (m, m)), S, self.new_zeros(batch + (n, n)).mT
    return U, S, Vh.mT


def linalg_eigvalsh(self, UPLO):
    return ember.linalg_eigh(self, UPLO)[0]


def linalg_eigvals(self):
    """The eigenvalues: through linalg_eig when a gradient may be needed (its backward),
    else _linalg_eigvals (no eigenvectors computed), as torch."""
    if self.requires_grad and ember.is_grad_enabled():
        return ember.linalg_eig(self)[0]
    return ember._linalg_eigvals(self)


def linalg_lu_factor(A, pivot):
    LU, pivots, info = ember.linalg_lu_factor_ex(A, pivot=pivot)
    return _checked((LU, pivots), info, "ember.linalg.lu_factor", "lu_factor")


def linalg_ldl_factor(self, hermitian):
    LD, pivots, info = ember.linalg_ldl_factor_ex(self, hermitian=hermitian)
    return _checked((LD, pivots), info, "ember.linalg.ldl_factor", "ldl_factor")


def lu_solve(self, LU_data, LU_pivots):
    return ember.linalg_lu_solve(LU_data, LU_pivots, self)


def triangular_solve(self, A, upper, transpose, unitriangular):
    """The legacy solver: (X with op(A) X = self, a copy of A)."""
    _check_b_A(self, A)
    X = ember.linalg_solve_triangular(A.mT if transpose else A, self, upper=upper != transpose,
                                      unitriangular=unitriangular)
    return X, A.mT.contiguous().mT      # the copy in LAPACK's column-major layout


def orgqr(self, input2):
    return ember.linalg_householder_product(self, input2)


def matrix_exp(self):
    return ember.linalg_matrix_exp(self)


def linalg_matrix_power(self, n):
    """A^n by repeated squaring; n < 0 inverts first, n == 0 gives identities."""
    fn = "linalg.matrix_power"
    _lm.check_matrix(self, fn)
    _lm.check_square(self, fn)
    if n == 0:
        eye = ember.eye(self.shape[-1], dtype=self.dtype, device=self.device)
        return eye.expand(self.shape).clone()
    a = linalg_inv(self) if n < 0 else self
    n = abs(n)
    if n == 1:
        return a.clone(memory_format=ember.contiguous_format)
    result = None
    while n:
        if n & 1:
            result = a if result is None else ember.matmul(result, a)
        n >>= 1
        if n:
            a = ember.matmul(a, a)
    return result


def matrix_power(self, n):
    return linalg_matrix_power(self, n)


# ---- norms
def _norm_dims(A, dim, low_precision, dtype):
    """torch's _linalg_matrix_norm_checks: the two dims, wrapped."""
    fn = "linalg.matrix_norm"
    _lm.check_matrix(A, fn)
    _lm.check_floating(A, fn)
    if not low_precision:
        _lm.check_low_precision(A, fn)
    dim = list(dim)
    if len(dim) != 2:
        raise RuntimeError(f"{fn}: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    nd = A.dim()
    for d in dim:
        if not -nd <= d < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                             f"{nd - 1}], but got {d})")
    dim = [d % nd for d in dim]
    if dim[0] == dim[1]:
        raise RuntimeError(f"{fn}: dims must be different. Got ({dim[0]}, {dim[1]})")
    if dtype is not None:
        _lm.check_norm_dtype(A, dtype, fn)
    return dim


def _svdvals_reduce(A, dim, keepdim, dtype, reduce):
    """reduce(svdvals of the matrices spanned by `dim`, -1), keepdim restoring both dims."""
    nd = A.dim()
    perm = [d for d in range(nd) if d not in dim] + dim
    a = A if dtype is None else A.to(dtype)
    r = reduce(ember.linalg_svdvals(a.permute(perm)))
    if keepdim:
        inv = [perm.index(d) for d in range(nd)]
        r = r.unsqueeze(-1).unsqueeze(-1).permute(inv)
    return r


def linalg_matrix_norm(self, ord, dim, keepdim, dtype):
    """`linalg.matrix_norm(A, ord)` for ord in +-1, +-2, +-inf: max/min over one dim of
    the 1-norms along the other, or the largest/smallest singular value."""
    o = float(ord.item() if isinstance(ord, ember.Tensor) else ord)
    if abs(o) not in (1.0, 2.0, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    dim = _norm_dims(self, dim, abs(o) != 2, dtype)

    def pick(x, d, keep=keepdim):
        return x.amax(d, keep) if o > 0 else x.amin(d, keep)
    if abs(o) == 2:
        return _svdvals_reduce(self, dim, keepdim, dtype, lambda s: pick(s, -1, False))
    if o in (math.inf, -math.inf):
        dim = dim[::-1]
    d0, d1 = dim
    if not keepdim and d0 < d1:
        d1 -= 1
    return pick(ember.linalg_vector_norm(self, 1.0, [d0], keepdim, dtype=dtype), d1)


def linalg_matrix_norm_str_ord(self, ord, dim, keepdim, dtype):
    """'fro' (the 2-norm of the entries) or 'nuc' (the sum of the singular values)."""
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    dim = _norm_dims(self, dim, ord == "fro", dtype)
    if ord == "fro":
        return ember.linalg_vector_norm(self, 2, dim, keepdim, dtype=dtype)
    return _svdvals_reduce(self, dim, keepdim, dtype, lambda s: s.sum(-1))


def _norm_dim_check(self, dim, ord_given, typo=""):
    if dim is not None:
        dim = [dim] if isinstance(dim, int) else list(dim)
        if len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it mu{typo}t be of length 1 "
                               f"or 2. Got [{', '.join(map(str, dim))}]")
    elif ord_given and self.dim() not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {self.dim()}D.")
    return dim


def linalg_norm(self, ord, dim, keepdim, dtype):
    """`linalg.norm(A, ord=None, dim=None)`: a matrix norm when ord is given over two dims
    (or a 2-D input without dim), else a vector norm (ord None: the 2-norm)."""
    dim = _norm_dim_check(self, dim, ord is not None, "s")
    if ord is not None and ((dim is not None and len(dim) == 2)
                            or (dim is None and self.dim() == 2)):
        return linalg_matrix_norm(self, ord, dim or [0, 1], keepdim, dtype)
    return ember.linalg_vector_norm(self, 2.0 if ord is None else ord, dim, keepdim,
                                    dtype=dtype)


def linalg_norm_ord_str(self, ord, dim, keepdim, dtype):
    dim = _norm_dim_check(self, dim, True, "")
    return linalg_matrix_norm_str_ord(self, ord, dim or [0, 1], keepdim, dtype)


# ---- condition numbers
def _cond_ord_text(ord):
    """ord as torch prints it (a C++ double: 3, 0.5, inf)."""
    return f"{float(ord):g}"


def _check_cond_ord(ord):
    if isinstance(ord, str):
        ok = ord in ("fro", "nuc")
    else:
        ok = abs(float(ord)) in (1.0, 2.0, math.inf)
    if not ok:
        text = ord if isinstance(ord, str) else _cond_ord_text(ord)
        raise RuntimeError(f"linalg.cond got an invalid norm type: {text}")


def _cond_by_inverse(self, ord):
    """norm(A) * norm(A^{-1}); a singular A (its inverse infinite) and 0 * inf give inf."""
    inverse, info = ember.linalg_inv_ex(self)
    inverse = inverse.masked_fill((info > 0).unsqueeze(-1).unsqueeze(-1), math.inf)
    norm = linalg_matrix_norm_str_ord if isinstance(ord, str) else linalg_matrix_norm
    r = norm(self, ord, [-2, -1], False, None) * norm(inverse, ord, [-2, -1], False, None)
    return r.nan_to_num(math.inf, math.inf, -math.inf)


def _cond_empty(self):
    """0 for each (empty) matrix, like torch (NumPy leaves it undefined)."""
    return self.new_zeros(tuple(self.shape[:-2]), dtype=self.dtype.to_real())


def linalg_cond(self, p):
    """`linalg.cond(A, p=None)`: the condition number in the p-norm: p None/2/-2 from the
    singular values (largest over smallest, or its inverse), +-1/+-inf by the inverse."""
    if self.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord = 2 if p is None else (p.item() if isinstance(p, ember.Tensor) else p)
    _check_cond_ord(ord)
    if self.numel() == 0:
        return _cond_empty(self)
    if abs(float(ord)) == 2.0:
        s = ember.linalg_svdvals(self)
        big, small = s[..., 0], s[..., -1]
        return small / big if float(ord) == -2.0 else big / small
    text = f"{ord:f}" if isinstance(ord, float) else str(int(ord))   # (C++'s to_string)
    _lm.check_square(self, f"linalg.cond(ord={text})")
    return _cond_by_inverse(self, ord)


def linalg_cond_p_str(self, p):
    """`linalg.cond(A, 'fro' | 'nuc')`."""
    _lm.check_matrix(self, f"linalg.cond(ord={p})")
    _lm.check_square(self, f"linalg.cond(ord={p})")
    _check_cond_ord(p)
    if self.numel() == 0:
        return _cond_empty(self)
    if p == "nuc":
        s = ember.linalg_svdvals(self)
        return s.sum(-1) * s.reciprocal().sum(-1)
    return _cond_by_inverse(self, p)


# ---- pseudo-inverse and rank
def _tolerance(S_max, atol, rtol, shape, dtype):
    """torch's max(atol, rtol * largest singular value); rtol defaults to eps * max(m, n)
    unless a positive atol is given."""
    if rtol is None:
        rtol = 0.0 if (atol is not None and atol > 0) else \
            ember.finfo(dtype).eps * max(shape[-2], shape[-1])
    tol = S_max * rtol
    return tol if atol is None else ember.clamp(tol, min=atol)


def linalg_matrix_rank_atol_rtol_float(self, atol, rtol, hermitian):
    """The number of singular values (|eigenvalues| if hermitian) above the tolerance."""
    _lm.check_matrix(self, "ember.linalg.matrix_rank", "input")
    _lm.check_lapack_float(self)
    with ember.no_grad():
        S = ember.linalg_eigvalsh(self).abs() if hermitian else ember.linalg_svdvals(self)
        if S.shape[-1] == 0:
            return S.new_zeros(tuple(S.shape[:-1]), dtype=D.int64)
        tol = _tolerance(S.amax(-1, True), atol, rtol, self.shape, self.dtype)
        return (S > tol).sum(-1)


def linalg_matrix_rank(self, tol, hermitian):
    return linalg_matrix_rank_atol_rtol_float(self, tol, 0.0, hermitian)


def linalg_pinv_atol_rtol_float(self, atol, rtol, hermitian):
    """A^+ from the SVD (the eigendecomposition if hermitian), singular values at most the
    tolerance dropped."""
    if self.dim() < 2:   # torch reads size(-2) first
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(self.dim(), 1)}, "
                         f"{max(self.dim(), 1) - 1}], but got -2)")
    _lm.check_lapack_float(self)
    m, n = self.shape[-2:]
    if self.numel() == 0:
        return self.new_zeros(tuple(self.shape[:-2]) + (n, m))
    if hermitian:
        S, U = ember.linalg_eigh(self)
        tol = _tolerance(S.abs().amax(-1, True), atol, rtol, self.shape, self.dtype)
        S_inv = ember.where(S.abs() > tol, S.reciprocal(), 0.0)
        return (U * S_inv.unsqueeze(-2)) @ U.mH
    U, S, Vh = ember.linalg_svd(self, False)
    tol = _tolerance(S[..., :1], atol, rtol, self.shape, self.dtype)
    S_inv = ember.where(S > tol, S.reciprocal(), 0.0)
    return (Vh.mH * S_inv.unsqueeze(-2)) @ U.mH


def linalg_pinv(self, rcond, hermitian):
    return linalg_pinv_atol_rtol_float(self, 0.0, rcond, hermitian)


def pinverse(self, rcond):
    return linalg_pinv(self, rcond, False)


# ---- products
def _multi_dot_checks(tensors, fn):
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"{fn}: expected at least 2 tensors but got {n}")
    for i, t in enumerate(tensors):
        d = t.dim()
        if i == 0 and d not in (1, 2):
            raise RuntimeError(f"{fn}: the first tensor must be 1D or 2D but got {d}D")
        if i == n - 1 and d not in (1, 2):
            raise RuntimeError(f"{fn}: the last tensor must be 1D or 2D but got {d}D")
        if 0 < i < n - 1 and d != 2:
            raise RuntimeError(f"{fn}: tensor {i} must be 2D but got {d}D")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError(f"{fn}: all tensors must have be the same dtype but tensor 0 is "
                               f"{_lm.CPP_NAMES[tensors[0].dtype]} and tensor {i} "
                               f"{_lm.CPP_NAMES[t.dtype]}")


def linalg_multi_dot(tensors):
    """The chained product in the cheapest order (the matrix-chain dynamic program); the
    first and last tensors may be vectors."""
    fn = "multi_dot()"
    _multi_dot_checks(tensors, fn)
    first_vec, last_vec = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = list(tensors)
    if first_vec:
        mats[0] = mats[0].unsqueeze(0)
    if last_vec:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            a, b = tensors[i].shape, tensors[i + 1].shape
            raise RuntimeError(f"{fn}: tensors {i} and {i + 1} with shapes {list(a)} and "
                               f"{list(b)} cannot be multiplied")
    out = _chain(mats, _chain_order(mats), 0, len(mats) - 1)
    if first_vec and last_vec:
        return out.reshape(())
    if first_vec:
        return out.squeeze(0)
    return out.squeeze(-1) if last_vec else out


def _chain_order(mats):
    """split[i][j]: where the cheapest product of mats[i..j] splits."""
    n = len(mats)
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return ember.mm(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))


def chain_matmul(matrices):
    if len(matrices) == 0:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        return matrices[0].clone()
    for i, t in enumerate(matrices):
        if t.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {t.dim()}, expected 2 instead.")
    return linalg_multi_dot(matrices)


def python_chain_matmul(*matrices, out=None):
    """`ember.chain_matmul(*matrices)`, torch.functional's deprecated wrapper of aten
    chain_matmul (use ember.linalg.multi_dot).

    >>> ember.chain_matmul(ember.ones(2, 3), ember.ones(3, 4), ember.ones(4, 1)).shape
    ember.Size([2, 1])
    """
    from ember.overrides import NO_OVERRIDE, handle_torch_function_any, tf_state
    if tf_state[0]:
        r = handle_torch_function_any(python_chain_matmul, matrices, {"out": out})
        if r is not NO_OVERRIDE:
            return r
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = matrices[0]
    result = ember.ops.aten.chain_matmul.default(list(matrices))
    return result if out is None else out.resize_(result.shape).copy_(result)


def linalg_cross(self, other, dim):
    """a x b along `dim` (of length 3), inputs broadcast."""
    if self.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    nd = self.dim()
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {dim})")
    if self.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{self.shape[dim]} and {other.shape[dim]}")
    a, b = ember.broadcast_tensors(self, other)
    # (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0): rolls by 1 and 2 along dim
    return (ember.roll(a, -1, dim) * ember.roll(b, -2, dim)
            - ember.roll(a, -2, dim) * ember.roll(b, -1, dim))


def cross(self, other, dim):
    """The legacy cross: dim=None picks the first dim of length 3 (torch warns)."""
    if dim is None:
        import warnings
        warnings.warn("Using ember.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use ember.linalg.cross.\n"
                      "The default value of dim will change to agree with that of "
                      "linalg.cross in a future release.", UserWarning, stacklevel=3)
        shape = ember.broadcast_shapes(self.shape, other.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    return linalg_cross(self, other, dim)


def linalg_vecdot(x, y, dim):
    """sum(conj(x) * y, dim)."""
    _lm.check_floating(x, "linalg.vecdot")
    if x.dtype is not y.dtype:
        raise RuntimeError("linalg.vecdot: Expected x and y to have the same dtype, but found x "
                           f"of type {x.dtype.scalar_name} and y of type {y.dtype.scalar_name} "
                           "instead")
    return (x.conj() * y).sum(dim)


def linalg_tensorinv(self, ind):
    """The inverse of `self` seen as a map from its last dims to its first `ind` ones."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    front, back = tuple(self.shape[:ind]), tuple(self.shape[ind:])
    p_back, p_front = math.prod(back), math.prod(front)
    if p_back != p_front:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {p_back} != {p_front}")
    return linalg_inv(self.reshape(p_back, p_back)).reshape(back + front)


def linalg_tensorsolve(self, other, dims):
    """X with tensordot(self, X, X.ndim) = other."""
    a = self
    if dims is not None:
        a = ember.movedim(a, list(dims), list(range(a.dim() - len(dims), a.dim())))
    result_shape = tuple(a.shape[other.dim():])
    rp, op = math.prod(result_shape), math.prod(other.shape)
    if rp != op:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) "
                           f"== prod(self.shape[:other.ndim]), but got {rp} != {op}")
    return linalg_solve(a.reshape(rp, rp), other.flatten(), True).reshape(result_shape)


def vander(x, N=None, increasing=False):
    """torch.vander: columns x^(N-1), ..., x, 1 (reversed with `increasing`), as torch's
    ones, then cumprod of x repeated; integer and bool x give int64 (cumprod's promotion)."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = D.promote_types(x.dtype, D.int64)
    result = x.new_ones((x.shape[0], n), dtype=dt)
    if n > 1:
        powers = ember.cumprod(x.unsqueeze(1).expand(x.shape[0], n - 1).to(dt), 1)
        result = ember.cat([result[:, :1], powers], 1)
    return result if increasing else result.flip(1)


def linalg_vander(x, N):
    """Columns x^0, x^1, ..., x^(N-1) (cumulative products)."""
    dt = x.dtype
    if not (dt in (D.float32, D.float64) or (not dt.is_floating_point and dt is not D.bool_)):
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, "
                           f"but got {dt.scalar_name}")
    x_ = x.unsqueeze(-1) if x.dim() == 0 else x
    n = x_.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    shape = tuple(x_.shape) + (n - 1,)
    powers = ember.cumprod(x_.unsqueeze(-1).expand(shape), -1)
    return ember.cat([powers.new_ones(shape[:-1] + (1,)), powers], -1)


def linalg_diagonal(A, offset, dim1, dim2):
    return A.diagonal(offset, dim1, dim2)


def linalg_matmul(self, other):
    return ember.matmul(self, other)


def trace(self):
    """The sum of the main diagonal of a matrix."""
    if self.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.dim()}")
    return self.diagonal().sum()
