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


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compiled_node_gradients_hooks_and_second_backward(backend):
    """One CompiledFunctionBackward node: its edges reach the inputs that need a gradient,
    hooks on it run, retain_graph keeps its saved values and a second backward without it
    raises torch's error."""
    fn = lambda w, x, b: ((w * x).sin() + b, (x * 2).exp())
    (we, wt), (xe, xt), (be, bt) = _pair(5, 0), _pair(5, 1, False), _pair(5, 2)
    f = ember.compile(fn, backend=backend)
    (oe, ie), (ot, it) = f(we, xe, be), torch.compile(fn, backend="aot_eager")(wt, xt, bt)
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
    """An input returned as it is gets an alias with the node; under no_grad nothing is
    recorded."""
    fn = lambda w: (w, w * 3)
    (we, wt), = [_pair(4, 3)]
    f = ember.compile(fn, backend="aot_eager")
    (ae, be), (at, bt) = f(we), fn(wt)
    assert ae is not we and ae.requires_grad and be.grad_fn is not None
    (ae.sum() + be.sum()).backward()
    (at.sum() + bt.sum()).backward()
    _same(we.grad, wt.grad)
    with ember.no_grad():
        _, b = f(we)
    assert not b.requires_grad and b.grad_fn is None
    _same(b, bt)
