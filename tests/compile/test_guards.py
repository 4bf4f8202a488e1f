"""ember.compile's guards and dynamic shapes: a changed fact recompiles (or reuses a graph
that still holds), and every call gives eager's answer."""
import math

import numpy as np
import pytest

import ember
from ember import nn
from ember._dynamo import counters

SCALE = 2.0
OFFSET = ember.ones(3)


def _frames():
    return counters["frames"]["total"]


def _close(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-6)


def test_a_changed_global_recompiles():
    global SCALE, OFFSET
    f = ember.compile(lambda x: x * SCALE + OFFSET, backend="eager")
    x = ember.randn(3)
    try:
        _close(f(x), x * 2 + 1)
        SCALE = 3.0
        _close(f(x), x * 3 + 1)
        OFFSET = ember.zeros(3)                   # a global tensor rebound
        _close(f(x), x * 3)
        assert _frames() == 3
        _close(f(x), x * 3)
        assert _frames() == 3
    finally:
        SCALE, OFFSET = 2.0, ember.ones(3)


def test_a_changed_closure_cell_recompiles():
    k = 2

    def g(x):
        return x + k
    f = ember.compile(g, backend="eager")
    x = ember.zeros(2)
    assert f(x).tolist() == [2.0, 2.0]
    k = 5
    assert f(x).tolist() == [5.0, 5.0] and _frames() == 2


def test_constants_nan_kwargs_nesting_and_objects():
    f = ember.compile(lambda x, c, pair, opts, dtype=None: (x * c + pair[0] * pair[1]
                                                            + opts["b"]).to(dtype),
                      backend="eager")
    x = ember.ones(2)
    for _ in range(2):
        out = f(x, math.nan, [ember.ones(2), 3], {"b": 1}, dtype=ember.float64)
        assert math.isnan(out[0].item()) and out.dtype == ember.float64
    assert _frames() == 1                         # NaN matches NaN: no recompile
    assert f(x, 2.0, [ember.ones(2), 3], {"b": 1}, dtype=ember.float64).tolist() == [6.0, 6.0]
    assert f(x, 2.0, [ember.ones(2), 3], {"b": 1}, dtype=ember.float32).dtype == ember.float32
    assert f(x, 2.0, (ember.ones(2), 3), {"b": 1}, dtype=ember.float32).dtype == ember.float32
    assert _frames() == 4                         # value, dtype object, list -> tuple
    assert f(x, 2, [ember.ones(2), 3], {"b": 1}, dtype=ember.float32).tolist() == [6.0, 6.0]
    assert _frames() == 5                         # an int is not the float 2.0


def test_grad_mode_autocast_and_default_dtype():
    f = ember.compile(lambda x: (x @ x, ember.ones(2)), backend="eager")
    x = ember.randn(2, 2)
    assert [t.dtype for t in f(x)] == [ember.float32] * 2
    with ember.autocast("cpu", dtype=ember.bfloat16):
        assert f(x)[0].dtype == ember.bfloat16
    with ember.autocast("cpu", dtype=ember.float16):
        assert f(x)[0].dtype == ember.float16
    with ember.no_grad():
        f(x)
    prev = ember.get_default_dtype()
    try:
        ember.set_default_dtype(ember.float64)
        assert f(x)[1].dtype == ember.float64          # the factory inside follows it
    finally:
        ember.set_default_dtype(prev)
    assert _frames() == 5


def _mlp():
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_module_changes_recompile(backend):
    model = _mlp()
    f = ember.compile(model, backend=backend)
    x = ember.randn(5, 4)
    _close(f(x), model(x))
    model[2] = nn.Linear(8, 3)                     # a submodule replaced
    assert f(x).shape == (5, 3)
    model[0].weight = nn.Parameter(ember.zeros(8, 4))   # a parameter replaced
    _close(f(x), model(x))
    seen = []
    handle = model[1].register_forward_hook(lambda m, i, o: seen.append(o.shape))
    f(x)
    assert seen == [(5, 8)]                        # the hook was traced into the new graph
    handle.remove()
    model.eval()
    _close(f(x), model(x))
    assert _frames() == 5
    model[0].weight.requires_grad_(False)          # requires_grad is part of a tensor guard
    f(x).sum().backward()
    assert model[0].weight.grad is None and model[2].weight.grad is not None
    assert _frames() == 6


