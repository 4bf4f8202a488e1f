"""CUDA kernel families added after the first landing (batch_norm, cumulative ops, sort/topk,
pooling, ...), against torch's CPU results: values, dtypes, shapes, strides and errors, with
tiny shapes (the emulator is slow) and both emulator thread orders where a kernel
synchronises."""
import numpy as np
import pytest
from cudahelpers import check_cuda
from helpers import pair, torch

import ember
from ember.cuda import _emulator

pytestmark = pytest.mark.usefixtures("cuda")
F, TF = ember.nn.functional, torch.nn.functional


@pytest.fixture(params=["fwd", "rev"])
def order(request):
    old = _emulator.order[0]
    _emulator.order[0] = request.param
    yield
    _emulator.order[0] = old


def _leaf(a):
    """(ember CUDA leaf, torch CPU leaf) requiring grad, from a NumPy array."""
    e, t = pair(a)
    return e.cuda().requires_grad_(True), t.clone().requires_grad_(True)


# --------------------------------------------------------------------------- batch_norm
@pytest.mark.usefixtures("order")
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("channels_last", [False, True])
def test_batch_norm_forward_backward_and_running_stats(training, channels_last):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4, 2, 5)).astype(np.float32)
    lx, ltx = _leaf(a)
    x, tx = lx, ltx
    if channels_last:
        x = lx.contiguous(memory_format=ember.channels_last)
        tx = ltx.contiguous(memory_format=torch.channels_last)
    w, tw = _leaf(rng.standard_normal(4).astype(np.float32))
    b, tb = _leaf(rng.standard_normal(4).astype(np.float32))
    rm, trm = pair(rng.standard_normal(4).astype(np.float32))
    rv, trv = pair(rng.uniform(0.5, 2, 4).astype(np.float32))
    rm, rv = rm.cuda(), rv.cuda()
    y = F.batch_norm(x, rm, rv, w, b, training, 0.3, 1e-3)
    ty = TF.batch_norm(tx, trm, trv, tw, tb, training, 0.3, 1e-3)
    (y * y.detach().exp()).sum().backward()
    (ty * ty.detach().exp()).sum().backward()
    tol = {"float32": (1e-5, 1e-5)}
    check_cuda(y.detach(), ty.detach(), tol)
    check_cuda(rm, trm, tol)
    check_cuda(rv, trv, tol)
    for got, want in ((lx.grad, ltx.grad), (w.grad, tw.grad), (b.grad, tb.grad)):
        check_cuda(got, want, {"float32": (1e-4, 1e-4)})


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_grads_and_float64(training):
    rng = np.random.default_rng(2)
    x, tx = _leaf(rng.standard_normal((5, 3, 4)))
    w, tw = _leaf(rng.standard_normal(3))
    rm, trm = pair(np.zeros(3))
    rv, trv = pair(np.ones(3))
    y = F.batch_norm(x, rm.cuda(), rv.cuda(), w, None, training)
    ty = TF.batch_norm(tx, trm, trv, tw, None, training)
    (y ** 3).sum().backward()
    (ty ** 3).sum().backward()
    tol = {"float64": (1e-10, 1e-10)}
    check_cuda(y.detach(), ty.detach(), tol)
    check_cuda(x.grad, tx.grad, tol)
    check_cuda(w.grad, tw.grad, tol)


def test_batch_norm_half_input_accumulates_in_float():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((4, 2, 3)) * 3 + 100).astype(np.float16)
    e, t = pair(a)
    out, mean, invstd = ember.ops.aten.native_batch_norm.default(
        e.cuda(), None, None, None, None, True, 0.1, 1e-5)
    tout, tmean, tinvstd = torch.ops.aten.native_batch_norm.default(
        t, None, None, None, None, True, 0.1, 1e-5)
    check_cuda(out, tout, {"float16": (1e-2, 1e-2)})
    check_cuda(mean, tmean, {"float16": (1e-3, 1e-3)})
    check_cuda(invstd, tinvstd, {"float16": (1e-2, 1e-3)})


