"""Products, norms and small Tensor utilities torch decomposes into other ops: kron, inner,
vdot, tensordot, dist, addmv, addr, addbmm, type_as, sum_to_size, fill_diagonal_, isreal
(autograd comes from the ops they call); renorm (CompositeExplicitAutograd: torch's
renorm_backward, schema/derivatives.yaml).

    >>> ember.kron(ember.eye(2), ember.ones(1, 2))
    tensor([[1., 1., 0., 0.],
            [0., 0., 1., 1.]])
"""
import math

import ember
from ember._generated import ops as _ops
from ember.core.factory_args import checked_scalar
from ember.core.outputs import check_cast
from ember.core.shapes import wrap_dim
from ember.dispatch.registration import CHECKS_BEFORE_OVERLAP
from ember.kernels.common._pointwise import opmath_dtype
from ember.kernels.composite import with_zero_grad_of
from ember.kernels.meta.linalg import check_addmm_dtypes


def kron(self, other):
    """Every self[i] * other block: both padded to one rank, multiplied with interleaved
    dims (a_0, 1, a_1, 1, ...) * (1, b_0, 1, b_1, ...), then each pair merged."""
    n = max(self.dim(), other.dim())
    sa = (1,) * (n - self.dim()) + tuple(self.shape)
    sb = (1,) * (n - other.dim()) + tuple(other.shape)
    a = _unsafe_view_or_copy(self, [s for d in sa for s in (d, 1)])
    b = _unsafe_view_or_copy(other, [s for d in sb for s in (1, d)])
    return _unsafe_view_or_copy(a * b, [x * y for x, y in zip(sa, sb)])


def _unsafe_view_or_copy(t, shape):
    """torch's _unsafe_view (kron's graph: UnsafeViewBackward0); where the view algorithm
    refuses the layout (the product of a transposed matrix keeps its layout), which makes
    torch's kron raise, a reshaped copy."""
    try:
        return _ops._entry__unsafe_view(t, shape)
    except RuntimeError:
        return t.reshape(shape)


def inner(self, other):
    if self.dim() == 0 or other.dim() == 0:
        return self * other
    if self.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(self.shape)} and {list(other.shape)}")
    return ember.tensordot(self, other, dims=([-1], [-1]))


def vdot(self, other):
    if self.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors")
    return ember.dot(self.conj(), other)


def tensordot(self, other, dims_self, dims_other):
    """Contracts dims_self of self with dims_other of other (a reshape to one matmul)."""
    if len(dims_self) != len(dims_other):
        raise RuntimeError("both dimension lists should have same length")
    ds = [wrap_dim(d, self.dim()) for d in dims_self]
    do = [wrap_dim(d, other.dim()) for d in dims_other]
    for a, b in zip(ds, do):
        if self.shape[a] != other.shape[b] and 1 not in (self.shape[a], other.shape[b]):
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{self.shape[a]} in dim {a} and second has size {other.shape[b]} "
                               f"in dim {b}")
    free_s = [d for d in range(self.dim()) if d not in ds]
    free_o = [d for d in range(other.dim()) if d not in do]
    size = 1
    for a, b in zip(ds, do):
        size *= max(self.shape[a], other.shape[b])
    a = self.permute(free_s + ds)
    b = other.permute(do + free_o)
    a = a.expand([a.shape[i] for i in range(len(free_s))]
                 + [max(self.shape[x], other.shape[y]) for x, y in zip(ds, do)])
    b = b.expand([max(self.shape[x], other.shape[y]) for x, y in zip(ds, do)]
                 + [b.shape[len(do) + i] for i in range(len(free_o))])
    out_shape = [self.shape[d] for d in free_s] + [other.shape[d] for d in free_o]
    rows = math.prod(self.shape[d] for d in free_s)
    cols = math.prod(other.shape[d] for d in free_o)
    return ember.mm(a.reshape(rows, size), b.reshape(size, cols)).reshape(out_shape)


def python_tensordot(a, b, dims=2, out=None):
    """`ember.tensordot(a, b, dims)` (torch.functional.tensordot): dims is an int (the last
    dims of a with the first of b), a pair of lists, or a 2-row tensor."""
    if isinstance(dims, ember.Tensor):
        dims = dims.tolist() if dims.dim() else dims.item()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if out is None:
        return ember.ops.aten.tensordot.default(a, b, dims_a, dims_b)
    return ember.ops.aten.tensordot.out(a, b, dims_a, dims_b, out=out)


