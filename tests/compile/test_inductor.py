"""ember's inductor backend: each lowering and each fused numba kernel equal to eager
(values within the OpInfo tolerances, dtypes, shapes, strides), the digits MLP and a
conv/batch-norm step with no dispatcher fallbacks, memory reuse, the on-disk kernel cache,
output_code logging and a snapshot of the generated module.

EMBER_INDUCTOR_LONG=1 runs every float sample of the OpInfo modules (slow: numba compiles)."""
from __future__ import annotations

import copy
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from helpers import EPS, ULPS, assert_close_ulps, aten_op

import ember
from ember import nn
from ember._dynamo import counters
from ember._inductor import config, lower

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))
from opinfo import OPS
from test_schema_ops import sample_args


def _np(t):
    return t.detach().numpy()


def _compiled(fn, runs):
    """ember.compile(fn) with the inductor backend, the lowered graphs kept in `runs`."""
    from ember._decomp import core_aten_decompositions
    from ember._functorch.aot_autograd import aot_graph

    def compile_graph(gm, _):
        run = lower(gm)
        runs.append(run)
        return run

    def backend(gm, example_inputs):
        return aot_graph(gm, example_inputs, fw_compiler=compile_graph,
                         decompositions=core_aten_decompositions())
    return ember.compile(fn, backend=backend)


def _significant(t):
    return tuple(s for n, s in zip(t.shape, t.stride()) if n > 1)


def _assert_same(got, want, ulps=None):
    """Values within the OpInfo tolerance (in eps of the dtype, relative to the largest
    |value|), dtype, shape and the strides of dims longer than 1 as eager's."""
    assert got.dtype == want.dtype and got.shape == want.shape
    assert _significant(got) == _significant(want), (got.stride(), want.stride())
    name = str(want.dtype).split(".")[1]
    if name in EPS:
        assert_close_ulps(_np(got), _np(want), name, ulps or ULPS[name])
    else:
        np.testing.assert_array_equal(_np(got), _np(want))


# --- every lowering, forward and backward --------------------------------------------------------
LOWERED_CASES = [
    ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
    ("div", lambda a, b: a / b), ("scalar", lambda a, b: a * 2.5 - 1),
    ("unary", lambda a, b: (a.exp() + b.abs().sqrt().log()).tanh().neg()),
    ("relu", lambda a, b: a.relu()), ("compare", lambda a, b: ember.where(a <= b, a, b)),
    ("reduce", lambda a, b: a.sum(0) + b.amax(1).sum()), ("matmul", lambda a, b: a @ b.t()),
    ("addmm", lambda a, b: ember.addmm(b[0, :3], a, b.t())),
    ("views", lambda a, b: a.t().reshape(12).expand(2, 12) + 1),
    ("mean_pow", lambda a, b: (a - b).pow(2).mean(1, keepdim=True) + a.pow(-0.5)),
    ("log_softmax", lambda a, b: nn.functional.log_softmax(a * b, 1)),
    ("nll", lambda a, b: nn.functional.cross_entropy(a * b, (b[:, 0].detach() * 2).long())),
    ("bmm", lambda a, b: ember.bmm(a.reshape(1, 3, 4), b.t().reshape(1, 4, 3)).sigmoid()),
    ("pow_scalar", lambda a, b: 0.9 ** a + 2.0 ** b.sum()),       # (Adam's beta ** step)
    ("fallback", lambda a, b: ember.cumsum(a, 0) + a.float()),     # cumsum is not lowered
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "fn"), LOWERED_CASES, ids=[c[0] for c in LOWERED_CASES])
def test_lowering_equals_eager(name, fn, dtype):
    """Each lowered op (NumPy, fused kernel or extern kernel) computes what ember's kernel
    does, forward and backward; an op without a lowering runs through the dispatcher
    inside the same module."""
    rng = np.random.default_rng(0)
    dt = getattr(ember, dtype)
    a0, b0 = (rng.uniform(0.5, 2, (3, 4)) for _ in range(2))
    a, b = (ember.tensor(v, dtype=dt, requires_grad=True) for v in (a0, b0))
    ea, eb = (ember.tensor(v, dtype=dt, requires_grad=True) for v in (a0, b0))
    runs = []
    got = _compiled(fn, runs)(a, b)
    want = fn(ea, eb)
    _assert_same(got, want)
    got.sum().backward()
    want.sum().backward()
    for x, y in ((a, ea), (b, eb)):
        if y.grad is not None:
            _assert_same(x.grad, y.grad, ulps=64)
    assert "np." in runs[0].source                      # something was lowered
    fallbacks = [op for r in runs for op in r.fallbacks]
    assert bool(fallbacks) == (name == "fallback"), fallbacks


