"""Every aten overload in schema/native_functions.yaml against torch (an OpInfo suite).

For each (op, sample) of tests/ops/opinfo.py:
  * test_matches_torch: values, dtype, shape and strides vs `torch.ops.aten.<op>` on the
    CPU (float values within the op's tolerance in eps of the dtype, which is checked to
    reject a zeroed answer and one 5% off for every sample); the same aliasing as torch (views share storage, fresh results do not); inputs
    left untouched; in-place ops return self, out= ops return out. When torch raises,
    ember raises the same exception type with torch's message (`torch.` read as `ember.`;
    KEPT_MESSAGES lists the differences kept, with reasons).
  * test_meta_matches_cpu: the op on Meta copies of the inputs gives the CPU result's
    shape, dtype and strides, or raises like the CPU (data-dependent shapes must raise).
Plus hypothesis properties (broadcasting binary ops, reductions) and error messages for
a list of bad calls.

    .venv/bin/python -m pytest tests/ops/test_schema_ops.py -q -k "add.Tensor"
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from fnmatch import fnmatch

import numpy as np
import pytest
from helpers import (
    ACCUMULATING_ULPS,
    COMPLEX,
    EPS,
    FLOATS,
    assert_close_ulps,
    assert_rejects_wrong_answers,
    aten_op,
    builtin_type,
    close_ulps,
    dtype_name,
    ember_of,
    meta_of,
    real_pairs,
    sample_value,
    to_np,
    torch_of,
)
from opinfo import ALL, DEVICE, OPS, OpInfo, SampleInput, View, make, out_names

import ember
from ember._generated import ops as generated_ops
from ember.core.alloc import empty_meta
from ember.core.tensor import from_array
from ember.dispatch.dispatcher import OpOverload

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
hnp = pytest.importorskip("hypothesis.extra.numpy")
given, settings, st = hypothesis.given, hypothesis.settings, hypothesis.strategies

PLACEHOLDER = "not written yet"


# --------------------------------------------------------------------------- op lookup
def schema_ops() -> dict:
    """'add.Tensor' -> OpOverload, for every aten overload generated from the schema."""
    return {f"{o.name}.{o.overload_name}": o for o in vars(generated_ops).values()
            if isinstance(o, OpOverload) and o.namespace == "aten"}


def ember_op(name):
    return aten_op(ember.ops.aten, name)


def torch_op(name):
    return aten_op(torch.ops.aten, name)


# --------------------------------------------------------------------------- conversions
@dataclass(frozen=True)
class OnMeta:
    """A Meta tensor argument (error cases mixing devices)."""
    shape: tuple
    dtype: str = "float32"


def np_to_ember(a: np.ndarray):
    """A CPU tensor owning a copy of `a`, with torch's strides (also for empty arrays, whose
    NumPy strides are 0)."""
    return ember_of(a) if a.size == 0 else from_array(np.array(a, copy=True, order="C"))


def materialize(x, side: str):
    """A sample value as ember (side="ember") or torch (side="torch") objects on the CPU."""
    if isinstance(x, np.ndarray):
        return np_to_ember(x) if side == "ember" else torch_of(x)
    if isinstance(x, View):
        op = ember_op(x.op) if side == "ember" else torch_op(x.op)
        return op(materialize(x.base, side), *x.args)
    if isinstance(x, OnMeta):
        if side == "ember":
            return empty_meta(x.shape, getattr(ember, x.dtype))
        return torch.empty(x.shape, dtype=getattr(torch, x.dtype), device="meta")
    if isinstance(x, list):
        return [materialize(v, side) for v in x]
    if isinstance(x, tuple):
        return tuple(materialize(v, side) for v in x)
    if x is DEVICE:
        return "cpu"
    return sample_value(x, side)


def sample_args(sample: SampleInput, side: str):
    kwargs = {k: materialize(v, side) for k, v in sample.kwargs.items()}
    return materialize(sample.args, side), kwargs


def map_leaves(fn, x):
    """`fn` applied to each value in nested lists, tuples and dicts."""
    if isinstance(x, list):
        return [map_leaves(fn, v) for v in x]
    if isinstance(x, tuple):
        return tuple(map_leaves(fn, v) for v in x)
    if isinstance(x, dict):
        return {k: map_leaves(fn, v) for k, v in x.items()}
    return fn(x)


def _meta_device(x):
    """The device "cpu" as "meta", other values as they are."""
    return "meta" if isinstance(x, str) and x == "cpu" else x


def to_meta(x):
    """Ember CPU values -> Meta tensors of the same shape, strides, offset and dtype."""
    return map_leaves(lambda v: meta_of(v) if isinstance(v, ember.Tensor) else _meta_device(v), x)


def torch_to_meta(x):
    """Torch CPU values -> Meta tensors."""
    return map_leaves(lambda v: v.to("meta") if isinstance(v, torch.Tensor) else _meta_device(v), x)


def tensors_in(x):
    """Every tensor in a nested structure of arguments."""
    if isinstance(x, (ember.Tensor, torch.Tensor)):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in tensors_in(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in tensors_in(v)]
    return []


# --------------------------------------------------------------------------- calling
def call(fn, args, kwargs):
    """(result, None) or (None, the exception)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001  (the exception is what the tests compare)
        return None, e


