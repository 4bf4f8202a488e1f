"""The gradient of every differentiable aten overload, driven by the schema.

The ops under test are the overloads that got a generated Autograd kernel from
schema/derivatives.yaml (functional and in-place); each needs gradient samples, else
test_every_differentiable_op_has_gradient_samples fails. Samples come from
tests/ops/opinfo.py (those with floating arrays; errors, NaN/inf and large inputs
skipped) plus tests/autograd/grad_samples.py. Each floating array becomes a leaf that
requires grad; non-contiguous inputs (opinfo `View`s) are made from their leaf inside the
checked function, and in-place ops run on a clone of their leaf (or a view of one).
For each (op, sample), test_op_gradients checks:

  (a) ember.autograd.gradcheck passes (float64 leaves, float64 outputs),
  (b) ember.autograd.gradgradcheck passes (the backward is differentiable and right),
  (c) the gradients match torch's: the same op (torch.ops.aten.<op>.<overload>) on the
      same float32 (float64 stays float64) inputs, outputs times a fixed random cotangent;
      every leaf's gradient (None or not, dtype, shape, values) equals torch's.

    .venv/bin/python -m pytest tests/autograd/test_op_gradients.py -q -k "mul_.Tensor"
"""
from __future__ import annotations

import sys
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import yaml
from helpers import aten_op, builtin_type, ember_of, np_dtype, sample_value, to_np, torch_of

import ember
import ember._generated.autograd as generated_autograd
import ember._generated.functions as generated_functions
from ember._generated import ops as generated_ops
from ember.autograd import array_formulas, formulas
from ember.dispatch import keys as K
from ember.dispatch.dispatcher import OpOverload

torch = pytest.importorskip("torch")
# where.self's uint8-condition sample warns again in the backward (torch's does too)
pytestmark = pytest.mark.filterwarnings("ignore:where received a uint8 condition")

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS / "ops"))
from grad_samples import EXTRA, seeded
from opinfo import DEVICE, OPS, SampleInput, View

DERIVATIVES = TESTS.parent / "schema" / "derivatives.yaml"
MAX_NUMEL = 24           # elements per input array (gradcheck runs a backward per element)
# gradients against torch's: sums of a few products, so a few ulps of the precision the
# case computes in (float32 unless every leaf and output is float64)
TOLS = {"float32": (1e-5, 1e-5), "float64": (1e-10, 1e-12)}
# ops whose torch gradient is less accurate than TOLS in float64: torch's trigamma and higher
# polygammas are good to ~1e-9 (ember's, scipy's, agree with mpmath); gradcheck still runs
TORCH_LESS_ACCURATE = {name: {"float64": (1e-8, 1e-10)} for name in (
    "digamma.default", "digamma_.default", "polygamma.default", "polygamma_.default",
    "mvlgamma.default", "mvlgamma_.default")}

