"""AOT autograd's outputs that are views of an input or of another output come back as
views, as in eager and torch.compile: the compiled graph's fresh result is replaced by the
view ops replayed on the real tensors, so `._base`, the shared storage and version counter,
and the view's grad_fn (`ViewBackward0`, `UnsqueezeBackward0`, ...) are eager's."""
from __future__ import annotations

import numpy as np
import pytest

import ember
from ember._dynamo import counters

torch = pytest.importorskip("torch")

BACKENDS = ["aot_eager", "inductor"]


def _output_and_its_views(x):
    y = x * 2
    return y, y.view(-1), y.t()


def _programs(lib):
    return {
        "view": lambda x: x.view(-1),
        "unsqueeze": lambda x: x.unsqueeze(0),
        "t": lambda x: x.t(),
        "slice": lambda x: x[1:],
        "select": lambda x: x[1],
        "expand": lambda x: x[:1].expand(3, 4),
        "chain": lambda x: x.t().unsqueeze(0)[:, 1:],
        "with_fresh": lambda x: (x.view(-1), x * 2),
        "view_of_output": _output_and_its_views,
        "two_views": lambda x: (x.t(), x.t().unsqueeze(0)),
        "dtype": lambda x: x.view(lib.int32),
    }


NAMES = list(_programs(ember))


def _outs(o):
    return o if isinstance(o, tuple) else (o,)


def _describe(outs, x):
    """For each output: its grad_fn's class, whether its base is x, whether it shares x's
    memory, and which earlier output it is a view of."""
    def ptr(t):
        return t.untyped_storage().data_ptr()
    rows = []
    for k, o in enumerate(outs):
        of_output = next((i for i, p in enumerate(outs[:k]) if o._base is not None and
                          (o._base is p or o._base is p._base and p._base is not None)
                          and ptr(o) == ptr(p)), None)
        rows.append((type(o.grad_fn).__name__, o._base is x, ptr(o) == ptr(x), of_output))
    return rows


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_views_are_eagers_views(name, backend):
    fn, tfn = _programs(ember)[name], _programs(torch)[name]
    data = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    x = ember.tensor(data, requires_grad=True)
    got = _outs(ember.compile(fn, backend=backend, fullgraph=True)(x))
    want = _outs(fn(x))
    tx = torch.tensor(data, requires_grad=True)
    torch._dynamo.reset()
    twant = _outs(torch.compile(tfn, backend="aot_eager")(tx))
    described = _describe(got, x)
    # (an output that is no view is the compiled node's, in eager the op's)
    assert [r if w._base is not None else r[1:] for r, w in zip(described, want)] == \
        [r if w._base is not None else r[1:] for r, w in zip(_describe(want, x), want)]
    names = [(type(o.grad_fn).__name__, o._base is tx) for o in twant]
    assert [(r[0], r[1]) for r in described] == names
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.stride() == w.stride() and g.dtype == w.dtype
        np.testing.assert_array_equal(g.detach().numpy(), w.detach().numpy())
    assert counters["frames"]["ok"] == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_through_replayed_views_equal_eager(backend):
    def fn(x):
        y = x * 2
        return x.t().unsqueeze(0), y, y.view(-1)[2:]
    grads = []
    for f in (fn, ember.compile(fn, backend=backend)):
        x = ember.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        a, b, c = f(x)
        (a.sum() * 3 + (b * b).sum() + c.exp().sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(*grads, rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_through_a_view_output_reach_the_input(backend):
    x = ember.zeros(3, 4)
    out = ember.compile(lambda x: x.t()[1], backend=backend)(x)
    version = x._version
    out.add_(5)
    assert x._version > version
    np.testing.assert_array_equal(x.numpy()[:, 1], [5, 5, 5])


@pytest.mark.parametrize("backend", BACKENDS)
def test_in_place_on_a_view_of_a_leaf_raises_eagers_error(backend):
    x = ember.ones(3, 4, requires_grad=True)
    out = ember.compile(lambda x: x.view(-1), backend=backend)(x)
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        out.add_(1)


def test_views_with_symbolic_sizes_replay_each_size():
    f = ember.compile(lambda x: (x.view(-1)[1:x.shape[0]], x.sin()), backend="inductor",
                      dynamic=True)
    for n in (3, 4, 6):
        x = ember.randn(n, 5, requires_grad=True)
        a, _ = f(x)
        assert a._base is x and type(a.grad_fn).__name__ == "SliceBackward0"
        assert a.shape == (n - 1,)
        np.testing.assert_array_equal(a.detach().numpy(), x.detach().numpy().ravel()[1:n])
    assert counters["frames"]["total"] == 1
