"""torch.masked on strided tensors: reductions and normalizations that see only the elements
where the boolean `mask` (broadcastable to the input) is True. As torch/masked/_ops.py, the
masked-out elements are replaced by the operation's identity (0 for sum, 1 for prod, -inf
for amax, ...) and the plain ember op runs, so autograd flows through those ops; fully
masked slices give the identity, or nan for mean/var/std.

    >>> x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> ember.masked.sum(x, 1, mask=ember.tensor([[True, False], [False, False]]))
    tensor([1., 0.])
"""
from __future__ import annotations

import math

import ember

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp",
           "logsumexp", "mean", "median", "norm", "normalize", "prod", "softmax", "softmin", "std", "sum",
           "var"]

_SMALL_INTS = ("uint8", "bool", "int8", "int16", "int32")


def _reduction_identity(op: str, input, *args):
    """The value that leaves `op`'s reduction unchanged, as a 0-d tensor of input's dtype
    (None where torch defines none: mean, var, std)."""
    dt = input.dtype
    if op in ("sum", "cumsum"):
        value = 0
    elif op in ("prod", "cumprod"):
        value = 1
    elif op in ("amax", "argmax", "logaddexp", "logsumexp", "amin", "argmin"):
        low = op not in ("amin", "argmin")
        if dt.is_floating_point:
            value = -math.inf if low else math.inf
        elif dt.is_signed or dt == ember.uint8:
            info = ember.iinfo(dt)
            value = info.min if low else info.max
        else:
            raise NotImplementedError(f"identity of {op} on {dt} input")
    elif op == "median":
        dt = dt if dt.is_floating_point else ember.float32
        value = math.nan
    elif op == "norm":
        ord = args[0] if args else 2
        value = math.inf if ord == -math.inf else 0
    else:
        return None
    return ember.tensor(value, dtype=dt, device=input.device)


def _canonical_dim(dim, ndim: int) -> tuple:
    """dim as a sorted tuple of non-negative dims (None and () mean all), torch's errors."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-ndim}, {ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _input_mask(input, mask):
    """The mask broadcast to input's shape, as bool."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if tuple(mask.shape) != tuple(input.shape):
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                             "higher than of the input)")
        mask = ember.broadcast_to(mask.clone(), input.shape)
    return mask.to(dtype=ember.bool)


def _combine_input_and_mask(op: str, input, mask, *args):
    """input with its masked-out elements replaced by op's identity."""
    if mask is None:
        return input
    return ember.where(_input_mask(input, mask), input, _reduction_identity(op, input, *args))


def _sum_dtype(input, dtype):
    if dtype is not None:
        return dtype
    return ember.int64 if input.dtype.name in _SMALL_INTS else input.dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Sum of the masked-in elements (0 where none)."""
    dtype = _sum_dtype(input, dtype)
    dim_ = _canonical_dim(dim, input.ndim)
    return ember.sum(_combine_input_and_mask("sum", input, mask), dim_, bool(keepdim),
                     dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Product of the masked-in elements (1 where none)."""
    dtype = _sum_dtype(input, dtype)
    result = _combine_input_and_mask("prod", input, mask).to(dtype=dtype)
    for d in reversed(_canonical_dim(dim, input.ndim)):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def _scan(op, identity, input, dim, dtype, mask):
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.ndim)[0]
    return op(_combine_input_and_mask(identity, input, mask), dim_, dtype=dtype).to(dtype=dtype)


def cumsum(input, dim, *, dtype=None, mask=None):
    """Cumulative sum along dim, masked-out elements counting as 0."""
    return _scan(ember.cumsum, "sum", input, dim, dtype, mask)


def cumprod(input, dim, *, dtype=None, mask=None):
    """Cumulative product along dim, masked-out elements counting as 1."""
    return _scan(ember.cumprod, "prod", input, dim, dtype, mask)