# (op, sample): why a sample is not gradcheck'ed (its torch comparison still runs)
NO_GRADCHECK = {
    ("linalg_svd.default", "full_tall"):
        "the last m - k columns of U are not determined by A: their gradient is ignored (as "
        "torch's is), which finite differences of a loss reading them disagree with",
    **{("linalg_svd.default", name): "complex singular vectors are defined up to a phase each, "
       "which the loss of every output depends on (its gradient raises, like torch's): "
       "tests/linalg gradchecks a phase-invariant loss" for name in ("complex64_tall",
                                                                    "complex128_wide")},
    **{(op, "input_offset_overridden"):
       "reads storage outside its (view) input: the gradient can only reach the input's "
       "own elements, in torch too" for op in ("as_strided.default", "as_strided_copy.default")},
}
# what torch's and ember's backward raise for ops without a formula (floor_divide)
NOT_IMPLEMENTED = "is not implemented"
# (op, sample): why torch itself cannot serve as the reference
TORCH_BROKEN = {
    # torch's formulas subtract or negate the bool input (other - self, -self), which raises
    **{(op, "bool_float32"): "torch's backward subtracts from the bool self" for op in (
        "logaddexp.default", "logaddexp2.default", "special_zeta.default", "igamma.default",
        "igammac.default")},
    ("pow.Scalar", "bool_base"): "torch's backward fails an internal assert for a bool base",
    ("atan2.default", "bool_float32"): "torch's backward negates the bool self (and raises)",
    # (op, "*"): every sample of the op
    ("silu_backward.default", "*"): "torch 2.13 has no derivative for silu_backward (its silu "
                                    "backward is a composite in grad mode); ember's has one",
    ("hardsigmoid_backward.default", "*"): "torch 2.13 has no derivative for "
                                           "hardsigmoid_backward; ember's has one",
    ("mish_backward.default", "*"): "torch 2.13 has no derivative for mish_backward (its mish "
                                    "backward is a composite in grad mode); ember's has one",
    # torch's embedding_dense_double_backward ignores scale_grad_by_freq (ember divides by
    # the counts, which gradcheck confirms) and fails to reshape an empty grad
    **{("embedding_dense_backward.default", s): "torch ignores scale_grad_by_freq"
       for s in ("scale_padding", "float16_int32", "small_scale_padding")},
    ("embedding_dense_backward.default", "empty"): "torch's double backward fails to reshape",
    # torch's double backward is not implemented for some inputs (mean/rstd,
    # save_mean/save_invstd); ember's is checked by gradcheck only
    ("native_layer_norm_backward.default", "*"): "torch: double backward not implemented",
    **{(op, "empty"): "torch's backward views an empty grad as complex and fails its stride "
                      "check" for op in ("view_as_real.default", "view_as_real_copy.default")},
    **{(op, "*"): "torch refuses autograd for the complex output of this copy (see "
                  "TORCH_NO_COMPLEX_OUTPUT_GRAD)" for op in ("_conj_copy.default",
                                                            "view_as_complex_copy.default")},
    ("native_batch_norm_backward.default", "*"): "torch: double backward not implemented",
    ("linalg_svd.default", "*"): "singular vectors are defined up to sign, which differs between "
                                 "LAPACK builds (torch's MKL, NumPy's OpenBLAS): so do the "
                                 "gradients of a sign-dependent loss; gradcheck'ed",
    ("linalg_eig.default", "*"): "eigenvectors are defined up to a complex phase each, which "
                                 "differs between LAPACK builds and which a random cotangent's "
                                 "loss depends on (both backwards refuse it); tests/linalg "
                                 "gradchecks phase-invariant losses against torch's",
    **{("linalg_eigh.default", name): "complex eigenvectors: the same phase" for name in (
        "complex64", "complex128_batched")},
    ("linalg_det.default", "singular"): "torch's first-order backward solves with det * I, zero "
                                        "for a singular A (its adjugate formula runs only under "
                                        "create_graph); ember's is the adjugate, gradcheck'ed",
    ("as_strided_scatter.default", "*"):
        "torch's self gradient keeps grad inside the scattered window and zeroes the rest, "
        "the opposite of the right one (torch's own gradcheck fails); ember's passes gradcheck",
}
# copies whose complex output torch's autograd refuses in the forward ("does not support
# automatic differentiation for outputs with complex dtype": they are not on its list of ops
# differentiable with complex outputs); ember's (their view's formula) is gradcheck'ed
TORCH_NO_COMPLEX_OUTPUT_GRAD = {"_conj_copy.default", "view_as_complex_copy.default"}
# ops whose (torch's) formula is a zero gradient although their seeded output mean + std * z
# depends on the input: compared with torch's gradients, never gradcheck'ed
NOT_GRADCHECKED = {"normal.Tensor_float", "normal.float_Tensor", "normal.Tensor_Tensor",
                   # read one triangle of a symmetric input: their (torch's) gradient is the
                   # symmetric one, which finite differences of the unread triangle cannot
                   # see; tests/linalg gradchecks them through a symmetric input
                   "linalg_cholesky_ex.default", "linalg_eigh.default",
                   # tests/linalg (phase-invariant losses)
                   "linalg_eig.default",
                   # a buffer / noise argument that must not require grad (torch raises
                   # too), and every floating array here is a leaf: tests/ops/
                   # test_activation_ops.py gradchecks them through log_sigmoid and rrelu
                   "log_sigmoid_backward.default", "rrelu_with_noise.default",
                   "rrelu_with_noise_.default", "rrelu_with_noise_backward.default"}
