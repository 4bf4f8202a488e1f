"""Every public ember function and Tensor method has torch's Python signature (parameter
names, kinds, defaults) wherever torch's is introspectable; KEPT lists the differences kept,
with the reason."""
import importlib
import inspect

import pytest

import ember

torch = pytest.importorskip("torch")

NAMESPACES = ["", "nn.functional", "nn.init", "nn.utils", "autograd", "random", "amp",
              "utils.data"]
_OVERLOADED = ("an overloaded op: the generated binding dispatches on *args, **kwargs "
               "(torch's is a Python wrapper)")
_SERIALIZATION = "serialization's remaining pickle options (issue of the serialization work)"
KEPT = {
    "atleast_1d": _OVERLOADED, "atleast_2d": _OVERLOADED, "atleast_3d": _OVERLOADED,
    "split": _OVERLOADED, "Tensor.split": _OVERLOADED,
    "einsum": "torch's takes *args and parses them; ember names equation and operands",
    "unique": "torch's is a boolean-dispatch wrapper (*args, **kwargs); ember spells it out",
    "unique_consecutive": "the same",
    "nn.functional.max_pool2d": "the same (return_indices)",
    **{f"nn.functional.{name}": "the same (return_indices)" for name in (
        "max_pool1d", "max_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
        "adaptive_max_pool3d", "fractional_max_pool2d", "fractional_max_pool3d")},
    "save": _SERIALIZATION,
    "Tensor.index": "torch's Tensor.index is an internal helper; ember's is aten.index",
    "nn.functional.handle_torch_function": "ember's takes the args tuple and kwargs dict",
    "autograd.backward": "grad_variables, torch's deprecated alias of grad_tensors, is not "
                         "accepted",
    "utils.data.random_split": "torch's default is its default generator object, ember's "
                               "None stands for it",
}


def _spec(fn):
    """[(name, kind, default)] of fn's signature, or None when it has none."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    return [(p.name, p.kind.name, None if p.default is p.empty else repr(p.default))
            for p in sig.parameters.values()]


def _pairs():
    """(qualified name, ember callable, torch callable) of the public functions both have."""
    spaces = [(ns, importlib.import_module(f"ember.{ns}" if ns else "ember"),
               importlib.import_module(f"torch.{ns}" if ns else "torch")) for ns in NAMESPACES]
    spaces.append(("Tensor", ember.Tensor, torch.Tensor))
    for ns, e_ns, t_ns in spaces:
        for name in sorted(dir(e_ns)):
            if name.startswith("_") or not hasattr(t_ns, name):
                continue
            e, t = getattr(e_ns, name), getattr(t_ns, name)
            if callable(e) and callable(t) and not inspect.isclass(t) and not inspect.ismodule(t):
                yield (f"{ns}.{name}" if ns else name), e, t


PAIRS = [p for p in _pairs() if _spec(p[2]) is not None]


def test_the_check_covers_the_api():
    assert len(PAIRS) > 100 and not set(KEPT) - {name for name, _, _ in PAIRS}


@pytest.mark.parametrize("name,e,t", PAIRS, ids=[p[0] for p in PAIRS])
def test_signature_matches_torch(name, e, t):
    if name in KEPT:
        assert _spec(e) != _spec(t), f"{name} now matches torch: remove it from KEPT"
        return
    assert _spec(e) == _spec(t), (f"{name}: torch {inspect.signature(t)}, ember "
                                  f"{_spec(e) and inspect.signature(e)}")
