"""The dispatch keys in torch's order: what modes, wrapper subclasses and __torch_function__
objects see, compared with torch on the same programs."""
from __future__ import annotations

import importlib
from typing import ClassVar

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

LIBS = {"ember": ember, "torch": torch}


def _dispatch_mode_class(lib):
    base = importlib.import_module(f"{lib.__name__}.utils._python_dispatch").TorchDispatchMode

    class Log(base):
        def __init__(self):
            super().__init__()
            self.seen = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.seen.append(func.__name__)
            return func(*args, **(kwargs or {}))
    return Log


def _seen(lib, program):
    """The aten overloads a TorchDispatchMode sees while `program(lib, *inputs)` runs,
    with the same inputs on both libraries."""
    rng = np.random.default_rng(0)
    inputs = [lib.tensor(rng.standard_normal(shape).astype(np.float32),
                         requires_grad=grad) for shape, grad in program.inputs]
    with _dispatch_mode_class(lib)() as mode:
        out = program(lib, *inputs)
    return mode.seen, out


class Program:
    def __init__(self, fn, *inputs):
        self.fn, self.inputs = fn, inputs

    def __call__(self, lib, *args):
        return self.fn(lib, *args)

    def __repr__(self):
        return self.fn.__name__


def linear_2d(lib, x, w, b):
    return lib.nn.functional.linear(x, w, b)


def linear_3d(lib, x, w, b):
    return lib.nn.functional.linear(x, w, b)


def linear_no_bias(lib, x, w):
    return lib.nn.functional.linear(x, w)


def autocast_mm(lib, x, w):
    with lib.autocast("cpu", dtype=lib.bfloat16):
        return lib.mm(x, w.t())


def autocast_linear(lib, x, w, b):
    with lib.autocast("cpu", dtype=lib.bfloat16):
        return lib.nn.functional.linear(x, w, b)


def flatten_then_tanh(lib, x):
    return lib.tanh(x.flatten(0, 1))


def to_dtype(lib, x):
    return x.to(lib.float64) * 2


PROGRAMS = [
    Program(linear_2d, ((3, 4), False), ((5, 4), True), ((5,), True)),
    Program(linear_3d, ((2, 3, 4), False), ((5, 4), True), ((5,), True)),
    Program(linear_no_bias, ((3, 4), False), ((5, 4), False)),
    Program(autocast_mm, ((3, 4), False), ((5, 4), True)),
    Program(autocast_linear, ((3, 4), False), ((5, 4), True), ((5,), True)),
    Program(flatten_then_tanh, ((2, 3, 4), False)),
    Program(to_dtype, ((3,), False)),
]


@pytest.mark.parametrize("program", PROGRAMS, ids=repr)
def test_mode_sees_the_ops_torch_does(program):
    """Composite ops decompose above the Python key, autocast casts arrive as _to_copy."""
    seen_ember, out_ember = _seen(ember, program)
    seen_torch, out_torch = _seen(torch, program)
    assert seen_ember == seen_torch
    assert str(out_ember.dtype).split(".")[1] == str(out_torch.dtype).split(".")[1]
    assert (out_ember.grad_fn is None) == (out_torch.grad_fn is None)
    if out_torch.grad_fn is not None:
        assert type(out_ember.grad_fn).__name__ == type(out_torch.grad_fn).__name__


def test_mode_sees_backward_ops():
    """The mode sits below Autograd, so backward's ops reach it (what make_fx records)."""
    program = Program(lambda lib, x, w: lib.tanh(x @ w).sum(), ((3, 4), False), ((4, 2), True))
    for lib in LIBS.values():
        rng = np.random.default_rng(0)
        x = lib.tensor(rng.standard_normal((3, 4)).astype(np.float32))
        w = lib.tensor(rng.standard_normal((4, 2)).astype(np.float32), requires_grad=True)
        loss = program(lib, x, w)
        with _dispatch_mode_class(lib)() as mode:
            loss.backward()
        assert {"tanh_backward.default", "mm.default", "t.default"} <= set(mode.seen), lib


