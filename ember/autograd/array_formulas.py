"""Backward formulas on NumPy arrays: the table codegen translates formulas with.

Each public function here stands for the ember op, Tensor method or formula helper of
the same name (ember/autograd/formulas/) and takes and returns NumPy arrays. A
derivatives.yaml formula whose calls all have an entry here gets a second, array-level
version in its generated Node (`_apply_array`), which the engine runs instead of the
ember-op version when nobody can observe the ops of the formula: no create_graph, no
dispatch or function mode, no profiler, no anomaly mode, no hooks on the node, plain CPU
tensors of the dtypes in `_DTYPES` (anything else raises `Fallback`, and the node runs
its ember-op formulas).

The numbers are the ember-op version's bit for bit: a function computes in NumPy only
in the cases where that is exactly what the op's CPU kernel does (`mm` of two float32
matrices, `sum` of a C-contiguous array, ...) and otherwise runs the op itself on the
arrays (`_op`/`_kernel`, through the dispatcher's entry). tests/autograd/
test_array_formulas.py runs every gradient sample both ways.

Backward ops with a CPU kernel of their own (threshold_backward, nll_loss_backward,
_log_softmax_backward_data, ...) have no entry: their dispatch costs less than wrapping
the arrays back into tensors for the kernel, so formulas calling them keep the ember ops.

A function decorated `@aliasing` may return (a view of) its input; a formula whose
outermost call is one keeps only its ember-op version, so that the gradient keeps the
ember view's identity and strides.

    >>> mm(np.ones((2, 3), np.float32), np.ones((3, 1), np.float32)).ravel()
    array([3., 3.], dtype=float32)
"""
from __future__ import annotations

import math as _math

import numpy as np

from ..core import dtype as D
from ..core.tensor import Tensor, contiguous_strides, from_array, make_view
from ..kernels.cpu._pointwise import quiet_call
from . import formulas as _H

ENABLED = True      # tests switch the array versions off to compare

_ndarray = np.ndarray
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# dtypes whose tensors enter the array versions (floats: gradients and values; the others:
# indices and masks that the formulas hand to kernels)
_DTYPES = frozenset({D.float32, D.float64, D.int64, D.int32, D.int16, D.int8, D.uint8, D.bool_})
_NUMBERS = (int, float, bool)


class Fallback(Exception):
    """Raised when an array version cannot run: the node runs its ember-op formulas."""


def aliasing(fn):
    """Marks a function whose result may be (a view of) an argument."""
    return fn


# --- in and out of the array world -------------------------------------------------------
def arr(t):
    """The array of a plain CPU tensor of a dtype in `_DTYPES` (None and Python numbers
    stay as they are); anything else raises Fallback."""
    if t.__class__ is Tensor:
        a = t._np
        if a.__class__ is _ndarray and t._dtype in _DTYPES:
            return a
        raise Fallback
    if t is None or t.__class__ in _NUMBERS:
        return t
    raise Fallback


def arrs(ts):
    return [arr(t) for t in ts]


def out(r, grads, *sources):
    """A formula's result as a tensor: the incoming gradient itself when the formula gave
    it back, else a new tensor owning the array. A view of a gradient or of a saved array
    raises Fallback (only the ember-op version gives it the view's identity)."""
    if r is None:
        return None
    if r.__class__ is not _ndarray:
        r = np.asarray(r)
    for g in grads:
        if g is not None and g._np is r:
            return g
    if r.base is not None:
        for g in grads:
            if g is not None and np.may_share_memory(r, g._np):
                raise Fallback
        for a in sources:
            if a.__class__ is _ndarray and np.may_share_memory(r, a):
                raise Fallback
    return from_array(r)


def _wrap(x):
    if x.__class__ is _ndarray:
        return from_array(x)
    # (a NumPy scalar: what a ufunc gives for 0-d arrays)
    return from_array(np.asarray(x)) if isinstance(x, np.generic) else x


def _op(fn, *args, **kwargs):
    """`fn` (an ember op or helper) on the arrays as tensors: its exact result."""
    return fn(*[_wrap(a) for a in args], **kwargs)._np


def _float(a) -> bool:
    return a.__class__ is _ndarray and a.dtype in _FLOATS


def _plain(a) -> bool:
    """A C-contiguous float32/float64 array (where NumPy's result layout is torch's)."""
    return a.__class__ is _ndarray and a.dtype in _FLOATS and a.flags.c_contiguous