def _number_for_tensor(name, args) -> bool:
    """Whether a Python number is passed for a non-first `Tensor` argument: ember's
    pointwise ops take it as a wrapped number, `torch.ops.aten.eq.Tensor` & co. reject it."""
    arguments = ember_op(name).schema.arguments.flat()
    return any(i and str(a.type) == "Tensor" and isinstance(v, (bool, int, float, complex))
               for i, (a, v) in enumerate(zip(arguments, args)))


def torch_ref(info: OpInfo, args):
    """info.ref, else `torch.ops.aten.<op>`; calls with a wrapped number go through
    torch's public API (`torch.eq(t, 2)`, `Tensor.add_(t, 2)`), which wraps it the same way."""
    if info.ref is not None:
        return info.ref
    if _number_for_tensor(info.name, args):
        packet = info.name.split(".")[0]
        return getattr(torch.Tensor if info.kind == "inplace" else torch, packet)
    return torch_op(info.name)


def out_like(result, mode, side):
    """An out= tensor with the result's shape and dtype (mode "like") or empty ("resize")."""
    shape = tuple(result.shape) if mode == "like" else (0,)
    if side == "torch":
        return torch.empty(shape, dtype=result.dtype)
    return from_array(np.empty(shape, getattr(ember, dtype_name(result.dtype)).np))


def error_out(args, side):
    """The out= tensor of a call expected to fail: empty, with the first input's dtype."""
    first = (tensors_in(args) or [None])[0]
    if side == "torch":
        return torch.empty(0, dtype=first.dtype if first is not None else None)
    dt = first.dtype if first is not None else ember.float32
    return from_array(np.empty(0, dt.np))


def out_kwargs(info: OpInfo, res, exc, args, mode, side) -> dict:
    """The out= tensors of an out overload by argument name (one per result)."""
    names = out_names(info.name)
    if exc:
        return {n: error_out(args, side) for n in names}
    return {n: out_like(r, mode, side) for n, r in zip(names, outputs(res))}


def run_torch(info: OpInfo, sample: SampleInput, out_mode=None):
    """torch's (args, kwargs, result, exception); out= ops get an out tensor in kwargs."""
    args, kwargs = sample_args(sample, "torch")
    if info.kind == "out":
        res, exc = call(torch_ref(OPS[info.functional], args), args, kwargs)
        kwargs.update(out_kwargs(info, res, exc, args, out_mode, "torch"))
    res, exc = call(torch_ref(info, args), args, kwargs)
    return args, kwargs, res, exc


