"""Spatial layers against torch: Conv3d, ConvTranspose1d/2d/3d, pooling in 1/2/3 d
(max, average, adaptive, lp), interpolation, pixel shuffle, fold/unfold. Outputs and
gradients from copied weights, float64 and float32."""
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
    """make(nn, dtype) for torch and ember, the ember module holding torch's state."""
    torch.manual_seed(0)
    t_mod = make(tnn, dtype)
    e_mod = make(ember.nn, EDTYPE[dtype])
    e_mod.load_state_dict({k: to_ember(v, requires_grad=False)
                           for k, v in t_mod.state_dict().items()})
    return t_mod, e_mod


def check(t_fn, e_fn, shape, dtype, t_mod=None, e_mod=None, low=None, high=None,
          check_strides=True):
    """Outputs (every tensor of a tuple) and the input's and parameters' gradients agree."""
    tx, ex = pair(*shape, dtype=dtype, low=low, high=high)
    t_out, e_out = t_fn(tx), e_fn(ex)
    t_outs = t_out if isinstance(t_out, tuple) else (t_out,)
    e_outs = e_out if isinstance(e_out, tuple) else (e_out,)
    for t, e in zip(t_outs, e_outs, strict=True):
        assert_close(e, t, **TOL[dtype])
        if check_strides:
            assert tuple(e.stride()) == tuple(t.stride()), (e.stride(), t.stride())
    grad = torch.randn(t_outs[0].shape, generator=torch.Generator().manual_seed(1), dtype=dtype)
    t_outs[0].backward(grad)
    e_outs[0].backward(to_ember(grad))
    assert_close(ex.grad, tx.grad, **TOL[dtype])
    if t_mod is not None:
        e_params = dict(e_mod.named_parameters())
        for name, p in t_mod.named_parameters():
            assert_close(e_params[name].grad, p.grad, **TOL[dtype])


def same_error(t_call, e_call):
    with pytest.raises(Exception) as t_err:
        t_call()
    with pytest.raises(type(t_err.value)) as e_err:
        e_call()
    assert str(e_err.value).replace("ember.", "torch.") == str(t_err.value)


# ---------------------------------------------------------------- convolutions
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cls_name, args, kwargs, shape", [
    ("Conv3d", (3, 4, 2), {"stride": (1, 2, 1), "padding": 1}, (2, 3, 5, 6, 4)),
    ("Conv3d", (4, 4, 3), {"padding": "same", "groups": 2, "bias": False}, (4, 5, 5, 5)),
    ("Conv3d", (2, 4, 3), {"padding": 1, "padding_mode": "circular"}, (1, 2, 4, 4, 4)),
    ("ConvTranspose1d", (4, 6, 3), {"stride": 2, "padding": 1, "output_padding": 1,
                                    "groups": 2, "dilation": 2}, (2, 4, 5)),
    ("ConvTranspose2d", (8, 4, 4), {"stride": 2, "padding": 1, "bias": False}, (2, 8, 5, 5)),
    ("ConvTranspose2d", (3, 4, (3, 2)), {"stride": (2, 1)}, (3, 4, 5)),
    ("ConvTranspose3d", (2, 3, 2), {"stride": 2, "padding": (0, 1, 0)}, (1, 2, 3, 4, 3)),
])
def test_convolutions(cls_name, args, kwargs, shape, dtype):
    t_mod, e_mod = twins(lambda nn, dt: getattr(nn, cls_name)(*args, dtype=dt, **kwargs), dtype)
    assert repr(e_mod) == repr(t_mod)
    assert [(n, tuple(p.shape)) for n, p in e_mod.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t_mod.named_parameters()]
    check(t_mod, e_mod, shape, dtype, t_mod, e_mod)


