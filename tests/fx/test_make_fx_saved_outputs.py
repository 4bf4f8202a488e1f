"""make_fx of programs whose backward unpacks saved *outputs* (tanh, sigmoid, exp, softmax,
...): torch's SavedVariable re-wraps a saved output with an `aten.detach` that the proxy
mode records, and AccumulateGrad takes a first gradient with `new_grad.detach()`. The
graphs must match torch's op for op; eager backward must give the same values as before."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _targets(lib, f, tracing_mode="real", shape=(3, 4)):
    make_fx = importlib.import_module(f"{lib.__name__}.fx.experimental.proxy_tensor").make_fx
    x = lib.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32),
                   requires_grad=True)
    gm = make_fx(lambda x: f(lib, x), tracing_mode=tracing_mode)(x)
    return [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]


def tanh_sigmoid_grad(lib, x):
    return lib.autograd.grad(x.tanh().sigmoid().sum(), x)


def tanh_sigmoid_backward(lib, x):
    x.tanh().sigmoid().sum().backward()
    return x.grad


def exp_grad(lib, x):
    return lib.autograd.grad(x.exp().sum(), x)


def relu_grad(lib, x):
    return lib.autograd.grad(x.relu().sum(), x)


def exp_times_input(lib, x):      # a saved output next to saved inputs (mul saves x)
    return lib.autograd.grad((x.exp() * x).sum(), x)


def softmax_grads(lib, x):
    return lib.autograd.grad((x.softmax(-1) * x).sum() + x.log_softmax(0).sum(), x)


def mul_only(lib, x):             # saves inputs only: no detach at all
    return lib.autograd.grad((x * x).sum(), x)


def two_outputs_saved(lib, x):    # one node, two uses of a saved output
    y = x.sigmoid()
    return lib.autograd.grad((y * y).sum(), x)


PROGRAMS = [tanh_sigmoid_grad, tanh_sigmoid_backward, exp_grad, relu_grad, exp_times_input,
            softmax_grads, mul_only, two_outputs_saved]


@pytest.mark.parametrize("tracing_mode", ["real", "fake"])
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_backward_graph_matches_torch(f, tracing_mode):
    assert _targets(ember, f, tracing_mode) == _targets(torch, f, tracing_mode)


def test_tanh_sigmoid_chain_has_torchs_detaches():
    """torch's example: one detach per saved output in forward (the saved copy), one per
    unpack in backward."""
    targets = _targets(ember, tanh_sigmoid_grad)
    assert targets.count("aten.detach.default") == 4
    assert targets.index("aten.detach.default", 5) < targets.index("aten.sigmoid_backward.default")


def test_double_backward_unpacks_through_detach():
    """Under create_graph the unpacked output gets its grad_fn back and the second
    backward reaches it: as many detaches as torch records (the formulas of
    tanh_backward's own derivative differ: mul.Scalar in torch)."""
    def f(lib, x):
        g, = lib.autograd.grad(x.tanh().sum(), x, create_graph=True)
        return lib.autograd.grad(g.sum(), x)
    e, t = _targets(ember, f), _targets(torch, f)
    assert e.count("aten.detach.default") == t.count("aten.detach.default") == 3


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_traced_graph_computes_eager_gradients(f):
    x = ember.tensor(np.linspace(-1.5, 1.5, 12, dtype=np.float64).reshape(3, 4),
                     requires_grad=True)
    from ember.fx.experimental.proxy_tensor import make_fx
    gm = make_fx(lambda x: f(ember, x))(x)
    traced = gm(x.detach().requires_grad_())
    xt = torch.tensor(x.detach().numpy(), requires_grad=True)
    expected = f(torch, xt)
    for a, b in zip(traced if isinstance(traced, (tuple, list)) else [traced],
                    expected if isinstance(expected, (tuple, list)) else [expected]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)


def test_eager_unpack_without_modes_records_nothing_and_keeps_values():
    """Outside modes the saved output comes back as a plain alias: same storage, no
    dispatch; double backward still reaches the forward node."""
    x = ember.tensor([0.5, -1.0, 2.0], dtype=ember.float64, requires_grad=True)
    y = x.tanh()
    g, = ember.autograd.grad(y.sum(), x, create_graph=True)
    gg, = ember.autograd.grad(g.sum(), x)
    xt = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    gt, = torch.autograd.grad(xt.tanh().sum(), xt, create_graph=True)
    ggt, = torch.autograd.grad(gt.sum(), xt)
    np.testing.assert_allclose(g.detach().numpy(), gt.detach().numpy(), rtol=1e-14)
    np.testing.assert_allclose(gg.numpy(), ggt.numpy(), rtol=1e-14)


def test_backward_leaves_grad_stealable_under_make_fx():
    """The first gradient of a leaf is taken (detached), not cloned, while tracing, as
    torch: the proxy mode holds no strong reference that would force a copy."""
    targets = _targets(ember, tanh_sigmoid_backward)
    assert "aten.clone.default" not in targets
    assert targets[-1] == "aten.detach.default"


def _hooked(lib, pack):
    """tanh(x * x) with its saved tensors (x twice, the tanh output) through `pack`."""
    def f(x):
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = (x * x).tanh()
        return lib.autograd.grad(y.sum(), x, create_graph=True)[0]
    return f


@pytest.mark.parametrize("pack", [lambda t: t, lambda t: t.detach().clone()],
                         ids=["identity", "detached_copy"])
def test_hooked_saved_inputs_keep_their_place_in_the_graph(pack):
    """torch's unpack with hooks: what unpack_hook returns becomes a new tensor with the
    saved input's grad_fn or leaf accumulator, so double backward is right even when the
    pack hook detached (an offloading pattern); ember used to lose that history."""
    x = ember.tensor([0.5, -1.0, 2.0], dtype=ember.float64, requires_grad=True)
    xt = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    g, gt = _hooked(ember, pack)(x), _hooked(torch, pack)(xt)
    gg, = ember.autograd.grad(g.sum(), x)
    ggt, = torch.autograd.grad(gt.sum(), xt)
    np.testing.assert_allclose(g.detach().numpy(), gt.detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(gg.numpy(), ggt.numpy(), rtol=1e-13)


def test_hooked_unpack_records_torchs_detaches():
    """Each unpack of a hooked saved tensor that has a place in the graph is a detach
    (torch unpacks all of a node's saved tensors first, ember as each formula needs them:
    the same ops, in another order)."""
    def f(lib, x):
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = (x * x).tanh()
        return lib.autograd.grad(y.sum(), x)
    e, t = _targets(ember, f), _targets(torch, f)
    assert sorted(e) == sorted(t) and e.count("aten.detach.default") == 3
