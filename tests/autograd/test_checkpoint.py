"""ember.utils.checkpoint (use_reentrant True and False) and
autograd.graph.saved_tensors_hooks against torch: gradients through .backward(),
autograd.grad and backward(inputs=), grad_fn names, recomputation counts, warnings and
errors."""
import contextlib
import warnings

import numpy as np
import pytest

import ember
import ember.utils.checkpoint as echeckpoint

torch = pytest.importorskip("torch")
import torch.utils.checkpoint as tcheckpoint


def models():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(),
                             torch.nn.Linear(8, 3)).double()
    em = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.Tanh(),
                             ember.nn.Linear(8, 3)).double()
    em.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                        for k, v in tm.state_dict().items()})
    return em, tm


def run(fw, model, x, use_reentrant, calls):
    def body(inp):
        calls.append(1)
        return model(inp).sin()
    ck = echeckpoint if fw is ember else tcheckpoint
    return ck.checkpoint(body, x, use_reentrant=use_reentrant)


X = np.linspace(-1, 1, 20).reshape(5, 4)


@pytest.mark.parametrize("use_reentrant", [False, True])
@pytest.mark.parametrize("input_requires_grad", [False, True])
def test_backward_matches_torch(use_reentrant, input_requires_grad):
    em, tm = models()
    results = []
    for fw, model in ((ember, em), (torch, tm)):
        x = fw.tensor(X, requires_grad=input_requires_grad)
        calls = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = run(fw, model, x, use_reentrant, calls)
        name = out.grad_fn.name() if out.grad_fn is not None else None
        if out.requires_grad:
            (out * out).sum().backward()
        grads = [None if p.grad is None else p.grad.numpy().copy()
                 for p in (x, *model.parameters())]
        results.append((out.detach().numpy(), name, len(calls), grads,
                        [str(w.message) for w in caught]))
    (e_out, e_name, e_calls, e_grads, e_warn), (t_out, t_name, t_calls, t_grads, t_warn) = \
        results
    np.testing.assert_allclose(e_out, t_out, rtol=1e-12)
    assert e_name == t_name
    assert e_calls == t_calls
    assert e_warn == t_warn
    for e, t in zip(e_grads, t_grads, strict=True):
        assert (e is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(e, t, rtol=1e-12, atol=1e-14)


def test_non_reentrant_serves_autograd_grad_and_inputs():
    em, tm = models()
    results = []
    for fw, model in ((ember, em), (torch, tm)):
        x = fw.tensor(X, requires_grad=True)
        loss = run(fw, model, x, False, []).pow(2).sum()
        weight = model[0].weight
        g_w, g_x = fw.autograd.grad(loss, (weight, x), retain_graph=True)
        loss.backward(inputs=[model[2].bias])
        results.append((g_w.numpy(), g_x.numpy(), model[2].bias.grad.numpy(),
                        weight.grad is None))
    for e, t in zip(*results, strict=True):
        np.testing.assert_allclose(e, t, rtol=1e-12) if not isinstance(t, bool) else None
    assert results[0][3] and results[1][3]


def test_non_reentrant_retain_graph_recomputes_each_backward():
    em, tm = models()
    counts, grads = [], []
    for fw, model in ((ember, em), (torch, tm)):
        x = fw.tensor(X, requires_grad=True)
        calls = []
        loss = run(fw, model, x, False, calls).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        counts.append(len(calls))
        grads.append(x.grad.numpy())
    assert counts[0] == counts[1] == 3
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def error_of(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001  (its type and message are compared)
        return type(exc).__name__, str(exc)
    return None


def test_reentrant_refuses_grad_and_inputs_like_torch():
    em, tm = models()
    for how in ("grad", "inputs"):
        errors = []
        for fw, model in ((ember, em), (torch, tm)):
            x = fw.tensor(X, requires_grad=True)
            loss = run(fw, model, x, True, []).sum()
            errors.append(error_of(lambda fw=fw, loss=loss, x=x: fw.autograd.grad(loss, x))
                          if how == "grad" else
                          error_of(lambda loss=loss, x=x: loss.backward(inputs=[x])))
        assert errors[0] is not None and errors[0] == errors[1]


def test_reentrant_keyword_arguments_and_context_fn_are_refused_like_torch():
    for kwargs in ({"scale": 2.0}, {"debug": True}):
        errors = [error_of(lambda ck=ck, fw=fw, kwargs=kwargs: ck.checkpoint(
                      lambda a, scale=1.0: a * scale, fw.ones(1, requires_grad=True),
                      use_reentrant=True, **kwargs))
                  for ck, fw in ((echeckpoint, ember), (tcheckpoint, torch))]
        assert errors[0] is not None and errors[0] == errors[1]


def test_non_reentrant_detects_in_place_changes_of_saved_inputs():
    for fw, ck in ((ember, echeckpoint), (torch, tcheckpoint)):
        x = fw.ones(3, requires_grad=True)
        y = x * 1.0
        out = ck.checkpoint(lambda a: a.exp(), y, use_reentrant=False)
        with fw.no_grad():
            y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


@pytest.mark.parametrize(("second", "first_line"), [
    (lambda a: a.expand(2, 3).exp(), ("torch.utils.checkpoint: Recomputed values for the "
                                     "following tensors have different metadata than during "
                                     "the forward pass.")),
    (lambda a: a * 2, ("torch.utils.checkpoint: A different number of tensors was saved during "
                      "the original forward and recomputation.")),
    (lambda a: a.sin().exp(), None),   # the first saved tensor agrees: early stop, no check
])
def test_recomputation_that_saves_differently(second, first_line):
    outcomes = []
    for fw, ck in ((ember, echeckpoint), (torch, tcheckpoint)):
        state = {"n": 0}

        def body(a, state=state):
            state["n"] += 1
            return a.exp() if state["n"] == 1 else second(a)

        out = ck.checkpoint(body, fw.ones(3, requires_grad=True), use_reentrant=False)
        error = error_of(lambda out=out: out.sum().backward())
        outcomes.append(error and (error[0], error[1].splitlines()[0]))
    assert outcomes[0] == outcomes[1] == (first_line and ("CheckpointError", first_line))


def test_context_fn_and_determinism_check():
    """context_fn's two context managers wrap the forward and the recomputation;
    determinism_check="none" skips the metadata comparison; other values are refused."""
    for fw, ck in ((ember, echeckpoint), (torch, tcheckpoint)):
        seen = []

        def context_fn(seen=seen):
            return (contextlib.contextmanager(lambda: (yield seen.append("forward")))(),
                    contextlib.contextmanager(lambda: (yield seen.append("recompute")))())

        x = fw.ones(3, requires_grad=True)
        ck.checkpoint(lambda a: a.exp(), x, use_reentrant=False,
                      context_fn=context_fn).sum().backward()
        assert seen == ["forward", "recompute"]
        state = {"n": 0}

        def body(a, state=state):
            state["n"] += 1
            return a.exp() if state["n"] == 1 else a.expand(2, 3).exp()

        ck.checkpoint(body, x, use_reentrant=False, determinism_check="none").sum().backward()
    errors = [error_of(lambda ck=ck, fw=fw: ck.checkpoint(lambda a: a, fw.ones(1),
                                                          use_reentrant=False,
                                                          determinism_check="strict"))
              for ck, fw in ((echeckpoint, ember), (tcheckpoint, torch))]
    assert errors[0] is not None and errors[0] == errors[1]


def test_dropout_masks_replay():
    def grads(use_checkpoint):
        ember.manual_seed(3)
        layer = ember.nn.Linear(6, 6)
        x = ember.ones(4, 6, requires_grad=True)

        def f(a):
            return ember.nn.functional.dropout(layer(a), 0.5, training=True)

        y = echeckpoint.checkpoint(f, x, use_reentrant=False) if use_checkpoint else f(x)
        y.sum().backward()
        return y.detach().numpy(), x.grad.numpy(), layer.weight.grad.numpy()

    for a, b in zip(grads(True), grads(False), strict=True):
        np.testing.assert_array_equal(a, b)


def test_saved_tensors_hooks_match_torch():
    results = []
    for fw in (ember, torch):
        packed = []

        def pack(t, packed=packed):
            packed.append(tuple(t.shape))
            return t * 1

        a = fw.tensor([0.5, 1.0, 2.0], requires_grad=True)
        with fw.autograd.graph.saved_tensors_hooks(pack, lambda t: t * 2):
            y = (a.exp() * a).sum()
        y.backward()
        results.append((packed, a.grad.numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)
    with ember.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = ember.ones(2, requires_grad=True).exp()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
        y.sum().backward()
