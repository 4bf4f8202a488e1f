"""Support for the gradient differential fuzzer (tests/fuzz/test_grad_differential.py).

The ops are the forward fuzzer's (fuzz_support.FUZZ_OPS) that are differentiable: those
with a derivatives.yaml formula (a generated Autograd kernel) whose outputs may require
grad, and the CompositeImplicitAutograd ones (differentiable through their decomposition).
Cases are drawn as the forward fuzzer draws them, with float64, float32 and complex128
tensors; every floating or complex tensor argument is a leaf that requires grad (a view
argument is that view of its leaf; the self of an in-place op is a view of a clone of
its leaf). `run_grad_case` calls the op on both sides, then compares:

  - the forward: both raise (the same builtin type) or neither; values, dtypes, shapes,
    and which outputs require grad;
  - the gradients of the outputs weighted by random cotangents
    (`autograd.grad(outputs, leaves, cotangents)`): both raise or neither; each leaf's
    gradient's dtype, shape, values (NaN where torch's is NaN); a None gradient is zeros;
  - with `double=True`, the gradients of the gradients (create_graph=True), weighted by
    new random cotangents, with respect to the leaves and to the first cotangents.

    >>> spec = GRAD_OPS["mul.Tensor"]
    >>> spec.name
    'mul.Tensor'
"""
from __future__ import annotations

import math

import numpy as np
import yaml
from fuzz_support import (
    EXPANDED_GARBAGE,
    FUZZ_OPS,
    INT_MIN_TRAPS,
    KNOWN,
    NAN_SORTED,
    ROOT,
    UNORDERED_TIES,
    Case,
    DType,
    Mismatch,
    OpSpec,
    TensorArg,
    _ember_view,
    _has_int_min,
    _has_nan,
    _torch_view,
    aten,
    call,
    constant_row,
    finite_parts,
    reject_if,
    short,
)
from helpers import (
    ACCUMULATING_ULPS,
    COMPLEX,
    assert_close_ulps,
    builtin_type,
    dtype_name,
    ember_of,
    np_dtype,
    to_np,
    torch_of,
)

import ember
import ember._generated.autograd as generated_autograd

GRAD_DTYPES = ("float64", "float32", "complex128")


# --------------------------------------------------------------------------- the ops
def _never_differentiable() -> set[str]:
    """derivatives.yaml entries whose outputs never require grad ('eq.Tensor', ...)."""
    out = set()
    for entry in yaml.safe_load((ROOT / "schema" / "derivatives.yaml").read_text()):
        if not any(entry.get("output_differentiability", [True])):
            name = entry["name"].split("(")[0]
            out.add(name if "." in name else f"{name}.default")
    return out


def is_differentiable(spec: OpSpec, never: set[str]) -> bool:
    """A derivatives.yaml formula that may give a gradient, or a decomposition."""
    keys = [k for k, _ in spec.fn.dispatch] if spec.fn.dispatch else []
    has_formula = hasattr(generated_autograd, f"_ag_{spec.fn.ident}")
    return (has_formula and spec.name not in never) or "CompositeImplicitAutograd" in keys


# decompositions ember differentiates but torch does not (its output requires grad, its
# backward raises "the derivative for ... is not implemented")
TORCH_NOT_DIFFERENTIABLE = {"histogramdd.default", "histogramdd.int_bins"}

_NEVER = _never_differentiable()
GRAD_OPS = {name: s for name, s in FUZZ_OPS.items()
            if is_differentiable(s, _NEVER) and name not in TORCH_NOT_DIFFERENTIABLE}

# Known gradient disagreements, by cause: op -> why. Their tests are xfail (not strict);
# EMBER_FUZZ_KNOWN=0 runs them as ordinary tests. (A case whose *forward* disagrees for an
# op of the forward fuzzer's KNOWN table is dropped: that is the forward fuzzer's business.)
GRAD_KNOWN: dict[str, str] = {
    "as_strided_scatter.default": "torch's self gradient keeps grad inside the scattered "
                                  "window and zeroes the rest, the opposite of the right one "
                                  "(torch's own gradcheck fails); ember's passes gradcheck "
                                  "(tests/autograd/test_op_gradients.py)",
}

# second gradients differentiate formulas that torch and ember write differently (where
# masks, cancellations): their tolerance is this many times the first gradients'
SECOND_ORDER_FACTOR = 64