def _extreme(op):
    def reduce(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        dtype = input.dtype if dtype is None else dtype
        masked = _combine_input_and_mask(op, input, mask)
        dim_ = _canonical_dim(dim, masked.ndim)
        return getattr(ember, op)(masked, dim_, bool(keepdim)).to(dtype=dtype)
    reduce.__name__ = reduce.__qualname__ = op
    reduce.__doc__ = f"{op} of the masked-in elements (the dtype's {op} identity where none)."
    return reduce


def _arg(op):
    def reduce(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        dtype = input.dtype if dtype is None else dtype
        masked = _combine_input_and_mask(op, input, mask)
        return getattr(ember, op)(masked, dim, bool(keepdim)).to(dtype=dtype)
    reduce.__name__ = reduce.__qualname__ = op
    reduce.__doc__ = f"{op} over the masked-in elements, converted to dtype (input's)."
    return reduce


amax = _extreme("amax")
amin = _extreme("amin")
argmax = _arg("argmax")
argmin = _arg("argmin")


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Mean of the masked-in elements (nan where none); dtype must be floating or complex."""
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either "
                         f"a floating point or complex dtype. Got: {dtype}")
    inmask = _full_mask(input, mask)
    count = inmask.sum(dim=_dims_or_none(dim), keepdim=bool(keepdim))
    return sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask) / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """nanmedian of the masked-in elements along dim (nan where none; integer inputs with a
    fully masked slice raise)."""
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=ember.float32)
    output = ember.nanmedian(_combine_input_and_mask("median", input, mask), dim_,
                             keepdim).values
    if is_float:
        return output
    if ember.isnan(output).any():
        raise ValueError("masked median expects no fully masked out rows if dtype is not "
                         "floating point")
    return output.to(dtype=dtype)


def _full_mask(input, mask):
    """The canonical mask, all True without one."""
    if mask is None:
        return ember.ones(input.shape, dtype=ember.bool, device=input.device)
    return _input_mask(input, mask)


def _dims_or_none(dim):
    return None if dim is None or dim == () else dim


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """log(sum(exp)) of the masked-in elements (-inf where none)."""
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.ndim)
    masked = _combine_input_and_mask("logsumexp", input, mask)
    return ember.logsumexp(masked, dim_, keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """logaddexp of input and other, each masked-out element counting as -inf."""
    dtype = input.dtype if dtype is None else dtype
    return ember.logaddexp(_combine_input_and_mask("logaddexp", input, input_mask),
                           _combine_input_and_mask("logaddexp", other, other_mask)).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Vector norm of the masked-in elements (0, or inf for ord=-inf, where none)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine_input_and_mask("norm", input, mask, ord)
    return ember.linalg.vector_norm(masked, ord, _canonical_dim(dim, input.ndim), bool(keepdim),
                                    dtype=dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    """torch.masked's variance: the masked mean, then the masked sum of squared deviations
    over max(count - correction, 0) (nan where nothing is masked in)."""
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    corr = 1.0 if unbiased is None else float(bool(unbiased))
    if correction is not None:
        corr = float(correction)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = ember.float32
    compute = dtype if dtype.is_floating_point or dtype.is_complex else ember.float32
    inmask = _full_mask(input, mask)
    dims = _dims_or_none(dim)
    count = inmask.sum(dim=dims, keepdim=True)
    x = input - sum(input, dim, keepdim=True, dtype=dtype, mask=inmask) / count
    total = sum(x * x, dim, keepdim=keepdim, dtype=compute, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if corr != 0:
        count = count.to(compute) - corr
        count = ember.maximum(count, count.new_zeros([]))
    output = (total / count).to(dtype=dtype)
    return output.sqrt() if take_sqrt else output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Variance of the masked-in elements (nan where none)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Standard deviation of the masked-in elements (nan where none)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def _softmax(fn, identity):
    def f(input, dim, *, dtype=None, mask=None):
        dtype = input.dtype if dtype is None else dtype
        dim_ = _canonical_dim(dim, input.ndim)[0]
        return getattr(ember.nn.functional, fn)(
            _combine_input_and_mask(identity, input, mask), dim_, dtype=dtype)
    f.__name__ = f.__qualname__ = fn
    f.__doc__ = f"{fn} along dim over the masked-in elements (0 where masked out; nan where " \
                "a whole slice is)."
    return f


softmax = _softmax("softmax", "amax")
log_softmax = _softmax("log_softmax", "amax")
softmin = _softmax("softmin", "amin")


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """input over its masked norm along dim (at least eps), masked-out elements 0."""
    dtype = input.dtype if dtype is None else dtype
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    denom = ember.maximum(nrm, nrm.new_full([], eps))
    return _combine_input_and_mask("sum", input, mask) / denom
