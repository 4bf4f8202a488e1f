"""mm, bmm, addmm on Meta tensors, and the argument checks (torch's order and messages)
the CPU kernels share. Results are contiguous.

    >>> ember.empty(2, 3, device="meta").mm(ember.empty(3, 4, device="meta")).shape
    ember.Size([2, 4])
"""
import numpy as np

from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.core.tensor import contiguous_strides
from ember.kernels.common._errors import LinAlgError, not_implemented_for

# torch names the element types by their C++ type in the mm dtype message.
CPP_NAMES = {D.bool_: "bool", D.uint8: "unsigned char", D.int8: "signed char",
             D.int16: "short int", D.int32: "int", D.int64: "long int", D.float16: "c10::Half",
             D.bfloat16: "c10::BFloat16", D.float32: "float", D.float64: "double",
             D.complex64: "c10::complex<float>", D.complex128: "c10::complex<double>"}


def check_mm(self, mat2) -> tuple:
    """The (n, p) result shape of self (n x k) @ mat2 (k x p)."""
    if self.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    (n, k), (k2, p) = self._shape, mat2._shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{p})")
    if self._dtype is not mat2._dtype:
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{CPP_NAMES[self._dtype]} != {CPP_NAMES[mat2._dtype]}")
    return n, p


def check_bmm(self, mat2) -> tuple:
    """The (b, n, p) result shape of a batch of (n x k) @ (k x p) products."""
    if self.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (b, n, k), (b2, k2, p) = self._shape, mat2._shape
    if (b2, k2) != (b, k):
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {k}] but got: [{b2}, {k2}].")
    if self._dtype is not mat2._dtype:
        raise RuntimeError(f"expected scalar type {self._dtype.scalar_name} but found "
                           f"{mat2._dtype.scalar_name}")
    return b, n, p


def check_addmm_dtypes(self, mat1, mat2) -> None:
    """addmm's (and addbmm's) one dtype for all three operands, in torch's order."""
    if self._dtype is not mat2._dtype:
        raise RuntimeError("self and mat2 must have the same dtype, but got "
                           f"{self._dtype.scalar_name} and {mat2._dtype.scalar_name}")
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError("mat1 and mat2 must have the same dtype, but got "
                           f"{mat1._dtype.scalar_name} and {mat2._dtype.scalar_name}")


def check_addmm(self, mat1, mat2, inplace=False) -> tuple:
    """The (n, p) result shape of addmm; `self` must expand to it (addmm_'s self must have
    it: torch's structured in-place check)."""
    check_addmm_dtypes(self, mat1, mat2)
    if mat1.dim() != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.dim()}-D tensor")
    if mat2.dim() != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.dim()}-D tensor")
    (n, k), (k2, p) = mat1._shape, mat2._shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{p})")
    if inplace:
        if tuple(self._shape) != (n, p):
            raise RuntimeError(f"Bad in-place call: input tensor size {list(self._shape)} and "
                               f"output tensor size {[n, p]} should match")
    else:
        _check_expands(self._shape, (n, p), self._dtype)
    return n, p


def _check_expands(shape, target, dt):
    """torch's expand errors when `self` cannot broadcast to the addmm result."""
    if len(shape) > len(target):
        raise RuntimeError(f"expand(ember.{dt.scalar_name}Tensor{{{list(shape)}}}, "
                           f"size={list(target)}): the number of sizes provided ({len(target)}) "
                           "must be greater or equal to the number of dimensions in the tensor "
                           f"({len(shape)})")
    off = len(target) - len(shape)
    for i, s in enumerate(shape):
        if s != 1 and s != target[off + i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[off + i]}) must match "
                               f"the existing size ({s}) at non-singleton dimension {off + i}.  "
                               f"Target sizes: {list(target)}.  Tensor sizes: {list(shape)}")


def mm(self, mat2):
    return empty_meta(check_mm(self, mat2), self._dtype)


def bmm(self, mat2):
    return empty_meta(check_bmm(self, mat2), self._dtype)


def addmm(self, mat1, mat2, beta, alpha):
    return empty_meta(check_addmm(self, mat1, mat2), mat2._dtype)


def addmm_(self, mat1, mat2, beta, alpha):
    check_addmm(self, mat1, mat2, inplace=True)
    return self


# ---------------------------------------------------------------- torch.linalg
# Shape, dtype and layout rules of the LAPACK-backed ops, and their argument checks
# (torch's order and messages), shared by the CPU kernels. LAPACK writes each matrix
# column-major: results that come straight from it have torch's batched column-major
# strides (`colmajor_strides`).
_LOW = (D.float16, D.bfloat16)