# --- fused kernels ---------------------------------------------------------------------------------
def _fused_case(fn, *arrays, kernels=1):
    runs = []
    tensors = [ember.tensor(a) for a in arrays]
    got = _compiled(fn, runs)(*tensors)
    _assert_same(got, fn(*[ember.tensor(a) for a in arrays]))
    assert sum(r.kernels for r in runs) == kernels, runs[0].source
    return got, runs


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", [((4, 5), (4, 5), (4, 5)), ((4, 1), (5,), ()),
                                    ((2, 1, 3), (1, 4, 1), (4, 3)), ((0, 3), (3,), ())],
                         ids=["same", "row-col-scalar", "3d", "empty"])
def test_fused_pointwise_broadcasting(shapes, dtype):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    _fused_case(lambda a, b, c: ((a * b + c).relu() - 0.5 * a).exp(), *arrays)


def test_fused_kernel_matches_torch_bit_for_bit_without_transcendentals():
    """float32 stays float32 (constants cast: numba would compute float32 * 2.5 in
    float64), so a chain of + - * / and where is exact."""
    rng = np.random.default_rng(2)
    a, b, c = (rng.standard_normal((64, 33)).astype(np.float32) for _ in range(3))

    def fn(x, y, z):
        return ember.where(x > 0.1, x * 2.5 + y / 3.7, z - 1e-3) * 0.1
    got, _ = _fused_case(fn, a, b, c)
    ta, tb, tc = (torch.tensor(v) for v in (a, b, c))
    want = torch.where(ta > 0.1, ta * 2.5 + tb / 3.7, tc - 1e-3) * 0.1
    np.testing.assert_array_equal(_np(got), want.numpy())
    assert got.dtype == ember.float32


def test_fused_non_contiguous_inputs_and_output_strides():
    rng = np.random.default_rng(3)
    base = rng.standard_normal((6, 8)).astype(np.float32)

    def fn(x, y):
        return (x.t() * y[:, ::2]).tanh() + 1        # transposed and strided views
    runs = []
    x, y = ember.tensor(base), ember.tensor(rng.standard_normal((8, 12)).astype(np.float32))
    got = _compiled(fn, runs)(x, y)
    _assert_same(got, fn(x, y))
    assert sum(r.kernels for r in runs) == 1


@pytest.mark.parametrize("kind", ["sum", "mean", "amax"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_fused_reduction_over_trailing_dims(kind, keepdim):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 6, 7)).astype(np.float32)
    a[0, 1, 2] = np.nan                                  # amax propagates NaN

    def fn(x):
        y = (x * 1.5).abs()
        return getattr(y, kind)(dim=(1, 2), keepdim=keepdim)
    got, runs = _fused_case(fn, a)
    assert "acc" in runs[0].source
    want = getattr(torch.tensor(a).mul(1.5).abs(), kind)(dim=(1, 2), keepdim=keepdim)
    assert_close_ulps(_np(got), want.numpy(), "float32", 64)


def test_fused_full_reduction_of_0d_and_long_rows_accumulates_in_float64():
    a = np.full(200_000, 0.1, np.float32)
    got, _ = _fused_case(lambda x: (x * 3.0).sum(), a)
    want = torch.tensor(a).mul(3.0).sum()
    assert_close_ulps(_np(got), want.numpy(), "float32", 8)