# --- shape ops (intermediate values; as a formula's result, see `aliasing`) ----------------
@aliasing
def conj(a):
    return a if _float(a) else _op(Tensor.conj, a)


@aliasing
def conjugate(x):
    if x.__class__ in _NUMBERS:
        return x.conjugate()
    return conj(x)


@aliasing
def detach(a):
    return a


@aliasing
def t(a):
    return a.T if a.ndim == 2 else _op(Tensor.t, a)


@aliasing
def transpose(a, dim0, dim1):
    return np.swapaxes(a, dim0, dim1)


@aliasing
def reshape(a, *shape):
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = tuple(shape[0])
    if a.flags.c_contiguous:
        return a.reshape(shape)
    return _op(Tensor.reshape, a, shape)


def reshape_contiguous(grad, shape):
    """`grad.reshape(shape)` for a plain CPU gradient tensor laid out exactly contiguous
    (size-1 dims included): the view kernel's own view (make_view with contiguous strides
    and NumPy's reshape of the array), without the composite reshape and the dispatch;
    None for any other gradient (the caller takes the op). A tensor-level helper for the
    generated view nodes, not an array formula.

    >>> g = from_array(np.zeros((2, 3), np.float32))
    >>> v = reshape_contiguous(g, (6,))
    >>> v.shape, v._base is g
    (ember.Size([6]), True)
    """
    a = grad._np
    if a.__class__ is not _ndarray or not a.size or grad._dtype not in _DTYPES:
        return None
    if (grad._stride or grad.stride()) != contiguous_strides(grad._shape):
        return None
    shape = tuple(shape)
    if a.size != _math.prod(shape) or not all(n.__class__ is int for n in shape):
        return None
    return make_view(grad, shape, contiguous_strides(shape), grad._offset, arr=a.reshape(shape))


# --- arithmetic --------------------------------------------------------------------------
def _binary(fn, ember_fn):
    def apply(a, b):
        if _plain(a) and _plain(b) and a.dtype == b.dtype:
            return fn(a, b)
        return _op(ember_fn, a, b)
    return apply


# (the Tensor dunders are attached after this module loads: looked up at each call)
add = _binary(np.add, lambda a, b: a + b)
sub = _binary(np.subtract, lambda a, b: a - b)
mul = _binary(np.multiply, lambda a, b: a * b)


def neg(a):
    return np.negative(a) if _plain(a) else _op(Tensor.neg, a)


def _product(a, b, ndim, method):
    if _float(a) and _float(b) and a.dtype == b.dtype and a.ndim == ndim and b.ndim == ndim \
            and a.shape[-1] == b.shape[-2] and (ndim == 2 or a.shape[0] == b.shape[0]):
        # the CPU kernel's np.matmul into a fresh C-contiguous array (kernels/cpu/linalg.py)
        result = np.empty(a.shape[:-1] + b.shape[-1:], a.dtype)
        np.matmul(a, b, out=result)
        return result
    return _op(method, a, b)


def mm(a, b):
    return _product(a, b, 2, Tensor.mm)


def bmm(a, b):
    return _product(a, b, 3, Tensor.bmm)


def sum(a, dim=None, keepdim=False, *, dtype=None):
    """`x.sum()` / `x.sum(dim, keepdim)` like the CPU kernels' common cases."""
    if dtype is None and _float(a):
        if dim is None and not keepdim:
            return np.asarray(np.add.reduce(a, axis=None))
        if a.flags.c_contiguous and a.ndim and dim is not None:
            dims = (dim,) if isinstance(dim, int) else tuple(dim)
            axis = tuple(d % a.ndim for d in dims) if dims else tuple(range(a.ndim))
            return np.asarray(np.add.reduce(a, axis=axis, keepdims=keepdim))
    if dim is None:
        return _op(Tensor.sum, a, dtype=dtype)
    return _op(Tensor.sum, a, dim, keepdim, dtype=dtype)


def zeros_for(grad, shape, dtype):
    if dtype is D.float32 or dtype is D.float64:
        return np.zeros(tuple(shape), dtype.np)
    return _op(_H.zeros_for, grad, shape, dtype)


def _same_plain(a, b) -> bool:
    """Two C-contiguous float arrays of one shape and dtype (the pointwise kernels' result
    is then a fresh C-contiguous array computed in that dtype)."""
    return _plain(a) and _plain(b) and a.dtype == b.dtype and a.shape == b.shape


