"""nn.Module, nn.Parameter and the containers against torch: the same trees built on both
sides give the same names, shapes, state_dict keys, reprs, errors, hook order, outputs and
gradients."""
import copy
import re
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import ember
from ember import nn

torch = pytest.importorskip("torch")
tnn = torch.nn


def to_torch(t):
    return torch.from_numpy(np.array(t.detach().numpy()))


def to_ember(t):
    return ember.from_numpy(t.detach().numpy().copy())


def copy_weights(src_torch, dst_ember):
    """Loads the torch module's state into the ember module (through numpy)."""
    dst_ember.load_state_dict({k: to_ember(v) for k, v in src_torch.state_dict().items()})


def same_text(ember_text: str, torch_text: str):
    """Texts equal once 'torch.Size'/'torch.float32' are spelled the ember way."""
    assert ember_text == torch_text.replace("torch", "ember")


def error_of(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def same_error(ember_fn, torch_fn):
    e, t = error_of(ember_fn), error_of(torch_fn)
    assert type(e) is type(t)
    same_text(str(e), str(t))


# --- module trees built the same way on both sides -------------------------------------------
def build(lib):
    """A small tree of every container kind, built with `lib` (ember.nn or torch.nn)."""

    class Block(lib.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.Linear(4, 4)
            self.register_buffer("steps", (ember if lib is nn else torch).zeros(()))
            self.register_buffer("cache", (ember if lib is nn else torch).ones(2),
                                 persistent=False)

        def forward(self, x):
            return self.fc(x).relu() + x

    class Net(lib.Module):
        def __init__(self):
            super().__init__()
            self.stem = lib.Sequential(lib.Linear(3, 4), lib.Identity())
            self.blocks = lib.ModuleList([Block(), Block()])
            self.heads = lib.ModuleDict({"a": lib.Linear(4, 2), "b": lib.Linear(4, 2, bias=False)})
            self.flat = lib.Flatten()
            self.scale = lib.Parameter((ember if lib is nn else torch).ones(1))

        def forward(self, x):
            x = self.stem(x)
            for b in self.blocks:
                x = b(x)
            return self.flat((self.heads["a"](x) + self.heads["b"](x)) * self.scale)

    return Net()


@pytest.fixture
def pair():
    t = build(tnn)
    e = build(nn)
    copy_weights(t, e)
    return e, t


def test_named_parameters_names_and_shapes(pair):
    e, t = pair
    assert [(n, tuple(p.shape)) for n, p in e.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert [n for n, _ in e.named_parameters(prefix="m", recurse=True)] == \
        [n for n, _ in t.named_parameters(prefix="m", recurse=True)]
    assert [n for n, _ in e.named_parameters(recurse=False)] == ["scale"]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in e.parameters())


def test_buffers_children_modules(pair):
    e, t = pair
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in e.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [type(m).__name__ for m in e.modules()] == [type(m).__name__ for m in t.modules()]
    assert len(list(e.children())) == len(list(t.children()))


def test_state_dict_keys_and_values(pair):
    e, t = pair
    es, ts = e.state_dict(), t.state_dict()
    assert isinstance(es, OrderedDict)
    assert list(es) == list(ts)
    assert "blocks.0.cache" not in es             # non-persistent buffer
    for k in es:
        np.testing.assert_array_equal(es[k].numpy(), ts[k].numpy())
        assert not es[k].requires_grad
    kept = e.state_dict(keep_vars=True)
    assert kept["scale"] is e.scale
    assert list(e.state_dict(prefix="net.")) == list(t.state_dict(prefix="net."))


def test_repr_matches_torch(pair):
    e, t = pair
    assert repr(e) == repr(t)
    assert repr(nn.ModuleList()) == repr(tnn.ModuleList())
    assert repr(nn.Sequential()) == repr(tnn.Sequential())
    same_text(repr(nn.ModuleList([nn.Linear(2, 2)] * 3 + [nn.Flatten(0, 1)] + [nn.Identity()] * 2)),
              repr(tnn.ModuleList([tnn.Linear(2, 2)] * 3 + [tnn.Flatten(0, 1)]
                                  + [tnn.Identity()] * 2)))


def test_forward_and_gradients_match(pair):
    e, t = pair
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    ye, yt = e(ember.from_numpy(x)), t(torch.from_numpy(x))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    ye.sum().backward()
    yt.sum().backward()
    te = dict(t.named_parameters())
    for name, p in e.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), te[name].grad.numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=name)


