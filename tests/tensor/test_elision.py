"""Temporary elision (ember/core/elision.py): `a * b + c` on large tensors may write the
sum into the product's array; results and every operand held anywhere must stay as
without it, that is as in torch (which never elides). Each way of holding a reference
(NumPy object arrays, containers, C-level callers) runs once with ember and once with
torch on the same data; then the results, the tensors still held and the inputs must
match. ember.core.refcounts, which proves what the interpreter's stack holds, is
tested at the end."""
import contextlib
import dis
import functools
import inspect
import itertools
import operator
import os
import sys
import types
import typing

import numpy as np
import pytest
from helpers import check, np_data, pair

import ember
from ember.core import elision, refcounts

torch = pytest.importorskip("torch")

N = elision.MIN_BYTES // 4 + 7          # float32 elements: just above the threshold
# the operators as BINARY_OPs (a lambda's frame is the caller the elision check sees)
OPS = {"+": lambda u, v: u + v, "-": lambda u, v: u - v, "*": lambda u, v: u * v,
       "/": lambda u, v: u / v, "@": lambda u, v: u @ v}
needs_elision = pytest.mark.skipif(not elision.TEMP_REFS, reason="no elision on this Python")
FUNCS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


@pytest.fixture
def arrays():
    rng = np.random.default_rng(0)
    return [rng.standard_normal(N).astype(np.float32) for _ in range(3)]


def _tensors(arrays):
    return [ember.from_numpy(a.copy()) for a in arrays]


def _objects(*items):
    """A 1-d NumPy object array of `items` (0-d for one item)."""
    out = np.empty(len(items) if len(items) > 1 else (), object)
    for i, x in enumerate(items):
        out[i if len(items) > 1 else ()] = x
    return out


def _same(e, t):
    """Tensors (values, dtype, shape, strides), numbers and nested lists, tuples and
    object arrays of them match."""
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), (e, t)
        check(e, t)
    elif isinstance(t, np.ndarray):
        assert isinstance(e, np.ndarray) and e.shape == t.shape, (e, t)
        for a, b in zip(e.flat, t.flat):
            _same(a, b)
    elif isinstance(t, (list, tuple)):
        assert type(e) is type(t) and len(e) == len(t), (e, t)
        for a, b in zip(e, t):
            _same(a, b)
    else:
        assert e == t, (e, t)


def _like_torch(scenario, seeds=(0, 1, 2)):
    """scenario(x, y, z) with three large float32 tensors of ember and of torch: what it
    returns (results and the tensors it still holds) and the inputs must match."""
    (xe, xt), (ye, yt), (ze, zt) = (pair(np_data((N,), "float32", s)) for s in seeds)
    _same(scenario(xe, ye, ze), scenario(xt, yt, zt))
    _same([xe, ye, ze], [xt, yt, zt])


def _radd_by(fn):
    """An object whose `__radd__` is C code: `2.0 + w` calls fn(2.0) with no Python frame
    between the BINARY_OP and what fn calls."""
    return type("W", (), {"__radd__": staticmethod(fn)})()


# --- NumPy object arrays: their loops call the operator with references the array owns --
@pytest.mark.parametrize("op", list(FUNCS))
def test_object_array_with_a_number(op):
    def scenario(x, y, z):
        arr = _objects(x * y, z)        # arr[0]: a temporary only the array holds
        return OPS[op](arr, 2.0), OPS[op](2.0, arr), arr
    _like_torch(scenario)


@pytest.mark.parametrize("op", list(OPS))
def test_object_array_with_an_object_array(op):
    def scenario(x, y, z):
        arr, brr = _objects(x * y, z), _objects(y * z, x * 1.0)
        return OPS[op](arr, brr), OPS[op](brr, arr), arr, brr
    _like_torch(scenario)


@pytest.mark.parametrize("op", list(FUNCS))
def test_object_array_with_a_held_temporary(op):
    """The temporary is the array loop's other operand (c + a * b writes into the
    product), held by a 0-d object array and used for each element."""
    def scenario(x, y, z):
        arr, tmp = _objects(x * 1.0, z), _objects(x * y)
        return OPS[op](arr, tmp), OPS[op](tmp, arr), arr, tmp
    _like_torch(scenario)


def test_example_of_the_issue():
    arr = _objects(ember.ones(100_000))
    r = arr + 1.0
    assert arr[()].tolist() == [1.0] * 100_000 and r[()].tolist() == [2.0] * 100_000
    assert r[()] is not arr[()]


