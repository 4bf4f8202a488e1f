"""Reductions on Meta tensors (shape, dtype, contiguous strides), and the shared rules
the CPU kernels reuse: which dims are reduced, the result dtype, empty-input errors.

    >>> ember.empty(2, 3, device="meta").sum(1, keepdim=True).shape
    ember.Size([2, 1])
"""
import math

from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.core.shapes import reduced_shape, wrap_dims
from ember.kernels.meta.linalg import check_norm_dtype


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
    return self_dtype if self_dtype.category >= D.FLOAT else D.int64


def mean_dtype(self_dtype, dtype):
    """mean needs a floating result dtype: the input's, or the one asked for."""
    if dtype is not None:
        if dtype.category < D.FLOAT:
            raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be "
                               f"either a floating point or complex dtype. Got: {dtype.scalar_name}")
        return dtype
    if self_dtype.category < D.FLOAT:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: {self_dtype.scalar_name}")
    return self_dtype


def argmax_layout(self, dim, keepdim, meta=False, name="argmax"):
    """(wrapped dim or None, output shape) of argmax (argmin); torch's errors for bool and empty
    (an IndexError on CPU, a RuntimeError on torch's Meta for a dim-less empty input)."""
    if self._dtype is D.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    shape = self._shape
    if dim is None:
        if 0 in shape:
            err = RuntimeError if meta else IndexError
            raise err(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        return None, (1,) * len(shape) if keepdim else ()
    d = wrap_dims((dim,), len(shape))[0]
    if not shape:
        return d, ()
    if shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
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
    _, shape = reduce_layout(self, dim, keepdim)
    check_no_identity(self, "amax", dim, meta=True)
    return empty_meta(shape, self._dtype)


def argmax(self, dim, keepdim):
    _, shape = argmax_layout(self, dim, keepdim, meta=True)
    return empty_meta(shape, D.int64)


# --- reduction: prod, amin, max/min, argmin, var/std, logsumexp, norms,
# all/any, cumsum/cumprod, count_nonzero ---------------------------------------------------
_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double"}


def check_no_identity(self, name, dim, meta=False):
    """amax/amin/max/min have no identity, so reducing an empty dim is an error (torch's
    messages, naming the first empty dim as given; its Meta kernel raises a RuntimeError of
    its own)."""
    shape = self._shape
    if 0 not in shape:
        return
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")
    for d in dim if isinstance(dim, (list, tuple)) else (dim,):
        if shape[d % len(shape)] == 0:
            if meta:
                raise RuntimeError("reducing over zero-size dimension for reduction "
                                   "operation without identity")
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def one_dim_layout(self, dim, keepdim, name, meta=False):
    """(wrapped dim, output shape) of max.dim / min.dim (a 0-d input keeps its shape)."""
    shape = self._shape
    d = wrap_dims((dim,), len(shape))[0]
    if not shape:
        return d, ()
    if shape[d] == 0:
        if meta:
            raise RuntimeError("reducing over zero-size dimension for reduction "
                               "operation without identity")
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return d, reduced_shape(shape, (d,), keepdim)


def var_dtype(self, name="std and var"):
    if self._dtype.category < D.FLOAT:
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    return self._dtype.to_real()


def logsumexp_dtype(self):
    """Integral and bool inputs give the default float dtype."""
    dt = self._dtype
    return dt if dt.category >= D.FLOAT else D.get_default_dtype()


def check_logsumexp_dims(self, dim, keepdim):
    """torch's logsumexp with dim=[] and keepdim=False reduces everything but then fails
    to write its 0-d result into the [1, ..., 1] output it allocated (non-empty inputs)."""
    if isinstance(dim, (list, tuple)) and not dim and self._shape and not keepdim \
            and 0 not in self._shape:
        ones = ", ".join("1" for _ in self._shape)
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape [{ones}]")


def _ord_text(ord):
    if isinstance(ord, float) and ord.is_integer():
        return str(int(ord))
    return str(ord)


def vector_norm_layout(self, ord, dim, keepdim, dtype):
    """(dims, output shape, result dtype) of linalg_vector_norm, with torch's checks."""
    if isinstance(ord, complex):
        raise RuntimeError("linalg.vector_norm: Expected a non-complex scalar as the order "  # noqa: TRY004
                           "of norm.")
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {self._dtype.scalar_name}")
    if dtype is not None:
        check_norm_dtype(self, dtype, "linalg.vector_norm")
        if D.promote_types(self._dtype, dtype) is not dtype:
            raise RuntimeError(f"linalg.vector_norm: the dtype of the input "
                               f"({self._dtype.scalar_name}) should be convertible without "
                               f"narrowing to the specified dtype ({dtype.scalar_name})")
    dims, shape = reduce_layout(self, dim, keepdim)
    o = float(ord)
    if 0 in self._shape and (o < 0 or o == float("inf")):
        if dim is None or (isinstance(dim, (list, tuple)) and not dim):
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_ord_text(ord)} norm on "
                               "an empty tensor because the operation does not have an identity")
        for d in dims:
            if self._shape[d] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_ord_text(ord)} norm "
                                 f"on the dimension {d} because this dimension is empty and the "
                                 "operation does not have an identity")
    return dims, shape, (dtype or self._dtype).to_real()


