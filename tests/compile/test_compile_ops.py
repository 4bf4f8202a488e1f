"""Every functional overload's first runnable sample (tests/ops) through ember.compile with
the aot_eager backend (capture over fakes, functionalization, the core decompositions,
AOT autograd's joint graph and its partition) and with the inductor backend (those graphs
lowered to NumPy, fused numba kernels and direct kernel calls; ops without a lowering run
through the dispatcher inside the generated module) gives eager's outputs, and, for float
inputs of a differentiable op, eager's gradients. Ops whose outputs depend on data the
capture cannot see run eagerly (a graph break); the answer is still eager's.

EMBER_COMPILE_ALL_SAMPLES=1 runs every sample, not only the first."""
from __future__ import annotations

import math
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers import ACCUMULATING_ULPS, assert_close_ulps

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autograd"))
from opinfo import OPS
from test_op_gradients import differentiable_ops
from test_schema_ops import call, ember_op, outputs, sample_args

import ember
from ember.overrides import tensors_in

ALL_SAMPLES = os.environ.get("EMBER_COMPILE_ALL_SAMPLES") == "1"
DIFFERENTIABLE = set(differentiable_ops())
NAMES = sorted(n for n, info in OPS.items() if info.kind == "functional" and info.values)


def _floating(t):
    return isinstance(t, ember.Tensor) and (t.is_floating_point() or t.is_complex())


def _leaves(args, kwargs, grad):
    """The sample's float tensors as fresh leaves (requiring grad when `grad`)."""
    def one(x):
        if isinstance(x, ember.Tensor):
            y = x.detach().clone()
            return y.requires_grad_(grad and _floating(x))
        if isinstance(x, (list, tuple)):
            return type(x)(one(v) for v in x)
        return x
    return one(args), {k: one(v) for k, v in kwargs.items()}


def _same(a, b, where, ulps, gradient=False):
    """Outputs `b` equal `a`: dtypes, shapes, strides (of dims longer than 1), values (real
    floats within `ulps(dtype name)` eps, as the OpInfo tolerances; complex within 1e-4)."""
    a, b = outputs(a), outputs(b)
    assert len(a) == len(b), where
    for x, y in zip(a, b):
        if not isinstance(x, ember.Tensor):
            assert x == y or (math.isnan(x) and math.isnan(y)), where
            continue
        assert isinstance(y, ember.Tensor) and x.dtype == y.dtype, where
        assert tuple(x.shape) == tuple(y.shape), where
        if x.numel() > 1 and not (gradient and 0 in _significant(x)):
            # (an expanded gradient, a sum's: AOT autograd's backward graph makes it dense)
            assert _significant(x) == _significant(y), f"{where}: strides {x.stride()} vs " \
                                                       f"{y.stride()}"
        if x.numel():
            p, q = x.detach().resolve_conj().numpy(), y.detach().resolve_conj().numpy()
            if x.is_floating_point():
                # (gradients: sums of order-1 terms that may cancel, softmax's to 0)
                assert_close_ulps(q, p.astype(np.float64), x.dtype.name, ulps(x.dtype.name),
                                  floor=1 if gradient else None, err_msg=where)
            elif x.is_complex():
                np.testing.assert_allclose(q.astype(np.complex128), p, rtol=1e-4, atol=1e-4,
                                           equal_nan=True, err_msg=where)
            else:
                np.testing.assert_array_equal(q, p, err_msg=where)


def _significant(t):
    return tuple(s for n, s in zip(t.shape, t.stride()) if n > 1)


def _grads(fn, args, kwargs):
    """The result and the gradients of the sum of its differentiable float outputs."""
    out = fn(*args, **kwargs)
    leaves = [t for t in tensors_in([args, kwargs]) if t.requires_grad]
    diff = [o for o in outputs(out) if isinstance(o, ember.Tensor) and o.requires_grad]
    if not (leaves and diff):
        return out, None
    loss = sum((o.real if o.is_complex() else o).sum() for o in diff)
    return out, ember.autograd.grad(loss, leaves, allow_unused=True)


@pytest.mark.parametrize("name", NAMES)
def test_compiled_op_equals_eager(name):
    check_op(name, "aot_eager")


@pytest.mark.parametrize("name", NAMES)
def test_inductor_op_equals_eager(name):
    check_op(name, "inductor")


# a sample of ops with symbolic sizes from the first call; the backward ops give a
# gradient that reads no cotangent (zeros of the input's symbolic sizes), which the
# min-cut partition must compute in the backward from saved sizes
DYNAMIC = ["add.Tensor", "mul.Tensor", "sum.dim_IntList", "mean.dim", "amax.default",
           "_log_softmax.default", "_softmax.default", "mm.default", "addmm.default",
           "view.default", "permute.default", "expand.default", "slice.Tensor",
           "select.int", "cat.default", "where.self", "gather.default",
           "nll_loss_forward.default", "threshold_backward.default",
           "leaky_relu_backward.default", "_adaptive_avg_pool2d_backward.default",
           "convolution.default", "native_layer_norm.default", "gelu.default"]


@pytest.mark.parametrize("name", DYNAMIC)
def test_inductor_op_with_symbolic_sizes_equals_eager(name):
    check_op(name, "inductor", dynamic=True)


def check_op(name, backend, dynamic=None):
    """The op's first runnable sample (every one with EMBER_COMPILE_ALL_SAMPLES=1) through
    ember.compile(backend=backend, dynamic=dynamic): eager's outputs and gradients."""
    op = ember_op(name)
    grad = name in DIFFERENTIABLE

    def gradient_ulps(dt):        # (backward formulas accumulate)
        return max(OPS[name].ulps(dt), ACCUMULATING_ULPS[dt])
    checked = 0
    for sample in OPS[name].samples():
        args, kwargs = sample_args(sample, "ember")
        want, exc = call(op, args, kwargs)
        if exc is not None:
            continue
        ember._dynamo.reset()
        compiled = ember.compile(lambda *a, **k: op(*a, **k), backend=backend, dynamic=dynamic)
        use_grad = grad and any(_floating(t) for t in tensors_in([args, kwargs]))
        e_args, e_kwargs = _leaves(args, kwargs, use_grad)
        c_args, c_kwargs = _leaves(args, kwargs, use_grad)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wanted, exc = call(_grads, (op, e_args, e_kwargs), {}) if use_grad else (
                (op(*e_args, **e_kwargs), None), None)
            got_it, c_exc = call(_grads, (compiled, c_args, c_kwargs), {}) if use_grad else (
                (compiled(*c_args, **c_kwargs), None), None)
        where = f"{name}[{sample.name}]"
        if exc is not None:          # (a backward eager refuses: compiled refuses too)
            assert type(c_exc) is type(exc), f"{where}: {exc!r} vs {c_exc!r}"
            checked += 1
            continue
        assert c_exc is None, f"{where}: {c_exc!r}"
        (want, want_grads), (got, got_grads) = wanted, got_it
        _same(want, got, where, OPS[name].ulps)
        if want_grads is not None:
            assert got_grads is not None, where
            for w, g in zip(want_grads, got_grads):
                if w is None or g is None:
                    assert (w is None or not w.abs().sum()) and (
                        g is None or not g.abs().sum()), where
                else:
                    _same(w, g, f"{where} gradient", gradient_ulps, gradient=True)
        checked += 1
        if not ALL_SAMPLES:
            break
    if not checked:
        pytest.skip("every sample raises eagerly")
