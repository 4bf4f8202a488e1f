"""The compiled training step: AOT graphs under one lean autograd node
(CompiledFunctionBackward), compiled optimizer steps, and the module guards a step pays,
all against torch's eager answers."""
from __future__ import annotations

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _pair(shape, seed=0, requires_grad=True):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return (ember.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _same(e, t, rtol=1e-6, atol=1e-6):
    assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride()
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


@pytest.fixture
def torch_compile():
    """torch.compile, with the global state it changes restored after the test (its first
    call switches torch.distributions' argument validation off for the whole process,
    which tests/distributions compares ember's against)."""
    validate = torch.distributions.Distribution._validate_args
    yield torch.compile
    torch.distributions.Distribution.set_default_validate_args(validate)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compiled_node_gradients_hooks_and_second_backward(backend, torch_compile):
    """One CompiledFunctionBackward node: its edges reach the inputs that need a gradient,
    hooks on it run, retain_graph keeps its saved values and a second backward without it
    raises torch's error."""
    fn = lambda w, x, b: ((w * x).sin() + b, (x * 2).exp())
    (we, wt), (xe, xt), (be, bt) = _pair(5, 0), _pair(5, 1, False), _pair(5, 2)
    f = ember.compile(fn, backend=backend)
    (oe, ie), (ot, it) = f(we, xe, be), torch_compile(fn, backend="aot_eager")(wt, xt, bt)
    assert type(oe.grad_fn).__name__ == "CompiledFunctionBackward"
    assert ie.grad_fn is None and not ie.requires_grad
    _same(oe, ot), _same(ie, it)
    seen = []
    oe.grad_fn.register_hook(lambda gi, go: seen.append(len(gi)))
    oe.sum().backward(retain_graph=True)
    ot.sum().backward(retain_graph=True)
    oe.sum().backward()
    ot.sum().backward()
    assert seen == [2, 2]                   # w and b: the inputs that need a gradient
    _same(we.grad, wt.grad), _same(be.grad, bt.grad)
    assert xe.grad is None
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        oe.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        ot.sum().backward()


def test_compiled_node_input_returned_and_no_grad():
    """An input returned as it is comes back as that very tensor (torch.compile: `out is
    w`, no grad_fn of the compiled node); under no_grad nothing is recorded."""
    fn = lambda w: (w, w * 3)
    (we, wt), = [_pair(4, 3)]
    f = ember.compile(fn, backend="aot_eager")
    (ae, be), (at, bt) = f(we), fn(wt)
    assert ae is we and be.grad_fn is not None
    (ae.sum() + be.sum()).backward()
    (at.sum() + bt.sum()).backward()
    _same(we.grad, wt.grad)
    with ember.no_grad():
        _, b = f(we)
    assert not b.requires_grad and b.grad_fn is None
    _same(b, bt)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compiled_backward_strided_missing_and_fake_gradients(backend):
    """The compiled node's backward (inductor: saved values kept as the forward's arrays)
    with a strided output gradient, a missing one (zeros), retain_graph twice, and traced
    with fake gradients (the backward graph then runs as ops: make_fx records them)."""
    from ember.fx.experimental.proxy_tensor import make_fx
    fn = lambda w, x: ((w * x).sin(), (w + x).exp().sum())
    (we, wt), (xe, xt) = _pair((3, 4), 20), _pair((3, 4), 21, False)
    f = ember.compile(fn, backend=backend)
    (oe, se), (ot, st) = f(we, xe), fn(wt, xt)
    _same(oe, ot), _same(se, st)
    g = np.random.default_rng(22).standard_normal((4, 3)).astype(np.float32)
    ge, gt = ember.tensor(g).t(), torch.tensor(g).t()          # strides (1, 3)
    for _ in range(2):
        ember.autograd.backward([oe], [ge], retain_graph=True)
        torch.autograd.backward([ot], [gt], retain_graph=True)
        _same(we.grad, wt.grad)
    traced = make_fx(lambda g: ember.autograd.grad(oe, we, g, retain_graph=True),
                     tracing_mode="fake", _allow_non_fake_inputs=True)(ember.ones(3, 4))
    assert any(n.op == "call_function" for n in traced.graph.nodes)
    (got,) = traced(ge.contiguous())
    (want,) = torch.autograd.grad(ot, wt, gt.contiguous(), retain_graph=True)
    _same(got, want)


def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(6, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))


def _copy_params(src, dst):
    with torch.no_grad():
        for p, q in zip(src.parameters(), dst.parameters()):
            p.copy_(torch.tensor(q.detach().numpy()))


def _data(steps=4):
    rng = np.random.default_rng(5)
    return [(rng.standard_normal((7, 6)).astype(np.float32), rng.integers(0, 3, 7))
            for _ in range(steps)]


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
@pytest.mark.parametrize("opt", [{"momentum": 0.9}, {}, {"momentum": 0.9, "nesterov": True,
                                                        "weight_decay": 0.01}])