def all_any_dtype(self):
    return D.uint8 if self._dtype is D.uint8 else D.bool_


def check_cum_inplace(self, dtype):
    if dtype is not None and dtype is not self._dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {_CPP_NAMES[self._dtype.name]}"
                           f" and output tensor dtype {_CPP_NAMES[dtype.name]} should match")


def prod(self, dtype):
    return empty_meta((), sum_dtype(self._dtype, dtype))


def prod_dim(self, dim, keepdim, dtype):
    _, shape = reduce_layout(self, dim, keepdim)
    return empty_meta(shape, sum_dtype(self._dtype, dtype))


def amin(self, dim, keepdim):
    _, shape = reduce_layout(self, dim, keepdim)
    check_no_identity(self, "amin", dim, meta=True)
    return empty_meta(shape, self._dtype)


def max_all(self):
    check_no_identity(self, "max", None, meta=True)
    return empty_meta((), self._dtype)


def min_all(self):
    check_no_identity(self, "min", None, meta=True)
    return empty_meta((), self._dtype)


def max_dim(self, dim, keepdim):
    _, shape = one_dim_layout(self, dim, keepdim, "max")
    return empty_meta(shape, self._dtype), empty_meta(shape, D.int64)


def min_dim(self, dim, keepdim):
    _, shape = one_dim_layout(self, dim, keepdim, "min")
    return empty_meta(shape, self._dtype), empty_meta(shape, D.int64)


def max_other(self, other):
    from ember.kernels.meta._pointwise import _meta
    from ember.kernels.meta.binary import mul_layout
    return _meta(mul_layout(self, other))


min_other = max_other


def argmin(self, dim, keepdim):
    _, shape = argmax_layout(self, dim, keepdim, meta=True, name="argmin")
    return empty_meta(shape, D.int64)


def var_correction(self, dim, correction, keepdim):
    dt = var_dtype(self)
    _, shape = reduce_layout(self, dim, keepdim)
    return empty_meta(shape, dt)


std_correction = var_correction


def var_mean_correction(self, dim, correction, keepdim):
    dt = var_dtype(self, "var_mean")
    _, shape = reduce_layout(self, dim, keepdim)
    return empty_meta(shape, dt), empty_meta(shape, self._dtype)


def std_mean_correction(self, dim, correction, keepdim):
    dt = var_dtype(self, "std_mean")
    _, shape = reduce_layout(self, dim, keepdim)
    return empty_meta(shape, dt), empty_meta(shape, self._dtype)


def logsumexp(self, dim, keepdim):
    check_logsumexp_dims(self, dim, keepdim)
    _, shape = reduce_layout(self, dim, keepdim)
    return empty_meta(shape, logsumexp_dtype(self))


def linalg_vector_norm(self, ord, dim, keepdim, dtype):
    _, shape, dt = vector_norm_layout(self, ord, dim, keepdim, dtype)
    return empty_meta(shape, dt)


