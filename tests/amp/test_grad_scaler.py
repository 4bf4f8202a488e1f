"""ember.amp.GradScaler against torch.amp.GradScaler("cpu") on the same gradients."""
from __future__ import annotations

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


class MiniSGD:
    """The smallest optimizer GradScaler works with: param_groups and step()."""

    def __init__(self, lib, params, lr=0.1):
        self.lib = lib
        self.param_groups = [{"params": list(params), "lr": lr}]
        self.steps = 0

    def step(self):
        with self.lib.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.sub_(p.grad * group["lr"])
        self.steps += 1
        return "stepped"

    def zero_grad(self):
        for p in self.param_groups[0]["params"]:
            p.grad = None


def run(lib, scaler_cls, xs, **scaler_kwargs):
    """Train w on losses (w * x).sum(); record the scaler after every update."""
    w = lib.tensor(np.linspace(-1, 1, 4, dtype=np.float32), requires_grad=True)
    opt = MiniSGD(lib, [w])
    scaler = scaler_cls("cpu", **scaler_kwargs)
    trace = []
    for x in xs:
        opt.zero_grad()
        loss = (w * lib.tensor(x)).sum()
        scaler.scale(loss).backward()
        returned = scaler.step(opt)
        scaler.update()
        trace.append((scaler.get_scale(), scaler._get_growth_tracker(), returned,
                      w.detach().numpy().copy()))
    return trace, scaler


def inputs(n, bad_steps, bad_value):
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal(4).astype(np.float32) for _ in range(n)]
    for i in bad_steps:
        xs[i][1] = bad_value
    return xs


@pytest.mark.parametrize("bad_value", [np.inf, -np.inf, np.nan])
def test_skip_grow_backoff_sequence_matches_torch(bad_value):
    xs = inputs(12, (2, 6, 7), bad_value)
    kw = {"init_scale": 2.0**4, "growth_factor": 2.0, "backoff_factor": 0.5,
          "growth_interval": 3}
    mine, e_scaler = run(ember, ember.amp.GradScaler, xs, **kw)
    ref, t_scaler = run(torch, torch.amp.GradScaler, xs, **kw)
    for step, (m, r) in enumerate(zip(mine, ref)):
        assert m[:3] == r[:3], f"step {step}: {m[:3]} != {r[:3]}"
        np.testing.assert_array_equal(m[3], r[3])
    assert e_scaler.state_dict() == t_scaler.state_dict()


def test_growth_stops_before_overflow():
    xs = inputs(3, (), 0)
    kw = {"init_scale": 3e38, "growth_factor": 2.0, "growth_interval": 1}
    mine, _ = run(ember, ember.amp.GradScaler, xs, **kw)
    ref, _ = run(torch, torch.amp.GradScaler, xs, **kw)
    assert [m[:2] for m in mine] == [r[:2] for r in ref]


def test_explicit_unscale_then_step_unscales_once():
    for lib, cls in ((ember, ember.amp.GradScaler), (torch, torch.amp.GradScaler)):
        w = lib.ones(3, requires_grad=True)
        opt = MiniSGD(lib, [w], lr=1.0)
        scaler = cls("cpu", init_scale=8.0)
        scaler.scale((w * 2).sum()).backward()
        assert w.grad.tolist() == [16.0] * 3
        scaler.unscale_(opt)
        assert w.grad.tolist() == [2.0] * 3
        scaler.step(opt)
        assert w.detach().tolist() == [-1.0] * 3


def test_misuse_raises_like_torch():
    def stages(lib, cls):
        w = lib.ones(2, requires_grad=True)
        opt = MiniSGD(lib, [w])
        scaler = cls("cpu")
        errors = []
        for action in ("update", "scale", "unscale", "unscale", "step", "step", "closure",
                       "update", "unscale_after_step"):
            try:
                if action == "update":
                    scaler.update()
                elif action == "scale":
                    scaler.scale((w * 3).sum()).backward()
                elif action == "unscale":
                    scaler.unscale_(opt)
                elif action == "step":
                    scaler.step(opt)
                elif action == "closure":
                    scaler.step(opt, closure=lambda: None)
                else:
                    scaler.scale((w * 3).sum()).backward()
                    scaler.step(opt)
                    scaler.unscale_(opt)
                errors.append(None)
            except Exception as e:  # noqa: BLE001  (compared with torch's)
                errors.append((type(e).__name__, str(e).replace("torch.", "")
                               .replace("ember.", "")))
        return errors
    mine = stages(ember, ember.amp.GradScaler)
    ref = stages(torch, torch.amp.GradScaler)
    assert [m and m[0] for m in mine] == [r and r[0] for r in ref]
    for m, r in zip(mine, ref):
        if m and "_scale is None" not in m[1]:
            assert m[1] == r[1]


