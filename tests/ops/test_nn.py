"""The nn family (issue 4) beyond the OpInfo suite: gradients of its
CompositeImplicitAutograd ops (no Autograd kernel of their own, so test_op_gradients does
not see them) against torch, with gradcheck and gradgradcheck; batch norm's in-place
running statistics.

    .venv/bin/python -m pytest tests/ops/test_nn.py -q
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import builtin_type, ember_of, torch_of

import ember

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autograd"))
import test_op_gradients as G

COMPOSITES = ["outer.default", "ger.default", "einsum.default", "softmax.int", "log_softmax.int",
              "nll_loss.default", "nll_loss_nd.default", "nll_loss2d.default",
              "cross_entropy_loss.default",
              "mse_loss.default", "l1_loss.default", "binary_cross_entropy_with_logits.default",
              "layer_norm.default", "batch_norm.default",
              "scaled_dot_product_attention.default"]
# (op, sample): torch's own backward fails (it broadcasts the gradient into self's shape)
TORCH_BACKWARD_BROKEN = {("mse_loss.default", "broadcast_self"),
                         ("binary_cross_entropy_with_logits.default", "broadcast_self")}
CASES = [pytest.param(name, case, id=f"{name}-{case.sample.name or i}")
         for name in COMPOSITES for i, case in enumerate(G.gradient_cases(name))
         if (name, case.sample.name) not in TORCH_BACKWARD_BROKEN]


@pytest.mark.parametrize("name,case", CASES)
def test_composite_gradients(name, case):
    """Gradients vs torch's, then gradcheck and gradgradcheck in float64 (the composite's
    ops give the backward and the double backward)."""
    G.test_op_gradients(name, case)


def test_every_composite_is_gradchecked():
    for name in COMPOSITES:
        assert any(G.gradcheckable(c) for c in G.gradient_cases(name)), name


# --------------------------------------------------------------------------- batch norm
@pytest.mark.parametrize("shape,momentum", [((4, 3), 0.1), ((2, 3, 5), 0.5), ((2, 3, 2, 2), 1.0)])
def test_batch_norm_updates_running_stats_in_place(shape, momentum):
    """Training updates running_mean/var in place like torch (unbiased variance)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    rm, rv = rng.standard_normal(3).astype(np.float32), rng.uniform(0.5, 2, 3).astype(np.float32)
    e_rm, e_rv, t_rm, t_rv = ember_of(rm), ember_of(rv), torch_of(rm), torch_of(rv)
    e = ember.native_batch_norm(ember_of(x), None, None, e_rm, e_rv, True, momentum, 1e-5)
    t = torch.ops.aten.native_batch_norm(torch_of(x), None, None, t_rm, t_rv, True, momentum,
                                         1e-5)
    for a, b in [(e_rm, t_rm), (e_rv, t_rv), *zip(e, t)]:
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    ember.batch_norm(ember_of(x), None, None, e_rm, e_rv, True, momentum, 1e-5, False)
    torch.batch_norm(torch_of(x), None, None, t_rm, t_rv, True, momentum, 1e-5, False)
    np.testing.assert_allclose(e_rv.numpy(), t_rv.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype,shape,layout", [
    ("float32", (4, 8, 5, 3), "contiguous"), ("float32", (4, 8, 5, 3), "channels_last"),
    ("float32", (3, 4, 2, 3, 2), "contiguous"), ("float32", (6, 5), "contiguous"),
    ("float32", (2, 3, 7, 1), "transposed"), ("float16", (4, 3, 4, 4), "contiguous"),
    ("bfloat16", (4, 3, 4, 4), "channels_last")])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_kernels_match_torch(dtype, shape, layout, training):
    """native_batch_norm and its backward (the compiled per-channel loops; on (N*H*W, C)
    rows for channels_last) against torch's kernels in float32 and the half types (float32
    parameters), contiguous, channels_last and strided inputs: values, saved statistics,
    running statistics, dtypes, strides, with and without grad_input."""
    rng = np.random.default_rng(2)
    x, g = (rng.standard_normal(shape).astype(np.float32) * 3 + 1 for _ in range(2))
    c = shape[1]
    pdt = "float32" if dtype != "float32" else dtype
    w, b, rm = (rng.standard_normal(c).astype(np.float32) for _ in range(3))
    rv = rng.uniform(0.5, 2, c).astype(np.float32)

    def run(lib, of):
        def t(a, dt):
            return of(a).to(getattr(lib, dt))
        xt, gt = t(x, dtype), t(g, dtype)
        if layout == "channels_last":
            xt, gt = (a.contiguous(memory_format=lib.channels_last) for a in (xt, gt))
        elif layout == "transposed":
            xt = xt.transpose(0, 2).contiguous().transpose(0, 2)
        params = [t(a, pdt) for a in (w, b, rm, rv)]
        out = lib.ops.aten.native_batch_norm(xt, *params, training, 0.2, 1e-4)
        grads = lib.ops.aten.native_batch_norm_backward(
            gt, xt, params[0], params[2], params[3], out[1], out[2], training, 1e-4,
            [True, True, True])
        _, *param_grads = lib.ops.aten.native_batch_norm_backward(  # (no grad_input)
            gt, xt, params[0], params[2], params[3], out[1], out[2], training, 1e-4,
            [False, True, True])
        return [*out, params[2], params[3], *grads, *param_grads]

    tol = 1e-5 if dtype == "float32" else 2e-2
    for e, t in zip(run(ember, ember_of), run(torch, torch_of), strict=True):
        assert str(e.dtype) == str(t.dtype).replace("torch", "ember")
        assert e.shape == tuple(t.shape) and e.stride() == t.stride()
        np.testing.assert_allclose(e.float().numpy(), t.float().numpy(), rtol=tol, atol=tol)