def test_conv_transpose_output_size_and_errors():
    t_mod, e_mod = twins(lambda nn, dt: nn.ConvTranspose2d(2, 3, 3, stride=2, dtype=dt),
                         torch.float64)
    check(lambda x: t_mod(x, output_size=[12, 11]), lambda x: e_mod(x, output_size=[12, 11]),
          (1, 2, 5, 5), torch.float64, t_mod, e_mod)
    tx, ex = torch.zeros(1, 2, 5, 5), ember.zeros(1, 2, 5, 5)
    same_error(lambda: t_mod(tx, output_size=[20, 11]), lambda: e_mod(ex, output_size=[20, 11]))
    same_error(lambda: t_mod(tx, output_size=[11]), lambda: e_mod(ex, output_size=[11]))
    same_error(lambda: tnn.ConvTranspose2d(2, 3, 3, padding_mode="reflect"),
               lambda: ember.nn.ConvTranspose2d(2, 3, 3, padding_mode="reflect"))
    w = torch.zeros(2, 3, 3, 3)
    same_error(lambda: TF.conv_transpose2d(torch.zeros(2, 2, 2, 3, 3), w),
               lambda: EF.conv_transpose2d(ember.zeros(2, 2, 2, 3, 3), to_ember(w)))
    same_error(lambda: TF.conv_transpose2d(torch.zeros(1, 2, 3, 3), w, stride=2,
                                           output_padding=2),
               lambda: EF.conv_transpose2d(ember.zeros(1, 2, 3, 3), to_ember(w), stride=2,
                                           output_padding=2))
    assert ember.conv_transpose2d is not None and ember.conv3d is not None


# ---------------------------------------------------------------- pooling
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, args, kwargs, shape", [
    ("max_pool1d", (3,), {"stride": 2, "padding": 1, "return_indices": True}, (2, 3, 9)),
    ("max_pool1d", (2,), {"dilation": 2, "ceil_mode": True}, (3, 8)),
    ("max_pool3d", (3,), {"stride": 2, "padding": 1, "return_indices": True}, (2, 2, 5, 6, 7)),
    ("max_pool3d", ((2, 3, 2),), {"stride": (1, 2, 2), "dilation": (2, 1, 1),
                                  "ceil_mode": True, "return_indices": True}, (2, 6, 7, 5)),
    ("avg_pool1d", (3,), {"stride": 2, "padding": 1, "count_include_pad": False}, (2, 3, 8)),
    ("avg_pool1d", (2,), {"ceil_mode": True}, (3, 7)),
    ("avg_pool3d", (3,), {"stride": 2, "padding": 1}, (2, 2, 5, 6, 7)),
    ("avg_pool3d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True,
                          "count_include_pad": False}, (2, 6, 7, 5)),
    ("avg_pool3d", ((2, 2, 3),), {"divisor_override": 5}, (1, 2, 4, 4, 6)),
    ("adaptive_max_pool1d", (4,), {"return_indices": True}, (2, 3, 10)),
    ("adaptive_max_pool2d", ((3, 4),), {"return_indices": True}, (2, 3, 7, 9)),
    ("adaptive_max_pool2d", ((None, 2),), {}, (3, 5, 5)),
    ("adaptive_max_pool3d", (2,), {"return_indices": True}, (1, 2, 5, 3, 7)),
    ("adaptive_avg_pool1d", (3,), {}, (2, 3, 10)),
    ("adaptive_avg_pool3d", ((2, 3, 4),), {}, (2, 2, 5, 7, 9)),
    ("adaptive_avg_pool3d", (1,), {}, (2, 3, 4, 5)),
    ("lp_pool1d", (2.0, 3), {"stride": 2}, (2, 3, 9)),
    ("lp_pool2d", (3.0, 2), {}, (2, 3, 6, 6)),
    ("lp_pool3d", (2.0, 2), {"ceil_mode": True}, (1, 2, 5, 4, 5)),
])
def test_pooling_functions(name, args, kwargs, shape, dtype):
    low = 0.1 if name.startswith("lp_pool") else None
    check(lambda x: getattr(TF, name)(x, *args, **kwargs),
          lambda x: getattr(EF, name)(x, *args, **kwargs), shape, dtype, low=low,
          high=2.0 if low else None)


def test_max_pooling_ties_and_nan_follow_torch():
    """Ties send the gradient to torch's pick (the first maximum); NaN wins a window."""
    t = torch.tensor([[[[[1.0, 1.0], [1.0, 0.0]], [[0.0, 1.0], [float("nan"), 1.0]]]]],
                     dtype=torch.float64, requires_grad=True)
    e = to_ember(t)
    for fn in ("max_pool3d", "adaptive_max_pool3d"):
        arg = (1,) if fn.startswith("adaptive") else ((1, 2, 2),)
        tv, ti = getattr(TF, fn)(t, *arg, return_indices=True)
        ev, ei = getattr(EF, fn)(e, *arg, return_indices=True)
        assert_close(ei, ti)
        assert_close(ev, tv)