# torch's internal errors, not rules to follow: a case where torch raises one is dropped
TORCH_INTERNAL_ERRORS = (
    "INTERNAL ASSERT FAILED",
    # an undefined gradient reaching a double-backward formula (dist of empty inputs)
    "Expected a proper Tensor but got None",
    # its engine's check that a real input's gradient is real, failed by its own formulas
    # for mixed real/complex arguments (fill.Tensor(complex self, real value), ldexp_)
    "(input_is_complex == grad_is_complex)",
    # formulas negating a bool argument (special_zeta.self_scalar(False, x))
    "boolean negative, the `-` operator, is not supported",
)

# errors of torch's backward formulas on inputs its forward accepts (torch bugs): a case
# whose backward raises one is dropped
TORCH_BACKWARD_BUGS = (
    # clamp.Tensor's formula writes the self-shaped gradient into a broadcast one
    "doesn't match the broadcast shape",
    # gather(sparse_grad=True): a sparse gradient its double backward cannot view
    "from the 'SparseCPU' backend",
    # index_fill's value gradient (index_select) for a 0-d self and an empty index
    "Index to scalar can have only 1 value",
    # addr's vector gradients for a complex self and real vectors (grad.mv(vec) of a complex
    # grad and a real vec)
    "addmv input tensors must have the same dtype",
    # gather(sparse_grad=True) of an expanded self: its double backward expands a sparse grad
    "expand is unsupported for Sparse tensors",
    # index_put with a bool mask and a values tensor of more dims than the indexed result:
    # IndexPutBackward0's values gradient keeps the result's shape (seed 3654)
    "returned an invalid gradient at index",
)

# ops whose second gradient torch gives as NaN where the function is smooth or the limit
# exists, ember's a number: torch's NaN elements are not compared in their second gradients
TORCH_SECOND_ORDER_NAN = {
    "sinc.default": "at x = 0 (x^2 == 0): torch differentiates a where() whose other branch "
                    "is 0/0 (NaN); ember gives sinc''(0) = -pi^2/3",
    "norm.Scalar": "where the norm is 0 (a non-differentiable point), torch's norm_backward "
                   "differentiated again gives NaN, ember's masked formula 0",
    **dict.fromkeys(["pow.Scalar", "float_power.Scalar"],
                    "0 ** x: torch differentiates where(x >= 0, 0, result * log 0) again and "
                    "gets 0 * -inf = NaN in the masked branch; ember's second gradient is 0"),
    **dict.fromkeys(["var.dim", "var_mean.dim", "var.correction", "var_mean.correction",
                     "std.dim", "std_mean.dim", "std.correction", "std_mean.correction"],
                    "an empty input: torch's second gradient with respect to the cotangent is "
                    "NaN (its formula's mean of no elements), ember's the empty sum 0"),
}
TORCH_SECOND_ORDER_NAN["sinc_.default"] = TORCH_SECOND_ORDER_NAN["sinc.default"]
TORCH_SECOND_ORDER_NAN.update(dict.fromkeys(
    ["mish.default", "mish_.default"],
    "large inputs (1e3, 1e4): torch's mish second derivative overflows (inf / inf = NaN), "
    "ember's is the limit, 0"))
TORCH_SECOND_ORDER_NAN.update(dict.fromkeys(
    ["copysign.Tensor", "copysign_.Tensor", "copysign.Scalar", "copysign_.Scalar"],
    "at self == 0 torch's formula grad * result / self is masked by a where(); "
    "differentiated again the masked branch's 0/0 gives NaN, ember's 0"))
TORCH_SECOND_ORDER_NAN.update(dict.fromkeys(
    ["atan2.default", "atan2_.default", "arctan2.default", "arctan2_.default"],
    "at (0, 0): torch's second gradient of its self / (x^2 + y^2) formula is 0/0 = NaN, "
    "ember's masked formula 0"))
TORCH_SECOND_ORDER_NAN.update(dict.fromkeys(
    ["cumprod.default", "cumprod_.default", "pow.Tensor_Tensor", "pow_.Tensor"],
    "infinite or zero inputs: torch's second gradient of its masked formulas is NaN in "
    "elements where ember's is a number (inf * 0 in a where() branch that is not taken)"))
TORCH_SECOND_ORDER_NAN.update(dict.fromkeys(
    ["float_power.Tensor_Tensor", "float_power_.Tensor"],
    "as pow.Tensor_Tensor; and a NaN self with an exponent that broadcasts it away (empty): "
    "torch's exponent gradient takes log(self) on self's shape, so its double backward "
    "divides the reduced (empty, 0) gradient by self: 0 / NaN; ember takes the log after "
    "the broadcast, its derivative an empty sum, 0 (test_grad_regressions shows it)"))
