"""Every op listed in schema/autocast.yaml gives torch's output dtypes under autocast.

The cpu policy runs on CPU tensors against torch's CPU autocast (values too). The cuda
policy runs ember's AutocastCUDA wrappers on Meta tensors (the wrappers are pointed at
"meta" as their device type) against torch's CUDA autocast on fake CUDA tensors, so both
sides are checked without a GPU.
"""
from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))
from opinfo import OPS, View
from test_schema_ops import (
    assert_same_exception,
    call,
    ember_op,
    materialize,
    outputs,
    to_meta,
    torch_op,
    torch_ref,
)

import ember
from codegen.autocast import parse_autocast
from codegen.kernel_index import KernelIndex
from codegen.loader import load_yaml_list
from codegen.native import parse_native_functions
from ember.amp import autocast_mode

ROOT = Path(__file__).resolve().parents[2]
MAX_SAMPLES = 6
BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


def _rules():
    fns = parse_native_functions(load_yaml_list(ROOT / "schema/native_functions.yaml", "n"),
                                 KernelIndex(ROOT / "kernels"))
    _, rules = parse_autocast(ROOT / "schema/autocast.yaml", "schema/autocast.yaml", fns)
    return rules


RULES = _rules()


def _floating(a) -> bool:
    return isinstance(a, np.ndarray) and (a.dtype.kind == "f" or a.dtype == BFLOAT16)


def _recast(x, to_np_dtype, first_only, state):
    """Floating arrays in a sample cast to another dtype (all of them, or only the first)."""
    if _floating(x):
        if first_only and state["done"]:
            return x
        state["done"] = True
        return x.astype(to_np_dtype)
    if isinstance(x, View):
        return View(_recast(x.base, to_np_dtype, first_only, state), x.op, x.args)
    if isinstance(x, list):
        return [_recast(v, to_np_dtype, first_only, state) for v in x]
    if isinstance(x, tuple):
        return tuple(_recast(v, to_np_dtype, first_only, state) for v in x)
    return x


def variants(sample, low_np):
    """The sample as given, with every floating input in the lower dtype, and with only
    the first one lowered (promote ops see mixed inputs)."""
    out = [("given", sample.args, sample.kwargs)]
    for tag, first_only in (("lowered", False), ("mixed", True)):
        state = {"done": False}
        args = _recast(sample.args, low_np, first_only, state)
        kwargs = {k: _recast(v, low_np, first_only, state) for k, v in sample.kwargs.items()}
        if state["done"]:
            out.append((tag, args, kwargs))
    return out


def arrays_in(x):
    """Every NumPy array in a sample value (inside Views, lists, tuples and dicts)."""
    if isinstance(x, np.ndarray):
        yield x
    elif isinstance(x, View):
        yield x.base
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from arrays_in(v)
    elif isinstance(x, dict):
        for v in x.values():
            yield from arrays_in(v)


def has_float64(x) -> bool:
    return any(a.dtype == np.float64 for a in arrays_in(x))


def has_floating(x) -> bool:
    return any(_floating(a) for a in arrays_in(x))


def key(rule) -> str:
    """The OPS key of a rule's overload: 'addmm.default', 'conv1d.padding'."""
    return f"{rule.fn.op_name}.{rule.fn.overload}"


def cases(device):
    out = []
    for r in RULES:
        if r.device != device:
            continue
        samples = [s for s in OPS[key(r)].samples()
                   if has_floating((s.args, s.kwargs))]
        for i, s in enumerate(samples[:MAX_SAMPLES]):
            out.append(pytest.param(key(r), r.policy, s, id=f"{key(r)}-{i}"))
    return out


def compare(e_res, e_exc, t_res, t_exc, values, tol, exception_types=True):
    if t_exc is not None or e_exc is not None:
        if exception_types:
            assert_same_exception(e_exc, t_exc)
        else:  # torch's fake CUDA kernels raise their own types (AssertionError, ...)
            assert (e_exc is None) == (t_exc is None), (e_exc, t_exc)
        return
    e_outs, t_outs = outputs(e_res), outputs(t_res)
    assert len(e_outs) == len(t_outs)
    for e, t in zip(e_outs, t_outs):
        if not isinstance(t, torch.Tensor):
            continue
        assert e.dtype.name == str(t.dtype).removeprefix("torch."), (e.dtype, t.dtype)
        assert tuple(e.shape) == tuple(t.shape)
        if values and t.numel():
            np.testing.assert_allclose(e.detach().float().numpy(),
                                       t.detach().float().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name,policy,sample", cases("cpu"))
def test_cpu_policy_matches_torch(name, policy, sample):
    for tag, args, kwargs in variants(sample, BFLOAT16):
        e_args, e_kwargs = materialize(args, "ember"), {k: materialize(v, "ember")
                                                        for k, v in kwargs.items()}
        t_args, t_kwargs = materialize(args, "torch"), {k: materialize(v, "torch")
                                                        for k, v in kwargs.items()}
        with ember.autocast("cpu"):
            e_res, e_exc = call(ember_op(name), e_args, e_kwargs)
        with torch.autocast("cpu"):
            t_res, t_exc = call(torch_ref(OPS[name], t_args), t_args, t_kwargs)
        # values=False ops (singular vectors: their sign is LAPACK's) compare dtypes/shapes
        compare(e_res, e_exc, t_res, t_exc, values=OPS[name].values, tol=6e-2)


def _fake_cuda(mode, x):
    """Torch CPU values -> fake CUDA tensors (same shape, strides, dtype)."""
    if isinstance(x, torch.Tensor):
        with mode:
            return torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device="cuda")
    if isinstance(x, list):
        return [_fake_cuda(mode, v) for v in x]
    if isinstance(x, tuple):
        return tuple(_fake_cuda(mode, v) for v in x)
    return "cuda" if x == "cpu" and isinstance(x, str) else x