# --------------------------------------------------------------------------- assertions
def assert_same_exception(exc, ref_exc, ref="torch", mine="ember"):
    """`mine` raised the builtin exception type `ref` raised, and not a placeholder's."""
    assert exc is not None, (f"{ref} raised {type(ref_exc).__name__}: {ref_exc}\n"
                             f"but {mine} returned a result")
    if PLACEHOLDER in str(exc):
        raise AssertionError(f"placeholder kernel: {exc}") from exc
    if builtin_type(type(exc)) is not builtin_type(type(ref_exc)):
        raise AssertionError(f"{ref} raised {type(ref_exc).__name__}: {ref_exc}\n"
                             f"{mine} raised {type(exc).__name__}: {exc}") from exc


# Error messages that differ from torch's (after `torch.` -> `ember.`) and stay so, by
# "op.overload-sample" pattern (fnmatch), with the reason.
_OUT_FIRST = ("out= of a failing call: torch checks the out tensor (empty, of the first "
              "input's dtype) before the inputs, ember the inputs first")
KEPT_MESSAGES = {
    "_conj_copy.default-float32_error": "torch fails an internal assert (isComplexType) on a "
                                        "real input; ember names the problem",
    "_log_softmax.out-*": _OUT_FIRST, "_softmax.out-*": _OUT_FIRST,
    "_log_softmax_backward_data.out-*": _OUT_FIRST, "_softmax_backward_data.out-*": _OUT_FIRST,
    "baddbmm.out-batch_dtype_error": _OUT_FIRST, "multinomial.out-*": _OUT_FIRST,
    "fft_*.out-*_error": _OUT_FIRST, "polar.out-*_error": _OUT_FIRST,
    "complex.out-*_error": _OUT_FIRST,
    "stft.*_error": "torch prefixes the call's arguments in C++'s format (and checks them in "
                    "another order)",
    "istft.default-*_error": "torch prefixes the call's arguments in C++'s format",
    "_conj.default-float32_error": "torch fails an internal assert",
    "nll_loss_backward.grad_input-*": _OUT_FIRST, "where.self_out-*": _OUT_FIRST,
    "normal.Tensor_float_out-*": "torch broadcasts mean into out in the other order",
    "baddbmm*-2d_batch_error": "torch fails in its expand of self, ember names the 3D rule",
    "baddbmm_.default-batch_dtype_error": "torch's in-place wording, ember's matmul one",
    "avg_pool2d_backward.default-grad_shape_error": "ember names the expected grad_output size",
    "convolution_backward.default-*": "torch reports oneDNN's failure or its grad_input "
                                      "kernel; ember names the expected grad_output size",
    "diag.out-*": "torch's out= path drops the 'diag(): ' its functional path has",
    "leaky_relu_backward.*": "torch asks to file an issue at github.com/pytorch",
    "linalg_vector_norm.*-empty_inf_reduced_error": "torch's missing space ('0because')",
    "masked_scatter_.default-mask_larger_error": "torch's CPUBoolType here, ember.BoolTensor "
                                                 "as in its other expand messages",
    "meshgrid.*-2d_error": "torch prints the tensor in C++'s format, ember in Python's",
    "searchsorted.Scalar*-0d_boundaries_error": "torch checks the scalar input first",
}


# Meta results that differ from torch's Meta ones where the CPU raises, by pattern, with the
# reason (ember's Meta kernels follow its CPU kernels, which follow torch's CPU ones)
KEPT_META_RESULTS = {
    "_*softmax_backward_data.default-*": "torch's Meta result has input_dtype, its CPU one "
                                         "grad's dtype (ember's both)",
    "nll_loss*_forward.default-int64*error": "torch's Meta loss of an integer input (which "
                                             "its CPU rejects) is float32",
    "cross_entropy_loss.default-int64_error": "the same, through nll_loss",
    "linalg_eig.default-nan_error": "torch's Meta eigenvectors are row-major, its CPU ones "
                                    "column-major (ember's both)",
}


def assert_same_message(exc, ref_exc, case: str):
    """`exc`'s message is torch's with `torch.` read as `ember.`, unless KEPT_MESSAGES keeps
    the difference for `case` ("op.overload-sample")."""
    expected = str(ref_exc).replace("torch.", "ember.")
    if str(exc) != expected and not any(fnmatch(case, k) for k in KEPT_MESSAGES):
        raise AssertionError(f"message differs from torch's ({type(ref_exc).__name__}):\n"
                             f"  torch: {expected}\n  ember: {exc}") from exc