@pytest.mark.parametrize("make, shape", [
    (lambda nn: nn.MaxPool1d(3, 2, 1, return_indices=True), (2, 3, 9)),
    (lambda nn: nn.MaxPool3d(2, ceil_mode=True), (1, 2, 5, 5, 5)),
    (lambda nn: nn.AvgPool1d(3, padding=1), (2, 3, 9)),
    (lambda nn: nn.AvgPool3d(2, stride=1, count_include_pad=False), (1, 2, 4, 4, 4)),
    (lambda nn: nn.AdaptiveMaxPool1d(3), (2, 3, 8)),
    (lambda nn: nn.AdaptiveMaxPool2d((2, None), return_indices=True), (2, 3, 8, 5)),
    (lambda nn: nn.AdaptiveMaxPool3d(2), (1, 2, 4, 5, 6)),
    (lambda nn: nn.AdaptiveAvgPool1d(5), (2, 3, 8)),
    (lambda nn: nn.AdaptiveAvgPool3d((1, 2, 3)), (1, 2, 4, 5, 6)),
    (lambda nn: nn.LPPool2d(2, 3, stride=2), (1, 2, 7, 7)),
    (lambda nn: nn.LPPool1d(1.5, 2), (1, 2, 7)),
])
def test_pooling_modules(make, shape):
    t_mod, e_mod = make(tnn), make(ember.nn)
    assert repr(e_mod) == repr(t_mod)
    check(t_mod, e_mod, shape, torch.float64, low=0.1, high=2.0)


@pytest.mark.parametrize("call", [
    lambda F, T: F.max_pool3d(T.zeros(1, 1, 4, 4, 4), 3, padding=2),
    lambda F, T: F.max_pool3d(T.zeros(1, 1, 2, 2, 2), 3),
    lambda F, T: F.max_pool3d(T.zeros(4, 4), 2),
    lambda F, T: F.avg_pool3d(T.zeros(1, 1, 4, 4, 4), 3, padding=2),
    lambda F, T: F.max_pool1d(T.zeros(4), 2),
    lambda F, T: F.avg_pool1d(T.zeros(4), 2),
    lambda F, T: F.adaptive_max_pool2d(T.zeros(4), 2),
    lambda F, T: F.adaptive_max_pool3d(T.zeros(1, 4, 4), 2),
    lambda F, T: F.adaptive_max_pool1d(T.zeros(1, 1, 4), (2, 2)),
    lambda F, T: F.adaptive_avg_pool3d(T.zeros(1, 4, 4), 2),
    lambda F, T: F.adaptive_avg_pool1d(T.zeros(4), 2),
])
def test_pooling_errors_match_torch(call):
    same_error(lambda: call(TF, torch), lambda: call(EF, ember))


