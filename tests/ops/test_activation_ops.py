"""The activations that became aten ops (hardswish, hardsigmoid, mish, the shrinks, glu,
log_sigmoid, celu, selu, relu6, prelu, rrelu) beyond the OpInfo sweep: the aten ops make_fx
records, forward and backward, as torch's; no nested backward nodes from a
CompositeExplicitAutograd kernel; rrelu's training mode (random slopes, the noise it
writes, its gradient); gradcheck through the ops whose buffer/noise argument keeps them out
of tests/autograd/test_op_gradients.py; the nn.functional, top-level and Tensor forms.

    .venv/bin/python -m pytest tests/ops/test_activation_ops.py -q
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers import to_np

import ember
import ember.nn.functional as F
from ember.autograd.graph import saved_tensors_hooks
from ember.fx.experimental.proxy_tensor import make_fx

torch = pytest.importorskip("torch")
TF = torch.nn.functional
torch_make_fx = pytest.importorskip("torch.fx.experimental.proxy_tensor").make_fx

X = np.array([[-4.0, -3.0, -1.2, -0.4], [0.0, 0.3, 0.9, 3.0]], np.float64)
WEIGHT = np.array([0.25, 0.5, 0.1, 0.3], np.float64)

# name -> (ember fn, torch fn): each takes its module's `F` and a (2, 4) input
CASES = {
    "hardswish": lambda f, x: f.hardswish(x),
    "hardsigmoid": lambda f, x: f.hardsigmoid(x),
    "mish": lambda f, x: f.mish(x),
    "hardshrink": lambda f, x: f.hardshrink(x, 0.5),
    "softshrink": lambda f, x: f.softshrink(x, 0.5),
    "glu": lambda f, x: f.glu(x, -1),
    "logsigmoid": lambda f, x: f.logsigmoid(x),
    "celu": lambda f, x: f.celu(x, 0.7),
    "selu": lambda f, x: f.selu(x),
    "relu6": lambda f, x: f.relu6(x),
    "rrelu_eval": lambda f, x: f.rrelu(x, 0.1, 0.3),
}


def _targets(graph_module) -> list[str]:
    """The called aten ops' names; ember saves an output for backward through a dispatched
    aten.detach while a mode records (torch's saved variables do not), so detach is left
    out (log_sigmoid_forward's saved buffer)."""
    return [str(n.target) for n in graph_module.graph.nodes
            if n.op == "call_function" and "detach" not in str(n.target)]


def _with_grad(module, fn):
    def traced(x):
        y = fn(module, x)
        return y, module.autograd.grad(y.sum(), x)[0]
    return traced


@pytest.mark.parametrize("name", sorted(CASES))
def test_make_fx_records_the_aten_ops_torch_records(name):
    """Forward and backward: aten.hardswish.default then aten.hardswish_backward.default,
    the composites (selu, relu6, logsigmoid) decomposed as torch decomposes them."""
    fn = CASES[name]
    e = make_fx(_with_grad(ember, lambda m, x: fn(F, x)))(
        ember.tensor(X, requires_grad=True))
    t = torch_make_fx(_with_grad(torch, lambda m, x: fn(TF, x)))(
        torch.tensor(X, requires_grad=True))
    assert _targets(e) == _targets(t)


def test_make_fx_of_prelu_records_its_kernels():
    def run(module, f, x, w):
        y = f.prelu(x, w)
        return module.autograd.grad(y.sum(), (x, w))
    e = make_fx(lambda x, w: run(ember, F, x, w))(ember.tensor(X, requires_grad=True),
                                                  ember.tensor(WEIGHT, requires_grad=True))
    t = torch_make_fx(lambda x, w: run(torch, TF, x, w))(
        torch.tensor(X, requires_grad=True), torch.tensor(WEIGHT, requires_grad=True))
    assert "aten._prelu_kernel.default" in _targets(e)
    assert "aten._prelu_kernel_backward.default" in _targets(e)
    assert _targets(e) == _targets(t)


def test_forward_graph_names_the_op():
    g = make_fx(lambda x: F.hardswish(x))(ember.tensor(X))
    assert _targets(g) == ["aten.hardswish.default"]
    g = make_fx(lambda x: F.celu(x, 2.0))(ember.tensor(X))
    assert _targets(g) == ["aten.celu.default"]      # not the elu it is computed with


# --------------------------------------------------------------------------- nested nodes
def _saved_count(fn, x):
    """How many tensors the autograd graph saves while fn(x) runs."""
    packed = []

    def pack(t):
        packed.append(t)
        return t
    with saved_tensors_hooks(pack, lambda t: t):
        fn(x)
    return len(packed)


@pytest.mark.parametrize("inplace", [False, True], ids=["celu", "celu_"])
def test_composite_explicit_kernel_records_no_nested_nodes(inplace):
    """celu's CompositeExplicitAutograd kernel calls elu: only celu's node is recorded, with
    its one saved tensor (self, or celu_'s result); elu's node would save another."""
    x = ember.tensor(X, requires_grad=True)

    def run(x):
        return ember.celu_(x * 1, 0.5) if inplace else ember.celu(x, 0.5)
    assert _saved_count(run, x) == 1
    y = run(x)
    assert y.grad_fn.name() == ("CeluBackward1" if inplace else "CeluBackward0")
    below = y.grad_fn.next_functions[0][0]
    assert below.name() == ("MulBackward0" if inplace else "AccumulateGrad")


def test_nested_ops_still_record_outside_the_kernel():
    """The exclusion ends with the kernel: ops after it record as usual."""
    x = ember.tensor(X, requires_grad=True)
    y = ember.celu(x, 0.5).exp()
    assert y.grad_fn.name() == "ExpBackward0"
    y.sum().backward()
    t = torch.tensor(X, requires_grad=True)
    torch.celu(t, 0.5).exp().sum().backward()
    np.testing.assert_allclose(to_np(x.grad), t.grad.numpy(), rtol=1e-12)


# --------------------------------------------------------------------------- rrelu training
def test_rrelu_training_draws_slopes_into_noise():
    x = ember.tensor(np.linspace(-3, 3, 200))
    noise = ember.empty_like(x)
    y = ember.rrelu_with_noise(x, noise, 0.1, 0.3, True)
    negative = to_np(x) <= 0
    slopes = to_np(noise)
    assert ((slopes[negative] >= 0.1) & (slopes[negative] <= 0.3)).all()
    assert len(np.unique(slopes[negative])) > 50                # drawn per element
    assert (slopes[~negative] == 1).all()
    np.testing.assert_allclose(to_np(y), to_np(x) * slopes)


def test_rrelu_generator_gives_reproducible_slopes():
    x = ember.tensor(np.linspace(-3, 3, 50))
    a = ember.rrelu(x, training=True, generator=ember.Generator().manual_seed(3))
    b = ember.rrelu(x, training=True, generator=ember.Generator().manual_seed(3))
    c = ember.rrelu(x, training=True, generator=ember.Generator().manual_seed(4))
    assert ember.equal(a, b) and not ember.equal(a, c)


def test_rrelu_training_gradient_is_the_noise():
    x = ember.tensor(np.linspace(-3, 3, 20), requires_grad=True)
    noise = ember.empty(20, dtype=ember.float64)
    ember.rrelu_with_noise(x, noise, 0.1, 0.3, True).sum().backward()
    np.testing.assert_array_equal(to_np(x.grad), to_np(noise))


@pytest.mark.parametrize("training", [False, True])
def test_rrelu_with_noise_out_and_functional(training):
    """torch 2.13's rrelu_with_noise.out (writes noise and out) and rrelu_with_noise_functional
    ((result, the noise drawn), noise untouched); eval values compared to torch's, training
    ones to the noise drawn."""
    x = np.linspace(-3, 3, 12)
    for lib in (ember, torch):
        noise, out = lib.zeros(12, dtype=lib.float64), lib.empty(0, dtype=lib.float64)
        if lib is torch:
            out = lib.empty(12, dtype=lib.float64)   # (torch's kernel crashes on an empty out)
        r = lib.ops.aten.rrelu_with_noise.out(lib.tensor(x), noise, 0.1, 0.3, training, out=out)
        assert r is out and tuple(out.shape) == (12,)
        slopes = np.where(x <= 0, 0.2, 1.0) if not training else to_np(noise)
        np.testing.assert_allclose(to_np(out), x * slopes, rtol=1e-15)
        assert not training or ((slopes[x <= 0] >= 0.1) & (slopes[x <= 0] <= 0.3)).all()
        noise = lib.zeros(12, dtype=lib.float64)
        r, noise_out = lib.ops.aten.rrelu_with_noise_functional(lib.tensor(x), noise, 0.1, 0.3,
                                                                training)
        assert not to_np(noise).any()
        slopes = np.where(x <= 0, 0.2, 1.0) if not training else to_np(noise_out)
        np.testing.assert_allclose(to_np(r), x * slopes, rtol=1e-15)
    with pytest.raises(RuntimeError, match="out"):   # out= refuses a result needing grad
        ember.ops.aten.rrelu_with_noise.out(ember.tensor(x, requires_grad=True), ember.zeros(12),
                                            out=ember.empty(12))


def test_rrelu_with_noise_functional_gradient_is_the_noise_drawn():
    """grad * noise_out (torch's formula reads the noise passed in: zeros here, a zero
    gradient, which its eval mode shares with ours)."""
    x = ember.tensor(np.linspace(-3, 3, 20), requires_grad=True)
    r, noise_out = ember.ops.aten.rrelu_with_noise_functional(x, ember.zeros(20, dtype=ember.float64),
                                                              0.1, 0.3, True)
    assert not noise_out.requires_grad
    (g,) = ember.autograd.grad(r.sum(), x)
    np.testing.assert_array_equal(to_np(g), to_np(noise_out))
    t = torch.tensor(np.linspace(-3, 3, 20), requires_grad=True)
    for lib, leaf in ((ember, x), (torch, t)):     # eval: leaky_relu's gradient
        r, _ = lib.ops.aten.rrelu_with_noise_functional(leaf, lib.zeros(20, dtype=lib.float64),
                                                        0.1, 0.3, False)
        (g,) = lib.autograd.grad(r.sum(), leaf)
        np.testing.assert_array_equal(to_np(g), np.where(np.linspace(-3, 3, 20) <= 0, 0.2, 1.0))


def test_rrelu_with_noise_functionalized():
    """functionalize: rrelu_with_noise_ runs the functional variant and writes both results
    back; the out= variant mutates clones (no variant returns what it writes, in order)."""
    from ember.func import functionalize
    x = ember.tensor(np.linspace(-3, 3, 8))

    def inplace(x, noise):
        y = x.clone()
        ember.ops.aten.rrelu_with_noise_.default(y, noise, 0.1, 0.3, True)
        return y

    def out(x, noise):
        o = ember.empty(8, dtype=ember.float64)
        ember.ops.aten.rrelu_with_noise.out(x, noise, 0.1, 0.3, True, out=o)
        return o
    for fn in (inplace, out):
        noise = ember.zeros(8, dtype=ember.float64)
        y = functionalize(fn)(x, noise)
        assert to_np(noise)[to_np(x) > 0].tolist() == [1.0] * 4
        np.testing.assert_allclose(to_np(y), to_np(x) * to_np(noise), rtol=1e-15)


def test_rrelu_in_place_training_and_eval():
    x = ember.tensor(np.linspace(-3, 3, 20))
    y = x.clone()
    assert F.rrelu(y, 0.2, 0.2, training=True, inplace=True) is y     # a one-point range
    np.testing.assert_allclose(to_np(y), to_np(F.leaky_relu(x, 0.2)))
    assert F.rrelu_(y, 0.1, 0.3) is y


def test_rrelu_eval_is_leaky_relu_with_the_mean_slope():
    x = ember.tensor(X)
    np.testing.assert_array_equal(to_np(F.rrelu(x, 0.1, 0.3)), to_np(F.leaky_relu(x, 0.2)))


# --------------------------------------------------------------------------- gradcheck
@pytest.mark.parametrize("fn", [
    lambda x: ember.log_sigmoid(x),
    lambda x: ember.rrelu(x, 0.1, 0.3),
    # (training with a one-point range: the forward gradcheck re-runs draws the same slopes)
    lambda x: ember.rrelu_with_noise(x, ember.empty_like(x.detach()), 0.2, 0.2, True),
    lambda x: ember.prelu(x, ember.tensor(WEIGHT[:3], requires_grad=True)),
], ids=["log_sigmoid", "rrelu_eval", "rrelu_with_noise_training", "prelu"])
def test_gradcheck_and_gradgradcheck(fn):
    x = ember.tensor(X[:, [0, 2, 3]] + 0.05, requires_grad=True)   # (away from the kinks)
    assert ember.autograd.gradcheck(fn, (x,))
    assert ember.autograd.gradgradcheck(fn, (x,))


def test_log_sigmoid_double_backward_matches_torch():
    x, t = ember.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    (g,) = ember.autograd.grad(F.logsigmoid(x).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(TF.logsigmoid(t).sum(), t, create_graph=True)
    (g * g).sum().backward()
    (tg * tg).sum().backward()
    np.testing.assert_allclose(to_np(x.grad), t.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_log_sigmoid_buffer_is_torchs():
    out, buffer = ember.log_sigmoid_forward(ember.tensor(X))
    t_out, t_buffer = torch.ops.aten.log_sigmoid_forward(torch.tensor(X))
    np.testing.assert_allclose(to_np(buffer), t_buffer.numpy(), rtol=1e-15)
    np.testing.assert_allclose(to_np(out), t_out.numpy(), rtol=1e-15)


# --------------------------------------------------------------------------- surfaces
def test_surfaces_call_the_ops():
    x = ember.tensor(X)
    t = torch.tensor(X)
    np.testing.assert_array_equal(to_np(x.hardshrink(0.5)), t.hardshrink(0.5).numpy())
    np.testing.assert_array_equal(to_np(x.prelu(ember.tensor(WEIGHT))),
                                  t.prelu(torch.tensor(WEIGHT)).numpy())
    np.testing.assert_allclose(to_np(ember.selu(x)), torch.selu(t).numpy(), rtol=1e-15)
    np.testing.assert_allclose(to_np(ember.celu(x, 2.0)), torch.celu(t, 2.0).numpy(),
                               rtol=1e-15)
    y = x.clone()
    assert ember.selu_(y) is y and ember.celu_(y) is y
    with pytest.raises(RuntimeError, match="alpha cannot be 0 for CELU"):
        F.celu(x, 0.0)
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        F.glu(ember.tensor(1.0))


@pytest.mark.parametrize("name", ["hardswish", "hardsigmoid", "mish", "selu", "celu",
                                  "relu6"])
def test_functional_inplace_matches_torch(name):
    x, t = ember.tensor(X), torch.tensor(X)
    y = getattr(F, name)(x, inplace=True)
    assert y is x
    getattr(TF, name)(t, inplace=True)
    np.testing.assert_allclose(to_np(x), t.numpy(), rtol=1e-14)
