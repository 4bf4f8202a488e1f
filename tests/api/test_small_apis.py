"""The small APIs every torch script touches, against torch: isclose/allclose/equal,
matmul precision and determinism switches, torch.backends' flags, torch.accelerator,
torch.onnx's import, DataParallel, activation checkpointing, Tensor.is_xpu & co."""
import warnings

import numpy as np
import pytest
from helpers import raises_like

import ember
import ember.backends.cudnn
import ember.onnx
import ember.utils.checkpoint

torch = pytest.importorskip("torch")
checkpoint_t = pytest.importorskip("torch.utils.checkpoint")


def pair(values, dtype):
    return ember.tensor(values, dtype=getattr(ember, dtype)), torch.tensor(
        values, dtype=getattr(torch, dtype))


CLOSE_CASES = [
    ([1.0, 2.0, float("nan"), float("inf"), -float("inf"), 0.0], [1.0 + 1e-6, 2.1, float("nan"),
                                                                  float("inf"), float("inf"), 1e-9]),
    ([1.0, 100.0, -3.0], [1.001, 100.05, -3.0]),
]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("case", range(len(CLOSE_CASES)))
@pytest.mark.parametrize("options", [{}, {"equal_nan": True}, {"rtol": 0, "atol": 0},
                                     {"rtol": 1e-2, "atol": 0.2}, {"rtol": 0.0, "atol": 1e-3}])
def test_isclose_allclose_equal_floats(dtype, case, options):
    (ea, ta), (eb, tb) = (pair(v, dtype) for v in CLOSE_CASES[case])
    got, want = ember.isclose(ea, eb, **options), torch.isclose(ta, tb, **options)
    assert got.dtype is ember.bool and got.tolist() == want.tolist()
    assert ea.isclose(eb, **options).tolist() == want.tolist()
    assert ember.allclose(ea, eb, **options) is torch.allclose(ta, tb, **options)
    assert ea.allclose(eb, **options) is ta.allclose(tb, **options)
    assert ember.equal(ea, eb) is torch.equal(ta, tb) and ea.equal(ea) is ta.equal(ta)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64"])
def test_isclose_of_integers_as_torch(dtype):
    a, b = ([1, 0, 200, 5], [1, 1, 0, 7]) if dtype != "bool" else ([1, 0, 1, 0], [1, 1, 0, 0])
    (ea, ta), (eb, tb) = pair(a, dtype), pair(b, dtype)
    for options in ({}, {"atol": 1}, {"rtol": 0.3}, {"atol": 100}, {"rtol": 0, "atol": 0}):
        assert ember.isclose(ea, eb, **options).tolist() == torch.isclose(ta, tb, **options).tolist()
        assert ember.allclose(ea, eb, **options) is torch.allclose(ta, tb, **options)


def test_isclose_broadcasts_and_equal_compares_shapes_and_promotes():
    e, t = ember.tensor([[1.0, 2.0]]), torch.tensor([[1.0, 2.0]])
    assert ember.isclose(e, ember.tensor(1.0)).tolist() == torch.isclose(t, torch.tensor(1.0)).tolist()
    assert ember.allclose(ember.ones(2), ember.ones(3, 2)) is torch.allclose(torch.ones(2), torch.ones(3, 2))
    for a, b in [((2,), (3,)), ((2, 1), (2,)), ((2,), (2,))]:
        assert ember.equal(ember.ones(a), ember.ones(b)) is torch.equal(torch.ones(a), torch.ones(b))
    assert ember.equal(ember.ones(2), ember.ones(2, dtype=ember.int64)) is torch.equal(
        torch.ones(2), torch.ones(2, dtype=torch.int64))
    nan_e, nan_t = ember.tensor([float("nan")]), torch.tensor([float("nan")])
    assert ember.equal(nan_e, nan_e) is torch.equal(nan_t, nan_t)


@pytest.mark.parametrize("call", [
    lambda lib: lib.isclose(lib.ones(2), lib.ones(2, dtype=lib.float64)),
    lambda lib: lib.isclose(lib.ones(2), lib.ones(2), rtol=-1),
    lambda lib: lib.isclose(lib.ones(2), lib.ones(2), atol=-0.5),
    lambda lib: lib.isclose(lib.ones(2), 1),
    lambda lib: lib.allclose(lib.ones(2), [1, 1]),
    lambda lib: lib.equal(lib.ones(2), 1),
    lambda lib: lib.isclose(lib.ones(2), lib.ones(3)),
])
def test_isclose_allclose_equal_errors_as_torch(call):
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(type(want.value)) as got:
        call(ember)
    if "did not match" in str(want.value) or "must be" in str(want.value):
        assert str(got.value) == str(want.value)


