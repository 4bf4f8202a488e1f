"""Every aten overload in schema/native_functions.yaml against torch (an OpInfo suite).

For each (op, sample) of tests/ops/opinfo.py:
  * test_matches_torch: values, dtype, shape and strides vs `torch.ops.aten.<op>` on
    CPU, the same aliasing as torch (views share storage, fresh results do not), inputs
    left untouched, in-place ops return self, out= ops return out; when torch raises,
    ember raises the same exception type.
  * test_meta_matches_cpu: the op on Meta copies of the inputs gives the CPU result's
    shape, dtype and strides (data-dependent shapes must raise on Meta).
Plus hypothesis properties for broadcasting binary ops and reductions, and error
messages for a list of bad calls.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember
from ember.core.alloc import empty_meta
from ember.core.device import META
from ember.core.storage import Storage
from ember.core.tensor import MEMORY_FORMATS, contiguous_strides, from_array, make_tensor

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

from opinfo import ALL, BF16, DEVICE, OPS, OpInfo, SampleInput, View, make  # noqa: E402

PLACEHOLDER = "not written yet"


# --------------------------------------------------------------------------- op lookup
def schema_ops() -> dict:
    """'add.Tensor' -> OpOverload for every aten overload generated from the schema."""
    from ember._generated import ops as generated
    from ember.dispatch.dispatcher import OpOverload
    return {f"{o.name}.{o.overload_name}": o for o in vars(generated).values()
            if isinstance(o, OpOverload) and o.namespace == "aten"}


def ember_op(name):
    packet, overload = name.split(".")
    return getattr(getattr(ember.ops.aten, packet), overload)


def torch_op(name):
    packet, overload = name.split(".")
    return getattr(getattr(torch.ops.aten, packet), overload)


# --------------------------------------------------------------------------- conversions
def np_to_ember(a: np.ndarray):
    """A fresh CPU tensor owning a copy of `a`, with torch's contiguous strides (also for
    empty arrays, where NumPy reports 0 strides)."""
    a = np.array(a, copy=True, order="C")
    if a.size == 0:
        dt = ember.core.dtype.from_numpy_dtype(a.dtype)
        return make_tensor(Storage.of_array(a), a.shape, contiguous_strides(a.shape), 0, dt)
    return from_array(a)


def np_to_torch(a: np.ndarray):
    if a.dtype == BF16:
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(np.array(a, copy=True, order="C"))


def ember_to_np(t) -> np.ndarray:
    a = t.numpy()
    return a.astype(np.float32) if t.dtype is ember.bfloat16 else a


def torch_to_np(t) -> np.ndarray:
    t = t.detach()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


def torch_dtype(d):
    return getattr(torch, d.name)


def dtype_name(d) -> str:
    """'float32' for ember.float32 and torch.float32."""
    return d.name if isinstance(d, ember.dtype) else str(d).removeprefix("torch.")


def materialize(x, side: str):
    """A sample value as ember ("ember") or torch ("torch") objects on the CPU."""
    if isinstance(x, np.ndarray):
        return np_to_ember(x) if side == "ember" else np_to_torch(x)
    if isinstance(x, View):
        base = materialize(x.base, side)
        op = ember_op(x.op) if side == "ember" else torch_op(x.op)
        return op(base, *x.args)
    if isinstance(x, list):
        return [materialize(v, side) for v in x]
    if isinstance(x, tuple):
        return tuple(materialize(v, side) for v in x)
    if x is DEVICE:
        return "cpu"
    if side == "torch" and isinstance(x, ember.dtype):
        return torch_dtype(x)
    if side == "torch" and any(x is m for m in MEMORY_FORMATS.values()):
        return getattr(torch, x.name)
    return x


def to_meta(x):
    """Ember CPU values -> Meta tensors with the same shape, strides, offset and dtype."""
    if isinstance(x, ember.Tensor):
        extent = 0 if x.numel() == 0 else 1 + sum((n - 1) * s for n, s in zip(x.shape, x.stride()))
        nbytes = (x.storage_offset() + extent) * x.dtype.itemsize
        return make_tensor(Storage(None, nbytes, META), x.shape, x.stride(), x.storage_offset(), x.dtype)
    if isinstance(x, list):
        return [to_meta(v) for v in x]
    if isinstance(x, tuple):
        return tuple(to_meta(v) for v in x)
    if isinstance(x, str) and x == "cpu":
        return "meta"
    return x


def sample_args(sample: SampleInput, side: str):
    return materialize(sample.args, side), {k: materialize(v, side) for k, v in sample.kwargs.items()}


def tensors_in(x):
    """Every tensor in a (nested) argument structure."""
    if isinstance(x, (ember.Tensor, torch.Tensor)):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in tensors_in(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in tensors_in(v)]
    return []


def call(fn, args, kwargs):
    """(result, None) or (None, exception)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001  (the exception is the result under test)
        return None, e


