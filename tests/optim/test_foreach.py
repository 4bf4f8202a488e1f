"""The optimizers' multi-tensor path (ember/optim/_foreach.py): for SGD, Adam and AdamW over
a grid of options, `foreach=None` (which takes it for plain CPU tensors) and `foreach=True`
give bit for bit the parameters and state of `foreach=False` (one op at a time), and both
stay close to torch's over several steps; tensors it cannot take fall back."""
import numpy as np
import pytest

import ember
from ember.optim import _foreach

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5,), (2, 3, 2)]
STEPS = 6
TOL = {"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)}

CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1,
             "maximize": True}),
    ("SGD", {"lr": 0.1, "weight_decay": 0.2, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.9), "eps": 1e-6, "maximize": True,
              "differentiable": False}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True, "maximize": True}),
]


def _params(lib, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dt = getattr(lib, dtype)
    return [lib.tensor(rng.standard_normal(s), dtype=dt, requires_grad=True) for s in SHAPES]


def _run(lib, name, kwargs, dtype, foreach):
    """Parameters and optimizer after STEPS steps on the same random gradients (the last
    parameter gets none every third step)."""
    params = _params(lib, dtype)
    opt = getattr(lib.optim, name)(params, foreach=foreach, **kwargs)
    rng = np.random.default_rng(1)
    for step in range(STEPS):
        for i, p in enumerate(params):
            g = rng.standard_normal(tuple(p.shape))
            skip = i == len(params) - 1 and step % 3 == 2
            p.grad = None if skip else lib.tensor(g, dtype=getattr(lib, dtype))
        opt.step()
    return params, opt


def _state_arrays(opt):
    return [(k, v.numpy() if isinstance(v, ember.Tensor) else v)
            for s in opt.state.values() for k, v in sorted(s.items())]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", CASES)
def test_multi_tensor_matches_per_parameter_and_torch(name, kwargs, dtype, monkeypatch):
    calls = []
    for fn in ("sgd", "adam"):
        real = getattr(_foreach, fn)
        monkeypatch.setattr(_foreach, fn, lambda *a, _real=real, **k: calls.append(1) or
                            _real(*a, **k))
    single, single_opt = _run(ember, name, kwargs, dtype, foreach=False)
    assert not calls
    for foreach in (None, True):
        multi, multi_opt = _run(ember, name, kwargs, dtype, foreach=foreach)
        assert calls, "the multi-tensor path did not run"
        for p, q in zip(multi, single):
            assert p.dtype == q.dtype and p.shape == q.shape and p.stride() == q.stride()
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy(), strict=True)
        for (k1, a), (k2, b) in zip(_state_arrays(multi_opt), _state_arrays(single_opt),
                                    strict=True):
            assert k1 == k2
            np.testing.assert_array_equal(a, b, strict=True)
    theirs, _ = _run(torch, name, kwargs, dtype, foreach=False)
    rtol, atol = TOL[dtype]
    for p, q in zip(multi, theirs):
        assert str(p.dtype) == str(q.dtype).replace("torch", "ember")
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=rtol,
                                   atol=atol)


def test_multi_tensor_bumps_versions():
    """The arrays change behind the ops' backs: versions still move (autograd's checks)."""
    p = ember.ones(3, requires_grad=True)
    p.grad = ember.ones(3)
    opt = ember.optim.SGD([p], lr=0.1, momentum=0.9)
    opt.step()
    before = p._version, opt.state[p]["momentum_buffer"]._version
    opt.step()
    assert p._version > before[0]
    assert opt.state[p]["momentum_buffer"]._version > before[1]
    y = p * p
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_non_contiguous_and_float16_fall_back(monkeypatch):
    """A transposed leaf or a float16 parameter takes the per-parameter path, same result."""
    monkeypatch.setattr(_foreach, "sgd", None)   # would fail if it ran
    rng = np.random.default_rng(0)
    base = rng.standard_normal((4, 3)).astype(np.float32)
    for make in (lambda lib: lib.tensor(base).t().detach().requires_grad_(),
                 lambda lib: lib.tensor(base, dtype=lib.float16).requires_grad_()):
        ours, theirs = make(ember), make(torch)
        assert ours.stride() == theirs.stride()
        g = rng.standard_normal(tuple(theirs.shape))
        ours.grad = ember.tensor(g).to(ours.dtype)
        theirs.grad = torch.tensor(g).to(theirs.dtype)
        ember.optim.SGD([ours], lr=0.1, momentum=0.9).step()
        torch.optim.SGD([theirs], lr=0.1, momentum=0.9).step()
        np.testing.assert_allclose(ours.detach().float().numpy(),
                                   theirs.detach().float().numpy(), rtol=1e-3, atol=1e-3)


def test_torch_function_subclass(monkeypatch):
    """A `__torch_function__` subclass's parameters run op by op (it sees each op); plain
    ones keep the multi-tensor path once such a class exists."""
    calls, seen = [], []
    real = _foreach.sgd
    monkeypatch.setattr(_foreach, "sgd", lambda *a, **k: calls.append(1) or real(*a, **k))

    class Logged(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(getattr(func, "__name__", func))
            return super().__torch_function__(func, types, args, kwargs or {})

    p = ember.ones(3, requires_grad=True)
    p.grad = ember.ones(3)
    ember.optim.SGD([p], lr=0.5).step()
    assert calls and p.tolist() == [0.5, 0.5, 0.5]
    calls.clear()
    q = ember.Tensor._make_subclass(Logged, ember.ones(3), True)
    q.grad = ember.ones(3)
    ember.optim.SGD([q], lr=0.5).step()
    assert not calls and seen
    t = torch.ones(3, requires_grad=True)
    t.grad = torch.ones(3)
    torch.optim.SGD([t], lr=0.5).step()
    np.testing.assert_array_equal(q.detach().numpy(), t.detach().numpy())