def test_integer_to_negative_power_raises_eagers_error():
    x = ember.tensor([[1, 2], [3, 4]])
    with pytest.raises(RuntimeError) as ref:
        torch.tensor([[1, 2], [3, 4]]).add(1).pow(-1)
    with pytest.raises(RuntimeError) as err:
        _compiled(lambda x: (x + 1) ** -1, [])(x)
    assert str(err.value) == str(ref.value)


def test_linear_relu_adds_the_bias_in_the_relu_kernel():
    """addmm feeding a pointwise op is split into mm + add (passes.split_addmm): the bias
    add joins the ReLU's kernel, with eager's rounding (bit for bit)."""
    rng = np.random.default_rng(7)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((16, 8), (4, 8), (4,)))

    def fn(x, w, b):
        return nn.functional.linear(x, w, b).relu()
    got, runs = _fused_case(fn, x, w, b)
    assert "np.matmul(" in runs[0].source and "# add, relu" in runs[0].source
    np.testing.assert_array_equal(_np(got), _np(fn(*(ember.tensor(a) for a in (x, w, b)))))


def test_a_kernel_numba_cannot_compile_runs_its_ops_one_by_one(monkeypatch):
    """Kernels are compiled while lowering, for the graph's types: when numba fails, the
    group's ops run as NumPy instead, with the same results."""
    from ember._inductor import kernels

    def fail(fn, k):
        raise TypeError("no typing")
    monkeypatch.setattr(kernels, "compile_for", fail)
    rng = np.random.default_rng(8)
    _, runs = _fused_case(lambda x: (x * 2 + 1).relu().sum(1), rng.standard_normal((4, 5)),
                          kernels=0)
    assert "_load" not in runs[0].source and "np.add.reduce" in runs[0].source


def test_parallel_kernels_equal_eager(monkeypatch):
    """Above config.parallel_threshold the kernel is compiled with parallel=True (prange
    over the outer dim): same values, a reduction included."""
    monkeypatch.setattr(config, "parallel_threshold", 0)
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((64, 50)).astype(np.float32), rng.standard_normal(50)
    _, runs = _fused_case(lambda x, y: (x * y.float() - 1).exp().sum(1), a, b)
    assert "parallel=True" in runs[0].source


@pytest.mark.parametrize("bad", [11, -5])
def test_bad_target_raises_gathers_error(bad):
    """An out-of-range target of the compiled nll_loss (decomposed to gather, run by the
    gather kernel) raises torch's gather error, never a wrapped-around answer."""
    x = ember.randn(4, 10)
    f = _compiled(lambda x, y: nn.functional.cross_entropy(x * 2, y), [])
    with pytest.raises(RuntimeError) as err:
        f(x, ember.tensor([0, 1, bad, 2]))
    with pytest.raises(RuntimeError) as ref:
        torch.gather(torch.zeros(4, 10), 1, torch.tensor([[0], [1], [bad], [2]]))
    assert str(err.value) == str(ref.value)


# --- memory planning --------------------------------------------------------------------------------
def test_dead_buffers_are_reused_and_outputs_are_not():
    def fn(x, w):
        h = (x @ w).relu() * 2
        return (h @ w.t()).exp() + 1, h.sum()
    runs = []
    x, w = ember.randn(8, 8), ember.randn(8, 8)
    got = _compiled(fn, runs)(x, w)
    want = fn(x, w)
    for g, e in zip(got, want):
        _assert_same(g, e)
    src = runs[0].source
    assert "out=" in src and "reuses" in src, src


# --- whole training steps --------------------------------------------------------------------------
class _MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))

    def forward(self, x, y):
        return nn.functional.cross_entropy(self.net(x), y)


class _ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.bn = nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 6 * 6, 10)

    def forward(self, x, y):
        h = nn.functional.relu(self.bn(self.conv(x)))
        return nn.functional.cross_entropy(self.fc(h.flatten(1)), y)


@pytest.mark.parametrize(("model", "xshape"), [(_MLP, (16, 64)), (_ConvNet, (8, 1, 8, 8))],
                         ids=["mlp", "conv_bn"])
