"""FakeTensor and FakeTensorMode against torch's on the same programs: conversion with
aliasing, device rules, the data-dependent exceptions, autograd on fakes, the cache,
FakeCopyMode, FakeTensorProp and make_fx(tracing_mode="fake")."""
from __future__ import annotations

import copy

import pytest

import ember
from ember._guards import detect_fake_mode
from ember._subclasses.fake_tensor import (
    DataDependentOutputException,
    DynamicOutputShapeException,
    FakeCopyMode,
    FakeTensor,
    FakeTensorDeviceMismatchError,
    FakeTensorMode,
    unset_fake_temporarily,
)
from ember.fx.experimental.proxy_tensor import make_fx
from ember.fx.passes.fake_tensor_prop import FakeTensorProp

torch = pytest.importorskip("torch")
from torch._subclasses import fake_tensor as tft


def both(fn):
    """fn(lib, fake_tensor_module) for ember and torch."""
    return fn(ember, _EmberFT), fn(torch, tft)


class _EmberFT:
    FakeTensorMode = FakeTensorMode
    FakeTensor = FakeTensor


def meta(t):
    return (tuple(t.shape), str(t.dtype).split(".")[-1], t.stride(), t.storage_offset(),
            str(t.device))


# --------------------------------------------------------------------------- conversion
def test_views_of_one_base_stay_views_of_one_fake_base():
    def run(lib, ft):
        m = ft.FakeTensorMode()
        x = lib.arange(16.).reshape(4, 4)
        v = x[1:, ::2]
        fv, fx = m.from_tensor(v), m.from_tensor(x)
        return (fv._base is fx, m.from_tensor(x) is fx, meta(fv), meta(fx),
                fv.untyped_storage().nbytes(), isinstance(fv, ft.FakeTensor))
    assert run(ember, _EmberFT) == run(torch, tft)


def test_storage_sharing_without_a_view():
    m = FakeTensorMode()
    x = ember.randn(3)
    d = x.detach()
    assert m.from_tensor(d).untyped_storage() is m.from_tensor(x).untyped_storage()


def test_grad_state_and_parameters_survive():
    def run(lib, ft):
        m = ft.FakeTensorMode()
        p = lib.nn.Parameter(lib.randn(3))
        leaf = lib.randn(2, requires_grad=True)
        nonleaf = leaf * 2
        fp, fl, fn = m.from_tensor(p), m.from_tensor(leaf), m.from_tensor(nonleaf)
        return (isinstance(fp, lib.nn.Parameter), fp.is_leaf, fp.requires_grad, fl.is_leaf,
                fl.requires_grad, fn.is_leaf, fn.requires_grad)
    assert run(ember, _EmberFT) == run(torch, tft)


def test_backward_through_a_converted_non_leaf_raises():
    m = FakeTensorMode()
    fn = m.from_tensor(ember.randn(2, requires_grad=True) * 2)
    with pytest.raises(RuntimeError, match="non-leaf"):
        fn.sum().backward()


# --------------------------------------------------------------------------- inside the mode
def test_factories_and_ops_give_fakes_with_real_metadata():
    def run(lib, ft):
        with ft.FakeTensorMode():
            a = lib.empty(2, 3, 4, 5).to(memory_format=lib.channels_last)
            b = lib.ones(5, dtype=lib.float64)
            c = (a * b).sum(1, keepdim=True)
            d = a.permute(0, 2, 3, 1)[..., 1:]
            e = lib.tensor([1, 2, 3])
            return [meta(t) for t in (a, b, c, d, e)] + [type(e).__name__]
    assert run(ember, _EmberFT) == run(torch, tft)


def test_in_place_metadata_ops_update_the_fake():
    def run(lib, ft):
        with ft.FakeTensorMode():
            x = lib.randn(3, 4)
            x.t_()
            y = lib.randn(1, 3, 1)
            y.squeeze_(0)
            y.unsqueeze_(-1)
            z = lib.randn(6)
            z.as_strided_((2, 2), (1, 2), 1)
            w = lib.empty(0)
            w.resize_(2, 5)
            return [meta(t) for t in (x, y, z, w)]
    assert run(ember, _EmberFT) == run(torch, tft)