def test_double_precision_gradients_match():
    t = tnn.Sequential(tnn.Linear(6, 5), tnn.Tanh() if hasattr(tnn, "Tanh") else tnn.Identity(),
                       tnn.Linear(5, 3)).double()
    e = nn.Sequential(nn.Linear(6, 5), nn.Identity(), nn.Linear(5, 3)).double()
    t[1] = tnn.Identity()
    copy_weights(t, e)
    x = np.random.default_rng(1).standard_normal((4, 6))
    (e(ember.from_numpy(x)) ** 2).sum().backward()
    (t(torch.from_numpy(x)) ** 2).sum().backward()
    for (n, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters()):
        assert pe.dtype == ember.float64
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=1e-12, err_msg=n)


# --- Parameter -------------------------------------------------------------------------------
def test_parameter_basics():
    data = ember.arange(6.0).view(2, 3)
    p = nn.Parameter(data)
    assert isinstance(p, ember.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf
    assert p.data_ptr() == data.data_ptr()           # shares storage
    data[0, 0] = 7.0
    assert p[0, 0].item() == 7.0
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)
    same_text(repr(nn.Parameter(ember.ones(2))), repr(tnn.Parameter(torch.ones(2))))
    same_text(repr(nn.Parameter(ember.ones(2, dtype=ember.float64), requires_grad=False)),
              repr(tnn.Parameter(torch.ones(2, dtype=torch.float64), requires_grad=False)))


def _ops_on(p):
    return (p * 2, p.t(), p[0], p.view(12), p.detach(), p.data, p.sum(), ember.relu(p),
            p.to(ember.float64), ember.linear(ember.ones(2, 4), p))


def test_parameter_ops_return_plain_tensors_on_the_fast_path():
    from ember import overrides
    from ember.dispatch.keys import PYTHON_BIT
    before = overrides._subclass_count[0]

    class MyParameter(nn.Parameter):
        pass

    # Parameter classes do not switch the bindings' __torch_function__ check on
    assert overrides._subclass_count[0] == before
    assert not overrides._opts_in(nn.Parameter) and not overrides._opts_in(MyParameter)
    for p in (nn.Parameter(ember.randn(3, 4)), MyParameter(ember.randn(3, 4))):
        assert all(type(r) is ember.Tensor for r in _ops_on(p))
        assert not p._ks & PYTHON_BIT               # no __torch_dispatch__ detour either