def _bn_model():
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2)).eval()


def _global_hook(m):
    from ember.nn.modules._hooks import register_module_forward_hook
    return register_module_forward_hook(lambda mod, i, o: o * 2 if mod is m[2] else None)


MODULE_MUTATIONS = {      # each guarded fact of a compiled module, changed
    "parameter .data (new strides)": lambda m: setattr(m[0].weight, "data",
                                                        ember.randn(4, 8).t()),
    "parameter replaced": lambda m: setattr(m[3], "weight", nn.Parameter(ember.ones(2, 8))),
    "parameter written into _parameters": lambda m: m[3]._parameters.__setitem__(
        "weight", nn.Parameter(ember.ones(2, 8))),
    "parameter set to None": lambda m: setattr(m[3], "bias", None),
    "parameter registered": lambda m: m[0].register_parameter(
        "extra", nn.Parameter(ember.ones(1))),
    "parameter requires_grad": lambda m: m[0].weight.requires_grad_(False),
    "buffer replaced": lambda m: setattr(m[1], "running_mean", ember.ones(8)),
    "buffer written into _buffers": lambda m: m[1]._buffers.__setitem__(
        "running_var", ember.full((8,), 4.0)),
    "buffer registered": lambda m: m[1].register_buffer("extra", ember.ones(1)),
    "submodule replaced": lambda m: m.__setitem__(2, nn.Tanh()),
    "submodule added": lambda m: m.add_module("extra", nn.Sigmoid()),
    "training flag of a submodule": lambda m: m[1].train(),
    "forward pre-hook": lambda m: m[0].register_forward_pre_hook(lambda mod, i: (i[0] * 2,)),
    "forward hook": lambda m: m[2].register_forward_hook(lambda mod, i, o: o + 1),
    "global forward hook": _global_hook,
}


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("mutation", list(MODULE_MUTATIONS))
def test_each_module_mutation_recompiles(backend, mutation):
    """Every fact the module guards check: changing it recompiles, and the call gives
    eager's answer for the changed module; unchanged, the graph is reused."""
    model = _bn_model()
    f = ember.compile(model, backend=backend)
    x = ember.randn(5, 4)
    _close(f(x), model(x))
    handle = MODULE_MUTATIONS[mutation](model)
    try:
        want = model(x)
        _close(f(x), want)
        assert _frames() == 2
        _close(f(x), want)
        assert _frames() == 2
    finally:
        if hasattr(handle, "remove"):
            handle.remove()


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_automatic_dynamic_shapes(backend):
    def fn(x, w):
        return ((x @ w).relu() * 2).sum(1)
    f = ember.compile(fn, backend=backend)
    w = ember.randn(3, 5, requires_grad=True)
    for n in (4, 6, 9, 2):
        x = ember.randn(n, 3)
        out = f(x, w)
        out.sum().backward()
        got, w.grad = w.grad, None
        ref = fn(x, w)
        ref.sum().backward()
        _close(out, ref)
        _close(got, w.grad)
        w.grad = None
    assert _frames() == 2                          # static, then one graph for every n >= 2
    explained = ember._dynamo.explain(fn)(ember.randn(4, 3), w)
    assert "shape=[4, 3]" in str(explained)


def test_dynamic_true_false_and_size_one():
    f = ember.compile(lambda x: x.sum(0) * x.shape[0], backend="eager", dynamic=True)
    for n in (3, 5, 7):
        assert f(ember.ones(n, 2)).tolist() == [n * n, n * n]
    assert _frames() == 1
    assert f(ember.ones(1, 2)).tolist() == [1.0, 1.0]     # 0 and 1 are specialised
    assert _frames() == 2
    g = ember.compile(lambda x: x * 2, backend="eager", dynamic=False)
    for n in (3, 5, 7):
        g(ember.ones(n))
    assert _frames() == 5


def test_shape_guards_from_the_trace():
    def fn(x):
        return x * 2 if x.shape[0] > 4 else x - 1
    f = ember.compile(fn, backend="eager")
    for n in (6, 8, 10, 3, 12):                    # the dynamic graph holds for n > 4 only
        x = ember.ones(n)
        _close(f(x), fn(x))
    assert _frames() == 3
    compiled = next(c for c in ember._dynamo.eval_frame._compiled if c.entries)
    assert any("SHAPE_ENV" in e.guards.describe() for e in compiled.entries)