def test_batch_norm_refuses_running_stats_requiring_grad():
    x = ember.randn(2, 3, requires_grad=True)
    rm, rv = ember.zeros(3, requires_grad=True), ember.ones(3)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument "
                                           "'running_mean'"):
        ember.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)
    with ember.no_grad():
        ember.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)


@pytest.mark.parametrize("mask", [[True, False, False], [False, True, True], [True, True, False]])
def test_norm_backward_output_mask(mask):
    """Outputs left out by output_mask are None, like torch's."""
    rng = np.random.default_rng(1)
    g, x = (rng.standard_normal((2, 3, 4)).astype(np.float32) for _ in range(2))
    w, b = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    _, m, r = torch.ops.aten.native_layer_norm(torch_of(x), [4], None, None, 1e-5)
    t = torch.ops.aten.native_layer_norm_backward(torch_of(g), torch_of(x), [4], m, r,
                                                  torch_of(w), torch_of(b), mask)
    e = ember.native_layer_norm_backward(ember_of(g), ember_of(x), [4], ember_of(m.numpy()),
                                         ember_of(r.numpy()), ember_of(w), ember_of(b), mask)
    for a, c in zip(e, t):
        assert (a is None) == (c is None)
        if c is not None:
            np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-5, atol=1e-5)
    w3 = rng.standard_normal(3).astype(np.float32)
    sm, si = rng.standard_normal(3).astype(np.float32), rng.uniform(0.5, 2, 3).astype(np.float32)
    t = torch.ops.aten.native_batch_norm_backward(torch_of(g), torch_of(x), torch_of(w3), None,
                                                  None, torch_of(sm), torch_of(si), True, 1e-5,
                                                  mask)
    e = ember.native_batch_norm_backward(ember_of(g), ember_of(x), ember_of(w3), None, None,
                                         ember_of(sm), ember_of(si), True, 1e-5, mask)
    for a, c in zip(e, t):
        assert (a is None) == (c is None)
        if c is not None:
            np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-5, atol=1e-5)


def test_layer_norm_backward_with_mask_is_differentiable():
    """Undefined outputs (output_mask False) do not break the autograd graph, and the
    derivatives of grad_input are right (gradcheck, with mean and rstd as given: torch's
    formula instead differentiates them as the statistics of input, which these are not)."""
    x = ember.randn(2, 3, dtype=ember.float64, requires_grad=True)
    g = ember.randn(2, 3, dtype=ember.float64, requires_grad=True)
    m, r = ember.zeros(2, 1, dtype=ember.float64), ember.ones(2, 1, dtype=ember.float64)

    def grad_input(g, x):
        dx, dw, db = ember.native_layer_norm_backward(g, x, [3], m, r, None, None,
                                                      [True, False, False])
        assert dw is None and db is None
        return dx
    assert ember.autograd.gradcheck(grad_input, (g, x))
    assert ember.autograd.gradgradcheck(grad_input, (g, x))


