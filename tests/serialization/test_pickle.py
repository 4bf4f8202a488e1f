"""Plain pickle.dumps / pickle.loads of tensors, storages and modules, compared with
torch's own pickling: values, dtypes, shapes, strides, offsets, requires_grad, classes and
(non-)sharing of storage between loaded tensors."""
import pickle

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def roundtrip(obj):
    return pickle.loads(pickle.dumps(obj))


def layouts(fw):
    """The same tensors in both libraries: contiguous, transposed, offset views, 0-d,
    empty, several dtypes."""
    base = fw.arange(24, dtype=fw.float32).reshape(2, 3, 4)
    return [base, base.transpose(0, 2), base[1, 1:, ::2], base[0, 0, 3],
            fw.zeros(0, 3), fw.ones(3, dtype=fw.bool), fw.arange(5) * 7,
            fw.ones(2, 2, dtype=fw.bfloat16) / 3, fw.ones(3, dtype=fw.float16) / 3,
            fw.arange(6, dtype=fw.float64).reshape(3, 2)]


@pytest.mark.parametrize("i", range(10))
def test_tensor_layouts_match_torch(i):
    e, t = roundtrip(layouts(ember)[i]), roundtrip(layouts(torch)[i])
    assert type(e) is ember.Tensor
    assert tuple(e.shape) == tuple(t.shape)
    assert e.stride() == t.stride()
    assert e.storage_offset() == t.storage_offset()
    assert e.untyped_storage().nbytes() == t.untyped_storage().nbytes()
    assert e.dtype.name == str(t.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(e.float().numpy(), t.float().numpy())


def test_views_load_as_separate_memories_like_torch():
    results = []
    for fw in (torch, ember):
        a = fw.arange(4.0)
        la, lb = roundtrip([a, a[1:]])
        lb[0] = 100.0
        results.append((la.tolist(), lb.tolist(), lb.storage_offset()))
    assert results[0] == results[1] == ([0, 1, 2, 3], [100, 2, 3], 1)


def test_same_tensor_twice_loads_as_one_object():
    a = ember.ones(2)
    l1, l2 = roundtrip([a, a])
    assert l1 is l2


def test_autograd_state_like_torch():
    for fw in (torch, ember):
        x = fw.ones(2, requires_grad=True)
        x.grad = fw.ones(2)
        y = x * 2
        lx, ly = roundtrip(x), roundtrip(y)
        assert lx.requires_grad and lx.is_leaf and lx.grad is None
        assert ly.requires_grad and ly.is_leaf and ly.grad_fn is None
        assert ly.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("requires_grad", [True, False])
def test_parameter_keeps_its_class(requires_grad):
    for fw in (torch, ember):
        p = roundtrip(fw.nn.Parameter(fw.ones(2), requires_grad=requires_grad))
        assert type(p) is fw.nn.Parameter
        assert p.requires_grad is requires_grad


class Tagged(ember.Tensor):
    pass


class TorchTagged(torch.Tensor):
    pass


def test_subclass_keeps_class_and_attributes():
    for fw, cls in ((torch, TorchTagged), (ember, Tagged)):
        t = fw.arange(3.0).as_subclass(cls)
        t.note = "kept"
        r = roundtrip(t)
        assert type(r) is cls and r.note == "kept" and r.tolist() == [0.0, 1.0, 2.0]


def test_module_roundtrip_matches_torch():
    torch.manual_seed(0)
    t_model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                                  torch.nn.ReLU(), torch.nn.Linear(4, 2))
    e_model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4),
                                  ember.nn.ReLU(), ember.nn.Linear(4, 2))
    e_model.load_state_dict({k: ember.from_numpy(v.numpy().copy())
                             for k, v in t_model.state_dict().items()})
    e_loaded, t_loaded = roundtrip(e_model), roundtrip(t_model)
    assert type(e_loaded[0].weight) is ember.nn.Parameter
    assert [n for n, _ in e_loaded.named_parameters()] == \
        [n for n, _ in t_loaded.named_parameters()]
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    e_out = e_loaded(ember.from_numpy(x.copy()))
    t_out = t_loaded(torch.from_numpy(x.copy()))
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-6,
                               atol=1e-7)
    e_out.sum().backward()
    assert e_loaded[0].weight.grad is not None and e_model[0].weight.grad is None


def test_meta_tensor_and_storage():
    e = roundtrip(ember.empty(2, 3, device="meta").t())
    t = roundtrip(torch.empty(2, 3, device="meta").t())
    assert str(e.device) == str(t.device) == "meta"
    assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride()
    storage = ember.arange(3, dtype=ember.int32).untyped_storage()
    loaded = roundtrip(storage)
    assert loaded.nbytes() == 12
    assert bytes(loaded.bytes) == bytes(storage.bytes)
