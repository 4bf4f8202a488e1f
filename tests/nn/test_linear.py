"""nn.Linear, nn.Bilinear, nn.Identity and nn.Flatten against torch: default initialisation,
outputs and gradients with the same weights, reprs and errors."""
import math

import numpy as np
import pytest

import ember
from ember import nn

torch = pytest.importorskip("torch")


def copy_into(dst_ember, src_torch):
    dst_ember.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                               for k, v in src_torch.state_dict().items()})


def compare_forward_backward(e, t, inputs, rtol=1e-5, atol=1e-6):
    """Runs both modules on the same inputs; compares outputs and every gradient."""
    xe = [ember.from_numpy(x.copy()).requires_grad_() for x in inputs]
    xt = [torch.from_numpy(x.copy()).requires_grad_() for x in inputs]
    ye, yt = e(*xe), t(*xt)
    assert ye.shape == tuple(yt.shape) and ye.dtype.itemsize == yt.dtype.itemsize
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)
    g = np.random.default_rng(7).standard_normal(tuple(yt.shape)).astype(inputs[0].dtype)
    ye.backward(ember.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    for a, b in zip(xe, xt):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=atol)
    tp = dict(t.named_parameters())
    for name, p in e.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), tp[name].grad.numpy(), rtol=rtol, atol=atol,
                                   err_msg=name)


@pytest.mark.parametrize("in_shape", [(5, 4), (4,), (2, 3, 4), (2, 1, 3, 4), (0, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(in_shape, bias):
    t = torch.nn.Linear(4, 3, bias=bias)
    e = nn.Linear(4, 3, bias=bias)
    copy_into(e, t)
    x = np.random.default_rng(0).standard_normal(in_shape).astype(np.float32)
    compare_forward_backward(e, t, [x])


def test_linear_float64_gradients_tight():
    t = torch.nn.Linear(6, 5, dtype=torch.float64)
    e = nn.Linear(6, 5, dtype=ember.float64)
    assert e.weight.dtype == ember.float64 and e.bias.dtype == ember.float64
    copy_into(e, t)
    x = np.random.default_rng(1).standard_normal((3, 6))
    compare_forward_backward(e, t, [x], rtol=1e-12, atol=1e-14)


def test_linear_noncontiguous_input():
    t, e = torch.nn.Linear(4, 2), nn.Linear(4, 2)
    copy_into(e, t)
    x = np.random.default_rng(2).standard_normal((4, 3, 5)).astype(np.float32)
    ye = e(ember.from_numpy(x).permute(2, 1, 0))
    yt = t(torch.from_numpy(x).permute(2, 1, 0))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_linear_default_init_like_torch():
    lin = nn.Linear(400, 300)
    w = lin.weight.detach().numpy().astype(np.float64)
    b = lin.bias.detach().numpy().astype(np.float64)
    bound = 1 / math.sqrt(400)             # kaiming_uniform_(a=sqrt(5)) and the bias rule
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    np.testing.assert_allclose(w.std(), bound / math.sqrt(3), rtol=0.02)
    assert np.abs(b).max() <= bound and b.std() > 0.4 * bound
    t = torch.nn.Linear(400, 300)
    np.testing.assert_allclose(w.std(), t.weight.detach().numpy().std(), rtol=0.03)


def test_linear_init_follows_the_global_seed():
    ember.manual_seed(5)
    a = nn.Linear(3, 2).weight.detach().numpy().copy()
    ember.manual_seed(5)
    b = nn.Linear(3, 2).weight.detach().numpy().copy()
    np.testing.assert_array_equal(a, b)


def test_linear_attributes_and_repr():
    lin = nn.Linear(3, 2, bias=False)
    assert (lin.in_features, lin.out_features, lin.bias) == (3, 2, None)
    assert [n for n, _ in lin.named_parameters()] == ["weight"]
    assert list(lin.state_dict()) == ["weight"]
    assert repr(lin) == repr(torch.nn.Linear(3, 2, bias=False))
    assert repr(nn.Linear(3, 2)) == "Linear(in_features=3, out_features=2, bias=True)"
    assert isinstance(lin.weight, nn.Parameter) and lin.weight.shape == (2, 3)


def test_linear_with_zero_in_features():
    with pytest.warns(UserWarning, match="zero-element"):
        lin = nn.Linear(0, 3)
    assert lin.bias.tolist() == [0.0, 0.0, 0.0]
    assert lin(ember.ones(2, 0)).tolist() == [[0.0] * 3] * 2


def test_linear_reset_parameters_redraws():
    lin = nn.Linear(5, 5)
    before = lin.weight.detach().numpy().copy()
    w = lin.weight
    lin.reset_parameters()
    assert lin.weight is w and not np.array_equal(before, w.detach().numpy())


@pytest.mark.parametrize("shape", [(5, 3), (3,), (2, 5, 2)])
def test_linear_wrong_input_size_raises_like_torch(shape):
    with pytest.raises(RuntimeError):
        torch.nn.Linear(4, 2)(torch.ones(shape))
    with pytest.raises(RuntimeError):
        nn.Linear(4, 2)(ember.ones(shape))


def test_linear_in_a_module_trains_like_torch():
    """Five SGD steps by hand on a two-layer net give the same weights on both sides."""
    t = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 2)).double()
    e = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2)).double()
    copy_into(e, t)
    rng = np.random.default_rng(3)
    for _ in range(5):
        x = rng.standard_normal((6, 4))
        e.zero_grad()
        t.zero_grad()
        (e(ember.from_numpy(x)) ** 2).mean().backward()
        (t(torch.from_numpy(x)) ** 2).mean().backward()
        with ember.no_grad(), torch.no_grad():
            for pe, pt in zip(e.parameters(), t.parameters()):
                pe.sub_(pe.grad * 0.1)
                pt.sub_(pt.grad * 0.1)
    for (n, a), (_, b) in zip(e.state_dict().items(), t.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, err_msg=n)


