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