TORCH_SECOND_ORDER_NAN.update(dict.fromkeys(
    ["renorm.default", "renorm_.default"],
    "a slice whose norm is NaN (not rescaled): torch's renorm_backward differentiated again "
    "is NaN there, ember's 0 (the slice passes grad through unchanged)"))

# ops whose torch gradient at NaN or infinite inputs depends on the code path (its
# vectorized loop, the scalar tail of the loop, its create_graph formula), so is not
# specified: their cases with non-finite inputs are dropped
TORCH_NONFINITE_UNSPECIFIED = {
    **dict.fromkeys(["elu_.default", "celu_.default", "selu_.default"],
                    "elu_backward(is_result=True) of a NaN result (celu_ and selu_ are elu_ "
                    "in torch too): NaN in torch's vectorized lanes, grad * scale in its "
                    "scalar tail (the same call, by position); NaN (0 * inf) from its "
                    "create_graph formula at infinite results"),
    **dict.fromkeys(["hardtanh.default", "hardtanh_.default"],
                    "hardtanh_backward at NaN: 0 in torch's vectorized lanes, grad in its "
                    "scalar tail (16 NaNs give 0s, 3 give grads)"),
    **dict.fromkeys(["cumprod.default", "cumprod_.default"],
                    "cumprod_backward with zeros and infinities: torch's zero-aware formula "
                    "and ember's give NaN and inf in different elements (inf * 0 in "
                    "different products)"),
    **dict.fromkeys(["ldexp.Tensor", "ldexp_.default"],
                    "the gradient of a broadcast infinite exponent: torch sums g * self * inf "
                    "element by element (inf - inf = NaN), ember multiplies the reduced "
                    "sum by inf (+-inf): the order of non-finite arithmetic"),
}

# ops whose torch gradient at -0.0 depends on the code path: logit_backward's scalar loop
# (a loop's tail, strided or short inputs) gives grad * inf at x == 0, its vectorized lanes
# grad / (x (1 - x)), -grad * inf at -0.0; ember gives grad * inf (the kernel's rule, the
# limit from inside [0, 1]): cases with a -0.0 in a leaf are dropped
TORCH_NEGATIVE_ZERO_PATH = dict.fromkeys(
    ["logit.default", "logit_.default"],
    "logit_backward at -0.0: grad * inf in torch's scalar loop, -grad * inf in its "
    "vectorized lanes (grad / (x (1 - x)) of -0.0)")

# torch's vectorized lanes and scalar loop disagree at NaN in these backward kernels, so the
# element's position decides: elu_backward of a NaN input (float64: NaN in the lanes, grad
# in the scalar tail), hardshrink/softshrink_backward with a NaN self or lambd (0 in the
# lanes, grad in the tail), hardswish_backward at a NaN self (NaN in the lanes, grad in the
# tail: 17 float64 NaNs give NaN first, grad last); ember follows the scalar loop. Cases
# holding a NaN are dropped
TORCH_SIMD_NAN = dict.fromkeys(
    ["elu.default", "hardshrink.default", "softshrink.default", "hardswish.default",
     "hardswish_.default", "hardshrink_backward.default", "softshrink_backward.default"],
    "backward at NaN: torch's vectorized lanes and scalar loop disagree")


def _holds_nan(args, leaves) -> bool:
    """Whether a leaf tensor or a float argument is NaN."""
    return any(bool(x.isnan().any()) for x in leaves if x.is_floating_point()) or any(
        isinstance(a, float) and math.isnan(a) for a in args)


# torch's float32 pow(x, e) with an integral Scalar e that float32 cannot hold (|e| > 2**24):
# its vectorized lanes round e to float32 (pow(-1., 2**31 - 1) = 1), its scalar loop keeps
# it exact (-1); ember rounds (the lanes' rule, a float32 op). The gradient e * x ** (e - 1)
# meets it for the fuzzer's e = 2**31 and -2**40: such float32 cases are dropped
TORCH_FLOAT32_EXPONENT_PATH = dict.fromkeys(
    ["pow.Tensor_Scalar", "pow_.Scalar"],
    "float32 pow with an integral exponent beyond 2**24: rounded to float32 in torch's "
    "vectorized lanes, exact in its scalar loop (the sign of x ** (2**31 - 1) for x < 0)")