def test_compiled_sgd_step_equals_eager_and_torch(backend, opt):
    """ember.compile(opt.step): parameters, grads and momentum buffers are graph inputs,
    their updates input mutations; several steps give eager's and torch's parameters. The
    first step (it creates the momentum buffers) runs eagerly, later ones run the graph."""
    results = []
    for compiled in (False, True):
        net = _mlp(ember)
        sgd = ember.optim.SGD(net.parameters(), lr=0.1, **opt)
        step = ember.compile(sgd.step, backend=backend) if compiled else sgd.step
        for x, y in _data():
            sgd.zero_grad()
            ember.nn.functional.cross_entropy(net(ember.tensor(x)), ember.tensor(y)).backward()
            assert step() is None
        results.append(net)
    tnet = _mlp(torch)
    _copy_params(tnet, _mlp(ember))
    tsgd = torch.optim.SGD(tnet.parameters(), lr=0.1, **opt)
    for x, y in _data():
        tsgd.zero_grad()
        torch.nn.functional.cross_entropy(tnet(torch.tensor(x)), torch.tensor(y)).backward()
        tsgd.step()
    for pe, pc, pt in zip(results[0].parameters(), results[1].parameters(), tnet.parameters()):
        _same(pc, pe)
        _same(pc, pt, rtol=1e-5, atol=1e-6)
        assert pc.grad is not None and pc.requires_grad and pc.is_leaf
    counts = ember._dynamo.counters
    assert counts["frames"]["ok"] == 1, dict(counts["frames"])     # one graph, reused
    assert sum(counts["graph_break"].values()) == (1 if opt else 0)


def test_compiled_sgd_step_guards():
    """A new learning rate, a parameter without a gradient, a replaced momentum buffer:
    each recompiles (guards on the groups' values, .grad and the state's identity)."""
    w1 = ember.nn.Parameter(ember.ones(3))
    w2 = ember.nn.Parameter(ember.ones(2))
    t1 = torch.nn.Parameter(torch.ones(3))
    t2 = torch.nn.Parameter(torch.ones(2))
    se = ember.optim.SGD([w1, w2], lr=0.5, momentum=0.5)
    st = torch.optim.SGD([t1, t2], lr=0.5, momentum=0.5)
    step = ember.compile(se.step, backend="inductor")
    grads = [np.array([1., 2., 3.], np.float32), np.array([-1., 4.], np.float32)]

    def both(lr=None, skip=False, reset_buffer=False):
        for opt in (se, st):
            if lr is not None:
                opt.param_groups[0]["lr"] = lr
        for (we, wt), g in zip(((w1, t1), (w2, t2)), grads):
            we.grad, wt.grad = ember.tensor(g), torch.tensor(g)
        if skip:
            w2.grad = t2.grad = None
        if reset_buffer:
            se.state[w1]["momentum_buffer"] = ember.zeros(3)
            st.state[t1]["momentum_buffer"] = torch.zeros(3)
        step()
        st.step()
        _same(w1, t1), _same(w2, t2)
    for kwargs in ({}, {}, {}, {"lr": 0.25}, {"skip": True}, {"reset_buffer": True}, {}):
        both(**kwargs)
    assert ember._dynamo.counters["stats"]["recompiles"] == 4


ADAM_OPTIONS = [{}, {"amsgrad": True}, {"weight_decay": 0.1}, {"maximize": True},
                {"amsgrad": True, "weight_decay": 0.05, "maximize": True, "betas": (0.8, 0.99)}]