# ops whose torch backward raises "derivative for aten::<op> is not implemented" (a
# NotImplemented node): ember gives the zero gradient of sampling ops and copy's
# gradients (those of copy_), checked by gradcheck
# torch has CUDA kernels only (its CPU cells decompose): gradcheck'ed here, compared with
# torch's cell formulas in tests/nn/test_rnn_fused.py
TORCH_NO_CPU_KERNEL = {"_thnn_fused_lstm_cell.default", "_thnn_fused_gru_cell.default",
                       "_thnn_fused_lstm_cell_backward_impl.default",
                       "_thnn_fused_gru_cell_backward.default"}
TORCH_NOT_IMPLEMENTED = {"bernoulli.p", "copy.default", "normal_functional.default",
                         "randint_like.default", "randint_like.Tensor",
                         "randint_like.low_dtype", "randint_like.generator",
                         "randint_like.Tensor_generator", "randint_like.low_generator_dtype"}


# --------------------------------------------------------------------------- the ops
def aten_name(op: OpOverload) -> str:
    return f"{op.name}.{op.overload_name}"


def differentiable_ops() -> list[str]:
    """Every overload with a generated Autograd kernel (a derivatives.yaml formula)."""
    names = []
    for ident in vars(generated_autograd):
        if ident.startswith("_ag_"):
            names.append(aten_name(getattr(generated_ops, ident[4:])))
    return sorted(names)


def schema_overloads() -> dict:
    return {aten_name(o): o for o in vars(generated_ops).values()
            if isinstance(o, OpOverload) and o.namespace == "aten"}


def non_differentiable_entries() -> list[str]:
    """derivatives.yaml entries whose outputs never require grad."""
    out = []
    for e in yaml.safe_load(DERIVATIVES.read_text()):
        if not any(e.get("output_differentiability", [True])):
            name = e["name"].split("(")[0]
            out.append(name if "." in name else f"{name}.default")
    return sorted(out)


def ember_op(name):
    return aten_op(ember.ops.aten, name)


def torch_op(name):
    return aten_op(torch.ops.aten, name)


def is_inplace(name) -> bool:
    return "Tensor(a!) self" in ember_op(name)._schema_str


# --------------------------------------------------------------------------- samples
@dataclass(frozen=True)
class Leaf:
    """A floating array of a sample: the index-th leaf that requires grad."""
    index: int


@dataclass
class Case:
    """One sample prepared for the gradient checks: `template` is the sample's
    (args, kwargs) with each floating array replaced by a Leaf."""
    name: str
    sample: SampleInput
    template: tuple
    arrays: list
    gradcheck: bool = True   # False at non-differentiable points: torch comparison only


def is_float(a: np.ndarray) -> bool:
    """A floating or complex array: a leaf that requires grad."""
    return a.dtype.kind in "fc" or a.dtype == np_dtype("bfloat16")


def templatize(x, arrays):
    if isinstance(x, np.ndarray):
        if is_float(x):
            arrays.append(x)
            return Leaf(len(arrays) - 1)
        return x
    if isinstance(x, View):
        return View(templatize(x.base, arrays), x.op, x.args)
    if isinstance(x, list):
        return [templatize(v, arrays) for v in x]
    if isinstance(x, tuple):
        return tuple(templatize(v, arrays) for v in x)
    if isinstance(x, dict):
        return {k: templatize(v, arrays) for k, v in x.items()}
    return x


def _arrays_in(x):
    if isinstance(x, np.ndarray):
        return [x]
    if isinstance(x, View):
        return _arrays_in(x.base)
    if isinstance(x, (list, tuple)):
        return [a for v in x for a in _arrays_in(v)]
    if isinstance(x, dict):
        return [a for v in x.values() for a in _arrays_in(v)]
    return []