# --------------------------------------------------------------------------- comparisons
def builtin_base(exc_type):
    """torch raises its own subclasses (torch.AcceleratorError, ...): compare builtins."""
    for cls in exc_type.__mro__:
        if cls.__module__ == "builtins":
            return cls
    return exc_type


def assert_same_exception(e_exc, t_exc):
    assert e_exc is not None, (f"torch raised {type(t_exc).__name__}: {t_exc}\n"
                               "but ember returned a result")
    if PLACEHOLDER in str(e_exc):
        raise AssertionError(f"placeholder kernel: {e_exc}") from e_exc
    if builtin_base(type(e_exc)) is not builtin_base(type(t_exc)):
        raise AssertionError(f"torch raised {type(t_exc).__name__}: {t_exc}\nember raised "
                             f"{type(e_exc).__name__}: {e_exc}") from e_exc


def significant_strides(shape, strides):
    """Strides of dims longer than 1: the only ones that affect the memory layout."""
    return tuple(s for n, s in zip(shape, strides) if n > 1)


def assert_values(e, t, info: OpInfo):
    ea, ta = ember_to_np(e), torch_to_np(t)
    name = dtype_name(t.dtype)
    if name in ("float16", "bfloat16", "float32", "float64"):
        rtol, atol = info.tolerance(name)
        np.testing.assert_allclose(ea.astype(np.float64), ta.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(ea, ta)


def assert_tensor_matches(e, t, info: OpInfo, what="result"):
    assert isinstance(e, ember.Tensor), f"{what}: expected a Tensor, got {type(e).__name__}"
    assert tuple(e.shape) == tuple(t.shape), f"{what} shape: ember {tuple(e.shape)} torch {tuple(t.shape)}"
    assert dtype_name(e.dtype) == dtype_name(t.dtype), \
        f"{what} dtype: ember {dtype_name(e.dtype)} torch {dtype_name(t.dtype)}"
    assert e.device.type == t.device.type, f"{what} device: ember {e.device} torch {t.device}"
    if info.values:
        assert_values(e, t, info)
    if t.numel() == 0:  # see test_empty_results_have_contiguous_strides
        return
    if info.exact_strides:
        assert e.stride() == t.stride(), f"{what} strides: ember {e.stride()} torch {t.stride()}"
        assert e.storage_offset() == t.storage_offset(), \
            f"{what} storage_offset: ember {e.storage_offset()} torch {t.storage_offset()}"
    else:
        es, ts = significant_strides(e.shape, e.stride()), significant_strides(t.shape, t.stride())
        assert es == ts, f"{what} strides (dims > 1): ember {e.stride()} torch {t.stride()}"


def outputs(r):
    return list(r) if isinstance(r, (list, tuple)) else [r]


def assert_results_match(e_res, t_res, info: OpInfo):
    if isinstance(t_res, (list, tuple)):
        assert isinstance(e_res, (list, tuple)), f"expected a sequence, got {type(e_res).__name__}"
        assert len(e_res) == len(t_res), f"ember returned {len(e_res)} tensors, torch {len(t_res)}"
        for i, (e, t) in enumerate(zip(e_res, t_res)):
            assert_tensor_matches(e, t, info, f"result[{i}]")
    else:
        assert_tensor_matches(e_res, t_res, info)


def assert_same_aliasing(e_res, t_res, e_inputs, t_inputs):
    """Each output is a view of an input exactly when torch's is."""
    t_ptrs = {x.untyped_storage().data_ptr() for x in t_inputs if x.untyped_storage().nbytes()}
    e_live = [x for x in e_inputs if x.untyped_storage().nbytes()]
    e_ptrs = {x.untyped_storage().data_ptr() for x in e_live}
    for i, (e, t) in enumerate(zip(outputs(e_res), outputs(t_res))):
        t_view = t.untyped_storage().data_ptr() in t_ptrs
        e_view = e.untyped_storage().data_ptr() in e_ptrs
        assert e_view == t_view, (f"result[{i}]: torch's result {'is' if t_view else 'is not'} a view "
                                  f"of an input, ember's {'is' if e_view else 'is not'}")
        if not t_view and e.numel():
            for x in e_live:
                assert not np.shares_memory(e.numpy(), x.numpy()), \
                    f"result[{i}] shares memory with an input (a NumPy view wrapped as a fresh tensor?)"


def snapshot(tensors):
    return [(t, np.ascontiguousarray(t.numpy()).tobytes()) for t in tensors]


def assert_unchanged(snap):
    for i, (t, before) in enumerate(snap):
        assert np.ascontiguousarray(t.numpy()).tobytes() == before, f"input tensor {i} was modified"


# --------------------------------------------------------------------------- running
def _out_like(res, mode, side):
    """An out= tensor: the result's shape and dtype ("like") or empty ("resize")."""
    shape = tuple(res.shape) if mode == "like" else (0,)
    if side == "torch":
        return torch.empty(shape, dtype=res.dtype)
    dt = getattr(ember, dtype_name(res.dtype))
    return from_array(np.empty(shape, dt.np))


def run_torch(info: OpInfo, sample: SampleInput, out_mode=None):
    """torch's (args, kwargs, result, exception) for one sample; out= ops get an out tensor."""
    args, kwargs = sample_args(sample, "torch")
    ref = info.ref or torch_op(info.name)
    if info.kind == "out":
        fres, fexc = call(torch_op(info.functional), args, kwargs)
        kwargs["out"] = torch.empty(0) if fexc else _out_like(fres, out_mode, "torch")
    res, exc = call(ref, args, kwargs)
    return args, kwargs, res, exc


def run_case(info: OpInfo, sample: SampleInput, out_mode=None):
    """Compares ember with torch for one sample (see the module docstring)."""
    t_args, t_kwargs, t_res, t_exc = run_torch(info, sample, out_mode)
    e_args, e_kwargs = sample_args(sample, "ember")
    op = ember_op(info.name)
    if info.kind == "out":
        e_kwargs["out"] = from_array(np.empty(0, np.float32)) if t_exc else _out_like(t_res, out_mode, "ember")
    untouched = e_args[1:] if info.kind == "inplace" else e_args
    snap = snapshot(tensors_in((untouched, {k: v for k, v in e_kwargs.items() if k != "out"})))
    e_res, e_exc = call(op, e_args, e_kwargs)
    if t_exc is not None:
        assert_same_exception(e_exc, t_exc)
        return
    if e_exc is not None:
        raise e_exc
    assert_results_match(e_res, t_res, info)
    assert_unchanged(snap)
    if info.kind == "inplace":
        assert e_res is e_args[0], "an in-place op must return self"
    elif info.kind == "out":
        assert e_res is e_kwargs["out"], "an out= op must return out"
    else:
        t_in, e_in = tensors_in((t_args, t_kwargs)), tensors_in((e_args, e_kwargs))
        assert_same_aliasing(e_res, t_res, e_in, t_in)
    return e_res


def _cases():
    cases = []
    for name in sorted(OPS):
        info = OPS[name]
        for i, s in enumerate(info.samples()):
            modes = ["like", "resize"] if info.kind == "out" and i == 0 else [
                "like" if info.kind == "out" else None]
            for mode in modes:
                label = s.name or str(i)
                cases.append(pytest.param(name, s, mode, id=f"{name}-{label}" + ("-resize" if mode == "resize" else "")))
    return cases


CASES = _cases()


# --------------------------------------------------------------------------- tests
def test_every_op_has_samples():
    """A new overload in the schema without an OpInfo entry fails here."""
    declared = set(schema_ops())
    missing = sorted(declared - set(OPS))
    unknown = sorted(set(OPS) - declared)
    assert not missing, f"overloads without samples in tests/ops/opinfo.py: {missing}"
    assert not unknown, f"opinfo entries naming no schema overload: {unknown}"
    for name, info in OPS.items():
        assert info.samples(), f"{name} has no samples"
        ref = info.ref or torch_op(name)
        assert callable(ref)


def test_opinfo_kinds_follow_the_schema():
    """kind="inplace" exactly for `Tensor(a!) self` ops, "out" exactly for `Tensor(a!) out`."""
    for name, op in schema_ops().items():
        schema = op._schema_str
        kind = "out" if "Tensor(a!) out" in schema else "inplace" if "Tensor(a!) self" in schema \
            else "functional"
        assert OPS[name].kind == kind, name


@pytest.mark.parametrize("name,sample,out_mode", CASES)
def test_matches_torch(name, sample, out_mode):
    run_case(OPS[name], sample, out_mode)


def _meta_args(info, sample, e_args, e_kwargs):
    m_args, m_kwargs = to_meta(e_args), {k: to_meta(v) for k, v in e_kwargs.items()}
    if "factory" in ember_op(info.name).tags:
        m_kwargs["device"] = "meta"
    return m_args, m_kwargs


def assert_meta_matches(m, c, info, what="result"):
    assert isinstance(m, ember.Tensor), f"{what}: expected a Tensor, got {type(m).__name__}"
    assert m.device.type == "meta", f"{what} device: {m.device}"
    assert tuple(m.shape) == tuple(c.shape), f"{what} shape: meta {tuple(m.shape)} cpu {tuple(c.shape)}"
    assert m.dtype is c.dtype, f"{what} dtype: meta {m.dtype} cpu {c.dtype}"
    if c.numel() == 0:
        return
    if info.exact_strides:
        assert m.stride() == c.stride(), f"{what} strides: meta {m.stride()} cpu {c.stride()}"
        assert m.storage_offset() == c.storage_offset(), \
            f"{what} storage_offset: meta {m.storage_offset()} cpu {c.storage_offset()}"
    else:
        assert significant_strides(m.shape, m.stride()) == significant_strides(c.shape, c.stride()), \
            f"{what} strides (dims > 1): meta {m.stride()} cpu {c.stride()}"


@pytest.mark.parametrize("name,sample,out_mode", CASES)
def test_meta_matches_cpu(name, sample, out_mode):
    info = OPS[name]
    op = ember_op(name)
    e_args, e_kwargs = sample_args(sample, "ember")
    m_args, m_kwargs = _meta_args(info, sample, e_args, e_kwargs)
    *_, t_exc = run_torch(info, sample, out_mode)
    if sample.data_dependent:
        _, m_exc = call(op, m_args, m_kwargs)
        assert isinstance(m_exc, (NotImplementedError, RuntimeError)), \
            "a data-dependent output shape must raise on Meta"
        assert PLACEHOLDER not in str(m_exc), f"placeholder kernel: {m_exc}"
        return
    if t_exc is not None:
        # An error case: Meta must raise like torch's Meta kernel when that one raises.
        tm_args, tm_kwargs = to_torch_meta(sample_args(sample, "torch"), info)
        _, tm_exc = call(info.ref or torch_op(name), tm_args, tm_kwargs)
        if tm_exc is None:
            pytest.skip("data-dependent error: torch's Meta kernel does not raise either")
        _, m_exc = call(op, m_args, m_kwargs)
        assert_same_exception(m_exc, tm_exc)
        return
    if info.kind == "out":
        c_res, c_exc = call(torch_op(info.functional), *sample_args(sample, "torch"))
        e_kwargs["out"] = _out_like(c_res, out_mode, "ember")
        m_kwargs["out"] = to_meta(e_kwargs["out"])
    c_res, c_exc = call(op, e_args, e_kwargs)
    if c_exc is not None:
        raise AssertionError(f"the CPU kernel raised (see test_matches_torch): {c_exc!r}") from c_exc
    m_res, m_exc = call(op, m_args, m_kwargs)
    if m_exc is not None:
        raise m_exc
    if isinstance(c_res, (list, tuple)):
        assert isinstance(m_res, (list, tuple)) and len(m_res) == len(c_res)
        for i, (m, c) in enumerate(zip(m_res, c_res)):
            assert_meta_matches(m, c, info, f"result[{i}]")
    else:
        assert_meta_matches(m_res, c_res, info)
    if info.kind == "inplace":
        assert m_res is m_args[0], "an in-place op must return self"
    elif info.kind == "out":
        assert m_res is m_kwargs["out"], "an out= op must return out"


def to_torch_meta(args_kwargs, info):
    args, kwargs = args_kwargs

    def conv(x):
        if isinstance(x, torch.Tensor):
            return x.to("meta")
        if isinstance(x, list):
            return [conv(v) for v in x]
        if isinstance(x, tuple):
            return tuple(conv(v) for v in x)
        return "meta" if isinstance(x, str) and x == "cpu" else x
    args, kwargs = conv(args), {k: conv(v) for k, v in kwargs.items()}
    if "factory" in ember_op(info.name).tags:
        kwargs["device"] = "meta"
    if info.kind == "out":
        kwargs["out"] = torch.empty(0, device="meta")
    return args, kwargs


# --------------------------------------------------------------------------- strides of empty results
@pytest.mark.parametrize("name,args", [
    ("zeros.default", ([2, 0, 3],)), ("neg.default", (np.zeros((2, 0, 3), np.float32),)),
    ("clone.default", (np.zeros((0, 3), np.int64),)),
    ("sum.dim_IntList", (np.zeros((2, 0, 3), np.float32), [2])),
])
def test_empty_results_have_contiguous_strides(name, args):
    """torch gives empty results contiguous strides (size-0 dims count as 1); the suite
    skips stride checks of empty results, so this test covers them."""
    t = torch_op(name)(*materialize(args, "torch"))
    e = ember_op(name)(*materialize(args, "ember"))
    assert e.stride() == t.stride(), f"ember {e.stride()} torch {t.stride()}"


# --------------------------------------------------------------------------- properties
BINARY = ["add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "eq.Tensor", "lt.Tensor",
          "ge.Tensor", "where.self"]


@settings(max_examples=60, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=0,
                                                max_side=4),
       da=st.sampled_from(ALL), db=st.sampled_from(ALL), name=st.sampled_from(BINARY),
       seed=st.integers(0, 2**32 - 1), transpose=st.booleans())