def all_any(self):
    return empty_meta((), all_any_dtype(self))


def cum_layout(op, self, dim, dtype):
    """(wrapped dim, result dtype) of cumsum/cumprod: sum's dtype rule."""
    return wrap_dims((dim,), len(self._shape))[0], sum_dtype(self._dtype, dtype)


def check_cum_loop(op, self, dt, kernel="{}_out_cpu") -> None:
    """torch's CPU and CUDA cumsum/cumprod loops have no bool version; a 0-d or empty input
    never reaches them (it is copied or zeroed), and neither does Meta."""
    if dt is D.bool_ and self._shape and 0 not in self._shape:
        from ember.kernels.common._errors import not_implemented_for
        raise not_implemented_for(kernel.format(op), D.bool_)


def cumsum(self, dim, dtype):
    return empty_meta(self._shape, cum_layout("cumsum", self, dim, dtype)[1])


def cumprod(self, dim, dtype):
    return empty_meta(self._shape, cum_layout("cumprod", self, dim, dtype)[1])


def cumsum_(self, dim, dtype):
    wrap_dims((dim,), len(self._shape))
    check_cum_inplace(self, dtype)
    return self


def cumprod_(self, dim, dtype):
    wrap_dims((dim,), len(self._shape))
    check_cum_inplace(self, dtype)
    return self


def count_nonzero(self, dim):
    if isinstance(dim, (list, tuple)) and not dim:
        dim = None
    _, shape = reduce_layout(self, dim, False)
    return empty_meta(shape, D.int64)


def all_any_layout(self, dim, keepdim):
    """all/any: dim None reduces every dim, an empty list none (torch's all.dims)."""
    if isinstance(dim, (list, tuple)) and not dim:
        return (), tuple(self._shape)
    return reduce_layout(self, dim, keepdim)


def all_any_dim(self, dim=None, keepdim=False):
    _, shape = all_any_layout(self, dim, keepdim)
    return empty_meta(shape, all_any_dtype(self))


# --- issue 22: nansum, median, kthvalue, mode, cummax/cummin, logcumsumexp, aminmax, histc,
# bincount, isin (layouts shared with the CPU kernels)
def nansum(self, dim=None, keepdim=False, dtype=None):
    _, shape = reduce_layout(self, dim, keepdim)
    return empty_meta(shape, sum_dtype(self._dtype, dtype))


def _not_for_bool(self, kernel):
    if self._dtype is D.bool_:
        from ember.kernels.common._errors import not_implemented_for
        raise not_implemented_for(kernel, D.bool_)


def selection_layout(self, dim, keepdim, name, kernel=None):
    """(wrapped dim, output shape) of median.dim, kthvalue, mode: torch's checks in its
    order, the dim, an empty reduced dim (IndexError), then the bool error (`kernel`'s)."""
    shape = self._shape
    d = wrap_dims((dim,), len(shape))[0]
    if shape and shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    if kernel:
        _not_for_bool(self, kernel)
    return d, reduced_shape(shape, (d,), keepdim) if shape else ()


def check_kthvalue(self, k, dim):
    d = wrap_dims((dim,), len(self._shape))[0]
    size = self._shape[d] if self._shape else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")


def median_all(self):
    """torch fills the median of no elements with NaN (True for bool) before its dtype check."""
    if self.numel():
        _not_for_bool(self, "median_cpu")
    return empty_meta((), self._dtype)


nanmedian_all = median_all


def _values_indices(self, dim, keepdim, name, kernel=None):
    _, shape = selection_layout(self, dim, keepdim, name, kernel)
    return empty_meta(shape, self._dtype), empty_meta(shape, D.int64)


def median_dim(self, dim, keepdim=False):
    return _values_indices(self, dim, keepdim, "median", "median_out")


def nanmedian_dim(self, dim, keepdim=False):
    return _values_indices(self, dim, keepdim, "median", "median_out")