def usable(sample: SampleInput) -> bool:
    """A sample the gradient checks can use: no expected error, a floating array, small,
    finite values."""
    arrays = _arrays_in((sample.args, sample.kwargs))
    floats = [a for a in arrays if is_float(a)]
    return (not sample.name.endswith("_error") and bool(floats)
            and all(a.size <= MAX_NUMEL for a in arrays)
            and all(np.isfinite(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))
                    .all() for a in floats))


def structure(x):
    """A sample with its float values left out (samples differing only in the float
    dtype become the same float64 case)."""
    if isinstance(x, np.ndarray):
        return ("float", x.dtype.kind == "c", x.shape) if is_float(x) else (
            x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, View):
        return ("view", structure(x.base), x.op, repr(x.args))
    if isinstance(x, (list, tuple)):
        return tuple(structure(v) for v in x)
    if isinstance(x, dict):
        return tuple((k, structure(v)) for k, v in sorted(x.items()))
    return repr(x)


def floating_output(name, sample) -> bool:
    """Whether the op gives a floating (differentiable) output for the sample, or raises
    (the checks then compare the exception with torch's)."""
    arrays = []
    case = Case(name, sample, templatize((sample.args, sample.kwargs), arrays), arrays)
    try:
        with ember.no_grad():
            outs = run(case, make_leaves(arrays, "ember"), "ember")
    except (RuntimeError, TypeError, ValueError, IndexError, NotImplementedError):
        return True
    return any(o.is_floating_point() or o.is_complex() for o in outs)


def gradient_cases(name) -> list[Case]:
    samples = list(EXTRA.get(name, []))
    if name in OPS:   # opinfo's samples, with random values that depend on the op only
        samples += seeded(OPS[name].samples, zlib.crc32(name.encode()))
    cases, seen = [], set()
    for s in samples:
        if not usable(s) or not floating_output(name, s):
            continue
        key = structure((s.args, s.kwargs))
        if key in seen:
            continue
        seen.add(key)
        arrays = []
        template = templatize((s.args, s.kwargs), arrays)
        smooth = not s.name.startswith("nonsmooth") and (name, s.name) not in NO_GRADCHECK \
            and name not in NOT_GRADCHECKED
        cases.append(Case(name, s, template, arrays, smooth))
    return cases


# --------------------------------------------------------------------------- running
def make_leaves(arrays, side, dtype=None):
    """Leaves that require grad: float64 (dtype="float64") or float32 with float64
    arrays kept float64 (dtype=None); complex arrays likewise complex128 or complex64."""
    leaves = []
    for a in arrays:
        wide = dtype == "float64" or a.dtype in (np.float64, np.complex128)
        dt = (np.complex128 if wide else np.complex64) if a.dtype.kind == "c" else \
            (np.float64 if wide else np.float32)
        a = np.array(a, dtype=dt)
        t = ember_of(a) if side == "ember" else torch_of(a)
        leaves.append(t.requires_grad_())
    return leaves


def materialize(x, leaves, side, clone=False):
    """The template as ember or torch arguments; `clone`: leaves are cloned (the self of
    an in-place op)."""
    if isinstance(x, Leaf):
        leaf = leaves[x.index]
        return leaf.clone() if clone else leaf
    if isinstance(x, np.ndarray):
        return ember_of(x) if side == "ember" else torch_of(x)
    if isinstance(x, View):
        op = ember_op(x.op) if side == "ember" else torch_op(x.op)
        return op(materialize(x.base, leaves, side, clone), *x.args)
    if isinstance(x, list):
        return [materialize(v, leaves, side) for v in x]
    if isinstance(x, tuple):
        return tuple(materialize(v, leaves, side) for v in x)
    if isinstance(x, dict):
        return {k: materialize(v, leaves, side) for k, v in x.items()}
    if x is DEVICE:
        return "cpu"
    return sample_value(x, side)