def test_parameter_ops_stay_plain_when_another_subclass_overrides():
    calls = []

    class Logged(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    from ember import overrides
    assert overrides.tf_state[0]                    # the override path is live now
    assert all(type(r) is ember.Tensor for r in _ops_on(nn.Parameter(ember.randn(3, 4))))
    assert calls == []
    logged = ember.ones(2).as_subclass(Logged)
    assert type(logged + nn.Parameter(ember.ones(2))) is Logged and calls == ["__add__"]


def test_parameter_from_nonleaf_is_a_leaf():
    x = ember.ones(3, requires_grad=True)
    p = nn.Parameter(x * 2)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None


def test_parameter_deepcopy():
    p = nn.Parameter(ember.ones(2), requires_grad=False)
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and not q.requires_grad and q.data_ptr() != p.data_ptr()
    m = nn.Linear(2, 3)
    m2 = copy.deepcopy(m)
    assert m2.weight is not m.weight and isinstance(m2.weight, nn.Parameter)
    np.testing.assert_array_equal(m2.weight.detach().numpy(), m.weight.detach().numpy())


def test_buffer_assignment():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Buffer(ember.zeros(2))
            self.b = nn.Buffer(ember.ones(2), persistent=False)

    m = M()
    assert [n for n, _ in m.named_buffers()] == ["a", "b"]
    assert list(m.state_dict()) == ["a"]
    assert repr(m.a) == "tensor([0., 0.])"
    m.a = ember.full((2,), 3.0)                        # plain tensor into an existing buffer
    assert m.a.tolist() == [3.0, 3.0] and list(m.state_dict()) == ["a"]


# --- registration and attribute errors --------------------------------------------------------
def _both(fn):
    return fn(nn, ember), fn(tnn, torch)


@pytest.mark.parametrize("action", [
    lambda lib, T: lib.Linear(2, 2).register_parameter("a.b", None),
    lambda lib, T: lib.Linear(2, 2).register_parameter("", None),
    lambda lib, T: lib.Linear(2, 2).register_parameter("in_features", None),
    lambda lib, T: lib.Linear(2, 2).register_parameter("x", T.ones(2)),
    lambda lib, T: lib.Linear(2, 2).register_parameter(
        "x", lib.Parameter(T.ones(2, requires_grad=True)) * 2),
    lambda lib, T: lib.Linear(2, 2).register_buffer("a.b", None),
    lambda lib, T: lib.Linear(2, 2).register_buffer("", None),
    lambda lib, T: lib.Linear(2, 2).register_buffer("weight", None),
    lambda lib, T: lib.Linear(2, 2).register_buffer("x", 3),
    lambda lib, T: lib.Linear(2, 2).add_module("x", 3),
    lambda lib, T: lib.Linear(2, 2).add_module("a.b", lib.Identity()),
    lambda lib, T: lib.Linear(2, 2).add_module("", lib.Identity()),
    lambda lib, T: lib.Linear(2, 2).add_module("weight", lib.Identity()),
    lambda lib, T: setattr(lib.Linear(2, 2), "weight", T.ones(2, 2)),
    lambda lib, T: setattr(lib.Sequential(lib.Identity()), "0", 3),
    lambda lib, T: lib.Linear(2, 2).nothing,
    lambda lib, T: lib.Linear(2, 2).get_submodule("a.b"),
    lambda lib, T: lib.Sequential(lib.Linear(2, 2)).get_submodule("0.weight"),
    lambda lib, T: lib.Sequential(lib.Linear(2, 2)).get_parameter("0.nothing"),
    lambda lib, T: lib.Sequential(lib.Linear(2, 2)).get_parameter("0.in_features"),
    lambda lib, T: lib.Sequential(lib.Linear(2, 2)).get_buffer("0.weight"),
    lambda lib, T: lib.Module()(1),
    lambda lib, T: lib.Module(3),
    lambda lib, T: lib.Module(x=3),
    lambda lib, T: lib.Linear(2, 2).train("yes"),
    lambda lib, T: lib.Linear(2, 2).to(T.int64),
    lambda lib, T: lib.Sequential(lib.Identity())[3],
    lambda lib, T: lib.ModuleList([lib.Identity()])[-2],
    lambda lib, T: lib.Sequential() + lib.ModuleList(),
    lambda lib, T: lib.Sequential(lib.Identity()) * 0,
    lambda lib, T: lib.ModuleList().extend(3),
    lambda lib, T: lib.ModuleDict().update(3),
    lambda lib, T: lib.ModuleDict().update([(1, 2, 3)]),
    lambda lib, T: lib.ParameterList()(1),
    lambda lib, T: lib.ParameterDict()[3],
])
def test_errors_match_torch(action):
    same_error(lambda: action(nn, ember), lambda: action(tnn, torch))


def test_register_before_init_errors():
    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(ember.ones(1))

    class TEarly(tnn.Module):
        def __init__(self):
            self.w = tnn.Parameter(torch.ones(1))

    same_error(Early, TEarly)


def test_setattr_moves_between_tables_and_delattr():
    m = nn.Module()
    m.x = nn.Parameter(ember.ones(1))
    assert "x" in m._parameters
    m.x = None                              # None keeps a registered parameter slot
    assert m._parameters["x"] is None and m.x is None
    m.y = nn.Identity()
    m.y = None
    assert m._modules["y"] is None
    m.z = 3
    m.z = nn.Identity()                     # plain attribute replaced by a module
    assert "z" not in m.__dict__ and m.z is m._modules["z"]
    m.register_buffer("b", ember.zeros(1), persistent=False)
    m.b = nn.Parameter(ember.ones(1))       # a parameter replaces a buffer
    assert "b" in m._parameters and "b" not in m._buffers
    for name in ("x", "y", "z", "b"):
        delattr(m, name)
    assert not (m._parameters or m._modules or m._buffers)
    with pytest.raises(AttributeError):
        del m.nothing


def test_dir_lists_members():
    m = nn.Sequential(nn.Linear(2, 2))
    names = dir(m[0])
    assert {"weight", "bias", "forward", "in_features"} <= set(names)
    assert "0" not in dir(m)


def test_get_submodule_parameter_buffer():
    e = build(nn)
    assert e.get_submodule("blocks.1.fc") is e.blocks[1].fc
    assert e.get_submodule("") is e
    assert e.get_parameter("heads.a.weight") is e.heads["a"].weight
    assert e.get_buffer("blocks.0.steps") is e.blocks[0].steps
    e.set_submodule("blocks.1.fc", nn.Identity())
    assert isinstance(e.blocks[1].fc, nn.Identity)


def test_shared_parameters_and_modules_are_deduplicated():
    shared = nn.Linear(2, 2)
    e = nn.Sequential(shared, shared)
    t_shared = tnn.Linear(2, 2)
    t = tnn.Sequential(t_shared, t_shared)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_parameters(remove_duplicate=False)] == \
        [n for n, _ in t.named_parameters(remove_duplicate=False)]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in e.named_modules(remove_duplicate=False)] == \
        [n for n, _ in t.named_modules(remove_duplicate=False)]
    assert list(e.state_dict()) == list(t.state_dict())