def colmajor_strides(shape) -> tuple:
    """Each trailing matrix column-major, the batch dims C-contiguous (torch's LAPACK layout).

    >>> colmajor_strides((2, 3, 4))
    (12, 1, 3)
    """
    shape = tuple(shape)
    if len(shape) < 2:
        return tuple(contiguous_strides(shape))
    m, n = max(shape[-2], 1), max(shape[-1], 1)
    out, size = [], m * n
    for s in reversed(shape[:-2]):
        out.insert(0, size)
        size *= max(s, 1)
    return tuple(out) + (1, m)


def empty_colmajor(shape, dt):
    return empty_meta(shape, dt, colmajor_strides(shape))


def check_norm_dtype(A, dtype, fn):
    """A norm's dtype= is floating or complex, complex exactly when the input is."""
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{fn}: dtype should be floating point or complex, but got "
                           f"{dtype.scalar_name}")
    if dtype.is_complex != A._dtype.is_complex:
        kind = "complex" if A._dtype.is_complex else "real"
        raise RuntimeError(f"{fn}: dtype should be {kind} for {kind} inputs, but got "
                           f"{dtype.scalar_name}")


def check_floating(A, fn):
    if not (A._dtype.is_floating_point or A._dtype.is_complex):
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. "
                           f"Got {A._dtype.scalar_name}")


def check_matrix(A, fn, name="A"):
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")


def check_square(A, fn, name="A"):
    m, n = A._shape[-2:]
    if m != n:
        raise RuntimeError(f"{fn}: {name} must be batches of square matrices, but they are "
                           f"{m} by {n} matrices")


def check_lapack_dtype(A, kernel):
    """float16/bfloat16 (and integers, for the ops without a float check) have no LAPACK
    kernel: torch's NotImplementedError naming its CPU kernel."""
    if not (A._dtype.is_floating_point or A._dtype.is_complex) or A._dtype in _LOW:
        raise not_implemented_for(kernel, A._dtype)


def check_lapack_float(A):
    """LAPACK's four types (float, double and their complex), torch's message otherwise."""
    if A._dtype not in (D.float32, D.float64, D.complex64, D.complex128):
        raise RuntimeError("This function doesn't handle types other than float and double")


def check_low_precision(A, fn):
    if A._dtype in _LOW:
        raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got {A._dtype.scalar_name}")


def square_input(A, fn, kernel=None):
    """torch's checks of a batch of square float matrices, in its order."""
    check_floating(A, fn)
    check_matrix(A, fn)
    check_square(A, fn)
    if kernel is None:
        check_low_precision(A, fn)
    else:
        check_lapack_dtype(A, kernel)


# What LAPACK's info > 0 means, per factorization (torch's _linalg_check_errors).
_INFO_MESSAGES = {
    "solve": lambda c: "The solver failed because the input matrix is singular.",
    "inv": lambda c: (f"The diagonal element {c} is zero, the inversion could not be completed "
                      "because the input matrix is singular."),
    "cholesky": lambda c: ("The factorization could not be completed because the input is not "
                           f"positive-definite (the leading minor of order {c} is not "
                           "positive-definite)."),
    "ldl_factor": lambda c: ("The factorization could not be completed because the block "
                             f"diagonal matrix D is singular: D[{c},{c}] is exactly zero."),
    "lu_factor": lambda c: (f"U[{c},{c}] is zero and using it on lu_solve would result in a "
                            "division by zero. If you still want to perform the factorization, "
                            "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, "
                            "pivot)"),
}


def raise_for_info(info, api, kind):
    """LinAlgError naming `api` for the first matrix whose LAPACK `info` (a NumPy array, or
    a tensor: Meta ones hold no values) reports a failure."""
    if not isinstance(info, np.ndarray):
        from ember._subclasses.fake_tensor import is_fake
        if info._device.type == "meta" or is_fake(info):     # no values to check
            return
        info = info.detach().cpu().numpy()
    bad = np.flatnonzero(info.reshape(-1))
    if bad.size:
        i = int(bad[0])
        where = f"(Batch element {i}): " if info.ndim else ""
        code = int(info.reshape(-1)[i])
        error = LinAlgError if kind != "lu_factor" else RuntimeError
        raise error(f"{api}: {where}{_INFO_MESSAGES[kind](code)}")


def _check_same_dtype(A, B, fn):
    if A._dtype is not B._dtype:
        raise RuntimeError(f"{fn}: Expected A and B to have the same dtype, but found A of type "
                           f"{A._dtype.scalar_name} and B of type {B._dtype.scalar_name} instead")


def _batch(*shapes) -> tuple:
    from ember.core.shapes import broadcast_shapes
    return tuple(broadcast_shapes(*shapes))


