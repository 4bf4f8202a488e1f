"""ember.autocast as torch.autocast: the context manager, what is and is not autocast,
the cached weight casts, and gradients reaching float32 weights."""
from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import ember
from ember.amp import autocast_mode

torch = pytest.importorskip("torch")


def pair(shape, seed=0, requires_grad=False, dtype="float32"):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    e = ember.tensor(a, requires_grad=requires_grad)
    t = torch.tensor(a, requires_grad=requires_grad)
    return e, t


def tname(d):
    return str(d).removeprefix("torch.")


# ------------------------------------------------------------------ the context manager


def test_state_inside_and_outside():
    assert not ember.is_autocast_enabled("cpu")
    assert ember.get_autocast_dtype("cpu") is ember.bfloat16
    assert ember.get_autocast_dtype("cuda") is ember.float16
    with ember.autocast("cpu"):
        assert ember.is_autocast_enabled("cpu") and not ember.is_autocast_enabled("cuda")
        with ember.autocast("cpu", dtype=ember.float16):
            assert ember.get_autocast_dtype("cpu") is ember.float16
            with ember.autocast("cpu", enabled=False):
                assert not ember.is_autocast_enabled("cpu")
            assert ember.is_autocast_enabled("cpu")
        assert ember.get_autocast_dtype("cpu") is ember.bfloat16
    assert not ember.is_autocast_enabled("cpu")


def test_decorator_enters_a_fresh_region_per_call():
    @ember.autocast("cpu")
    def forward(a, b):
        assert ember.is_autocast_enabled("cpu")
        return ember.mm(a, b)

    a, _ = pair((2, 3))
    b, _ = pair((3, 2), 1)
    assert forward(a, b).dtype is ember.bfloat16
    assert forward.__name__ == "forward"
    assert not ember.is_autocast_enabled("cpu")


def test_region_is_restored_after_an_exception():
    with pytest.raises(ValueError), ember.autocast("cpu"):
        raise ValueError("boom")
    assert not ember.is_autocast_enabled("cpu")
    assert autocast_mode._state.nesting == 0


def test_errors_and_warnings_like_torch():
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'xpu'"):
        ember.autocast("xpu")
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ember.autocast(ember.device("cpu"))
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        ac = ember.autocast("cpu", dtype=ember.float64)
    with ac:
        assert not ember.is_autocast_enabled("cpu")
    with pytest.warns(UserWarning, match="CUDA is not available"):
        ember.autocast("cuda")


def test_autocast_is_available_for_cpu_and_cuda_only():
    assert ember.amp.is_autocast_available("cpu") and ember.amp.is_autocast_available("cuda")
    assert not ember.amp.is_autocast_available("xpu")
    assert torch.amp.is_autocast_available("cpu")


def test_state_is_per_thread():
    seen = []
    with ember.autocast("cpu"):
        t = threading.Thread(target=lambda: seen.append(ember.is_autocast_enabled("cpu")))
        t.start()
        t.join()
    assert seen == [False]


# ------------------------------------------------------------------ what is autocast


def test_listed_ops_cast_and_unlisted_fall_through():
    (ea, ta), (eb, tb) = pair((4, 4)), pair((4, 4), 1)
    cases = [
        (lambda m, a, b: m.mm(a, b), "mm"),                          # lower
        (lambda m, a, b: m.relu(a), "relu: not listed"),
        (lambda m, a, b: m.add(a.bfloat16(), b), "add: type promotion"),
        (lambda m, a, b: m.cat([a.bfloat16(), b]), "cat: promote"),
        (lambda m, a, b: m.stack([a.bfloat16(), b.bfloat16()]), "stack: all lower"),
        (lambda m, a, b: m.prod(a.bfloat16()), "prod: fp32"),
        (lambda m, a, b: m.mm(a.double(), b.double()), "float64 is never cast"),
        (lambda m, a, b: m.sum(a.bfloat16()), "sum: not listed on cpu"),
    ]
    for fn, what in cases:
        with ember.autocast("cpu"):
            e = fn(ember, ea, eb)
        with torch.autocast("cpu"):
            t = fn(torch, ta, tb)
        assert e.dtype.name == tname(t.dtype), what


def test_inplace_out_and_explicit_dtype_are_not_autocast():
    (ea, ta), (eb, tb) = pair((3, 3)), pair((3, 3), 1)
    with ember.autocast("cpu"):
        e_out = ember.empty(3, 3)
        ember.mm(ea, eb, out=e_out)
        e_inplace = ea.clone()[None].baddbmm_(ea[None], eb[None])
        e_sum = ember.prod(ea.bfloat16(), dtype=ember.bfloat16)
    with torch.autocast("cpu"):
        t_out = torch.empty(3, 3)
        torch.mm(ta, tb, out=t_out)
        t_inplace = ta.clone()[None].baddbmm_(ta[None], tb[None])
        t_sum = torch.prod(ta.bfloat16(), dtype=torch.bfloat16)
    for e, t in ((e_out, t_out), (e_inplace, t_inplace), (e_sum, t_sum)):
        assert e.dtype.name == tname(t.dtype)
        np.testing.assert_allclose(e.float().numpy(), t.float().numpy(), rtol=1e-2, atol=1e-2)