def significant_strides(shape, strides):
    """Strides of dims longer than 1: the only ones that matter for the memory layout."""
    return tuple(s for n, s in zip(shape, strides) if n > 1)


def assert_layout(a, b, exact, what, names):
    """Strides (all of them and the storage offset when `exact`, else those of dims > 1).
    Empty tensors are skipped (see test_empty_results_have_contiguous_strides)."""
    if b.numel() == 0:
        return
    x, y = names
    if exact:
        assert a.stride() == b.stride(), f"{what} strides: {x} {a.stride()} {y} {b.stride()}"
        assert a.storage_offset() == b.storage_offset(), \
            f"{what} storage_offset: {x} {a.storage_offset()} {y} {b.storage_offset()}"
    else:
        sa, sb = significant_strides(a.shape, a.stride()), significant_strides(b.shape, b.stride())
        assert sa == sb, f"{what} strides (dims > 1): {x} {a.stride()} {y} {b.stride()}"


def assert_values(e, t, info: OpInfo):
    """Floats within the op's tolerance (helpers.tolerance), which must reject a zeroed
    answer and one 5% off; other dtypes exactly."""
    ea, ta = to_np(e), to_np(t)
    name = dtype_name(t.dtype)
    if name in COMPLEX:   # (the tolerance of its real dtype, on the (real, imag) pairs)
        ea, ta = real_pairs(ea), real_pairs(ta)
        assert_close_ulps(ea, ta, COMPLEX[name], info.ulps(name))
        assert_rejects_wrong_answers(ta, COMPLEX[name], info.ulps(name))
    elif name in FLOATS:
        assert_close_ulps(ea, ta, name, info.ulps(name))
        assert_rejects_wrong_answers(ta, name, info.ulps(name))
    else:
        np.testing.assert_array_equal(ea, ta)


def assert_tensor_matches(e, t, info: OpInfo, what="result"):
    assert isinstance(e, ember.Tensor), f"{what}: expected a Tensor, got {type(e).__name__}"
    assert tuple(e.shape) == tuple(t.shape), \
        f"{what} shape: ember {tuple(e.shape)} torch {tuple(t.shape)}"
    assert dtype_name(e.dtype) == dtype_name(t.dtype), \
        f"{what} dtype: ember {dtype_name(e.dtype)} torch {dtype_name(t.dtype)}"
    assert e.device.type == t.device.type, f"{what} device: ember {e.device} torch {t.device}"
    if e._np is not None:  # the storage holds what the dtype says (no float32 under bfloat16)
        assert e._np.dtype == e.dtype.np, f"{what} storage: {e._np.dtype} under {e.dtype}"
    if info.values:
        assert_values(e, t, info)
    assert_layout(e, t, info.exact_strides, what, ("ember", "torch"))


def outputs(result):
    """The result's tensors, flattened (histogramdd's (hist, [edges...]) too)."""
    if isinstance(result, (list, tuple)):
        return [t for r in result for t in outputs(r)]
    return [result]


def assert_results_match(e_res, t_res, info: OpInfo, what="result"):
    """Tensors, or sequences of them (nested: histogramdd's (hist, [edges...]))."""
    if isinstance(t_res, (list, tuple)):
        assert isinstance(e_res, (list, tuple)), f"expected a sequence, got {type(e_res).__name__}"
        assert len(e_res) == len(t_res), f"ember returned {len(e_res)} tensors, torch {len(t_res)}"
        for i, (e, t) in enumerate(zip(e_res, t_res)):
            assert_results_match(e, t, info, f"{what}[{i}]")
    else:
        assert_tensor_matches(e_res, t_res, info, what)