# ---------------------------------------------------------------- vision
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, kwargs", [
    ((2, 3, 5), {"scale_factor": 2}),
    ((2, 3, 5), {"size": 7, "mode": "nearest-exact"}),
    ((2, 3, 5, 4), {"size": (7, 3)}),
    ((2, 3, 5, 4), {"scale_factor": 1.7, "mode": "nearest-exact"}),
    ((1, 2, 3, 4, 5), {"scale_factor": (2, 1.5, 0.5)}),
    ((2, 3, 5), {"scale_factor": 2.5, "mode": "linear"}),
    ((2, 3, 5), {"size": 9, "mode": "linear", "align_corners": True}),
    ((2, 3, 5, 4), {"size": (8, 9), "mode": "bilinear"}),
    ((2, 3, 5, 4), {"size": (3, 2), "mode": "bilinear"}),
    ((2, 3, 5, 4), {"scale_factor": 2, "mode": "bilinear", "align_corners": True}),
    ((2, 3, 5, 4), {"scale_factor": (1.6, 2.3), "mode": "bilinear",
                    "recompute_scale_factor": True}),
    ((2, 3, 5, 4), {"size": (8, 9), "mode": "bicubic"}),
    ((2, 3, 5, 6), {"scale_factor": 0.6, "mode": "bicubic", "align_corners": True}),
    ((1, 2, 3, 4, 5), {"size": (5, 6, 2), "mode": "trilinear"}),
    ((1, 2, 3, 4, 5), {"scale_factor": 2, "mode": "trilinear", "align_corners": True}),
    ((2, 3, 5, 7), {"size": (3, 2), "mode": "area"}),
    ((1, 2, 6, 4, 5), {"scale_factor": 0.5, "mode": "area"}),
])
def test_interpolate(shape, kwargs, dtype):
    check(lambda x: TF.interpolate(x, **kwargs), lambda x: EF.interpolate(x, **kwargs), shape,
          dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("shape, kwargs", [
    ((2, 3, 17, 23), {"size": (5, 7)}),
    ((1, 2, 16, 16), {"scale_factor": 0.3}),
    ((1, 2, 30, 31), {"scale_factor": (0.25, 0.7), "recompute_scale_factor": True}),
    ((2, 1, 9, 10), {"size": (13, 4)}),               # one dim up, one down
    ((1, 2, 8, 8), {"size": (8, 3)}),                 # one dim unchanged
    ((1, 1, 5, 6), {"size": (11, 13)}),               # upsampling: plain interpolation
    ((1, 1, 12, 12), {"size": (1, 1)}),
])
def test_interpolate_antialias(shape, kwargs, mode, align_corners, dtype):
    """antialias=True: torch's separable filters (triangle, or Keys cubic with a = -0.5)
    widened by the downscaling factor; values, strides and gradients."""
    kwargs = {**kwargs, "mode": mode, "align_corners": align_corners, "antialias": True}
    check(lambda x: TF.interpolate(x, **kwargs), lambda x: EF.interpolate(x, **kwargs), shape,
          dtype)


@pytest.mark.parametrize("call", [
    lambda F, T: F.interpolate(T.zeros(1, 1, 4), size=3, scale_factor=2),
    lambda F, T: F.interpolate(T.zeros(1, 1, 4)),
    lambda F, T: F.interpolate(T.zeros(1, 1, 4), size=(3, 3)),
    lambda F, T: F.interpolate(T.zeros(1, 1, 4), scale_factor=(2, 2)),
    lambda F, T: F.interpolate(T.zeros(1, 1, 4), size=3, align_corners=True),
    lambda F, T: F.interpolate(T.zeros(1, 1, 4), size=3, mode="bilinear"),
    lambda F, T: F.interpolate(T.zeros(1, 1, 4, 4), size=3, mode="linear"),
    lambda F, T: F.interpolate(T.zeros(1, 1, 4), size=3, mode="linear", antialias=True),
    lambda F, T: F.interpolate(T.zeros(1, 1, 4, 4), size=3, mode="nearest", antialias=True),
    lambda F, T: F.interpolate(T.zeros(1, 1, 4, 4, dtype=T.float16), size=3, mode="bilinear",
                               antialias=True),
    lambda F, T: F.interpolate(T.zeros(1, 1, 4, 4, dtype=T.int64), size=3, mode="bicubic",
                               antialias=True),
    lambda F, T: F.interpolate(T.zeros(4), size=3),
    lambda F, T: F.interpolate(T.zeros(1, 1, 4), size=3, recompute_scale_factor=True),
])
def test_interpolate_errors_match_torch(call):
    same_error(lambda: call(TF, torch), lambda: call(EF, ember))


@pytest.mark.parametrize("make, shape", [
    (lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), (1, 2, 3, 4)),
    (lambda nn: nn.Upsample(size=(5, 6)), (1, 2, 3, 4)),
    (lambda nn: nn.UpsamplingNearest2d(scale_factor=3), (1, 2, 3, 4)),
    (lambda nn: nn.UpsamplingBilinear2d(size=(7, 5)), (1, 2, 3, 4)),
    (lambda nn: nn.PixelShuffle(2), (2, 8, 3, 4)),
    (lambda nn: nn.PixelShuffle(3), (9, 2, 3)),
    (lambda nn: nn.PixelUnshuffle(2), (2, 3, 4, 6)),
    (lambda nn: nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), (2, 3, 5, 6)),
    (lambda nn: nn.Unfold(2), (3, 4, 4)),
    (lambda nn: nn.Fold((5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
     (2, 18, 12)),
    (lambda nn: nn.Fold(4, 2, stride=1), (8, 9)),
])
def test_vision_modules(make, shape):
    t_mod, e_mod = make(tnn), make(ember.nn)
    assert repr(e_mod) == repr(t_mod)
    for dtype in DTYPES:
        check(t_mod, e_mod, shape, dtype)


@pytest.mark.parametrize("call", [
    lambda F, T: F.pixel_shuffle(T.zeros(4, 4), 2),
    lambda F, T: F.pixel_shuffle(T.zeros(5, 4, 4), 2),
    lambda F, T: F.pixel_unshuffle(T.zeros(1, 5, 4), 2),
    lambda F, T: F.unfold(T.zeros(1, 1, 1, 4, 4), 2),
    lambda F, T: F.unfold(T.zeros(1, 1, 2, 2), 3),
    lambda F, T: F.fold(T.zeros(1, 5, 9), 4, 2),
    lambda F, T: F.fold(T.zeros(1, 4, 8), 4, 2),
    lambda F, T: F.fold(T.zeros(4), 4, 2),
])
def test_vision_errors_match_torch(call):
    same_error(lambda: call(TF, torch), lambda: call(EF, ember))


def test_dcgan_generator_step():
    """dcgan's generator pattern: ConvTranspose2d + BatchNorm2d + ReLU/Tanh, BCELoss through
    a discriminator; 5 SGD steps give torch's losses."""
    def make(nn, dt):
        return nn.Sequential(
            nn.ConvTranspose2d(6, 8, 4, 1, 0, bias=False, dtype=dt), nn.BatchNorm2d(8, dtype=dt),
            nn.ReLU(True), nn.ConvTranspose2d(8, 3, 4, 2, 1, bias=False, dtype=dt), nn.Tanh(),
            nn.Conv2d(3, 1, 8, 1, 0, bias=False, dtype=dt), nn.Sigmoid(), nn.Flatten(0))
    t_mod, e_mod = twins(make, torch.float32)
    noise = torch.randn(4, 6, 1, 1, generator=torch.Generator().manual_seed(0))
    label = torch.ones(4)
    for _ in range(5):
        losses = []
        for T, mod, conv in ((torch, t_mod, lambda a: a), (ember, e_mod, to_ember)):
            mod.zero_grad()
            loss = T.nn.BCELoss()(mod(conv(noise)), conv(label))
            loss.backward()
            with T.no_grad():
                for p in mod.parameters():
                    p.sub_(0.1 * p.grad)
            losses.append(float(loss.detach()))
        assert abs(losses[0] - losses[1]) <= 1e-5 * abs(losses[0]) + 1e-6


# ---------------------------------------------------------------- padding, unpooling, shuffle
@pytest.mark.parametrize("make, shape", [
    (lambda nn: nn.ZeroPad1d(2), (2, 3, 4)),
    (lambda nn: nn.ZeroPad2d((1, 2, 0, 3)), (2, 3, 4, 5)),
    (lambda nn: nn.ZeroPad3d(1), (1, 2, 3, 3, 3)),
    (lambda nn: nn.ConstantPad1d((1, 0), 2.5), (3, 4)),
    (lambda nn: nn.ConstantPad2d(1, -1.0), (2, 3, 4, 5)),
    (lambda nn: nn.ConstantPad3d((1, 0, 0, 1, 1, 1), 0.5), (2, 3, 3, 3)),
    (lambda nn: nn.ReflectionPad1d(2), (2, 3, 4)),
    (lambda nn: nn.ReflectionPad2d((1, 2, 0, 3)), (2, 3, 4, 5)),
    (lambda nn: nn.ReflectionPad3d(1), (1, 2, 3, 3, 3)),
    (lambda nn: nn.ReplicationPad1d(3), (2, 3, 4)),
    (lambda nn: nn.ReplicationPad2d(2), (3, 4, 5)),
    (lambda nn: nn.ReplicationPad3d((1, 0, 2, 0, 0, 1)), (1, 2, 3, 3, 3)),
    (lambda nn: nn.CircularPad1d(2), (2, 3, 4)),
    (lambda nn: nn.CircularPad2d((1, 0, 2, 1)), (2, 3, 4, 5)),
    (lambda nn: nn.CircularPad3d(1), (1, 2, 3, 3, 3)),
    (lambda nn: nn.ChannelShuffle(3), (2, 6, 2, 2)),
])
def test_padding_and_shuffle_modules(make, shape):
    t_mod, e_mod = make(tnn), make(ember.nn)
    assert repr(e_mod) == repr(t_mod)
    check(t_mod, e_mod, shape, torch.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n, shape, kwargs", [
    (1, (2, 3, 8), {}),
    (2, (2, 3, 6, 7), {"stride": 2, "padding": 1}),
    (2, (3, 6, 6), {}),
    (3, (1, 2, 4, 6, 4), {}),
])
def test_max_unpool(n, shape, kwargs, dtype):
    pool, unpool = f"max_pool{n}d", f"max_unpool{n}d"
    kernel = 3 if kwargs else 2
    x = torch.randn(shape, generator=torch.Generator().manual_seed(0), dtype=dtype)
    t_vals, t_idx = getattr(TF, pool)(x, kernel, return_indices=True, **kwargs)
    size = list(x.shape[-n:])
    kwargs = {**kwargs, "output_size": size}
    check(lambda v: getattr(TF, unpool)(v, t_idx, kernel, **kwargs),
          lambda v: getattr(EF, unpool)(v, to_ember(t_idx), kernel, **kwargs),
          tuple(t_vals.shape), dtype)
    t_mod, e_mod = getattr(tnn, f"MaxUnpool{n}d")(2), getattr(ember.nn, f"MaxUnpool{n}d")(2)
    assert repr(e_mod) == repr(t_mod)
    if kernel == 2:
        check(lambda v: t_mod(v, t_idx, output_size=size),
              lambda v: e_mod(v, to_ember(t_idx), output_size=size), tuple(t_vals.shape), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [2, 1, 3.5])
