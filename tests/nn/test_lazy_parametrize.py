"""Lazy modules and parametrizations (weight_norm, spectral_norm, register_parametrization)
against torch: inferred shapes, class changes, state dict keys, outputs and gradients."""
import warnings

import pytest
from nn_compare import assert_close, pair, to_ember

import ember
from ember.nn.utils import parametrizations as eparam
from ember.nn.utils import parametrize as eparametrize

torch = pytest.importorskip("torch")
tnn = torch.nn


def load_from(t_mod, e_mod):
    e_mod.load_state_dict({k: to_ember(v.detach(), requires_grad=False)
                           for k, v in t_mod.state_dict().items()})


@pytest.mark.parametrize("make, shape", [
    (lambda nn: nn.LazyLinear(4), (2, 3, 5)),
    (lambda nn: nn.LazyLinear(4, bias=False), (5,)),
    (lambda nn: nn.LazyConv1d(4, 3, padding=1), (2, 3, 7)),
    (lambda nn: nn.LazyConv2d(4, 3, groups=2, stride=2), (2, 6, 7, 7)),
    (lambda nn: nn.LazyConv3d(2, 2), (3, 4, 4, 4)),
    (lambda nn: nn.LazyConvTranspose2d(4, 3, stride=2), (1, 3, 4, 4)),
    (lambda nn: nn.LazyBatchNorm1d(), (4, 3)),
    (lambda nn: nn.LazyBatchNorm2d(momentum=0.3), (4, 3, 2, 2)),
    (lambda nn: nn.LazyInstanceNorm2d(), (2, 3, 4, 4)),
])
def test_lazy_modules(make, shape):
    t_mod, e_mod = make(tnn), make(ember.nn)
    assert repr(e_mod) == repr(t_mod)
    assert e_mod.has_uninitialized_params()
    tx, ex = pair(*shape, dtype=torch.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_out = t_mod(tx)
    e_mod(ex)   # materialises with ember's own random init, then copy torch's values
    assert type(e_mod).__name__ == type(t_mod).__name__
    assert repr(e_mod) == repr(t_mod)
    assert {k: tuple(v.shape) for k, v in e_mod.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in t_mod.state_dict().items()}
    # torch's init: bounds from the inferred fan-in
    if hasattr(t_mod, "in_features") or hasattr(t_mod, "in_channels"):
        bound = float(t_mod.weight.abs().max()) * 3
        assert float(e_mod.weight.abs().max()) <= bound
    e_mod = make(ember.nn)
    t_mod = make(tnn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_mod(tx)
        e_mod(ex)
    load_from(t_mod, e_mod)
    tx.grad = ex.grad = None
    t_out = t_mod(tx)
    e_out = e_mod(ex)
    assert_close(e_out, t_out, rtol=1e-5, atol=1e-6)


def test_lazy_module_loads_a_state_dict_before_its_first_forward():
    t_mod = tnn.Linear(5, 4)
    e_mod = ember.nn.LazyLinear(4)
    load_from(t_mod, e_mod)
    tx, ex = pair(2, 5, dtype=torch.float32)
    assert_close(e_mod(ex), t_mod(tx), rtol=1e-6, atol=1e-6)
    assert type(e_mod) is ember.nn.Linear


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("make, dim, shape", [
    (lambda nn, dt: nn.Linear(4, 3, dtype=dt), 0, (2, 4)),
    (lambda nn, dt: nn.Linear(4, 3, dtype=dt), None, (2, 4)),
    (lambda nn, dt: nn.Conv2d(2, 3, 3, dtype=dt), 1, (1, 2, 5, 5)),
])
def test_weight_norm(make, dim, shape, dtype):
    t_mod = tnn.utils.parametrizations.weight_norm(make(tnn, dtype), dim=dim)
    e_mod = eparam.weight_norm(make(ember.nn, {torch.float64: ember.float64,
                                               torch.float32: ember.float32}[dtype]), dim=dim)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    assert type(e_mod).__name__ == type(t_mod).__name__
    load_from(t_mod, e_mod)
    tx, ex = pair(*shape, dtype=dtype)
    t_out, e_out = t_mod(tx), e_mod(ex)
    assert_close(e_out, t_out, rtol=1e-5, atol=1e-6)
    assert_close(e_mod.weight, t_mod.weight, rtol=1e-5, atol=1e-6)
    t_out.sum().backward()
    e_out.sum().backward()
    for name, p in t_mod.named_parameters():
        assert_close(dict(e_mod.named_parameters())[name].grad, p.grad, rtol=1e-5, atol=1e-6)
    eparametrize.remove_parametrizations(e_mod, "weight")
    tnn.utils.parametrize.remove_parametrizations(t_mod, "weight")
    assert type(e_mod).__name__ == type(t_mod).__name__
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    assert_close(e_mod.weight, t_mod.weight, rtol=1e-5, atol=1e-6)


def test_old_weight_norm_and_its_checkpoints():
    with pytest.warns(FutureWarning, match="deprecated"):
        t_mod = tnn.utils.weight_norm(tnn.Linear(4, 3))
    with pytest.warns(FutureWarning, match="deprecated"):
        e_mod = ember.nn.utils.weight_norm(ember.nn.Linear(4, 3))
    assert sorted(e_mod.state_dict()) == sorted(t_mod.state_dict())
    load_from(t_mod, e_mod)
    tx, ex = pair(2, 4, dtype=torch.float32)
    t_out, e_out = t_mod(tx), e_mod(ex)
    assert_close(e_out, t_out, rtol=1e-5, atol=1e-6)
    t_out.sum().backward()
    e_out.sum().backward()
    assert_close(e_mod.weight_g.grad, t_mod.weight_g.grad, rtol=1e-5, atol=1e-6)
    # an old-style checkpoint loads into the parametrized version
    new = eparam.weight_norm(ember.nn.Linear(4, 3))
    new.load_state_dict(e_mod.state_dict())
    assert_close(new(ex), t_out, rtol=1e-5, atol=1e-6)
    ember.nn.utils.remove_weight_norm(e_mod)
    assert sorted(n for n, _ in e_mod.named_parameters()) == ["bias", "weight"]


@pytest.mark.parametrize("make, shape", [
    (lambda nn: nn.Linear(5, 4, dtype=torch.float64 if nn is tnn else ember.float64), (2, 5)),
    (lambda nn: nn.ConvTranspose2d(3, 2, 3, dtype=torch.float64 if nn is tnn else
                                   ember.float64), (1, 3, 4, 4)),
])
def test_spectral_norm(make, shape):
    t_mod = tnn.utils.parametrizations.spectral_norm(make(tnn), n_power_iterations=2)
    e_mod = eparam.spectral_norm(make(ember.nn), n_power_iterations=2)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    load_from(t_mod, e_mod)
    for training in (True, True, False):
        t_mod.train(training)
        e_mod.train(training)
        tx, ex = pair(*shape, dtype=torch.float64)
        t_out, e_out = t_mod(tx), e_mod(ex)
        assert_close(e_out, t_out)
        t_out.sum().backward()
        e_out.sum().backward()
        original = "parametrizations.weight.original"
        assert_close(dict(e_mod.named_parameters())[original].grad,
                     dict(t_mod.named_parameters())[original].grad)
        for name, b in t_mod.named_buffers():
            assert_close(dict(e_mod.named_buffers())[name], b)


def test_register_parametrization_chain_cached_and_assignment():
    class Symmetric(ember.nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(-1, -2)

        def right_inverse(self, a):
            return a.triu()

    class Scale(ember.nn.Module):
        def forward(self, x):
            return 2 * x

        def right_inverse(self, a):
            return a / 2

    layer = ember.nn.Linear(3, 3)
    eparametrize.register_parametrization(layer, "weight", Symmetric())
    eparametrize.register_parametrization(layer, "weight", Scale())
    assert eparametrize.is_parametrized(layer, "weight")
    w = layer.weight
    assert bool((w == w.t()).all())
    target = ember.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 5.0], [3.0, 5.0, 6.0]])
    layer.weight = target            # right_inverse through the chain
    assert bool((layer.weight == target).all())
    with eparametrize.cached():
        assert layer.weight is layer.weight
    assert eparametrize.type_before_parametrizations(layer) is ember.nn.Linear
    with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
        eparametrize.register_parametrization(layer, "nope", Scale())
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules"):
        layer.__getstate__()