def test_device_lying_and_torch_device_rules():
    m = FakeTensorMode()
    with m:
        a = ember.empty(2, 3, device="cuda")
        s = ember.empty((), device="cpu")
        assert (a + s).device == ember.device("cuda", 0)
        assert (s + a).device == ember.device("cuda", 0)
        assert a.is_cuda and not a.is_cpu and a.get_device() == 0
        assert a.cpu().device.type == "cpu"
        assert a.to("cuda") is a
        assert repr(a) == "FakeTensor(..., device='cuda:0', size=(2, 3))"
        with pytest.raises(FakeTensorDeviceMismatchError) as e:
            ember.empty(2, 3) + a
    t_mode = tft.FakeTensorMode()
    with t_mode:
        ta = torch.empty(2, 3, device="cuda")
        with pytest.raises(tft.FakeTensorDeviceMismatchError) as te:
            torch.empty(2, 3) + ta
    assert str(e.value) == str(te.value)


@pytest.mark.parametrize("program", ["nonzero", "masked_select", "bool_index", "unique",
                                     "item", "tolist"])
def test_data_dependent_programs_raise_torch_exceptions(program):
    def run(lib, ft):
        m = ft.FakeTensorMode()
        x = m.from_tensor(lib.randn(3, 4))
        with m:
            fn = {"nonzero": lambda: lib.nonzero(x), "masked_select": lambda: x.masked_select(x > 0),
                  "bool_index": lambda: x[x > 0], "unique": lambda: lib.unique(x),
                  "item": lambda: x.sum().item(), "tolist": lambda: x.tolist()}[program]
            with pytest.raises(Exception) as e:
                fn()
        return type(e.value).__name__
    assert run(ember, _EmberFT) == run(torch, tft)
    assert run(ember, _EmberFT) in (DynamicOutputShapeException.__name__,
                                    DataDependentOutputException.__name__)


def test_real_inputs_are_refused_unless_allowed():
    m = FakeTensorMode()
    f = m.from_tensor(ember.ones(2, 3))
    with pytest.raises(AssertionError, match="Please convert all Tensors to FakeTensors first"):
        f + ember.ones(2, 3)
    m2 = FakeTensorMode(allow_non_fake_inputs=True)
    out = m2.from_tensor(ember.ones(2, 3)) + ember.ones(2, 3)
    assert isinstance(out, FakeTensor) and out.shape == (2, 3)


def test_a_constant_made_inside_the_mode_keeps_its_value():
    with FakeTensorMode():
        c = ember.tensor(3.5)
        assert isinstance(c, FakeTensor) and c.item() == 3.5


def test_nothing_is_allocated():
    with FakeTensorMode():
        w = ember.empty(2 ** 20, 2 ** 20)
        out = w @ w
    assert out.shape == (2 ** 20, 2 ** 20) and out.untyped_storage().data_ptr() == 0


def test_autograd_records_on_fakes_like_torch():
    def run(lib, ft):
        m = ft.FakeTensorMode()
        w = m.from_tensor(lib.randn(4, 3, requires_grad=True))
        x = m.from_tensor(lib.randn(5, 3))
        with m:
            loss = lib.nn.functional.relu(x @ w.t()).sum()
            loss.backward()
        return type(loss.grad_fn).__name__, meta(w.grad), type(w.grad).__name__
    assert run(ember, _EmberFT) == run(torch, tft)


def test_the_cache_answers_a_repeated_call():
    m = FakeTensorMode()
    x = m.from_tensor(ember.randn(8, 8))
    with m:
        first = x @ x
        before = m.cache_info().hits
        second = x @ x
    assert m.cache_info().hits == before + 1
    assert meta(first) == meta(second) and first is not second
    assert first.untyped_storage() is not second.untyped_storage()


def test_fake_copy_mode_copies_a_module_into_fakes():
    net = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU(), ember.nn.Linear(4, 2))
    m = FakeTensorMode()
    with FakeCopyMode(m):
        fake_net = copy.deepcopy(net)
    params = list(fake_net.parameters())
    assert all(isinstance(p, FakeTensor) and isinstance(p, ember.nn.Parameter) for p in params)
    with m:
        out = fake_net(ember.randn(5, 3))
    assert out.shape == (5, 2) and isinstance(out, FakeTensor)
    assert all(not isinstance(p, FakeTensor) for p in net.parameters())


def test_detect_and_unset_fake_mode():
    m = FakeTensorMode()
    f = m.from_tensor(ember.ones(2))
    assert detect_fake_mode([f, 1]) is m and detect_fake_mode([ember.ones(1)]) is None
    with m:
        assert detect_fake_mode() is m
        with unset_fake_temporarily():
            assert not isinstance(ember.ones(2), FakeTensor)
        assert isinstance(ember.ones(2), FakeTensor)