def test_batch_norm_errors_are_torchs():
    x = ember.zeros(2, 3, device="cuda")
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        ember.ops.aten.native_batch_norm.default(x, None, None, None, None, False, 0.1, 1e-5)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        ember.ops.aten.native_batch_norm.default(x.long(), None, None, None, None, True, 0.1,
                                                 1e-5)


def test_group_norm_forward_backward_on_cuda():
    rng = np.random.default_rng(4)
    x, tx = _leaf(rng.standard_normal((2, 6, 5)).astype(np.float32))
    w, tw = _leaf(rng.standard_normal(6).astype(np.float32))
    b, tb = _leaf(rng.standard_normal(6).astype(np.float32))
    y, ty = F.group_norm(x, 3, w, b), TF.group_norm(tx, 3, tw, tb)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    tol = {"float32": (1e-4, 1e-4)}
    check_cuda(y.detach(), ty.detach(), tol)
    for got, want in ((x.grad, tx.grad), (w.grad, tw.grad), (b.grad, tb.grad)):
        check_cuda(got, want, tol)


# --------------------------------------------------------------------------- cumulative ops
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_cumprod_on_strided_inputs(dim):
    a = np.random.default_rng(5).uniform(0.5, 1.5, (4, 3, 5)).astype(np.float32)
    e, t = pair(a)
    d, t = e.cuda().transpose(0, 2), t.transpose(0, 2)   # non-contiguous input
    tol = {"float32": (1e-6, 1e-6)}
    check_cuda(d.cumsum(dim), t.cumsum(dim), tol)
    check_cuda(d.cumprod(dim), t.cumprod(dim), tol)
    check_cuda(ember.cumsum(d, dim, dtype=ember.float64), torch.cumsum(t, dim, dtype=torch.float64))


def test_cumulative_dtypes_and_in_place():
    e, t = pair(np.array([[True, False, True], [True, True, False]]))
    check_cuda(e.cuda().cumsum(1), t.cumsum(1))                 # bool -> int64
    i, ti = pair(np.array([[3, -2, 7], [2**40, 2**40, -1]], np.int64))
    check_cuda(i.cuda().cumprod(1), ti.cumprod(1))
    h, th = pair(np.full(9, 0.1, np.float16))
    check_cuda(h.cuda().cumsum(0), th.cumsum(0))                # accumulates in float
    x, tx = pair(np.arange(12, dtype=np.float32).reshape(3, 4))
    y = x.cuda()
    assert y.cumsum_(0) is y
    check_cuda(y, tx.cumsum_(0))
    s, ts = pair(np.array(5.0, np.float32))
    check_cuda(s.cuda().cumprod(0), ts.cumprod(0))              # 0-d
    with pytest.raises(RuntimeError, match="Bad in-place call"):
        x.cuda().cumsum_(0, dtype=ember.float64)


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_ties_and_nan(op):
    a = np.array([[1, 3, 3, 0, np.nan, 5, np.nan], [2, 2, 1, 1, 4, -1, 4]], np.float32)
    e, t = pair(a)
    for dim in (0, 1):
        vals, idx = getattr(e.cuda(), op)(dim)
        tvals, tidx = getattr(t, op)(dim)
        check_cuda(vals, tvals)
        check_cuda(idx, tidx)
    i, ti = pair(np.array([[4, 1, 4, 9], [0, 0, -3, 2]], np.int16).T.copy().T)
    vals, idx = getattr(i.cuda(), op)(1)
    tvals, tidx = getattr(ti, op)(1)
    check_cuda(vals, tvals)
    check_cuda(idx, tidx)


def test_cumsum_backward_on_cuda():
    a = np.random.default_rng(6).uniform(0.5, 2, (3, 4))
    x, tx = _leaf(a)
    (x.cumsum(1) * x.cummax(0)[0]).sum().backward()
    (tx.cumsum(1) * tx.cummax(0)[0]).sum().backward()
    check_cuda(x.grad, tx.grad, {"float64": (1e-12, 1e-12)})