# --- load_state_dict ---------------------------------------------------------------------------
def _load_both(make, edit):
    """load_state_dict on ember and torch modules with the same edit of their state dicts."""
    e, t = make(nn), make(tnn)
    es, ts = OrderedDict(e.state_dict()), OrderedDict(t.state_dict())
    edit(es, ember)
    edit(ts, torch)
    return e, t, es, ts


LOAD_EDITS = {
    "missing": lambda sd, T: sd.pop("0.bias"),
    "unexpected": lambda sd, T: sd.update({"0.extra": T.ones(1), "2.weight": T.ones(1)}),
    "both": lambda sd, T: (sd.pop("1.weight"), sd.update({"extra": T.ones(1)})),
    "size": lambda sd, T: sd.update({"0.weight": T.ones(3, 3)}),
    "size_and_missing": lambda sd, T: (sd.update({"1.bias": T.ones(7)}), sd.pop("0.weight")),
    "not_tensor": lambda sd, T: sd.update({"0.bias": [1.0, 2.0]}),
}


def _two_linears(lib):
    return lib.Sequential(lib.Linear(2, 3), lib.Linear(3, 1))


@pytest.mark.parametrize("edit", sorted(LOAD_EDITS))
def test_load_state_dict_errors_match_torch(edit):
    e, t, es, ts = _load_both(_two_linears, LOAD_EDITS[edit])
    same_error(lambda: e.load_state_dict(es), lambda: t.load_state_dict(ts))


@pytest.mark.parametrize("edit", ["missing", "unexpected", "both"])
def test_load_state_dict_non_strict_returns_keys(edit):
    e, t, es, ts = _load_both(_two_linears, LOAD_EDITS[edit])
    re_, rt = e.load_state_dict(es, strict=False), t.load_state_dict(ts, strict=False)
    assert re_.missing_keys == rt.missing_keys
    assert re_.unexpected_keys == rt.unexpected_keys
    assert repr(re_) == repr(rt)


def test_load_state_dict_error_text_for_linear():
    lin = nn.Linear(2, 3)
    expected = ('Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: '
                '"bias". ')
    with pytest.raises(RuntimeError, match=re.escape(expected)):
        lin.load_state_dict({"weight": ember.zeros(3, 2)})
    assert repr(lin.load_state_dict(lin.state_dict())) == "<All keys matched successfully>"
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        lin.load_state_dict([1, 2])


def test_load_state_dict_copies_in_place_and_assign_replaces():
    lin = nn.Linear(2, 3)
    w = lin.weight
    new = {"weight": ember.ones(3, 2, dtype=ember.float64), "bias": ember.zeros(3)}
    lin.load_state_dict(new)
    assert lin.weight is w and w.dtype == ember.float32 and w.tolist() == [[1.0, 1.0]] * 3
    lin.load_state_dict(new, assign=True)
    assert lin.weight is not w and isinstance(lin.weight, nn.Parameter)
    assert lin.weight.requires_grad and lin.weight.dtype == ember.float64


def test_load_state_dict_round_trip_between_libraries(pair):
    e, t = pair
    fresh = build(nn)
    fresh.load_state_dict(e.state_dict())
    for (n, a), (_, b) in zip(fresh.state_dict().items(), t.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=n)
    t2 = build(tnn)
    t2.load_state_dict({k: to_torch(v) for k, v in e.state_dict().items()})


