"""ember.linalg, torch.linalg's namespace: the generated bindings of the `linalg_*` ops of
schema/native_functions.yaml under their short names (`ember.linalg.solve` is aten
`linalg_solve`), and LinAlgError.

    >>> A = ember.tensor([[2., 0.], [0., 4.]])
    >>> ember.linalg.solve(A, ember.tensor([2., 4.]))
    tensor([1., 1.])
    >>> try:
    ...     ember.linalg.inv(ember.zeros(2, 2))
    ... except ember.linalg.LinAlgError as e:
    ...     print(e)
    linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the input matrix is singular.
"""
from ember._generated import functions as _F
from ember.kernels.common._errors import LinAlgError

cholesky = _F.linalg_cholesky
cholesky_ex = _F.linalg_cholesky_ex
cond = _F.linalg_cond
cross = _F.linalg_cross
det = _F.linalg_det
diagonal = _F.linalg_diagonal
eig = _F.linalg_eig
eigh = _F.linalg_eigh
eigvals = _F.linalg_eigvals
eigvalsh = _F.linalg_eigvalsh
householder_product = _F.linalg_householder_product
inv = _F.linalg_inv
inv_ex = _F.linalg_inv_ex
ldl_factor = _F.linalg_ldl_factor
ldl_factor_ex = _F.linalg_ldl_factor_ex
ldl_solve = _F.linalg_ldl_solve
lstsq = _F.linalg_lstsq
lu = _F.linalg_lu
lu_factor = _F.linalg_lu_factor
lu_factor_ex = _F.linalg_lu_factor_ex
lu_solve = _F.linalg_lu_solve
matmul = _F.linalg_matmul
matrix_exp = _F.linalg_matrix_exp
matrix_norm = _F.linalg_matrix_norm
matrix_power = _F.linalg_matrix_power
matrix_rank = _F.linalg_matrix_rank
multi_dot = _F.linalg_multi_dot
norm = _F.linalg_norm
pinv = _F.linalg_pinv
qr = _F.linalg_qr
slogdet = _F.linalg_slogdet
solve = _F.linalg_solve
solve_ex = _F.linalg_solve_ex
solve_triangular = _F.linalg_solve_triangular
svd = _F.linalg_svd
svdvals = _F.linalg_svdvals
tensorinv = _F.linalg_tensorinv
tensorsolve = _F.linalg_tensorsolve
vander = _F.linalg_vander
vecdot = _F.linalg_vecdot
vector_norm = _F.linalg_vector_norm

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig",
    "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor",
    "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
    "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm",
    "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals",
    "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm",
]
