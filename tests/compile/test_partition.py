"""AOT autograd's partitioners: the min-cut partition saves no more bytes than the default
one, recomputes cheap ops only (never a random op), and gives eager's gradients."""
import numpy as np
import pytest

import ember
from ember import nn
from ember._functorch.partitioners import (
    _bytes,
    default_partition,
    min_cut_rematerialization_partition,
)
from ember.fx.experimental.proxy_tensor import make_fx


def _joint(f, *inputs):
    """f's joint graph: (outputs, gradients of sum(outputs * tangent)) for the inputs."""
    def joint(*flat):
        xs, t = flat[:-1], flat[-1]
        out = f(*xs)
        return [out, *ember.autograd.grad((out * t).sum(), xs)]
    xs = [x.detach().requires_grad_() for x in inputs]
    return make_fx(joint, tracing_mode="fake")(*xs, ember.ones_like(f(*inputs)))


def _saved(fw, n_out):
    out = next(n for n in fw.graph.nodes if n.op == "output")
    return list(out.args[0])[n_out:]


def _run(fw, bw, n_out, inputs, tangent):
    res = list(fw(*inputs))
    return res[:n_out], list(bw(*res[n_out:], tangent))


@pytest.mark.parametrize(("name", "f"), [
    ("pointwise_chain", lambda x: (x.sin() * 2).relu().exp()),
    ("matmul_then_pointwise", lambda x, w: ((x @ w).tanh() + 1).pow(2)),
    ("softmax_like", lambda x: (x - x.amax(1, keepdim=True)).exp() / 3.0),
])
def test_min_cut_saves_no_more_and_gives_the_same_gradients(name, f):
    ember.manual_seed(0)
    inputs = [ember.randn(4, 5)] + ([ember.randn(5, 5)] if name.startswith("matmul") else [])
    joint = _joint(f, *inputs)
    n = len(inputs)
    d_fw, d_bw, n_out = default_partition(joint, n, 1, n)
    m_fw, m_bw, _ = min_cut_rematerialization_partition(joint, n, 1, n)
    d_saved, m_saved = _saved(d_fw, n_out), _saved(m_fw, n_out)
    assert sum(map(_bytes, m_saved)) <= sum(map(_bytes, d_saved))
    tangent = ember.randn(f(*inputs).shape)
    want = _run(d_fw, d_bw, n_out, inputs, tangent)
    got = _run(m_fw, m_bw, n_out, inputs, tangent)
    for a, b in zip(want[0] + want[1], got[0] + got[1]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)
    if name == "pointwise_chain":     # everything recomputed from x: one saved input
        assert len(m_saved) == 1 and m_saved[0].op == "placeholder" and len(d_saved) > 1
    if name == "matmul_then_pointwise":    # the forward's matmul is never recomputed:
        mms = [nd for nd in m_bw.graph.nodes if nd.target is ember.ops.aten.mm.default]
        assert len(mms) == 2                # the backward's two are its own


def test_random_ops_are_saved_not_recomputed():
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 6), nn.Dropout(0.5), nn.Tanh())
    x = ember.randn(3, 6)
    compiled = ember.compile(model, backend="aot_eager_decomp_partition")
    grads = []
    for run in (model, compiled):
        ember.manual_seed(1)
        model.zero_grad()
        out = run(x)
        out.sum().backward()
        grads.append((out.detach().clone(), model[0].weight.grad.clone()))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)
