"""nn.AdaptiveLogSoftmaxWithLoss against torch's from the same weights: outputs, loss,
gradients, log_prob, predict (all three of its paths), unbatched input and errors."""
import numpy as np
import pytest
from nn_compare import assert_close, assert_grads_close, to_ember

import ember

torch = pytest.importorskip("torch")


def pair(in_features=8, n_classes=20, cutoffs=(4, 10), dtype=torch.float64, **kwargs):
    torch.manual_seed(0)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, **kwargs)
    tm = tm.to(dtype)
    em = ember.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, **kwargs)
    em = em.to(getattr(ember, str(dtype).removeprefix("torch.")))
    em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})
    return em, tm


def inputs(shape, dtype=torch.float64, seed=1):
    t = torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)
    return to_ember(t).requires_grad_(), t.requires_grad_()


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("targets", [[0, 5, 19, 3, 12, 9], [1, 2, 3, 0, 0, 3], [15, 16, 19],
                                     [7]])
@pytest.mark.parametrize("head_bias", [False, True])
def test_forward_and_gradients(dtype, targets, head_bias):
    em, tm = pair(dtype=dtype, head_bias=head_bias, div_value=2.0)
    ex, tx = inputs((len(targets), 8), dtype)
    e_out, e_loss = em(ex, ember.tensor(targets))
    t_out, t_loss = tm(tx, torch.tensor(targets))
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == torch.float32 else {}
    assert_close(e_out, t_out, **tol)
    assert_close(e_loss, t_loss, **tol)
    e_loss.backward()
    t_loss.backward()
    assert_grads_close([ex, *em.parameters()], [tx, *tm.parameters()], **tol)
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]


def test_unbatched_input():
    em, tm = pair()
    ex, tx = inputs((8,))
    e_out, e_loss = em(ex, ember.tensor(13))
    t_out, t_loss = tm(tx, torch.tensor(13))
    assert_close(e_out, t_out)
    assert_close(e_loss, t_loss)


def test_log_prob_and_predict():
    em, tm = pair(cutoffs=(3, 9, 15), head_bias=True, div_value=2.0)
    ex, tx = inputs((30, 8), seed=2)
    assert_close(em.log_prob(ex), tm.log_prob(tx))
    np.testing.assert_allclose(em.log_prob(ex).exp().sum(1).detach().numpy(), 1.0, rtol=1e-12)
    outside = []  # how many rows' head argmax is a cluster token: all, none, some
    with torch.no_grad():
        tm.head.bias[:3] = 10.0
        expected_all_short = tm.predict(tx)
        outside.append((tm.head(tx).argmax(1) >= 3).sum().item())
        tm.head.bias[:3] = -10.0
        expected_no_short = tm.predict(tx)
        outside.append((tm.head(tx).argmax(1) >= 3).sum().item())
        tm.head.bias.zero_()
        expected_mixed = tm.predict(tx)
        outside.append((tm.head(tx).argmax(1) >= 3).sum().item())
    assert outside[0] == 0 and outside[1] == 30 and 0 < outside[2] < 30
    cases = []
    with ember.no_grad():
        em.head.bias[:3] = 10.0
        cases.append((em.predict(ex), expected_all_short))
        em.head.bias[:3] = -10.0
        cases.append((em.predict(ex), expected_no_short))
        em.head.bias.zero_()
        cases.append((em.predict(ex), expected_mixed))
    for e, t in cases:
        assert e.dtype.name == "int64"
        assert e.tolist() == t.tolist()


def message(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001  (its type and message are compared)
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("cutoffs", [[], [5, 3], [0, 4], [4, 20], [4, 4], [4.5]])
def test_bad_cutoffs(cutoffs):
    got = message(lambda: ember.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs))
    want = message(lambda: torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs))
    assert want is not None and got == want


@pytest.mark.parametrize(("x_shape", "target"), [((3, 8), [1, 2]), ((2, 2, 8), [1, 2]),
                                                  ((2, 8), 3), ((2, 8), [[1, 2]]),
                                                  ((2, 8), [1, 20]), ((2, 8), [-1, 2])])
def test_bad_inputs(x_shape, target):
    em, tm = pair()
    got = message(lambda: em(ember.zeros(x_shape, dtype=ember.float64), ember.tensor(target)))
    want = message(lambda: tm(torch.zeros(x_shape, dtype=torch.float64),
                              torch.tensor(target)))
    assert want is not None
    assert got == (want[0], want[1].replace("torch.Size", "ember.Size"))