def solve_layout(A, B, left, fn="linalg.solve", eq_name=None):
    """(result shape, batch shape, vector case) of X with AX = B (XA = B if not left); B is
    a vector (batch) when it is 1-D or A's shape without its last dim, like torch's."""
    n = A._shape[-1]
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B._shape == A._shape[:-1])
    Bm = B._shape + (1,) if vector else B._shape
    if len(Bm) < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    rows = Bm[-2] if left else Bm[-1]
    if rows != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {Bm[-2]}x{Bm[-1]})")
    batch = _batch(A._shape[:-2], Bm[:-2])
    shape = batch + (Bm[-2:-1] if vector else Bm[-2:])
    return shape, batch, vector


def linalg_solve_ex(A, B, left, check_errors):
    square_input(A, "linalg.solve", "lu_cpu")
    _check_same_dtype(A, B, "linalg.solve")
    shape, _, _ = solve_layout(A, B, left)
    return solve_result(shape, A._dtype, left), empty_meta(A._shape[:-2], D.int32)


def solve_result(shape, dt, left):
    """torch's solver results: batched column-major when left (a batch of vectors counts
    as a matrix), C-contiguous when right (the transposed system's column-major result)."""
    return empty_colmajor(shape, dt) if left else empty_meta(shape, dt)


def linalg_inv_ex(A, check_errors):
    square_input(A, "linalg.inv")
    return empty_colmajor(A._shape, A._dtype), empty_meta(A._shape[:-2], D.int32)


def linalg_det(A):
    square_input(A, "linalg.det", "lu_cpu")
    return empty_meta(A._shape[:-2], A._dtype)


def linalg_slogdet(A):
    square_input(A, "linalg.slogdet")
    return empty_meta(A._shape[:-2], A._dtype), empty_meta(A._shape[:-2], A._dtype.to_real())


def linalg_cholesky_ex(self, upper, check_errors):
    square_input(self, "linalg.cholesky", "cholesky_cpu")
    return empty_colmajor(self._shape, self._dtype), empty_meta(self._shape[:-2], D.int32)


QR_MODES = ("reduced", "r", "complete")


def qr_shapes(A, mode):
    """(Q shape, R shape) of linalg.qr; mode 'r' gives an empty Q."""
    check_floating(A, "linalg.qr")
    check_matrix(A, "linalg.qr")
    if mode not in QR_MODES:
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    check_lapack_dtype(A, "geqrf_cpu")
    *batch, m, n = A._shape
    k = min(m, n)
    batch = tuple(batch)
    if mode == "complete":
        return batch + (m, m), batch + (m, n)
    return ((0,) if mode == "r" else batch + (m, k)), batch + (k, n)


def linalg_qr(A, mode):
    q, r = qr_shapes(A, mode)
    return empty_colmajor(q, A._dtype), empty_colmajor(r, A._dtype)


def svd_shapes(A, full_matrices, driver):
    """(U, S, Vh) shapes of linalg.svd."""
    check_floating(A, "linalg.svd")
    check_matrix(A, "linalg.svd")
    if driver is not None:
        raise RuntimeError("ember.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")
    check_lapack_dtype(A, "linalg_svd_cpu")
    *batch, m, n = A._shape
    batch, k = tuple(batch), min(m, n)
    if full_matrices:
        return batch + (m, m), batch + (k,), batch + (n, n)
    return batch + (m, k), batch + (k,), batch + (k, n)


def linalg_svd(A, full_matrices, driver):
    u, s, vh = svd_shapes(A, full_matrices, driver)
    dt = A._dtype
    return empty_colmajor(u, dt), empty_meta(s, dt.to_real()), empty_colmajor(vh, dt)