# --- global switches ------------------------------------------------------------------------
def test_float32_matmul_precision_and_allow_tf32_as_torch():
    for lib in (ember, torch):
        assert lib.get_float32_matmul_precision() == "highest"
        assert lib.backends.cuda.matmul.allow_tf32 is False
    try:
        for precision in ("high", "medium", "highest"):
            ember.set_float32_matmul_precision(precision)
            torch.set_float32_matmul_precision(precision)
            assert ember.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
            assert ember.backends.cuda.matmul.allow_tf32 is torch.backends.cuda.matmul.allow_tf32
        for value in (True, False):
            ember.backends.cuda.matmul.allow_tf32 = value
            torch.backends.cuda.matmul.allow_tf32 = value
            assert ember.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
        with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
            ember.set_float32_matmul_precision("fast")
        assert ember.get_float32_matmul_precision() == "highest"
    finally:
        ember.set_float32_matmul_precision("highest")
        torch.set_float32_matmul_precision("highest")


def test_deterministic_algorithms_as_torch():
    try:
        for mode, warn_only in [(True, False), (True, True), (False, False)]:
            for lib in (ember, torch):
                lib.use_deterministic_algorithms(mode, warn_only=warn_only)
            for name in ("are_deterministic_algorithms_enabled", "get_deterministic_debug_mode",
                         "is_deterministic_algorithms_warn_only_enabled"):
                assert getattr(ember, name)() == getattr(torch, name)(), name
        for mode in ("warn", 2, "default"):
            ember.set_deterministic_debug_mode(mode)
            torch.set_deterministic_debug_mode(mode)
            assert ember.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
        for bad in ("x", 1):
            with pytest.raises(TypeError) as want:
                torch.use_deterministic_algorithms(bad)
            with pytest.raises(TypeError) as got:
                ember.use_deterministic_algorithms(bad)
            assert str(got.value) == str(want.value)
        raises_like(lambda: ember.set_deterministic_debug_mode("loud"),
                    lambda: torch.set_deterministic_debug_mode("loud"), "invalid value")
    finally:
        ember.use_deterministic_algorithms(False)
        torch.use_deterministic_algorithms(False)


def test_backend_flags_have_torchs_names_and_defaults():
    from ember.backends import cudnn
    assert cudnn is ember.backends.cudnn
    for module, names in [("cudnn", ["enabled", "benchmark", "deterministic", "allow_tf32",
                                     "benchmark_limit"]),
                          ("mkldnn", ["enabled", "deterministic"])]:
        for name in names:
            assert getattr(getattr(ember.backends, module), name) == getattr(
                getattr(torch.backends, module), name), (module, name)
    for module, name in [("cudnn", "is_available"), ("mps", "is_available"), ("mps", "is_built"),
                         ("cuda", "is_built"), ("cuda", "flash_sdp_enabled"),
                         ("cuda", "mem_efficient_sdp_enabled"), ("cuda", "math_sdp_enabled"),
                         ("cudnn", "version")]:
        assert getattr(getattr(ember.backends, module), name)() == getattr(
            getattr(torch.backends, module), name)(), (module, name)
    assert ember.backends.mkldnn.is_available() is False  # (ember has no oneDNN)
    assert ember.backends.cuda.matmul.allow_fp16_reduced_precision_reduction == \
        torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction


def test_backend_flags_are_settable_and_flags_restores_them():
    cudnn = ember.backends.cudnn
    with cudnn.flags(enabled=False, benchmark=True, deterministic=True):
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (False, True, True)
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (True, False, False)
    cudnn.benchmark = True
    try:
        assert ember.backends.cudnn.benchmark is True
    finally:
        cudnn.benchmark = False
    ember.backends.cuda.enable_flash_sdp(False)
    assert ember.backends.cuda.flash_sdp_enabled() is False
    ember.backends.cuda.enable_flash_sdp(True)


def test_accelerator_as_on_a_cpu_torch():
    for name in ("current_accelerator", "is_available", "device_count"):
        assert getattr(ember.accelerator, name)() == getattr(torch.accelerator, name)(), name


def test_onnx_imports_and_export_says_it_is_not_built():
    assert ember.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export()
    with pytest.raises(NotImplementedError, match="ember.onnx.export is not implemented"):
        ember.onnx.export(ember.nn.Linear(2, 2), (ember.ones(1, 2),), "model.onnx")