def sigmoid_backward(grad, output):
    """The CPU kernel's g * ((1 - y) * y) (kernels/cpu/activation.py)."""
    if _same_plain(grad, output):
        return quiet_call(_sigmoid_grad, grad, output)
    return _op(_ember_op("sigmoid_backward"), grad, output)


def _sigmoid_grad(g, y):
    return g * ((1 - y) * y)


def tanh_backward(grad, output):
    """The CPU kernel's g * (1 - y * y)."""
    if _same_plain(grad, output):
        return quiet_call(_tanh_grad, grad, output)
    return _op(_ember_op("tanh_backward"), grad, output)


def _tanh_grad(g, y):
    return g * (1 - y * y)


def _ember_op(name):
    import ember
    return getattr(ember, name)


def _index_into_zeros(grad, shape, dim, index):
    """Zeros of `shape` with grad written at `index` along dim (select's and slice's
    backward: new_zeros, then a copy into the view); None where the arrays cannot serve."""
    if not _float(grad) or not all(n.__class__ is int for n in shape):
        return None
    out = np.zeros(tuple(shape), grad.dtype)
    where = (slice(None),) * (dim % len(shape)) + (index,)
    if out[where].shape != grad.shape:      # (a 1-D select: a NumPy scalar, shape ())
        return None
    out[where] = grad
    return out


# --- formula helpers (ember/autograd/formulas/shape.py) ---------------------------------
def select_backward(grad, shape, dim, index):
    out = _index_into_zeros(grad, shape, dim, index) if index.__class__ is int else None
    return _op(_H.select_backward, grad, shape, dim, index) if out is None else out


def slice_backward(grad, shape, dim, start, end, step):
    plain = all(v is None or v.__class__ is int for v in (start, end)) and \
        step.__class__ is int and step > 0
    out = _index_into_zeros(grad, shape, dim, slice(start, end, step)) if plain else None
    return _op(_H.slice_backward, grad, shape, dim, start, end, step) if out is None else out


# --- formula helpers (ember/autograd/formulas/common.py) --------------------------------
def sum_to_size(grad, shape):
    gshape = grad.shape
    if gshape == shape:
        return grad
    if shape and len(gshape) == len(shape) + 1 and gshape[1:] == shape and _plain(grad):
        # a bias's gradient: the leading dim summed (what `sum(grad, [0])` computes)
        return np.add.reduce(grad, axis=0)
    shape = tuple(shape)
    dims, lead = _H.common.summed_dims(gshape, shape)
    if len(dims) == lead:
        return sum(grad, dims) if dims else grad
    grad = sum(grad, dims, keepdim=True)
    return reshape(grad, shape) if lead else grad


def grad_to_dtype(grad, dtype):
    if grad.dtype == dtype.np and not dtype.is_complex:
        return grad
    if (dtype is D.float32 or dtype is D.float64) and _plain(grad):
        # (float64 -> float32 overflows to inf silently, as in the copy kernel's cast)
        return quiet_call(grad.astype, dtype.np)
    return _op(_H.grad_to_dtype, grad, dtype)


def reduce_to(grad, shape, dtype):
    if grad.shape == shape and grad.dtype == dtype.np and not dtype.is_complex:
        return grad
    return grad_to_dtype(sum_to_size(grad, shape), dtype)


_F32_MAX = float(np.finfo(np.float32).max)


def scale(grad, s):
    """grad * s for a Python number: NumPy's product where it is the CPU kernel's (a float
    float32 holds, an int64 int; kernels/cpu/_pointwise.py's _scalar_fast)."""
    if _plain(grad) and ((s.__class__ is float and (grad.dtype == _FLOATS[1]
                                                    or -_F32_MAX <= s <= _F32_MAX))
                         or (s.__class__ is int and -2 ** 63 <= s < 2 ** 63)):
        return np.multiply(grad, s)
    return _op(_H.scale, grad, s)


def maybe_multiply(grad, alpha):
    return grad if alpha == 1 else scale(grad, alpha)


def mm_mat1_backward(grad, mat2, sizes, strides, alpha):
    alpha = conjugate(alpha)
    if _H.column_major(sizes, strides):
        return maybe_multiply(t(mm(conj(mat2), t(grad))), alpha)
    return maybe_multiply(mm(grad, conj(t(mat2))), alpha)