def eigh_check(A, UPLO):
    check_matrix(A, "linalg.eigh")
    check_square(A, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    check_lapack_dtype(A, "linalg_eigh_cpu")


def linalg_eigh(self, UPLO):
    eigh_check(self, UPLO)
    return (empty_meta(self._shape[:-1], self._dtype.to_real()),
            empty_colmajor(self._shape, self._dtype))


LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq_layout(A, B, driver):
    """(driver, vector case, batch, m, n, k) of linalg.lstsq(A, B)."""
    fn = "ember.linalg.lstsq"
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    check_lapack_float(A)
    if A._dtype is not B._dtype:
        raise RuntimeError(f"{fn}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A._dtype.scalar_name} and other's dtype "
                           f"{B._dtype.scalar_name}")
    driver = "gelsy" if driver is None else driver
    if driver not in LSTSQ_DRIVERS:
        raise RuntimeError(f"{fn}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vector = B.dim() == A.dim() - 1
    Bm = B._shape + (1,) if vector else B._shape
    if len(Bm) < 2:
        raise RuntimeError(f"{fn}: other must have at least 1 dimension.")
    batch = _batch(A._shape[:-2], Bm[:-2])
    m, n = A._shape[-2:]
    if Bm[-2] != m:
        raise RuntimeError(f"{fn}: input.size(-2) should match other.size(-2)")
    return driver, vector, batch, m, n, Bm[-1]


def lstsq_shapes(A, B, driver):
    """The four result shapes: solution, residuals, rank, singular_values (before the
    residuals' rank condition, which needs values: see the CPU kernel)."""
    driver, vector, batch, m, n, k = lstsq_layout(A, B, driver)
    sol = batch + ((n,) if vector else (n, k))
    res = batch + (k,) if m > n and driver != "gelsy" else (0,)
    rank = batch if driver != "gels" else (0,)
    sv = batch + (min(m, n),) if driver in ("gelsd", "gelss") else (0,)
    return sol, res, rank, sv


def lstsq_solution_strides(sol_shape, vector, m, n):
    """torch's solution is a view of LAPACK's (max(m, n) x k) column-major buffer: its
    first n rows (and the vector case squeezes k)."""
    batch = sol_shape[:-1] if vector else sol_shape[:-2]
    k = 1 if vector else sol_shape[-1]
    s = colmajor_strides(batch + (max(m, n), k))
    return s[:-1] if vector else s


def linalg_lstsq(self, b, rcond, driver):
    sol, res, rank, sv = lstsq_shapes(self, b, driver)
    dt = self._dtype
    m, n = self._shape[-2:]
    vector = b.dim() == self.dim() - 1
    return (empty_meta(sol, dt, lstsq_solution_strides(sol, vector, m, n)),
            empty_meta(res, dt.to_real()), empty_meta(rank, D.int64),
            empty_meta(sv, dt.to_real()))


def lu_check(A, pivot, fn):
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A._shape)} instead")
    check_lapack_dtype(A, "lu_cpu")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def linalg_lu(A, pivot):
    lu_check(A, pivot, "linalg.lu")
    *batch, m, n = A._shape
    batch, k = tuple(batch), min(m, n)
    return (empty_meta(batch + (m, m), A._dtype), empty_meta(batch + (m, k), A._dtype),
            empty_meta(batch + (k, n), A._dtype))


def linalg_lu_factor_ex(A, pivot, check_errors):
    lu_check(A, pivot, "ember.lu_factor")
    *batch, m, n = A._shape
    batch = tuple(batch)
    return (empty_colmajor(A._shape, A._dtype), empty_meta(batch + (min(m, n),), D.int32),
            empty_meta(batch, D.int32))


def lu_unpack_check(LU_data, LU_pivots):
    if LU_pivots._dtype is not D.int32:
        raise RuntimeError("ember.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                           "ember.int32 dtype.\nNote: this function is intended to be used with "
                           "the output produced by ember.linalg.lu_factor")
    if LU_data.dim() < 2:
        raise RuntimeError("ember.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(LU_data._shape)} instead")


def lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots):
    lu_unpack_check(LU_data, LU_pivots)
    *batch, m, n = LU_data._shape
    batch, k, dt = tuple(batch), min(m, n), LU_data._dtype
    P = empty_meta(batch + (m, m) if unpack_pivots else (0,), dt)
    if not unpack_data:
        return P, empty_meta((0,), dt), empty_meta((0,), dt)
    return P, empty_meta(batch + (m, k), dt), empty_meta(batch + (k, n), dt)


def lu_solve_layout(LU, pivots, B, left):
    fn = "linalg.lu_solve"
    check_matrix(LU, fn, "LU")
    check_square(LU, fn, "LU")
    check_matrix(B, fn, "B")
    n = LU._shape[-1]
    if (B._shape[-2] if left else B._shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B._shape[-2]}x{B._shape[-1]})")
    if B._dtype is not LU._dtype:
        raise RuntimeError(f"{fn}: Expected LU and B to have the same dtype, but found LU of "
                           f"type {LU._dtype.scalar_name} and B of type {B._dtype.scalar_name} "
                           "instead")
    if pivots._dtype is not D.int32:
        raise RuntimeError(f"{fn}: pivots should be a Tensor of scalar type ember.int32")
    if pivots._shape[-1:] != (n,):
        raise RuntimeError(f"{fn}: Number of pivots per batch should be same as the dimension "
                           "of the matrix")
    check_lapack_dtype(LU, "lu_solve_cpu")
    return _batch(LU._shape[:-2], pivots._shape[:-1], B._shape[:-2]) + B._shape[-2:]