def assert_same_aliasing(e_res, t_res, e_inputs, t_inputs):
    """Each result is a view of an input exactly when torch's is (same storage data_ptr)."""
    t_ptrs = {x.untyped_storage().data_ptr() for x in t_inputs if x.untyped_storage().nbytes()}
    e_live = [x for x in e_inputs if x.untyped_storage().nbytes()]
    e_ptrs = {x.untyped_storage().data_ptr() for x in e_live}
    for i, (e, t) in enumerate(zip(outputs(e_res), outputs(t_res))):
        t_view = t.untyped_storage().data_ptr() in t_ptrs
        e_view = e.untyped_storage().data_ptr() in e_ptrs
        assert e_view == t_view, (f"result[{i}]: torch's result {'is' if t_view else 'is not'} "
                                  f"a view of an input, ember's {'is' if e_view else 'is not'}")
        if not t_view and e.numel():
            for x in e_live:
                assert not np.shares_memory(e._np, x._np), \
                    f"result[{i}] shares memory with an input (a NumPy view wrapped as fresh?)"


def snapshot(tensors):
    return [(t, np.ascontiguousarray(t.numpy()).tobytes()) for t in tensors]


def assert_unchanged(snap):
    for i, (t, before) in enumerate(snap):
        assert np.ascontiguousarray(t.numpy()).tobytes() == before, f"input tensor {i} was modified"


# --------------------------------------------------------------------------- one case
def run_case(info: OpInfo, sample: SampleInput, out_mode=None):
    """Runs one sample on ember and torch and compares (see the module docstring)."""
    t_args, t_kwargs, t_res, t_exc = run_torch(info, sample, out_mode)
    e_args, e_kwargs = sample_args(sample, "ember")
    if info.kind == "out":
        e_kwargs.update(out_kwargs(info, t_res, t_exc, e_args, out_mode, "ember"))
    outs = out_names(info.name) if info.kind == "out" else ()
    read_only = (e_args[1:] if info.kind == "inplace" else e_args,
                 {k: v for k, v in e_kwargs.items() if k not in outs})
    snap = snapshot(tensors_in(read_only))
    e_res, e_exc = call(ember_op(info.name), e_args, e_kwargs)
    if t_exc is not None:
        assert_same_exception(e_exc, t_exc)
        assert_same_message(e_exc, t_exc, f"{info.name}-{sample.name}")
        return
    if e_exc is not None:
        raise e_exc
    assert_results_match(e_res, t_res, info)
    assert_unchanged(snap)
    if info.kind == "inplace":
        assert e_res is e_args[0], "an in-place op must return self"
    elif info.kind == "out":
        assert all(r is e_kwargs[n] for r, n in zip(outputs(e_res), outs)), \
            "an out= op must return out"
    else:
        assert_same_aliasing(e_res, t_res, tensors_in((e_args, e_kwargs)),
                             tensors_in((t_args, t_kwargs)))


def _cases():
    """(op, sample, out_mode) params; out= ops also run their first sample with an empty out."""
    cases = []
    for name in sorted(OPS):
        info = OPS[name]
        for i, s in enumerate(info.samples()):
            label = f"{name}-{s.name or i}"
            if info.kind != "out":
                cases.append(pytest.param(name, s, None, id=label))
                continue
            cases.append(pytest.param(name, s, "like", id=label))
            if i == 0:
                cases.append(pytest.param(name, s, "resize", id=f"{label}-resize"))
    return cases


CASES = _cases()


# --------------------------------------------------------------------------- the op tests
def test_every_op_has_samples():
    """A new overload in the schema without an OpInfo entry fails here."""
    declared = set(schema_ops())
    missing = sorted(declared - set(OPS))
    unknown = sorted(set(OPS) - declared)
    assert not missing, (f"overloads without samples: {missing}; register them in their "
                         "family's module, tests/ops/opinfo_<family>.py (see the README's "
                         "'Add an op')")
    assert not unknown, f"opinfo entries naming no schema overload: {unknown}"
    for name, info in OPS.items():
        assert info.samples(), f"{name} has no samples"
        assert callable(info.ref or torch_op(name))


