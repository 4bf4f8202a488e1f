"""mm, bmm, addmm on CPU tensors: np.matmul on the ready arrays (BLAS for float32/64,
NumPy's own loops for integers), written into a fresh contiguous result. float16 and
bfloat16 are multiplied in float32 and rounded once at the end; bool is rejected like
torch's CPU kernels.

    >>> ember.ones(2, 3).mm(ember.ones(3, 4)).shape
    ember.Size([2, 4])
"""
import numpy as np

from ember.core import dtype as D
from ember.core.tensor import Tensor, from_array
from ember.kernels.common import _pointwise as P
from ember.kernels.common._errors import not_implemented_for

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
    shape = _meta.check_addmm(self, mat1, mat2)
    dt = mat2._dtype
    return _finish(_scaled_product(self, mat1, mat2, beta, alpha, shape, dt, "addmm_impl_cpu_"), dt)


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
