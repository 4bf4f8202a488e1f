"""Tensor metadata and conversions: storage sharing, numpy(), DLPack, item/tolist,
contiguity and memory formats, requires_grad flags, subclass helpers."""
from __future__ import annotations

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def test_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ember.from_numpy(a)
    a[0, 0] = 42
    assert t[0, 0].item() == 42
    t.numpy()[1, 2] = -1
    assert a[1, 2] == -1
    assert np.shares_memory(t.numpy(), a)


def test_from_numpy_of_strided_view_keeps_strides():
    base = np.arange(24, dtype=np.int64).reshape(4, 6)
    view = base[::2, 1::2]
    t = ember.from_numpy(view)
    tt = torch.from_numpy(view)
    assert t.shape == tt.shape and t.stride() == tt.stride()
    assert t.tolist() == tt.tolist()


def test_storage_shared_by_views():
    t = ember.arange(10)
    v = t[2:5]
    assert v.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
    assert v.data_ptr() == t.data_ptr() + 2 * t.element_size()
    assert v.storage_offset() == 2
    assert t.untyped_storage().nbytes() == 80


def test_item_tolist_and_python_conversions():
    t = ember.tensor([[1.5, 2.0], [3.0, 4.25]])
    assert t.tolist() == [[1.5, 2.0], [3.0, 4.25]]
    assert t[1, 1].item() == 4.25
    assert float(t[0, 0]) == 1.5 and int(t[1, 0]) == 3
    assert bool(ember.tensor([True]))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(t)
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        t.item()
    assert ember.tensor([1, 2], dtype=ember.bfloat16).tolist() == [1.0, 2.0]
    assert [1, 2, 3][ember.tensor(1)] == 2


def test_contiguity_and_channels_last():
    x = ember.empty(2, 3, 4, 5)
    assert x.is_contiguous() and not x.is_contiguous(memory_format=ember.channels_last)
    cl = ember.empty(2, 3, 4, 5, memory_format=ember.channels_last)
    tcl = torch.empty(2, 3, 4, 5, memory_format=torch.channels_last)
    assert cl.stride() == tcl.stride()
    assert cl.is_contiguous(memory_format=ember.channels_last) and not cl.is_contiguous()
    assert ember.empty_like(cl).stride() == torch.empty_like(tcl).stride()
    assert cl.clone().stride() == tcl.clone().stride()
    assert cl.contiguous().stride() == tcl.contiguous().stride()
    assert x.t().is_contiguous() if x.dim() == 2 else not x.transpose(0, 1).is_contiguous()


def test_dlpack_round_trips_with_numpy_and_torch():
    t = ember.arange(6, dtype=ember.float32).view(2, 3)
    n = np.from_dlpack(t)
    assert np.shares_memory(n, t.numpy())
    tt = torch.from_dlpack(t)
    assert tt.tolist() == t.tolist()
    back = ember.from_dlpack(torch.arange(4, dtype=torch.int32))
    assert back.dtype == ember.int32 and back.tolist() == [0, 1, 2, 3]
    assert t.__dlpack_device__() == (1, 0)


def test_requires_grad_rules():
    x = ember.ones(2)
    assert not x.requires_grad and x.is_leaf and x.grad is None
    x.requires_grad_()
    assert x.requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        ember.ones(2, dtype=ember.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="Use tensor.detach"):
        x.numpy()


def test_conversion_methods():
    x = ember.tensor([1.7, -2.2])
    assert x.long().dtype == ember.int64 and x.long().tolist() == [1, -2]
    assert x.double().dtype == ember.float64
    assert x.bool().tolist() == [True, True]
    assert x.type() == "ember.FloatTensor"
    assert x.type(ember.int32).dtype == ember.int32
    assert x.cpu() is x


def test_len_iter_and_shape_api():
    x = ember.zeros(3, 2)
    assert len(x) == 3 and [r.shape for r in x] == [(2,)] * 3
    assert x.shape == ember.Size([3, 2]) and repr(x.shape) == "ember.Size([3, 2])"
    assert x.size(1) == 2 and x.size(-1) == 2 and x.ndim == 2 and x.numel() == 6
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.size(2)
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(ember.tensor(1.0))


def test_meta_tensors_have_no_data():
    m = ember.empty(2, 3, device="meta")
    assert m.is_meta and m.device == ember.device("meta")
    with pytest.raises(NotImplementedError, match="meta"):
        m.tolist()
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        m.numpy()


def test_make_subclass_shares_data():
    class Sub(ember.Tensor):
        pass
    x = ember.ones(3)
    s = ember.Tensor._make_subclass(Sub, x)
    assert type(s) is Sub and s.data_ptr() == x.data_ptr()
    assert type(x.as_subclass(Sub)) is Sub


def test_deepcopy_clones_data_and_flags():
    import copy
    x = ember.arange(6, dtype=ember.float32).view(2, 3).t()
    x.requires_grad_()
    x.grad = ember.ones(3, 2)
    y = copy.deepcopy(x)
    assert y.tolist() == x.tolist() and y.requires_grad and y.grad.tolist() == [[1.0] * 2] * 3
    assert y.data_ptr() != x.data_ptr() and y.stride() == x.stride()
    pair = copy.deepcopy([x, x])
    assert pair[0] is pair[1]


def test_typename_like_torch():
    pairs = [(ember.ones(2), torch.ones(2)), (ember.ones(2, dtype=ember.int64),
                                             torch.ones(2, dtype=torch.int64)),
             (3, 3), ("s", "s"), (ember.nn.Linear(2, 2), torch.nn.Linear(2, 2))]
    for e, t in pairs:
        assert ember.typename(e) == torch.typename(t).replace("torch", "ember")


@pytest.mark.parametrize("shape, stride", [
    ((3, 0, 2), (0, 0, 0)), ((3, 0, 2), (5, 7, 9)), ((0,), (3,)),
    ((2, 0, 3, 4), (1, 2, 3, 4)), ((2, 0, 3, 4), (0, 1, 0, 0)), ((2, 3, 0, 4), (0, 1, 0, 3)),
    ((2, 1, 0, 4), (0, 1, 0, 3)), ((2, 3, 4, 5), (60, 1, 15, 3)),
])
def test_is_contiguous_of_empty_tensors_as_torch(shape, stride):
    """An empty tensor is contiguous whatever its strides; channels_last gives it no pass."""
    e, t = ember.empty_strided(shape, stride), torch.empty_strided(shape, stride)
    assert e.is_contiguous() == t.is_contiguous()
    if len(shape) == 4:
        assert (e.is_contiguous(memory_format=ember.channels_last)
                == t.is_contiguous(memory_format=torch.channels_last))
