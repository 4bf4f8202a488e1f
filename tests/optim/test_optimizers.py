"""ember.optim's optimizers against torch.optim's: same parameters in and the same gradients
fed every step give the same parameter trajectories and state (float64), for a grid of
options; state_dict round trips; parameter groups; torch's errors, warnings and repr."""
import copy
import re
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5,), (2, 3, 2)]
STEPS = 20


# --- helpers ---------------------------------------------------------------------------------
def make_params(seed=0, shapes=SHAPES):
    """The same float64 leaf parameters for ember and torch."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    ours = [ember.tensor(a, dtype=ember.float64, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    return ours, theirs


def feed_grads(ours, theirs, rng, skip=None):
    """Set the same random gradients on both sides (parameter `skip` gets none)."""
    for i, (p, q) in enumerate(zip(ours, theirs)):
        if i == skip:
            p.grad = q.grad = None
            continue
        g = rng.standard_normal(tuple(q.shape))
        p.grad = ember.tensor(g, dtype=ember.float64)
        q.grad = torch.tensor(g, dtype=torch.float64)


def assert_close(ours, theirs, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=atol)


def assert_same_state(opt, topt):
    """Same state_dict: param_groups equal, per-parameter state with the same keys, values
    and dtypes."""
    ours, theirs = opt.state_dict(), topt.state_dict()
    assert ours["param_groups"] == theirs["param_groups"]
    assert ours["state"].keys() == theirs["state"].keys()
    for index, t_state in theirs["state"].items():
        e_state = ours["state"][index]
        assert e_state.keys() == t_state.keys()
        for key, t_value in t_state.items():
            e_value = e_state[key]
            assert str(e_value.dtype).split(".")[-1] == str(t_value.dtype).split(".")[-1], key
            assert tuple(e_value.shape) == tuple(t_value.shape), key
            assert_close(e_value, t_value)


def run_both(opt, topt, ours, theirs, steps=STEPS, seed=1):
    """Feed both optimizers the same gradients (the last parameter's every third step is
    None: skipped) and check the parameters after every step."""
    rng = np.random.default_rng(seed)
    for step in range(steps):
        feed_grads(ours, theirs, rng, skip=len(ours) - 1 if step % 3 == 2 else None)
        opt.step()
        topt.step()
        for p, q in zip(ours, theirs):
            assert_close(p, q)


def continue_from(name, kwargs, state_dict, ours, topt, theirs, seed, steps=5):
    """A fresh optimizer over copies of `ours` loads `state_dict` and runs on beside torch's:
    the parameters must stay equal. Returns the fresh optimizer."""
    fresh = [p.detach().clone().requires_grad_(True) for p in ours]
    reloaded = getattr(ember.optim, name)(fresh, **kwargs)
    reloaded.load_state_dict(state_dict)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        feed_grads(fresh, theirs, rng)
        reloaded.step()
        topt.step()
    for p, q in zip(fresh, theirs):
        assert_close(p, q)
    return reloaded


def build(name, kwargs, seed=0):
    ours, theirs = make_params(seed)
    opt = getattr(ember.optim, name)(ours, **kwargs)
    topt = getattr(torch.optim, name)(theirs, **kwargs)
    return opt, topt, ours, theirs


# --- trajectories over a grid of options ------------------------------------------------------
GRID = {
    "SGD": [
        {"lr": 0.1},
        {"lr": 0.05, "momentum": 0.9},
        {"lr": 0.05, "momentum": 0.9, "dampening": 0.3},
        {"lr": 0.05, "momentum": 0.8, "nesterov": True},
        {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.01, "nesterov": True},
        {"lr": 0.1, "weight_decay": 0.05},
        {"lr": 0.1, "maximize": True},
        {"lr": 0.05, "momentum": 0.5, "weight_decay": 0.1, "maximize": True},
    ],
    "Adam": [
        {},
        {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6},
        {"lr": 0.01, "amsgrad": True},
        {"lr": 0.01, "weight_decay": 0.1},
        {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True, "maximize": True},
        {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True},
    ],
    "AdamW": [
        {},
        {"lr": 0.01, "weight_decay": 0.1},
        {"lr": 0.01, "amsgrad": True, "betas": (0.5, 0.9)},
        {"lr": 0.01, "maximize": True, "weight_decay": 0},
    ],
    "RMSprop": [
        {},
        {"lr": 0.001, "alpha": 0.9},
        {"lr": 0.01, "centered": True},
        {"lr": 0.01, "momentum": 0.9},
        {"lr": 0.01, "momentum": 0.5, "centered": True, "weight_decay": 0.1},
        {"lr": 0.01, "maximize": True, "eps": 1e-4},
    ],
    "Adadelta": [
        {},
        {"lr": 0.5, "rho": 0.8, "eps": 1e-4},
        {"weight_decay": 0.1},
        {"maximize": True, "weight_decay": 0.05},
    ],
    "Adamax": [
        {},
        {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6},
        {"lr": 0.01, "weight_decay": 0.1, "maximize": True},
    ],
    "NAdam": [
        {},
        {"lr": 0.01, "momentum_decay": 0.01, "betas": (0.8, 0.99)},
        {"lr": 0.01, "weight_decay": 0.1},
        {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True},
    ],
    "RAdam": [
        {},
        {"lr": 0.01, "betas": (0.5, 0.9)},
        {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1},
        {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1, "decoupled_weight_decay": True,
         "maximize": True},
    ],
    "ASGD": [
        {},
        {"lr": 0.05, "lambd": 1e-2, "alpha": 0.5, "t0": 5},
        {"lr": 0.05, "t0": 0, "weight_decay": 0.1, "maximize": True},
    ],
    "Rprop": [
        {},
        {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)},
        {"lr": 0.02, "maximize": True},
    ],
}
CASES = [(name, kw) for name, grid in GRID.items() for kw in grid]


@pytest.mark.parametrize(("name", "kwargs"), CASES, ids=[f"{n}-{kw}" for n, kw in CASES])
def test_trajectory_and_state_match_torch(name, kwargs):
    opt, topt, ours, theirs = build(name, kwargs)
    run_both(opt, topt, ours, theirs)
    assert_same_state(opt, topt)


@pytest.mark.parametrize(("name", "kwargs"), CASES, ids=[f"{n}-{kw}" for n, kw in CASES])
def test_state_dict_round_trip_continues_the_trajectory(name, kwargs):
    """Save mid-run, load into a fresh optimizer over copies of the parameters, continue
    both: the same trajectory and state as torch's optimizer reloaded the same way (loading
    casts floating state other than "step" to the parameter's dtype, as NAdam's mu_product)."""
    opt, topt, ours, theirs = build(name, kwargs)
    run_both(opt, topt, ours, theirs, steps=10)
    saved = copy.deepcopy(opt.state_dict())

    fresh = [p.detach().clone().requires_grad_(True) for p in ours]
    reloaded = getattr(ember.optim, name)(fresh, **kwargs)
    reloaded.load_state_dict(saved)
    tfresh = [q.detach().clone().requires_grad_(True) for q in theirs]
    treloaded = getattr(torch.optim, name)(tfresh, **kwargs)
    treloaded.load_state_dict(copy.deepcopy(topt.state_dict()))
    assert_same_state(reloaded, treloaded)

    rng = np.random.default_rng(7)
    for _ in range(10):
        feed_grads(ours, theirs, rng)
        for p, q in zip(fresh, ours):
            p.grad = q.grad.clone()
        for p, q in zip(tfresh, theirs):
            p.grad = q.grad.clone()
        opt.step()
        reloaded.step()
        topt.step()
        treloaded.step()
        for p, q, r, tr in zip(ours, theirs, fresh, tfresh):
            assert_close(p, q)
            assert_close(r, tr)
    assert_same_state(reloaded, treloaded)


LOADED_FROM_TORCH = {"SGD": {"lr": 0.1, "momentum": 0.9}, "Adam": {"lr": 0.01, "amsgrad": True},
                     "RMSprop": {"lr": 0.01, "centered": True, "momentum": 0.5},
                     "Adadelta": {"weight_decay": 0.1}, "Adamax": {"lr": 0.01},
                     "NAdam": {"lr": 0.01}, "RAdam": {"lr": 0.01, "betas": (0.5, 0.9)},
                     "ASGD": {"lr": 0.05, "t0": 2}, "Rprop": {"lr": 0.05}}


@pytest.mark.parametrize("name", list(LOADED_FROM_TORCH))
def test_loads_a_state_dict_saved_by_torch(name):
    """torch's state_dict, tensors converted through NumPy, continues torch's run."""
    kwargs = LOADED_FROM_TORCH[name]
    opt, topt, ours, theirs = build(name, kwargs)
    run_both(opt, topt, ours, theirs, steps=5)
    converted = copy.deepcopy(topt.state_dict())
    for p_state in converted["state"].values():
        for key, value in p_state.items():
            p_state[key] = ember.from_numpy(value.numpy().copy())
    continue_from(name, kwargs, converted, ours, topt, theirs, seed=3)


def test_load_state_dict_copies_tensors_and_casts_to_the_parameter_dtype():
    opt, _, ours, theirs = build("SGD", {"lr": 0.1, "momentum": 0.9})
    feed_grads(ours, theirs, np.random.default_rng(0))
    opt.step()
    saved = opt.state_dict()
    buffer = saved["state"][0]["momentum_buffer"]
    assert buffer is opt.state[ours[0]]["momentum_buffer"]  # state_dict: live tensors
    float32_params = [p.detach().float().requires_grad_(True) for p in ours]
    other = ember.optim.SGD(float32_params, lr=0.1, momentum=0.9)
    other.load_state_dict(saved)
    loaded = other.state[float32_params[0]]["momentum_buffer"]
    assert loaded.dtype == ember.float32
    same_dtype = ember.optim.SGD([p.detach().clone().requires_grad_(True) for p in ours],
                                 lr=0.1, momentum=0.9)
    same_dtype.load_state_dict(saved)
    copied = same_dtype.state[same_dtype.param_groups[0]["params"][0]]["momentum_buffer"]
    assert copied is not buffer
    before = buffer.clone()
    with ember.no_grad():
        copied.add_(1.0)
    np.testing.assert_array_equal(buffer.numpy(), before.numpy())


def test_adam_step_counter_is_a_float_tensor_like_torch():
    opt, topt, ours, theirs = build("Adam", {})
    run_both(opt, topt, ours, theirs, steps=3)
    step = opt.state[ours[0]]["step"]
    assert isinstance(step, ember.Tensor) and step.dim() == 0 and step.item() == 3.0
    assert step.dtype == ember.float32  # torch: float32 unless the default dtype is float64
    assert opt.state[ours[-1]]["step"].item() == 2.0  # skipped once (grad None)


# --- parameter groups, closure, zero_grad ------------------------------------------------------
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_param_groups_with_their_own_options(name):
    ours, theirs = make_params()
    group_options = [{"lr": 0.01}, {"lr": 0.1, "weight_decay": 0.05}]
    extra = {"momentum": 0.9} if name in ("SGD", "RMSprop") else {}
    opt = getattr(ember.optim, name)(
        [{"params": ours[:1], **group_options[0]}, {"params": ours[1:], **group_options[1]}],
        lr=0.001, **extra)
    topt = getattr(torch.optim, name)(
        [{"params": theirs[:1], **group_options[0]}, {"params": theirs[1:], **group_options[1]}],
        lr=0.001, **extra)
    run_both(opt, topt, ours, theirs)
    assert_same_state(opt, topt)
    default_decay = 1e-2 if name == "AdamW" else 0
    assert opt.param_groups[1]["lr"] == 0.1
    assert opt.param_groups[0]["weight_decay"] == default_decay


def test_add_param_group_later_and_changing_lr_between_steps():
    ours, theirs = make_params()
    opt = ember.optim.SGD(ours[:2], lr=0.1, momentum=0.9)
    topt = torch.optim.SGD(theirs[:2], lr=0.1, momentum=0.9)
    run_both(opt, topt, ours[:2], theirs[:2], steps=3)
    opt.add_param_group({"params": ours[2], "lr": 0.02})
    topt.add_param_group({"params": theirs[2], "lr": 0.02})
    for group, tgroup in zip(opt.param_groups, topt.param_groups):
        group["lr"] = tgroup["lr"] = group["lr"] / 2
    run_both(opt, topt, ours, theirs, steps=5)
    assert_same_state(opt, topt)


def test_step_with_a_closure_returns_its_loss_and_runs_with_grad():
    w = ember.tensor([1.0, -2.0], dtype=ember.float64, requires_grad=True)
    tw = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    opt, topt = ember.optim.SGD([w], lr=0.1), torch.optim.SGD([tw], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    def tclosure():
        topt.zero_grad()
        loss = (tw * tw).sum()
        loss.backward()
        return loss

    with ember.no_grad():
        for _ in range(3):
            loss = opt.step(closure)
            tloss = topt.step(tclosure)
            assert loss.item() == pytest.approx(tloss.item(), rel=1e-12)
    assert_close(w, tw)
    assert ember.is_grad_enabled()


def test_updates_run_under_no_grad_and_bump_the_version():
    w = ember.tensor([1.0, 2.0], requires_grad=True)
    w.grad = ember.tensor([1.0, 1.0])
    opt = ember.optim.SGD([w], lr=0.5)
    version = w._version
    opt.step()
    assert w.grad_fn is None and w.requires_grad and w.is_leaf
    assert w._version > version
    np.testing.assert_allclose(w.detach().numpy(), [0.5, 1.5])


def test_zero_grad_sets_to_none_or_zeros():
    ours, _ = make_params()
    opt = ember.optim.SGD(ours, lr=0.1)
    for p in ours:
        p.grad = ember.ones_like(p)
    opt.zero_grad(set_to_none=False)
    for p in ours:
        assert p.grad is not None and not p.grad.any().item()
    opt.zero_grad()
    assert all(p.grad is None for p in ours)


def test_params_without_grad_are_skipped_and_get_no_state():
    ours, _ = make_params()
    opt = ember.optim.Adam(ours)
    ours[0].grad = ember.ones_like(ours[0])
    before = [p.detach().clone() for p in ours]
    opt.step()
    assert list(opt.state.keys()) == [ours[0]]
    for p, b in zip(ours[1:], before[1:]):
        np.testing.assert_array_equal(p.detach().numpy(), b.numpy())


def test_named_parameters_give_param_names():
    ours, theirs = make_params()
    opt = ember.optim.SGD([("a", ours[0]), ("b", ours[1])], lr=0.1)
    topt = torch.optim.SGD([("a", theirs[0]), ("b", theirs[1])], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["a", "b"]
    assert opt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]


# --- repr ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "kwargs"), [("SGD", {"lr": 0.1, "momentum": 0.9}),
                                              ("Adam", {}), ("AdamW", {"amsgrad": True}),
                                              ("RMSprop", {"centered": True}),
                                              ("Adadelta", {}), ("Adamax", {}), ("NAdam", {}),
                                              ("RAdam", {}), ("ASGD", {}), ("Rprop", {})])
def test_repr_is_torchs(name, kwargs):
    opt, topt, _, _ = build(name, kwargs)
    opt.add_param_group({"params": [ember.zeros(2, requires_grad=True)], "lr": 0.5})
    topt.add_param_group({"params": [torch.zeros(2, requires_grad=True)], "lr": 0.5})
    assert repr(opt) == repr(topt)


# --- errors and warnings ---------------------------------------------------------------------
def raises_like_torch(make_ours, make_theirs):
    """Both raise the same exception type with the same message."""
    with pytest.raises(Exception) as theirs:
        make_theirs()
    with pytest.raises(theirs.type, match="^" + re.escape(str(theirs.value)) + "$"):
        make_ours()


def param(lib):
    return lib.zeros(2, requires_grad=True)


def sparse_adam_step(lib, O):
    p = param(lib)
    p.grad = lib.ones(2)
    O.SparseAdam([p]).step()


def in_two_groups(p, O):
    return O.SGD([{"params": [p]}, {"params": [p]}])


ERRORS = {
    "empty": lambda lib, O: O.SGD([], lr=0.1),
    "non-tensor": lambda lib, O: O.SGD([param(lib), 1.5], lr=0.1),
    "non-leaf": lambda lib, O: O.SGD([param(lib) * 2], lr=0.1),
    "set": lambda lib, O: O.SGD([{"params": {param(lib)}}], lr=0.1),
    "negative lr": lambda lib, O: O.SGD([param(lib)], lr=-0.1),
    "negative momentum": lambda lib, O: O.SGD([param(lib)], lr=0.1, momentum=-1),
    "negative weight_decay": lambda lib, O: O.SGD([param(lib)], weight_decay=-1),
    "nesterov without momentum": lambda lib, O: O.SGD([param(lib)], nesterov=True),
    "nesterov with dampening": lambda lib, O: O.SGD([param(lib)], momentum=0.9,
                                                    dampening=0.1, nesterov=True),
    "adam beta0": lambda lib, O: O.Adam([param(lib)], betas=(1.0, 0.999)),
    "adam beta1": lambda lib, O: O.Adam([param(lib)], betas=(0.9, -0.1)),
    "adam eps": lambda lib, O: O.Adam([param(lib)], eps=-1e-8),
    "adam int betas": lambda lib, O: O.Adam([param(lib)], betas=(0, 0.9)),
    "adamw lr": lambda lib, O: O.AdamW([param(lib)], lr=-1.0),
    "rmsprop alpha": lambda lib, O: O.RMSprop([param(lib)], alpha=-0.5),
    "rmsprop momentum": lambda lib, O: O.RMSprop([param(lib)], momentum=-0.5),
    "adadelta rho": lambda lib, O: O.Adadelta([param(lib)], rho=1.5),
    "adadelta eps": lambda lib, O: O.Adadelta([param(lib)], eps=-1.0),
    "adamax beta": lambda lib, O: O.Adamax([param(lib)], betas=(0.9, 1.0)),
    "nadam momentum_decay": lambda lib, O: O.NAdam([param(lib)], momentum_decay=-0.1),
    "radam weight_decay": lambda lib, O: O.RAdam([param(lib)], weight_decay=-0.1),
    "asgd lr": lambda lib, O: O.ASGD([param(lib)], lr=-0.1),
    "rprop etas": lambda lib, O: O.Rprop([param(lib)], etas=(0.5, 0.9)),
    "lbfgs groups": lambda lib, O: O.LBFGS([{"params": [param(lib)]}, {"params": [param(lib)]}]),
    "lbfgs lr": lambda lib, O: O.LBFGS([param(lib)], lr=-1),
    "sparse adam lr": lambda lib, O: O.SparseAdam([param(lib)], lr=0.0),
    "sparse adam eps": lambda lib, O: O.SparseAdam([param(lib)], eps=0.0),
    "sparse adam betas": lambda lib, O: O.SparseAdam([param(lib)], betas=(1.0, 0.9)),
    "sparse adam dense grad": lambda lib, O: sparse_adam_step(lib, O),
    "group not a dict": lambda lib, O: O.SGD([param(lib)]).add_param_group([param(lib)]),
    "in two groups": lambda lib, O: in_two_groups(param(lib), O),
    "names missing": lambda lib, O: O.SGD([("a", param(lib)), param(lib)]),
    "names mixed across groups": lambda lib, O: O.SGD(
        [{"params": [("a", param(lib))]}, {"params": [param(lib)]}]),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_torch(case):
    raises_like_torch(lambda: ERRORS[case](ember, ember.optim),
                      lambda: ERRORS[case](torch, torch.optim))


def test_tensor_as_params_raises_type_error():
    with pytest.raises(TypeError, match="iterable of Tensors or dicts, but got ember.FloatTensor"):
        ember.optim.SGD(ember.zeros(2, requires_grad=True))


def test_required_default_missing_raises_like_torch():
    class Custom(ember.optim.Optimizer):
        def __init__(self, params, lr=ember.optim.optimizer.required):
            super().__init__(params, {"lr": lr})

    from torch.optim.optimizer import required

    class TorchCustom(torch.optim.Optimizer):
        def __init__(self, params, lr=required):
            super().__init__(params, {"lr": lr})

    raises_like_torch(lambda: Custom([param(ember)]), lambda: TorchCustom([param(torch)]))
    assert Custom([{"params": [param(ember)], "lr": 0.3}]).param_groups[0]["lr"] == 0.3
    with pytest.raises(NotImplementedError):
        Custom([param(ember)], lr=0.1).step()


def test_duplicate_parameter_in_a_group_warns_like_torch():
    p = param(ember)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        ember.optim.SGD([p, p], lr=0.1)


@pytest.mark.parametrize("case", ["count", "size"])
def test_load_state_dict_validates_groups_like_torch(case):
    def attempt(lib, O):
        a, b, c = (param(lib) for _ in range(3))
        saved = O.SGD([a, b], lr=0.1).state_dict()
        groups = [{"params": [a]}, {"params": [b]}] if case == "count" else [{"params": [a, b, c]}]
        O.SGD(groups, lr=0.1).load_state_dict(saved)
    raises_like_torch(lambda: attempt(ember, ember.optim), lambda: attempt(torch, torch.optim))


@pytest.mark.parametrize("flag", ["fused", "differentiable"])
def test_unimplemented_flags_raise(flag):
    with pytest.raises(NotImplementedError, match=flag):
        ember.optim.Adam([param(ember)], **{flag: True})


def test_foreach_is_accepted_and_gives_the_same_result():
    opt, topt, ours, theirs = build("SGD", {"lr": 0.1, "momentum": 0.9, "foreach": True})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run_both(opt, topt, ours, theirs, steps=5)


def test_step_restores_grad_mode_even_when_an_update_fails():
    w = ember.zeros(3, requires_grad=True)
    w.grad = ember.ones(3)
    opt = ember.optim.SGD([w], lr=0.1)
    opt.param_groups[0]["lr"] = "0.1"  # the update raises
    with pytest.raises(TypeError):
        opt.step()
    assert ember.is_grad_enabled()
    opt.param_groups[0]["lr"] = 0.1
    with ember.no_grad():
        opt.step()
        assert not ember.is_grad_enabled()


def test_step_counter_is_float64_under_a_float64_default_dtype():
    previous = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        w = ember.zeros(2, requires_grad=True)
        w.grad = ember.ones(2)
        opt = ember.optim.RMSprop([w])
        opt.step()
        assert opt.state[w]["step"].dtype == ember.float64
    finally:
        ember.set_default_dtype(previous)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_moment_update_ops_in_place_with_aliased_operands_match_torch(dtype):
    """The in-place ops the optimizers use, with self also passed as an operand."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 5, 4)).astype(dtype)
    b = np.abs(b) + 0.5
    calls = [lambda x, y: x.addcmul_(x, x, value=0.5), lambda x, y: x.addcdiv_(x, y, value=-2),
             lambda x, y: x.addcdiv_(y, x), lambda x, y: x.lerp_(x, 0.7),
             lambda x, y: x.lerp_(y, 0.2), lambda x, y: x.lerp_(y, 0.8)]
    for call in calls:
        ours, theirs = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
        assert call(ours, ember.from_numpy(b.copy())) is ours
        call(theirs, torch.from_numpy(b.copy()))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6 if dtype ==
                                   "float32" else 1e-14, atol=1e-6 if dtype == "float32" else 0)