def _adam_state_same(oe, ot, pe, pt):
    for key, t in ot.state[pt].items():
        _same(oe.state[pe][key], t, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("options", ADAM_OPTIONS)
def test_compiled_adam_step_equals_eager_and_torch(backend, name, options):
    """Adam/AdamW's step compiled: the step count stays a tensor under compile (torch's
    `_get_value`), so the step is one graph (the first step, which creates the state, runs
    eagerly); parameters and state equal eager's and torch's over several steps (within
    an ulp or two: the graph's functional addcmul/lerp round as torch's kernels, the
    in-place fast paths eager takes not always)."""
    shapes = [(4, 3), (5,)]
    params = [_pair(s, 10 + i) for i, s in enumerate(shapes)]
    eager_params = [ember.nn.Parameter(we.detach().clone()) for we, _ in params]
    opts = [getattr(lib, name)(ps, lr=0.05, **options) for lib, ps in (
        (ember.optim, [we for we, _ in params]), (ember.optim, eager_params),
        (torch.optim, [wt for _, wt in params]))]
    step = ember.compile(opts[0].step, backend=backend)
    rng = np.random.default_rng(3)
    for _ in range(5):
        for (we, wt), wq in zip(params, eager_params):
            g = rng.standard_normal(tuple(we.shape)).astype(np.float32)
            we.grad, wq.grad, wt.grad = ember.tensor(g), ember.tensor(g), torch.tensor(g)
        step()
        opts[1].step()
        opts[2].step()
        for (we, wt), wq in zip(params, eager_params):
            _same(we, wq, rtol=1e-6, atol=1e-7)
            _same(we, wt, rtol=1e-6, atol=1e-7)
            _adam_state_same(opts[0], opts[2], we, wt)
    frames = ember._dynamo.counters["frames"]
    assert frames["ok"] == 1 and frames["total"] == 2, dict(frames)   # (first step: eager)
    reason = f"{name}'s step creates or replaces optimizer state (such a call runs eagerly)"
    assert list(ember._dynamo.counters["graph_break"]) == [f"Unsupported: {reason}"]


def _train_step(net, opt, lib):
    """zero_grad, forward, loss.backward() and opt.step() as one function."""
    def step(x, y):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compiled_whole_training_step_with_adamw(backend):
    """A whole training step with AdamW (amsgrad) compiles into one graph and trains like
    eager ember and torch."""
    def make(lib):
        net = _mlp(lib)
        return net, lib.optim.AdamW(net.parameters(), lr=0.01, amsgrad=True)

    (ne, oe), (nc, oc), (nt, ot) = make(ember), make(ember), make(torch)
    _copy_params(nt, ne)
    eager, tstep = _train_step(ne, oe, ember), _train_step(nt, ot, torch)
    compiled = ember.compile(_train_step(nc, oc, ember), backend=backend)
    for x, y in _data(4):
        le = eager(ember.tensor(x), ember.tensor(y))
        lc = compiled(ember.tensor(x), ember.tensor(y))
        lt = tstep(torch.tensor(x), torch.tensor(y))
        _same(lc, le, rtol=1e-5), _same(lc, lt, rtol=1e-5)
        for pe, pc, pt in zip(ne.parameters(), nc.parameters(), nt.parameters()):
            _same(pc, pe, rtol=1e-5, atol=1e-6), _same(pc.grad, pe.grad, rtol=1e-5, atol=1e-6)
            _same(pc, pt, rtol=1e-5, atol=1e-6)
    assert ember._dynamo.counters["frames"]["ok"] == 1


def test_is_compiling_inside_the_capture_only(torch_compile):
    """ember.compiler.is_compiling() (torch.compiler's): True while the call is captured,
    so the graph holds that branch; False when running eagerly."""
    fn = lambda x: x + 1 if ember.compiler.is_compiling() else x - 1
    tfn = lambda x: x + 1 if torch.compiler.is_compiling() else x - 1
    x = ember.ones(2)
    assert not ember.compiler.is_compiling()
    _same(ember.compile(fn, backend="eager")(x), torch_compile(tfn, backend="eager")(
        torch.ones(2)))
    _same(fn(x), tfn(torch.ones(2)))


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_compiled_whole_training_step_equals_eager_and_torch(backend):
    """zero_grad, forward, loss.backward() and opt.step() compiled as one function: one
    graph (the backward traced into it, the grads written back, the updates input
    mutations) giving eager's and torch's losses, grads and parameters; the returned loss
    requires grad and a second backward through it raises torch's error."""
    def make(lib):
        net = _mlp(lib)
        return net, lib.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)

    (ne, oe), (nc, oc), (nt, ot) = make(ember), make(ember), make(torch)
    _copy_params(nt, ne)
    eager, tstep = _train_step(ne, oe, ember), _train_step(nt, ot, torch)
    compiled = ember.compile(_train_step(nc, oc, ember), backend=backend)
    for x, y in _data(5):
        le = eager(ember.tensor(x), ember.tensor(y))
        lc = compiled(ember.tensor(x), ember.tensor(y))
        lt = tstep(torch.tensor(x), torch.tensor(y))
        _same(lc, le), _same(lc, lt, rtol=1e-5)
        for pe, pc, pt in zip(ne.parameters(), nc.parameters(), nt.parameters()):
            _same(pc, pe), _same(pc.grad, pe.grad)
            _same(pc, pt, rtol=1e-5, atol=1e-6), _same(pc.grad, pt.grad, rtol=1e-5, atol=1e-6)
    assert ember._dynamo.counters["frames"]["ok"] == 1
    assert lc.requires_grad and type(lc.grad_fn).__name__ == "CompiledFunctionBackward"
    for loss in (lc, lt):
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            loss.backward()


