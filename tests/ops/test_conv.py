"""Behaviour of the conv family beyond the OpInfo samples: convolution_backward's
output_mask (undefined results), higher-order gradients through convolutions, larger
shapes against torch, padding='same' warnings, embedding's scale_grad_by_freq double
backward."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import ember_of, to_np, torch_of

import ember

torch = pytest.importorskip("torch")


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("mask", [[True, False, False], [False, True, False], [False, False, True],
                                  [True, True, False], [False, False, False]])
def test_convolution_backward_output_mask(mask):
    """Results left out by output_mask are None, like torch's undefined tensors."""
    go, x, w = _rand(2, 4, 3, 3), _rand(2, 3, 5, 5, seed=1), _rand(4, 3, 3, 3, seed=2)
    args = (None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, mask)
    e = ember.convolution_backward(ember_of(go), ember_of(x), ember_of(w), *args)
    t = torch.ops.aten.convolution_backward(torch_of(go), torch_of(x), torch_of(w), *args)
    assert [r is None for r in e] == [r is None for r in t]
    for a, b in zip(e, t):
        if b is not None:
            np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-10, atol=1e-10)


def test_convolution_backward_partial_mask_under_autograd():
    """An undefined result of a differentiable multi-output op records no history; the
    double backward through the defined one has torch's values."""
    go, x, w = _rand(1, 2, 2, 2), _rand(1, 2, 3, 3, seed=1), _rand(2, 2, 2, 2, seed=2)
    args = (None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, False, False])
    e_go, t_go = ember_of(go).requires_grad_(), torch_of(go).requires_grad_()
    gi, gw, gb = ember.convolution_backward(e_go, ember_of(x), ember_of(w), *args)
    assert gw is None and gb is None and gi.requires_grad
    t_gi = torch.ops.aten.convolution_backward(t_go, torch_of(x), torch_of(w), *args)[0]
    weight = _rand(*gi.shape, seed=3)
    (g,) = ember.autograd.grad((gi * ember_of(weight)).sum(), e_go)
    (t_g,) = torch.autograd.grad((t_gi * torch_of(weight)).sum(), t_go)
    np.testing.assert_allclose(to_np(g), to_np(t_g), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("transposed", [False, True])
def test_convolution_third_order(transposed):
    """The double backward is made of convolutions: gradgradcheck of the double backward
    (third order) passes too."""
    x = ember_of(_rand(1, 2, 3, 3)).requires_grad_()
    w = ember_of(_rand(2, 2, 2, 2, seed=1)).requires_grad_()

    def f(x, w):
        y = ember.convolution(x, w, None, [1, 1], [1, 1], [1, 1], transposed, [0, 0], 1)
        (gx,) = ember.autograd.grad((y * y).sum(), x, create_graph=True)
        return gx
    assert ember.autograd.gradcheck(f, (x, w))
    assert ember.autograd.gradgradcheck(f, (x, w))


@pytest.mark.parametrize("groups,stride,padding,dilation", [(1, 1, 1, 1), (2, 2, 0, 1),
                                                            (4, 1, 2, 2)])
def test_conv2d_larger_against_torch(groups, stride, padding, dilation):
    x, w, b = _rand(4, 8, 17, 13), _rand(12, 8 // groups, 3, 3, seed=1), _rand(12, seed=2)
    ex, ew, eb = (ember_of(a).requires_grad_() for a in (x, w, b))
    tx, tw, tb = (torch_of(a).requires_grad_() for a in (x, w, b))
    ey = ember.conv2d(ex, ew, eb, stride, padding, dilation, groups)
    ty = torch.conv2d(tx, tw, tb, stride, padding, dilation, groups)
    np.testing.assert_allclose(to_np(ey.detach()), to_np(ty.detach()), rtol=1e-10, atol=1e-10)
    g = _rand(*ty.shape, seed=3)
    e_grads = ember.autograd.grad(ey, (ex, ew, eb), ember_of(g))
    t_grads = torch.autograd.grad(ty, (tx, tw, tb), torch_of(g))
    for e, t in zip(e_grads, t_grads):
        np.testing.assert_allclose(to_np(e), to_np(t), rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize("x_shape,w_shape,groups,stride,padding,dilation", [
    ((2, 6, 1, 1), (16, 6, 3, 3), 1, 1, 1, 1),      # 1x1 maps: only the centre tap is read
    ((2, 6, 2, 2), (16, 3, 3, 3), 2, 2, 1, 1),      # stride 2, grouped
    ((1, 4, 3, 2), (12, 4, 2, 2), 1, 1, 0, 1),      # stride 1, rectangular
    ((2, 4, 3), (20, 2, 3), 2, 1, 2, 2),            # 1-d, dilated
    ((1, 2, 2, 2, 2), (10, 2, 2, 2, 2), 1, 1, 1, 1),  # 3-d
    ((0, 6, 2, 2), (16, 6, 3, 3), 1, 1, 1, 1),      # an empty batch
    ((3, 6, 5, 4), (16, 6, 1, 1), 1, 1, 0, 1),      # pointwise: one matmul, no im2col
    ((3, 6, 5, 4), (16, 3, 1, 1), 2, 2, 0, 1),      # pointwise, strided (odd size), grouped
    ((2, 4, 5, 3, 2), (6, 4, 1, 1, 1), 1, (2, 1, 2), 0, 1),  # pointwise 3-d
    ((0, 6, 3, 3), (4, 6, 1, 1), 1, 2, 0, 1),       # pointwise, an empty batch
    ((2, 6, 3, 3), (4, 6, 1, 1), 1, 1, 1, 1),       # 1x1 with padding: not pointwise
])
def test_conv_backward_few_output_positions(x_shape, w_shape, groups, stride, padding, dilation):
    """Fewer output positions (batch x map) than output channels per group, as in the deep
    layers of ResNet on small images: the forward is one GEMM over the batch, the input
    gradient reads the weight untransposed and the weight gradient comes from transposed
    GEMM operands; torch's values, float32 and float64, with a bias."""
    conv = {3: "conv1d", 4: "conv2d", 5: "conv3d"}[len(x_shape)]
    for np_dt, tol in [(np.float64, 1e-10), (np.float32, 1e-4)]:
        x, w = _rand(*x_shape).astype(np_dt), _rand(*w_shape, seed=1).astype(np_dt)
        b = _rand(w_shape[0], seed=3).astype(np_dt)
        ex, ew, eb = (ember_of(a).requires_grad_() for a in (x, w, b))
        tx, tw, tb = (torch_of(a).requires_grad_() for a in (x, w, b))
        ey = getattr(ember, conv)(ex, ew, eb, stride, padding, dilation, groups)
        ty = getattr(torch, conv)(tx, tw, tb, stride, padding, dilation, groups)
        assert ey.shape == tuple(ty.shape) and ey.stride() == ty.stride()
        np.testing.assert_allclose(to_np(ey.detach()), to_np(ty.detach()), rtol=tol, atol=tol)
        g = _rand(*ty.shape, seed=2).astype(np_dt)
        e_grads = ember.autograd.grad(ey, (ex, ew, eb), ember_of(g))
        t_grads = torch.autograd.grad(ty, (tx, tw, tb), torch_of(g))
        for e, t in zip(e_grads, t_grads):
            assert e.dtype == ember_of(x).dtype and e.shape == tuple(t.shape)
            assert e.stride() == t.stride()
            np.testing.assert_allclose(to_np(e), to_np(t), rtol=tol, atol=tol)


@pytest.mark.parametrize("stride,output_padding,dilation", [(1, 0, 1), (2, 1, 1), (1, 1, 2)])
@pytest.mark.parametrize("channels_last", [False, True])
def test_pointwise_conv_transpose_against_torch(stride, output_padding, dilation, channels_last):
    """A 1x1 transposed convolution (the input gradient's matmul put at the strided
    positions) and its backward: torch's values and strides; gradcheck in float64."""
    x, w, b = _rand(2, 6, 3, 4), _rand(6, 2, 1, 1, seed=1), _rand(4, seed=2)
    g = _rand(2, 4, 3 * stride - stride + 1 + output_padding,
              4 * stride - stride + 1 + output_padding, seed=3)

    def run(lib, of):
        xt = of(x)
        if channels_last:
            xt = xt.contiguous(memory_format=lib.channels_last)
        xt, wt, bt = (a.requires_grad_() for a in (xt, of(w), of(b)))
        y = lib.nn.functional.conv_transpose2d(xt, wt, bt, stride, 0, output_padding, 2,
                                               dilation)
        return [y, *lib.autograd.grad(y, (xt, wt, bt), of(g))]
    for e, t in zip(run(ember, ember_of), run(torch, torch_of), strict=True):
        assert e.shape == tuple(t.shape) and e.stride() == t.stride()
        np.testing.assert_allclose(to_np(e.detach()), to_np(t.detach()), rtol=1e-10, atol=1e-10)
    args = (ember_of(x[:1, :, :2, :3]).requires_grad_(), ember_of(w).requires_grad_())
    assert ember.autograd.gradcheck(
        lambda x, w: ember.conv_transpose2d(x, w, None, stride, 0, output_padding, 2, dilation),
        args)
    assert ember.autograd.gradcheck(lambda x, w: ember.conv2d(x, w.transpose(0, 1), None, 2),
                                    args)


def test_conv_same_even_kernel_warns():
    x, w = ember_of(_rand(1, 2, 5, 5)), ember_of(_rand(3, 2, 2, 2, seed=1))
    with pytest.warns(UserWarning, match="padding='same'"):
        y = ember.conv2d(x, w, padding="same")
    assert tuple(y.shape) == (1, 3, 5, 5)


def test_max_pool2d_backward_scatters_ties_once():
    """Each output sends its gradient to its one argmax (the first maximum)."""
    x = ember.ones(1, 1, 3, 3, requires_grad=True)
    ember.max_pool2d(x, 2, 1).sum().backward()
    tx = torch.ones(1, 1, 3, 3, requires_grad=True)
    torch.nn.functional.max_pool2d(tx, 2, 1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64"])
@pytest.mark.parametrize("channels_last", [False, True])
@pytest.mark.parametrize("kernel,stride,padding,dilation,ceil_mode", [
    (3, 2, 1, 1, False), (2, 1, 1, 2, True), ((2, 3), (1, 2), (1, 0), 1, True)])
@pytest.mark.parametrize("compiled_up_to", [4096, 0])
def test_max_pool2d_special_values_against_torch(dtype, channels_last, kernel, stride, padding,
                                                 dilation, ceil_mode, compiled_up_to,
                                                 monkeypatch):
    """max_pool2d (the compiled loop for small float maps, NumPy slabs for larger ones and
    other dtypes: both paths) and its backward with ties, NaN, -inf windows over padding,
    channels_last: torch's values, indices, strides and input gradient."""
    from ember.kernels.cpu import conv
    monkeypatch.setattr(conv, "_COMPILED_POOL", compiled_up_to)
    rng = np.random.default_rng(4)
    x = rng.integers(-2, 3, (2, 3, 6, 5)).astype(np.float64)
    if dtype.startswith("float"):
        x[0, 0, :3, :3] = -np.inf
        x[0, 1, 1, 1] = x[1, 2, 4, 3] = x[1, 2, 4, 4] = np.nan
    args = (kernel, stride, padding, dilation, ceil_mode)

    def run(lib, of):
        xt = of(x).to(getattr(lib, dtype))
        if channels_last:
            xt = xt.contiguous(memory_format=lib.channels_last)
        out, idx = lib.ops.aten.max_pool2d_with_indices(xt, *args)
        res = [out, idx]
        if dtype != "int64":
            g = of(np.random.default_rng(5).standard_normal(tuple(out.shape))).to(xt.dtype)
            res.append(lib.ops.aten.max_pool2d_with_indices_backward(g, xt, *args, idx))
        return res
    for e, t in zip(run(ember, ember_of), run(torch, torch_of), strict=True):
        assert e.dtype == ember_of(t.numpy()).dtype and e.stride() == t.stride()
        np.testing.assert_allclose(to_np(e.float()), to_np(t.float()), rtol=1e-3, atol=1e-3)


def test_embedding_dense_backward_scale_grad_by_freq_is_differentiable():
    """ember's derivative of embedding_dense_backward divides by the index counts (torch's
    ignores scale_grad_by_freq): gradcheck in grad_output holds."""
    idx = ember.tensor([[1, 2], [1, 1]])
    g = ember_of(_rand(2, 2, 3)).requires_grad_()
    assert ember.autograd.gradcheck(
        lambda g: ember.embedding_dense_backward(g, idx, 5, 2, True), (g,))
    assert ember.autograd.gradgradcheck(
        lambda g: ember.embedding_dense_backward(g, idx, 5, -1, True), (g,))


@pytest.mark.parametrize("n,num_weights,d,padding_idx,scale", [
    (512, 64, 128, -1, False),      # a GPT's token embedding: ~8 repeats of each index
    (40, 3, 32, 1, False),          # many repeats, a padding row
    (200, 1, 40, -1, True),         # one index repeated past the vectorised limit
    (300, 5000, 64, -1, False),     # few repeats
    (50, 10, 8, -1, False),         # short rows (add.at's loop)
    (0, 10, 64, -1, False),         # no indices
])
def test_embedding_dense_backward_sums_rows_like_torch(n, num_weights, d, padding_idx, scale):
    """The row sums of embedding's backward (add_rows_at): torch's values, dtype, shape and
    strides, and exactly np.add.at's (first to last occurrence) in float32 and float64."""
    from ember.kernels.cpu.conv import add_rows_at
    rng = np.random.default_rng(0)
    idx = rng.integers(0, num_weights, n)
    for dt in (np.float32, np.float64):
        g = rng.standard_normal((n, d)).astype(dt)
        e = ember.embedding_dense_backward(ember.from_numpy(g), ember.from_numpy(idx),
                                           num_weights, padding_idx, scale)
        t = torch.ops.aten.embedding_dense_backward(torch.from_numpy(g), torch.from_numpy(idx),
                                                    num_weights, padding_idx, scale)
        assert e.dtype.name == str(t.dtype).removeprefix("torch.")
        assert e.shape == tuple(t.shape) and e.stride() == t.stride()
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-5, atol=1e-5)
        ref, out = np.zeros((num_weights, d), dt), np.zeros((num_weights, d), dt)
        np.add.at(ref, idx, g)
        add_rows_at(out, idx, g)
        np.testing.assert_array_equal(out, ref)


def test_one_hot_infers_classes():
    assert ember.one_hot(ember.tensor([0, 3])).tolist() == [[1, 0, 0, 0], [0, 0, 0, 1]]