@pytest.fixture()
def cuda_wrappers_on_meta(monkeypatch):
    """ember's AutocastCUDA wrappers act on Meta tensors for the test's duration."""
    monkeypatch.setitem(autocast_mode.ELIGIBLE_DEVICE, "cuda", "meta")
    yield


# CUDA-only ops in torch: their OpInfo reference is a Python formula, which autocast cannot
# see, so the CUDA test calls torch's own op; its fake kernel fails on None biases (skipped)
TORCH_CUDA_ONLY = {"_thnn_fused_lstm_cell.default", "_thnn_fused_gru_cell.default"}


def _torch_cuda_op(name, t_args):
    return torch_op(name) if name in TORCH_CUDA_ONLY else torch_ref(OPS[name], t_args)


@pytest.mark.parametrize("name,policy,sample", cases("cuda"))
def test_cuda_policy_matches_torch(name, policy, sample, cuda_wrappers_on_meta):
    from torch._subclasses.fake_tensor import FakeTensorMode
    for tag, args, kwargs in variants(sample, np.dtype(np.float16)):
        if has_float64((args, kwargs)):
            continue  # fake CUDA kernels skip dtype checks; float64 runs the cpu test's path
        e_args = to_meta(materialize(args, "ember"))
        e_kwargs = {k: to_meta(materialize(v, "ember")) for k, v in kwargs.items()}
        mode = FakeTensorMode()
        t_args = _fake_cuda(mode, materialize(args, "torch"))
        t_kwargs = {k: _fake_cuda(mode, materialize(v, "torch")) for k, v in kwargs.items()}
        ember.set_autocast_enabled("cuda", True)
        try:
            e_res, e_exc = call(ember_op(name), e_args, e_kwargs)
        finally:
            ember.set_autocast_enabled("cuda", False)
        torch.set_autocast_enabled("cuda", True)
        torch.set_autocast_dtype("cuda", torch.float16)
        try:
            with mode:
                t_res, t_exc = call(_torch_cuda_op(name, t_args), t_args, t_kwargs)
        finally:
            torch.set_autocast_enabled("cuda", False)
        if t_exc is not None and e_exc is None and name in TORCH_CUDA_ONLY:
            continue
        if e_exc is not None and t_exc is None and \
                call(ember_op(name), e_args, e_kwargs)[1] is not None:
            continue  # an error sample that fake CUDA kernels do not check (not autocast's)
        compare(e_res, e_exc, t_res, t_exc, values=False, tol=0, exception_types=False)


def test_every_listed_op_has_samples():
    covered = {p.values[0] for device in ("cpu", "cuda") for p in cases(device)}
    missing = sorted({key(r) for r in RULES} - covered)
    assert not missing, f"listed in autocast.yaml but no floating samples: {missing}"


def _torch_autocast_keys(name: str) -> set[str]:
    """The autocast keys at which torch registers a kernel (not a fallthrough) for `name`."""
    op, _, overload = name.partition(".")
    qualified = f"aten::{op}" + ("" if overload == "default" else f".{overload}")
    try:
        table = torch._C._dispatch_dump_table(qualified)
    except RuntimeError:
        return set()
    found = set()
    for line in table.splitlines():
        key, _, rest = line.partition(": ")
        if key in ("AutocastCPU", "AutocastCUDA") and not rest.startswith("fallthrough"):
            found.add(key)
    return found


def test_lists_name_exactly_the_ops_torch_autocasts():
    """For each functional overload ember declares, it is listed for a device type exactly
    when torch registers an autocast kernel for it there."""
    listed = {(key(r), r.device) for r in RULES}
    wrong = []
    for name, info in OPS.items():
        if info.kind != "functional":
            continue
        keys = _torch_autocast_keys(name)
        for device, k in (("cpu", "AutocastCPU"), ("cuda", "AutocastCUDA")):
            if (k in keys) != ((name, device) in listed):
                wrong.append(f"{name} on {device}: torch {'has' if k in keys else 'has no'} "
                             "autocast kernel")
    assert not wrong, "\n".join(wrong)