def kthvalue(self, k, dim=-1, keepdim=False):
    """torch checks k before the dtype, and returns a 0-d self (bool too) unchecked."""
    out = _values_indices(self, dim, keepdim, "kthvalue")
    check_kthvalue(self, k, dim)
    if self._shape:
        _not_for_bool(self, "kthvalue_cpu")
    return out


def mode(self, dim=-1, keepdim=False):
    return _values_indices(self, dim, keepdim, "mode")


def _cum_extreme(name):
    """cummax/cummin with torch's dim rule: a 0-d self takes -1 or 0, an empty one any dim
    (torch wraps it only when there is something to scan)."""
    def kernel(self, dim):
        if not self._shape and dim not in (-1, 0):
            raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
        if 0 not in self._shape:
            wrap_dims((dim,), len(self._shape))
        return empty_meta(self._shape, self._dtype), empty_meta(self._shape, D.int64)
    kernel.__name__ = name
    return kernel


cummax = _cum_extreme("cummax")
cummin = _cum_extreme("cummin")


def logcumsumexp(self, dim):
    wrap_dims((dim,), len(self._shape))
    if not self._dtype.is_floating_point:
        from ember.kernels.common._errors import not_implemented_for
        raise not_implemented_for("logcumsumexp_out_cpu", self._dtype)
    return empty_meta(self._shape, self._dtype)


def aminmax_layout(self, dim, keepdim):
    """The output shape of aminmax (every dim when dim is None), with torch's empty errors."""
    shape = self._shape
    if dim is None:
        if 0 in shape:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        return (1,) * len(shape) if keepdim else ()
    d = wrap_dims((dim,), len(shape))[0]
    if not shape:
        return ()
    if shape[d] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    return reduced_shape(shape, (d,), keepdim)


def aminmax(self, dim=None, keepdim=False):
    shape = aminmax_layout(self, dim, keepdim)
    return empty_meta(shape, self._dtype), empty_meta(shape, self._dtype)


