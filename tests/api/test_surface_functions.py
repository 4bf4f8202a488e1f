"""torch's Python-level top-level functions and Tensor methods (ember/core/surface.py)
against torch: predicates as functions, range, asarray, frombuffer, thread settings,
new_tensor, prelu, resize_as_, share_memory_, storage, cfloat/cdouble, map_/apply_, and
the torch.* forms of nn.functional ops (int reduction, positional flags)."""
import array
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def same(e, t):
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride()
    np.testing.assert_allclose(np.asarray(e.tolist()), t.detach().numpy(), rtol=1e-5, atol=1e-6)


def both(fn):
    """fn(torch) and fn(ember): equal results, or the same exception type and message."""
    try:
        ref, ref_exc = fn(torch), None
    except Exception as e:  # noqa: BLE001
        ref, ref_exc = None, e
    try:
        got, exc = fn(ember), None
    except Exception as e:  # noqa: BLE001
        got, exc = None, e
    if ref_exc is not None:
        assert type(exc) is type(ref_exc) and str(exc) == str(ref_exc).replace("torch", "ember")
    else:
        assert exc is None, exc
    return ref, got


@pytest.mark.parametrize("fn", [
    lambda m: m.is_nonzero(m.tensor([0.0])), lambda m: m.is_nonzero(m.tensor([[3]])),
    lambda m: m.tensor([1, 2]).is_nonzero(), lambda m: m.is_nonzero(m.tensor([])),
    lambda m: m.is_same_size(m.ones(2, 3), m.ones(2, 3)), lambda m: m.ones(2).is_same_size(m.ones(3)),
    lambda m: [m.is_signed(m.ones(1, dtype=d)) for d in (m.uint8, m.bool, m.int8, m.float16)],
    lambda m: m.is_complex(m.ones(1, dtype=m.complex64)), lambda m: m.is_conj(m.ones(2)),
    lambda m: m.is_neg(m.ones(2)), lambda m: m.is_inference(m.ones(2)),
    lambda m: m.get_device(m.ones(2)), lambda m: m.is_complex([1]),
])
def test_predicates(fn):
    ref, got = both(fn)
    assert ref == got


@pytest.mark.parametrize("args,kw", [((1, 4), {}), ((0, 1, 0.25), {}), ((5,), {}),
                                     ((3, 1, -0.5), {"dtype": "float64"}),
                                     ((1, 3), {"dtype": "int32"}), ((0, 1, 0), {}),
                                     ((3, 1, 1), {})])
def test_range(args, kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ref, got = both(lambda m: m.range(*args, **{k: getattr(m, v) for k, v in kw.items()}))
    assert any("torch.range is deprecated" in str(x.message) for x in w)
    if ref is not None:
        same(got, ref)


def test_asarray_shares_memory_and_copies():
    a = np.arange(6.0).reshape(2, 3)
    t, e = torch.asarray(a), ember.asarray(a)
    same(e, t)
    a[0, 0] = 7
    assert e[0, 0].item() == 7 == t[0, 0].item()
    assert ember.asarray(a, copy=True)[0, 0].item() == 7
    c = ember.asarray(a, copy=True)
    a[0, 0] = 1
    assert c[0, 0].item() == 7
    same(ember.asarray([[1, 2], [3, 4]]), torch.asarray([[1, 2], [3, 4]]))
    same(ember.asarray([1.5, 2]), torch.asarray([1.5, 2]))
    same(ember.asarray(a, dtype=ember.float32), torch.asarray(a, dtype=torch.float32))
    x = ember.ones(3)
    assert ember.asarray(x) is x or ember.asarray(x).data_ptr() == x.data_ptr()
    assert ember.asarray(x, copy=True).data_ptr() != x.data_ptr()
    ref, got = both(lambda m: m.asarray(b"abc"))                   # float32 from 3 bytes
    ref, got = both(lambda m: m.asarray(bytearray(b"abcd"), dtype=m.uint8))
    same(got, ref)
    with pytest.raises(ValueError):
        ember.asarray(x, dtype=ember.float64, copy=False)


def test_frombuffer():
    buf = array.array("f", [1.0, 2.0, 3.0, 4.0])
    e = ember.frombuffer(buf, dtype=ember.float32, count=2, offset=4)
    t = torch.frombuffer(buf, dtype=torch.float32, count=2, offset=4)
    same(e, t)
    buf[1] = 9.0
    assert e[0].item() == 9.0 == t[0].item()     # shares the buffer's memory
    ba = bytearray(b"\x01\x02\x03\x04")
    same(ember.frombuffer(ba, dtype=ember.int16), torch.frombuffer(ba, dtype=torch.int16))
    for kw in ({"offset": 9}, {"dtype_size": 3}):
        with pytest.raises(ValueError):
            if "offset" in kw:
                ember.frombuffer(ba, dtype=ember.int16, offset=9)
            else:
                ember.frombuffer(bytearray(3), dtype=ember.int16)


def test_threads():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    blas = lambda: {i["num_threads"] for i in threadpoolctl.threadpool_info()
                    if i["user_api"] == "blas"}
    n, before = ember.get_num_threads(), blas()
    assert n >= 1 and ember.get_num_interop_threads() >= 1
    ember.set_num_threads(1)
    assert ember.get_num_threads() == 1 and blas() <= {1}    # the BLAS libraries follow
    ember.set_num_threads(max(before | {n}))
    with pytest.raises(RuntimeError):
        ember.set_num_threads(0)


def test_tensor_methods():
    x = ember.ones(2, 3, dtype=ember.float64)
    t = torch.ones(2, 3, dtype=torch.float64)
    same(x.new_tensor([1, 2]), t.new_tensor([1, 2]))
    same(x.new_tensor([1, 2], dtype=ember.int32), t.new_tensor([1, 2], dtype=torch.int32))
    w = np.array([0.25], dtype=np.float32)
    same(ember.tensor([-1.0, 2.0]).prelu(ember.tensor(w)),
         torch.tensor([-1.0, 2.0]).prelu(torch.tensor(w)))
    same(ember.tensor([-1.0, 0.2]).hardshrink(), torch.tensor([-1.0, 0.2]).hardshrink())
    r = ember.zeros(5).resize_as_(x)
    assert r.shape == x.shape and r.is_contiguous()
    assert ember.resize_as_(ember.zeros(5), x).shape == (2, 3)
    assert x.share_memory_() is x and x.is_shared() is False
    assert x.storage().nbytes() == 48
    same(x.cfloat(), t.cfloat())
    same(x.cdouble(), t.cdouble())
    a, b = ember.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.0, 3.0])
    same(a.apply_(lambda v: v * 2), b.apply_(lambda v: v * 2))
    same(a.map_(ember.tensor([1.0]), lambda u, v: u + v), b.map_(torch.tensor([1.0]), lambda u, v: u + v))


