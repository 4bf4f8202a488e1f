"""What every family's formulas share: `forward_value`, values computed at forward time,
and shape helpers (reducing a broadcast gradient back to an input's shape, ...)."""
from __future__ import annotations

import ember


def mul_number(x, number):
    """x * number as torch's C++ formulas compute `number * x`: aten.mul.Scalar for a
    tensor x (the generated formulas call this for a number literal operand).

    >>> mul_number(ember.tensor([1.5]), 2).tolist(), mul_number(3, 2)
    ([3.0], 6)
    """
    if isinstance(x, ember.Tensor):
        return ember.ops.aten.mul.Scalar(x, number)
    return x * number


def div_number(x, number):
    """x / number as torch's C++ formulas compute it: aten.div.Scalar for a tensor x."""
    if isinstance(x, ember.Tensor):
        return ember.ops.aten.div.Scalar(x, number)
    return x / number


def forward_value(fn):
    """Marks a helper whose call on inputs is computed at forward time and saved."""
    fn.forward_value = True
    return fn


@forward_value
def to_args_sizes(tensors):
    """The shapes of a tensor list (what `cat`'s backward needs, not the tensors), as
    tuples (the raw `_shape`, as `self.shape` is saved)."""
    return [t._shape for t in tensors]


@forward_value
def to_args_dtypes(tensors):
    """The dtypes of a tensor list."""
    return [t.dtype for t in tensors]


def summed_dims(gshape, shape) -> tuple[list, int]:
    """(dims, lead): the dims of a gradient of shape `gshape` that sum_to_size sums to
    reach `shape` (the leading ones first), and how many leading dims there are."""
    lead = len(gshape) - len(shape)
    dims = list(range(lead))
    for i, n in enumerate(shape):
        if n == 1 and gshape[lead + i] != 1:
            dims.append(lead + i)
    return dims, lead


def sum_to_size(grad, shape):
    """Sums a broadcast gradient back to `shape` (the inverse of broadcasting).

    >>> sum_to_size(ember.ones(4, 2, 3), (2, 1)).shape
    ember.Size([2, 1])
    """
    gshape = grad._shape
    if gshape == shape:
        return grad
    shape = tuple(shape)
    dims, lead = summed_dims(gshape, shape)
    if len(dims) == lead:
        # only leading dims to remove (a bias gradient): one sum, no view
        return grad.sum(dims) if dims else grad
    grad = grad.sum(dims, keepdim=True)
    if lead:
        grad = grad.view(shape)
    return grad


def unsqueeze_to(grad, dims, ndim):
    """Re-inserts the reduced `dims` (as size-1 dims) of a `keepdim=False` reduction."""
    if ndim == 0:
        return grad
    dims = [dims] if isinstance(dims, int) else list(dims or range(ndim))
    for d in sorted(d % ndim for d in dims):
        grad = grad.unsqueeze(d)
    return grad


def expand_grad(grad, shape, dims=None, keepdim=True):
    """The gradient of a sum over `dims`: broadcast `grad` back to the input `shape`."""
    if not keepdim:
        grad = unsqueeze_to(grad, dims, len(shape))
    return grad.expand(shape)


def reduced_count(shape, dims):
    """How many input elements fed each output element of a reduction over `dims`."""
    if isinstance(dims, int):
        dims = (dims,)
    if dims is None or len(dims) == 0:
        dims = range(len(shape))
    n = 1
    for d in dims:
        n *= shape[d % len(shape)] if shape else 1
    return n


def grad_to_dtype(grad, dtype):
    """Casts a gradient back to an input's dtype (ops with `dtype=` or type promotion); a
    real input takes the real part of a complex gradient (torch's handle_r_to_c)."""
    if grad._dtype is dtype:
        return grad
    if grad._dtype.is_complex and not dtype.is_complex:
        grad = ember.real(grad)
    return grad.to(dtype)


def reduce_to(grad, shape, dtype):
    """A broadcast, type-promoted gradient back to an input's shape and dtype.

    >>> reduce_to(ember.ones(2, 3, dtype=ember.float64), (3,), ember.float32)
    tensor([2., 2., 2.])
    """
    if grad._shape == shape and grad._dtype is dtype:    # the common case: nothing to do
        return grad
    return grad_to_dtype(sum_to_size(grad, shape), dtype)


def scalar_value(x):
    """A Python number from a Scalar argument (formulas multiply by it)."""
    return x.item() if isinstance(x, ember.Tensor) else x


def conj(x):
    """`x.conj()` as torch's C++ formulas call it: for a real tensor the tensor itself, no
    op dispatched (torch's inline Tensor::conj); the conjugate view for a complex one.

    >>> t = ember.ones(2)
    >>> conj(t) is t
    True
    """
    return x.conj() if x._dtype.is_complex else x


def conjugate(x):
    """The complex conjugate of a tensor or of a Python number (a wrapped operand)."""
    return conj(x) if isinstance(x, ember.Tensor) else x.conjugate()


def scale(grad, s):
    """grad * s for a Python number `s` (mul.Scalar: keeps grad's dtype)."""
    return ember.ops.aten.mul.Scalar(grad, scalar_value(s))


def maybe_multiply(grad, alpha):
    """grad * alpha, skipping the multiply when alpha is 1."""
    return grad if alpha == 1 else scale(grad, alpha)


def grad_where(mask, grad):
    """grad where `mask`, else 0 (broadcast to both shapes; NaN grads stay out of the zeros)."""
    return ember.where(mask, grad, grad.new_zeros(()))


def zero_where(mask, grad):
    """0 where `mask`, else grad."""
    return ember.where(mask, grad.new_zeros(()), grad)


def zeros_for(grad, shape, dtype):
    """A zero gradient for an input of `shape` and `dtype` (no dependence on grad)."""
    return grad.new_zeros(tuple(shape), dtype=dtype)


def to_copy_backward(grad, dtype, device):
    """_to_copy's gradient: grad back to the input's dtype and device."""
    if grad.dtype == dtype and grad.device == device:
        return grad
    return grad.to(device=device, dtype=dtype)
