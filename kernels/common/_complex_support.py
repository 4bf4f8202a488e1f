"""The ops torch has no complex kernels for, and the error each raises: one table,
registered at the Complex dispatch key (below every other key but the backends), like
torch's dtype dispatch (AT_DISPATCH_ALL_TYPES without the complex types). NumPy would
order complex numbers lexicographically and give an answer; torch refuses. Real calls
never reach the key, so they pay nothing.

    >>> ember.tensor([1j]) < 1
    Traceback (most recent call last):
    NotImplementedError: "lt_cpu" not implemented for 'ComplexFloat'
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.shapes import wrap_dim
from ember.dispatch import keys as K
from ember.dispatch.registration import CHECKS_BEFORE_OVERLAP

_NI = NotImplementedError


def _kernel_name(name):
    return (_NI, f'"{name}" not implemented for \'{{dtype}}\'')


_CLAMP = (_NI, "clamp is not supported for complex types")
_POLYGAMMA = {0: "digamma", 1: "trigamma"}     # (the kernel polygamma(n) runs)


def _sort_message(args):
    """torch wraps sort's dim (IndexError) before its dtype check."""
    dim = next((a for a in args[1:] if a.__class__ is int), None)
    if dim is not None:
        wrap_dim(dim, args[0].dim())
    return " Sort does not support complex dtypes on CPU"


_SORT = (RuntimeError, _sort_message)


def _selection_message(name, kernel, dim_at=1):
    """median.dim/mode/max.dim/min.dim/kthvalue (its dim is argument 2): torch checks the
    dim and an empty reduced dim (IndexError) before the dtype."""
    def message(args):
        from ember.kernels.meta.reduction import selection_layout
        dim = args[dim_at] if len(args) > dim_at else -1
        selection_layout(args[0], dim, False, name)
        if kernel is None:
            return f"{name}(): does not support complex input"
        return _kernel_name(kernel)[1]
    return message

def _dim_first_message(kernel):
    """torch wraps the dim (IndexError) before its dtype dispatch (aminmax)."""
    def message(args):
        if len(args) > 1 and args[1] is not None:
            wrap_dim(args[1], args[0].dim())
        return _kernel_name(kernel)[1]
    return message


def _cum_extreme_message(name):
    """cummax/cummin: torch checks the dim (IndexError) before the dtype, and a 0-d or empty
    self never reaches its dtype dispatch (None: no refusal)."""
    def message(args):
        from ember.kernels.meta import reduction
        getattr(reduction, name)(args[0], args[1] if len(args) > 1 else -1)
        if not args[0]._shape or 0 in args[0]._shape:
            return None
        return _kernel_name(f"{name}_cpu")[1]
    return message