def test_load_scalar_from_one_element_vector():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("n", ember.zeros(()))

    m = M()
    m.load_state_dict({"n": ember.tensor([5.0])})
    assert m.n.item() == 5.0


def test_extra_state_round_trip():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(1, 1)
            self.tag = "a"

        def get_extra_state(self):
            return {"tag": self.tag}

        def set_extra_state(self, state):
            self.tag = state["tag"]

    m = M()
    m.tag = "b"
    sd = m.state_dict()
    assert list(sd) == ["_extra_state", "lin.weight", "lin.bias"]
    m2 = M()
    m2.load_state_dict(sd)
    assert m2.tag == "b"


def test_state_dict_and_load_hooks():
    calls = []
    m = nn.Linear(2, 2)
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append("pre"))
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: calls.append("post"))
    m.register_load_state_dict_pre_hook(lambda mod, sd, *args: calls.append("load_pre"))
    h = m.register_load_state_dict_post_hook(lambda mod, keys: calls.append("load_post"))
    m.load_state_dict(m.state_dict())
    assert calls == ["pre", "post", "load_pre", "load_post"]
    h.remove()
    m.load_state_dict(m.state_dict())
    assert calls[-1] == "load_pre"


# --- modes, gradients, conversions ----------------------------------------------------------------
def test_train_eval_flags(pair):
    e, _ = pair
    e.eval()
    assert not any(m.training for m in e.modules())
    assert e.train() is e and all(m.training for m in e.modules())
    assert e.blocks.train(False) is e.blocks and e.training and not e.blocks[0].fc.training


def test_requires_grad_and_zero_grad(pair):
    e, _ = pair
    e(ember.ones(1, 3)).sum().backward()
    assert all(p.grad is not None for p in e.parameters())
    e.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.any() for p in e.parameters())
    e.zero_grad()
    assert all(p.grad is None for p in e.parameters())
    assert e.requires_grad_(False) is e and not any(p.requires_grad for p in e.parameters())
    e.heads.requires_grad_()
    assert [n for n, p in e.named_parameters() if p.requires_grad] == \
        ["heads.a.weight", "heads.a.bias", "heads.b.weight"]


def test_apply_visits_children_first(pair):
    e, t = pair
    seen_e, seen_t = [], []
    e.apply(lambda m: seen_e.append(type(m).__name__))
    t.apply(lambda m: seen_t.append(type(m).__name__))
    assert seen_e == seen_t


@pytest.mark.parametrize("convert, dtype", [
    (lambda m: m.double(), ember.float64), (lambda m: m.half(), ember.float16),
    (lambda m: m.bfloat16(), ember.bfloat16), (lambda m: m.double().float(), ember.float32),
    (lambda m: m.to(ember.float64), ember.float64),
    (lambda m: m.to("cpu", ember.float64), ember.float64),
    (lambda m: m.to(device="cpu", dtype=ember.float16, non_blocking=True), ember.float16),
    (lambda m: m.to(ember.zeros(1, dtype=ember.float64)), ember.float64),
    (lambda m: m.to("cpu"), ember.float32), (lambda m: m.cpu(), ember.float32),
])
def test_dtype_conversions_keep_parameter_objects(convert, dtype):
    m = _with_int_buffer()
    w = m.lin.weight
    m.lin(ember.ones(1, 2)).sum().backward()
    assert convert(m) is m
    assert m.lin.weight is w and isinstance(w, nn.Parameter) and w.requires_grad
    assert w.dtype == dtype and m.lin.bias.dtype == dtype and m.stat.dtype == dtype
    assert w.grad.dtype == dtype
    assert m.count.dtype == ember.int64                # integer buffers keep their dtype


def _with_int_buffer():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.register_buffer("count", ember.zeros((), dtype=ember.int64))
            self.register_buffer("stat", ember.zeros(2))

    return M()


def test_to_memory_format_applies_to_4d_tensors():
    m = nn.Module()
    m.w = nn.Parameter(ember.randn(2, 3, 4, 5))
    m.v = nn.Parameter(ember.randn(2, 3))
    w = m.w
    m.to(memory_format=ember.channels_last)
    assert m.w is w and w.is_contiguous(memory_format=ember.channels_last)
    assert m.v.is_contiguous()
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        m.to(colour=1)