def test_compiled_module_ignores_grads_and_accumulates_like_torch():
    """A compiled module's graph does not read its parameters' .grad: gradients that
    accumulate across calls (no zero_grad) recompile nothing and equal torch's."""
    ne, nt = _mlp(ember), _mlp(torch)
    _copy_params(nt, ne)
    run = ember.compile(ne, backend="inductor")
    for x, _ in _data(3):
        run(ember.tensor(x)).square().sum().backward()
        nt(torch.tensor(x)).square().sum().backward()
    for pe, pt in zip(ne.parameters(), nt.parameters()):
        _same(pe.grad, pt.grad, rtol=1e-5, atol=1e-5)
    assert ember._dynamo.counters["frames"]["total"] == 1


def _lowered(fn):
    """ember.compile(fn) through AOT autograd and the inductor lowering, the generated
    modules kept."""
    from ember._decomp import core_aten_decompositions
    from ember._functorch.aot_autograd import aot_graph
    from ember._inductor import lower
    runs = []

    def compile_graph(gm, _):
        runs.append(lower(gm))
        return runs[-1]
    return ember.compile(fn, backend=lambda gm, ex: aot_graph(
        gm, ex, fw_compiler=compile_graph, decompositions=core_aten_decompositions())), runs


@pytest.mark.parametrize("case", ["plain", "read_before", "returned"])
def test_input_mutation_written_in_place_by_its_kernel(case):
    """An input updated by a fused kernel is written by that kernel in place (no copy),
    also when its old value was read first; not when the new value is also an output (the
    copy stays). All equal torch."""
    def fn(lib):
        def f(a, b):
            old = a.t().exp().sum(0) if case == "read_before" else None
            a.mul_(0.5).add_(b, alpha=-0.25)
            out = (a * b,) if case != "returned" else (a * b, a)
            return out + ((old,) if old is not None else ())
        return f
    (ae, at), (be, bt) = _pair((4, 4), 1, False), _pair((4, 4), 2, False)
    f, runs = _lowered(fn(ember))
    for _ in range(2):
        got, want = f(ae, be), fn(torch)(at, bt)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        _same(ae, at)
    src = runs[0].source
    assert ("# written in place" in src) == (case != "returned"), src


def test_backward_inside_with_arguments_that_require_grad_runs_eagerly():
    """A step whose arguments require grad and that runs a backward inside is a graph
    break: eager's (and torch's) gradients."""
    def fn(lib):
        def f(w, x):
            loss = (w * x).exp().sum()
            loss.backward()
            return loss
        return f
    (we, wt), (xe, xt) = _pair(3, 1), _pair(3, 2)
    f = ember.compile(fn(ember), backend="inductor")
    _same(f(we, xe), fn(torch)(wt, xt))
    _same(we.grad, wt.grad), _same(xe.grad, xt.grad)
    assert "require grad" in str(dict(ember._dynamo.counters["graph_break"]))


def test_step_changing_python_state_runs_eagerly_once_per_call():
    """A step that changes a number in the optimizer's state (not a tensor update) cannot
    be a graph: it runs eagerly, and the capture's trace leaves the real state alone (the
    count is not advanced twice). Parameters equal torch's SGD."""
    class Counting(ember.optim.SGD):
        def _update_group(self, group):
            s = self.state[group["params"][0]]
            s["n"] = s.get("n", 0) + 1
            super()._update_group(group)
    we, wt = _pair(4, 3)
    oe, ot = Counting([we], lr=0.1, momentum=0.9), torch.optim.SGD([wt], lr=0.1, momentum=0.9)
    step = ember.compile(oe.step, backend="inductor")
    for k in range(3):
        g = np.arange(4, dtype=np.float32) - k
        we.grad, wt.grad = ember.tensor(g), torch.tensor(g)
        step()
        ot.step()
        _same(we, wt)
    assert oe.state[we]["n"] == 3
    assert "creates or replaces optimizer state" in str(dict(ember._dynamo.counters["graph_break"]))


def test_function_closing_over_a_module_lifts_its_parameters():
    """A compiled function that calls a module it closes over: the parameters are graph
    inputs (not constants, which were a graph break for tensors that require grad), so
    one graph serves the training loop and the gradients reach the parameters as torch's."""
    ne, nt = _mlp(ember), _mlp(torch)
    _copy_params(nt, ne)
    f = ember.compile(lambda x: ne(x).tanh().sum(), backend="inductor")
    for x, _ in _data(3):
        for p in ne.parameters():
            p.grad = None
        nt.zero_grad()
        le, lt = f(ember.tensor(x)), nt(torch.tensor(x)).tanh().sum()
        le.backward()
        lt.backward()
        _same(le, lt, rtol=1e-5)
        for pe, pt in zip(ne.parameters(), nt.parameters()):
            _same(pe.grad, pt.grad, rtol=1e-5, atol=1e-6)
    counts = ember._dynamo.counters
    assert counts["frames"]["total"] == 1 and not counts["graph_break"]