def test_fp16_gradients_are_refused():
    for lib, cls in ((ember, ember.amp.GradScaler), (torch, torch.amp.GradScaler)):
        w = lib.ones(2, dtype=lib.float16, requires_grad=True)
        scaler = cls("cpu")
        scaler.scale((w * 2).sum()).backward()
        with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
            scaler.unscale_(MiniSGD(lib, [w]))


def test_scale_maps_over_nested_outputs():
    scaler = ember.amp.GradScaler("cpu", init_scale=4.0)
    a, b = ember.ones(2), ember.ones(1)
    out = scaler.scale([a, (b, a)])
    assert isinstance(out, list) and isinstance(out[1], tuple)
    assert out[0].tolist() == [4.0, 4.0] and out[1][0].tolist() == [4.0]
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable"):
        scaler.scale(3.0)


def test_state_dict_round_trip_and_new_scale():
    xs = inputs(4, (1,), np.inf)
    _, scaler = run(ember, ember.amp.GradScaler, xs, init_scale=32.0, growth_interval=2)
    state = scaler.state_dict()
    fresh = ember.amp.GradScaler("cpu")
    fresh.load_state_dict(state)
    assert fresh.state_dict() == state
    assert fresh.get_scale() == scaler.get_scale()
    scaler.update(new_scale=2.0)
    assert scaler.get_scale() == 2.0
    scaler.update(new_scale=ember.tensor(8.0))
    assert scaler.get_scale() == 8.0
    with pytest.raises(AssertionError, match="new_scale should be a float"):
        scaler.update(new_scale=ember.ones(2))
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        fresh.load_state_dict({})


def test_disabled_scaler_passes_through():
    w = ember.ones(2, requires_grad=True)
    opt = MiniSGD(ember, [w])
    scaler = ember.amp.GradScaler("cpu", enabled=False)
    loss = (w * 2).sum()
    assert scaler.scale(loss) is loss
    assert scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    loss.backward()
    assert scaler.step(opt) == "stepped"
    scaler.update()
    with pytest.warns(UserWarning, match="CUDA is not available"):
        assert not ember.amp.GradScaler().is_enabled()


@pytest.mark.parametrize("make_opt", [
    lambda lib, ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9),
    lambda lib, ps: lib.optim.Adam(ps, lr=0.01),
], ids=["SGD-momentum", "Adam"])
def test_with_ember_optim_matches_torch(make_opt):
    """GradScaler drives ember.optim like torch.optim: same skips, same parameters."""
    xs = inputs(8, (3,), np.inf)
    results = []
    for lib, cls in ((ember, ember.amp.GradScaler), (torch, torch.amp.GradScaler)):
        w = lib.tensor(np.linspace(-1, 1, 4), requires_grad=True)
        opt = make_opt(lib, [w])
        scaler = cls("cpu", init_scale=2.0**10, growth_interval=2)
        trace = []
        for x in xs:
            opt.zero_grad()
            scaler.scale((w * lib.tensor(x.astype(np.float64)) ** 2).sum()).backward()
            scaler.step(opt)
            scaler.update()
            trace.append((scaler.get_scale(), w.detach().numpy().copy()))
        results.append(trace)
    for (e_scale, e_w), (t_scale, t_w) in zip(*results):
        assert e_scale == t_scale
        np.testing.assert_allclose(e_w, t_w, rtol=1e-12, atol=1e-12)


def test_missing_inf_checks_raise_like_torch():
    """step() with no gradients at all, and update() after scale() with no step()."""
    for lib, cls in ((ember, ember.amp.GradScaler), (torch, torch.amp.GradScaler)):
        w = lib.ones(2, requires_grad=True)
        scaler = cls("cpu")
        scaler.scale((w * 2).sum())
        with pytest.raises(AssertionError, match="No inf checks were recorded prior to update."):
            scaler.update()
        with pytest.raises(AssertionError,
                           match="No inf checks were recorded for this optimizer."):
            scaler.step(MiniSGD(lib, [w]))


def test_factor_checks():
    for kwargs, message in (({"growth_factor": 1.0}, "growth factor must be > 1.0"),
                            ({"backoff_factor": 1.0}, "backoff factor must be < 1.0")):
        with pytest.raises(ValueError, match=message):
            ember.amp.GradScaler("cpu", **kwargs)