def torch_callable(name, args):
    """torch.ops.aten.<op>, or torch's public API when a Python number stands for a
    non-first Tensor argument (torch.ops rejects those, the public API wraps them)."""
    arguments = ember_op(name).schema.arguments.flat()
    if any(i and str(a.type) == "Tensor" and isinstance(v, (bool, int, float, complex))
           for i, (a, v) in enumerate(zip(arguments, args))):
        packet = name.split(".")[0]
        return getattr(torch.Tensor, packet) if is_inplace(name) else getattr(torch, packet)
    return torch_op(name)


def run(case: Case, leaves, side):
    """The op on the leaves: a list of its outputs."""
    (args, kwargs) = case.template
    inplace = is_inplace(case.name)
    args = tuple(materialize(a, leaves, side, clone=inplace and i == 0)
                 for i, a in enumerate(args))
    kwargs = materialize(kwargs, leaves, side)
    fn = ember_op(case.name) if side == "ember" else torch_callable(case.name, args)
    if "nondeterministic_seeded" in ember_op(case.name).tags:  # the same draws each call
        (ember if side == "ember" else torch).manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(*args, **kwargs)
    return list(out) if isinstance(out, (list, tuple)) else [out]


def differentiable(outputs):
    return [o for o in outputs if o.requires_grad]


def cotangents(outputs):
    """A fixed random cotangent per output (torch tensors, in the output's dtype)."""
    rng = np.random.default_rng(0)

    def draw(o):
        a = rng.standard_normal(tuple(o.shape))
        return a + 1j * rng.standard_normal(tuple(o.shape)) if o.is_complex() else a
    return [torch.from_numpy(np.asarray(draw(o))).to(o.dtype) for o in outputs]


def same_gauge(name, e_out, t_out, e_cot):
    """e_cot for ember's outputs in torch's gauge: real eigenvectors are defined up to a
    sign each, which differs between LAPACK builds (torch's, NumPy's), and so does the
    gradient of a loss reading them; a column whose sign differs gets its cotangent's
    column negated, which gives torch's gradient exactly."""
    if name != "linalg_eigh.default" or e_out[1].is_complex():
        return e_cot
    flip = np.sign(np.sum(to_np(e_out[1].detach()) * to_np(t_out[1].detach()), axis=-2,
                          keepdims=True))
    return [e_cot[0], e_cot[1] * ember_of(flip.astype(to_np(t_out[1].detach()).dtype))]


def ember_of_torch(t):
    return ember_of(to_np(t)).to(getattr(ember, str(t.dtype).removeprefix("torch.")))


# --------------------------------------------------------------------------- the checks
def forward_error(case: Case):
    """torch's exception for the sample, after checking ember raises the same type."""
    t_leaves = make_leaves(case.arrays, "torch")
    try:
        run(case, t_leaves, "torch")
    except Exception as t_exc:  # noqa: BLE001  (compared with ember's)
        with pytest.raises(Exception) as e_info:
            run(case, make_leaves(case.arrays, "ember"), "ember")
        assert builtin_type(type(e_info.value)) is builtin_type(type(t_exc)), \
            (e_info.value, t_exc)
        return t_exc
    return None


