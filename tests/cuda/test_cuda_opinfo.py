"""The op sample modules (tests/ops/opinfo*.py) on device="cuda": every overload with a CUDA
kernel in the schema runs its samples on the emulator's device and must equal ember's CPU
result (shape, dtype, strides of dims > 1, values within the op's tolerances), or raise the
same exception type as the CPU does."""
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import builtin_type, tolerance

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ops"))

from opinfo import DEVICE, OPS, View
from test_schema_ops import (
    assert_layout,
    call,
    ember_op,
    materialize,
    outputs,
)

import ember
from ember.dispatch import keys as K

pytestmark = pytest.mark.usefixtures("cuda")


def _has_cuda_kernel(name):
    return K.CUDA in ember_op(name)._table


CASES = [pytest.param(name, i, id=f"{name}-{s.name or i}")
         for name in sorted(OPS) if OPS[name].kind != "out" and _has_cuda_kernel(name)
         for i, s in enumerate(OPS[name].samples()) if not s.data_dependent]


def _has_complex(x) -> bool:
    if isinstance(x, np.ndarray):
        return x.dtype.kind == "c"
    if isinstance(x, View):
        return _has_complex(x.base)
    if isinstance(x, (list, tuple)):
        return any(map(_has_complex, x))
    if isinstance(x, dict):
        return any(map(_has_complex, x.values()))
    return isinstance(x, complex)


def on_cuda(x):
    """A sample value as ember CUDA objects, views made on the device (same strides)."""
    if isinstance(x, np.ndarray):
        return materialize(x, "ember").cuda()
    if isinstance(x, View):
        return ember_op(x.op)(on_cuda(x.base), *x.args)
    if isinstance(x, list):
        return [on_cuda(v) for v in x]
    if isinstance(x, tuple):
        return tuple(on_cuda(v) for v in x)
    if x is DEVICE:
        return "cuda"
    return materialize(x, "ember")


def assert_close(d, c, info, what):
    assert isinstance(d, ember.Tensor) and d.is_cuda, f"{what}: not a CUDA tensor: {d!r}"
    assert tuple(d.shape) == tuple(c.shape), f"{what} shape: cuda {d.shape} cpu {c.shape}"
    assert d.dtype is c.dtype, f"{what} dtype: cuda {d.dtype} cpu {c.dtype}"
    assert_layout(d, c, False, what, ("cuda", "cpu"))
    if not info.values:
        return
    got, want = d.cpu().numpy(force=True), c.numpy(force=True)
    if c.dtype.is_floating_point:
        rtol, atol = tolerance(c.dtype.name, want.astype(np.float64), info.ulps(c.dtype.name))
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=max(rtol, 1e-6), atol=max(atol, 1e-6), equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name,index", CASES)
def test_cuda_matches_cpu(name, index):
    info, op = OPS[name], ember_op(name)
    sample = info.samples()[index]
    if sample.name.endswith("by_zero"):
        pytest.skip("integer division by zero: torch's CPU raises, its CUDA kernels do not")
    if sample.name == "generator":
        pytest.skip("a CPU generator for a CUDA op: torch's CUDA raises (test_cuda_kernels.py)")
    if sample.name == "half_to_float_error":
        pytest.skip("softmax's half_to_float: torch's CPU raises, its CUDA converts")
    if _has_complex(sample.args) or _has_complex(sample.kwargs):
        pytest.skip("ember's CUDA kernels have no complex dtypes yet (they raise "
                    "NotImplementedError)")
    c_args = materialize(sample.args, "ember")
    c_kwargs = {k: materialize(v, "ember") for k, v in sample.kwargs.items()}
    c_res, c_exc = call(op, c_args, c_kwargs)
    d_args = on_cuda(sample.args)
    d_kwargs = {k: on_cuda(v) for k, v in sample.kwargs.items()}
    if "factory" in op.tags:
        d_kwargs["device"] = "cuda"
    d_res, d_exc = call(op, d_args, d_kwargs)
    if c_exc is not None:
        assert d_exc is not None, f"the CPU raised {c_exc!r}, CUDA returned a result"
        assert builtin_type(type(d_exc)) is builtin_type(type(c_exc)), (d_exc, c_exc)
        return
    if d_exc is not None:
        raise d_exc
    for i, (d, c) in enumerate(zip(outputs(d_res), outputs(c_res))):
        assert_close(d, c, info, f"result[{i}]")
    if info.kind == "inplace":
        assert d_res is d_args[0], "an in-place op must return self"