def test_training_step_has_no_fallbacks_and_equals_eager(model, xshape):
    ember.manual_seed(0)
    eager = model()
    net = copy.deepcopy(eager)
    runs = []
    compiled = _compiled(net, runs)
    opts = [ember.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (eager, net)]
    rng = np.random.default_rng(5)
    x = ember.tensor(rng.standard_normal(xshape).astype(np.float32))
    y = ember.tensor(rng.integers(0, 10, xshape[0]))
    for _ in range(3):
        losses = []
        for m, opt in zip((eager, compiled), opts):
            opt.zero_grad()
            loss = m(x, y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert losses[1] == pytest.approx(losses[0], rel=1e-5)
    for a, b in zip(eager.state_dict().values(), net.state_dict().values()):
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-4, atol=1e-5)
    assert len(runs) == 2 and not any(r.fallbacks for r in runs)
    assert sum(r.kernels for r in runs) >= 2
    assert counters["frames"]["total"] == 1


# --- the generated module ----------------------------------------------------------------------------
SNAPSHOT = '''\
_k0 = _load(\'\'\'
@njit(cache=True, error_model='numpy', fastmath=False, parallel=False)
def kernel(n0, n1, in0, in1, out0, red):
    for i0 in prange(n0):
        acc = np.float64(0)
        for i1 in range(n1):
            x0 = in0[i0, i1]
            x1 = in1[i1]
            t0 = np.float32(x0 * x1)
            t1 = np.float32(t0 + np.float32(1))
            t2 = np.float32(t1 if t1 > 0 or t1 != t1 else np.float32(0))
            out0[i0, i1] = t2
            acc = acc + np.float64(t2)
        red[i0] = np.float32(acc)
\'\'\')


def call(v0, v1):
    v4 = np.empty((4, 3), np.float32)
    v5 = np.empty((4,), np.float32)
    _k0(4, 3, v0, v1, v4, v5)  # mul, add, relu, sum
    v6 = np.empty((4,), np.float32)
    np.exp(v5, out=v6)
    return [v4, v6]
'''


def test_output_code_snapshot_logging_and_debug_dir(monkeypatch, tmp_path, caplog):
    """A small graph's generated module, as EMBER_LOGS=output_code prints it and the debug
    directory keeps it: readable and deterministic."""
    monkeypatch.setattr(config, "output_code", True)
    monkeypatch.setattr(config, "debug", True)
    monkeypatch.setattr(config, "debug_dir", str(tmp_path))
    runs = []
    def fn(x, b):
        h = (x * b + 1).relu()
        return h, h.sum(1).exp()
    f = _compiled(fn, runs)
    x, b = ember.randn(4, 3), ember.randn(3)
    with caplog.at_level("INFO", logger="ember._inductor.output_code"):
        got = f(x, b)
    h = (x * b + 1).relu()
    _assert_same(got[0], h)
    _assert_same(got[1], h.sum(1).exp())
    assert runs[0].source == SNAPSHOT, runs[0].source
    assert SNAPSHOT in caplog.text
    kept = [p.read_text() for p in tmp_path.glob("graph_*_output_code.py")]
    assert kept == [SNAPSHOT]


def test_ember_logs_env_turns_output_code_on():
    code = "import ember._inductor.config as c; print(c.output_code)"
    env = dict(os.environ, EMBER_LOGS="+dynamo,output_code")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "True"


def test_a_second_process_loads_kernels_from_the_cache(tmp_path):
    """numba's cache=True over the kernel sources in config.cache_dir: the second process
    compiles nothing."""
    script = textwrap.dedent("""
        import ember
        from ember._inductor import kernels
        f = ember.compile(lambda x: (x * 2 + 1).tanh())
        f(ember.ones(3))
        fns = list(kernels._loaded.values())
        print(sum(len(k.stats.cache_hits) for k in fns), sum(len(k.stats.cache_misses)
                                                             for k in fns))
    """)
    env = dict(os.environ, EMBER_INDUCTOR_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, check=True,
                           text=True) for _ in range(2)]
    assert [r.stdout.split() for r in runs] == [["0", "1"], ["1", "0"]], runs[1].stderr
    assert list((tmp_path / "kernels").glob("k*.py"))