def dist(self, other, p=2):
    return ember.ops.aten.norm.Scalar(self - other, p)


def renorm(self, p, dim, maxnorm):
    """Each slice along `dim` with a p-norm above maxnorm scaled down to maxnorm."""
    if isinstance(p, complex):
        raise RuntimeError("renorm: p must be real-valued")  # noqa: TRY004 (torch's type)
    if not p > 0:         # (NaN fails these checks too, as torch's)
        raise RuntimeError("renorm: non-positive-norm not supported")
    if isinstance(maxnorm, complex):
        raise RuntimeError("renorm: maxnorm must be real-valued")  # noqa: TRY004
    if not maxnorm >= 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if self.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {self.dim()} dimensions")
    dim = wrap_dim(dim, self.dim())
    others = [d for d in range(self.dim()) if d != dim]
    # float16/bfloat16: the norms, maxnorm and the factors in float32 (torch's accumulation
    # type: a norm beyond float16's range scales by 0, maxnorm=70000 is no inf)
    acc = {"dtype": ember.float32} if self.dtype in (ember.float16, ember.bfloat16) else {}
    norm = ember.linalg.vector_norm(self, p, others, keepdim=True, **acc)
    factor = ember.where(norm > maxnorm, maxnorm / (norm + 1e-7), ember.ones_like(norm))
    # (torch rounds the factors to self's dtype; its result is contiguous, whatever self's
    # layout: a structured op's output)
    return (self * factor.to(self.dtype)).contiguous()


def _scaled(x, factor):
    return x if factor == 1 else x * factor


def _check_addr_factor(dt, value, name):
    """torch's check_addr_scalar: a bool factor only for bool results, a float (or complex)
    one only for floating or complex results."""
    if isinstance(value, bool) and dt != ember.bool:
        raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
    if isinstance(value, (float, complex)) and not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a "
                           "floating point number.")


def _add_scaled(self, product, beta, alpha, shape_error, factor_dtype=None, strict=False):
    """beta * self + alpha * product, with self broadcast to the product (beta=0 ignores
    self, NaNs included, as torch's BLAS calls do). The factors take torch's checked
    conversion to `factor_dtype` (default: the result's; integers truncate 0.5 to 0, 300
    overflows int8); `strict` (addr's): a bool factor only for bool results, a float one
    only for floating ones. Bool inputs read the factors as truth values (torch's)."""
    try:
        shape = tuple(ember.broadcast_shapes(self.shape, product.shape))
    except RuntimeError:
        raise RuntimeError(shape_error) from None
    if shape != tuple(product.shape):
        raise RuntimeError(shape_error)
    dt = ember.result_type(self, product)
    if strict:
        _check_addr_factor(dt, beta, "beta")
        _check_addr_factor(dt, alpha, "alpha")
    beta, alpha = (checked_scalar(v, factor_dtype or dt) for v in (beta, alpha))
    if dt == ember.bool:
        product = product if alpha else ember.zeros_like(product, dtype=dt)
        return product.logical_or(self) if beta else product + ember.zeros_like(self, dtype=dt)
    product = _scaled(product, alpha)
    if beta == 0:   # self's values take no part, but self keeps its (zero) gradient
        return with_zero_grad_of(product, self).to(dt)
    return _scaled(self, beta) + product


def addmv(self, mat, vec, beta=1, alpha=1):
    """beta * self + alpha * (mat @ vec), torch's checks in its order (self of one
    element broadcasts)."""
    if mat.dim() != 2 or vec.dim() != 1 or self.dim() > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.dim()}, {mat.dim()}, "
                           f"{vec.dim()}")
    if mat.shape[1] != vec.shape[0] or (mat.shape[0] != self.numel() and self.numel() != 1):
        raise RuntimeError(f"size mismatch, got input ({self.size(0)}), mat "
                           f"({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    # (self now broadcasts to the product: _add_scaled's shape error cannot happen)
    if not self.dtype == mat.dtype == vec.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{self.dtype.scalar_name}, {mat.dtype.scalar_name}, and "
                           f"{vec.dtype.scalar_name}")
    return _add_scaled(self, ember.mv(mat, vec), beta, alpha, None)


def _into(self, result):
    """An in-place composite's end: torch's out= cast check, then the copy."""
    check_cast(result.dtype, self.dtype)
    return self.copy_(result)