def check_against_torch(case: Case) -> bool:
    """(c): the gradients of sum(outputs * cotangent) equal torch's. False when torch's
    backward is not implemented (ember's must raise too): nothing to gradcheck."""
    t_leaves = make_leaves(case.arrays, "torch")
    e_leaves = make_leaves(case.arrays, "ember")
    t_out = run(case, t_leaves, "torch")
    e_out = run(case, e_leaves, "ember")
    assert [o.requires_grad for o in e_out] == [o.requires_grad for o in t_out], \
        "outputs requiring grad differ from torch's"
    t_diff, e_diff = differentiable(t_out), differentiable(e_out)
    if not t_diff:
        return
    t_cot = cotangents(t_diff)
    e_cot = same_gauge(case.name, e_diff, t_diff, [ember_of_torch(c) for c in t_cot])
    try:
        t_grads = torch.autograd.grad(t_diff, t_leaves, t_cot, allow_unused=True)
    except RuntimeError as t_exc:  # torch has no formula (floor_divide): ember's raises too
        if NOT_IMPLEMENTED not in str(t_exc):
            raise
        with pytest.raises(RuntimeError, match=NOT_IMPLEMENTED):
            ember.autograd.grad(e_diff, e_leaves, e_cot, allow_unused=True)
        return False
    e_grads = ember.autograd.grad(e_diff, e_leaves, e_cot, allow_unused=True)
    all64 = all(x.dtype in (torch.float64, torch.complex128) for x in [*t_leaves, *t_diff])
    kind = "float64" if all64 else "float32"
    rtol, atol = TORCH_LESS_ACCURATE.get(case.name, {}).get(kind, TOLS[kind])
    for i, (e, t) in enumerate(zip(e_grads, t_grads)):
        what = f"gradient of leaf {i}"
        assert (e is None) == (t is None), f"{what}: ember {e}, torch {t}"
        if t is None:
            continue
        assert tuple(e.shape) == tuple(t.shape), f"{what} shape: {e.shape} vs {t.shape}"
        assert e.dtype.name == str(t.dtype).removeprefix("torch."), f"{what} dtype"
        np.testing.assert_allclose(to_np(e.detach()), to_np(t), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=what)
    return True


def checked_function(case: Case):
    """fn(*leaves) -> outputs, the function gradcheck differentiates."""
    return lambda *leaves: tuple(run(case, list(leaves), "ember"))


def float64_outputs(case: Case, leaves) -> bool:
    """gradcheck needs float64 outputs (a float32 cast loses the finite differences)."""
    outs = differentiable(run(case, leaves, "ember"))
    return bool(outs) and all(o.dtype in (ember.float64, ember.complex128) for o in outs) and all(
        np.isfinite(to_np(o.detach())).all() for o in outs)


DIFFERENTIABLE = differentiable_ops()
CASES = {name: gradient_cases(name) for name in DIFFERENTIABLE}
CASE_PARAMS = [pytest.param(name, case, id=f"{name}-{case.sample.name or i}")
               for name in DIFFERENTIABLE for i, case in enumerate(CASES[name])]


@pytest.mark.parametrize("name,case", CASE_PARAMS)
def test_op_gradients(name, case):
    """(c) against torch, then (a) gradcheck and (b) gradgradcheck in float64; a sample
    torch rejects must make ember raise the same exception type."""
    no_torch = name in TORCH_NO_CPU_KERNEL
    if name not in TORCH_NO_COMPLEX_OUTPUT_GRAD and not no_torch and \
            forward_error(case) is not None:
        return
    broken = (name, case.sample.name) in TORCH_BROKEN or (name, "*") in TORCH_BROKEN or no_torch
    if no_torch and backward_not_implemented(case):     # (nor has torch a formula)
        return
    if not broken and name not in TORCH_NOT_IMPLEMENTED and check_against_torch(case) is False:
        return
    leaves = make_leaves(case.arrays, "ember", "float64")
    if not (case.gradcheck and float64_outputs(case, leaves)):
        return
    fn = checked_function(case)
    assert ember.autograd.gradcheck(fn, leaves)
    assert ember.autograd.gradgradcheck(fn, leaves)


# --------------------------------------------------------------------------- coverage
def gradcheckable(case: Case) -> bool:
    """Whether test_op_gradients runs gradcheck on the case."""
    if not case.gradcheck:
        return False
    try:
        return float64_outputs(case, make_leaves(case.arrays, "ember", "float64"))
    except (RuntimeError, TypeError, ValueError, IndexError):
        return False


def backward_not_implemented(case: Case) -> bool:
    """Whether the op's backward raises "not implemented" (a `not_implemented(...)`
    formula, where torch has none either)."""
    leaves = make_leaves(case.arrays, "ember", "float64")
    outs = differentiable(run(case, leaves, "ember"))
    try:
        ember.autograd.grad(outs, leaves, [ember.ones_like(o) for o in outs], allow_unused=True)
    except RuntimeError as e:
        return NOT_IMPLEMENTED in str(e)
    return False