# aten op name (its in-place and out= overloads included) -> (exception type, message, or
# a function of the arguments giving it)
UNSUPPORTED = {
    **{op: _kernel_name(f"{op}_cpu") for op in (
        "lt", "le", "gt", "ge", "remainder", "fmod", "atan2", "bitwise_and", "bitwise_or",
        "bitwise_xor", "bitwise_not", "frac", "elu", "leaky_relu",
        "softplus", "threshold", "searchsorted", "bucketize", "logit", "bincount", "xlogy",
        "copysign")},
    "aminmax": (_NI, _dim_first_message("aminmax_cpu")),
    "cummax": (_NI, _cum_extreme_message("cummax")),
    "cummin": (_NI, _cum_extreme_message("cummin")),
    "median": _kernel_name("median_cpu"),
    "nanmedian": _kernel_name("median_cpu"),
    "fmax": (RuntimeError, "fmax not implemented for complex tensors."),
    "fmin": (RuntimeError, "fmin not implemented for complex tensors."),
    "heaviside": (RuntimeError, "heaviside is not yet implemented for complex tensors."),
    "floor_divide": _kernel_name("div_floor_cpu"),
    "round": _kernel_name("round_vml_cpu"),
    "erf": _kernel_name("erf_vml_cpu"),
    "amax": _kernel_name("max_values_cpu"),
    "amin": _kernel_name("min_values_cpu"),
    "gelu": _kernel_name("GeluKernelImpl"),
    "softmax": _kernel_name("softmax_lastdim_kernel_impl"),
    "_softmax": _kernel_name("softmax_lastdim_kernel_impl"),
    "log_softmax": _kernel_name("log_softmax_lastdim_kernel_impl"),
    "_log_softmax": _kernel_name("log_softmax_lastdim_kernel_impl"),
    "_unique2": _kernel_name("unique"),
    "unique_dim": _kernel_name("unique"),
    "unique_consecutive": _kernel_name("unique"),
    "floor": (_NI, "floor is not supported for complex inputs"),
    "ceil": (_NI, "ceil is not supported for complex inputs"),
    "trunc": (_NI, "trunc is not supported for complex inputs"),
    "sign": (_NI, ("Unlike NumPy, ember.sign is not intended to support complex numbers. "
                  "Please use ember.sgn instead.")),
    "signbit": (_NI, "signbit is not implemented for complex tensors."),
    "clamp": _CLAMP, "clamp_min": _CLAMP, "clamp_max": _CLAMP, "relu": _CLAMP,
    "hardtanh": _CLAMP,
    "maximum": (RuntimeError, "maximum not implemented for complex tensors."),
    "minimum": (RuntimeError, "minimum not implemented for complex tensors."),
    "argmax": (RuntimeError, "argmax(): does not support complex input"),
    "argmin": (RuntimeError, "argmin(): does not support complex input"),
    "sort": _SORT, "argsort": _SORT, "msort": _SORT,
    "topk": (RuntimeError, " topk does not support complex dtypes on CPU"),
    "isin": (RuntimeError, "Unsupported input type encountered for isin(): {dtype}"),
    # torch.special and the pointwise math
    **{f"special_{op}": _kernel_name(f"{op}_cpu") for op in (
        "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "entr", "erfcx", "i0e",
        "i1", "i1e", "log_ndtr", "modified_bessel_i0", "modified_bessel_i1",
        "modified_bessel_k0", "modified_bessel_k1", "ndtri", "scaled_modified_bessel_k0",
        "scaled_modified_bessel_k1", "spherical_bessel_j0", "xlog1py", "zeta")},
    **{f"special_{kind}_polynomial_{v}": _kernel_name(f"{kind}_polynomial_{v}_cpu")
       for kind, vs in (("chebyshev", "tuvw"), ("shifted_chebyshev", "tuvw"),
                        ("hermite", ("h", "he")), ("laguerre", "l"), ("legendre", "p"))
       for v in vs},
    **{op: _kernel_name(f"{op}_vml_cpu") for op in ("erfc", "erfinv", "i0", "lgamma")},
    "special_ndtr": _kernel_name("erf_vml_cpu"),
    "digamma": _kernel_name("digamma"),
    "isposinf": (RuntimeError, "isposinf does not support complex inputs."),
    "isneginf": (RuntimeError, "isneginf does not support complex inputs."),
    "deg2rad": (RuntimeError, "deg2rad is not supported for complex tensors."),
    "rad2deg": (RuntimeError, "rad2deg is not supported for complex tensors."),
    "geometric": _kernel_name("geometric_cpu"),
    "threshold_backward": _kernel_name("threshold_cpu"),
    "max_pool2d": _kernel_name("max_pool2d"),
    "max_pool2d_with_indices": _kernel_name("max_pool2d"),
    "mvlgamma": _kernel_name("arange_cpu"),
    "polygamma": (_NI, lambda args: _kernel_name(_POLYGAMMA.get(
        next(a for a in args if a.__class__ is int), "polygamma"))[1]),
}
# max/min: their reduction overloads name the op, the binary one is maximum/minimum's
def _clamp_message(inplace: bool, tensor_bounds: bool):
    """clamp's refusal with a complex argument, torch's order: a complex self refused, the
    in-place cast of the promoted dtype checked (clamp_ of an int64 self and 0.5 + 0j), then
    the kernel of the Tensor overload named (clamp(x, min=tensor(1j)): "maximum_cpu")."""
    def message(args):
        from ember.kernels.common import _pointwise as P
        self, lo, hi = (list(args) + [None, None])[:3]
        if self._dtype.is_complex:
            return _CLAMP[1]
        if inplace:
            P.check_inplace(self, complex_dtype_of(args), cpp_name=not tensor_bounds)
        if not tensor_bounds:
            return _CLAMP[1]
        kernel = "clamp" if lo is not None and hi is not None else \
            "maximum" if lo is not None else "minimum"
        return _kernel_name(f"{kernel}_cpu")[1]
    return message


_OVERLOADS = {**{(f"clamp{inplace}", overload): (_NI, _clamp_message(inplace == "_",
                                                                      overload == "Tensor"))
                 for inplace in ("", "_") for overload in ("default", "Tensor")},
              ("max", "default"): _kernel_name("max_all"), ("min", "default"): _kernel_name("min_all"),
              ("max", "dim"): (RuntimeError, _selection_message("max", None)),
              ("min", "dim"): (RuntimeError, _selection_message("min", None)),
              ("median", "dim"): (_NI, _selection_message("median", "median_out")),
              ("nanmedian", "dim"): (_NI, _selection_message("median", "median_out")),
              ("mode", "default"): (_NI, _selection_message("mode", "mode_cpu")),
              ("kthvalue", "default"): (_NI, _selection_message("kthvalue", "kthvalue_cpu", 2)),
              ("max", "other"): UNSUPPORTED["maximum"], ("min", "other"): UNSUPPORTED["minimum"],
              ("abs_", "default"): (RuntimeError,
                                    "In-place abs is not supported for complex tensors.")}


