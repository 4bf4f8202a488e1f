"""ember.optim.lr_scheduler against torch's: the same learning-rate (and momentum) sequence
for every scheduler over many steps, chained schedulers, state_dict round trips, errors."""
import copy
import math
import re
import warnings

import pytest

import ember
from ember.optim import lr_scheduler as S

torch = pytest.importorskip("torch")
T = torch.optim.lr_scheduler

N_STEPS = 40


def optimizers(opt_name="SGD", **opt_kwargs):
    """An ember and a torch optimizer with two parameter groups (lrs 0.1 and 0.02)."""
    def make(lib, module):
        groups = [{"params": [lib.zeros(2, requires_grad=True)]},
                  {"params": [lib.zeros(3, requires_grad=True)], "lr": 0.02}]
        return getattr(module, opt_name)(groups, lr=0.1, **opt_kwargs)
    return make(ember, ember.optim), make(torch, torch.optim)


def momenta(opt):
    """Each group's momentum (SGD) or beta1 (Adam)."""
    return [g["betas"][0] if "betas" in g else g.get("momentum") for g in opt.param_groups]


def run_schedule(opt, sched, steps=N_STEPS):
    """Record (get_last_lr, group lrs, momenta) after construction and after each step."""
    record = [(sched.get_last_lr(), [g["lr"] for g in opt.param_groups], momenta(opt))]
    for _ in range(steps):
        opt.step()
        sched.step()
        record.append((sched.get_last_lr(), [g["lr"] for g in opt.param_groups], momenta(opt)))
    return record


def assert_same_records(ours, theirs):
    assert len(ours) == len(theirs)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for x, y in zip(a, b):
            assert x == pytest.approx(y, rel=1e-14, abs=1e-300), f"step {step}"


SCHEDULES = {
    "StepLR": ("SGD", {}, lambda m, o: m.StepLR(o, step_size=7, gamma=0.5)),
    "MultiStepLR": ("SGD", {}, lambda m, o: m.MultiStepLR(o, milestones=[3, 10, 10, 25],
                                                          gamma=0.3)),
    "ExponentialLR": ("SGD", {}, lambda m, o: m.ExponentialLR(o, gamma=0.9)),
    "CosineAnnealingLR": ("SGD", {}, lambda m, o: m.CosineAnnealingLR(o, T_max=10)),
    "CosineAnnealingLR eta_min": ("Adam", {}, lambda m, o: m.CosineAnnealingLR(
        o, T_max=15, eta_min=1e-3)),
    "LambdaLR": ("SGD", {}, lambda m, o: m.LambdaLR(o, lambda e: 1 / (1 + e))),
    "LambdaLR per group": ("SGD", {}, lambda m, o: m.LambdaLR(
        o, [lambda e: 0.95 ** e, lambda e: 1 + math.sin(e)])),
    "LinearLR": ("SGD", {}, lambda m, o: m.LinearLR(o, start_factor=0.1, total_iters=8)),
    "LinearLR decay": ("SGD", {}, lambda m, o: m.LinearLR(o, start_factor=1.0, end_factor=0.2,
                                                          total_iters=30)),
    "SequentialLR warmup cosine": ("SGD", {}, lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.1, total_iters=5), m.CosineAnnealingLR(o, T_max=20)],
        milestones=[5])),
    "SequentialLR three": ("Adam", {}, lambda m, o: m.SequentialLR(
        o, [m.ExponentialLR(o, gamma=0.9), m.StepLR(o, step_size=4), m.LinearLR(o)],
        milestones=[6, 20])),
    "MultiplicativeLR": ("SGD", {}, lambda m, o: m.MultiplicativeLR(
        o, [lambda e: 0.9, lambda e: 1.0 if e % 3 else 0.5])),
    "ConstantLR": ("SGD", {}, lambda m, o: m.ConstantLR(o, factor=0.25, total_iters=6)),
    "PolynomialLR": ("SGD", {}, lambda m, o: m.PolynomialLR(o, total_iters=25, power=2.0)),
    "CosineAnnealingWarmRestarts": ("SGD", {}, lambda m, o: m.CosineAnnealingWarmRestarts(
        o, T_0=5, T_mult=2, eta_min=0.001)),
    "CosineAnnealingWarmRestarts T_mult 1": ("Adam", {}, lambda m, o:
                                             m.CosineAnnealingWarmRestarts(o, T_0=7)),
    "ChainedScheduler": ("SGD", {}, lambda m, o: m.ChainedScheduler(
        [m.ConstantLR(o, factor=0.1, total_iters=3), m.ExponentialLR(o, gamma=0.9)])),
    "OneCycleLR cos SGD": ("SGD", {"momentum": 0.9}, lambda m, o: m.OneCycleLR(
        o, max_lr=0.5, total_steps=N_STEPS)),
    "OneCycleLR linear three_phase": ("SGD", {"momentum": 0.9}, lambda m, o: m.OneCycleLR(
        o, max_lr=[0.5, 0.1], total_steps=N_STEPS + 5, anneal_strategy="linear",
        three_phase=True, pct_start=0.25)),
    "OneCycleLR Adam betas": ("Adam", {}, lambda m, o: m.OneCycleLR(
        o, max_lr=0.01, epochs=4, steps_per_epoch=10, div_factor=10.0,
        final_div_factor=100.0, base_momentum=0.8, max_momentum=0.9)),
    "OneCycleLR no momentum": ("AdamW", {}, lambda m, o: m.OneCycleLR(
        o, max_lr=0.01, total_steps=N_STEPS, cycle_momentum=False)),
}