# torch's complex add computes self + alpha * other with a complex product, so an infinite
# part of `other` meets alpha's zero imaginary part: (1+1j) + (inf-2j) is inf+nanj (0 * inf),
# NumPy's and ember's inf-1j; the trapezoid rule adds neighbouring samples, and a real x's
# gradient reads that NaN where ember's is +-inf: cases with a non-finite complex leaf are
# dropped
TORCH_COMPLEX_ADD_NAN = dict.fromkeys(
    ["trapz.x", "trapezoid.x", "cumulative_trapezoid.x"],
    "torch's complex add (self + alpha * other, a complex product) turns an infinite part "
    "of other into NaN in the other part; ember's sum keeps the finite part")

# torch's sinc derivative is its closed form (pi x cos(pi x) - sin(pi x)) / (pi x^2), which
# cancels near 0: sinc''(1e-6) is 0 in float32 torch, -3.2454 at 1e-3 (exact -3.2899), and
# its float64 sinc'(1e-6) is 7e-6 off; ember's derivative is a Taylor series for
# |pi x| < 0.5 (-3.28987 at both). i1 and i1e likewise: torch differentiates i0(x) - i1(x) / x
# (i1''(1e-6) 0.125 in float32, exact 3.75e-07; i1e''(1e-6) -0.84375, exact -0.999998; 1e-3
# off in float64), ember's i1' is a power series for |x| < 1. Cases with a leaf holding a
# value in 0 < |x| < 0.1 are dropped (the fuzzer's 1e-6; test_grad_regressions checks them)
TORCH_CANCELLATION = {
    **dict.fromkeys(["sinc.default", "sinc_.default"],
                    "torch's derivative of sinc cancels near 0 (ember's series does not)"),
    **dict.fromkeys(["special_i1.default", "special_i1e.default"],
                    "torch's second derivatives of i1 and i1e cancel near 0 (ember's series "
                    "does not)"),
}


def _near_zero(leaves) -> bool:
    """A leaf holding a value in 0 < |x| < 0.1."""
    return any(bool(((x != 0) & (x.abs() < 0.1)).any()) for x in leaves)


# ops whose torch create_graph formula disagrees with torch's own first-order kernel: their
# double-backward cases are dropped (the first-order ones are compared)
TORCH_CREATE_GRAPH_DIFFERS = {
    **dict.fromkeys(["logit.default", "logit_.default"],
                    "logit's kernel gives NaN for a NaN input or outside [0, 1] with eps < 0 "
                    "and grad / (x (1 - x)) for a NaN eps, +inf at -0.0; its create_graph "
                    "formula (a where() on the clamp bounds) gives 0, 0, -inf there; ember "
                    "follows the kernel both ways"),
}

# torch refuses autograd for the complex outputs of the ops missing from its list of ops
# checked with complex inputs (median, mode, slice_copy, ...: "does not support automatic
# differentiation for outputs with complex dtype"); ember differentiates them (the same
# formulas as for real inputs): such cases are dropped
TORCH_NO_COMPLEX_AUTOGRAD = "does not support automatic differentiation for outputs with complex"

# ops whose torch backward raises "derivative for aten::<op> is not implemented" (ember has
# a formula, gradcheck'ed in tests/autograd/test_op_gradients.py): nothing to compare
TORCH_NO_DERIVATIVE = {
    "copy.default": "torch has no formula for the functional copy (ember: copy_'s)",
    "silu_backward.default": "torch 2.13 has no derivative for silu_backward",
    "cdist.default": "torch's _cdist_backward has no derivative (double backward)",
    **dict.fromkeys(["hardsigmoid.default", "hardsigmoid_.default",
                     "hardsigmoid_backward.default"],
                    "torch has no derivative for hardsigmoid_backward (double backward)"),
    "mish_backward.default": "torch has no derivative for aten::mish_backward",
}

# ops ember has no complex kernel for (torch has): a complex case where ember raises
# NotImplementedError ("... not implemented for 'ComplexDouble'") is dropped; their real
# cases are compared
NO_COMPLEX_KERNEL = {"logaddexp.default", "logcumsumexp.default", "silu_backward.default",
                     "silu.default", "silu_.default"}

# ops that select elements by sorting: which of equal elements takes the gradient is not
# specified (torch's sort is not stable): cases whose self holds repeated values are dropped
TIED_SELECTION = {"quantile", "nanquantile", *UNORDERED_TIES}