# --------------------------------------------------------------------------- sort, topk
_SORT_DATA = np.array([[3, np.nan, -0.0, 1, 0.0, 3, -np.inf, np.nan],
                       [2, 2, 2, 1, 1, np.inf, 5, -1]], np.float32)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "bool"])
def test_sort_is_stable_with_nan_last(descending, dtype):
    a = np.nan_to_num(_SORT_DATA, nan=7, posinf=9, neginf=-9) if dtype != "float32" \
        and dtype != "float16" else _SORT_DATA
    e, t = pair(a.astype(dtype))
    for dim in (0, 1):
        v, i = e.cuda().sort(dim, descending)
        tv, ti = t.sort(dim=dim, descending=descending, stable=True)
        check_cuda(v, tv)
        check_cuda(i, ti)
    check_cuda(e.cuda().argsort(1, descending), t.argsort(dim=1, descending=descending, stable=True))


def test_sort_keeps_a_transposed_layout():
    e, t = pair(_SORT_DATA.T.copy())
    v, i = e.cuda().t().sort(1)
    tv, ti = t.t().sort(dim=1, stable=True)
    check_cuda(v, tv)        # strides of the transposed input, like torch
    check_cuda(i, ti)


@pytest.mark.parametrize("largest", [True, False])
def test_topk(largest):
    a = np.random.default_rng(8).permutation(24).reshape(4, 6).astype(np.float32)
    e, t = pair(a)
    for dim, k in ((1, 3), (0, 2), (1, 0), (-1, 6)):
        v, i = e.cuda().topk(k, dim, largest)
        tv, ti = t.topk(k, dim, largest)
        check_cuda(v, tv)
        check_cuda(i, ti)
    s, ts = pair(np.array(2.5, np.float32))
    check_cuda(s.cuda().topk(1)[0], ts.topk(1)[0])
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        e.cuda().topk(7)


def test_sort_and_topk_backward_on_cuda():
    a = np.random.default_rng(9).standard_normal((3, 5))
    x, tx = _leaf(a)
    (x.sort(1)[0] * ember.arange(5.0, dtype=ember.float64).cuda()).sum().backward()
    (tx.sort(1)[0] * torch.arange(5.0, dtype=torch.float64)).sum().backward()
    check_cuda(x.grad, tx.grad)
    y, ty = _leaf(a)
    (y.topk(2, 0)[0] ** 2).sum().backward()
    (ty.topk(2, 0)[0] ** 2).sum().backward()
    check_cuda(y.grad, ty.grad)


def test_scatter_src_and_value():
    e, t = pair(np.zeros((3, 4), np.float32))
    i, ti = pair(np.array([[2, 0, 1, 0], [1, 2, 0, 1]]))
    s, ts = pair(np.arange(8, dtype=np.float32).reshape(2, 4))
    check_cuda(e.cuda().scatter(0, i.cuda(), s.cuda()), t.scatter(0, ti, ts))
    check_cuda(e.cuda().scatter(1, i.cuda()[:, :1], 5.0), t.scatter(1, ti[:, :1], 5.0))
    d = e.cuda()
    assert d.scatter_(0, i.cuda(), s.cuda()) is d
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        e.cuda().scatter(0, i.cuda() + 1, s.cuda())


# --------------------------------------------------------------------------- pooling
_POOLS = [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
          {"kernel_size": (2, 3), "stride": (1, 2), "padding": (1, 0), "ceil_mode": True}]