def addmv_(self, mat, vec, beta=1, alpha=1):
    return _into(self, addmv(self, mat, vec, beta, alpha))


def addr(self, vec1, vec2, beta=1, alpha=1):
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D"
                           if vec1.dim() != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    err = (f"The size of tensor a ({self.shape[-1] if self.dim() else 1}) must match the size "
           f"of tensor b ({vec2.shape[0]}) at non-singleton dimension 1")
    return _add_scaled(self, ember.outer(vec1, vec2), beta, alpha, err, strict=True)


def check_addr_inplace(self, vec1, vec2):
    """torch's addr_ checks, made before its overlap check: 1-D vectors and a 2-D self of
    their outer product's shape (in place, self is not broadcast)."""
    for name, vec in (("vec1", vec1), ("vec2", vec2)):
        if vec.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vec.dim()}-D")
    if self.dim() != 2:
        raise RuntimeError(f"2D tensor expected, got {self.dim()}D tensor for input")
    if tuple(self.shape) != (vec1.shape[0], vec2.shape[0]):
        raise RuntimeError(f"size mismatch, input: {list(self.shape)}, v1: {list(vec1.shape)}, "
                           f"v2: {list(vec2.shape)}")


CHECKS_BEFORE_OVERLAP["addr_"] = lambda args: check_addr_inplace(*args[:3])


def addr_(self, vec1, vec2, beta=1, alpha=1):
    check_addr_inplace(self, vec1, vec2)
    return _into(self, addr(self, vec1, vec2, beta, alpha))


def addbmm(self, batch1, batch2, beta=1, alpha=1):
    batch1.size(1), batch2.size(2)  # (torch reads these first: IndexError for fewer dims)
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    err = (f"The expanded size of the tensor ({batch2.shape[2]}) must match the existing size "
           f"({self.shape[-1] if self.dim() else 1}) at non-singleton dimension 1.  Target sizes: "
           f"[{batch1.shape[1]}, {batch2.shape[2]}].  Tensor sizes: {list(self.shape)}")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError("batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                           f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")
    check_addmm_dtypes(self, batch1, batch2)
    b, n, k = batch1.shape
    # sum_b batch1[b] @ batch2[b] as one matmul: one accumulation, one rounding (torch's)
    product = ember.mm(batch1.permute(1, 0, 2).reshape(n, b * k),
                       batch2.reshape(b * k, batch2.shape[2]))
    # (torch's addbmm runs addmm_, which reads the factors in the opmath type: float16's
    # beta=70000 is inf, not an overflow)
    return _add_scaled(self, product, beta, alpha, err, opmath_dtype(product.dtype))


def addbmm_(self, batch1, batch2, beta=1, alpha=1):
    return _into(self, addbmm(self, batch1, batch2, beta, alpha))


def type_as(self, other):
    return self.to(other.dtype)


def sum_to_size(self, size):
    """Sums self down to `size` (which self's shape must expand from); size [] is the full
    sum, as torch's sum_to (a bool or integer self gives int64)."""
    size = list(size)
    if not _expandable(size, list(self.shape)):
        raise RuntimeError(f"size {{{size}}} is not expandable to size {{{list(self.shape)}}}.")
    if not size:
        return self.sum()
    lead = self.dim() - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size)
                                if s == 1 and self.shape[lead + i] != 1]
    r = self.sum(dims, keepdim=True) if dims else self
    return r.reshape(size) if lead else r


def _expandable(size, shape):
    if len(size) > len(shape):
        return False
    return all(s in (1, t) for s, t in zip(reversed(size), reversed(shape)))


def fill_diagonal_(self, fill_value, wrap=False):
    """Writes fill_value on the main diagonal (every dim equal; a tall 2-D matrix restarts
    the diagonal every n + 1 rows with wrap=True, as NumPy's fill_diagonal)."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    h, w = self.shape[0], self.shape[1]
    numel = (h * w + w) // (w + 1) if wrap and self.dim() == 2 and h > w else min(self.shape)
    stride = sum(self.stride())
    diag = self.as_strided([numel], [stride], self.storage_offset())
    diag.fill_(fill_value)
    return self


def isreal(self):
    if not self.dtype.is_complex:
        return ember.ones_like(self, dtype=ember.bool)
    return self.imag == 0