# pow(x, False), pow(False, x): torch's pow backwards test `exponent.equal(0.0)` and
# `base.equal(0.0)`, false for a bool Scalar, so they compute 0 * x ** -1 (NaN at x = 0 or
# NaN) and result * log(0) where a 0 exponent or base gives zeros: bool Scalars' cases are
# dropped
BOOL_EXPONENT = {"pow", "pow_", "float_power", "float_power_"}


# ops whose outputs' grad_fn.name() differs from torch's (which the fuzzer compares for the
# others: torch numbers a node per derivatives.yaml entry, XlogyBackward2 for xlogy.Scalar_Other):
# a different graph, not a different number
DECOMPOSED = ("ember decomposes the op into others (its last node is theirs) where torch has "
              "a derivative of its own, or the reverse")
TORCH_NOT_IMPLEMENTED = ("torch has no derivative (its node is NotImplemented, its backward "
                         "raises); ember's node is its formula's (not_implemented(...) or one)")
NODE_NAMES_DIFFER: dict[str, str] = {
    **dict.fromkeys([
        # torch: ReshapeAlias where a non-contiguous input views
        "reshape.default", "flatten.using_ints", "reshape_as.default",
        "unsafe_chunk.default", "unsafe_split.Tensor", "unsafe_split_with_sizes.default",
        "diff.default",                   # torch: CopyBackwards (n=0 copies self)
        "quantile.scalar", "quantile.default", "nanquantile.scalar",  # torch's end with
        "nanquantile.default",                                        # squeeze_ (Backward4)
        "masked_scatter_.default",  # ember's entry of its own (MaskedScatterBackward1)
        "addr.default", "cdist.default", "diag.default", "diag_embed.default",
        "diagflat.default", "dist.default", "ldexp.Tensor", "ldexp_.default", "narrow_copy.default",
        "norm.Scalar", "norm.ScalarOpt_dim", "repeat_interleave.self_int",
        "rot90.default", "sgn_.default", "vdot.default", "special_ndtr.default",
        "trapz.x", "trapz.dx", "trapezoid.x", "trapezoid.dx", "cumulative_trapezoid.x",
        "max.other", "min.other",                                       # torch: Maximum
        "zero.default",           # torch's functional zero takes zero_'s node (ZeroBackward0)
        "lift_fresh_copy.default",  # torch's LiftFreshBackward0_copy, ember's own entry
        "set_.default", "set_.source_Tensor", "set_.source_Tensor_storage_offset",
        "pad.default",   # torch: ReplicationPad1DBackward0 ..., ember's replicate pad indexes
    ], DECOMPOSED),
    **dict.fromkeys([
        "copy.default", "floor_divide.default", "floor_divide.Scalar", "floor_divide_.Tensor",
        "floor_divide_.Scalar", "heaviside.default", "heaviside_.default", "histogram.bin_ct",
        "histogram.bins_tensor", "remainder.Scalar_Tensor", "hardsigmoid_backward.default",
        "mish_backward.default", "silu_backward.default", "scatter.reduce",
        "scatter.value_reduce", "scatter_.reduce", "scatter_.value_reduce"],
        TORCH_NOT_IMPLEMENTED),
}


def node_names(outputs) -> list:
    """grad_fn.name() of each output (None for none), torch's C++ namespace dropped
    (torch::autograd::CopySlices is CopySlices)."""
    return [None if t.grad_fn is None else t.grad_fn.name().removeprefix("torch::autograd::")
            for t in outputs]


# --------------------------------------------------------------------------- leaves
def _is_leaf_array(a: np.ndarray) -> bool:
    return a.dtype.kind in "fc" or a.dtype == np_dtype("bfloat16")


def build(x, side: str, leaves: list, clone: bool = False):
    """A case value as `side`'s objects, with each floating or complex TensorArg's base a
    new leaf that requires grad (appended to `leaves`); `clone`: the views are taken of a
    clone of the leaf (the self of an in-place op)."""
    if isinstance(x, TensorArg):
        make = ember_of if side == "ember" else torch_of
        t = make(x.base)
        if _is_leaf_array(x.base):
            leaves.append(t.requires_grad_())
            if clone:
                t = t.clone()
        view = _ember_view if side == "ember" else _torch_view
        for v in x.views:
            t = view(t, v)
        return t
    if isinstance(x, DType):
        import torch
        return getattr(ember if side == "ember" else torch, x.name)
    if isinstance(x, list):
        return [build(v, side, leaves) for v in x]
    if isinstance(x, dict):
        return {k: build(v, side, leaves) for k, v in x.items()}
    return x


