"""Public API that no other test named (issue 24): GradScaler's growth/backoff getters and
setters, the autocast cache and nesting functions, Tensor.is_cpu/is_cuda/get_device/
suggest_memory_format/is_set_to, get_printoptions; against torch where it has them."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _scalers(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ember.amp.GradScaler("cpu", **kw), torch.amp.GradScaler("cpu", **kw)


def test_grad_scaler_growth_and_backoff_getters_and_setters():
    """The getters read the constructor's values and the setters' new ones; update() then
    grows and backs off by them, as torch's does."""
    kw = {"init_scale": 8.0, "growth_factor": 4.0, "backoff_factor": 0.25,
          "growth_interval": 3}
    scalers = _scalers(**kw)
    for s in scalers:
        assert (s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval()) == \
            (4.0, 0.25, 3)
        s.set_growth_factor(3.0)
        s.set_backoff_factor(0.5)
        s.set_growth_interval(1)
        assert (s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval()) == \
            (3.0, 0.5, 1)
    scales = []
    for s, lib in zip(scalers, (ember, torch)):
        w = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([w], lr=0.1)
        seen = []
        for bad in (False, True, False):
            opt.zero_grad()
            loss = (w * (float("inf") if bad else 1.0)).sum()
            s.scale(loss).backward()
            s.step(opt)
            s.update()
            seen.append(s.get_scale())
        scales.append(seen)
    assert scales[0] == scales[1] == [24.0, 12.0, 36.0]


def test_autocast_cache_and_nesting_functions():
    for lib in (ember, torch):
        assert lib.is_autocast_cache_enabled()
        lib.set_autocast_cache_enabled(False)
        try:
            assert not lib.is_autocast_cache_enabled()
        finally:
            lib.set_autocast_cache_enabled(True)
        lib.clear_autocast_cache()
    assert [ember.autocast_increment_nesting(), ember.autocast_increment_nesting(),
            ember.autocast_decrement_nesting(), ember.autocast_decrement_nesting()] == \
        [torch.autocast_increment_nesting(), torch.autocast_increment_nesting(),
         torch.autocast_decrement_nesting(), torch.autocast_decrement_nesting()]


def test_autocast_cache_reuses_a_leaf_weights_cast():
    """Under autocast the bfloat16 copy of a leaf weight is cast once and cached (both
    uses give identical values); clear_autocast_cache drops it."""
    w = ember.nn.Parameter(ember.randn(3, 3))
    x = ember.randn(3, 3)
    with ember.autocast("cpu", dtype=ember.bfloat16):
        a, b = ember.mm(x, w), ember.mm(x, w)
    tw = torch.nn.Parameter(torch.from_numpy(w.detach().numpy()))
    tx = torch.from_numpy(x.numpy())
    with torch.autocast("cpu", dtype=torch.bfloat16):
        t = torch.mm(tx, tw)
    assert a.dtype is ember.bfloat16 and t.dtype is torch.bfloat16
    a, b, t = (r.detach().float().numpy() for r in (a, b, t))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, t)
    ember.clear_autocast_cache()


@pytest.mark.parametrize("case", ["plain", "meta", "channels_last", "view", "0d"])
def test_tensor_device_and_layout_queries(case):
    def make(lib):
        x = lib.arange(120.0).reshape(2, 3, 4, 5)
        if case == "meta":
            return lib.empty(2, 3, device="meta")
        if case == "channels_last":
            return x.contiguous(memory_format=lib.channels_last)
        if case == "view":
            return x[:, 1]
        return lib.tensor(1.0) if case == "0d" else x
    e, t = make(ember), make(torch)
    assert (e.is_cpu, e.is_cuda, e.get_device()) == (t.is_cpu, t.is_cuda, t.get_device())
    # (torch.Tensor has no Python suggest_memory_format: its rule, from the strides)
    cl = case == "channels_last"
    assert e.suggest_memory_format() is (ember.channels_last if cl else ember.contiguous_format)
    for lib, x in ((ember, e), (torch, t)) if case != "meta" else ((ember, e),):  # (torch:
        y = x.view(x.shape)                                     # no is_set_to on Meta)
        assert x.is_set_to(x) and y.is_set_to(x)
        if x.dim():
            assert not x[:1].is_set_to(x)
        assert not x.is_set_to(x.clone() if x.device.type != "meta" else lib.empty_like(x))


def test_get_printoptions_reads_set_printoptions():
    import torch._tensor_str as torch_str
    before = ember.get_printoptions()
    assert before == vars(torch_str.PRINT_OPTS)
    try:
        ember.set_printoptions(precision=2, threshold=10, edgeitems=1, linewidth=40,
                               sci_mode=True)
        torch.set_printoptions(precision=2, threshold=10, edgeitems=1, linewidth=40,
                               sci_mode=True)
        assert ember.get_printoptions() == vars(torch_str.PRINT_OPTS) == \
            {"precision": 2, "threshold": 10, "edgeitems": 1, "linewidth": 40, "sci_mode": True}
    finally:
        ember.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
    assert ember.get_printoptions() == before
