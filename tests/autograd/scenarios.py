"""Running one autograd scenario with ember and with torch, and comparing the outcomes:
`same(*both(scenario))` for results, `same_error(scenario)` for errors.

    >>> same(*both(lambda lib: leaf(lib, [1.0]) * 2))
"""
from __future__ import annotations

import warnings

import pytest
from helpers import builtin_type, check

import ember

torch = pytest.importorskip("torch")

TOLS = {"float32": (1e-6, 1e-6), "float64": (1e-12, 1e-12)}


def both(scenario):
    """(scenario(ember), scenario(torch)), warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return scenario(ember), scenario(torch)


def same(e, t, tols=TOLS):
    """Ember's result `e` matches torch's `t`: tensors (values, shape, dtype, strides,
    requires_grad), None, numbers, strings (with 'ember.' read as 'torch.'), and tuples,
    lists and dicts of them."""
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), (e, t)
        assert e.requires_grad == t.requires_grad, (e, t)
        with ember.no_grad():
            check(e.detach(), t.detach(), tols)
    elif isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)) and len(e) == len(t), (e, t)
        for a, b in zip(e, t):
            same(a, b, tols)
    elif isinstance(t, dict):
        assert e.keys() == t.keys(), (e, t)
        for k in t:
            same(e[k], t[k], tols)
    elif isinstance(t, str):
        assert e.replace("ember.", "torch.") == t
    else:
        assert e == t, (e, t)


def same_error(scenario):
    """scenario(ember) raises like scenario(torch): same builtin exception type, same
    message (with 'ember.' read as 'torch.')."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as ti:
            scenario(torch)
        with pytest.raises(Exception) as ei:
            scenario(ember)
    assert builtin_type(type(ei.value)) is builtin_type(type(ti.value)), (ei.value, ti.value)
    assert str(ei.value).replace("ember.", "torch.") == str(ti.value)


def leaf(lib, values, dtype="float64", requires_grad=True):
    """A leaf tensor of `values`."""
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=requires_grad)


def node_name(fn):
    """The class name of a Node (torch's AccumulateGrad.name() has a C++ namespace)."""
    return None if fn is None else type(fn).__name__
