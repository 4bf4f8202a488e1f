"""Regressions from the issue-12 fuzzing session: ember disagreed with torch on these calls
(overload choice for 0-d tensors, topk/roll of 0-d tensors, padding, take_along_dim,
division dunders, huge sizes, ...). Each test compares values, dtypes, shapes, strides and
errors with torch."""
import pytest
from helpers import assert_same, raises_like

import ember

torch = pytest.importorskip("torch")


def _both(fn):
    """fn(ember) and fn(torch)."""
    return fn(ember), fn(torch)


def _same(fn):
    """fn(ember) matches fn(torch): a tensor or a (nested) tuple/list of tensors."""
    e, t = _both(fn)
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            assert_same(a, b)
    else:
        assert_same(e, t)


# --- a 0-d tensor takes the Tensor overload (torch's parser order), not the int one ---------
@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("other", [lambda m: m.tensor(3), lambda m: m.tensor(3.5),
                                   lambda m: m.tensor([4, 2]), lambda m: m.zeros(0, 1, 2, dtype=m.int64)])
def test_max_min_binary_overload(name, other):
    x = lambda m: m.tensor([[1, 5], [7, 2]])
    _same(lambda m: getattr(m, name)(x(m), other(m)))
    _same(lambda m: getattr(x(m), name)(other(m)))


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_dim_and_out(name):
    x = lambda m: m.tensor([[1, 5], [7, 2]])
    _same(lambda m: getattr(m, name)(x(m), 1))
    _same(lambda m: getattr(m, name)(x(m), dim=0, keepdim=True))

    def out(m):
        o = m.empty(5, dtype=m.int64)
        r = getattr(m, name)(x(m), m.tensor(3), out=o)
        assert r is o
        return o
    _same(out)


@pytest.mark.parametrize("sections", [lambda m: m.tensor(3), lambda m: m.tensor(2),
                                      lambda m: m.tensor([1, 4]), lambda m: m.tensor([5, 1]),
                                      lambda m: m.tensor([], dtype=m.int64), lambda m: 3,
                                      lambda m: [1, 4]])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_tensor_split_tensor_sections(sections, dim):
    x = lambda m: m.arange(24).reshape(4, 6)
    _same(lambda m: m.tensor_split(x(m), sections(m), dim))
    _same(lambda m: x(m).t().tensor_split(sections(m), dim=dim))


@pytest.mark.parametrize("bad", [lambda m: m.tensor(2.0), lambda m: m.tensor([[1]]),
                                 lambda m: m.tensor(0)])
def test_tensor_split_tensor_errors(bad):
    raises_like(lambda: ember.tensor_split(ember.arange(6), bad(ember)),
                lambda: torch.tensor_split(torch.arange(6), bad(torch)))