def test_pdist(p, dtype):
    check(lambda x: TF.pdist(x, p), lambda x: EF.pdist(x, p), (5, 3), dtype)


@pytest.mark.parametrize("call", [
    lambda F, T: F.max_unpool2d(T.zeros(1, 1, 2, 2), T.zeros(1, 1, 2, 2, dtype=T.int64), 2,
                                output_size=(9, 9)),
    lambda F, T: F.max_unpool2d(T.zeros(1, 1, 2, 2), T.zeros(1, 1, 2, 2, dtype=T.int64), 2,
                                output_size=(4,)),
    lambda F, T: F.max_unpool2d(T.zeros(1, 1, 2, 2), T.full((1, 1, 2, 2), 7), 2,
                                output_size=(3, 2)),
    lambda F, T: F.channel_shuffle(T.zeros(2, 5, 2), 2),
    lambda F, T: F.channel_shuffle(T.zeros(2, 4), 2),
    lambda F, T: F.pdist(T.zeros(2, 3, 4)),
])
def test_unpool_shuffle_errors_match_torch(call):
    same_error(lambda: call(TF, torch), lambda: call(EF, ember))


# ---------------------------------------------------------------- spatial transformers
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 3, 2, 4, 5), (1, 1, 1, 3)])
def test_affine_grid(size, align_corners):
    shape = (size[0], 2, 3) if len(size) == 4 else (size[0], 3, 4)
    check(lambda t: TF.affine_grid(t, size, align_corners),
          lambda t: EF.affine_grid(t, size, align_corners), shape, torch.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("mode", "shape", "grid_shape"), [
    ("bilinear", (2, 3, 5, 6), (2, 4, 7, 2)), ("nearest", (2, 3, 5, 6), (2, 4, 7, 2)),
    ("bicubic", (2, 3, 5, 6), (2, 4, 7, 2)), ("bicubic", (1, 2, 1, 3), (1, 3, 5, 2)),
    ("bilinear", (2, 3, 4, 5, 6), (2, 3, 2, 5, 3)), ("nearest", (2, 3, 4, 5, 6), (2, 3, 2, 5, 3)),
    ("bilinear", (1, 2, 1, 2, 3), (1, 2, 3, 1, 3))])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample(mode, shape, grid_shape, padding_mode, align_corners, dtype):
    """2-d and volumetric sampling in every mode against torch: values, gradients of the
    input and of the grid (which reaches past the borders)."""
    gen = torch.Generator().manual_seed(0)
    grid = (torch.rand(grid_shape, generator=gen, dtype=dtype) * 3 - 1.5).requires_grad_()
    e_grid = to_ember(grid)
    check(lambda x: TF.grid_sample(x, grid, mode, padding_mode, align_corners),
          lambda x: EF.grid_sample(x, e_grid, mode, padding_mode, align_corners),
          shape, dtype)
    assert_close(e_grid.grad, grid.grad, **TOL[dtype])