def test_meta_device_then_to_empty():
    m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1)).to("meta")
    w = m[0].weight
    assert w.device.type == "meta" and m(ember.empty(4, 3, device="meta")).shape == (4, 1)
    assert m.to_empty(device="cpu") is m
    assert m[0].weight is w and w.device.type == "cpu" and w.requires_grad
    for lin in m:
        lin.reset_parameters()
    assert m(ember.ones(4, 3)).shape == (4, 1)


def test_type_converts_every_tensor():
    m = _with_int_buffer().type(ember.float64)
    assert m.count.dtype == m.lin.weight.dtype == ember.float64


# --- hooks -------------------------------------------------------------------------------------
def _hooked(lib, log):
    lin = lib.Linear(2, 2)
    lin.register_forward_pre_hook(lambda m, args: log.append(("pre1", len(args))))
    lin.register_forward_pre_hook(lambda m, args: log.append("pre0"), prepend=True)
    lin.register_forward_pre_hook(lambda m, args, kwargs: log.append(("prekw", sorted(kwargs))),
                                  with_kwargs=True)
    lin.register_forward_hook(lambda m, args, out: log.append(("post", tuple(out.shape))))
    lin.register_forward_hook(lambda m, args, kwargs, out: log.append("postkw"), with_kwargs=True)
    lin.register_forward_hook(lambda m, args, out: log.append("post0"), prepend=True)
    return lin


def test_hook_order_matches_torch():
    le, lt = [], []
    _hooked(nn, le)(ember.ones(3, 2))
    _hooked(tnn, lt)(torch.ones(3, 2))
    assert le == lt and le[0] == "pre0" and le[-1] == "postkw"


def test_hooks_modify_args_and_output_and_remove():
    lin = nn.Linear(2, 2)
    h1 = lin.register_forward_pre_hook(lambda m, args: args[0] * 0)      # non-tuple result
    h2 = lin.register_forward_hook(lambda m, args, out: out + 100)
    y = lin(ember.ones(1, 2))
    np.testing.assert_allclose(y.detach().numpy(), (lin.bias + 100).detach().numpy()[None])
    h1.remove()
    h2.remove()
    h2.remove()                                                         # idempotent
    assert not lin._forward_hooks and not lin._forward_pre_hooks
    with lin.register_forward_hook(lambda m, a, o: o * 0):
        assert not lin(ember.ones(1, 2)).any()
    assert lin(ember.ones(1, 2)).any()