def complex_dtype_of(args):
    """The promoted dtype of an op's tensor and number arguments when one of them is
    complex (the dtype torch's error names), else None."""
    operands = [a for a in args if hasattr(a, "_dtype") or isinstance(a, (int, float, complex))]
    if any(isinstance(a, complex) or a._dtype.is_complex for a in operands
           if not isinstance(a, (int, float))):
        dt = D.result_type(*operands)
        return dt if dt.is_complex else next(a._dtype for a in operands if hasattr(a, "_dtype")
                                             and a._dtype.is_complex)
    return None


# the refusals torch makes before its in-place overlap check (a TORCH_CHECK in its meta
# function, or mvlgamma's arange before its copy_): `x.expand(2).floor_()` of a complex x
# raises them, not the overlap error; the others come from its dtype dispatch, after it
BEFORE_OVERLAP = ("floor", "ceil", "trunc", "sign", "clamp", "clamp_min", "clamp_max", "relu",
                  "hardtanh", "mvlgamma", "abs_")
# (the aliases' in-place kernels check overlap before they decompose)
_ALIASES = {"fix_": "trunc", "clip_": "clamp"}
# overloads refusing only a complex self before the overlap check (clamp_.Tensor: its
# TensorIterator checks overlap, then the cast, then the kernel refuses)
_SELF_BEFORE_OVERLAP = {("clamp_", "Tensor"): (_NI, lambda args: _CLAMP[1] if
                                               args[0]._dtype.is_complex else None)}

_BELOW = K.below(K.Complex)


def _raise_refusal(error, args):
    """Raises torch's `error` (exception type, message or a function of the arguments
    giving it) for a call with complex `args`, unless that function declines (None)."""
    exc, message = error
    text = message(args) if callable(message) else message
    if text is not None:    # (None: torch makes no dtype check for this call)
        raise exc(text.format(dtype=complex_dtype_of(args).scalar_name))


# ops whose Scalar arguments are parameters, not operands: a complex one does not promote
# the tensor, and the kernel's conversion refuses its imaginary part (torch's
# `alpha.to<scalar_t>()`: "value cannot be converted to type float without overflow")
SCALAR_PARAMETERS = ("elu", "leaky_relu", "softplus", "threshold", "threshold_backward",
                     "hardtanh")


# clamp (clip) with Scalar bounds promotes only a non-floating self (torch's manual
# promotion: floating is the highest it supports): a floating self's complex bounds are
# parameters (clamp(float16 x, 0.5 + 0j) clamps, 1j raises "... type double ...")
FLOAT_SELF_PARAMETERS = ("clamp", "clip")


def _parameters_only(name: str, args) -> bool:
    """Whether the complex numbers among `args` are parameters of the op `name` (no complex
    tensor among them): they promote nothing, the kernel converts them."""
    if any(getattr(a, "_dtype", D.bool_).is_complex for a in args):
        return False
    return name in SCALAR_PARAMETERS or name in FLOAT_SELF_PARAMETERS and bool(args) and \
        getattr(args[0], "_dtype", D.bool_).category == D.FLOAT


def _refusal(op, error):
    """The kernel at the Complex key of an op without complex kernels: torch's error (Meta
    tensors pass, as torch's meta functions have no dtype dispatch)."""
    name = op.name.rstrip("_")

    def refuse(keyset, *args):
        if keyset & K.META_BIT or _parameters_only(name, args):
            return op.redispatch(keyset & _BELOW, *args)
        _raise_refusal(error, args)
        return op.redispatch(keyset & _BELOW, *args)    # (declined: no dtype check here)
    return refuse


def _refusal_before_overlap(error, name):
    """The check registered in CHECKS_BEFORE_OVERLAP: the refusal when an argument is
    complex (not a parameter)."""
    def check(args):
        if not _parameters_only(name, args) and complex_dtype_of(args) is not None:
            _raise_refusal(error, args)
    return check


def install(all_ops) -> None:
    """Registers the refusals at the Complex key, which complex tensors and numbers set
    (ember/core/tensor.py, ember/dispatch/argcheck.py): the other ops fall through it, and
    calls without complex arguments never reach it. Called once at import."""
    for op in all_ops:
        if op.namespace != "aten":
            continue
        error = _OVERLOADS.get((op.name, op.overload_name)) or \
            UNSUPPORTED.get(op.name.rstrip("_"))
        if error is not None:
            op.register(K.Complex, _refusal(op, error), with_keyset=True)
        name = _ALIASES.get(op.name, op.name)
        if op.name.endswith("_") and (name in BEFORE_OVERLAP or name.rstrip("_") in BEFORE_OVERLAP):
            error = _SELF_BEFORE_OVERLAP.get((op.name, op.overload_name)) or error or \
                UNSUPPORTED[name]
            CHECKS_BEFORE_OVERLAP[op] = _refusal_before_overlap(error, name.rstrip("_"))


def _install_at_import():
    from ember.dispatch.dispatcher import FALLTHROUGH, _all_ops, register_fallback
    register_fallback(K.Complex, FALLTHROUGH)
    install(_all_ops)


_install_at_import()