@pytest.mark.parametrize(("shape", "grid_shape", "mode"), [
    ((1, 2, 3, 4, 5), (1, 2, 2, 2, 3), "bicubic"), ((1, 2, 3, 4, 5), (1, 2, 2, 3), "bilinear"),
    ((1, 2, 3, 4, 5), (1, 2, 2, 2, 2), "bilinear"), ((1, 2, 3, 4), (1, 2, 2, 3), "bilinear"),
    ((1, 2, 3), (1, 2, 2), "bilinear"), ((1, 2, 3), (1, 2, 1), "bilinear"),
    ((2, 2, 3, 4, 5), (1, 2, 2, 2, 3), "nearest"), ((1, 2, 0, 4, 5), (1, 2, 2, 2, 3), "bilinear"),
    ((1, 2, 3, 4, 5, 6), (1, 2, 2, 2, 2, 4), "bilinear")])
def test_grid_sample_errors(shape, grid_shape, mode):
    same_error(lambda: TF.grid_sample(torch.zeros(shape), torch.zeros(grid_shape), mode,
                                      align_corners=False),
               lambda: EF.grid_sample(ember.zeros(shape), ember.zeros(grid_shape), mode,
                                      align_corners=False))
    same_error(lambda: TF.grid_sample(torch.zeros(2, 1, 3, 3), torch.zeros(2, 2, 2, 2).double(),
                                      align_corners=False),
               lambda: EF.grid_sample(ember.zeros(2, 1, 3, 3), ember.zeros(2, 2, 2, 2).double(),
                                      align_corners=False))