@pytest.mark.parametrize("case", list(SCHEDULES))
def test_lr_sequence_matches_torch(case):
    opt_name, opt_kwargs, make = SCHEDULES[case]
    opt, topt = optimizers(opt_name, **opt_kwargs)
    ours = run_schedule(opt, make(S, opt))
    theirs = run_schedule(topt, make(T, topt))
    assert_same_records(ours, theirs)
    for group, tgroup in zip(opt.param_groups, topt.param_groups):
        assert group.keys() == tgroup.keys()
        assert group["initial_lr"] == tgroup["initial_lr"]


@pytest.mark.parametrize("case", list(SCHEDULES))
def test_state_dict_round_trip_continues_the_sequence(case):
    """Save optimizer and scheduler mid-run, rebuild both, load, continue: same rates as
    an uninterrupted run."""
    opt_name, opt_kwargs, make = SCHEDULES[case]
    opt, _ = optimizers(opt_name, **opt_kwargs)
    sched = make(S, opt)
    run_schedule(opt, sched, steps=N_STEPS // 2)
    opt_state = copy.deepcopy(opt.state_dict())
    sched_state = copy.deepcopy(sched.state_dict())
    assert "optimizer" not in sched_state
    assert sched_state.get("last_epoch", N_STEPS // 2) == N_STEPS // 2  # Chained has none
    expected = run_schedule(opt, sched, steps=N_STEPS // 2)

    fresh, _ = optimizers(opt_name, **opt_kwargs)
    resumed = make(S, fresh)
    fresh.load_state_dict(opt_state)
    resumed.load_state_dict(sched_state)
    assert resumed.get_last_lr() == expected[0][0]
    assert_same_records(run_schedule(fresh, resumed, steps=N_STEPS // 2), expected)


def test_chained_schedulers_match_torch():
    opt, topt = optimizers()
    ours = [S.ExponentialLR(opt, gamma=0.9), S.MultiStepLR(opt, milestones=[5, 12], gamma=0.1)]
    theirs = [T.ExponentialLR(topt, gamma=0.9), T.MultiStepLR(topt, milestones=[5, 12],
                                                              gamma=0.1)]
    for _ in range(20):
        opt.step()
        topt.step()
        for a, b in zip(ours, theirs):
            a.step()
            b.step()
        assert [g["lr"] for g in opt.param_groups] == pytest.approx(
            [g["lr"] for g in topt.param_groups], rel=1e-14)
    assert ours[1].get_last_lr() == pytest.approx(theirs[1].get_last_lr(), rel=1e-14)


def test_scheduler_drives_a_training_run_like_torch():
    """The rates reach the parameters: SGD + CosineAnnealingLR gives torch's weights."""
    w = ember.tensor([1.0, -2.0, 3.0], dtype=ember.float64, requires_grad=True)
    tw = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
    opt = ember.optim.SGD([w], lr=0.2, momentum=0.5)
    topt = torch.optim.SGD([tw], lr=0.2, momentum=0.5)
    sched, tsched = S.CosineAnnealingLR(opt, T_max=8), T.CosineAnnealingLR(topt, T_max=8)
    for _ in range(12):
        for o, x in ((opt, w), (topt, tw)):
            o.zero_grad()
            ((x * x).sum() * 0.5).backward()
            o.step()
        sched.step()
        tsched.step()
    assert w.detach().numpy().tolist() == pytest.approx(tw.detach().numpy().tolist(), rel=1e-12)


CLOSED_FORMS = {"StepLR": {"step_size": 3}, "MultiStepLR": {"milestones": [2, 5]},
                "ExponentialLR": {"gamma": 0.8}, "CosineAnnealingLR": {"T_max": 6},
                "ConstantLR": {"factor": 0.5, "total_iters": 3}, "LinearLR": {"total_iters": 6},
                "PolynomialLR": {"total_iters": 6, "power": 0.5},
                "LambdaLR": {"lr_lambda": lambda e: 0.5 ** e}}


@pytest.mark.parametrize("name", list(CLOSED_FORMS))
def test_step_with_an_epoch_uses_the_closed_form_like_torch(name):
    kwargs = CLOSED_FORMS[name]
    opt, topt = optimizers()
    sched, tsched = getattr(S, name)(opt, **kwargs), getattr(T, name)(topt, **kwargs)
    opt.step()
    topt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tsched.step(4)
    with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step\\(\\)`"):
        sched.step(4)
    assert sched.get_last_lr() == pytest.approx(tsched.get_last_lr(), rel=1e-14)
    assert sched.last_epoch == 4


def test_resume_with_last_epoch():
    """last_epoch >= 0 needs initial_lr in the groups (torch's KeyError), then resumes."""
    opt, topt = optimizers()
    with pytest.raises(KeyError, match=re.escape("param 'initial_lr' is not specified in "
                                                 "param_groups[0]")):
        S.StepLR(opt, step_size=2, last_epoch=3)
    for o in (opt, topt):
        for g in o.param_groups:
            g["initial_lr"] = g["lr"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched, tsched = (S.CosineAnnealingLR(opt, T_max=10, last_epoch=4),
                         T.CosineAnnealingLR(topt, T_max=10, last_epoch=4))
    assert_same_records(run_schedule(opt, sched, 10), run_schedule(topt, tsched, 10))


# --- warnings and errors --------------------------------------------------------------------
def test_scheduler_step_before_optimizer_step_warns():
    opt, _ = optimizers()
    sched = S.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()


def test_no_warning_in_the_right_order_and_the_step_wrapper_goes_away():
    opt, _ = optimizers()
    sched = S.StepLR(opt, step_size=2)
    assert "step" in opt.__dict__  # watching for the first optimizer.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()
        opt.step()
        sched.step()
    assert "step" not in opt.__dict__  # later steps call the class's step directly


def test_get_lr_outside_step_warns():
    opt, _ = optimizers()
    sched = S.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_onecycle_stepping_past_total_steps_raises_like_torch():
    opt, topt = optimizers(momentum=0.9)
    sched, tsched = S.OneCycleLR(opt, max_lr=1.0, total_steps=5), T.OneCycleLR(
        topt, max_lr=1.0, total_steps=5)
    for _ in range(5):
        opt.step()
        topt.step()
        sched.step()
        tsched.step()
    assert sched.get_last_lr() == pytest.approx(tsched.get_last_lr(), rel=1e-14)
    with pytest.raises(ValueError) as theirs:
        tsched.step()
    with pytest.raises(ValueError, match=re.escape(str(theirs.value))):
        sched.step()


ONECYCLE_ERRORS = {
    "no steps": {"max_lr": 0.1},
    "zero total_steps": {"max_lr": 0.1, "total_steps": 0},
    "bad epochs": {"max_lr": 0.1, "epochs": 0, "steps_per_epoch": 3},
    "bad steps_per_epoch": {"max_lr": 0.1, "epochs": 2, "steps_per_epoch": -1},
    "pct_start": {"max_lr": 0.1, "total_steps": 10, "pct_start": 1.5},
    "pct_start int": {"max_lr": 0.1, "total_steps": 10, "pct_start": 1},
    "anneal": {"max_lr": 0.1, "total_steps": 10, "anneal_strategy": "exp"},
    "max_lr length": {"max_lr": [0.1, 0.2, 0.3], "total_steps": 10},
    "no momentum": {"max_lr": 0.1, "total_steps": 10, "opt": "RMSprop-free"},
}


@pytest.mark.parametrize("case", list(ONECYCLE_ERRORS))
def test_onecycle_errors_match_torch(case):
    kwargs = dict(ONECYCLE_ERRORS[case])
    custom = kwargs.pop("opt", None)

    def attempt(lib_sched, lib_optim, lib):
        if custom:  # an optimizer with neither momentum nor betas
            class Plain(lib_optim.Optimizer):
                def __init__(self, params):
                    super().__init__(params, {"lr": 0.1})
            opt = Plain([lib.zeros(2, requires_grad=True)])
        else:
            opt = lib_optim.SGD([lib.zeros(2, requires_grad=True)], lr=0.1, momentum=0.9)
        lib_sched.OneCycleLR(opt, **kwargs)

    with pytest.raises(ValueError) as theirs:
        attempt(T, torch.optim, torch)
    with pytest.raises(ValueError, match="^" + re.escape(str(theirs.value)) + "$"):
        attempt(S, ember.optim, ember)


def test_not_an_optimizer_and_lambda_count_errors():
    with pytest.raises(TypeError, match="^list is not an Optimizer$"):
        S.StepLR([], step_size=1)
    opt, _ = optimizers()
    with pytest.raises(ValueError, match="^Expected 2 lr_lambdas, but got 3$"):
        S.LambdaLR(opt, [lambda e: 1.0] * 3)


def test_lambda_state_dict_saves_callable_objects_only():
    class Scale:
        def __init__(self, factor):
            self.factor = factor

        def __call__(self, epoch):
            return self.factor ** epoch

    opt, _ = optimizers()
    sched = S.LambdaLR(opt, [Scale(0.5), lambda e: 1.0])
    saved = sched.state_dict()
    assert saved["lr_lambdas"] == [{"factor": 0.5}, None]
    other = S.LambdaLR(optimizers()[0], [Scale(0.9), lambda e: 1.0])
    other.load_state_dict(saved)
    assert other.lr_lambdas[0].factor == 0.5
    assert "lr_lambdas" in saved  # the caller's dict is left whole


@pytest.mark.parametrize("kwargs", [
    {},
    {"mode": "max", "factor": 0.5, "patience": 2, "cooldown": 2},
    {"factor": 0.3, "patience": 1, "threshold": 0.05, "threshold_mode": "abs",
     "min_lr": [0.01, 0.005]},
    {"mode": "max", "patience": 0, "threshold_mode": "abs", "min_lr": 0.001, "eps": 0.01},
])
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    opt, topt = optimizers()
    sched, tsched = S.ReduceLROnPlateau(opt, **kwargs), T.ReduceLROnPlateau(topt, **kwargs)
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.9, 0.89, 0.95, 0.97, 0.99, 1.2, 0.5, 0.5, 0.5,
               0.5, 0.6, 0.7, 0.7, 0.7, 0.7, 0.7, 0.8, 0.1, 0.1, 0.1] * 2
    for metric in metrics:
        sched.step(metric)
        tsched.step(metric)
        assert sched.get_last_lr() == pytest.approx(tsched.get_last_lr(), rel=1e-14)
        assert (sched.num_bad_epochs, sched.cooldown_counter, sched.best) == (
            tsched.num_bad_epochs, tsched.cooldown_counter, tsched.best)
    reloaded = S.ReduceLROnPlateau(optimizers()[0], **kwargs)
    reloaded.load_state_dict(sched.state_dict())
    assert reloaded.best == sched.best and reloaded.mode_worse == sched.mode_worse


@pytest.mark.parametrize("case", ["factor", "mode", "threshold_mode", "min_lr"])
def test_reduce_lr_on_plateau_errors_match_torch(case):
    kwargs = {"factor": {"factor": 1.0}, "mode": {"mode": "lowest"},
              "threshold_mode": {"threshold_mode": "pct"}, "min_lr": {"min_lr": [0.1]}}[case]
    opt, topt = optimizers()
    with pytest.raises(ValueError) as theirs:
        T.ReduceLROnPlateau(topt, **kwargs)
    with pytest.raises(ValueError, match="^" + re.escape(str(theirs.value)) + "$"):
        S.ReduceLROnPlateau(opt, **kwargs)


@pytest.mark.parametrize("case", ["no schedulers", "milestones", "other optimizer", "plateau"])
def test_sequential_lr_errors_match_torch(case):
    def attempt(m, opts):
        opt, other = opts
        if case == "no schedulers":
            return m.SequentialLR(opt, [], milestones=[])
        if case == "milestones":
            return m.SequentialLR(opt, [m.StepLR(opt, 2), m.StepLR(opt, 3)], milestones=[])
        if case == "other optimizer":
            return m.SequentialLR(opt, [m.StepLR(opt, 2), m.StepLR(other, 3)], milestones=[4])
        return m.SequentialLR(opt, [m.StepLR(opt, 2), m.ReduceLROnPlateau(opt)], milestones=[4])

    ours, theirs_opts = zip(optimizers(), optimizers())
    with pytest.raises(ValueError) as theirs:
        attempt(T, theirs_opts)
    # the message shows the other optimizer's repr, which is torch's too
    with pytest.raises(ValueError, match="^" + re.escape(str(theirs.value)) + "$"):
        attempt(S, ours)


def test_linear_lr_errors_match_torch():
    for kwargs in ({"start_factor": 0}, {"start_factor": 1.5}, {"end_factor": -0.1}):
        opt, topt = optimizers()
        with pytest.raises(ValueError) as theirs:
            T.LinearLR(topt, **kwargs)
        with pytest.raises(ValueError, match="^" + re.escape(str(theirs.value)) + "$"):
            S.LinearLR(opt, **kwargs)


def test_tensor_lr_is_updated_in_place_like_torch():
    w = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    tw = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    lr, tlr = ember.tensor(0.1, dtype=ember.float64), torch.tensor(0.1, dtype=torch.float64)
    opt = ember.optim.SGD([w], lr=lr, momentum=0.9)
    topt = torch.optim.SGD([tw], lr=tlr, momentum=0.9)
    sched, tsched = S.StepLR(opt, 2, 0.5), T.StepLR(topt, 2, 0.5)
    for _ in range(6):
        w.grad, tw.grad = ember.ones(2, dtype=ember.float64), torch.ones(2, dtype=torch.float64)
        opt.step()
        topt.step()
        sched.step()
        tsched.step()
    assert opt.param_groups[0]["lr"] is lr and lr.item() == tlr.item() == 0.0125
    assert sched.get_last_lr()[0] is not lr  # a copy, like torch's
    assert w.detach().numpy().tolist() == pytest.approx(tw.detach().numpy().tolist(), rel=1e-14)


@pytest.mark.parametrize("epochs", [[0.5, 1.7, 3.2, 6.0, 14.9, 16.0, 40.5],
                                    [2, 0, 11, 4.25, 37]])
@pytest.mark.parametrize("t_mult", [1, 2, 3])
def test_warm_restarts_with_fractional_epochs_match_torch(epochs, t_mult):
    opt, topt = optimizers()
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=5, T_mult=t_mult, eta_min=0.01)
    tsched = T.CosineAnnealingWarmRestarts(topt, T_0=5, T_mult=t_mult, eta_min=0.01)
    for epoch in epochs:
        sched.step(epoch)
        tsched.step(epoch)
        assert sched.get_last_lr() == pytest.approx(tsched.get_last_lr(), rel=1e-14)
        assert (sched.T_cur, sched.T_i, sched.last_epoch) == pytest.approx(
            (tsched.T_cur, tsched.T_i, tsched.last_epoch), rel=1e-14)
    with pytest.raises(ValueError, match="^Expected non-negative epoch, but got -1$"):
        sched.step(-1)


@pytest.mark.parametrize("kwargs", [{"T_0": 0}, {"T_0": 2.5}, {"T_0": 3, "T_mult": 0},
                                    {"T_0": 3, "eta_min": "0"}])
def test_warm_restarts_errors_match_torch(kwargs):
    opt, topt = optimizers()
    with pytest.raises(ValueError) as theirs:
        T.CosineAnnealingWarmRestarts(topt, **kwargs)
    with pytest.raises(ValueError, match="^" + re.escape(str(theirs.value)) + "$"):
        S.CosineAnnealingWarmRestarts(opt, **kwargs)


def test_constant_and_multiplicative_errors_match_torch():
    opt, topt = optimizers()
    for make in (lambda m, o: m.ConstantLR(o, factor=1.5),
                 lambda m, o: m.MultiplicativeLR(o, [lambda e: 1.0, 0.5]),
                 lambda m, o: m.ChainedScheduler([])):
        with pytest.raises(Exception) as theirs:
            make(T, topt)
        with pytest.raises(theirs.type, match="^" + re.escape(str(theirs.value)) + "$"):
            make(S, opt)