def test_tensor_device_flags_as_torch():
    e, t = ember.ones(2), torch.ones(2)
    for name in ("is_xpu", "is_mps", "is_quantized", "is_cuda", "is_cpu", "is_meta"):
        assert getattr(e, name) is getattr(t, name), name
    assert ember.empty(1, device="meta").is_meta is torch.empty(1, device="meta").is_meta


# --- DataParallel ---------------------------------------------------------------------------
def test_data_parallel_passes_through_like_torch_without_gpus():
    from ember.nn.parallel import DataParallel, data_parallel
    assert DataParallel is ember.nn.DataParallel
    torch.manual_seed(0)
    tm = torch.nn.DataParallel(torch.nn.Linear(3, 2), device_ids=[0])
    em = ember.nn.DataParallel(ember.nn.Linear(3, 2), device_ids=[0])
    assert list(em.state_dict()) == list(tm.state_dict())
    em.load_state_dict({k: ember.tensor(v.tolist()) for k, v in tm.state_dict().items()})
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    np.testing.assert_allclose(em(ember.from_numpy(x)).detach().numpy(),
                               tm(torch.from_numpy(x)).detach().numpy(), rtol=1e-6)
    assert em.module is em._modules["module"] and em.device_ids == tm.device_ids == []
    np.testing.assert_allclose(data_parallel(em.module, ember.from_numpy(x)).detach().numpy(),
                               em(ember.from_numpy(x)).detach().numpy())


# --- checkpoint -----------------------------------------------------------------------------
def make_pair():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    em = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.Tanh(), ember.nn.Linear(8, 3))
    em.load_state_dict({k: ember.tensor(v.double().tolist()) for k, v in tm.double().state_dict().items()})
    return em.double(), tm


@pytest.mark.parametrize("input_requires_grad", [True, False])
def test_checkpoint_gradients_match_torch(input_requires_grad):
    em, tm = make_pair()
    x = np.linspace(-1, 1, 20).reshape(5, 4)
    ex = ember.tensor(x, requires_grad=input_requires_grad)
    tx = torch.tensor(x, requires_grad=input_requires_grad)

    def body(lib, model):
        return lambda inp, scale=1.0: (model(inp) * scale, model(inp).sum())

    e_out, e_sum = ember.utils.checkpoint.checkpoint(body(ember, em), ex, use_reentrant=False,
                                                     scale=2.0)
    t_out, t_sum = checkpoint_t.checkpoint(body(torch, tm), tx, use_reentrant=False,
                                                     scale=2.0)
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    (e_out.pow(2).sum() + e_sum).backward()
    (t_out.pow(2).sum() + t_sum).backward()
    for (name, ep), tp in zip(em.named_parameters(), tm.parameters()):
        np.testing.assert_allclose(ep.grad.numpy(), tp.grad.numpy(), rtol=1e-12, err_msg=name)
    if input_requires_grad:
        np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


def test_checkpoint_replays_the_rng_and_warns_like_torch():
    def run(use_checkpoint):
        ember.manual_seed(3)
        layer = ember.nn.Linear(6, 6)
        x = ember.ones(4, 6, requires_grad=True)
        def f(a):
            return ember.nn.functional.dropout(layer(a), 0.5, training=True)

        y = ember.utils.checkpoint.checkpoint(f, x, use_reentrant=False) if use_checkpoint \
            else f(x)
        y.sum().backward()
        return y.detach().numpy(), x.grad.numpy(), layer.weight.grad.numpy()

    for a, b in zip(run(True), run(False)):
        np.testing.assert_array_equal(a, b)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        ember.utils.checkpoint.checkpoint(lambda a: a * 2, ember.ones(1, requires_grad=True))
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        checkpoint_t.checkpoint(lambda a: a * 2, torch.ones(1, requires_grad=True))
    assert [str(w.message) for w in got] == [str(w.message) for w in want
                                             if "use_reentrant" in str(w.message)]


def test_checkpoint_sequential_matches_torch():
    em, tm = make_pair()
    x = np.linspace(-1, 1, 20).reshape(5, 4)
    ey = ember.utils.checkpoint.checkpoint_sequential(em, 2, ember.tensor(x), use_reentrant=False)
    ty = checkpoint_t.checkpoint_sequential(tm, 2, torch.tensor(x), use_reentrant=False)
    ey.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    for ep, tp in zip(em.parameters(), tm.parameters()):
        np.testing.assert_allclose(ep.grad.numpy(), tp.grad.numpy(), rtol=1e-12)
