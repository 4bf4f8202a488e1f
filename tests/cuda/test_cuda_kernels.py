"""CUDA kernels beyond the op samples: reductions large enough for several warps and
grid-stride loops, in both emulator thread orders (a missing barrier shows in one of them),
and autograd through CUDA kernels, against torch's CPU results."""
import numpy as np
import pytest
from cudahelpers import check_cuda
from helpers import pair, torch

import ember
from ember.cuda import _emulator

pytestmark = pytest.mark.usefixtures("cuda")


@pytest.fixture(params=["fwd", "rev"])
def order(request):
    old = _emulator.order[0]
    _emulator.order[0] = request.param
    yield
    _emulator.order[0] = old


@pytest.mark.usefixtures("order")
@pytest.mark.parametrize("shape,dim", [((3, 1000), 1), ((700, 3), 0), ((5, 6, 70), (0, 2)),
                                       ((2000,), None)])
def test_large_reductions_in_both_thread_orders(shape, dim):
    a = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    e, t = pair(a)
    d = e.cuda()
    tol = {"float32": (1e-5, 1e-4)}
    check_cuda(d.sum(dim) if dim is not None else d.sum(),
               t.sum(dim) if dim is not None else t.sum(), tol)
    check_cuda(d.mean(dim) if dim is not None else d.mean(),
               t.mean(dim) if dim is not None else t.mean(), tol)
    check_cuda(d.amax(dim if dim is not None else ()), t.amax(dim if dim is not None else ()))
    if not isinstance(dim, tuple):
        check_cuda(d.argmax(dim), t.argmax(dim))
        check_cuda(d.argmin(dim), t.argmin(dim))


def test_argmax_ties_and_nan_keep_the_first_index():
    e, t = pair(np.array([[1, 3, 3, 0], [np.nan, 2, np.nan, 9]], np.float32))
    check_cuda(e.cuda().argmax(1), t.argmax(1))
    vals, idx = e.cuda().max(1)
    tv, ti = t.max(1)
    check_cuda(vals, tv)
    check_cuda(idx, ti)


def test_half_sum_accumulates_in_float():
    a = np.full(4096, 0.1, np.float16)
    e, t = pair(a)
    check_cuda(e.cuda().sum(), t.sum(), {"float16": (1e-3, 0)})


def test_autograd_through_cuda_kernels():
    a = np.random.default_rng(3).standard_normal((4, 5)).astype(np.float32)
    e, t = pair(a)
    x = e.cuda().requires_grad_(True)
    tx = t.clone().requires_grad_(True)
    y = ((x * 2 + 1).sigmoid() * x.tanh()).relu().sum()
    ty = ((tx * 2 + 1).sigmoid() * tx.tanh()).relu().sum()
    y.backward()
    ty.backward()
    assert x.grad.is_cuda
    check_cuda(x.grad, tx.grad, {"float32": (1e-5, 1e-6)})
    check_cuda(y.detach(), ty.detach(), {"float32": (1e-5, 1e-5)})


def test_exp_mean_backward_on_cuda():
    x = ember.arange(6.).view(2, 3).cuda().requires_grad_(True)
    tx = torch.arange(6.).view(2, 3).requires_grad_(True)
    x.exp().mean().backward()
    tx.exp().mean().backward()
    check_cuda(x.grad, tx.grad, {"float32": (1e-6, 1e-6)})