# --- the OpInfo samples through ember.compile ----------------------------------------------------
SAMPLED_OPS = ["add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "neg.default",
               "exp.default", "log.default", "sqrt.default", "tanh.default", "abs.default",
               "relu.default", "sigmoid.default", "sign.default", "where.self", "le.Tensor",
               "gt.Scalar", "pow.Tensor_Scalar", "threshold_backward.default",
               "sum.dim_IntList", "sum.default", "mean.dim", "mean.default", "amax.default"]
_REPRESENTATIVE = ("float32", "float64", "0d", "empty", "broadcast", "transposed", "strided",
                   "expanded", "error", "keepdim", "int64", "bool")


def _op_samples():
    """Per op, the first sample whose name has each _REPRESENTATIVE word (all of them with
    EMBER_INDUCTOR_LONG=1)."""
    long = os.environ.get("EMBER_INDUCTOR_LONG", "") not in ("", "0")
    for name in SAMPLED_OPS:
        seen = set()
        for i, s in enumerate(OPS[name].samples()):
            words = {r for r in _REPRESENTATIVE if r in s.name} - seen
            if long or words:
                seen |= words
                yield pytest.param(name, s, id=f"{name}-{s.name or i}")


@pytest.mark.parametrize(("name", "sample"), list(_op_samples()))
def test_op_samples_compiled_equal_eager(name, sample):
    """Each sample's op followed by `* 1` (reductions: preceded by it), so that the op is
    fused with another one when it can be, compiled with the inductor backend: eager's
    values, dtype, shape and strides, or eager's exception."""
    op = aten_op(ember.ops.aten, name)
    reduce = name.split(".")[0] in ("sum", "mean", "amax")
    args, kwargs = sample_args(sample, "ember")
    where = [i for i, a in enumerate(args) if isinstance(a, ember.Tensor)]

    def fn(*tensors):
        full = list(args)
        for i, t in zip(where, tensors):
            full[i] = t
        if reduce:
            full[0] = full[0] * 1
            return op(*full, **kwargs)
        return op(*full, **kwargs) * 1
    tensors = [args[i] for i in where]
    try:
        want = fn(*tensors)
    except Exception as e:  # noqa: BLE001  (the compiled call must raise the same)
        with pytest.raises(type(e)):
            ember.compile(fn)(*tensors)
        return
    got = ember.compile(fn)(*tensors)
    dt = str(want.dtype).split(".")[1]
    _assert_same(got, want, ulps=OPS[name].ulps(dt) if dt in EPS else None)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_add_with_alpha_is_eager_bit_for_bit(dtype):
    """add/sub with alpha inside a fused kernel: one fused multiply-add, eager's bits."""
    rng = np.random.default_rng(3)
    a, b, c = (ember.from_numpy((rng.standard_normal(5000) * 1e3).astype(dtype))
               for _ in range(3))

    def f(a, b, c):
        return (a.add(b, alpha=0.1) * c).sub(b, alpha=1 / 3)
    got = ember.compile(f, backend="inductor")(a, b, c)
    np.testing.assert_array_equal(got.numpy(), f(a, b, c).numpy())


@pytest.mark.parametrize("shape", [(5,), (3, 4)], ids=["1d", "2d"])
def test_select_lowers_to_a_view_and_keeps_0d_results_tensors(shape):
    """select is basic indexing (np.take copied: a column had C strides, not eager's), and a
    0-d result stays a tensor (indexing a 1-d array gives a NumPy scalar)."""
    def fn(lib, x):
        return lib.ops.aten.select.int(x * 2, -1, 3)
    data = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    got = ember.compile(lambda x: fn(ember, x), backend="inductor")(ember.tensor(data))
    want = fn(torch, torch.tensor(data))
    assert isinstance(got, ember.Tensor)
    assert got.shape == want.shape and got.stride() == want.stride()
    np.testing.assert_array_equal(_np(got), want.numpy())
