"""Reductions on Meta tensors (shape, dtype, contiguous strides), and the shared rules
the CPU kernels reuse: which dims are reduced, the result dtype, empty-input errors.

    >>> ember.empty(2, 3, device="meta").sum(1, keepdim=True).shape
    ember.Size([2, 1])
"""
from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.core.shapes import reduced_shape, wrap_dims


def reduce_dims(shape, dim) -> tuple:
    """The wrapped dims an `int[1]?` argument names; None or [] mean every dim.

    >>> reduce_dims((2, 3), -1), reduce_dims((2, 3), None)
    ((1,), (0, 1))
    """
    if dim is None:
        return tuple(range(len(shape)))
    if isinstance(dim, (list, tuple)):
        if not dim:
            return tuple(range(len(shape)))
        return wrap_dims(dim, len(shape))
    return wrap_dims((dim,), len(shape))


def reduce_layout(self, dim, keepdim):
    """(NumPy axis tuple, output shape) of reducing `dim` (0-d inputs reduce nothing)."""
    shape = self._shape
    dims = reduce_dims(shape, dim)
    if not shape:
        return (), ()
    return dims, reduced_shape(shape, dims, keepdim)


def sum_dtype(self_dtype, dtype):
    """torch's rule: bool and integer sums give int64 unless a dtype is asked for."""
    if dtype is not None:
        return dtype
    return self_dtype if self_dtype.is_floating_point else D.int64


def mean_dtype(self_dtype, dtype):
    """mean needs a floating result dtype: the input's, or the one asked for."""
    if dtype is not None:
        if not dtype.is_floating_point:
            raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be "
                               f"either a floating point or complex dtype. Got: {dtype.scalar_name}")
        return dtype
    if not self_dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: {self_dtype.scalar_name}")
    return self_dtype


def check_amax(self, dim, dims, meta=False):
    """amax has no identity, so reducing an empty dim is an error (torch's messages; its
    Meta kernel raises a RuntimeError of its own)."""
    shape = self._shape
    if 0 in shape:
        if dim is None or (isinstance(dim, (list, tuple)) and not dim):
            raise RuntimeError("amax(): Expected reduction dim to be specified for input.numel() "
                               "== 0. Specify the reduction dim with the 'dim' argument.")
        for d in sorted(dims):
            if shape[d] == 0:
                if meta:
                    raise RuntimeError("reducing over zero-size dimension for reduction "
                                       "operation without identity")
                raise IndexError(f"amax(): Expected reduction dim {d} to have non-zero size.")


def argmax_layout(self, dim, keepdim, meta=False):
    """(wrapped dim or None, output shape) of argmax; torch's errors for bool and empty
    (an IndexError on CPU, a RuntimeError on torch's Meta for a dim-less empty input)."""
    if self._dtype is D.bool_:
        raise RuntimeError("argmax(): does not support bool input")
    shape = self._shape
    if dim is None:
        if 0 in shape:
            err = RuntimeError if meta else IndexError
            raise err("argmax(): Expected reduction dim to be specified for input.numel() == 0.")
        return None, (1,) * len(shape) if keepdim else ()
    d = wrap_dims((dim,), len(shape))[0]
    if not shape:
        return d, ()
    if shape[d] == 0:
        raise IndexError(f"argmax(): Expected reduction dim {d} to have non-zero size.")
    return d, reduced_shape(shape, (d,), keepdim)


# --- kernels -----------------------------------------------------------------------
def sum(self, dtype):
    """`x.sum()` on Meta: a 0-d tensor of the sum dtype."""
    return empty_meta((), sum_dtype(self._dtype, dtype))


def sum_dim(self, dim, keepdim, dtype):
    _, shape = reduce_layout(self, dim, keepdim)
    return empty_meta(shape, sum_dtype(self._dtype, dtype))


def mean(self, dtype):
    return empty_meta((), mean_dtype(self._dtype, dtype))


def mean_dim(self, dim, keepdim, dtype):
    dt = mean_dtype(self._dtype, dtype)
    _, shape = reduce_layout(self, dim, keepdim)
    return empty_meta(shape, dt)


def amax(self, dim, keepdim):
    dims, shape = reduce_layout(self, dim, keepdim)
    check_amax(self, dim, dims, meta=True)
    return empty_meta(shape, self._dtype)


def argmax(self, dim, keepdim):
    _, shape = argmax_layout(self, dim, keepdim, meta=True)
    return empty_meta(shape, D.int64)
