"""The overloaded bindings whose first overload takes an int list as varargs (`view(2, 3)`
before `view(dtype)`) call it directly for a tensor and plain ints: the results, errors and
the other overloads must be those of the resolver, and torch's."""
from __future__ import annotations

import numpy as np
import pytest

import ember
from codegen.render import _int_list_first

torch = pytest.importorskip("torch")


def _case(checks, varargs="size", **extra):
    return {"varargs": varargs, "out": None, "requires_grad": False, "tensor_only": [],
            "checks": checks, **extra}


def test_only_an_int_list_first_overload_gets_the_direct_call():
    view = _case([("self", "Tensor"), ("size", "SymInt[]")])
    dtype = _case([("self", "Tensor"), ("dtype", "ScalarType")], varargs=None)
    assert _int_list_first([view, dtype])
    assert not _int_list_first([dtype, view])          # resolution order is kept
    assert not _int_list_first([view])                 # single overloads have no resolver
    assert not _int_list_first([_case([("self", "Tensor"), ("size", "SymInt[]"),
                                       ("x", "int")]), dtype])


def _pair():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


@pytest.mark.parametrize("args", [(24,), (-1,), (2, 12), (2, -1, 3), ((4, 6),), ([3, 8],),
                                  ((),), (ember.Size([6, 4]),)])
def test_view_with_ints_matches_torch(args):
    e, t = _pair()
    if args == ((),):
        e, t = e[:1, :1], t[:1, :1]
    targs = tuple(torch.Size(a) if isinstance(a, ember.Size) else a for a in args)
    ev, tv = e.view(*args), t.view(*targs)
    assert tuple(ev.shape) == tuple(tv.shape) and ev.stride() == tv.stride()
    assert ev._base is (e if e._base is None else e._base)   # still a view of its input
    np.testing.assert_array_equal(ev.numpy(), tv.numpy())


@pytest.mark.parametrize("args", [(np.int64(24),), (2, np.int64(12)), (ember.tensor(24),)])
def test_view_with_other_integers_takes_the_resolver(args):
    e, t = _pair()
    targs = tuple(torch.tensor(24) if isinstance(a, ember.Tensor) else a for a in args)
    assert tuple(e.view(*args).shape) == tuple(t.view(*targs).shape)


def test_view_dtype_and_keywords_still_resolve():
    e, t = _pair()
    assert e.view(ember.int32).dtype is ember.int32 and t.view(torch.int32).dtype == torch.int32
    assert tuple(e.view(size=(6, 4)).shape) == (6, 4)


@pytest.mark.parametrize("args", [(5,), (True,), (2.0, 12), ("a",)])
def test_view_errors_match_torch(args):
    e, t = _pair()
    with pytest.raises(Exception) as te:
        t.view(*args)
    with pytest.raises(te.type):
        e.view(*args)


def test_view_keeps_the_autograd_history():
    w = ember.ones(2, 3, requires_grad=True)
    v = w.view(3, 2)
    assert v.grad_fn.name() == "ViewBackward0"
    v.sum().backward()
    assert w.grad.shape == (2, 3)


def test_count_nonzero_dims_as_torch():
    e, t = _pair()
    for args in [(0,), (0, 1), ((1,),)]:
        assert e.count_nonzero(*args).tolist() == t.count_nonzero(*args).tolist()