def test_broadcasting_binary_ops_match_torch(shapes, da, db, name, seed, transpose):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    a = make(sa, da, rng=rng)
    b = make(sb, db, rng=rng, nonzero=name.startswith("div"))
    if transpose and len(sa) >= 2:
        a = View(np.ascontiguousarray(np.swapaxes(a, -1, -2)), "transpose.int", (-1, -2))
    args = (a, b) if name != "where.self" else (make(shapes.result_shape, np.bool_, rng=rng), a, b)
    run_case(OPS[name], SampleInput(args))


REDUCTIONS = ["sum.dim_IntList", "mean.dim", "amax.default"]


@settings(max_examples=60, deadline=None)
@given(shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4),
       dtype=st.sampled_from(ALL), name=st.sampled_from(REDUCTIONS), keepdim=st.booleans(),
       data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_reductions_match_torch(shape, dtype, name, keepdim, data, seed):
    ndim = len(shape)
    dims = data.draw(st.lists(st.integers(-ndim, ndim - 1), max_size=ndim,
                              unique_by=lambda d: d % ndim), label="dims")
    x = make(shape, dtype, rng=np.random.default_rng(seed))
    run_case(OPS[name], SampleInput((x, dims, keepdim)))


# --------------------------------------------------------------------------- error parity
def _both(spec):
    """(ember tensor, torch tensor) for a ("cpu" | "meta", shape, NumPy dtype) spec."""
    device, shape, dtype = spec
    name = np.dtype(dtype).name
    if device == "meta":
        return empty_meta(shape, getattr(ember, name)), torch.empty(shape, device="meta",
                                                                    dtype=getattr(torch, name))
    a = make(shape, dtype)
    return np_to_ember(a), np_to_torch(a)


