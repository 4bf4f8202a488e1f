"""Tensors on device="cuda" (the emulator's device): factories, host<->device copies and
casts, views, the allocator's accounting through tensors, ember.cuda's device API, and the
error for an op without a CUDA kernel."""
import gc

import numpy as np
import pytest
from cudahelpers import check_cuda, torch_dtype
from helpers import ALL_DTYPES, layout_pair, np_data, pair, torch

import ember
from ember.cuda import _driver, _runtime

pytestmark = pytest.mark.usefixtures("cuda")


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_factories(dt):
    tdt = torch_dtype(dt)
    check_cuda(ember.zeros(2, 3, dtype=dt, device="cuda"), torch.zeros(2, 3, dtype=tdt))
    check_cuda(ember.ones(4, dtype=dt, device="cuda"), torch.ones(4, dtype=tdt))
    check_cuda(ember.full((3, 1), 1, dtype=dt, device="cuda"), torch.full((3, 1), 1, dtype=tdt))
    e = ember.empty_strided((2, 3), (1, 2), dtype=dt, device="cuda")
    assert e.stride() == (1, 2) and e.device == ember.device("cuda", 0)


def test_full_infers_dtype_and_arange_values():
    check_cuda(ember.full((2,), 7, device="cuda"), torch.full((2,), 7))
    check_cuda(ember.full((2,), 2.5, device="cuda"), torch.full((2,), 2.5))
    check_cuda(ember.arange(1, 2, 0.25, device="cuda"), torch.arange(1, 2, 0.25))
    check_cuda(ember.arange(5, device="cuda"), torch.arange(5))
    check_cuda(ember.scalar_tensor(3, device="cuda"), torch.scalar_tensor(3))


def test_factory_errors_are_torchs():
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t"):
        ember.full((2,), 300, dtype=ember.uint8, device="cuda")
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        ember.zeros(-1, device="cuda")


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("name", ["bool", "uint8", "int32", "int64", "float16", "bfloat16",
                                  "float32", "float64"])
def test_round_trip_keeps_values_and_layout(name, layout):
    e, t = layout_pair((3, 4), name, layout)
    d = e.cuda()
    assert d.is_cuda and not e.is_cuda and d.device == ember.device("cuda:0")
    assert d.stride() == t.clone().stride()          # preserve_format, like torch's .to
    check_cuda(d, t.clone())
    back = d.cpu()
    assert back.device.type == "cpu"
    np.testing.assert_array_equal(back.numpy(force=True), e.numpy(force=True))


@pytest.mark.parametrize("src", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("dst", ALL_DTYPES, ids=str)
def test_device_casts_follow_torch(src, dst):
    a = np_data((2, 5), "float32", 3, scale=40) - 20
    e, t = pair(a.astype(src.np) if src is not ember.bfloat16 else a.astype(np.float32))
    e, t = e.to(src), t.to(torch_dtype(src))
    got = e.cuda().to(dst)
    check_cuda(got, t.to(torch_dtype(dst)))


def test_copy_between_devices_broadcasts_and_casts():
    e = ember.zeros(2, 3, dtype=ember.float64, device="cuda")
    e.copy_(ember.tensor([1, 2, 3], dtype=ember.int32))          # host -> device, broadcast
    check_cuda(e, torch.tensor([[1., 2., 3.]] * 2, dtype=torch.float64))
    e.t().copy_(ember.arange(6.).view(3, 2))                     # into a non-contiguous view
    check_cuda(e, torch.arange(6.).view(3, 2).t().contiguous().double())
    host = ember.empty(3, 2, dtype=ember.float16)
    host.copy_(e.t())                                            # device (strided) -> host
    np.testing.assert_array_equal(host.numpy(), np.arange(6.).reshape(3, 2).astype(np.float16))
    d = ember.empty(2, 3, device="cuda")
    d.copy_(e[0])                                                # device -> device, broadcast
    check_cuda(d, torch.tensor([[0., 2., 4.]] * 2))
    with pytest.raises(RuntimeError, match="must match the size"):
        d.copy_(ember.zeros(4))


def test_views_share_device_memory():
    d = ember.arange(12.).cuda()
    v = d.view(3, 4)[1:, ::2]
    assert v.is_cuda and v.stride() == (4, 2) and v.storage_offset() == 4
    assert v.untyped_storage().data_ptr() == d.untyped_storage().data_ptr()
    v.fill_(-1)
    check_cuda(d, torch.tensor([0, 1, 2, 3, -1, 5, -1, 7, -1, 9, -1, 11.]))
    check_cuda(v.contiguous(), torch.full((2, 2), -1.))


def test_fill_and_zero():
    d = ember.empty(5, dtype=ember.int16, device="cuda")
    d.fill_(3)
    check_cuda(d, torch.full((5,), 3, dtype=torch.int16))
    d.fill_(ember.tensor(2.7))                               # a CPU 0-dim value: cast like copy_
    check_cuda(d, torch.full((5,), 2, dtype=torch.int16))
    d.zero_()
    check_cuda(d, torch.zeros(5, dtype=torch.int16))
    with pytest.raises(RuntimeError, match="value cannot be converted"):
        d.fill_(1e10)


def test_repr_names_the_device():
    assert repr(ember.ones(2, device="cuda")) == "tensor([1., 1.], device='cuda:0')"
    assert ember.ones(2, device="cuda").tolist() == [1.0, 1.0]
    assert ember.ones(1, device="cuda", dtype=ember.int64).item() == 1


def test_numpy_of_a_cuda_tensor_is_torchs_error():
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy|"
                                        "can't convert cuda device type tensor to numpy"):
        ember.ones(2, device="cuda").numpy()