@pytest.mark.parametrize("kw", _POOLS + [{"kernel_size": 2, "dilation": 2, "padding": 1}])
@pytest.mark.parametrize("channels_last", [False, True])
def test_max_pool2d_forward_backward(kw, channels_last):
    a = np.random.default_rng(10).standard_normal((2, 3, 5, 6)).astype(np.float32)
    a[0, 0, 1, 1] = np.nan
    a[1, 2, :2, :2] = -np.inf
    lx, ltx = _leaf(a)
    x, tx = lx, ltx
    if channels_last:
        x = lx.contiguous(memory_format=ember.channels_last)
        tx = ltx.contiguous(memory_format=torch.channels_last)
    y, i = F.max_pool2d(x, return_indices=True, **kw)
    ty, ti = TF.max_pool2d(tx, return_indices=True, **kw)
    check_cuda(y.detach(), ty.detach())     # channels-last stays channels-last
    check_cuda(i, ti)
    (y * 1.5).sum().backward()
    (ty * 1.5).sum().backward()
    check_cuda(lx.grad, ltx.grad)


def test_max_pool2d_grads_and_other_dtypes():
    a = np.random.default_rng(11).standard_normal((3, 6, 6))
    x, tx = _leaf(a)                                            # 3-d input
    (F.max_pool2d(x, 3, 1) ** 2).sum().backward()               # overlapping windows
    (TF.max_pool2d(tx, 3, 1) ** 2).sum().backward()
    check_cuda(x.grad, tx.grad, {"float64": (1e-12, 1e-12)})
    for dt in ("int32", "float16"):
        e, t = pair((a * 10).astype(dt))
        v, i = ember.ops.aten.max_pool2d_with_indices.default(e.cuda(), [2, 2], [2, 2])
        tv, ti = torch.ops.aten.max_pool2d_with_indices.default(t, [2, 2], [2, 2])
        check_cuda(v, tv)
        check_cuda(i, ti)


@pytest.mark.parametrize("kw", _POOLS + [{"kernel_size": 3, "stride": 2, "padding": 1,
                                               "count_include_pad": False},
                                          {"kernel_size": 2, "divisor_override": 3}])
def test_avg_pool2d_forward_backward(kw):
    a = np.random.default_rng(12).standard_normal((2, 3, 5, 6)).astype(np.float32)
    x, tx = _leaf(a)
    y, ty = F.avg_pool2d(x, **kw), TF.avg_pool2d(tx, **kw)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    tol = {"float32": (1e-5, 1e-6)}
    check_cuda(y.detach(), ty.detach(), tol)
    check_cuda(x.grad, tx.grad, tol)


def test_avg_pool2d_int64_half_and_errors():
    a = np.arange(-20, 28, dtype=np.int64).reshape(1, 3, 4, 4)
    e, t = pair(a)
    check_cuda(F.avg_pool2d(e.cuda(), 3, 1, 1), TF.avg_pool2d(t, 3, 1, 1))   # C++ division
    h, th = pair((a / 7).astype(np.float16))
    check_cuda(F.avg_pool2d(h.cuda(), 2), TF.avg_pool2d(th, 2), {"float16": (1e-3, 1e-3)})
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(h.cuda(), 2, divisor_override=0)
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        F.avg_pool2d(e.int().cuda(), 2)