def _has_ties(t) -> bool:
    if not hasattr(t, "numel") or t.numel() < 2:
        return False
    values = to_np(t).ravel()
    return len(np.unique(values)) < len(values)


def flat_tensors(res) -> list:
    """The tensors of a result (nested lists and tuples flattened, other values left out)."""
    if isinstance(res, (list, tuple)):
        return [t for r in res for t in flat_tensors(r)]
    return [res] if hasattr(res, "requires_grad") else []


def random_like(rng, t, side: str, requires_grad=False):
    """A standard normal tensor (complex normal for complex `t`) of t's shape and dtype."""
    name = dtype_name(t.dtype)
    shape = tuple(t.shape)
    a = rng.standard_normal(shape)
    if name.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    a = np.asarray(a).astype(np_dtype(name))
    out = ember_of(a) if side == "ember" else torch_of(a)
    return out.requires_grad_() if requires_grad else out


# --------------------------------------------------------------------------- comparing
def brief(x) -> str:
    """fuzz_support.short of a result whose tensors may require grad."""
    if isinstance(x, (list, tuple)):
        return "(" + ", ".join(map(brief, x)) + ")"
    return short(x.detach() if hasattr(x, "detach") else x)


PRECISION = ("float16", "bfloat16", "float32", "float64")   # least precise first


def least_precise(tensors) -> str | None:
    """The least precise floating (or complex: its part's) dtype of `tensors`: the
    precision a computation mixing them may round to (float64 gradients of a float32
    result)."""
    names = [COMPLEX.get(dtype_name(t.dtype), dtype_name(t.dtype)) for t in tensors]
    return next((p for p in PRECISION if p in names), None)


def compare_tensor(e, t, what: str, precision: str | None = None):
    """dtype, shape and values (tolerance of t's dtype, or of `precision` when less
    precise; NaN where torch's is NaN)."""
    assert dtype_name(e.dtype) == dtype_name(t.dtype), \
        f"{what} dtype: ember {dtype_name(e.dtype)} torch {dtype_name(t.dtype)}"
    assert tuple(e.shape) == tuple(t.shape), f"{what} shape: {tuple(e.shape)} {tuple(t.shape)}"
    name = COMPLEX.get(dtype_name(t.dtype), dtype_name(t.dtype))
    actual, ref = to_np(e.detach()), to_np(t.detach())
    if name not in ACCUMULATING_ULPS:
        np.testing.assert_array_equal(actual, ref, err_msg=f"{what} values")
        return
    if precision and name in PRECISION and PRECISION.index(precision) < PRECISION.index(name):
        name = precision
    # (complex: the same elements non-finite, the finite ones close)
    actual, ref = finite_parts(actual, ref, what)
    # gradients are sums of products computed in another order than torch's: a few ulps of
    # the largest value (at least 1); second gradients differentiate those formulas again
    ulps = ACCUMULATING_ULPS[name] * (SECOND_ORDER_FACTOR if "second" in what else 1)
    assert_close_ulps(actual, ref, name, ulps, 1.0, err_msg=f"{what} values")


def _same_errors(e_exc, t_exc, same_type=True) -> bool:
    """Both raised (the same builtin type when `same_type`) or neither."""
    return (e_exc is None) == (t_exc is None) and (
        e_exc is None or not same_type or isinstance(e_exc, builtin_type(type(t_exc))))


def _grads(side: str, outputs, inputs, cotangents, create_graph: bool):
    """autograd.grad(outputs, inputs, cotangents) (None gradients allowed), or the error."""
    import torch
    grad = ember.autograd.grad if side == "ember" else torch.autograd.grad
    return call(grad, (outputs, inputs),
                {"grad_outputs": cotangents, "allow_unused": True, "create_graph": create_graph})