@pytest.mark.parametrize("name", ["Adam", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam",
                                  "ASGD", "Rprop"])
def test_a_saved_python_number_step_becomes_a_tensor_like_torch(name):
    opt, topt, ours, theirs = build(name, {"lr": 0.01})
    run_both(opt, topt, ours, theirs, steps=4)
    saved = copy.deepcopy(opt.state_dict())
    tsaved = copy.deepcopy(topt.state_dict())
    for index in saved["state"]:
        saved["state"][index]["step"] = saved["state"][index]["step"].item()
        tsaved["state"][index]["step"] = tsaved["state"][index]["step"].item()
    opt.load_state_dict(saved)
    topt.load_state_dict(tsaved)
    step = opt.state[ours[0]]["step"]
    assert isinstance(step, ember.Tensor) and step.item() == 4.0
    run_both(opt, topt, ours, theirs, steps=4)
    assert_same_state(opt, topt)


@pytest.mark.parametrize(("name", "kwargs"), [("SGD", {"lr": 0.1, "momentum": 0.9}),
                                              ("AdamW", {"lr": 0.01, "amsgrad": True})])
def test_state_dict_survives_ember_save_and_load(name, kwargs, tmp_path):
    """Integer state keys, the betas tuple and the 'step' tensors come back from a file."""
    opt, topt, ours, theirs = build(name, kwargs)
    run_both(opt, topt, ours, theirs, steps=5)
    ember.save(opt.state_dict(), tmp_path / "optim.safetensors")
    reloaded = continue_from(name, kwargs, ember.load(tmp_path / "optim.safetensors"), ours,
                             topt, theirs, seed=11)
    assert_same_state(reloaded, topt)