@pytest.mark.usefixtures("order")
def test_tiled_matmul_with_ragged_tiles_and_strides():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((37, 50)).astype(np.float32), rng.standard_normal((50, 21)).astype(np.float32)
    (ea, ta), (eb, tb) = pair(a), pair(b)
    tol = {"float32": (1e-5, 1e-4)}
    check_cuda(ea.cuda() @ eb.cuda(), ta @ tb, tol)
    check_cuda(eb.cuda().t() @ ea.cuda().t(), tb.t() @ ta.t(), tol)   # transposed operands
    bias, tbias = pair(rng.standard_normal(21).astype(np.float32))
    check_cuda(ember.addmm(bias.cuda(), ea.cuda(), eb.cuda(), beta=0.5, alpha=2),
               torch.addmm(tbias, ta, tb, beta=0.5, alpha=2), tol)
    c, tc = pair(rng.standard_normal((37, 21)).astype(np.float32))
    d = c.cuda()
    assert d.addmm_(ea.cuda(), eb.cuda(), beta=0.5, alpha=2) is d
    check_cuda(d, tc.addmm_(ta, tb, beta=0.5, alpha=2), tol)
    x, tx = pair(rng.standard_normal((3, 17, 9)).astype(np.float32))
    y, ty = pair(rng.standard_normal((3, 9, 18)).astype(np.float32))
    check_cuda(ember.bmm(x.cuda(), y.cuda()), torch.bmm(tx, ty), tol)
    h, th = pair(a.astype(np.float16))
    g, tg = pair(b.astype(np.float16))
    check_cuda(h.cuda() @ g.cuda(), (th.float() @ tg.float()).half(), {"float16": (2e-3, 2e-2)})


@pytest.mark.usefixtures("order")
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_rows_longer_than_a_block(dim):
    a = (np.random.default_rng(2).standard_normal((3, 300)) * 5).astype(np.float32)
    a = a if dim == 1 else a.T.copy()
    e, t = pair(a)
    tol = {"float32": (1e-5, 1e-6)}
    check_cuda(e.cuda().softmax(dim), t.softmax(dim), tol)
    check_cuda(e.cuda().log_softmax(dim), t.log_softmax(dim), {"float32": (1e-5, 1e-5)})


def test_softmax_half_to_float_on_cuda_gives_float32():
    e, t = pair(np.linspace(-3, 3, 12, dtype=np.float16).reshape(3, 4))
    got = ember.ops.aten._softmax.default(e.cuda(), 1, True)
    assert got.dtype is ember.float32
    check_cuda(got, torch.softmax(t.float(), 1), {"float32": (1e-6, 1e-6)})
    with pytest.raises(RuntimeError, match="conversion is supported for Half type only"):
        ember.ops.aten._softmax.default(e.float().cuda(), 1, True)


def test_a_training_step_on_cuda_matches_the_cpu():
    rng = np.random.default_rng(11)
    x, tx = pair(rng.standard_normal((8, 5)).astype(np.float32))
    w, tw = pair(rng.standard_normal((3, 5)).astype(np.float32))
    b, tb = pair(rng.standard_normal(3).astype(np.float32))
    y, ty = pair(np.array([0, 2, 1, 1, 0, 2, 2, 1]))
    dw, db = w.cuda().requires_grad_(True), b.cuda().requires_grad_(True)
    tw.requires_grad_(True)
    tb.requires_grad_(True)
    loss = ember.nn.functional.cross_entropy(ember.nn.functional.linear(x.cuda(), dw, db),
                                             y.cuda())
    tloss = torch.nn.functional.cross_entropy(torch.nn.functional.linear(tx, tw, tb), ty)
    loss.backward()
    tloss.backward()
    tol = {"float32": (1e-5, 1e-6)}
    check_cuda(loss.detach(), tloss.detach(), tol)
    check_cuda(dw.grad, tw.grad, tol)
    check_cuda(db.grad, tb.grad, tol)


def test_nll_loss_target_out_of_range_is_torchs_index_error():
    x = ember.zeros(2, 3, device="cuda")
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        ember.nn.functional.nll_loss(x, ember.tensor([0, 3]).cuda())


@pytest.mark.parametrize("dt", [ember.float32, ember.float64, ember.float16])
def test_philox_uniform_and_normal_statistics(dt):
    ember.cuda.manual_seed(123)
    u = ember.rand(20000, dtype=dt, device="cuda").cpu().numpy().astype(np.float64)
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    z = ember.randn(20000, dtype=dt, device="cuda").cpu().numpy().astype(np.float64)
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03
    x = ember.empty(4000, dtype=dt, device="cuda").uniform_(-2, 3).cpu().numpy()
    assert x.min() >= -2 and x.max() <= 3 and abs(x.astype(np.float64).mean() - 0.5) < 0.1