def test_memory_accounting_through_tensors():
    gc.collect()
    ember.cuda.empty_cache()
    base = ember.cuda.memory_allocated()
    x = ember.empty(1000, device="cuda")                      # 4000 bytes -> 4096
    assert ember.cuda.memory_allocated() - base == 4096
    y = ember.empty(3 << 20, dtype=ember.uint8, device="cuda")  # 3 MiB: large pool
    assert ember.cuda.memory_stats()["allocated_bytes.large_pool.current"] >= 3 << 20
    assert ember.cuda.memory_reserved() >= (2 << 20) + (20 << 20)
    peak = ember.cuda.max_memory_allocated()
    del x, y
    assert ember.cuda.memory_allocated() == base
    assert ember.cuda.max_memory_allocated() == peak
    ember.cuda.reset_peak_memory_stats()
    assert ember.cuda.max_memory_allocated() == base
    ember.cuda.empty_cache()
    assert "PyTorch CUDA memory summary, device ID 0" in ember.cuda.memory_summary()


def test_out_of_memory_error():
    with _runtime.using(_driver.EmulatorDriver(memory=24 << 20)):
        keep = ember.empty(4 << 20, dtype=ember.uint8, device="cuda")     # a 20 MiB segment
        more = ember.empty(6 << 20, dtype=ember.uint8, device="cuda")     # fits in its rest
        with pytest.raises(ember.cuda.OutOfMemoryError, match="CUDA out of memory. Tried to "
                           "allocate 12.00 MiB. GPU 0 has a total capacity of 24.00 MiB of "
                           "which 4.00 MiB is free. Of the allocated memory 10.00 MiB"):
            ember.empty(12 << 20, dtype=ember.uint8, device="cuda")
        assert ember.cuda.memory_stats()["num_ooms"] == 1
        del keep, more


def test_record_stream_and_streams():
    s = ember.cuda.Stream()
    assert s != ember.cuda.default_stream() and ember.cuda.current_stream() == \
        ember.cuda.default_stream()
    with ember.cuda.stream(s):
        assert ember.cuda.current_stream() == s
        x = ember.ones(10, device="cuda")
    x.record_stream(ember.cuda.default_stream())
    del x
    start, end = ember.cuda.Event(enable_timing=True), ember.cuda.Event(enable_timing=True)
    start.record()
    ember.ones(100, device="cuda")
    end.record()
    ember.cuda.synchronize()
    assert start.elapsed_time(end) >= 0 and end.query()
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        ember.cuda.Event().elapsed_time(end)


def test_device_api():
    assert ember.cuda.is_available() and ember.cuda.device_count() == 1
    assert ember.cuda.current_device() == 0
    ember.cuda.set_device(0)
    with ember.cuda.device(0):
        assert ember.cuda.current_device() == 0
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        ember.cuda.set_device(1)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        ember.zeros(1, device="cuda:1")
    assert "emulator" in ember.cuda.get_device_name()
    assert ember.cuda.get_device_capability() == (8, 0)
    ember.cuda.manual_seed(5)
    assert ember.cuda.initial_seed() == 5
    assert ember.cuda.is_bf16_supported()


def test_an_op_without_a_cuda_kernel_names_op_and_key():
    x = ember.ones(3, device="cuda")
    with pytest.raises(NotImplementedError, match="Could not run 'aten::logcumsumexp' with "
                       "arguments from the 'CUDA' backend"):
        x.logcumsumexp(0)


def test_cuda_array_interface():
    d = ember.arange(12, dtype=ember.int32).cuda().view(3, 4).t()
    ai = d.__cuda_array_interface__
    assert ai["shape"] == (4, 3) and ai["strides"] == (4, 16) and ai["typestr"] == "<i4"
    assert ai["data"] == (d.data_ptr(), False) and ai["version"] == 2
    with pytest.raises(AttributeError, match="non-CUDA tensor"):
        _ = ember.ones(2).__cuda_array_interface__
    with pytest.raises(RuntimeError, match="requires grad"):
        _ = ember.ones(2, device="cuda", requires_grad=True).__cuda_array_interface__