# --------------------------------------------------------------------------- users
def _cnn():
    return ember.nn.Sequential(ember.nn.Conv2d(1, 4, 3, padding=1), ember.nn.BatchNorm2d(4),
                               ember.nn.ReLU(), ember.nn.MaxPool2d(2), ember.nn.Flatten(),
                               ember.nn.Linear(4 * 4 * 4, 10))


@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_fake_tensor_prop_matches_a_real_run(model):
    net = _cnn() if model == "cnn" else ember.nn.Sequential(
        ember.nn.Linear(64, 32), ember.nn.Tanh(), ember.nn.Linear(32, 10))
    x = ember.randn(6, 1, 8, 8) if model == "cnn" else ember.randn(6, 64)
    gm = ember.fx.symbolic_trace(net)
    FakeTensorProp(gm, FakeTensorMode(allow_non_fake_inputs=True)).propagate(x)
    env = {}

    class Record(ember.fx.Interpreter):
        def run_node(self, n):
            env[n] = super().run_node(n)
            return env[n]
    Record(gm).run(x)
    for n in gm.graph.nodes:
        if isinstance(env.get(n), ember.Tensor):
            assert isinstance(n.meta["val"], FakeTensor), n.name
            assert meta(n.meta["val"]) == meta(env[n]), n.name


def test_make_fx_fake_records_the_real_graph_without_computing():
    def f(x, y):
        return ember.tanh(x @ y).sum(0)
    x, y = ember.randn(3, 4), ember.randn(4, 5)
    real = make_fx(f)(x, y)
    fake = make_fx(f, tracing_mode="fake")(x, y)
    assert fake.code == real.code
    vals = [n.meta["val"] for n in fake.graph.nodes if n.op != "output"]
    assert all(isinstance(v, FakeTensor) for v in vals)
    real_vals = [n.meta["val"] for n in real.graph.nodes if n.op != "output"]
    assert [meta(v)[:4] for v in vals] == [meta(v)[:4] for v in real_vals]
    assert {str(v.device) for v in vals} == {"cpu"}
    assert ember.allclose(fake(x, y), f(x, y))


def test_make_fx_fake_refuses_real_parameters_like_torch():
    net = ember.nn.Linear(3, 2)
    with pytest.raises(AssertionError, match="FakeTensorMode with 'allow_non_fake_inputs'"):
        make_fx(net, tracing_mode="fake")(ember.randn(4, 3))
    gm = make_fx(net, tracing_mode="fake", _allow_non_fake_inputs=True)(ember.randn(4, 3))
    x = ember.randn(4, 3)
    assert ember.allclose(gm(x), net(x))




def test_out_and_in_place_ops_update_the_fake_like_torch():
    def run(lib, ft):
        import warnings
        with ft.FakeTensorMode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = lib.randn(3, 4)
            out = lib.empty(0)
            same = lib.add(a, 1, out=out) is out
            a.add_(lib.ones(4))
            with pytest.raises(RuntimeError) as e:
                a.add_(lib.ones(2, 3, 4))
            return same, meta(out), meta(a), type(e.value).__name__   # (torch words it its own way)
    assert run(ember, _EmberFT) == run(torch, tft)


def test_lazy_names_torch_has():
    assert ember.SymInt.__name__ == "SymInt" and ember._subclasses.FakeTensor is FakeTensor


def test_fakes_of_two_modes_do_not_mix():
    a = FakeTensorMode().from_tensor(ember.ones(2))
    m = FakeTensorMode()
    b = m.from_tensor(ember.ones(2))
    with m, pytest.raises(AssertionError, match="Mixing fake modes NYI x.fake_mode="):
        b + a


def test_conjugate_bit_fakes_match_torch():
    """Fakes of conj() views keep the conjugate bit (and their view's layout); ops read them
    resolved and write through them, with the real results' metadata, as torch's fakes."""
    def run(lib, fake_mode_cls):
        z = lib.tensor([[1 + 2j, 3 - 1j, 0j], [2j, -1 + 0j, 4 - 4j]])
        mode = fake_mode_cls()
        out = []
        for real in (z.conj(), z.conj()[:, 1:], z.conj().resolve_conj()):
            f = mode.from_tensor(real)
            out.append((f.is_conj(), tuple(f.shape), f.stride(), f.storage_offset()))
            with mode:
                for r in (f * 2, f.sum(0), lib.fft.fft(f), f.abs(), f.add_(1j)):
                    out.append((r.is_conj(), tuple(r.shape), r.stride(), str(r.dtype).split(".")[1]))
        return out
    assert run(ember, FakeTensorMode) == run(torch, tft.FakeTensorMode)