def _wrapper_class(lib):
    class Wrapper(lib.Tensor):
        log: ClassVar[list] = []

        @staticmethod
        def __new__(cls, elem):
            return lib.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype,
                                                     requires_grad=elem.requires_grad)

        def __init__(self, elem):
            self.elem = elem

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            cls.log.append(func.__name__)

            def unwrap(x):
                return x.elem if isinstance(x, cls) else x
            out = func(*map(unwrap, args), **{k: unwrap(v) for k, v in (kwargs or {}).items()})
            if isinstance(out, (tuple, list)):
                return type(out)(cls(o) if isinstance(o, lib.Tensor) else o for o in out)
            return cls(out) if isinstance(out, lib.Tensor) else out
    return Wrapper


def test_wrapper_subclass_gets_grad_fn_and_gradients():
    results = {}
    for name, lib in LIBS.items():
        W = _wrapper_class(lib)
        x = W(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True))
        y = (x * x).sin()
        assert type(y) is W and y.requires_grad
        assert type(y.grad_fn).__name__ == "SinBackward0"
        y.sum().backward()
        assert type(x.grad) is W
        results[name] = (x.grad.elem.tolist(), [op for op in W.log if "backward" not in op])
    np.testing.assert_allclose(results["ember"][0], results["torch"][0], rtol=1e-12)
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(results["ember"][0], np.cos(x * x) * 2 * x, rtol=1e-12)
    # the forward ops reach the subclass as torch's do (autograd ran above it)
    assert results["ember"][1][:2] == results["torch"][1][:2] == ["mul.Tensor", "sin.default"]


def test_handler_calls_continue_below_the_python_key():
    """Inside a handler, func(*args) does not record autograd a second time."""
    Log = _dispatch_mode_class(ember)
    w = ember.ones(3, requires_grad=True)
    with Log() as mode:
        y = w * 2
    assert mode.seen == ["mul.Tensor"]
    assert type(y.grad_fn).__name__ == "MulBackward0" and y.grad_fn.next_functions[0][0] is not None
    y.sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]


class TorchFunctionObject:
    """A plain object (not a Tensor) that overrides library functions, like FX's Proxy."""

    calls: ClassVar[list] = []

    def __init__(self, value):
        self.value = value

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append((func.__name__, types))
        return "intercepted"


@pytest.mark.parametrize("call", [
    lambda lib, p: lib.add(p, 2),
    lambda lib, p: lib.add(lib.ones(2), p),
    lambda lib, p: lib.relu(p),
    lambda lib, p: lib.nn.functional.relu(p),
    lambda lib, p: lib.cat([p, p]),
    lambda lib, p: lib.sum(p, dim=0),
    lambda lib, p: lib.ones(2).mul(p),
], ids=["add", "add_rhs", "relu", "F.relu", "cat", "sum_dim", "method_arg"])
def test_non_tensor_torch_function_objects_are_intercepted(call):
    for lib in LIBS.values():
        TorchFunctionObject.calls.clear()
        assert call(lib, TorchFunctionObject(1)) == "intercepted"
        assert TorchFunctionObject.calls[0][1] == (TorchFunctionObject,)


def test_objects_without_torch_function_still_raise_type_error():
    class Plain:
        pass
    for lib in LIBS.values():
        with pytest.raises(TypeError):
            lib.add(Plain(), 2)
        with pytest.raises(TypeError):
            lib.cat([Plain()])


def test_function_mode_gets_the_function_when_a_parameter_shadows_its_name():
    """F.pad's `pad` and threshold's `threshold` parameters shadow the bindings' names."""
    from ember.overrides import TorchFunctionMode

    class Seen(TorchFunctionMode):
        def __init__(self):
            self.funcs = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.funcs.append(func)
            return func(*args, **(kwargs or {}))
    x, y = ember.ones(1, 2, 3), ember.ones(2)
    with Seen() as mode:
        out = ember.nn.functional.pad(x, [2, 2], mode="reflect")
        ember.threshold(y, 0.5, 0.0)
    assert out.shape == (1, 2, 7)
    assert all(callable(f) for f in mode.funcs)
    assert [f.__name__ for f in mode.funcs] == ["pad", "threshold"]