@pytest.mark.parametrize("name,ref,ulps", [
    ("prod.default", np.array(1.2e-3, np.float16), ACCUMULATING_ULPS["float16"]),
    ("nll_loss2d_forward.default", np.array([0.4, -2.1]), ACCUMULATING_ULPS["bfloat16"]),
    ("native_layer_norm.default", np.array([-1.5, 0.2, 1.3]), ACCUMULATING_ULPS["bfloat16"]),
], ids=["prod_float16", "nll_loss2d_bfloat16", "layer_norm_bfloat16"])
def test_tolerance_rejects_wrong_answers(name, ref, ulps):
    """The results the old fixed tolerances let through (issue 24): zeros, 5% and 20% off."""
    dt = "float16" if ref.dtype == np.float16 else "bfloat16"
    assert OPS[name].ulps(dt) == ulps
    assert close_ulps(ref, ref, dt, ulps)
    for wrong in (ref * 0, ref * 1.05, ref * 0.95, ref * 1.2):
        assert not close_ulps(wrong, ref, dt, ulps), wrong
    with pytest.raises(AssertionError, match="accepts a zeroed answer"):
        assert_rejects_wrong_answers(ref, dt, 1 / EPS[dt])


@pytest.mark.parametrize("name,sample,out_mode", CASES)
def test_matches_torch(name, sample, out_mode):
    run_case(OPS[name], sample, out_mode)


def assert_meta_matches(m, c, info, what="result", ref_name="cpu"):
    """Meta tensor `m` has the shape, dtype and strides of `c` (ember's CPU result, or
    torch's Meta result with ref_name="torch meta")."""
    assert isinstance(m, ember.Tensor), f"{what}: expected a Tensor, got {type(m).__name__}"
    assert m.device.type == "meta", f"{what} device: {m.device}"
    assert tuple(m.shape) == tuple(c.shape), \
        f"{what} shape: meta {tuple(m.shape)} {ref_name} {tuple(c.shape)}"
    assert dtype_name(m.dtype) == dtype_name(c.dtype), \
        f"{what} dtype: meta {m.dtype} {ref_name} {c.dtype}"
    assert_layout(m, c, info.exact_strides, what, ("meta", ref_name))


def torch_meta_call(info: OpInfo, sample: SampleInput):
    """torch's (result, exception) for the sample on Meta tensors (out= overloads: their
    functional op, as the out= checks differ on Meta)."""
    args, kwargs = sample_args(sample, "torch")
    args, kwargs = torch_to_meta(args), torch_to_meta(kwargs)
    if "factory" in ember_op(info.name).tags:
        kwargs["device"] = "meta"
    if info.kind == "out":
        info = OPS[info.functional]
    return call(torch_ref(info, args), args, kwargs)


def assert_meta_results_match(m_res, ref, info: OpInfo, ref_name):
    """Ember's Meta result(s) have the shape, dtype and strides of `ref`'s."""
    if isinstance(ref, (list, tuple)):
        assert isinstance(m_res, (list, tuple)) and len(outputs(m_res)) == len(outputs(ref))
        for i, (m, r) in enumerate(zip(outputs(m_res), outputs(ref))):
            assert_meta_matches(m, r, info, f"result[{i}]", ref_name)
    else:
        assert_meta_matches(m_res, ref, info, ref_name=ref_name)