def _compare_grads(spec, head, what, e_g, e_exc, t_g, t_exc, inputs, precision=None):
    """Both backwards raise (of any type: torch's backward checks are internal ones) or
    neither; then each input's gradient (None: zeros)."""
    if t_exc is not None and spec.name in TORCH_NO_DERIVATIVE and \
            "not implemented" in str(t_exc):
        return
    if not _same_errors(e_exc, t_exc, same_type=False):
        raise Mismatch(f"{head}\n  {what}:\n  ember: {brief(e_exc if e_exc else e_g)}"
                       f"\n  torch: {brief(t_exc if t_exc else t_g)}")
    if t_exc is not None:
        return
    import torch
    for i, (e, t, x) in enumerate(zip(e_g, t_g, inputs)):
        # (first order: autograd.grad without allow_unused would raise; a second gradient
        # depends on how the backward formula is written)
        if e is None and t is not None and what == "gradient":
            raise Mismatch(f"{head}\n  {what} of input {i}: None (not in ember's graph), "
                           f"torch's {brief(t)}")
        t = torch.zeros_like(x) if t is None else t
        e = ember.zeros(tuple(x.shape), dtype=getattr(ember, dtype_name(x.dtype))) \
            if e is None else e
        try:
            compare_tensor(e, t, f"{what} of input {i}", precision)
        except AssertionError as err:
            lines = str(err).strip().splitlines()
            detail = "\n  ".join(line for line in lines if line.strip())[:1500]
            raise Mismatch(f"{head}\n  {detail}\n  ember: {brief(e)}\n  torch: {brief(t)}") \
                from None


def _inexact_float32_exponent(args) -> bool:
    """A float32 self and an integral exponent e with e or e - 1 not a float32."""
    import torch
    if len(args) < 2 or args[0].dtype != torch.float32 or type(args[1]) is not int:
        return False
    return any(float(np.float32(e)) != e for e in (args[1], args[1] - 1))


