"""ember/_assembly.py and ember/core/autograd_hooks.py: the Tensor class is put together
in one place, each attribute with one home, and core reaches autograd through one door."""
import pytest

import ember
from ember import _assembly
from ember.core import autograd_hooks


def test_every_attribute_has_its_home():
    assert ember.Tensor.backward.__module__ == "ember.autograd.tensor_api"
    assert ember.Tensor.add.__qualname__ == "Tensor.add"
    assert ember.Tensor.__div__ is ember.Tensor.__truediv__
    assert ember.Tensor.__truediv__.__qualname__ == "Tensor.__truediv__"   # not the alias's
    assert ember.Tensor.__torch_dispatch__.__func__.__module__ == "ember.dispatch.python_dispatch"


def test_a_name_given_twice_is_an_error():
    def f(self):
        return 1

    class C:
        def own(self):
            return 0

    with pytest.raises(RuntimeError, match="Tensor.f is defined by both a and b"):
        _assembly.attach(C, {"a": {"f": f}, "b": {"f": f}})
    with pytest.raises(RuntimeError, match="Tensor.own from a would replace the one in"):
        _assembly.attach(C, {"a": {"own": f}})

    class D:
        pass

    _assembly.attach(D, {__name__: {"f": f}})
    assert D().f() == 1 and f.__qualname__ == "D.f"


def test_core_reaches_autograd_through_registered_hooks():
    assert autograd_hooks.mark_inference_view is ember.autograd.graph.mark_inference_view
    with pytest.raises(TypeError, match="unknown autograd hook 'grad_fn'"):
        autograd_hooks.register(grad_fn=None)
    x = ember.ones(3, requires_grad=True)
    with ember.inference_mode():
        v = x[:2]                 # a view of a normal tensor made in inference mode
    assert not v.is_inference() and v.requires_grad
    with pytest.raises(RuntimeError, match="inference mode"):
        v.mul_(2)