def test_old_spectral_norm():
    def make(nn, dt):
        return nn.Conv2d(3, 4, 3, dtype=dt)
    t_mod = tnn.utils.spectral_norm(make(tnn, torch.float64), n_power_iterations=2)
    e_mod = ember.nn.utils.spectral_norm(make(ember.nn, ember.float64), n_power_iterations=2)
    assert sorted(e_mod.state_dict()) == sorted(t_mod.state_dict())
    load_from(t_mod, e_mod)
    for training in (True, True, False):
        t_mod.train(training)
        e_mod.train(training)
        tx, ex = pair(1, 3, 5, 5, dtype=torch.float64)
        t_out, e_out = t_mod(tx), e_mod(ex)
        assert_close(e_out, t_out)
        t_out.sum().backward()
        e_out.sum().backward()
        assert_close(e_mod.weight_orig.grad, t_mod.weight_orig.grad)
        assert_close(e_mod.weight_u, t_mod.weight_u)
    ember.nn.utils.remove_spectral_norm(e_mod)
    tnn.utils.remove_spectral_norm(t_mod)
    assert sorted(e_mod.state_dict()) == sorted(t_mod.state_dict())
    assert_close(e_mod.weight, t_mod.weight)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        ember.nn.utils.remove_spectral_norm(e_mod)