def _data():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 6, 5, generator=g), torch.randn(4, 6, generator=g),
            torch.randn(4, 6, generator=g), torch.randn(4, 6, generator=g).sign(),
            torch.rand(4, 6, generator=g)]


@pytest.mark.parametrize("name,fn", [
    ("celu", lambda m, x, a, b, s, p: m.celu(a, 0.5)), ("selu", lambda m, x, a, b, s, p: m.selu(a)),
    ("rrelu_eval", lambda m, x, a, b, s, p: m.rrelu(a)),
    ("group_norm", lambda m, x, a, b, s, p: m.group_norm(x, 3, None, None, 1e-5)),
    ("instance_norm", lambda m, x, a, b, s, p: m.instance_norm(x, None, None, None, None, True,
                                                               0.1, 1e-5, False)),
    ("rms_norm", lambda m, x, a, b, s, p: m.rms_norm(x, [5])),
    ("kl_div", lambda m, x, a, b, s, p: m.kl_div(a, p, 1)),
    ("kl_div_sum_log", lambda m, x, a, b, s, p: m.kl_div(a, b, 2, log_target=True)),
    ("margin_ranking", lambda m, x, a, b, s, p: m.margin_ranking_loss(a, b, s, 0.5, 0)),
    ("hinge_embedding", lambda m, x, a, b, s, p: m.hinge_embedding_loss(a, s)),
    ("cosine_embedding", lambda m, x, a, b, s, p: m.cosine_embedding_loss(a, b, s[:, 0], 0.1)),
    ("triplet_margin", lambda m, x, a, b, s, p: m.triplet_margin_loss(a, b, p, reduction=2)),
    ("poisson_nll", lambda m, x, a, b, s, p: m.poisson_nll_loss(a, p, True, False, 1e-8, 1)),
    ("max_pool1d", lambda m, x, a, b, s, p: m.max_pool1d(x, 2)),
    ("max_pool1d_with_indices", lambda m, x, a, b, s, p: m.max_pool1d_with_indices(x, 3, 1)[1]),
    ("max_pool3d", lambda m, x, a, b, s, p: m.max_pool3d(x.reshape(1, 1, 4, 6, 5), 2)),
    ("adaptive_max_pool1d", lambda m, x, a, b, s, p: m.adaptive_max_pool1d(x, 2)[0]),
])
def test_functional_forms_at_top_level(name, fn):
    data = _data()
    ref = fn(torch, *data)
    got = fn(ember, *[ember.tensor(d.numpy()) for d in data])
    same(got, ref)