def test_grid_sample_empty_grid():
    for fw, F in ((torch, TF), (ember, EF)):
        out = F.grid_sample(fw.zeros(1, 2, 3, 4, 5), fw.zeros(1, 0, 2, 2, 3), align_corners=True)
        assert tuple(out.shape) == (1, 2, 0, 2, 2)


def test_spatial_transformer_step():
    """The spatial transformer tutorial's pattern: a localisation net predicts theta,
    affine_grid + grid_sample warp the input; gradients reach the localisation net."""
    def make(nn, dt):
        return nn.Linear(12, 6, dtype=dt)
    t_loc, e_loc = twins(make, torch.float64)
    tx, ex = pair(2, 1, 3, 4, dtype=torch.float64)
    outs = []
    for F, loc, x in ((TF, t_loc, tx), (EF, e_loc, ex)):
        theta = loc(x.flatten(1)).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.shape, align_corners=False)
        outs.append(F.grid_sample(x, grid, align_corners=False))
    assert_close(outs[1], outs[0])
    outs[0].sum().backward()
    outs[1].sum().backward()
    assert_close(e_loc.weight.grad, t_loc.weight.grad)
    assert_close(ex.grad, tx.grad)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        EF.affine_grid(ember.zeros(1, 2, 3), (1, 1, 2, 2))


def test_integer_and_half_inputs():
    """Integer pooling truncates like torch's kernels; the adaptive pools and interpolating
    modes without an integer kernel raise instead of answering wrongly; half types are
    resampled in float32."""
    x = torch.randint(-50, 50, (1, 2, 5, 4, 6))
    ex = to_ember(x)
    for fn, args in (("max_pool3d", (2,)), ("avg_pool3d", (3, 2, 1)),
                     ("avg_pool3d", (2,)), ("max_pool3d", (3, 1, 1))):
        assert_close(getattr(EF, fn)(ex, *args), getattr(TF, fn)(x, *args))
    assert_close(EF.avg_pool3d(ex, 2, divisor_override=3),
                 TF.avg_pool3d(x, 2, divisor_override=3))
    for call in (lambda F, T: F.adaptive_max_pool3d(T.ones(1, 2, 2, 2, dtype=T.int64), 1),
                 lambda F, T: F.adaptive_max_pool2d(T.ones(1, 2, 2, dtype=T.int64), 1),
                 lambda F, T: F.adaptive_avg_pool3d(T.ones(1, 4, 4, 4, dtype=T.int64), 2)):
        same_error(lambda c=call: c(TF, torch), lambda c=call: c(EF, ember))
    with pytest.raises(NotImplementedError, match="convert it to float"):
        EF.interpolate(ember.ones(1, 1, 3, 3, dtype=ember.uint8), size=5, mode="bilinear")
    img = torch.randint(0, 255, (1, 1, 3, 3), dtype=torch.uint8)
    assert_close(EF.interpolate(to_ember(img), size=(5, 4)), TF.interpolate(img, size=(5, 4)))
    base = torch.randn(1, 2, 3, 4)
    assert_close(EF.interpolate(to_ember(base).to(ember.bfloat16), scale_factor=2,
                                mode="bilinear"),
                 TF.interpolate(base.to(torch.bfloat16), scale_factor=2, mode="bilinear"),
                 rtol=1e-2, atol=1e-2)