def test_pre_hook_with_kwargs_replaces_args():
    class Add(nn.Module):
        def forward(self, x, *, y=0):
            return x + y

    m = Add()
    m.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] * 2,), {"y": 5}),
                                with_kwargs=True)
    assert m(ember.ones(1)).item() == 7.0
    m.register_forward_pre_hook(lambda mod, args, kwargs: 3, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        m(ember.ones(1))


def test_global_hooks_run_first_like_torch():
    from torch.nn.modules import module as tmod

    from ember.nn.modules import module as emod

    def run(lib, mod, T):
        log = []
        lin = lib.Linear(2, 2)
        lin.register_forward_pre_hook(lambda m, a: log.append("pre"))
        lin.register_forward_hook(lambda m, a, o: log.append("post"))
        handles = [mod.register_module_forward_pre_hook(lambda m, a: log.append("gpre")),
                   mod.register_module_forward_hook(lambda m, a, k, o: log.append(("gpost", k)),
                                                    with_kwargs=True)]
        lib.Sequential(lin)(T.ones(1, 2))
        for h in handles:
            h.remove()
        lin(T.ones(1, 2))
        return log

    log = run(nn, emod, ember)
    assert log == run(tnn, tmod, torch)
    assert log == ["gpre", "gpre", "pre", ("gpost", {}), "post", ("gpost", {}), "pre", "post"]
    assert not emod._global_forward_hooks and not emod._global_forward_pre_hooks


def test_always_call_hook_runs_when_forward_raises():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    seen = []
    m = Boom()
    m.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    m.register_forward_hook(lambda mod, args, out: seen.append("never"))
    with pytest.raises(ValueError, match="boom"):
        m(1)
    assert seen == [None]


# --- containers -----------------------------------------------------------------------------------
def test_sequential_indexing_and_editing():
    layers = [nn.Linear(2, 2), nn.Identity(), nn.Flatten(), nn.Linear(2, 3)]
    s = nn.Sequential(*layers)
    assert s[0] is layers[0] and s[-1] is layers[3] and len(s) == 4
    assert list(s) == layers
    sub = s[1:3]
    assert type(sub) is nn.Sequential and list(sub) == layers[1:3]
    assert list(sub._modules) == ["1", "2"]                 # slices keep their keys, like torch
    s[1] = nn.Flatten(0)
    assert isinstance(s[1], nn.Flatten)
    del s[1]
    assert list(s._modules) == ["0", "1", "2"] and s[1] is layers[2]
    s.append(nn.Identity())
    s.insert(0, nn.Identity())
    assert [type(m).__name__ for m in s] == ["Identity", "Linear", "Flatten", "Linear", "Identity"]
    assert isinstance(s.pop(0), nn.Identity) and len(s) == 4
    s2 = s + nn.Sequential(nn.Identity())
    assert len(s2) == 5 and len(s * 2) == 8
    s *= 2
    assert len(s) == 8


def test_sequential_from_ordered_dict_matches_torch():
    e = nn.Sequential(OrderedDict([("fc1", nn.Linear(3, 4)), ("id", nn.Identity()),
                                   ("fc2", nn.Linear(4, 2))]))
    t = tnn.Sequential(OrderedDict([("fc1", tnn.Linear(3, 4)), ("id", tnn.Identity()),
                                    ("fc2", tnn.Linear(4, 2))]))
    copy_weights(t, e)
    assert repr(e) == repr(t) and list(e.state_dict()) == list(t.state_dict())
    assert e.fc2 is e[2]
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(e(ember.from_numpy(x)).detach().numpy(),
                               t(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_module_list():
    ml = nn.ModuleList([nn.Linear(1, 1)])
    ml.append(nn.Identity())
    ml.extend([nn.Flatten()])
    ml += [nn.Identity()]
    ml.insert(1, nn.Linear(1, 2))
    assert [type(m).__name__ for m in ml] == ["Linear", "Linear", "Identity", "Flatten",
                                              "Identity"]
    assert type(ml[1:3]) is nn.ModuleList and len(ml[::2]) == 3
    del ml[0]
    assert list(ml._modules) == ["0", "1", "2", "3"]
    assert len(ml + nn.ModuleList([nn.Identity()])) == 5
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        ml(1)


def test_module_dict():
    md = nn.ModuleDict([("a", nn.Identity()), ("b", nn.Linear(1, 1))])
    assert list(md) == ["a", "b"] and "a" in md and len(md) == 2
    md["c"] = nn.Flatten()
    md.update({"d": nn.Identity()})
    assert list(md.keys()) == ["a", "b", "c", "d"]
    assert isinstance(md.pop("a"), nn.Identity) and "a" not in md
    assert [n for n, _ in md.named_parameters()] == ["b.weight", "b.bias"]
    md.clear()
    assert len(md) == 0


def test_parameter_list_and_dict_match_torch():
    e = nn.ParameterList([ember.ones(2), nn.Parameter(ember.zeros(3, 1))])
    t = tnn.ParameterList([torch.ones(2), tnn.Parameter(torch.zeros(3, 1))])
    assert all(isinstance(p, nn.Parameter) for p in e)
    same_text(repr(e), repr(t))
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    e.append(ember.ones(1))
    assert len(e) == 3 and e[-1].shape == (1,) and len(e[1:]) == 2
    ed = nn.ParameterDict({"w": ember.ones(2), "b": nn.Parameter(ember.zeros(1))})
    td = tnn.ParameterDict({"w": torch.ones(2), "b": tnn.Parameter(torch.zeros(1))})
    same_text(repr(ed), repr(td))
    assert list(ed.state_dict()) == list(td.state_dict())
    assert isinstance(ed["w"], nn.Parameter) and "w" in ed and list(ed.keys()) == list(td.keys())
    del ed["w"]
    assert list(ed) == ["b"] and ed.get("w") is None


def test_identity_and_flatten():
    x = ember.randn(2, 3, 4, 5)
    assert nn.Identity(54, unused="x")(x) is x
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(0, 2)(x).shape == (24, 5)
    assert nn.Unflatten(1, (3, 1))(ember.zeros(2, 3)).shape == (2, 3, 1)
    same_text(repr(nn.Sequential(nn.Flatten(), nn.Unflatten(1, (2, 30)), nn.Identity())),
              repr(tnn.Sequential(tnn.Flatten(), tnn.Unflatten(1, (2, 30)), tnn.Identity())))
    same_error(lambda: nn.Unflatten(1, (2.0, 3)), lambda: tnn.Unflatten(1, (2.0, 3)))


def test_nested_repr_with_custom_extra_repr():
    def make(lib):
        class Custom(lib.Module):
            def __init__(self):
                super().__init__()
                self.inner = lib.Sequential(lib.Linear(1, 2), lib.ModuleList([lib.Identity()]))

            def extra_repr(self):
                return "k=1\nmulti=True"

        return lib.ModuleDict({"c": Custom(), "l": lib.Linear(2, 2, bias=False)})

    assert repr(make(nn)) == repr(make(tnn))


def test_ops_with_a_parameter_operand_stay_exact():
    """Kernels' fast paths accept Parameter operands (same results as with plain tensors)."""
    x = ember.randn(4, 5)
    t = ember.randn(4, 5)
    p = nn.Parameter(t.clone(), requires_grad=False)
    for op in (ember.add, ember.mul, ember.maximum, ember.lt, ember.eq, ember.atan2):
        np.testing.assert_array_equal(op(x, p).numpy(), op(x, t).numpy())
        np.testing.assert_array_equal(op(p, x).numpy(), op(t, x).numpy())
    y = x.clone()
    y.add_(p)
    np.testing.assert_array_equal(y.numpy(), (x + t).numpy())


@pytest.mark.parametrize("module_name", [
    "ember.nn", "ember.nn.parameter", "ember.nn.modules.module", "ember.nn.modules.container",
    "ember.nn.modules.linear", "ember.nn.modules.flatten", "ember.nn.init",
    "ember.nn.utils.clip_grad", "ember.nn.utils.convert_parameters", "ember.utils.hooks",
])
def test_docstring_examples_run(module_name):
    import collections
    import doctest
    import importlib
    import math

    module = importlib.import_module(module_name)
    globs = {**vars(module), "ember": ember, "nn": nn, "math": math,
             "collections": collections}
    result = doctest.testmod(module, extraglobs=globs, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# --- backward hooks ------------------------------------------------------------------------------
def _backward_hooked(lib, log):
    """A module with two outputs and full backward hooks that log and rewrite gradients."""

    class Split(lib.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.Linear(3, 4)

        def forward(self, x, scale=1.0):
            y = self.lin(x) * scale
            return y[:, :2], y[:, 2:]

    m = Split()
    m.register_full_backward_pre_hook(
        lambda mod, go: (log.append(("pre", len(go))), (go[0] * 2, go[1]))[1])
    m.register_full_backward_hook(
        lambda mod, gi, go: log.append(("full", [g is None for g in gi], len(go))))
    m.lin.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 3,) if gi[0] is not None
                                      else None)
    m.lin.register_full_backward_hook(lambda mod, gi, go: log.append("lin"), prepend=True)
    return m


def _run_backward(m, x):
    a, b = m(x, scale=0.5)
    (a.sum() * 2 + (b * b).sum()).backward()


@pytest.mark.parametrize("x_requires_grad", [True, False])
def test_full_backward_hooks_match_torch(x_requires_grad):
    le, lt = [], []
    me, mt = _backward_hooked(nn, le), _backward_hooked(tnn, lt)
    copy_weights(mt, me)
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    xe = ember.from_numpy(x.copy()).requires_grad_(x_requires_grad)
    xt = torch.from_numpy(x.copy()).requires_grad_(x_requires_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # "firing ... since no inputs require gradients"
        _run_backward(me, xe)
        _run_backward(mt, xt)
    assert le == lt and le[0] == ("pre", 2) and "lin" in le
    np.testing.assert_allclose(me.lin.weight.grad.numpy(), mt.lin.weight.grad.numpy(),
                               rtol=1e-5)
    if x_requires_grad:
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-5)


def test_backward_hook_handles_remove_and_bad_returns():
    lin = nn.Linear(2, 2)
    calls = []
    h = lin.register_full_backward_hook(lambda m, gi, go: calls.append(1))
    x = ember.ones(1, 2, requires_grad=True)
    lin(x).sum().backward()
    h.remove()
    lin(x).sum().backward()
    assert calls == [1] and not lin._backward_hooks
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of "
                                           "grad_input, got 2, but expected 1"):
        lin(x).sum().backward()