# --- containers ---------------------------------------------------------------------------
def test_list_dict_and_tuple():
    def scenario(x, y, z):
        lst, dct, tup = [x * y], {"p": y * z}, (z * x,)
        return [lst[0] + z, dct["p"] * 2.0, tup[0] - x, tup[0] / 3.0, z + lst[0],
                lst, dct["p"], tup]
    _like_torch(scenario)


# --- C-level callers ----------------------------------------------------------------------
def test_functools_reduce():
    def scenario(x, y, z):
        held = [x * y, z, x]
        return functools.reduce(operator.add, held), held
    _like_torch(scenario)


def test_map():
    def scenario(x, y, z):
        held = [x * y, z * 1.0]
        return list(map(operator.mul, held, [2.0, 3.0])), list(map(operator.sub, held, held)), held
    _like_torch(scenario)


@pytest.mark.parametrize("op", list(FUNCS))
def test_operator_functions(op):
    def scenario(x, y, z):
        p = x * y
        return FUNCS[op](p, z), FUNCS[op](z, p), FUNCS[op](p, 2.0), FUNCS[op](x * y, 2.0), p
    _like_torch(scenario)


def test_sum():
    def scenario(x, y, z):
        held = [x * y, z * 1.0, x]
        return sum(held), sum(held, z * 2.0), held
    _like_torch(scenario)


def test_itertools_accumulate():
    def scenario(x, y, z):
        held = [x * y, z * 1.0, x]
        return list(itertools.accumulate(held)), list(itertools.accumulate(held, operator.mul)), held
    _like_torch(scenario)


@pytest.mark.parametrize("op", list(FUNCS))
def test_partial_called_by_a_binary_op(op):
    """`2.0 + w` calls the partial, which calls the operator on the tensor it owns: the
    frame below the dunder is at a BINARY_OP and the count is 3, as for a temporary (so
    NumPy's own elision, which checks the C stack, overwrites an array held this way)."""
    def scenario(x, y, z):
        w = _radd_by(functools.partial(FUNCS[op], x * y))
        r = 2.0 + w                     # (no local may hold the partial's tensor)
        return r, 2.0 + w, w.__radd__.args[0], r is w.__radd__.args[0]
    _like_torch(scenario)


def test_reduce_and_sum_called_by_a_binary_op():
    def scenario(x, y, z):
        held = [x * y, z * 1.0]
        reduced = 1.0 + _radd_by(functools.partial(functools.reduce, operator.add, held))
        summed = 1.0 + _radd_by(functools.partial(sum, held))
        return reduced, summed, held
    _like_torch(scenario)


# --- real temporaries -----------------------------------------------------------------------
def test_expression_values(arrays):
    an, bn, cn = arrays
    a, b, c = _tensors(arrays)
    np.testing.assert_array_equal((a * b + c).numpy(), an * bn + cn)
    np.testing.assert_array_equal((c + a * b).numpy(), cn + an * bn)
    np.testing.assert_array_equal(((a * b - c) / 2.0 * 3).numpy(), (an * bn - cn) / 2.0 * 3)
    for t, n in zip((a, b, c), arrays):
        np.testing.assert_array_equal(t.numpy(), n)


def test_named_and_viewed_operands_are_never_written(arrays):
    an, bn, _ = arrays
    a, b, c = _tensors(arrays)
    p = a * b
    q = p + c
    view = (a * b)[:5]
    r = view._base + c            # the base has a live view
    y = p.__add__(c)              # an explicit call on a named tensor
    np.testing.assert_array_equal(p.numpy(), an * bn)
    np.testing.assert_array_equal(view.numpy(), (an * bn)[:5])
    assert y is not p and q is not p and r is not view._base


@pytest.fixture
def written(monkeypatch):
    """The ids of the tensors the in-place entries of the eliding dunders wrote into
    (a reference would stop a second elision into the same temporary)."""
    import ember._generated.tensor_methods as methods
    out = []
    for name in ("add_", "sub_", "mul_", "div_"):
        entry = getattr(methods, f"_entry_{name}_Tensor")
        monkeypatch.setattr(methods, f"_entry_{name}_Tensor",
                            lambda t, *rest, entry=entry: out.append(id(t)) or entry(t, *rest))
    return out


@needs_elision
def test_elision_happens_only_for_temporaries(arrays, written):
    a, b, c = _tensors(arrays)
    r = a * b + c
    assert written == [id(r)]       # the sum went into the product's tensor
    written.clear()
    p = a * b
    p + c
    assert written == []


def _identity(*args, **kwargs):
    return args[-1] if args else kwargs["k"]


def _in_a_generator(a, b, c):
    yield a * b + c


async def _in_a_coroutine(a, b, c):
    return a * b - c


