"""ember.compile's outputs alias as torch.compile's do (AOT autograd's output alias
regeneration): a view of an intermediate comes back as a view of a hidden base (always
without autograd; under autograd when several outputs view one intermediate, which then
share memory), and an input returned as is comes back as that very tensor.
Compared with torch.compile(backend="aot_eager") on `_is_view`, shared memory, grad_fn
and layout; then writes and versions after the call, and gradients."""
from __future__ import annotations

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

BACKENDS = ["aot_eager", "inductor"]
def _two_views_of_intermediate(x):
    y = x + 1
    return y[0], y[1:]


def _intermediate_and_its_view(x):
    y = x + 1
    return y, y[0]


def _views_of_two_intermediates(x):
    y, z = x * 3, x.exp()
    return y.t(), y[1], z.view(-1)


PROGRAMS = {
    "view_of_intermediate": lambda x: (x + 1)[0],
    "two_views_of_intermediate": _two_views_of_intermediate,
    "unsqueeze_of_intermediate": lambda x: (x * 2).unsqueeze(0),
    "intermediate_and_its_view": _intermediate_and_its_view,
    "input_itself_and_view": lambda x: (x, x[0]),
    "view_of_input_and_fresh": lambda x: (x.view(-1), x.sin()),
    "views_of_two_intermediates": _views_of_two_intermediates,
}


def _outs(o):
    return o if isinstance(o, tuple) else (o,)


def _describe(outs, x):
    """Per output: is a view, shares x's memory, is x itself, earlier outputs sharing its
    memory, requires grad, grad_fn class (None: no grad_fn), strides."""
    def ptr(t):
        return t.untyped_storage().data_ptr()
    return [(o._is_view(), ptr(o) == ptr(x), o is x,
             tuple(i for i, p in enumerate(outs[:k]) if ptr(p) == ptr(o)),
             o.requires_grad, type(o.grad_fn).__name__, tuple(o.stride()))
            for k, o in enumerate(outs)]


def _grad_fn_names(rows):
    """grad_fn names compare by kind: torch's compiled node is CompiledFunctionBackward."""
    return [r[:5] + (r[5].replace("CompiledFunctionBackward", "<compiled>"),) + r[6:]
            for r in rows]


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_output_aliasing_matches_torch_compile(name, backend, requires_grad):
    fn = PROGRAMS[name]
    data = np.arange(12.0).reshape(3, 4)
    x = ember.tensor(data, requires_grad=requires_grad)
    got = _outs(ember.compile(fn, backend=backend)(x))
    torch._dynamo.reset()
    tx = torch.tensor(data, requires_grad=requires_grad)
    want = _outs(torch.compile(fn, backend="aot_eager")(tx))
    assert _grad_fn_names(_describe(got, x)) == _grad_fn_names(_describe(want, tx))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.detach().numpy(), w.detach().numpy())


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_into_one_output_show_in_its_aliases(backend):
    """Two views of one intermediate share memory and version counter after the call."""
    with ember.no_grad():
        a, b = ember.compile(PROGRAMS["two_views_of_intermediate"], backend=backend)(
            ember.zeros(3, 4))
    version = b._version
    a.fill_(7)                 # a = y[0], b = y[1:]: the write lands in the hidden base
    assert b._version == version + 1 and a._base is b._base is not None
    np.testing.assert_array_equal(a._base.numpy()[0], [7, 7, 7, 7])
    y, first = ember.compile(PROGRAMS["intermediate_and_its_view"], backend=backend)(
        ember.zeros(3, 4))
    first.add_(5)
    np.testing.assert_array_equal(y.numpy()[0], [6, 6, 6, 6])
    assert first._base is y


@pytest.mark.parametrize("backend", BACKENDS)
def test_input_returned_as_is(backend):
    x = ember.zeros(3, 4, requires_grad=True)
    same, row = ember.compile(PROGRAMS["input_itself_and_view"], backend=backend)(x)
    assert same is x and row._base is x


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_through_views_of_a_hidden_base(backend):
    """The views are replayed on the hidden base under autograd (SelectBackward0 into the
    compiled node): gradients equal eager's and torch's."""
    fn = PROGRAMS["views_of_two_intermediates"]
    data = np.linspace(-1, 1, 12).reshape(3, 4)
    grads = []
    for f in (fn, ember.compile(fn, backend=backend)):
        x = ember.tensor(data, requires_grad=True)
        a, b, c = f(x)
        (a.sum() * 2 + (b * b).sum() + c.sin().sum()).backward()
        grads.append(x.grad.numpy())
    tx = torch.tensor(data, requires_grad=True)
    a, b, c = fn(tx)
    (a.sum() * 2 + (b * b).sum() + c.sin().sum()).backward()
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)
    np.testing.assert_allclose(grads[1], tx.grad.numpy(), rtol=1e-12)


def test_in_place_on_a_view_output_under_autograd():
    """In-place on a regenerated view of a hidden base is recorded (CopySlices) and its
    gradient flows, as in eager."""
    fn = PROGRAMS["two_views_of_intermediate"]
    grads = []
    for f in (fn, ember.compile(fn, backend="aot_eager")):
        x = ember.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        a, b = f(x)
        a.mul_(3)
        (a.sum() + b.sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1])