def linalg_lu_solve(LU, pivots, B, left, adjoint):
    return solve_result(lu_solve_layout(LU, pivots, B, left), B._dtype, left)


def solve_triangular_layout(A, B, left):
    fn = "linalg.solve_triangular"
    check_matrix(A, fn)
    check_square(A, fn)
    check_matrix(B, fn, "B")
    n = A._shape[-1]
    if (B._shape[-2] if left else B._shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B._shape[-2]}x{B._shape[-1]})")
    check_lapack_dtype(A, "triangular_solve_cpu")   # B is cast to A's dtype, as torch
    return _batch(A._shape[:-2], B._shape[:-2]) + B._shape[-2:]


def linalg_solve_triangular(self, B, upper, left, unitriangular):
    return empty_colmajor(solve_triangular_layout(self, B, left), self._dtype)


def householder_check(A, tau):
    fn = "ember.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    m, n = A._shape[-2:]
    if m < n:
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau.dim() == 0 or n < tau._shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if tau.dim() != A.dim() - 1 or tau._shape[:-1] != A._shape[:-2]:
        raise RuntimeError(f"{fn}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau._shape[:-1])}")
    if tau._dtype is not A._dtype:
        raise RuntimeError(f"{fn}: tau dtype {tau._dtype.scalar_name} does not match input "
                           f"dtype {A._dtype.scalar_name}")
    check_lapack_dtype(A, "orgqr_cpu")


def linalg_householder_product(input, tau):
    householder_check(input, tau)
    return empty_colmajor(input._shape, input._dtype)


def linalg_matrix_exp(self):
    check_floating(self, "linalg.matrix_exp")
    check_matrix(self, "linalg.matrix_exp")
    check_square(self, "linalg.matrix_exp")
    return empty_meta(self._shape, self._dtype)


def eig_check(A, fn):
    """torch's linalg.eig/eigvals checks: a complex counterpart of the dtype, square
    matrices, a LAPACK dtype."""
    if not (A._dtype.is_floating_point or A._dtype.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {A._dtype.scalar_name}")
    check_matrix(A, fn)
    check_square(A, fn)
    if A._dtype in _LOW:
        raise not_implemented_for("linalg_eig_out_cpu", A._dtype)
    return A._dtype.to_complex()


def linalg_eig(self):
    ct = eig_check(self, "linalg.eig")
    return empty_meta(self._shape[:-1], ct), empty_colmajor(self._shape, ct)


def linalg_eigvals_only(self):
    return empty_meta(self._shape[:-1], eig_check(self, "linalg.eigvals"))


def ldl_check(A):
    fn = "ember.linalg.ldl_factor_ex"
    check_matrix(A, fn)
    check_square(A, fn)
    check_floating(A, fn)
    check_lapack_dtype(A, "ldl_factor_kernel_cpu")


def linalg_ldl_factor_ex(self, hermitian, check_errors):
    ldl_check(self)
    return (empty_colmajor(self._shape, self._dtype), empty_meta(self._shape[:-1], D.int32),
            empty_meta(self._shape[:-2], D.int32))


def ldl_solve_layout(LD, pivots, B):
    """The result shape of linalg.ldl_solve, with torch's checks in its order."""
    fn = "ember.linalg.ldl_solve"
    check_matrix(LD, fn, "LD")
    check_square(LD, fn, "LD")
    if B.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(B.dim(), 1)}, "
                         f"{max(B.dim(), 1) - 1}], but got -2)")
    if pivots._shape != LD._shape[:-1]:
        raise RuntimeError(f"{fn}: Expected LD.shape[:-1] and pivots.shape to be the same, but got "
                           f"pivots with shape {list(pivots._shape)} instead")
    if pivots._dtype.is_floating_point or pivots._dtype.is_complex or pivots._dtype is D.bool_:
        raise RuntimeError(f"{fn}: Expected pivots to be integers. Got {pivots._dtype.scalar_name}")
    n = LD._shape[-1]
    if B._shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {fn}: each A matrix is {n} by {n} but "
                           f"each b matrix is {B._shape[-2]} by {B._shape[-1]}")
    if B._dtype is not LD._dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{B._dtype.scalar_name} and A of type {LD._dtype.scalar_name} instead.")
    check_lapack_dtype(LD, "ldl_solve_kernel_cpu")
    return _batch(LD._shape[:-2], B._shape[:-2]) + B._shape[-2:]


def linalg_ldl_solve(LD, pivots, B, hermitian):
    return empty_colmajor(ldl_solve_layout(LD, pivots, B), B._dtype)
