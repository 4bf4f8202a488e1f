"""The inductor backend on CUDA tensors (the emulator's device): fused groups become CUDA C
kernels whose results equal eager CUDA's, forward and backward; the generated sources also
compile with NVRTC for a real GPU."""
import numpy as np
import pytest

import ember
from ember._inductor import cuda as inductor_cuda
from ember.cuda import _driver, _emulator, _runtime

nn = ember.nn


@pytest.fixture(scope="module", autouse=True)
def cuda():
    if not _emulator.available():
        pytest.skip("the CUDA emulator needs g++ and the nvidia-cuda-runtime/crt/cccl headers")
    with _runtime.using(_driver.EmulatorDriver()) as d:
        yield d


@pytest.fixture
def graphs(monkeypatch):
    """The CudaGraphs the backend builds during a test."""
    made = []
    original = inductor_cuda.CudaGraph.__init__

    def spy(self, gm):
        original(self, gm)
        made.append(self)
    monkeypatch.setattr(inductor_cuda.CudaGraph, "__init__", spy)
    ember._dynamo.reset()
    return made


def _same(a, b, tol=1e-5):
    assert a.device.type == b.device.type == "cuda" and a.dtype == b.dtype
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().cpu().numpy(),
                               rtol=tol, atol=tol)


def _x(*shape, dtype=ember.float32):
    ember.manual_seed(len(shape) + sum(shape))
    return ember.randn(*shape, dtype=dtype).to("cuda")


CASES = {
    "broadcast_chain": (lambda x, b: ((x * b + 1).relu() - b).tanh(), lambda: (_x(4, 5), _x(5))),
    "trailing_sum": (lambda x: (x.exp() * 2).sum(1), lambda: (_x(3, 7),)),
    "trailing_mean_keepdim": (lambda x: (x - 1).abs().mean(-1, keepdim=True),
                              lambda: (_x(2, 3, 4),)),
    "amax": (lambda x: (x * x).amax(1), lambda: (_x(6, 5),)),
    "compare_where": (lambda x, y: ember.where(x > y, x * 2, y - 1), lambda: (_x(3, 4), _x(3, 4))),
    "float64_sigmoid": (lambda x: x.sigmoid() * x.neg(), lambda: (_x(5, 3, dtype=ember.float64),)),
    "transposed_input": (lambda x: (x.t() + 1) * 3, lambda: (_x(4, 6),)),
    "int64": (lambda x: (x + 3) * x - 1, lambda: (ember.arange(12, dtype=ember.int64)
                                                  .reshape(3, 4).to("cuda"),)),
    "empty": (lambda x: (x + 1).relu() * 2, lambda: (ember.ones(0, 3).to("cuda"),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fused_cuda_kernels_equal_eager(name, graphs):
    fn, inputs = CASES[name]
    args = inputs()
    want = fn(*args)
    got = ember.compile(fn, backend="inductor")(*args)
    _same(got, want)
    if name != "empty":
        assert sum(len(g.kernels) for g in graphs) >= 1


def test_training_step_on_cuda_equals_eager(graphs):
    def make():
        ember.manual_seed(0)
        return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)).to("cuda")
    eager, compiled_model = make(), make()
    compiled = ember.compile(compiled_model, backend="inductor")
    x, y = _x(8, 6), ember.tensor([0, 1, 2, 0, 1, 2, 0, 1]).to("cuda")
    for model, run in ((eager, eager), (compiled_model, compiled)):
        opt = ember.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(run(x), y)
            loss.backward()
            opt.step()
    for p, q in zip(eager.parameters(), compiled_model.parameters()):
        _same(q, p)
    assert sum(len(g.kernels) for g in graphs) >= 1


def test_generated_sources_compile_with_nvrtc(graphs, tmp_path):
    from ember.cuda import _nvrtc, _toolchain
    try:
        _nvrtc._lib()
        _toolchain.cuda_include_dir()
    except OSError as e:
        pytest.skip(str(e))
    fn, inputs = CASES["trailing_sum"]
    ember.compile(fn, backend="inductor")(*inputs())
    fn, inputs = CASES["compare_where"]
    ember.compile(fn, backend="inductor")(*inputs())
    sources = [k.source for g in graphs for k in g.kernels]
    assert sources
    for i, src in enumerate(sources):
        path = tmp_path / f"fused{i}.cu"
        path.write_text(src)
        assert _nvrtc.compile_cuda(path, "sm_80")


def test_symbolic_sizes_reuse_one_graph_and_its_kernels(graphs):
    """dynamic=True: the fused kernels take the sizes as arguments, computed from the inputs
    per call, so new batch sizes run the same graph and kernels, forward and backward."""
    from ember._dynamo import counters

    def fn(x, b):
        return ((x * b + 1).relu() - b).sum(1) + (x - 1).tanh().mean(1)
    compiled = ember.compile(fn, backend="inductor", dynamic=True)
    b = _x(5)
    for n in (3, 6, 2):
        x = _x(n, 5)
        xe, be = (t.detach().requires_grad_() for t in (x, b))
        xc, bc = (t.detach().requires_grad_() for t in (x, b))
        want, got = fn(xe, be), compiled(xc, bc)
        _same(got, want)
        want.sum().backward()
        got.sum().backward()
        _same(xc.grad, xe.grad)
        _same(bc.grad, be.grad)
    assert counters["frames"]["total"] == 1
    assert any(g.kernels for g in graphs), [len(g.kernels) for g in graphs]
    assert all("reduced" in k.source for g in graphs for k in g.kernels)