def mm_mat2_backward(grad, mat1, sizes, strides, alpha):
    alpha = conjugate(alpha)
    if _H.column_major(sizes, strides):
        return maybe_multiply(t(mm(t(grad), conj(mat1))), alpha)
    return maybe_multiply(mm(conj(t(mat1)), grad), alpha)


# --- list formulas: joining gradients (split's, unbind's backward) -----------------------
def _one_float_dtype(arrays, max_ndim) -> bool:
    """Float arrays of one dtype and one number of dims (1 to max_ndim, not 4: no
    channels-last layout for the kernels to choose)."""
    if not arrays or not _float(arrays[0]):
        return False
    first = arrays[0]
    ndim = first.ndim
    if not 1 <= ndim <= max_ndim or ndim == 4:
        return False
    return all(a.__class__ is _ndarray and a.dtype == first.dtype and a.ndim == ndim
               for a in arrays)


def _op_list(name, arrays, *args):
    """The ember op `name` on a list of arrays as tensors: its exact result."""
    return _ember_op(name)([_wrap(a) for a in arrays], *args)._np


def cat(tensors, dim=0):
    """The CPU cat kernel's np.concatenate (a contiguous result) for gradients of one float
    dtype whose sizes match outside `dim`; else the op (its checks and promotion)."""
    if _one_float_dtype(tensors, 8) and -tensors[0].ndim <= dim < tensors[0].ndim:
        d = dim % tensors[0].ndim
        shape = tensors[0].shape
        if all(a.shape[:d] == shape[:d] and a.shape[d + 1:] == shape[d + 1:] for a in tensors):
            return np.concatenate(tensors, axis=d)
    return _op_list("cat", tensors, dim)


def stack(tensors, dim=0):
    """The stack kernel's np.stack for gradients of one float dtype and shape, 1 or 2 dims
    (a contiguous result); else the op."""
    if _one_float_dtype(tensors, 2) and -tensors[0].ndim - 1 <= dim <= tensors[0].ndim:
        shape = tensors[0].shape
        if all(a.shape == shape for a in tensors):
            return np.stack(tensors, axis=dim % (len(shape) + 1))
    return _op_list("stack", tensors, dim)


# --- list formulas: slicing a gradient (cat's, stack's backward) --------------------------
# Their results are views of the gradient, as the ember ops' (narrow, select): `outs`
# makes each an ember view of the gradient tensor with the NumPy view's geometry.
class GradSlices(list):
    """Views (arrays) of the gradient array `source`, with each one's element offset into
    it: what `outs` makes ember views of the gradient tensor of."""

    __slots__ = ("offsets", "source")

    def __init__(self, source, views, offsets):
        super().__init__(views)
        self.source, self.offsets = source, offsets


def cat_tensors_backward(grad, sizes, dtypes, dim):
    """grad's slice along `dim` for each input (its narrow); other dtypes, legacy empty
    inputs or a non-float gradient: Fallback."""
    if not _float(grad):
        raise Fallback
    d = dim % grad.ndim
    lead = (slice(None),) * d
    step = grad.strides[d] // grad.itemsize
    views, offsets, start = [], [], 0
    for shape, dt in zip(sizes, dtypes):
        if dt.np != grad.dtype or shape == (0,):     # (a legacy empty input: new zeros)
            raise Fallback
        n = shape[d]
        views.append(grad[lead + (slice(start, start + n),)])
        offsets.append(start * step)
        start += n
    return GradSlices(grad, views, offsets)


def stack_tensors_backward(grad, dim, dtypes):
    """grad's index i along `dim` for input i (its select)."""
    if not _float(grad) or any(dt.np != grad.dtype for dt in dtypes):
        raise Fallback
    d = dim % grad.ndim
    lead = (slice(None),) * d
    step = grad.strides[d] // grad.itemsize
    n = len(dtypes)
    return GradSlices(grad, [grad[lead + (i, ...)] for i in range(n)],   # (0-d views, no scalars)
                      [i * step for i in range(n)])


def outs(rs, grads, *sources):
    """`out` for each result of a list formula; the slices of an incoming gradient become
    the same views of that gradient tensor (what the ember ops' narrow/select give)."""
    if rs.__class__ is GradSlices:
        g = next((g for g in grads if g is not None and g._np is rs.source), None)
        if g is not None:
            item = rs.source.itemsize
            return [make_view(g, r.shape, tuple(st // item for st in r.strides),
                              g._offset + off, arr=r) for r, off in zip(rs, rs.offsets)]
    return [out(r, grads, *sources) for r in rs]
