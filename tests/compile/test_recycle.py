"""Buffers the inductor backend's generated code recycles across calls (runtime._reuse,
config.recycle_bytes): a buffer nobody holds is handed out again; one a caller still holds
(the output tensor, a view of it, its NumPy array, a value saved for backward) never is."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import ember
from ember._inductor import config
from ember._inductor.runtime import _reuse

torch = pytest.importorskip("torch")


@pytest.fixture
def recycle_all(monkeypatch):
    """Every planned buffer recycled (small test tensors), decided when the graph lowers."""
    monkeypatch.setattr(config, "recycle_bytes", 0)


def _fma(a, b, c):
    return a * b + c


def _inputs(n=64, seed=0):
    rng = np.random.default_rng(seed)
    return [ember.tensor(rng.standard_normal(n).astype(np.float32)) for _ in range(3)]


def _address(t):
    return t.numpy().__array_interface__["data"][0]


def _sources(fn, *args, dynamic=None):
    """The generated modules' text of `fn` compiled by the inductor backend on `args`."""
    from ember._decomp import core_aten_decompositions
    from ember._functorch.aot_autograd import aot_graph
    from ember._inductor import lower
    runs = []

    def backend(gm, example_inputs):
        def compile_graph(gm, _):
            runs.append(lower(gm))
            return runs[-1]
        return aot_graph(gm, example_inputs, fw_compiler=compile_graph,
                         decompositions=core_aten_decompositions())
    ember.compile(fn, backend=backend, dynamic=dynamic)(*args)
    return [r.source for r in runs]


def test_generated_code_recycles_only_large_buffers():
    small = _sources(_fma, *_inputs(64))
    assert "_reuse(" not in small[0] and "np.empty((64,), np.float32)" in small[0]
    big = _sources(_fma, *[ember.ones(config.recycle_bytes // 4) for _ in range(3)])
    assert f"_reuse(_r0, ({config.recycle_bytes // 4},), np.float32)" in big[0], big[0]
    symbolic = _sources(_fma, *_inputs(64), dynamic=True)   # (decided when it runs)
    assert "_reuse(_r0, (s0,), np.float32)" in symbolic[0], symbolic[0]


def test_a_dropped_output_is_reused_and_a_held_one_is_not(recycle_all):
    f = ember.compile(_fma)
    a, b, c = _inputs()
    first = f(a, b, c)
    kept = first.numpy().copy()
    second = f(*_inputs(seed=1))            # `first` still held: a new buffer
    assert _address(second) != _address(first)
    np.testing.assert_array_equal(first.numpy(), kept)
    address = _address(second)              # (the site keeps the newest buffer)
    del first, second
    gc.collect()
    third_inputs = _inputs(seed=2)
    third = f(*third_inputs)
    assert _address(third) == address       # nobody held it: the same memory again
    want = torch.from_numpy(third_inputs[0].numpy()) * torch.from_numpy(
        third_inputs[1].numpy()) + torch.from_numpy(third_inputs[2].numpy())
    np.testing.assert_array_equal(third.numpy(), want.numpy())


@pytest.mark.parametrize("hold", ["view", "numpy", "storage", "torch"])
def test_anything_referring_to_an_output_keeps_it(recycle_all, hold):
    f = ember.compile(_fma)
    a, b, c = _inputs()
    out = f(a, b, c)
    kept = out.numpy().copy()
    holder = {"view": lambda t: t[2:], "numpy": lambda t: t.numpy()[::2],
              "storage": lambda t: t.untyped_storage(),
              "torch": lambda t: torch.from_numpy(t.numpy())}[hold](out)
    address = _address(out)
    del out
    gc.collect()
    again = f(*_inputs(seed=1))
    assert _address(again) != address
    if hold == "view":
        np.testing.assert_array_equal(holder.numpy(), kept[2:])
    elif hold == "numpy":
        np.testing.assert_array_equal(holder, kept[::2])
    elif hold == "torch":
        np.testing.assert_array_equal(holder.numpy(), kept)


def test_values_saved_for_backward_are_not_recycled(recycle_all):
    """exp saves its result for the backward: a second forward before the first backward
    must not write over it."""
    f = ember.compile(lambda x: (x * 2).exp())
    x1 = ember.tensor([0.1, 0.2, 0.3], requires_grad=True)
    x2 = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y1 = f(x1)
    y2 = f(x2)
    y1.sum().backward()
    y2.sum().backward()
    for x in (x1, x2):
        tx = torch.tensor(x.detach().numpy(), requires_grad=True)
        (tx * 2).exp().sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)


def test_a_new_dynamic_size_gets_a_buffer_of_its_size(recycle_all):
    f = ember.compile(_fma, dynamic=True)
    for n in (5, 9, 9, 3):
        a, b, c = _inputs(n)
        got = f(a, b, c)
        assert got.shape == (n,)
        np.testing.assert_array_equal(got.numpy(), a.numpy() * b.numpy() + c.numpy())


def test_reuse_hands_out_a_slots_buffer_only_when_free(monkeypatch):
    monkeypatch.setattr(config, "recycle_bytes", 16)
    slot = [None]
    a = _reuse(slot, (8,), np.float32)
    assert slot[0] is a
    b = _reuse(slot, (8,), np.float32)                      # `a` is held here
    assert b is not a and slot[0] is b
    free = id(b)
    del b
    c = _reuse(slot, (8,), np.float32)
    assert id(c) == free
    d = _reuse(slot, (4,), np.float32)                      # `c` held: a new one
    assert d.shape == (4,) and slot[0] is d
    free = id(d)
    del d
    e = _reuse(slot, (4,), np.float64)                      # another dtype: a new one
    assert e.dtype == np.float64 and id(e) != free
    tiny = [None]
    _reuse(tiny, (2,), np.float32)                          # under the threshold: not kept
    assert tiny[0] is None