def test_duck_sized_inputs_keep_equal_sizes():
    f = ember.compile(lambda x, y: x + y, backend="eager")
    f(ember.ones(3), ember.ones(3))
    _close(f(ember.ones(5), ember.ones(5)), ember.full((5,), 2.0))   # one symbol for both
    with pytest.raises(RuntimeError, match="size of tensor a"):
        f(ember.ones(5), ember.ones(7))            # eager's error, not a broadcast graph


def test_mark_dynamic():
    f = ember.compile(lambda x: x.sum(0), backend="eager")
    x = ember.ones(4, 3)
    ember._dynamo.mark_dynamic(x, 0)
    f(x)
    f(ember.ones(6, 3))                         # the first graph already has a symbol
    assert _frames() == 1
    with pytest.raises(IndexError, match="out of range"):
        ember._dynamo.mark_dynamic(x, 2)


def test_logs_name_the_failed_guard(caplog):
    import logging

    from ember import _logging
    f = ember.compile(lambda x, k: x * k, backend="eager")
    try:
        _logging.set_logs(recompiles=True, graph_breaks=True)
        with caplog.at_level(logging.INFO):
            logging.getLogger("ember.recompiles").propagate = True
            logging.getLogger("ember.graph_breaks").propagate = True
            f(ember.ones(2), 2)
            f(ember.ones(2), 3)
            ember.compile(lambda x: x * x.sum().item(), backend="eager")(ember.ones(2))
    finally:
        _logging.set_logs()
    text = caplog.text
    assert "Recompiling function" in text and "CONSTANT_MATCH(args[1] == 2)" in text
    assert "runs eagerly" in text and "_local_scalar_dense" in text
    with pytest.raises(ValueError, match="unknown artifact"):
        _logging.set_logs(nonsense=True)


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
@pytest.mark.parametrize(("name", "fn"), [
    ("t", lambda x: x.t()), ("select", lambda x: x[0]), ("identity", lambda x: x),
    ("view_and_more", lambda x: (x.view(-1), x * 2)),
])
def test_outputs_that_alias_inputs_stay_views(backend, name, fn):
    f = ember.compile(fn, backend=backend)
    x, ref = ember.zeros(2, 2), ember.zeros(2, 2)
    out, want = f(x), fn(ref)
    out = out[0] if isinstance(out, tuple) else out
    want = want[0] if isinstance(want, tuple) else want
    assert out.stride() == want.stride() and out.storage_offset() == want.storage_offset()
    out.add_(1)
    want.add_(1)
    assert x.tolist() == ref.tolist()             # the write reached the input, as eager's
    leaf = ember.ones(2, 2, requires_grad=True)
    f(leaf)[0].sum().backward() if name == "view_and_more" else f(leaf).sum().backward()
    assert leaf.grad.tolist() == [[1.0, 1.0], [0.0, 0.0]] if name == "select" else \
        leaf.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


WEIGHT = ember.randn(3, 3)
BUFFER = ember.zeros(3)


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_closed_over_tensors_are_constants_read_at_run_time(backend):
    global BUFFER
    BUFFER = ember.zeros(3)

    def uses(x):
        return (x @ WEIGHT).relu()

    def writes(x):
        BUFFER.add_(x)
        return x * 2
    x = ember.ones(3, requires_grad=True)
    f = ember.compile(uses, backend=backend)
    _close(f(x), uses(x))
    WEIGHT.mul_(2)                                   # read when the graph runs
    _close(f(x), uses(x))
    f(x).sum().backward()
    assert x.grad is not None and not counters["graph_break"]
    g = ember.compile(writes, backend=backend)
    before = BUFFER.clone()
    _close(g(x.detach()), x * 2)                     # a graph break: eager's side effect
    assert (BUFFER - before).tolist() == [1.0, 1.0, 1.0]
    leaf = ember.ones(3, requires_grad=True)
    h = ember.compile(lambda x: (x * leaf).sum(), backend=backend)
    h(x).backward()
    assert leaf.grad.tolist() == [1.0, 1.0, 1.0]     # not a constant: its gradient arrives
    assert len(counters["graph_break"]) == 2