def check_histc(self, bins, min, max):
    """torch's errors: its kernels' dtype errors (bool fails in linspace, a given uint8 range
    that does not fit uint8 in the conversion), then bins and the range."""
    from ember.core.factory_args import real_scalar
    from ember.kernels.common._errors import not_implemented_for
    dt = self._dtype
    if dt is D.bool_:
        raise not_implemented_for("linspace_cpu", dt)
    min, max = real_scalar(min), real_scalar(max)
    if dt is D.uint8 and min != max and not (0 <= min <= 255 and 0 <= max <= 255):
        raise RuntimeError("value cannot be converted to type uint8_t without overflow")
    if not dt.is_floating_point:
        raise not_implemented_for("histogram_cpu", dt)
    if bins <= 0:
        raise RuntimeError(f"ember.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if min != max and not (math.isfinite(min) and math.isfinite(max)):   # (a given range)
        raise RuntimeError(f"ember.histc: range of [{min:g}, {max:g}] is not finite")
    if min > max:
        raise RuntimeError("ember.histc: max must be larger than min")
    if min != max:      # a given range in self's dtype, empty self too (float16's 70000)
        from ember.core.factory_args import checked_scalar
        for edge in (min, max):
            checked_scalar(edge, dt)


def histc(self, bins=100, min=0, max=0):
    check_histc(self, bins, min, max)
    return empty_meta((bins,), self._dtype)


def check_bincount(self, weights, minlength=0):
    """torch's checks in torch's order; a 1-d empty input skips the last ones (its result is
    zeros(minlength) of int64, whatever the weights: bincount_empty)."""
    if self._dtype.is_floating_point or self._dtype is D.bool_:
        from ember.kernels.common._errors import not_implemented_for
        raise not_implemented_for("bincount_cpu", self._dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if bincount_empty(self):
        return
    if len(self._shape) != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and tuple(weights._shape) != tuple(self._shape):
        raise RuntimeError("weights should be 1-d and have the same length as input")


def bincount_empty(self) -> bool:
    return len(self._shape) == 1 and self._shape[0] == 0


def bincount_dtype(weights):
    """int64 counts; float32 weights sum in float32, other weights in float64 (torch's)."""
    if weights is None:
        return D.int64
    return D.float32 if weights._dtype is D.float32 else D.float64


def bincount(self, weights=None, minlength=0):
    check_bincount(self, weights, minlength)
    raise NotImplementedError("bincount: the output size depends on the input's values "
                              "(no Meta kernel)")


def check_isin(elements, test_elements):
    for x in (elements, test_elements):  # a Python bool test_element too
        if getattr(x, "_dtype", None) is D.bool_ or isinstance(x, bool):
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")


def isin(elements, test_elements, assume_unique=False, invert=False):
    check_isin(elements, test_elements)
    return empty_meta(elements._shape, D.bool_)


def _cpp(dt):
    from ember.kernels.common._pointwise import CPP_NAMES
    return CPP_NAMES[dt.name]


def check_histogram(self, weight, bins=None, range=None):
    """torch.histogram's checks in its order: float32/float64 where it takes the input's
    min/max ("histogramdd": no range, elements), the linspace of the edges (no bool), the
    bins tensor (the input's dtype, 1-d, not empty), the weight's dtype, at least one bin,
    then any float ("histogram_cpu")."""
    from ember.kernels.common._errors import not_implemented_for
    min_max = bins is None and range is None and self.numel() > 0
    if min_max and self._dtype not in (D.float32, D.float64):
        raise not_implemented_for("histogramdd", self._dtype)
    if bins is None and self._dtype is D.bool_:  # the linspace of the edges
        raise not_implemented_for("linspace_cpu", self._dtype)
    if bins is not None:
        if bins._dtype is not self._dtype:
            raise RuntimeError("ember.histogramdd: input tensor and bins tensors should have the "
                               f"same dtype, but got input with dtype {_cpp(self._dtype)} and "
                               f"bins for dimension 0 with dtype {_cpp(bins._dtype)}")
        if len(bins._shape) != 1:
            raise RuntimeError("ember.histogramdd: bins tensor should have one dimension, but "
                               f"got {len(bins._shape)} dimensions in the bins tensor for "
                               "dimension 0")
        if bins.numel() == 0:
            raise RuntimeError("ember.histogramdd: bins tensor should have at least 1 element, "
                               "but got 0 elements in the bins tensor for dimension 0")
    if weight is not None and weight._dtype is not self._dtype:
        raise RuntimeError("ember.histogramdd: if weight tensor is provided, input tensor and "
                           "weight tensor should have the same dtype, but got "
                           f"input({_cpp(self._dtype)}), and weight({_cpp(weight._dtype)})")
    if weight is not None and weight.numel() != self.numel():  # torch flattens both
        raise RuntimeError("ember.histogramdd: if weight tensor is provided it should have the "
                           "same shape as the input tensor excluding its innermost dimension, "
                           f"but got input with shape [{self.numel()}, 1] and weight with "
                           f"shape [{weight.numel()}]")
    if bins is not None:
        check_histogram_range(bins.numel() - 1, None)
    if not self._dtype.is_floating_point:
        raise not_implemented_for("histogram_cpu", self._dtype)


def check_histogram_range(bins, range):
    if range is not None and len(range) != 2:
        raise RuntimeError("ember.histogramdd: for a 1-dimensional histogram range should have "
                           f"2 elements, but got {len(range)}")
    if bins <= 0:
        raise RuntimeError(f"ember.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if range is not None and range[0] > range[1]:
        raise RuntimeError("ember.histogramdd: min should not exceed max, but got min "
                           f"{range[0]:g} max {range[1]:g} for dimension 0")


def histogram_bin_ct(self, bins=100, range=None, weight=None, density=False):
    check_histogram_range(bins, range)
    check_histogram(self, weight, range=range)
    return empty_meta((bins,), self._dtype), empty_meta((bins + 1,), self._dtype)


def histogram_bins_tensor(self, bins, weight=None, density=False):
    check_histogram(self, weight, bins)
    n = max(bins.numel() - 1, 0)
    return empty_meta((n,), self._dtype), empty_meta((bins.numel(),), self._dtype)
