"""nn.Parameter through every op: each aten overload's first sample (tests/ops/opinfo.py),
run once with plain tensors and once with every tensor argument wrapped in a Parameter,
gives the same values (or the same error), and functional results are plain Tensors."""
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import ember
from ember import nn

sys.path.insert(0, str(Path(__file__).parents[1] / "ops"))
import opinfo  # (from tests/ops, put on the path above)
import test_schema_ops as schema_tests


def _wrap(x):
    """Every CPU tensor in a nested argument structure as a Parameter (no grad)."""
    if isinstance(x, ember.Tensor) and x.device.type == "cpu":
        return nn.Parameter(x, requires_grad=False)
    if isinstance(x, list):
        return [_wrap(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    if isinstance(x, dict):
        return {k: _wrap(v) for k, v in x.items()}
    return x


UNINITIALISED = ("empty", "new_empty")    # results whose values are whatever memory held


def _run(name, sample, wrap):
    """(result, exception, the tensors passed in) for one sample."""
    args, kwargs = schema_tests.sample_args(sample, "ember")
    if opinfo.OPS[name].kind == "out":
        t_res, t_exc = schema_tests.call(schema_tests.ember_op(opinfo.OPS[name].functional),
                                         args, kwargs)
        kwargs.update(schema_tests.out_kwargs(opinfo.OPS[name], t_res, t_exc, args, "like",
                                              "ember"))
    if wrap:
        args, kwargs = _wrap(args), _wrap(kwargs)
    ember.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result, exc = schema_tests.call(schema_tests.ember_op(name), args, kwargs)
    return result, exc, schema_tests.tensors_in((args, kwargs))


def _flat(result):
    if isinstance(result, (tuple, list)):
        return [r for v in result for r in _flat(v)]
    return [result]


CASES = [pytest.param(name, opinfo.OPS[name].samples()[0], id=name)
         for name in sorted(opinfo.OPS)]


@pytest.mark.parametrize("name, sample", CASES)
def test_op_with_parameter_arguments(name, sample):
    plain, plain_exc, _ = _run(name, sample, wrap=False)
    wrapped, wrapped_exc, inputs = _run(name, sample, wrap=True)
    if plain_exc is not None:
        assert type(wrapped_exc) is type(plain_exc) and str(wrapped_exc) == str(plain_exc)
        return
    if wrapped_exc is not None:
        raise wrapped_exc
    for p, w in zip(_flat(plain), _flat(wrapped), strict=True):
        if not isinstance(p, ember.Tensor):
            assert p == w or (isinstance(p, float) and math.isnan(p) and math.isnan(w))
            continue
        returns_an_input = any(w is t for t in inputs)    # contiguous(), atleast_1d(), ...
        if opinfo.OPS[name].kind == "functional" and not returns_an_input:
            assert type(w) is ember.Tensor, f"{name} returned {type(w).__name__}"
        assert (w.shape, w.dtype, w.stride()) == (p.shape, p.dtype, p.stride())
        if p.device.type == "cpu" and not name.startswith(UNINITIALISED):
            np.testing.assert_array_equal(w.numpy(force=w.is_conj()), p.numpy(force=p.is_conj()))


def test_parameters_requiring_grad_through_public_functions():
    """The public bindings (the __torch_function__ layer) with grad-requiring Parameters."""
    w = nn.Parameter(ember.randn(3, 4, dtype=ember.float64))
    b = nn.Parameter(ember.randn(3, dtype=ember.float64))
    x = ember.randn(5, 4, dtype=ember.float64)
    outs = [ember.linear(x, w, b), w @ x.T, w.exp().sum(0), ember.cat([w, w]), w[1:, ::2],
            ember.where(w > 0, w, b[:, None]), w.softmax(-1), ember.stack([b, b]).mean()]
    for out in outs:
        assert type(out) is ember.Tensor and out.requires_grad and out.grad_fn is not None
    sum(o.sum() for o in outs).backward()
    assert w.grad.shape == (3, 4) and b.grad.shape == (3,)
    assert type(w.grad) is ember.Tensor
