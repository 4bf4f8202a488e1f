"""Every mutating overload (in-place and out=) and every view op, run through
ember.func.functionalize on its samples, gives eager's results, mutates its inputs as
eager does, and raises where eager raises (same builtin type)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))
from opinfo import OPS, out_names
from test_schema_ops import call, ember_op, outputs, sample_args

import ember
from ember.func import functionalize
from ember.overrides import tensors_in


def _mutating_or_view(name) -> bool:
    info = OPS[name]
    op = ember_op(name)
    return info.kind in ("inplace", "out") or "view" in op.tags or "inplace_view" in op.tags


NAMES = sorted(n for n in OPS if _mutating_or_view(n))
# storage swaps have no functional form: functionalization refuses them with a clear error
REFUSED = {"set_.default", "set_.source_Tensor", "set_.source_Tensor_storage_offset"}


def _same(a, b, values, where):
    assert isinstance(b, ember.Tensor), where
    assert tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype, where
    if values and a.numel():
        x, y = a.resolve_conj().numpy(), b.resolve_conj().numpy()
        if a.dtype.is_floating_point or a.dtype.is_complex:   # in-place kernels may round
            # differently (addcmul_)
            wide = np.complex128 if a.dtype.is_complex else np.float64
            x, y = x.astype(wide), y.astype(wide)
            rtol = 8 * float(np.finfo(np.float32 if a.dtype.itemsize <= 2 else
                                      a.dtype.np).eps)
            ref = np.abs(x)
            atol = rtol * float(np.nanmax(np.where(np.isfinite(ref), ref, 0), initial=0))
            np.testing.assert_allclose(y, x, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(x, y, err_msg=where)


def _run(info, op, sample, functionalized, remove="mutations"):
    args, kwargs = sample_args(sample, "ember")
    if info.kind == "out":
        ref, exc = call(ember_op(info.functional), args, kwargs)
        if exc is not None:
            return None
        kwargs = {**kwargs, **{n: ember.empty_like(r) for n, r in zip(
            out_names(info.name), outputs(ref))}}
    fn = functionalize(op, remove=remove) if functionalized else op
    res, exc = call(fn, args, kwargs)
    return res, exc, list(tensors_in([*args, *kwargs.values()]))


VIEWS = [n for n in NAMES if {"view", "inplace_view"} & set(ember_op(n).tags)]


@pytest.mark.parametrize(("name", "remove"), [(n, "mutations") for n in NAMES] + [
    (n, "mutations_and_views") for n in VIEWS])
def test_functionalized_matches_eager(name, remove):
    info = OPS[name]
    op = ember_op(name)
    checked = 0
    for sample in info.samples():
        eager = _run(info, op, sample, False)
        if eager is None:
            continue
        func = _run(info, op, sample, True, remove)
        (e_res, e_exc, e_inputs), (f_res, f_exc, f_inputs) = eager, func
        where = f"{name}[{sample.name}]"
        if e_exc is not None:
            assert f_exc is not None, f"{where}: eager raised {e_exc!r}, functionalized did not"
            assert isinstance(f_exc, type(e_exc).__mro__[-3] if isinstance(
                e_exc, (RuntimeError, ValueError, IndexError, TypeError)) else Exception), where
            continue
        if name in REFUSED:
            assert isinstance(f_exc, RuntimeError) and "functionalization" in str(f_exc), where
            continue
        assert f_exc is None, f"{where}: functionalized raised {f_exc!r}"
        for i, (e, f) in enumerate(zip(outputs(e_res), outputs(f_res))):
            if isinstance(e, ember.Tensor):
                assert not ember._is_functional_tensor(f), where
                _same(e, f, info.values, f"{where} result[{i}]")
        for i, (e, f) in enumerate(zip(e_inputs, f_inputs)):     # the input mutations
            _same(e, f, info.values, f"{where} input[{i}]")
        checked += 1
    if not checked:
        pytest.skip("every sample is an error case of the functional op")
