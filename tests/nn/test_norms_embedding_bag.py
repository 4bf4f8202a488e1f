"""InstanceNorm1d/2d/3d, BatchNorm3d, LocalResponseNorm, RMSNorm, EmbeddingBag and the
extra dropouts against torch: outputs, running statistics, gradients, repr, errors."""
import warnings

import pytest
from nn_compare import assert_close, pair, to_ember

import ember
import ember.nn.functional as EF

torch = pytest.importorskip("torch")
tnn = torch.nn
TF = torch.nn.functional

TOL = {torch.float64: {"rtol": 1e-7, "atol": 1e-9}, torch.float32: {"rtol": 2e-5, "atol": 2e-5}}
EDTYPE = {torch.float64: ember.float64, torch.float32: ember.float32}
DTYPES = [torch.float64, torch.float32]


def twins(make, dtype):
    torch.manual_seed(0)
    t_mod = make(tnn, dtype)
    e_mod = make(ember.nn, EDTYPE[dtype])
    e_mod.load_state_dict({k: to_ember(v, requires_grad=False)
                           for k, v in t_mod.state_dict().items()})
    return t_mod, e_mod


def check_module(t_mod, e_mod, shape, dtype, steps=2):
    """A few forwards (training, then eval) agree on outputs, gradients and buffers."""
    for step in range(steps + 1):
        if step == steps:
            t_mod.eval()
            e_mod.eval()
        tx, ex = pair(*shape, dtype=dtype, seed=step)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_out, e_out = t_mod(tx), e_mod(ex)
        assert_close(e_out, t_out, **TOL[dtype])
        grad = torch.randn(t_out.shape, generator=torch.Generator().manual_seed(9), dtype=dtype)
        t_out.backward(grad)
        e_out.backward(to_ember(grad))
        assert_close(ex.grad, tx.grad, **TOL[dtype])
    e_params = dict(e_mod.named_parameters())
    for name, p in t_mod.named_parameters():
        assert_close(e_params[name].grad, p.grad, **TOL[dtype])
    e_buffers = dict(e_mod.named_buffers())
    for name, b in t_mod.named_buffers():
        assert_close(e_buffers[name], b, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cls_name, kwargs, shape", [
    ("InstanceNorm1d", {}, (2, 3, 5)),
    ("InstanceNorm1d", {"affine": True, "track_running_stats": True}, (3, 6)),
    ("InstanceNorm2d", {"affine": True}, (2, 3, 4, 5)),
    ("InstanceNorm2d", {"track_running_stats": True, "momentum": None}, (2, 3, 4, 5)),
    ("InstanceNorm3d", {"affine": True, "track_running_stats": True}, (2, 3, 2, 3, 4)),
    ("BatchNorm3d", {}, (2, 3, 2, 3, 4)),
    ("LocalResponseNorm", {}, (2, 5, 7)),
    ("RMSNorm", {}, (2, 3, 4)),
])
def test_norm_modules(cls_name, kwargs, shape, dtype):
    def make(nn, dt):
        if cls_name == "LocalResponseNorm":
            return nn.LocalResponseNorm(3, alpha=0.1, beta=0.6, k=2.0)
        if cls_name == "RMSNorm":
            return nn.RMSNorm((3, 4), dtype=dt)
        return getattr(nn, cls_name)(3, dtype=dt, **kwargs)
    t_mod, e_mod = twins(make, dtype)
    assert repr(e_mod) == repr(t_mod)
    check_module(t_mod, e_mod, shape, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, size", [((2, 5, 7), 2), ((2, 6, 3, 4), 3), ((1, 4, 2, 2, 3), 5)])
def test_local_response_norm(shape, size, dtype):
    tx, ex = pair(*shape, dtype=dtype)
    t_out, e_out = TF.local_response_norm(tx, size), EF.local_response_norm(ex, size)
    assert_close(e_out, t_out, **TOL[dtype])
    t_out.sum().backward()
    e_out.sum().backward()
    assert_close(ex.grad, tx.grad, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("eps", [None, 1e-3])
def test_rms_norm(eps, dtype):
    tx, ex = pair(3, 4, 5, dtype=dtype)
    tw, ew = pair(4, 5, dtype=dtype, seed=1)
    t_out = TF.rms_norm(tx, (4, 5), tw, eps)
    e_out = EF.rms_norm(ex, (4, 5), ew, eps)
    assert_close(e_out, t_out, **TOL[dtype])
    t_out.sum().backward()
    e_out.sum().backward()
    assert_close(ex.grad, tx.grad, **TOL[dtype])
    assert_close(ew.grad, tw.grad, **TOL[dtype])


@pytest.mark.parametrize("call", [
    lambda F, T: F.rms_norm(T.zeros(2, 3), (4,)),
    lambda F, T: F.local_response_norm(T.zeros(2, 3), 2),
    lambda F, T: F.instance_norm(T.zeros(2, 3, 1)),
    lambda F, T: T.nn.InstanceNorm2d(3)(T.zeros(2, 3)),
    lambda F, T: T.nn.InstanceNorm1d(4, affine=True)(T.zeros(2, 3, 4)),
    lambda F, T: T.nn.BatchNorm3d(3)(T.zeros(2, 3, 4)),
    lambda F, T: F.embedding_bag(T.zeros(2, 3, dtype=T.int64), T.zeros(4, 2),
                                 T.tensor([0])),
    lambda F, T: F.embedding_bag(T.zeros(3, dtype=T.int64), T.zeros(4, 2)),
    lambda F, T: F.embedding_bag(T.zeros(3, dtype=T.int64), T.zeros(4, 2), T.tensor([0]),
                                 mode="median"),
    lambda F, T: F.embedding_bag(T.zeros(3, dtype=T.int64), T.zeros(4, 2), T.tensor([0]),
                                 per_sample_weights=T.ones(3)),
    lambda F, T: F.embedding_bag(T.zeros(3, dtype=T.int64), T.zeros(4, 2), T.tensor([0]),
                                 per_sample_weights=T.ones(2), mode="sum"),
])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as t_err:
        call(TF, torch)
    with pytest.raises(type(t_err.value)) as e_err:
        call(EF, ember)
    assert str(e_err.value).replace("ember.", "torch.") == str(t_err.value)


def test_instance_norm_warns_on_channel_mismatch():
    with pytest.warns(UserWarning, match="does not match num_features"):
        ember.nn.InstanceNorm1d(4)(ember.zeros(2, 3, 5))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4])