def test_every_differentiable_op_has_gradient_samples():
    """A new derivatives.yaml entry (or in-place variant) without samples fails here."""
    assert DIFFERENTIABLE, "no generated Autograd kernels found"
    missing = [n for n in DIFFERENTIABLE if not CASES[n]]
    assert not missing, ("differentiable overloads without gradient samples (add floating "
                         f"samples in tests/autograd/grad_samples.py): {missing}")
    unchecked = [n for n in DIFFERENTIABLE if n not in NOT_GRADCHECKED
                 and not any(gradcheckable(c) for c in CASES[n])
                 and not backward_not_implemented(CASES[n][0])]
    assert not unchecked, f"differentiable overloads never gradcheck'ed: {unchecked}"
    unknown = sorted(set(EXTRA) - set(DIFFERENTIABLE))
    assert not unknown, f"grad_samples.py names non-differentiable overloads: {unknown}"


def test_every_op_has_a_derivative():
    """Each overload that can see a tensor requiring grad has a derivative entry (or is an
    out= variant): none records a NotImplemented node."""
    missing = []
    for name, op in schema_overloads().items():
        entry = op._table.get(K.key_of("Autograd"))
        fn = entry[0] if isinstance(entry, tuple) else None
        if fn is not None and "autograd_not_implemented" in getattr(fn, "__qualname__", ""):
            missing.append(name)
    assert not missing, f"overloads without a schema/derivatives.yaml entry: {missing}"


# non-differentiable entries whose tensor inputs cannot be floating point
INTEGER_INPUTS_ONLY = {"repeat_interleave.Tensor"}


@pytest.mark.parametrize("name", non_differentiable_entries())
def test_non_differentiable_outputs(name):
    """Ops declared `output_differentiability: [False]` give outputs that do not require
    grad even from inputs that do, like torch's."""
    if name in INTEGER_INPUTS_ONLY:
        pytest.skip("the op takes integer tensors only: nothing can require grad")
    samples = [s for s in OPS[name].samples() if usable(s)]
    assert samples, f"{name}: no floating sample in tests/ops/opinfo.py"
    arrays = []
    case = Case(name, samples[0], templatize((samples[0].args, samples[0].kwargs), arrays),
                arrays)
    if forward_error(case) is not None:  # no floating input accepted (bitwise_not): raised
        return                           # like torch's
    e_leaves = make_leaves(arrays, "ember")
    t_leaves = make_leaves(arrays, "torch")
    e_out, t_out = run(case, e_leaves, "ember"), run(case, t_leaves, "torch")
    assert [o.requires_grad for o in t_out] == [False] * len(t_out)
    assert [o.requires_grad for o in e_out] == [False] * len(e_out)
    assert all(o.grad_fn is None for o in e_out)


def test_gradcheck_of_a_constant_output():
    """torch's gradcheck accepts a float output that does not require grad (its numerical
    Jacobian must be zero), e.g. the zero first derivative of copy_'s self."""
    x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: (t.new_zeros(2), t * 2), (x,))


def test_inplace_into_integer_tensor_does_not_require_grad():
    """torch: an in-place op writing floats that require grad into an int tensor gives an
    int tensor that does not require grad (integers never do)."""
    def scenario(lib):
        src = lib.ones(3, requires_grad=True)
        return lib.zeros(3, dtype=lib.int32).copy_(src).requires_grad
    assert scenario(ember) == scenario(torch)


