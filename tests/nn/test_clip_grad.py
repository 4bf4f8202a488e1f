"""nn.utils.clip_grad_norm_ / clip_grad_value_ and the vector helpers against torch."""
import math

import numpy as np
import pytest
from nn_compare import OpLog

import ember
from ember import nn

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5,), (2, 2, 2), ()]


def params_with_grads(scale=1.0, without_grad=(), dtype="float32"):
    """The same parameters and gradients on both sides; indices in `without_grad` get none."""
    rng = np.random.default_rng(0)
    ember_params, torch_params = [], []
    for i, shape in enumerate(SHAPES):
        data = np.asarray(rng.standard_normal(shape), dtype=dtype)
        grad = np.asarray(rng.standard_normal(shape) * scale, dtype=dtype)
        pe = nn.Parameter(ember.from_numpy(data.copy()))
        pt = torch.nn.Parameter(torch.from_numpy(data.copy()))
        if i not in without_grad:
            pe.grad = ember.from_numpy(grad.copy())
            pt.grad = torch.from_numpy(grad.copy())
        ember_params.append(pe)
        torch_params.append(pt)
    return ember_params, torch_params


def assert_same_grads(pe, pt, rtol=1e-6):
    for a, b in zip(pe, pt):
        assert (a.grad is None) == (b.grad is None)
        if a.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=1e-7)


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.0, 0.5, math.inf, "inf", 0, -math.inf, -2.0])
@pytest.mark.parametrize("max_norm", [0.1, 1.0, 1e6])
@pytest.mark.parametrize("foreach", [None, False, True])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, foreach):
    norm_type = float(norm_type)
    pe, pt = params_with_grads(without_grad=(1,))
    ne = nn.utils.clip_grad_norm_(pe, max_norm, norm_type=norm_type, foreach=foreach)
    nt = torch.nn.utils.clip_grad_norm_(pt, max_norm, norm_type=norm_type, foreach=foreach)
    assert isinstance(ne, ember.Tensor) and ne.dim() == 0 and ne.dtype == ember.float32
    np.testing.assert_allclose(ne.item(), nt.item(), rtol=1e-6)
    assert_same_grads(pe, pt)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf])
def test_clip_grad_norm_array_path_gives_the_per_op_bits(dtype, norm_type):
    """Plain CPU gradients are summed and scaled on their arrays; the per-op path
    (foreach=False, or a dispatch mode watching: it sees every op) gives the same bits, and
    both bump the gradients' version counters."""
    fast, slow, watched = (params_with_grads(scale=3.0, dtype=dtype)[0] for _ in range(3))
    versions = [p.grad._version for p in fast]
    norms = [nn.utils.clip_grad_norm_(fast, 1.0, norm_type),
             nn.utils.clip_grad_norm_(slow, 1.0, norm_type, foreach=False)]
    with OpLog() as log:
        norms.append(nn.utils.clip_grad_norm_(watched, 1.0, norm_type))
    assert "aten.cat.default" in log.ops and "aten.linalg_vector_norm.default" in log.ops
    assert sum(op.startswith("aten.mul_") for op in log.ops) == len(SHAPES)
    assert len({(n.item(), n.dtype) for n in norms}) == 1
    for ps in (slow, watched):
        assert [p.grad.numpy().tobytes() for p in ps] == [p.grad.numpy().tobytes() for p in fast]
    assert [p.grad._version for p in fast] == [v + 1 for v in versions]


def test_clip_grad_norm_mixed_dtypes_match_torch():
    """float64 and float16 parameters next to float32 ones: norms per tensor, then stacked
    (the path other than the one cat of all the gradients)."""
    pe, pt = params_with_grads(scale=3.0)
    for dtype in (np.float64, np.float16):
        more_e, more_t = params_with_grads(scale=3.0, dtype=dtype)
        pe, pt = pe + more_e, pt + more_t
    ne, nt = nn.utils.clip_grad_norm_(pe, 1.0), torch.nn.utils.clip_grad_norm_(pt, 1.0)
    assert str(ne.dtype).split(".")[1] == str(nt.dtype).split(".")[1]
    np.testing.assert_allclose(ne.item(), nt.item(), rtol=1e-6)
    assert_same_grads(pe, pt, rtol=1e-3)