def test_autocast_cuda_and_grad_scaler():
    a, b = ember.randn(4, 3, device="cuda"), ember.randn(3, 5, device="cuda")
    with ember.autocast("cuda"):
        c = a @ b
    assert c.dtype is ember.float16 and c.is_cuda
    w = ember.ones(3, device="cuda", requires_grad=True)
    opt = ember.optim.SGD([w], lr=0.1)
    scaler = ember.amp.GradScaler("cuda", init_scale=8.0)
    scaler.scale((w * 2).sum()).backward()
    scaler.step(opt)
    scaler.update()
    check_cuda(w.detach(), torch.full((3,), 0.8), {"float32": (1e-6, 1e-6)})
    assert scaler.get_scale() == 8.0
    w.grad = ember.full((3,), float("inf"), device="cuda")   # an overflow: the step is skipped
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 4.0
    check_cuda(w.detach(), torch.full((3,), 0.8), {"float32": (1e-6, 1e-6)})


# --------------------------------------------------------------------------- DLPack (CuPy interop)
def test_dlpack_round_trip_shares_cuda_memory():
    from ember.cuda import _dlpack
    x = ember.arange(12.0).view(3, 4).cuda().t()        # strided
    assert x.__dlpack_device__() == (2, 0)
    y = ember.from_dlpack(x.__dlpack__())                # a kDLCUDA capsule
    assert y.is_cuda and y.shape == x.shape and y.stride() == x.stride()
    assert y.data_ptr() == x.data_ptr() and y.dtype is ember.float32
    y[0, 0] = 7.0
    assert x[0, 0].item() == 7.0
    n = len(_dlpack._exported)
    del y
    gc.collect()
    assert len(_dlpack._exported) == n - 1               # the consumer's deleter ran
    b = ember.ones(2, dtype=ember.bfloat16, device="cuda")
    assert ember.from_dlpack(b.__dlpack__()).dtype is ember.bfloat16
    with pytest.raises(RuntimeError, match="Can't export tensors that require gradient"):
        ember.ones(2, device="cuda", requires_grad=True).__dlpack__()


class _CupyLike:
    """A stand-in for a CuPy array: device memory described by __cuda_array_interface__ (a
    real CuPy array on a GPU behaves the same) or by DLPack."""

    def __init__(self, t):
        self.t = t
        self.__cuda_array_interface__ = t.__cuda_array_interface__


class _DLPackOnly:
    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_from_dlpack_of_cuda_array_objects():
    src = ember.arange(6, dtype=ember.int32).view(2, 3).cuda()
    for obj in (_CupyLike(src[:, 1:]), _DLPackOnly(src[:, 1:])):
        y = ember.from_dlpack(obj)
        assert y.is_cuda and y.tolist() == [[1, 2], [4, 5]] and y.stride() == (3, 1)
        z = ember.from_dlpack(obj, device="cpu", copy=True)
        assert z.device.type == "cpu" and z.tolist() == [[1, 2], [4, 5]]
    with pytest.raises(RuntimeError, match="ember shares memory on the cuda:0 only"):
        ember.from_dlpack(_CupyLike(src), device="cpu")
    torch_cpu = torch.arange(3)                              # CPU producers still work
    assert ember.from_dlpack(torch_cpu).tolist() == [0, 1, 2]


# --------------------------------------------------------------------------- pinned memory
def test_pin_memory_copies_into_pinned_host_memory():
    x = ember.arange(12.0).view(3, 4).t()                 # strided
    assert not x.is_pinned()
    p = x.pin_memory()
    assert p.is_pinned() and p.device.type == "cpu" and p is not x
    assert p.stride() == x.stride() and p.tolist() == x.tolist()
    assert p[1:].is_pinned() and p.pin_memory() is p       # views too; pinned once
    assert p.cuda(non_blocking=True).cpu().tolist() == x.tolist()
    assert not ember.ones(2, device="cuda").is_pinned()
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        ember.ones(2, device="cuda").pin_memory()


def test_dataloader_pins_batches():
    data = ember.utils.data.TensorDataset(ember.arange(6.0).view(3, 2), ember.arange(3))
    batches = list(ember.utils.data.DataLoader(data, batch_size=2, pin_memory=True))
    assert all(t.is_pinned() for b in batches for t in b)
    assert batches[0][0].tolist() == [[0.0, 1.0], [2.0, 3.0]]
    plain = next(iter(ember.utils.data.DataLoader(data, batch_size=2)))
    assert not plain[0].is_pinned()


@pytest.mark.usefixtures("no_cuda")
def test_pin_memory_without_cuda_is_torchs_error():
    x, tx = ember.ones(3), torch.ones(3)
    assert x.is_pinned() is tx.is_pinned() is False
    for t in (x, tx):
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is"):
            t.pin_memory()
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no acc"):
        assert [b.tolist() for b in ember.utils.data.DataLoader([1, 2], pin_memory=True)] == \
            [[1], [2]]