def test_fusion_and_skip_init():
    t_conv, t_bn = tnn.Conv2d(3, 4, 3), tnn.BatchNorm2d(4)
    t_bn.running_mean.uniform_(-1, 1)
    t_bn.running_var.uniform_(0.5, 2)
    t_bn.weight.data.uniform_(0.5, 2)
    e_conv, e_bn = ember.nn.Conv2d(3, 4, 3), ember.nn.BatchNorm2d(4)
    load_from(t_conv, e_conv)
    load_from(t_bn, e_bn)
    for m in (t_conv, t_bn, e_conv, e_bn):
        m.eval()
    t_fused = tnn.utils.fuse_conv_bn_eval(t_conv, t_bn)
    e_fused = ember.nn.utils.fuse_conv_bn_eval(e_conv, e_bn)
    assert_close(e_fused.weight, t_fused.weight, rtol=1e-6, atol=1e-6)
    assert_close(e_fused.bias, t_fused.bias, rtol=1e-6, atol=1e-6)
    assert isinstance(e_fused.weight, ember.nn.Parameter)
    t_lin, t_bn1 = tnn.Linear(3, 4).eval(), tnn.BatchNorm1d(4).eval()
    e_lin, e_bn1 = ember.nn.Linear(3, 4).eval(), ember.nn.BatchNorm1d(4).eval()
    load_from(t_lin, e_lin)
    load_from(t_bn1, e_bn1)
    t_fused = tnn.utils.fuse_linear_bn_eval(t_lin, t_bn1)
    e_fused = ember.nn.utils.fuse_linear_bn_eval(e_lin, e_bn1)
    assert_close(e_fused.weight, t_fused.weight, rtol=1e-6, atol=1e-6)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        ember.nn.utils.fuse_conv_bn_eval(e_conv.train(), e_bn)
    skipped = ember.nn.utils.skip_init(ember.nn.Linear, 5, 2)
    assert tuple(skipped.weight.shape) == (2, 5) and skipped.weight.device.type == "cpu"
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
        ember.nn.utils.skip_init(ember.nn.ReLU)