# --------------------------------------------------------------------------- messages
def _f(*shape, dtype=np.float32, low=-1.0, high=1.0):
    return np.random.default_rng(2).uniform(low, high, shape).astype(dtype)


ERRORS = [  # (id, aten op, args, kwargs)
    ("nll_target_bounds", "nll_loss_forward",
     (_f(3, 4), np.array([0, 4, 1]), None, 1, -100), {}),
    ("nll_target_dtype", "nll_loss_forward",
     (_f(3, 4), np.array([0, 1, 1], np.int32), None, 1, -100), {}),
    ("nll_weight_size", "nll_loss_forward", (_f(3, 4), np.array([0, 1, 1]), _f(3), 1, -100), {}),
    ("nll_nd_batch", "nll_loss_nd", (_f(2, 3, 4), np.array([[0, 1, 2, 0]] * 3)), {}),
    ("bce_range", "binary_cross_entropy", (_f(3, low=1, high=2), _f(3, low=0, high=1)), {}),
    ("bce_target_dtype", "binary_cross_entropy",
     (_f(3, low=0, high=1), _f(3, dtype=np.float64, low=0, high=1)), {}),
    ("ce_smoothing", "cross_entropy_loss", (_f(3, 4), np.array([0, 1, 2])),
     {"label_smoothing": 1.5}),
    ("layer_norm_shape", "native_layer_norm", (_f(2, 3), [4], None, None, 1e-5), {}),
    ("layer_norm_weight", "native_layer_norm", (_f(2, 3), [3], _f(2), None, 1e-5), {}),
    ("layer_norm_mixed", "native_layer_norm", (_f(2, 3), [3], _f(3, dtype=np.float64), None,
                                               1e-5), {}),
    ("batch_norm_stats", "native_batch_norm", (_f(2, 3), None, None, _f(3), None, True, 0.1,
                                               1e-5), {}),
    ("softmax_half_to_float", "_softmax", (_f(2, 3, dtype=np.float16), 1, True), {}),
    ("softmax_backward_shape", "_softmax_backward_data", (_f(2, 3), _f(3, 3), 1, None), {}),
    ("sdpa_causal_mask", "scaled_dot_product_attention", (_f(2, 3), _f(2, 3), _f(2, 3),
                                                          _f(2, 2), 0.0, True), {}),
    ("sdpa_dtype", "scaled_dot_product_attention",
     (_f(2, 3), _f(2, 3, dtype=np.float64), _f(2, 3)), {}),
    ("einsum_size", "einsum", ("ij,jk->ik", [_f(2, 3), _f(2, 3)]), {}),
    ("einsum_output", "einsum", ("ij->ik", [_f(2, 3)]), {}),
    ("dot_dtype", "dot", (_f(3), _f(3, dtype=np.float64)), {}),
    ("mv_size", "mv", (_f(2, 3), _f(4)), {}),
    ("baddbmm_batch", "baddbmm", (_f(2, 3, 5), _f(2, 3, 4), _f(2, 3, 5)), {}),
    ("outer_dim", "outer", (_f(3, 1), _f(2)), {}),
]


def _convert(x, side):
    if isinstance(x, np.ndarray):
        return ember_of(x) if side == "ember" else torch_of(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_convert(v, side) for v in x)
    return x


