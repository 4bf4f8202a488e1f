"""ember.linalg, torch.linalg's namespace: the generated bindings of the `linalg_*` ops of
schema/native_functions.yaml under their short names (`ember.linalg.solve` is aten
`linalg_solve`), and LinAlgError.

    >>> A = ember.tensor([[2., 0.], [0., 4.]])
    >>> ember.linalg.solve(A, ember.tensor([2., 4.]))
    tensor([1., 1.])
    >>> ember.linalg.inv(ember.zeros(2, 2))
    Traceback (most recent call last):
    ember.linalg.LinAlgError: linalg.inv: The diagonal element 1 is zero, ...
"""
from ember._generated import functions as _F
from ember.kernels.common._errors import LinAlgError

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cross", "det", "diagonal", "eigh", "eigvalsh",
    "householder_product", "inv", "inv_ex", "lstsq", "lu", "lu_factor", "lu_factor_ex",
    "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank",
    "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular",
    "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm",
]


def _bind():
    g = globals()
    for name in __all__[1:]:
        g[name] = getattr(_F, "linalg_" + name)


_bind()
