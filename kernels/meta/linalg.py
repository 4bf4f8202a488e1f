"""mm, bmm, addmm on Meta tensors, and the argument checks (torch's order and messages)
the CPU kernels share. Results are contiguous.

    >>> ember.empty(2, 3, device="meta").mm(ember.empty(3, 4, device="meta")).shape
    ember.Size([2, 4])
"""
from ember.core import dtype as D
from ember.core.alloc import empty_meta

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


def check_addmm(self, mat1, mat2) -> tuple:
    """The (n, p) result shape of addmm; `self` must expand to it."""
    if self._dtype is not mat2._dtype:
        raise RuntimeError("self and mat2 must have the same dtype, but got "
                           f"{self._dtype.scalar_name} and {mat2._dtype.scalar_name}")
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError("mat1 and mat2 must have the same dtype, but got "
                           f"{mat1._dtype.scalar_name} and {mat2._dtype.scalar_name}")
    if mat1.dim() != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.dim()}-D tensor")
    if mat2.dim() != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.dim()}-D tensor")
    (n, k), (k2, p) = mat1._shape, mat2._shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{p})")
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