def test_seeding_makes_draws_repeatable_and_calls_advance_the_generator():
    ember.cuda.manual_seed(7)
    a, b = ember.rand(100, device="cuda").cpu(), ember.rand(100, device="cuda").cpu()
    state = ember.cuda.get_rng_state()
    c = ember.rand(100, device="cuda").cpu()
    ember.cuda.manual_seed(7)
    same = np.testing.assert_array_equal
    same(ember.rand(100, device="cuda").cpu().numpy(), a.numpy())
    assert not np.array_equal(a.numpy(), b.numpy())
    ember.cuda.set_rng_state(state)
    same(ember.rand(100, device="cuda").cpu().numpy(), c.numpy())
    assert ember.cuda.initial_seed() == 7 and state.dtype is ember.uint8 and state.numel() == 16


def test_dropout_and_bernoulli():
    ember.cuda.manual_seed(1)
    x = ember.ones(10000, device="cuda")
    out, mask = ember.ops.aten.native_dropout.default(x, 0.3, True)
    m = mask.cpu().numpy()
    assert mask.dtype is ember.bool and abs(m.mean() - 0.7) < 0.02
    np.testing.assert_allclose(out.cpu().numpy(), np.where(m, 1 / 0.7, 0), rtol=1e-6)
    b = ember.empty(10000, device="cuda").bernoulli_(0.25).cpu().numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.25) < 0.02
    y = ember.nn.functional.dropout(ember.ones(8, device="cuda"), 0.5, training=False)
    assert y.is_cuda and y.cpu().tolist() == [1.0] * 8


def test_a_cpu_generator_is_torchs_error():
    g = ember.Generator().manual_seed(0)
    t = torch.empty(3, device="meta")  # noqa: F841  (torch's CUDA raises the same message)
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but "
                                           "found 'cpu'"):
        ember.empty(3, device="cuda").uniform_(generator=g)


def test_layer_norm_forward_and_backward_on_cuda():
    rng = np.random.default_rng(4)
    x, tx = pair(rng.standard_normal((2, 3, 40)).astype(np.float32))
    w, tw = pair(rng.standard_normal(40).astype(np.float32))
    b, tb = pair(rng.standard_normal(40).astype(np.float32))
    dx, dw, db = (t.cuda().requires_grad_(True) for t in (x, w, b))
    for t in (tx, tw, tb):
        t.requires_grad_(True)
    y = ember.nn.functional.layer_norm(dx, (40,), dw, db)
    ty = torch.nn.functional.layer_norm(tx, (40,), tw, tb)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    tol = {"float32": (1e-4, 1e-4)}
    check_cuda(y.detach(), ty.detach(), tol)
    for got, want in ((dx.grad, tx.grad), (dw.grad, tw.grad), (db.grad, tb.grad)):
        check_cuda(got, want, tol)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("op", ["isnan", "isinf", "isfinite"])
def test_complex_classification_reads_both_parts(op, dtype):
    """A complex element is NaN or infinite where either part is, finite where both are
    (the kernels answered by dtype alone: every complex element finite)."""
    inf, nan = float("inf"), float("nan")
    values = [complex(1, inf), complex(nan, 0), 1 + 1j, complex(-inf, nan), complex(0, nan),
              complex(inf, 2)]
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    x = ember.tensor(values, dtype=getattr(ember, dtype), device="cuda")
    for e, w in ((x, t), (x[::2], t[::2]), (x.reshape(2, 3).t(), t.reshape(2, 3).t())):
        got = getattr(ember, op)(e)
        assert got.device.type == "cuda" and got.dtype == ember.bool
        np.testing.assert_array_equal(got.cpu().numpy(), getattr(torch, op)(w).numpy())