@pytest.mark.parametrize("op,args,kwargs", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_error_messages_match_torch(op, args, kwargs):
    """The same exception type and message as torch."""
    if op == "_softmax_backward_data":
        args = args[:3] + (ember.float32,)
        t_args = args[:3] + (torch.float32,)
    else:
        t_args = args
    with pytest.raises(Exception) as t_info:
        getattr(torch.ops.aten, op)(*_convert(t_args, "torch"), **kwargs)
    with pytest.raises(Exception) as e_info:
        getattr(ember.ops.aten, op)(*_convert(args, "ember"), **kwargs)
    assert builtin_type(type(e_info.value)) is builtin_type(type(t_info.value))
    t_msg, e_msg = str(t_info.value).split("\n")[0], str(e_info.value).split("\n")[0]
    assert e_msg == t_msg


# --------------------------------------------------------------------------- attention
def test_sdpa_dropout():
    """dropout_p > 0 zeroes attention weights at random and rescales the rest."""
    q = ember.randn(2, 4, 3, requires_grad=True)
    k, v = ember.randn(2, 5, 3), ember.ones(2, 5, 2)
    out = ember.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert out.shape == (2, 4, 2)
    vals = out.detach().numpy()
    assert np.isfinite(vals).all() and not np.allclose(vals, 1.0)   # rows no longer sum to 1
    out.sum().backward()
    assert q.grad.shape == q.shape


def test_sdpa_dropout_gradients():
    """With the dropout mask fixed by the seed, the gradients and second derivatives match
    finite differences (gradcheck, gradgradcheck)."""
    rng = np.random.default_rng(4)
    q, k, v = (ember_of(rng.standard_normal(s)).requires_grad_()
               for s in ((2, 4, 3), (2, 5, 3), (2, 5, 2)))

    def f(q, k, v):
        ember.manual_seed(7)
        return ember.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert not np.allclose(f(q, k, v).detach().numpy(),
                           ember.scaled_dot_product_attention(q, k, v).detach().numpy())
    assert ember.autograd.gradcheck(f, (q, k, v))
    assert ember.autograd.gradgradcheck(f, (q, k, v))


@pytest.mark.parametrize("backend", ["MATH", "FLASH_ATTENTION"])
@pytest.mark.parametrize("case", ["float_mask_row", "bool_mask_row", "all_masked", "nan_query",
                                  "nan_query_masked", "nan_query_causal"])
def test_sdpa_masked_and_nan_rows_like_torch(case, backend):
    """A fully masked query row (a -inf row of a float mask, an all-False row of a bool
    mask, a mask of -inf only) attends to nothing: 0 out and 0 gradients, on both of
    torch's CPU paths. A NaN query row gives NaN (torch's math path and its default flash
    path; with a key length below the SIMD width and no float mask the flash kernel's
    scalar tail drops the NaNs and gives 0, an artifact of the vector width (16 float32
    lanes on AVX-512), which ember does not copy: the keys here are longer)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal(s).astype(np.float32)
               for s in ((2, 2, 5, 8), (2, 2, 64, 8), (2, 2, 64, 8)))
    kw = {}
    if case == "float_mask_row":
        kw["attn_mask"] = np.zeros((5, 64), np.float32)
        kw["attn_mask"][1] = -np.inf
    if case == "bool_mask_row":
        kw["attn_mask"] = rng.random((2, 1, 5, 64)) < 0.7
        kw["attn_mask"][1, 0, 3] = False
    if case == "all_masked":
        kw["attn_mask"] = np.full((5, 64), -np.inf, np.float32)
    if case.startswith("nan_query"):
        q[0, 1, 2] = np.nan
    if case == "nan_query_masked":
        kw["attn_mask"] = np.zeros((5, 64), np.float32)
    if case == "nan_query_causal":
        kw["is_causal"] = True
    tq, tk, tv = (torch.tensor(x, requires_grad=True) for x in (q, k, v))
    eq, ek, ev = (ember.tensor(x, requires_grad=True) for x in (q, k, v))
    with sdpa_kernel(getattr(SDPBackend, backend)):
        t = torch.nn.functional.scaled_dot_product_attention(
            tq, tk, tv, **{n: torch.tensor(x) if isinstance(x, np.ndarray) else x
                           for n, x in kw.items()})
        t.backward(torch.ones_like(t))
    e = ember.nn.functional.scaled_dot_product_attention(
        eq, ek, ev, **{n: ember.tensor(x) if isinstance(x, np.ndarray) else x
                       for n, x in kw.items()})
    e.backward(ember.ones_like(e))
    if case != "nan_query_causal" or backend == "MATH":  # (flash's backward: NaN in v.grad)
        pairs = [(e, t), (eq.grad, tq.grad), (ek.grad, tk.grad), (ev.grad, tv.grad)]
    else:
        pairs = [(e, t), (eq.grad, tq.grad)]
    for a, b in pairs:
        assert a.dtype.name == "float32" and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-5)
    assert np.isnan(e.detach().numpy()).any() == case.startswith("nan_query")


def test_einsum_takes_operands_as_arguments_or_one_list_like_torch():
    a, b = _f(2, 3), _f(3, 4)
    want = torch.einsum("ij,jk->ik", torch.tensor(a), torch.tensor(b)).numpy()
    for got in (ember.einsum("ij,jk->ik", ember.tensor(a), ember.tensor(b)),
                ember.einsum("ij,jk->ik", [ember.tensor(a), ember.tensor(b)]),
                ember.einsum("ij,jk->ik", (ember.tensor(a), ember.tensor(b)))):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    with pytest.raises(TypeError, match="sublist format"):
        ember.einsum(ember.tensor(a), [0, 1])


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
@pytest.mark.parametrize("channels_last", [False, True])
def test_batch_norm_backward_runs_the_kernel_like_torch(training, affine, channels_last):
    """Without create_graph, native_batch_norm's backward is native_batch_norm_backward's
    kernel on the saved statistics (saved as result1/result2, as torch's node does):
    torch's gradients, dtypes, shapes and strides, training and eval, with and without
    weight/bias, channels_last; with create_graph the composite formula still gives
    torch's double backward."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 5, 2))
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    rm, rv = rng.standard_normal(3), rng.random(3) + 0.5
    g = rng.standard_normal(x.shape)

    def run(lib, of, create_graph):
        xt = of(x)
        if channels_last:
            xt = xt.contiguous(memory_format=lib.channels_last)
        xt = xt.requires_grad_()
        wt = of(w).requires_grad_() if affine in ("both", "weight") else None
        bt = of(b).requires_grad_() if affine in ("both", "bias") else None
        y = lib.nn.functional.batch_norm(xt, of(rm), of(rv), wt, bt, training=training)
        leaves = [t for t in (xt, wt, bt) if t is not None]
        assert y.grad_fn._saved_result1.shape == y.grad_fn._saved_result2.shape
        grads = lib.autograd.grad(y, leaves, of(g), create_graph=create_graph)
        if create_graph:
            grads = lib.autograd.grad(sum((gr * gr).sum() for gr in grads), leaves,
                                      allow_unused=True)
        return grads

    for create_graph in (False, True) if training and affine == "both" else (False,):
        for e, t in zip(run(ember, ember_of, create_graph), run(torch, torch_of, create_graph)):
            assert (e is None) == (t is None)
            if t is not None:
                assert e.dtype == ember.float64 and e.shape == tuple(t.shape)
                if not create_graph:
                    assert e.stride() == t.stride()
                np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(),
                                           rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("normalized", [(4,), (3, 4)])
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_layer_norm_backward_runs_the_kernel_like_torch(normalized, affine):
    """Without create_graph, native_layer_norm's backward is native_layer_norm_backward's
    kernel on the saved mean and rstd (result1/result2, as torch's node): torch's
    gradients, dtypes, shapes and strides; with create_graph the composite formula still
    gives torch's double backward."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 3, 4))
    w, b = rng.standard_normal(normalized), rng.standard_normal(normalized)
    g = rng.standard_normal(x.shape)

    def run(lib, of, create_graph):
        xt = of(x).requires_grad_()
        wt = of(w).requires_grad_() if affine in ("both", "weight") else None
        bt = of(b).requires_grad_() if affine in ("both", "bias") else None
        y = lib.nn.functional.layer_norm(xt, normalized, wt, bt)
        leaves = [t for t in (xt, wt, bt) if t is not None]
        assert y.grad_fn._saved_result1.shape == y.grad_fn._saved_result2.shape
        grads = lib.autograd.grad(y, leaves, of(g), create_graph=create_graph)
        if create_graph:
            grads = lib.autograd.grad(sum((gr * gr).sum() for gr in grads), leaves,
                                      allow_unused=True)
        return grads

    for create_graph in (False, True) if affine == "both" else (False,):
        for e, t in zip(run(ember, ember_of, create_graph), run(torch, torch_of, create_graph)):
            assert (e is None) == (t is None)
            if t is None:
                continue
            assert e.dtype == ember.float64 and e.shape == tuple(t.shape)
            if not create_graph:
                assert e.stride() == t.stride()
            np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-9,
                                       atol=1e-10)


# --- softmax's compiled row loops (kernels/cpu/_rows_loop.py) -------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 5, 8, 13, 64, 128, 200])
def test_softmax_rows_like_numpy_and_torch(n, dtype):
    """_softmax and _softmax_backward_data along the last dim (rows of up to 128 through the
    compiled loops, longer ones through NumPy): the bits of the NumPy formula (its pairwise
    row sums), torch's values, dtype, shape and strides; NaN/inf rows; a transposed input."""
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((3, 40, n)) * 4).astype(dtype)
    x[0, 0, 0], x[0, 1, -1], x[0, 2], x[0, 3, 0] = np.nan, np.nan, -np.inf, np.inf
    g = rng.standard_normal(x.shape).astype(dtype)
    with np.errstate(all="ignore"):
        ref = np.exp(x - x.max(-1, keepdims=True))
        ref /= np.add.reduce(ref, axis=-1, keepdims=True)
        gy = g * ref
        ref_backward = gy - ref * np.add.reduce(gy, axis=-1, keepdims=True)
    ex, tx, eg, tg = ember.from_numpy(x), torch.from_numpy(x), ember.from_numpy(g), torch.from_numpy(g)
    with np.errstate(all="ignore"):     # (inf - inf in the inf rows)
        e, t = ember._softmax(ex, -1, False), torch._softmax(tx, -1, False)
        eb = ember.ops.aten._softmax_backward_data(eg, e, -1, e.dtype)
    tb = torch.ops.aten._softmax_backward_data(tg, t, -1, t.dtype)
    for got, want, tref in [(e, ref, t), (eb, ref_backward, tb)]:
        np.testing.assert_array_equal(got.numpy(), want)
        assert (got.dtype.name, got.shape, got.stride()) == (str(tref.dtype)[6:], tuple(tref.shape),
                                                        tref.stride())
        np.testing.assert_allclose(got.numpy(), tref.numpy(), rtol=1e-5, atol=1e-6)
    xt = ember.from_numpy(x).transpose(0, 1)      # not C-contiguous: NumPy's path
    np.testing.assert_allclose(ember._softmax(xt, -1, False).numpy(),
                               torch._softmax(torch.from_numpy(x).transpose(0, 1), -1, False).numpy(),
                               rtol=1e-5, atol=1e-6)
    ea, ta = (m.from_numpy(x[1:]).requires_grad_() for m in (ember, torch))
    (ga,), (gt,) = (m.autograd.grad(m.softmax(a, -1), a, m.from_numpy(g[1:]))
                    for m, a in ((ember, ea), (torch, ta)))
    assert ga.stride() == gt.stride()
    np.testing.assert_allclose(ga.numpy(), gt.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("normalized, affine, layout", [
    ((128,), True, "contiguous"), ((128,), False, "contiguous"), ((4, 16), True, "contiguous"),
    ((7,), True, "transposed"), ((200,), True, "contiguous"), ((1,), False, "contiguous")])
def test_layer_norm_rows_like_numpy_and_torch(normalized, affine, layout, dtype):
    """native_layer_norm and its backward (rows of 2 to 128 through the compiled loops,
    others through NumPy): the bits of the NumPy steps, torch's values, dtypes, shapes and
    strides; a transposed input; the gradients through autograd."""
    rng = np.random.default_rng(len(normalized) * 1000 + normalized[-1])
    shape = (6, 5) + normalized
    x = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
    w, b = (rng.standard_normal(normalized).astype(dtype) for _ in range(2))
    ex, tx = ember.from_numpy(x), torch.from_numpy(x)
    if layout == "transposed":
        ex, tx, x = ex.transpose(0, 1), tx.transpose(0, 1), x.transpose(1, 0, 2)
    params = [(ember.from_numpy(w), ember.from_numpy(b)), (torch.from_numpy(w), torch.from_numpy(b))]
    if not affine:
        params = [(None, None), (None, None)]
    e = ember.native_layer_norm(ex, list(normalized), *params[0], 1e-5)
    t = torch.native_layer_norm(tx, list(normalized), *params[1], 1e-5)
    dims = tuple(range(2, x.ndim))
    mean = x.mean(axis=dims, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(axis=dims, keepdims=True) + 1e-5)
    ref = (x - mean) * rstd * (w if affine else 1) + (b if affine else 0)
    np.testing.assert_array_equal(e[0].numpy(), ref)
    np.testing.assert_array_equal(e[1].numpy(), mean)
    np.testing.assert_array_equal(e[2].numpy(), rstd)
    for got, want in zip(e, t):
        assert (got.dtype.name, got.shape, got.stride()) == \
            (str(want.dtype)[6:], tuple(want.shape), want.stride())
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    g = rng.standard_normal(x.shape).astype(dtype)
    from ember.kernels.cpu.nn import _norm_grads  # the NumPy steps
    mask = [True, affine, affine]
    eb = ember.ops.aten.native_layer_norm_backward(ember.from_numpy(g), ex, list(normalized), e[1], e[2],
                                          *params[0], mask)
    tb = torch.ops.aten.native_layer_norm_backward(torch.from_numpy(g), tx, list(normalized), t[1], t[2],
                                          *params[1], mask)
    refs = _norm_grads(g, x, mean, rstd, w if affine else None, dims, (0, 1))
    for got, want, ref in zip(eb, tb, refs):
        if want is not None:
            np.testing.assert_array_equal(got.numpy(), ref)
            assert (got.shape, got.stride()) == (tuple(want.shape), want.stride())
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)
    ea, ta = (m.from_numpy(x.copy()).requires_grad_() for m in (ember, torch))
    (ga,), (gt,) = (m.autograd.grad(m.nn.functional.layer_norm(a, normalized), a, m.from_numpy(g))
                    for m, a in ((ember, ea), (torch, ta)))
    assert ga.stride() == gt.stride()
    np.testing.assert_allclose(ga.numpy(), gt.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("layout", ["contiguous", "sequence_first", "longer_keys",
                                    "longer_queries", "nan_row"])
def test_flash_attention_loops_match_the_numpy_path(layout, causal, dtype, monkeypatch):
    """Short unmasked attention runs compiled loops (kernels/cpu/_attention_loop.py); the
    NumPy path (taken above _SHORT_ATTENTION elements) gives the same values within float
    rounding, NaN where it has NaN, and the same layouts, forward and backward."""
    from ember.kernels.cpu import nn as cpu_nn
    rng = np.random.default_rng(5)
    n, m = {"longer_keys": (3, 7), "longer_queries": (7, 3)}.get(layout, (5, 5))
    q, g = (rng.standard_normal((2, 3, n, 4)).astype(dtype) for _ in range(2))
    k, v = (rng.standard_normal((2, 3, m, 4)).astype(dtype) for _ in range(2))
    if layout == "nan_row":
        q[1, 2, 3, 0] = np.nan
    query = ember_of(q)
    if layout == "sequence_first":  # (multi_head_attention_forward's query)
        query = ember_of(np.ascontiguousarray(q.transpose(2, 0, 1, 3))).permute(1, 2, 0, 3)
    key, value, grad = ember_of(k), ember_of(v), ember_of(g)

    def run():
        out, lse = cpu_nn.flash_attention_cpu(query, key, value, 0.0, causal, None, None)
        grads = cpu_nn.flash_attention_cpu_backward(grad, query, key, value, out, lse, 0.0,
                                                    causal, None, None)
        return (out, lse, *grads)
    loops = run()
    monkeypatch.setattr(cpu_nn, "_SHORT_ATTENTION", 0)
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-12}
    for a, b in zip(loops, run(), strict=True):
        assert a.stride() == b.stride() and a.dtype == b.dtype
        np.testing.assert_allclose(a.numpy(), b.numpy(), **tol)
    assert np.isnan(loops[0].numpy()).any() == (layout == "nan_row")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("params", ["both", "weight", "none"])
def test_layer_norm_last_dim_setup_gives_the_general_bits(params, dtype, monkeypatch):
    """native_layer_norm(_backward) over the last dim of contiguous arrays set up the
    compiled row loops directly; the general setup gives the same bits and layouts."""
    from ember.kernels.cpu import nn as cpu_nn
    rng = np.random.default_rng(6)
    x, g = (ember_of(rng.standard_normal((3, 2, 8)).astype(dtype)) for _ in range(2))
    w = ember_of(rng.standard_normal(8).astype(dtype)) if params != "none" else None
    b = ember_of(rng.standard_normal(8).astype(dtype)) if params == "both" else None
    mask = [True, w is not None, b is not None]

    def run():
        out, mean, rstd = cpu_nn.native_layer_norm(x, [8], w, b, 1e-5)
        return (out, mean, rstd, *cpu_nn.native_layer_norm_backward(g, x, [8], mean, rstd, w, b,
                                                                     mask))
    fast = run()
    monkeypatch.setattr(cpu_nn, "_last_dim_rows", lambda *args: None)
    for a, r in zip(fast, run(), strict=True):
        assert (a is None) == (r is None)
        if a is not None:
            assert a.stride() == r.stride() and a.shape == r.shape and a.dtype == r.dtype
            assert a.numpy().tobytes() == r.numpy().tobytes()