def test_clip_grad_norm_float64_and_generator_input():
    pe, pt = params_with_grads(scale=10.0, dtype="float64")
    ne = nn.utils.clip_grad_norm_((p for p in pe), 2.0)
    nt = torch.nn.utils.clip_grad_norm_((p for p in pt), 2.0)
    assert ne.dtype == ember.float64
    np.testing.assert_allclose(ne.item(), nt.item(), rtol=1e-12)
    assert_same_grads(pe, pt, rtol=1e-12)


def test_clip_grad_norm_of_a_single_tensor_and_of_nothing():
    pe, pt = params_with_grads(scale=5.0)
    ne = nn.utils.clip_grad_norm_(pe[0], 1.0)
    nt = torch.nn.utils.clip_grad_norm_(pt[0], 1.0)
    np.testing.assert_allclose(ne.item(), nt.item(), rtol=1e-6)
    assert_same_grads(pe[:1], pt[:1])
    no_grads = nn.Parameter(ember.ones(2))
    assert nn.utils.clip_grad_norm_([no_grads], 1.0).item() == 0.0
    with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
        assert nn.utils.clip_grad_norm_((p for p in []), 1.0).item() == 0.0


def test_clip_grad_norm_nonfinite():
    pe, pt = params_with_grads()
    pe[0].grad[0, 0] = float("nan")
    pt[0].grad[0, 0] = float("nan")
    with pytest.raises(RuntimeError) as e:
        nn.utils.clip_grad_norm_(pe, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as t:
        torch.nn.utils.clip_grad_norm_(pt, 1.0, error_if_nonfinite=True)
    assert str(e.value) == str(t.value)
    assert math.isnan(nn.utils.clip_grad_norm_(pe, 1.0).item())    # scales by nan, like torch


def test_clip_grad_norm_runs_without_grad_and_leaves_grads_leaves():
    lin = nn.Linear(3, 2)
    (lin(ember.ones(4, 3)) * 100).sum().backward()
    total = nn.utils.clip_grad_norm_(lin.parameters(), 0.5)
    assert not total.requires_grad
    assert lin.weight.grad.grad_fn is None
    assert nn.utils.get_total_norm([p.grad for p in lin.parameters()]).item() <= 0.5 + 1e-5


@pytest.mark.parametrize("clip_value", [0.1, 1, 100.0])
def test_clip_grad_value_matches_torch(clip_value):
    pe, pt = params_with_grads(scale=2.0, without_grad=(2,))
    assert nn.utils.clip_grad_value_(pe, clip_value) is None
    torch.nn.utils.clip_grad_value_(pt, clip_value)
    assert_same_grads(pe, pt)


def test_get_total_norm_and_clip_grads_with_norm_match_torch():
    pe, pt = params_with_grads()
    ge = [p.grad for p in pe]
    gt = [p.grad for p in pt]
    ne = nn.utils.get_total_norm(ge, 3.0)
    nt = torch.nn.utils.get_total_norm(gt, 3.0)
    np.testing.assert_allclose(ne.item(), nt.item(), rtol=1e-6)
    nn.utils.clip_grads_with_norm_(pe, 0.3, ne)
    torch.nn.utils.clip_grads_with_norm_(pt, 0.3, nt)
    assert_same_grads(pe, pt)


def test_deprecated_clip_grad_norm_warns():
    pe, _ = params_with_grads()
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        nn.utils.clip_grad_norm(pe, 1.0)


def test_parameters_to_vector_and_back_match_torch():
    e, t = nn.Linear(3, 2), torch.nn.Linear(3, 2)
    ve = nn.utils.parameters_to_vector(e.parameters())
    vt = torch.nn.utils.parameters_to_vector(t.parameters())
    assert ve.shape == tuple(vt.shape) and ve.requires_grad
    vec = np.arange(8, dtype=np.float32)
    nn.utils.vector_to_parameters(ember.from_numpy(vec), e.parameters())
    torch.nn.utils.vector_to_parameters(torch.from_numpy(vec), t.parameters())
    for (n, a), (_, b) in zip(e.named_parameters(), t.named_parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy(), err_msg=n)
        assert isinstance(a, nn.Parameter)
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        torch.nn.utils.vector_to_parameters([1.0], t.parameters())
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        nn.utils.vector_to_parameters([1.0], e.parameters())