@pytest.mark.parametrize("name,sample,out_mode", CASES)
def test_meta_matches_cpu(name, sample, out_mode):
    """Meta behaves like the CPU: the same shape, dtype and strides, or the same exception
    type (errors that depend on values, which torch's Meta kernel does not raise: a result
    like torch's Meta one)."""
    info, op = OPS[name], ember_op(name)
    e_args, e_kwargs = sample_args(sample, "ember")
    if info.kind == "out":
        t_args, t_kwargs = sample_args(sample, "torch")
        t_res, t_exc = call(torch_ref(OPS[info.functional], t_args), t_args, t_kwargs)
        e_kwargs.update(out_kwargs(info, t_res, t_exc, e_args, out_mode, "ember"))
    m_args, m_kwargs = to_meta(e_args), to_meta(e_kwargs)
    if "factory" in op.tags:
        m_kwargs["device"] = "meta"
    if sample.data_dependent:
        _, m_exc = call(op, m_args, m_kwargs)
        assert isinstance(m_exc, (NotImplementedError, RuntimeError)), \
            f"a data-dependent output shape must raise on Meta, got {m_exc!r}"
        assert PLACEHOLDER not in str(m_exc), f"placeholder kernel: {m_exc}"
        return
    c_res, c_exc = call(op, e_args, e_kwargs)
    m_res, m_exc = call(op, m_args, m_kwargs)
    if c_exc is not None:
        if PLACEHOLDER in str(c_exc):
            raise AssertionError(f"placeholder CPU kernel: {c_exc}") from c_exc
        tm_res, tm_exc = torch_meta_call(info, sample)
        if m_exc is None and tm_exc is None:  # an error of values or dtypes: torch's Meta result
            if info.kind == "out":  # (out keeps its dtype; torch's is the functional result)
                assert [tuple(r.shape) for r in outputs(m_res)] == \
                    [tuple(r.shape) for r in outputs(tm_res)]
            elif not any(fnmatch(f"{name}-{sample.name}", k) for k in KEPT_META_RESULTS):
                assert_meta_results_match(m_res, tm_res, info, "torch meta")
            return
        if m_exc is not None and tm_exc is not None and \
                builtin_type(type(m_exc)) is builtin_type(type(tm_exc)):
            return  # raised like torch's Meta kernel, whose type may differ from its CPU one
        assert_same_exception(m_exc, c_exc, "ember CPU", "ember Meta")
        return
    if m_exc is not None:
        raise m_exc
    try:
        assert_meta_results_match(m_res, c_res, info, "cpu")
    except AssertionError:
        # torch's own Meta (its Python references) may lay a result out unlike its CPU
        # kernel (TensorIterator), as for the logical ops: ember's Meta follows torch's
        tm_res, tm_exc = torch_meta_call(info, sample)
        if tm_exc is not None:
            raise
        assert_meta_results_match(m_res, tm_res, info, "torch meta")
    if info.kind == "inplace":
        assert m_res is m_args[0], "an in-place op must return self"
    elif info.kind == "out":
        assert all(r is m_kwargs[n] for r, n in zip(outputs(m_res), out_names(info.name))), \
            "an out= op must return out"


@pytest.mark.parametrize("name,args", [
    ("zeros.default", ([2, 0, 3],)),
    ("neg.default", (np.zeros((2, 0, 3), np.float32),)),
    ("clone.default", (np.zeros((0, 3), np.int64),)),
    ("sum.dim_IntList", (np.zeros((2, 0, 3), np.float32), [2])),
], ids=["zeros", "neg", "clone", "sum_dim"])
def test_empty_results_have_contiguous_strides(name, args):
    """torch gives empty results contiguous strides (a size-0 dim counts as 1); the suite
    skips the stride checks of empty results, so they are tested here."""
    t = torch_op(name)(*materialize(args, "torch"))
    e = ember_op(name)(*materialize(args, "ember"))
    assert e.stride() == t.stride(), f"ember {e.stride()} torch {t.stride()}"


# --------------------------------------------------------------------------- properties
BINARY = ["add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "eq.Tensor", "lt.Tensor",
          "ge.Tensor", "where.self"]
REDUCTIONS = ["sum.dim_IntList", "mean.dim", "amax.default"]


@settings(max_examples=250, deadline=None, derandomize=True)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                min_side=0, max_side=4),
       da=st.sampled_from(ALL), db=st.sampled_from(ALL), name=st.sampled_from(BINARY),
       seed=st.integers(0, 2**32 - 1), transpose=st.booleans())
def test_broadcasting_binary_ops_match_torch(shapes, da, db, name, seed, transpose):
    """Values, dtype (promotion) and layout of binary ops over broadcastable shapes."""
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    a = make(sa, da, rng=rng)
    b = make(sb, db, rng=rng, nonzero=name.startswith("div"))
    if transpose and len(sa) >= 2:
        a = View(np.ascontiguousarray(np.swapaxes(a, -1, -2)), "transpose.int", (-1, -2))
    args = (a, b) if name != "where.self" else (make(shapes.result_shape, np.bool_, rng=rng), a, b)
    run_case(OPS[name], SampleInput(args))