@needs_elision
def test_temporaries_elide_wherever_the_expression_is(arrays, written):
    """The stack depth of the BINARY_OP comes from the bytecode's control flow: calls,
    handlers, loops, comprehensions, generators, coroutines, class bodies, exec."""
    a, b, c = _tensors(arrays)
    got = [a * b + c, c + a * b, a * b - c, a * b / 2.0, c * (a + b)]
    try:
        got.append(_identity(1, 2, a * b + c, k=None))
        raise ValueError
    except ValueError as e:
        got.append(_identity(e, a * b + c))
    finally:
        got.append(_identity(*[1], a * b + c, k=a))
    with contextlib.nullcontext() as n:
        for i in range(1):
            got.append(_identity(n, i, a * b + c))
    got.append(_identity(k=a * b + c))
    got.append([_identity(j, a * b + c) for j in range(1)][0])   # noqa: RUF015 (a frame)
    got.append((lambda: a * b + c)())   # noqa: PLC3002 (a frame)
    got.extend(_in_a_generator(a, b, c))
    try:
        _in_a_coroutine(a, b, c).send(None)
    except StopIteration as stop:
        got.append(stop.value)
    ns = {"a": a, "b": b, "c": c}
    exec("r = a * b + c", ns)   # noqa: S102 (module-level code)
    got.append(ns["r"])

    class Body:
        r = a * b + c
    got.append(Body.r)
    assert len(got) == 16 and {id(g) for g in got} == set(written)
    an, bn, cn = arrays
    for t, n in zip((a, b, c), arrays):
        np.testing.assert_array_equal(t.numpy(), n)
    np.testing.assert_array_equal(got[-1].numpy(), an * bn + cn)


def test_no_elision_when_the_result_differs_or_grad_is_needed(arrays):
    a, b, _ = _tensors(arrays)
    w = ember.from_numpy(arrays[2].copy()).requires_grad_()
    z = a * b + w
    assert z.requires_grad and z.grad_fn.name() == "AddBackward0"
    d = (a * b) + ember.ones(N, dtype=ember.float64)     # promotes: a fresh float64 result
    assert d.dtype == ember.float64
    small = ember.ones(4) * 2 + 1
    assert small.tolist() == [3.0] * 4


# --- ember.core.refcounts: what the interpreter's stack holds -------------------------------
def test_elision_is_on_where_counts_are_exact():
    """On 64-bit CPython 3.11-3.13 with the GIL, the import-time self-test passes."""
    assert refcounts.STACK_READABLE == (refcounts.EXACT and sys.maxsize > 2**32)
    assert elision.TEMP_REFS == (3 if refcounts.STACK_READABLE else 0)


class _Probe:
    """`p + q` is True when binary_operands finds (p, q) on the caller's stack."""
    def __add__(self, other):
        return refcounts.binary_operands(sys._getframe(1)) == (id(self), id(other))


def _adding(p, q):
    yield p + q


@needs_elision
def test_binary_operands_of_each_kind_of_frame():
    p, q = _Probe(), _Probe()
    assert p + q and next(_adding(p, q))
    assert [p + q for _ in "x"][0] and (lambda: p + q)()   # noqa: RUF015, PLC3002 (frames)
    assert _identity(1, *[2], p + q, k=None) and _identity(k=p + q)
    ns = {"p": p, "q": q}
    exec("r = p + q", ns)   # noqa: S102 (module-level code)
    assert ns["r"]
    # not at a BINARY_OP whose operands are (p, q)
    assert not operator.add(p, q) and not functools.reduce(operator.add, [p, q])
    assert not (_objects(p, p) + q)[0]                   # the stack holds (array, q)
    assert not 1.0 + _radd_by(functools.partial(operator.add, p))    # (1.0, w)


def _code_objects(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _code_objects(c)


@needs_elision
@pytest.mark.parametrize("module", [contextlib, dis, functools, inspect, os, typing])
def test_stack_depths_of_standard_library_code(module):
    """Every code object with a BINARY_OP gets its depths (the flow adds up), within
    co_stacksize, over a locals part as long as the frame's (co_nlocalsplus)."""
    path = module.__file__
    with open(path, encoding="utf-8") as f:
        top = compile(f.read(), path, "exec")
    for code in _code_objects(top):
        ops = [i for i in dis.get_instructions(code) if i.opname == "BINARY_OP"]
        slots = refcounts._binary_op_slots(code)
        assert len(slots) == len(ops), code
        nlocalsplus = 0
        while True:
            try:
                code._varname_from_oparg(nlocalsplus)
            except IndexError:
                break
            nlocalsplus += 1
        assert all(nlocalsplus <= s < nlocalsplus + code.co_stacksize - 1 for s in slots.values())