def test_composite_ops_are_cast_before_they_decompose():
    """linear is listed: its bias is cast too, and the graph has torch's nodes."""
    (ex, tx), (ew, tw), (eb, tb) = (pair((2, 3)), pair((4, 3), 1, True),
                                    pair((4,), 2, True))
    with ember.autocast("cpu"):
        e = ember.linear(ex, ew, eb)
    with torch.autocast("cpu"):
        t = torch.nn.functional.linear(tx, tw, tb)
    assert e.dtype is ember.bfloat16 and t.dtype is torch.bfloat16
    assert type(e.grad_fn).__name__ == t.grad_fn.name()
    e_next = sorted(type(n).__name__ for n, _ in e.grad_fn.next_functions if n is not None)
    t_next = sorted(n.name() for n, _ in t.grad_fn.next_functions if n is not None)
    assert e_next == t_next


def test_tensor_lists_are_cast():
    (ea, _), (eb, _) = pair((2, 2)), pair((2, 2), 1)
    with ember.autocast("cpu", dtype=ember.bfloat16):
        e = ember.cat([ea.bfloat16(), eb.bfloat16()])
        e_mixed = ember.stack([ea.bfloat16(), eb])
    assert e.dtype is ember.bfloat16 and e_mixed.dtype is ember.float32


def test_meta_tensors_are_not_cast_by_cpu_autocast():
    a = ember.empty(2, 3, device="meta")
    b = ember.empty(3, 2, device="meta")
    with ember.autocast("cpu"):
        assert ember.mm(a, b).dtype is ember.float32


# ------------------------------------------------------------------ the weight cache


def cast_node_of(result, index):
    node, _ = result.grad_fn.next_functions[index]
    return node


def test_leaf_weights_are_cast_once_per_region_like_torch():
    (ex, tx), (ew, tw) = pair((2, 3)), pair((3, 3), 1, True)
    for lib, x, w in ((ember, ex, ew), (torch, tx, tw)):
        with lib.autocast("cpu"):
            y1, y2 = lib.mm(x, w), lib.mm(x, w)
            inner = y1.grad_fn.next_functions
        assert cast_node_of(y1, 1) is cast_node_of(y2, 1), lib.__name__
        assert inner[1][0] is not None
        with lib.autocast("cpu"):
            y3 = lib.mm(x, w)
        assert cast_node_of(y3, 1) is not cast_node_of(y1, 1), "cache cleared at exit"


def test_what_is_not_cached():
    x, _ = pair((2, 3))
    w, _ = pair((3, 3), 1, True)
    not_leaf = w * 1
    no_grad_weight, _ = pair((3, 3), 2)
    with ember.autocast("cpu"):
        assert cast_node_of(ember.mm(x, not_leaf), 1) is not \
            cast_node_of(ember.mm(x, not_leaf), 1)
        ember.mm(x, no_grad_weight)
        assert autocast_mode._state.cache == {}
    with ember.autocast("cpu", cache_enabled=False):
        assert cast_node_of(ember.mm(x, w), 1) is not cast_node_of(ember.mm(x, w), 1)
        assert autocast_mode._state.cache == {}


def test_cache_clears_only_when_the_outermost_region_exits():
    x, _ = pair((2, 3))
    w, _ = pair((3, 3), 1, True)
    with ember.autocast("cpu"):
        with ember.autocast("cpu"):
            ember.mm(x, w)
        assert len(autocast_mode._state.cache) == 1
        with ember.autocast("cpu", enabled=False):
            pass
        assert len(autocast_mode._state.cache) == 1
    assert autocast_mode._state.cache == {}


def test_a_dead_weight_never_answers_for_a_new_tensor():
    x, _ = pair((2, 3))
    with ember.autocast("cpu"):
        w, _ = pair((3, 3), 1, True)
        ember.mm(x, w)
        (ref, _), = autocast_mode._state.cache.values()
        del w
        gc.collect()
        assert ref() is None
        w2, _ = pair((3, 3), 3, True)
        y = ember.mm(x, w2)
        np.testing.assert_allclose(y.detach().float().numpy(),
                                   (x.bfloat16() @ w2.detach().bfloat16()).float().numpy())
        assert y.grad_fn is not None


# ------------------------------------------------------------------ gradients


def test_gradients_reach_float32_weights_like_torch():
    (ex, tx), (ew, tw), (eb, tb) = (pair((8, 5)), pair((4, 5), 1, True), pair((4,), 2, True))
    target = np.random.default_rng(3).integers(0, 4, 8)
    for lib, x, w, b in ((ember, ex, ew, eb), (torch, tx, tw, tb)):
        with lib.autocast("cpu"):
            h = lib.relu(lib.nn.functional.linear(x, w, b) if lib is torch
                         else lib.linear(x, w, b))
            loss = (torch.nn.functional.cross_entropy if lib is torch
                    else ember.cross_entropy_loss)(h, lib.tensor(target))
        assert loss.dtype is lib.float32
        loss.backward()
    for e, t in ((ew, tw), (eb, tb)):
        assert e.grad.dtype is ember.float32 and t.grad.dtype is torch.float32
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=3e-2, atol=3e-2)


def test_backward_inside_autocast_matches_outside():
    (ex, _), (ew, _) = pair((3, 4)), pair((4, 2), 1, True)
    with ember.autocast("cpu"):
        ember.mm(ex, ew).float().sum().backward()
    inside = ew.grad.clone()
    ew.grad = None
    with ember.autocast("cpu"):
        y = ember.mm(ex, ew).float().sum()
    y.backward()
    np.testing.assert_array_equal(inside.numpy(), ew.grad.numpy())
