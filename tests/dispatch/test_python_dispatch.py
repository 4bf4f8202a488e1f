"""The Python key: TorchDispatchMode, __torch_dispatch__ subclasses, __torch_function__."""
from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

import ember
from ember.core.tensor import from_array
from ember.overrides import TorchFunctionMode
from ember.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode


class LoggingMode(TorchDispatchMode):
    def __init__(self):
        self.log = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.log.append(str(func))
        return func(*args, **(kwargs or {}))


def test_dispatch_mode_sees_every_op_including_factories():
    with LoggingMode() as m:
        x = ember.ones(2)
        y = (x + 1).sum()
    assert m.log == ["aten.ones.default", "aten.add.Tensor", "aten.sum.default"]
    assert y.item() == 4.0
    assert _get_current_dispatch_mode() is None


def test_dispatch_mode_kwargs_split_like_torch():
    seen = []

    class Capture(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((str(func), len(args), sorted(kwargs)))
            return func(*args, **kwargs)

    a = from_array(np.ones(2, np.float32))
    with Capture():
        ember.add(a, a, alpha=2)
    assert seen == [("aten.add.Tensor", 2, ["alpha"])]


def test_nested_modes_run_innermost_first():
    order = []

    class Named(TorchDispatchMode):
        def __init__(self, name):
            self.name = name

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            order.append(self.name)
            return func(*args, **(kwargs or {}))

    a = from_array(np.ones(2, np.float32))
    with Named("outer"), Named("inner"):
        ember.neg(a)
    assert order == ["inner", "outer"]


class Wrapper(ember.Tensor):
    """A data-less wrapper subclass holding a real tensor, as in torch's docs."""

    @staticmethod
    def __new__(cls, elem):
        t = ember.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype,
                                                device=elem.device)
        t.elem = elem
        return t

    calls: ClassVar[list] = []

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(str(func))
        unwrap = lambda x: x.elem if isinstance(x, Wrapper) else x
        out = func(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in (kwargs or {}).items()})
        return Wrapper(out) if isinstance(out, ember.Tensor) else out


def test_torch_dispatch_subclass():
    Wrapper.calls.clear()
    w = Wrapper(from_array(np.arange(3, dtype=np.float32)))
    out = w * 2 + 1
    assert isinstance(out, Wrapper)
    assert out.elem.tolist() == [1.0, 3.0, 5.0]
    assert Wrapper.calls == ["aten.mul.Tensor", "aten.add.Tensor"]
    assert out.shape == (3,) and out.dtype == ember.float32


def test_mode_runs_before_subclass():
    Wrapper.calls.clear()
    w = Wrapper(from_array(np.arange(3, dtype=np.float32)))
    with LoggingMode() as m:
        w.neg()
    assert m.log == ["aten.neg.default"]
    assert Wrapper.calls == ["aten.neg.default"]


class Tagged(ember.Tensor):
    seen: ClassVar[list] = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append(func.__name__)
        return super().__torch_function__(func, types, args, kwargs)


def test_torch_function_subclass_wraps_results():
    Tagged.seen.clear()
    t = from_array(np.arange(3, dtype=np.float32)).as_subclass(Tagged)
    out = ember.add(t, 1)
    assert type(out) is Tagged
    r = t.sum()
    assert type(r) is Tagged
    assert Tagged.seen == ["add", "sum"]


def test_torch_function_mode():
    names = []

    class Mode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            names.append(func.__name__)
            return func(*args, **(kwargs or {}))

    a = from_array(np.ones(2, np.float32))
    with Mode():
        ember.neg(a)
        a + a
    assert names == ["neg", "__add__"]
    ember.neg(a)
    assert len(names) == 2


def test_dispatch_mode_can_replace_results():
    class Zeros(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            return out.zero_() if func is ember.ops.aten.exp.default else out

    a = from_array(np.ones(2, np.float32))
    with Zeros():
        assert ember.exp(a).tolist() == [0.0, 0.0]
    with pytest.raises(AssertionError):
        assert ember.exp(a).tolist() == [0.0, 0.0]


def test_modes_and_include_sets_are_thread_local():
    import threading
    seen_other_thread = []

    def other():
        seen_other_thread.append(_get_current_dispatch_mode())
        a = from_array(np.ones(2, np.float32))
        seen_other_thread.append((a + a).tolist())

    with LoggingMode() as m:
        t = threading.Thread(target=other)
        t.start()
        t.join()
        ember.neg(from_array(np.ones(1, np.float32)))
    assert seen_other_thread == [None, [2.0, 2.0]]
    assert m.log == ["aten.neg.default"]  # the other thread's add did not reach this mode