# --------------------------------------------------------------------------- in-place
def test_inplace_through_clone_matches_torch():
    """x.clone().mul_(y), then more ops: gradients of x and y equal torch's."""
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4,))

    def scenario(lib, x, y):
        z = x.clone().mul_(y)
        z[1].add_(y, alpha=2)
        return (z.tanh() * z).sum()

    tx, ty = (torch_of(v).requires_grad_() for v in (a, b))
    ex, ey = (ember_of(v).requires_grad_() for v in (a, b))
    t_grads = torch.autograd.grad(scenario(torch, tx, ty), (tx, ty))
    e_grads = ember.autograd.grad(scenario(ember, ex, ey), (ex, ey))
    for e, t in zip(e_grads, t_grads):
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)

    def fn(x, y):
        return scenario(ember, x, y)
    assert ember.autograd.gradcheck(fn, (ex, ey))
    assert ember.autograd.gradgradcheck(fn, (ex, ey))


# --------------------------------------------------------------------------- wrong formulas
def _leaf(*shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return ember_of(a).requires_grad_()


def test_gradcheck_catches_a_wrong_formula(monkeypatch):
    """A derivative helper that reshapes instead of permuting back fails gradcheck (raises,
    and returns False with raise_exception=False)."""
    x = _leaf(2, 3, 4)

    def permuted(t):
        return t.permute(1, 2, 0)
    assert ember.autograd.gradcheck(permuted, (x,))
    monkeypatch.setattr(formulas, "permute_backward",
                        lambda grad, dims: grad.reshape(2, 3, 4))   # right shape, wrong order
    with pytest.raises(ember.autograd.GradcheckError, match="Jacobian mismatch"):
        ember.autograd.gradcheck(permuted, (x,))
    assert ember.autograd.gradcheck(permuted, (x,), raise_exception=False) is False


def test_gradcheck_catches_a_wrong_scale(monkeypatch):
    """sigmoid's derivative off by a factor (y instead of y(1 - y)) fails gradcheck."""
    x = _leaf(3, 2)
    monkeypatch.setattr(generated_functions, "sigmoid_backward",
                        lambda grad, result: grad * result)
    # (and its version on arrays, which the engine runs when nothing observes the ops)
    monkeypatch.setattr(array_formulas, "sigmoid_backward", lambda grad, result: grad * result)
    with pytest.raises(ember.autograd.GradcheckError):
        ember.autograd.gradcheck(ember.sigmoid, (x,))


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable(monkeypatch):
    """tanh's derivative computed from a detached output is right to first order (gradcheck
    passes) but wrong to second order: gradgradcheck must fail."""
    x = _leaf(3, 2)
    monkeypatch.setattr(generated_functions, "tanh_backward",
                        lambda grad, result: grad * (1 - result.detach() * result.detach()))
    assert ember.autograd.gradcheck(ember.tanh, (x,))
    assert ember.autograd.gradgradcheck(ember.sigmoid, (x,))
    with pytest.raises(ember.autograd.GradcheckError):
        ember.autograd.gradgradcheck(ember.tanh, (x,))


def test_torch_comparison_catches_a_wrong_formula(monkeypatch):
    """The comparison with torch is a real check too: a wrong helper makes it fail."""
    case = CASES["amax.default"][0]
    check_against_torch(case)
    monkeypatch.setattr(formulas, "amax_backward",
                        lambda grad, self, result, dims, keepdim: ember.zeros_like(self))
    with pytest.raises(AssertionError):
        check_against_torch(case)


def test_gradcheck_of_a_constant_output_checks_it_is_constant():
    """No output requires grad: the numerical gradient must be zero, else it fails."""
    x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: t.detach() * 0 + 1, (x,))
    with pytest.raises(ember.autograd.GradcheckError, match="expected to be zero"):
        ember.autograd.gradcheck(lambda t: t.detach() * 2, (x,))


def test_gradcheck_catches_a_nondeterministic_backward():
    rng = np.random.default_rng(0)

    class Noisy(ember.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 1

        @staticmethod
        def backward(ctx, g):
            return g * float(rng.uniform(0.5, 1.5))

    x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    with pytest.raises(ember.autograd.GradcheckError, match="not reentrant"):
        ember.autograd.gradcheck(Noisy.apply, (x,))
    assert ember.autograd.gradcheck(Noisy.apply, (x,), raise_exception=False) is False
