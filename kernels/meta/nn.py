"""Meta kernels and shared argument checks of the nn family (issue 4): dot, mv,
baddbmm, softmax, normalisation and loss ops. The CPU kernels (kernels/cpu/nn.py) call
the same checks, so both backends raise alike and give the same layouts.

    >>> dot(empty_meta((3,), float32), empty_meta((3,), float32)).shape
    ember.Size([])
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.core.shapes import wrap_dim

from .linalg import CPP_NAMES, _check_expands


# --------------------------------------------------------------------------- linear algebra
def check_dot(self, tensor):
    if self.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {tensor.dim()}D "
                           "tensors")
    if self._dtype is not tensor._dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{self._dtype.scalar_name} and {tensor._dtype.scalar_name}")
    n, m = self._shape[0], tensor._shape[0]
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to "
                           f"have the same number of elements, but got {n} and {m} elements "
                           "respectively")


def check_mv(self, vec):
    if self.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.dim()}, "
                           f"{vec.dim()}")
    n, k = self._shape
    if vec._shape[0] != k:
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({vec._shape[0]})")
    if self._dtype is not vec._dtype:
        v, m = vec._dtype.scalar_name, self._dtype.scalar_name
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {v}, {m}, "
                           f"and {v}")
    return (n,)


def check_baddbmm(self, batch1, batch2, inplace=False):
    """The (b, n, p) shape of baddbmm, with torch's checks in its order."""
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    shape = (batch1._shape[0], batch1._shape[1], batch2._shape[2])
    if inplace:
        if tuple(self._shape) != shape:
            raise RuntimeError(f"Bad in-place call: input tensor size {list(self._shape)} and "
                               f"output tensor size {list(shape)} should match")
    else:
        _check_expands(self._shape, shape, self._dtype)
    if batch1._dtype is not batch2._dtype:
        raise RuntimeError(f"expected scalar type {batch1._dtype.scalar_name} but found "
                           f"{batch2._dtype.scalar_name}")
    if self._dtype is not batch1._dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {CPP_NAMES[self._dtype]}, "
                           f"batch1: {CPP_NAMES[batch1._dtype]}, batch2: "
                           f"{CPP_NAMES[batch2._dtype]}")
    (b, _, k), (b2, k2, _) = batch1._shape, batch2._shape
    if (b2, k2) != (b, k):
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {k}] but got: [{b2}, {k2}].")
    return shape


def dot(self, tensor):
    check_dot(self, tensor)
    return empty_meta((), self._dtype)


def mv(self, vec):
    return empty_meta(check_mv(self, vec), self._dtype)


def baddbmm(self, batch1, batch2, beta, alpha):
    return empty_meta(check_baddbmm(self, batch1, batch2), self._dtype)


def baddbmm_(self, batch1, batch2, beta, alpha):
    check_baddbmm(self, batch1, batch2, inplace=True)
    return self


# --------------------------------------------------------------------------- softmax
def check_softmax(self, dim, half_to_float):
    """The wrapped dim; half_to_float has no CPU kernel (torch's check)."""
    d = wrap_dim(dim, self.dim())
    if half_to_float:
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")
    return d


def softmax_kernel_name(kind, self, d):
    """torch's kernel name in the "not implemented for" error (lastdim or not)."""
    last = self.dim() == 0 or d == self.dim() - 1
    return f"{kind}_lastdim_kernel_impl" if last else f"{kind}_kernel_impl"


def check_softmax_backward(grad_output, output, dim, input_dtype):
    """The wrapped dim; grad and output must agree in shape and dtype."""
    if tuple(grad_output._shape) != tuple(output._shape):
        raise RuntimeError("Expected tensor for argument #1 'grad' to have same size as tensor "
                           f"for argument #2 'output'; but {list(grad_output._shape)} does not "
                           f"equal {list(output._shape)} (while checking arguments for "
                           "softmax_backward)")
    d = wrap_dim(dim, grad_output.dim())
    if input_dtype is D.float16 and grad_output._dtype is D.float32:
        raise RuntimeError("expected scalar type Float but found Half")
    if output._dtype is not grad_output._dtype:
        raise RuntimeError(f"expected scalar type {grad_output._dtype.scalar_name} but found "
                           f"{output._dtype.scalar_name}")
    return d


def softmax_forward(self, dim, half_to_float):
    check_softmax(self, dim, half_to_float)
    return empty_meta(self._shape, self._dtype)


def log_softmax_forward(self, dim, half_to_float):
    check_softmax(self, dim, half_to_float)
    if self._dtype is D.bool_:   # torch's Meta kernel subtracts the max
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    return empty_meta(self._shape, self._dtype)


def softmax_backward_data(grad_output, output, dim, input_dtype):
    check_softmax_backward(grad_output, output, dim, input_dtype)
    return empty_meta(grad_output._shape, grad_output._dtype)