# --- Bilinear -----------------------------------------------------------------------------------
@pytest.mark.parametrize("batch", [(5,), (2, 3), ()])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_matches_torch(batch, bias):
    t = torch.nn.Bilinear(3, 4, 2, bias=bias, dtype=torch.float64)
    e = nn.Bilinear(3, 4, 2, bias=bias, dtype=ember.float64)
    copy_into(e, t)
    rng = np.random.default_rng(4)
    compare_forward_backward(e, t, [rng.standard_normal((*batch, 3)),
                                    rng.standard_normal((*batch, 4))], rtol=1e-10, atol=1e-12)
    assert repr(e) == repr(t)


def test_bilinear_init_and_errors():
    b = nn.Bilinear(16, 4, 3)
    bound = 1 / math.sqrt(16)
    assert b.weight.shape == (3, 16, 4)
    assert np.abs(b.weight.detach().numpy()).max() <= bound
    assert np.abs(b.bias.detach().numpy()).max() <= bound
    with pytest.raises(RuntimeError):
        torch.nn.Bilinear(16, 4, 3)(torch.ones(2, 16), torch.ones(3, 4))
    with pytest.raises(RuntimeError, match="batch dimensions do not match"):
        b(ember.ones(2, 16), ember.ones(3, 4))
    with pytest.raises(RuntimeError, match="input1 size does not match"):
        b(ember.ones(2, 15), ember.ones(2, 4))


# --- Identity, Flatten --------------------------------------------------------------------------
@pytest.mark.parametrize("start_dim, end_dim", [(1, -1), (0, -1), (0, 1), (-2, -1), (2, 2)])
def test_flatten_matches_torch(start_dim, end_dim):
    x = np.random.default_rng(5).standard_normal((2, 3, 4, 5)).astype(np.float32)
    t, e = torch.nn.Flatten(start_dim, end_dim), nn.Flatten(start_dim, end_dim)
    compare_forward_backward(e, t, [x])
    assert repr(e) == repr(t)


def test_flatten_errors_like_torch():
    with pytest.raises(IndexError):
        torch.nn.Flatten(3)(torch.ones(2, 3))
    with pytest.raises(IndexError):
        nn.Flatten(3)(ember.ones(2, 3))


def test_unflatten_matches_torch():
    x = np.random.default_rng(6).standard_normal((2, 12)).astype(np.float32)
    compare_forward_backward(nn.Unflatten(1, (3, -1)), torch.nn.Unflatten(1, (3, -1)), [x])
    assert repr(nn.Unflatten(1, (3, 4))) == repr(torch.nn.Unflatten(1, (3, 4)))


def test_identity_passes_gradients():
    x = ember.ones(3, requires_grad=True)
    (nn.Identity()(x) * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    assert repr(nn.Identity(1, 2, k=3)) == repr(torch.nn.Identity(1, 2, k=3)) == "Identity()"