# --------------------------------------------------------------------------- convolution
_CONVS = [  # (function, input shape, weight shape, keywords)
    ("conv1d", (2, 4, 9), (6, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
    ("conv2d", (2, 3, 6, 5), (4, 3, 3, 2), {"padding": (1, 0), "dilation": (1, 2)}),
    ("conv2d", (1, 4, 5, 5), (4, 1, 3, 3), {"stride": 2, "groups": 4}),
    ("conv3d", (1, 2, 4, 3, 4), (3, 2, 2, 2, 3), {"padding": 1, "stride": (1, 2, 1)}),
    ("conv_transpose1d", (2, 4, 5), (4, 3, 3), {"stride": 2, "output_padding": 1}),
    ("conv_transpose2d", (2, 4, 3, 4), (4, 2, 3, 2),
     {"stride": (2, 1), "padding": 1, "groups": 2, "dilation": (1, 2)}),
]


@pytest.mark.parametrize("fn,xs,ws,kw", _CONVS, ids=[f"{c[0]}-{i}" for i, c in enumerate(_CONVS)])
def test_convolution_forward_backward(fn, xs, ws, kw):
    rng = np.random.default_rng(13)
    x, tx = _leaf(rng.standard_normal(xs))
    w, tw = _leaf(rng.standard_normal(ws))
    out_channels = ws[0] if "transpose" not in fn else ws[1] * kw.get("groups", 1)
    b, tb = _leaf(rng.standard_normal(out_channels))
    y = getattr(F, fn)(x, w, b, **kw)
    ty = getattr(TF, fn)(tx, tw, tb, **kw)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    tol = {"float64": (1e-10, 1e-10)}
    check_cuda(y.detach(), ty.detach(), tol)
    for got, want in ((x.grad, tx.grad), (w.grad, tw.grad), (b.grad, tb.grad)):
        check_cuda(got, want, tol)


def test_conv2d_channels_last_float32_and_errors():
    rng = np.random.default_rng(14)
    x, tx = pair(rng.standard_normal((2, 3, 5, 5)).astype(np.float32))
    w, tw = pair(rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    x, tx = x.cuda().contiguous(memory_format=ember.channels_last), \
        tx.contiguous(memory_format=torch.channels_last)
    check_cuda(F.conv2d(x, w.cuda(), padding=1), TF.conv2d(tx, tw, padding=1),
               {"float32": (1e-5, 1e-5)})
    with pytest.raises(RuntimeError, match="expected input"):
        F.conv2d(x, w.cuda()[:, :2])


# --------------------------------------------------------------------------- logsumexp, norms
@pytest.mark.usefixtures("order")
def test_logsumexp_infinities_nan_and_long_rows():
    a = np.array([[1, 2, 3, 4], [-np.inf] * 4, [np.inf, 1, 2, 3], [np.nan, 1, 2, 3],
                  [1000, 1000, -1000, 0]], np.float32)
    e, t = pair(a)
    tol = {"float32": (1e-6, 1e-6)}
    check_cuda(e.cuda().logsumexp(1), t.logsumexp(1), tol)
    check_cuda(e.cuda().logsumexp((0, 1), keepdim=True), t.logsumexp((0, 1), keepdim=True), tol)
    big, tbig = pair(np.random.default_rng(15).standard_normal((3, 300)).astype(np.float32))
    check_cuda(big.cuda().logsumexp(1), tbig.logsumexp(1), {"float32": (1e-6, 1e-5)})
    i, ti = pair(np.arange(6).reshape(2, 3))
    check_cuda(i.cuda().logsumexp(0), ti.logsumexp(0), tol)           # ints -> float32
    z, tz = pair(np.zeros((2, 0), np.float32))
    check_cuda(z.cuda().logsumexp(1), tz.logsumexp(1))                 # empty: -inf


@pytest.mark.usefixtures("order")
@pytest.mark.parametrize("ord", [2, 1, 0, 3, 0.5, -1, float("inf"), float("-inf")])
def test_vector_norm_orders(ord):
    a = np.random.default_rng(16).standard_normal((4, 70)).astype(np.float32)
    a[0, :3] = 0
    e, t = pair(a)
    tol = {"float32": (2e-6, 1e-6), "float64": (1e-12, 1e-12)}
    check_cuda(ember.linalg.vector_norm(e.cuda(), ord, 1),
               torch.linalg.vector_norm(t, ord, 1), tol)
    check_cuda(ember.linalg.vector_norm(e.cuda(), ord, dtype=ember.float64),
               torch.linalg.vector_norm(t, ord, dtype=torch.float64), tol)


def test_norm_half_errors_and_backward():
    h, th = pair(np.full((2, 500), 0.5, np.float16))
    check_cuda(ember.linalg.vector_norm(h.cuda(), 2, 1), torch.linalg.vector_norm(th, 2, 1))
    with pytest.raises(RuntimeError, match="linalg.vector_norm: Expected a floating point"):
        ember.linalg.vector_norm(ember.ones(3, dtype=ember.int64, device="cuda"))
    x, tx = _leaf(np.random.default_rng(17).standard_normal((3, 4)))
    (x.norm(dim=1) + x.logsumexp(0).sum()).sum().backward()
    (tx.norm(dim=1) + tx.logsumexp(0).sum()).sum().backward()
    check_cuda(x.grad, tx.grad, {"float64": (1e-12, 1e-12)})


# --------------------------------------------------------------------------- masks
def test_nonzero_masked_select_and_masked_scatter():
    a = np.array([[0, 1.5, 0, -2], [3, 0, 0, 4], [0, 0, 0, 0]], np.float32)
    e, t = pair(a)
    check_cuda(e.cuda().nonzero(), t.nonzero())                       # column-major (n, 2)
    check_cuda(ember.zeros(2, 3, device="cuda").nonzero(), torch.zeros(2, 3).nonzero())
    check_cuda(ember.tensor(2.0).cuda().nonzero(), torch.tensor(2.0).nonzero())
    m, tm = pair(np.array([True, False, True, True]))
    check_cuda(e.cuda().masked_select(m.cuda()), t.masked_select(tm))   # mask broadcast
    check_cuda(e.cuda().t().masked_select(e.cuda().t() > 0), t.t().masked_select(t.t() > 0))
    s, ts = pair(np.arange(10, dtype=np.float32))
    check_cuda(e.cuda().masked_scatter(m.cuda(), s.cuda()), t.masked_scatter(tm, ts))
    d = e.cuda().t()                                                   # strided self
    check_cuda(d.masked_scatter_(d < 0.5, s.cuda()), t.t().masked_scatter_(t.t() < 0.5, ts))
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones"):
        e.cuda().masked_scatter_(m.cuda(), s.cuda()[:3])
    with pytest.raises(RuntimeError, match="masked_select: expected BoolTensor for mask"):
        e.cuda().masked_select(e.cuda())


def test_masked_select_backward_on_cuda():
    x, tx = _leaf(np.arange(6.0).reshape(2, 3) - 2)
    (x.masked_select(x.detach() > 0) ** 2).sum().backward()
    (tx.masked_select(tx.detach() > 0) ** 2).sum().backward()
    check_cuda(x.grad, tx.grad)


# --------------------------------------------------------------------------- index, index_put_
def _index_cases(e, t):
    """(ember CUDA, torch) aten index lists (None: a whole dim): adjacent, split, negative,
    broadcast, mask."""
    i, ti = pair(np.array([[0, -1], [2, 1]]))
    j, tj = pair(np.array([1, 0]))
    m, tm = pair(np.array([True, False, True]))
    return [([i.cuda()], [ti]), ([None, i.cuda()], [None, ti]),
            ([i.cuda(), None, j.cuda()], [ti, None, tj]),
            ([m.cuda(), j.cuda()], [tm, tj]), ([None, None, m.cuda()], [None, None, tm])]


def test_advanced_indexing_reads():
    e, t = pair(np.arange(36, dtype=np.float32).reshape(3, 4, 3))
    d, index, tindex = e.cuda(), ember.ops.aten.index.Tensor, torch.ops.aten.index.Tensor
    for ei, ti in _index_cases(e, t):
        check_cuda(index(d, ei), tindex(t, ti))
        check_cuda(index(d.transpose(0, 2), ei), tindex(t.transpose(0, 2), ti))
    check_cuda(d[1:, ember.tensor([2, 0]).cuda()], t[1:, torch.tensor([2, 0])])
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        d[ember.tensor([0, 3]).cuda()]


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "int8", "float16"])
def test_index_put(accumulate, dtype):
    e, t = pair(np.arange(36).reshape(3, 4, 3).astype(dtype))
    for ei, ti in _index_cases(e, t):
        d, tt = e.cuda(), t.clone()
        shape = torch.ops.aten.index.Tensor(tt, ti).shape
        v, tv = pair(np.arange(np.prod(shape)).reshape(shape).astype(dtype))
        assert d.index_put_(ei, v.cuda(), accumulate) is d
        check_cuda(d, torch.ops.aten.index_put_(tt, ti, tv, accumulate))
    # repeated positions add up when accumulating
    d, tt = e.cuda(), t.clone()
    k, tk = pair(np.array([1, 1, 2, 1]))
    v, tv = pair(np.ones((4, 4, 3), dtype))
    check_cuda(d.index_put_((k.cuda(),), v.cuda(), True), tt.index_put_((tk,), tv, True))


def test_index_put_masked_fill_shortcut_errors_and_autograd():
    e, t = pair(np.zeros((2, 3), np.float32))
    m, tm = pair(np.array([[True, False, True], [False, False, True]]))
    check_cuda(e.cuda().index_put_((m.cuda(),), ember.tensor(2.5)),
               t.clone().index_put_((tm,), torch.tensor(2.5)))
    with pytest.raises(RuntimeError, match="Index put requires the source and destination"):
        e.cuda().index_put_((m.cuda(),), ember.ones(3, dtype=ember.float64, device="cuda"))
    x, tx = _leaf(np.random.default_rng(18).uniform(0.5, 2, (3, 4)))
    i, ti = pair(np.array([2, 0, 2]))
    (x[i.cuda()] * x.cumprod(1)[i.cuda()]).sum().backward()   # index backward: index_put_
    (tx[ti] * tx.cumprod(1)[ti]).sum().backward()
    check_cuda(x.grad, tx.grad, {"float64": (1e-12, 1e-12)})


# --------------------------------------------------------------------------- lerp, addcmul, addcdiv
def test_lerp_addcmul_addcdiv():
    rng = np.random.default_rng(19)
    (a, ta), (b, tb), (c, tc) = (pair(rng.standard_normal(s).astype(np.float32))
                                 for s in ((3, 4), (4,), (3, 1)))
    d = [t.cuda() for t in (a, b, c)]
    tol = {"float32": (1e-6, 1e-6)}
    for w in (0.3, 0.75, -2.0):
        check_cuda(ember.lerp(d[0], d[1], w), torch.lerp(ta, tb, w), tol)
    check_cuda(ember.lerp(d[0], d[1], d[2]), torch.lerp(ta, tb, tc), tol)
    check_cuda(ember.addcmul(d[0], d[1], d[2], value=0.5), torch.addcmul(ta, tb, tc, value=0.5), tol)
    check_cuda(ember.addcdiv(d[0], d[1], d[2], value=-2), torch.addcdiv(ta, tb, tc, value=-2), tol)
    x = d[0].clone()
    assert x.addcmul_(d[1], d[2]) is x
    check_cuda(x, ta.clone().addcmul_(tb, tc), tol)
    check_cuda(d[0].t().clone().lerp_(d[2].t(), 0.9), ta.t().clone().lerp_(tc.t(), 0.9), tol)
    i, ti = pair(np.arange(6, dtype=np.int64).reshape(2, 3))
    check_cuda(ember.addcmul(i.cuda(), i.cuda(), i.cuda(), value=3),
               torch.addcmul(ti, ti, ti, value=3))
    h, th = pair(rng.standard_normal(5).astype(np.float16))
    check_cuda(ember.lerp(h.cuda(), h.cuda() * 2, 0.25), torch.lerp(th, th * 2, 0.25),
               {"float16": (1e-3, 1e-3)})
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer"):
        ember.addcdiv(i.cuda(), i.cuda(), i.cuda())


def test_lerp_and_addcdiv_backward_on_cuda():
    rng = np.random.default_rng(20)
    (x, tx), (y, ty), (w, tw) = (_leaf(rng.uniform(0.5, 2, (2, 3))) for _ in range(3))
    (ember.lerp(x, y, w) * ember.addcdiv(x, y, w, value=0.5)).sum().backward()
    (torch.lerp(tx, ty, tw) * torch.addcdiv(tx, ty, tw, value=0.5)).sum().backward()
    for got, want in ((x.grad, tx.grad), (y.grad, ty.grad), (w.grad, tw.grad)):
        check_cuda(got, want, {"float64": (1e-12, 1e-12)})


# --------------------------------------------------------------------------- activations
_ACTS = [("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}),
         ("softplus", {"beta": 2, "threshold": 3}), ("leaky_relu", {"negative_slope": 0.2}),
         ("elu", {"alpha": 1.5}), ("selu", {}), ("celu", {"alpha": 0.5}),
         ("hardtanh", {"min_val": -0.5, "max_val": 1.0}), ("relu6", {}), ("hardswish", {}),
         ("hardsigmoid", {}), ("mish", {}), ("hardshrink", {"lambd": 0.7}),
         ("softshrink", {"lambd": 0.7}), ("glu", {"dim": 0}), ("logsigmoid", {})]


@pytest.mark.parametrize("name,kw", _ACTS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(_ACTS)])
def test_activation_forward_backward(name, kw):
    a = np.concatenate([np.linspace(-4, 4, 17), [0.0, -0.0, 1.0, -1.0, 20.0]])
    x, tx = _leaf(a.reshape(2, 11))
    y, ty = getattr(F, name)(x, **kw), getattr(TF, name)(tx, **kw)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    tol = {"float64": (1e-14, 1e-14)}
    check_cuda(y.detach(), ty.detach(), tol)
    check_cuda(x.grad, tx.grad, tol)
    h, th = pair(a.astype(np.float16))
    check_cuda(getattr(F, name)(h.cuda(), **kw), getattr(TF, name)(th, **kw),
               {"float16": (1e-3, 1e-3)})


def test_activation_kernels_over_device_ops_record_one_node():
    """glu, log_sigmoid, prelu on CUDA run over the device's ops with Autograd excluded:
    one node each, saving only what its formula uses (glu: self)."""
    from ember.autograd.graph import saved_tensors_hooks
    x = ember.tensor(np.linspace(-2, 2, 8).reshape(2, 4), device="cuda", requires_grad=True)
    packed = []
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        y = F.glu(x)
    assert len(packed) == 1 and y.grad_fn.name() == "GluBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "AccumulateGrad"


def test_in_place_activations_and_integer_hardtanh():
    a = np.linspace(-3, 3, 8).astype(np.float32)
    for name, kw in (("leaky_relu", {"negative_slope": 0.1}), ("elu", {}), ("hardtanh", {}),
                     ("silu", {})):
        x, tx = _leaf(a)
        y, ty = x * 1, tx * 1
        y, ty = getattr(F, name)(y, inplace=True, **kw), getattr(TF, name)(ty, inplace=True, **kw)
        (y * y).sum().backward()        # backward from the result (self_is_result)
        (ty * ty).sum().backward()
        check_cuda(y.detach(), ty.detach(), {"float32": (1e-6, 1e-6)})
        check_cuda(x.grad, tx.grad, {"float32": (1e-6, 1e-6)})
    i, ti = pair(np.arange(-4, 4, dtype=np.int32))
    check_cuda(F.hardtanh(i.cuda(), -2.7, 2.5), TF.hardtanh(ti, -2.7, 2.5))
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(ember.ones(2, device="cuda"), approximate="x")


def test_index_with_cpu_indices_and_only_whole_dims():
    e, t = pair(np.arange(12, dtype=np.float32).reshape(3, 4))
    i, ti = pair(np.array([2, 0]))
    m, tm = pair(np.array([True, False, True]))
    check_cuda(e.cuda()[i], t[ti])                               # a CPU index tensor
    check_cuda(e.cuda()[m], t[tm])                               # a CPU mask
    d = e.cuda()
    d[i] = 5.0
    tt = t.clone()
    tt[ti] = 5.0
    check_cuda(d, tt)
    # only whole dims (torch's CPU kernel asserts here): ember's CPU result, a copy of self
    index, put = ember.ops.aten.index.Tensor, ember.ops.aten.index_put_
    v = ember.ones(4)
    for got, want in ((index(e.cuda(), [None]), index(e, [None])),
                      (put(e.cuda(), [None], v.cuda(), True), put(e.clone(), [None], v, True))):
        assert got.is_cuda and got.cpu().tolist() == want.tolist()