@settings(max_examples=250, deadline=None, derandomize=True)
@given(shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4),
       dtype=st.sampled_from(ALL), name=st.sampled_from(REDUCTIONS), keepdim=st.booleans(),
       data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_reductions_match_torch(shape, dtype, name, keepdim, data, seed):
    """Reductions over random dims (negative ones too, [] = all) with and without keepdim."""
    ndim = len(shape)
    dims = data.draw(st.lists(st.integers(-ndim, ndim - 1), max_size=ndim,
                              unique_by=lambda d: d % ndim), label="dims")
    x = make(shape, dtype, rng=np.random.default_rng(seed))
    run_case(OPS[name], SampleInput((x, dims, keepdim)))


# --------------------------------------------------------------------------- error parity
def _f(*shape, dtype=np.float32):
    return make(shape, dtype)


ERRORS = [  # (id, op, args, a key phrase of torch's message)
    ("add_shape_mismatch", "add.Tensor", (_f(3, 4), _f(4, 3)),
     "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1"),
    ("mm_inner_mismatch", "mm.default", (_f(2, 3), _f(4, 5)),
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    ("bool_sub", "sub.Tensor", (_f(3, dtype=np.bool_), _f(3, dtype=np.bool_)),
     "Subtraction, the `-` operator, with two bool tensors is not supported"),
    ("int_pow_negative", "pow.Tensor_Scalar", (_f(3, dtype=np.int64), -1),
     "Integers to negative integer powers are not allowed"),
    ("cat_size_mismatch", "cat.default", ([_f(2, 3), _f(2, 4)],),
     ("Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for "
      "tensor number 1 in the list")),
    ("inplace_broadcast_smaller_self", "add_.Tensor", (_f(3), _f(2, 3)),
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    ("inplace_float_into_int", "add_.Tensor", (_f(3, dtype=np.int64), _f(3)),
     "result type Float can't be cast to the desired output type Long"),
    ("device_mismatch_cpu_meta", "add.Tensor", (_f(3), OnMeta((3,))),
     "Tensor on device meta is not on the expected device cpu!"),
    ("device_mismatch_meta_cpu", "mul.Tensor", (OnMeta((3,)), _f(3)),
     "Tensor on device cpu is not on the expected device meta!"),
    ("view_bad_size", "view.default", (_f(3, 4), [5]),
     "shape '[5]' is invalid for input of size 12"),
    ("select_out_of_range", "select.int", (_f(2, 3), 0, 5),
     "select(): index 5 out of range for tensor of size [2, 3] at dimension 0"),
    ("mean_of_int", "mean.default", (_f(3, dtype=np.int64),),
     ("mean(): could not infer output dtype. Input dtype must be either a floating point or "
      "complex dtype. Got: Long")),
    ("amax_empty", "amax.default", (_f(0, 3), [0]),
     "Expected reduction dim 0 to have non-zero size"),
    ("stack_size_mismatch", "stack.default", ([_f(2, 3), _f(3, 2)],),
     "stack expects each tensor to be equal size"),
    ("index_out_of_range", "index.Tensor", (_f(3), [np.array([5])]),
     "index 5 is out of bounds for dimension 0 with size 3"),
]


@pytest.mark.parametrize("op,args,phrase", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_error_matches_torch(op, args, phrase):
    """The same exception type as torch, with torch's key phrase in the message."""
    _, t_exc = call(torch_op(op), materialize(args, "torch"), {})
    assert t_exc is not None and phrase in str(t_exc), f"torch's error changed: {t_exc!r}"
    _, e_exc = call(ember_op(op), materialize(args, "ember"), {})
    assert_same_exception(e_exc, t_exc)
    assert phrase in str(e_exc), f"ember's message lacks torch's phrase {phrase!r}: {e_exc}"