# --------------------------------------------------------------------------- running
def run_grad_case(spec: OpSpec, case: Case, seed: int, double: bool):
    """Call the op on ember and torch leaves built from `case`, compare the forward, the
    gradients of the cotangent-weighted outputs (cotangents drawn from `seed`) and, when
    `double`, the gradients of the gradients' weighted sum."""
    import torch
    t_leaves, e_leaves = [], []
    inplace = spec.kind == "inplace"
    t_args = [build(a, "torch", t_leaves, clone=inplace and i == 0)
              for i, a in enumerate(case.args)]
    t_kwargs = build(case.kwargs, "torch", t_leaves)
    reject_if(spec.fn.op_name in INT_MIN_TRAPS and _has_int_min(t_args)
              or constant_row(spec, t_args)
              or spec.fn.op_name in NAN_SORTED and _has_nan(t_args)
              or spec.fn.op_name in TIED_SELECTION and t_args and _has_ties(t_args[0])
              or spec.fn.op_name in BOOL_EXPONENT and any(a is False or a is True
                                                          for a in case.args))
    t_res, t_exc = call(aten(torch.ops.aten, spec), t_args, t_kwargs)
    reject_if(any(min(r.shape, default=0) < 0 for r in flat_tensors(t_res))
              or TORCH_NO_COMPLEX_AUTOGRAD in str(t_exc)
              or any(bug in str(t_exc) for bug in TORCH_INTERNAL_ERRORS)
              or spec.name in EXPANDED_GARBAGE and t_args and
              any(s == 0 and n > 1 for n, s in zip(t_args[0].shape, t_args[0].stride())))
    e_args = [build(a, "ember", e_leaves, clone=inplace and i == 0)
              for i, a in enumerate(case.args)]
    e_kwargs = build(case.kwargs, "ember", e_leaves)
    e_res, e_exc = call(aten(ember.ops.aten, spec), e_args, e_kwargs)
    head = f"aten.{spec.name}({case!r})" + (" [double backward]" if double else "")

    # the forward (a disagreement of an op the forward fuzzer knows about is its business)
    if not _same_errors(e_exc, t_exc):
        reject_if(spec.name in KNOWN or spec.name in NO_COMPLEX_KERNEL and
                  isinstance(e_exc, NotImplementedError) and "Complex" in str(e_exc))
        raise Mismatch(f"{head}\n  forward:\n  ember: {brief(e_exc if e_exc else e_res)}"
                       f"\n  torch: {brief(t_exc if t_exc else t_res)}")
    if t_exc is not None:
        return
    e_outs, t_outs = flat_tensors(e_res), flat_tensors(t_res)
    try:
        assert len(e_outs) == len(t_outs), f"{len(e_outs)} outputs, torch {len(t_outs)}"
        for i, (e, t) in enumerate(zip(e_outs, t_outs)):
            compare_tensor(e, t, f"output {i}")
    except AssertionError as err:
        reject_if(spec.name in KNOWN)
        raise Mismatch(f"{head}\n  forward: {str(err).strip().splitlines()[0]}"
                       f"\n  ember: {brief(e_res)}\n  torch: {brief(t_res)}") from None
    t_flags = [t.requires_grad for t in t_outs]
    e_flags = [e.requires_grad for e in e_outs]
    if e_flags != t_flags:
        raise Mismatch(f"{head}\n  outputs requiring grad: ember {e_flags} torch {t_flags}")
    if spec.name not in NODE_NAMES_DIFFER:
        e_nodes, t_nodes = node_names(e_outs), node_names(t_outs)
        if e_nodes != t_nodes:
            raise Mismatch(f"{head}\n  grad_fn.name(): ember {e_nodes} torch {t_nodes}")
    chosen = [i for i, f in enumerate(t_flags) if f]
    if not chosen or not t_leaves:
        return

    # the first gradients
    rng = np.random.default_rng(seed)
    cot_arrays = [(random_like(rng, t_outs[i], "torch"), i) for i in chosen]
    t_cots = [c.requires_grad_(double) for c, _ in cot_arrays]
    e_cots = [ember_of(to_np(c.detach())).to(e_outs[i].dtype).requires_grad_(double)
              for c, i in cot_arrays]
    reject_if(double and spec.name in TORCH_CREATE_GRAPH_DIFFERS
              or spec.name in TORCH_CANCELLATION and _near_zero(t_leaves))
    reject_if(spec.name in TORCH_NONFINITE_UNSPECIFIED and
              any(not bool(x.isfinite().all()) for x in t_leaves)
              or spec.name in TORCH_NEGATIVE_ZERO_PATH and
              any(bool(((x == 0) & x.signbit()).any()) for x in t_leaves)
              or spec.name in TORCH_FLOAT32_EXPONENT_PATH and _inexact_float32_exponent(t_args)
              or spec.name in TORCH_COMPLEX_ADD_NAN and
              any(x.is_complex() and not bool(x.isfinite().all()) for x in t_leaves)
              or spec.name in TORCH_SIMD_NAN and _holds_nan(t_args, t_leaves))
    t_g, t_gexc = _grads("torch", [t_outs[i] for i in chosen], t_leaves, t_cots, double)
    if t_gexc is None:      # (gather's sparse_grad=True gives a sparse gradient; ember's is dense)
        t_g = [g.to_dense() if g is not None and g.is_sparse else g for g in t_g]
    # (torch's complex-output refusal comes at backward for in-place ops: scatter_reduce_)
    reject_if(any(bug in str(t_gexc) for bug in TORCH_INTERNAL_ERRORS + TORCH_BACKWARD_BUGS)
              or TORCH_NO_COMPLEX_AUTOGRAD in str(t_gexc))
    e_g, e_gexc = _grads("ember", [e_outs[i] for i in chosen], e_leaves, e_cots, double)
    precision = least_precise(t_leaves + [t_outs[i] for i in chosen])
    _compare_grads(spec, head, "gradient", e_g, e_gexc, t_g, t_gexc, t_leaves, precision)
    if not double or t_gexc is not None:
        return

    # the gradients of the gradients (with respect to the leaves and the cotangents)
    both = [i for i, (e, t) in enumerate(zip(e_g, t_g))
            if e is not None and t is not None and e.requires_grad and t.requires_grad]
    if not both:
        return
    t_w = [random_like(rng, t_g[i], "torch") for i in both]
    e_w = [ember_of(to_np(w)).to(e_g[i].dtype) for w, i in zip(t_w, both)]
    t_gg, t_ggexc = _grads("torch", [t_g[i] for i in both], t_leaves + t_cots, t_w, False)
    reject_if(any(bug in str(t_ggexc) for bug in TORCH_INTERNAL_ERRORS + TORCH_BACKWARD_BUGS))
    e_gg, e_ggexc = _grads("ember", [e_g[i] for i in both], e_leaves + e_cots, e_w, False)
    if spec.name in TORCH_SECOND_ORDER_NAN and t_ggexc is None and e_ggexc is None:
        masks = [None if t is None else t.isnan() for t in t_gg]
        t_gg = [t if m is None else t.masked_fill(m, 0) for t, m in zip(t_gg, masks)]
        e_gg = [e if e is None or m is None else ember.where(ember_of(m.numpy()),
                                                             e.new_zeros(()), e)
                for e, m in zip(e_gg, masks)]
    _compare_grads(spec, head, "second gradient", e_gg, e_ggexc, t_gg, t_ggexc,
                   t_leaves + t_cots, precision)