F, I = np.float32, np.int64
ERRORS = [  # (id, op, tensor specs, extra args, key phrase of torch's message)
    ("add_shape_mismatch", "add.Tensor", [("cpu", (3, 4), F), ("cpu", (4, 3), F)], (),
     "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1"),
    ("mm_inner_mismatch", "mm.default", [("cpu", (2, 3), F), ("cpu", (4, 5), F)], (),
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    ("bool_sub", "sub.Tensor", [("cpu", (3,), np.bool_), ("cpu", (3,), np.bool_)], (),
     "Subtraction, the `-` operator, with two bool tensors is not supported"),
    ("int_pow_negative", "pow.Tensor_Scalar", [("cpu", (3,), I)], (-1,),
     "Integers to negative integer powers are not allowed"),
    ("cat_size_mismatch", "cat.default", [[("cpu", (2, 3), F), ("cpu", (2, 4), F)]], (),
     "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor "
     "number 1 in the list"),
    ("inplace_broadcast_smaller_self", "add_.Tensor", [("cpu", (3,), F), ("cpu", (2, 3), F)], (),
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    ("inplace_float_into_int", "add_.Tensor", [("cpu", (3,), I), ("cpu", (3,), F)], (),
     "result type Float can't be cast to the desired output type Long"),
    ("device_mismatch_cpu_meta", "add.Tensor", [("cpu", (3,), F), ("meta", (3,), F)], (),
     "Tensor on device meta is not on the expected device cpu!"),
    ("device_mismatch_meta_cpu", "mul.Tensor", [("meta", (3,), F), ("cpu", (3,), F)], (),
     "Tensor on device cpu is not on the expected device meta!"),
    ("view_incompatible", "view.default", [("cpu", (3, 4), F)], ([5],),
     "shape '[5]' is invalid for input of size 12"),
    ("select_out_of_range", "select.int", [("cpu", (2, 3), F)], (0, 5),
     "select(): index 5 out of range for tensor of size [2, 3] at dimension 0"),
    ("mean_of_int", "mean.default", [("cpu", (3,), I)], (),
     "mean(): could not infer output dtype. Input dtype must be either a floating point or "
     "complex dtype. Got: Long"),
    ("amax_empty", "amax.default", [("cpu", (0, 3), F)], ([0],),
     "Expected reduction dim 0 to have non-zero size"),
    ("stack_size_mismatch", "stack.default", [[("cpu", (2, 3), F), ("cpu", (3, 2), F)]], (),
     "stack expects each tensor to be equal size"),
    ("index_out_of_range", "index.Tensor", [("cpu", (3,), F), [("cpu", None, None)]], (),
     "index 5 is out of bounds for dimension 0 with size 3"),
]


def _build(spec, side):
    if isinstance(spec, list):
        return [_build(s, side) for s in spec]
    if spec == ("cpu", None, None):  # the index tensor of index_out_of_range
        return np_to_ember(np.array([5])) if side == "ember" else torch.tensor([5])
    return _both(spec)[0 if side == "ember" else 1]


@pytest.mark.parametrize("name,op,specs,extra,phrase", ERRORS, ids=[e[0] for e in ERRORS])
def test_error_matches_torch(name, op, specs, extra, phrase):
    built = [_both(s) if isinstance(s, tuple) and s[1] is not None else None for s in specs]
    e_args = [b[0] if b else _build(s, "ember") for b, s in zip(built, specs)]
    t_args = [b[1] if b else _build(s, "torch") for b, s in zip(built, specs)]
    with pytest.raises(Exception) as t_info:
        torch_op(op)(*t_args, *extra)
    assert phrase in str(t_info.value), f"the test's phrase is not in torch's message: {t_info.value}"
    _, e_exc = call(ember_op(op), e_args + list(extra), {})
    assert_same_exception(e_exc, t_info.value)
    assert phrase in str(e_exc), f"ember's message lacks torch's phrase {phrase!r}: {e_exc}"
