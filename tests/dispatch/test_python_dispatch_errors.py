"""The error paths of ember/dispatch/python_dispatch.py: a mode or subclass whose
__torch_dispatch__ returns NotImplemented, and modes exited out of order."""
import pytest

import ember
from ember.dispatch.python_dispatch import TorchDispatchMode, _get_current_dispatch_mode_stack

torch = pytest.importorskip("torch")
from torch.utils._python_dispatch import TorchDispatchMode as TorchMode


def _declining(base):
    class Declining(base):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return NotImplemented
    return Declining


def test_mode_returning_not_implemented_raises_type_error_like_torch():
    with pytest.raises(TypeError) as t_info, _declining(TorchMode)():
        torch.ones(2)
    assert "returned NotImplemented" in str(t_info.value)
    with pytest.raises(TypeError, match=r"Declining.__torch_dispatch__ returned "
                                        r"NotImplemented for aten.ones.default"), \
            _declining(TorchDispatchMode)():
        ember.ones(2)
    assert _get_current_dispatch_mode_stack() == []
    assert ember.ones(2).tolist() == [1.0, 1.0]  # the Python key is off again


def test_subclass_returning_not_implemented_raises_type_error():
    class Declining(ember.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented
    x = ember.ones(2).as_subclass(Declining)
    with pytest.raises(TypeError, match=r"Multiple dispatch failed for 'aten.neg.default'; all "
                                        r"__torch_dispatch__ handlers returned NotImplemented: "
                                        r"\['Declining'\]"):
        ember.neg(x)


def test_modes_exited_out_of_order_raise():
    """torch pops the innermost mode whichever exits; ember refuses, naming the error, and
    leaves the outer mode on the stack (the inner one is gone)."""
    class Passing(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))
    outer, inner = Passing(), Passing()
    outer.__enter__()
    inner.__enter__()
    try:
        with pytest.raises(RuntimeError, match="TorchDispatchMode exited out of order"):
            outer.__exit__(None, None, None)
        assert _get_current_dispatch_mode_stack() == [outer]
    finally:
        while _get_current_dispatch_mode_stack():
            _get_current_dispatch_mode_stack()[-1].__exit__(None, None, None)
    assert ember.ones(2).tolist() == [1.0, 1.0]