@pytest.mark.parametrize("layout", ["offsets", "last_offset", "2d"])
def test_embedding_bag(mode, padding_idx, layout, dtype):
    t_mod, e_mod = twins(lambda nn, dt: nn.EmbeddingBag(
        10, 3, mode=mode, padding_idx=padding_idx, include_last_offset=layout == "last_offset",
        dtype=dt), dtype)
    assert repr(e_mod) == repr(t_mod)
    indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 4])
    args = {"offsets": (indices, torch.tensor([0, 4, 4, 7])),
            "last_offset": (indices, torch.tensor([0, 4, 4, 7, 10])),
            "2d": (indices.view(2, 5), None)}[layout]
    t_out = t_mod(*args)
    e_out = e_mod(*(None if a is None else to_ember(a) for a in args))
    assert_close(e_out, t_out, **TOL[dtype])
    grad = torch.randn(t_out.shape, generator=torch.Generator().manual_seed(1), dtype=dtype)
    t_out.backward(grad)
    e_out.backward(to_ember(grad))
    assert_close(e_mod.weight.grad, t_mod.weight.grad, **TOL[dtype])


def test_embedding_bag_per_sample_weights_and_max_norm():
    t_mod, e_mod = twins(lambda nn, dt: nn.EmbeddingBag(10, 3, mode="sum", max_norm=1.0,
                                                        dtype=dt), torch.float64)
    indices, offsets = torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2])
    tw, ew = pair(6, dtype=torch.float64, seed=4)
    t_out = t_mod(indices, offsets, per_sample_weights=tw)
    e_out = e_mod(to_ember(indices), to_ember(offsets), per_sample_weights=ew)
    assert_close(e_out, t_out)
    assert_close(e_mod.weight, t_mod.weight)   # the renormalised rows
    t_out.sum().backward()
    e_out.sum().backward()
    assert_close(ew.grad, tw.grad)
    assert_close(e_mod.weight.grad, t_mod.weight.grad)


def test_extra_dropouts():
    for cls_name, shape in (("Dropout3d", (2, 3, 2, 2, 2)), ("AlphaDropout", (50,)),
                            ("FeatureAlphaDropout", (2, 3, 4))):
        t_mod, e_mod = getattr(tnn, cls_name)(0.3), getattr(ember.nn, cls_name)(0.3)
        assert repr(e_mod) == repr(t_mod)
        x = ember.randn(*shape)
        y = e_mod(x)
        assert tuple(y.shape) == shape
        e_mod.eval()
        assert bool((e_mod(x) == x).all())
    x = ember.ones(3, 2, 2, 2)   # unbatched: whole channels zeroed together
    y = EF.dropout3d(x, 0.5)
    per_channel = y.reshape(3, -1)
    assert bool(((per_channel == 0).all(1) | (per_channel == 2).all(1)).all())


def test_sync_batch_norm_and_nll_loss_2d():
    t_net = tnn.Sequential(tnn.Conv2d(2, 3, 1), tnn.BatchNorm2d(3), tnn.ReLU())
    e_net = ember.nn.Sequential(ember.nn.Conv2d(2, 3, 1), ember.nn.BatchNorm2d(3),
                                ember.nn.ReLU())
    t_net = tnn.SyncBatchNorm.convert_sync_batchnorm(t_net)
    e_net = ember.nn.SyncBatchNorm.convert_sync_batchnorm(e_net)
    assert repr(e_net) == repr(t_net)
    load_state = {k: to_ember(v, requires_grad=False) for k, v in t_net.state_dict().items()}
    e_net.load_state_dict(load_state)
    check_module(t_net, e_net, (4, 2, 3, 3), torch.float32)
    with pytest.raises(ValueError, match="expected at least 2D input"):
        ember.nn.SyncBatchNorm(3)(ember.zeros(3))
    with pytest.warns(FutureWarning, match="NLLLoss2d"):
        loss = ember.nn.NLLLoss2d()
    assert isinstance(loss, ember.nn.NLLLoss)
