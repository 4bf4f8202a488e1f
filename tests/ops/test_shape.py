"""Shape family (issue 4) behaviour the OpInfo suite does not cover: the Python bindings
(named tuples, out=(values, indices), varargs, torch.unique), topk(sorted=False),
derivatives torch does not implement, gradients through the public API, and error
messages."""
import warnings

import numpy as np
import pytest
from helpers import check, check_call, pair, raises_like, to_np

import ember

torch = pytest.importorskip("torch")


def _x(shape=(3, 4), seed=0):
    return pair(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


# --- named tuples and out= ------------------------------------------------------------------
@pytest.mark.parametrize("name,args", [("sort", ()), ("sort", (0, True)), ("topk", (2,)),
                                       ("topk", (2, 0, False))])
def test_multi_output_ops_return_named_tuples(name, args):
    e, t = _x()
    er, tr = getattr(ember, name)(e, *args), getattr(torch, name)(t, *args)
    assert type(er).__name__ == type(tr).__name__ == name
    assert isinstance(er, tuple) and er._fields == ("values", "indices")
    check(er.values, tr.values)
    check(er.indices, tr.indices)
    mr = getattr(e, name)(*args)           # the method gives the same type
    assert type(mr) is type(er)
    check(mr.indices, tr.indices)


def test_sort_out_tuple():
    e, t = _x()
    ev, ei = ember.empty(0), ember.empty(0, dtype=ember.int64)
    tv, ti = torch.empty(0), torch.empty(0, dtype=torch.int64)
    er = ember.sort(e, 1, True, out=(ev, ei))
    tr = torch.sort(t, 1, True, out=(tv, ti))
    assert type(er).__name__ == type(tr).__name__ == "sort_out"
    assert er.values is ev and er.indices is ei
    check(ev, tv)
    check(ei, ti)
    raises_like(lambda: ember.sort(e, out=ev), lambda: torch.sort(t, out=tv))


def test_topk_out_tuple():
    e, t = _x()
    ev, ei = ember.empty(0), ember.empty(0, dtype=ember.int64)
    er = ember.topk(e, 2, out=(ev, ei))
    tr = torch.topk(t, 2)
    assert er.values is ev and er.indices is ei
    check(ev, tr.values)
    check(ei, tr.indices)


def test_topk_unsorted_selects_the_same_elements():
    e, t = _x((4, 9), seed=3)
    for largest in (True, False):
        er = ember.topk(e, 4, 1, largest, False)
        tr = torch.topk(t, 4, 1, largest, False)
        np.testing.assert_array_equal(np.sort(to_np(er.indices), 1),
                                      np.sort(to_np(tr.indices), 1))
        np.testing.assert_array_equal(np.sort(to_np(er.values), 1), np.sort(to_np(tr.values), 1))


def test_method_varargs():
    e, t = _x((2, 3))
    check(e.repeat(2, 1, 3), t.repeat(2, 1, 3))
    check(e.tile(2, 1), t.tile(2, 1))
    check(e.flip(0, 1), t.flip(0, 1))
    check(e.roll(1, 0), t.roll(1, 0))
    check(e.argsort(dim=0, descending=True), t.argsort(dim=0, descending=True))
    check(e.argsort(stable=True), t.argsort(stable=True))


@pytest.mark.parametrize("call", ["x.reshape()", "x.permute()", "x.expand()", "x.repeat()",
                                  "x.view()", "x.new_zeros()", "lib.zeros()", "x.flip()"])
def test_an_empty_size_varargs_is_a_type_error(call):
    """`x.reshape()` names no size: torch's TypeError ("missing 1 required positional
    arguments"), not a 0-d tensor; `x.reshape(())` still gives one."""
    e, t = _x((1,))
    raises_like(lambda: eval(call, {"x": e, "lib": ember}),
                lambda: eval(call, {"x": t, "lib": torch}))
    check(e.reshape(()), t.reshape(()))


def test_nonzero_out_resized_column_major():
    e, t = pair(np.array([[0, 1, 2], [3, 0, 0]], np.int64))
    eo, to = ember.empty(0, dtype=ember.int64), torch.empty(0, dtype=torch.int64)
    check(ember.nonzero(e, out=eo), torch.nonzero(t, out=to))
    assert eo.stride() == to.stride()


# --- unique -----------------------------------------------------------------------------------
@pytest.mark.parametrize("flags", [(True, False, False), (True, True, False),
                                   (False, False, True), (True, True, True)])
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_unique_matches_torch(flags, dim):
    a = np.array([[1, 2, 1, 2], [0, 5, 0, 5], [1, 2, 1, 2]], np.int64)
    e, t = pair(a)
    sorted_, inv, counts = flags
    er = ember.unique(e, sorted_, inv, counts, dim)
    tr = torch.unique(t, sorted_, inv, counts, dim)
    if isinstance(tr, tuple):
        assert isinstance(er, tuple) and len(er) == len(tr)
        for x, y in zip(er, tr):
            check(x, y)
    else:
        check(er, tr)
    mr = e.unique(sorted_, return_inverse=inv, return_counts=counts, dim=dim)
    check(mr[0] if isinstance(mr, tuple) else mr, tr[0] if isinstance(tr, tuple) else tr)


@pytest.mark.parametrize("flags", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_unique_consecutive_matches_torch(flags, dim):
    a = np.array([[1, 2, 2, 2], [1, 2, 2, 2], [0, 5, 5, 1]], np.int64)
    e, t = pair(a)
    kw = {"return_inverse": flags[0], "return_counts": flags[1], "dim": dim}
    er = ember.unique_consecutive(e, **kw)
    tr = torch.unique_consecutive(t, **kw)
    er, tr = (er, tr) if isinstance(tr, tuple) else ((er,), (tr,))
    assert len(er) == len(tr)
    for x, y in zip(er, tr):
        check(x, y)
    m = e.unique_consecutive(**kw)
    check(m[0] if isinstance(m, tuple) else m, tr[0])


def test_unique_float_and_bool():
    for a in (np.array([2.5, -1.0, 2.5, 0.0], np.float32), np.array([True, False, True])):
        e, t = pair(a)
        er, tr = ember.unique(e, return_counts=True), torch.unique(t, return_counts=True)
        check(er[0], tr[0])
        check(er[1], tr[1])


# --- derivatives torch does not implement ------------------------------------------------------
def _backward_raises_like(fn):
    """Both backwards raise a RuntimeError (NotImplementedError is one) saying the
    derivative is not implemented."""
    a = np.random.default_rng(0).standard_normal(5)
    te = ember.tensor(a, requires_grad=True)
    tt = torch.tensor(a, requires_grad=True)
    ye, yt = fn(ember, te), fn(torch, tt)
    assert ye.requires_grad == yt.requires_grad
    for y in (yt, ye):
        with pytest.raises(RuntimeError, match="is not implemented"):
            y.sum().backward()


def test_unique_backward_not_implemented():
    _backward_raises_like(lambda lib, x: lib.unique(x))
    _backward_raises_like(lambda lib, x: lib.unique(x.view(5, 1), dim=1))


def test_scatter_reduce_overload_backward_not_implemented():
    idx = np.array([0, 1], np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _backward_raises_like(lambda lib, x: x.scatter(0, lib.tensor(idx), 2.0, reduce="add"))
        _backward_raises_like(lambda lib, x: x.scatter(0, lib.tensor(idx), x[:2] * 1,
                                                       reduce="multiply"))


def test_unique_outputs_other_than_values_do_not_require_grad():
    e = ember.randn(5, requires_grad=True)
    out, inverse, counts = ember.unique(e, return_inverse=True, return_counts=True)
    assert out.requires_grad and not inverse.requires_grad and not counts.requires_grad


# --- gradients through the public API ------------------------------------------------------------
def _grads(lib, fn, *arrays):
    leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(lib, *leaves)
    out = out if isinstance(out, (tuple, list)) else (out,)
    out = [o for o in out if o.numel()]
    total = sum((o * (i + 1.5)).sum() for i, o in enumerate(out) if o.requires_grad)
    total.backward()
    return [to_np(x.grad) for x in leaves]


GRAD_CASES = {
    "sort_values": lambda lib, x: x.sort(0, descending=True).values,
    "topk_values": lambda lib, x: x.topk(2, 1).values,
    "argsort_then_gather": lambda lib, x: x.gather(1, x.argsort(1)),
    "repeat_flip_roll": lambda lib, x: x.repeat(2, 1, 3).flip(0, 2).roll(1, 2),
    "tile": lambda lib, x: lib.tile(x, (2,)),
    "tril_triu": lambda lib, x: x.tril(1) * 2 + x.triu(-1),
    "index_select_repeats": lambda lib, x: x.index_select(1, lib.tensor([0, 0, 2])),
    "masked_select": lambda lib, x: x.masked_select(x > 0),
    "scatter_add_inplace": lambda lib, x: (x * 1).scatter_add_(
        0, lib.tensor([[0, 1, 0, 2]]), x[1:2] * 3),
    "scatter_reduce_amax": lambda lib, x: x.scatter_reduce(
        0, lib.tensor([[0, 1, 0, 2], [1, 1, 0, 0]]), x[1:] * 2, "amax", include_self=False),
    "slice_scatter_chain": lambda lib, x: lib.slice_scatter(x, x[:, :2] ** 2, 1, 1, 3),
    "index_add_alpha": lambda lib, x: x.index_add(1, lib.tensor([0, 0, 3]), x[:, :3] * 2,
                                                  alpha=-1.5),
    "index_copy_inplace": lambda lib, x: (x * 1).index_copy_(0, lib.tensor([2, 0]), x[:2] ** 2),
    "index_fill_tensor": lambda lib, x: x.index_fill(1, lib.tensor([1, 3, 1]), x[0, 0] * 3),
    "masked_scatter": lambda lib, x: x.masked_scatter(x < 0, (x * x).flip(0)),
    "take_put": lambda lib, x: x.take(lib.tensor([0, 5, 5, -1])) * 2 + x.put(
        lib.tensor([1, 2]), x[0, :2] * 3).sum(),
    "take_along_dim": lambda lib, x: lib.take_along_dim(x, x.argsort(1), 1),
    "rot90_msort": lambda lib, x: lib.rot90(x, 1, [0, 1]).msort(),
    "unfold_overlapping": lambda lib, x: x.unfold(1, 3, 1) ** 2,
    "repeat_interleave": lambda lib, x: x.repeat_interleave(lib.tensor([2, 0, 1]), dim=0) * 2,
    "repeat_interleave_int": lambda lib, x: lib.repeat_interleave(x, 2),
    "diag_embed_diag": lambda lib, x: lib.diag_embed(x, 1) + lib.diag(x[0]).sum(),
    "stacks": lambda lib, x: lib.hstack([x, x[:, :1]]).sum() + lib.dstack([x, x]) * x[..., None],
    "block_diag": lambda lib, x: lib.block_diag(x, x[0], x[1, 1]) * 2,
    "combinations": lambda lib, x: lib.combinations(x[0], 2) ** 2,
    "tensor_split": lambda lib, x: [p * (i + 1) for i, p in enumerate(lib.tensor_split(x, 3, 1))],
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_through_the_public_api(name):
    a = np.random.default_rng(7).standard_normal((3, 4))
    ge = _grads(ember, GRAD_CASES[name], a)
    gt = _grads(torch, GRAD_CASES[name], a)
    for x, y in zip(ge, gt):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)


# --- errors ------------------------------------------------------------------------------------
ERRORS = [
    ("repeat_too_few", lambda lib, x: x.repeat(2),
     "Number of dimensions of repeat dims can not be smaller than number of dimensions"),
    ("flip_repeated_dim", lambda lib, x: x.flip(0, 0), "appears multiple times"),
    ("roll_misaligned", lambda lib, x: x.roll((1, 2), (0,)),
     "shifts and dimensions must align"),
    ("tril_1d", lambda lib, x: x[0].tril(), "tril: input tensor must have at least 2 dimensions"),
    ("index_select_2d_index", lambda lib, x: x.index_select(0, lib.tensor([[0]])),
     "Index is supposed to be a vector"),
    ("index_select_out_of_range", lambda lib, x: x.index_select(0, lib.tensor([3])),
     "index out of range in self"),
    ("gather_out_of_bounds", lambda lib, x: x.gather(0, lib.tensor([[3]])),
     "index 3 is out of bounds for dimension 0 with size 3"),
    ("gather_rank", lambda lib, x: x.gather(0, lib.tensor([0])),
     "Index tensor must have the same number of dimensions as input tensor"),
    ("scatter_dtype", lambda lib, x: x.scatter(0, lib.tensor([[0]]), x.double()[:1, :1]),
     "scatter(): Expected self.dtype to be equal to src.dtype"),
    ("scatter_bad_reduce", lambda lib, x: x.scatter(0, lib.tensor([[0]]), 1.0, reduce="max"),
     "reduce argument must be either add or multiply."),
    ("scatter_reduce_bad", lambda lib, x: x.scatter_reduce(0, lib.tensor([[0]]), x, "foo"),
     "reduce argument must be either sum, prod, mean, amax or amin, got foo"),
    ("masked_select_uint8", lambda lib, x: x.masked_select((x > 0).to(lib.uint8)),
     "masked_select: expected BoolTensor for mask"),
    ("topk_k", lambda lib, x: x.topk(5), "selected index k out of range"),
    ("slice_scatter_size", lambda lib, x: lib.slice_scatter(x, x, 0, 0, 2),
     "expected src to have a size equal to the slice of self"),
]


@pytest.mark.parametrize("fn,phrase", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_match_torch(fn, phrase):
    e, t = _x()
    raises_like(lambda: fn(ember, e), lambda: fn(torch, t), phrase)


def test_meta_data_dependent_ops_raise():
    m = ember.empty(3, 4, device="meta")
    for fn in (lambda: m.nonzero(), lambda: m.masked_select(m > 0), lambda: ember.unique(m)):
        with pytest.raises(NotImplementedError):
            fn()


def test_meshgrid_python_api():
    ea, ta = pair(np.arange(3.0))
    eb, tb = pair(np.arange(2.0))
    with pytest.warns(UserWarning, match="indexing argument"):
        er = ember.meshgrid(ea, eb)
    tr = torch.meshgrid(ta, tb, indexing="ij")
    assert isinstance(er, tuple)
    for x, y in zip(er, tr):
        check(x, y)
    for x, y in zip(ember.meshgrid([ea, eb], indexing="xy"), torch.meshgrid([ta, tb], indexing="xy")):
        check(x, y)


def test_nonzero_as_tuple_and_varargs_apis():
    for a in (np.array([[1, 0], [1, 1]]), np.array(1), np.array(0.0), np.zeros((0, 2))):
        e, t = pair(a)
        er, tr = ember.nonzero(e, as_tuple=True), torch.nonzero(t, as_tuple=True)
        assert isinstance(er, tuple) and len(er) == len(tr)
        for x, y in zip(er, tr):
            check(x, y)
        for x, y in zip(e.nonzero(as_tuple=True), tr):
            check(x, y)
        check(e.nonzero(), t.nonzero())
    ea, ta = pair(np.arange(3.0))
    eb, tb = pair(np.zeros((2, 1)))
    for x, y in zip(ember.broadcast_tensors(ea, eb), torch.broadcast_tensors(ta, tb)):
        check(x, y)
    check(ember.cartesian_prod(ea, ea), torch.cartesian_prod(ta, ta))


@pytest.mark.parametrize("shapes", [[(3, 1), (3, 1)], [(3, 1), (3, 2)], [(2,), (3, 2)], [(4,)]])
def test_broadcast_tensors_keeps_the_tensors_already_of_the_shape(shapes):
    """torch's expand_outplace: a tensor of the broadcast shape comes back itself (no
    expand, no view, its own grad_fn); the others are expanded views."""
    results = []
    for lib in (torch, ember):
        xs = [lib.ones(s, requires_grad=True) * 1 for s in shapes]
        outs = lib.broadcast_tensors(*xs)
        results.append([(o is x, o._is_view(), o.grad_fn.name(), tuple(o.shape), o.stride())
                        for o, x in zip(outs, xs)])
    assert results[1] == results[0]


def test_block_diag_varargs():
    ea, ta = pair(np.ones((2, 2), np.float32))
    eb, tb = pair(np.arange(3, dtype=np.int64))
    check(ember.block_diag(ea, eb), torch.block_diag(ta, tb))
    check(ember.block_diag(), torch.block_diag())


def test_argument_named_like_a_binding_local_with_overrides_on():
    """With a Tensor subclass alive (overrides checked), an op argument named `r`
    (combinations) or `k` (topk) still reaches the kernel."""
    class Sub(ember.Tensor):
        pass

    from ember.overrides import tf_state
    assert tf_state[0]
    x = ember.tensor([1.0, 2.0, 3.0])
    assert ember.combinations(x, 2).shape == (3, 2)
    assert ember.combinations(x, r=3).shape == (1, 3)
    assert x.topk(2).values.tolist() == [3.0, 2.0]
    del Sub


# --- found by the long fuzz run (tests/fuzz) ----------------------------------------------------
NAN = float("nan")


@pytest.mark.parametrize("call", [
    # a Scalar is a wrapped number: converted to the boundaries' dtype (255 is -1 in int8)
    lambda M: M.bucketize(255, M.tensor([7], dtype=M.int8)),
    lambda M: M.searchsorted(M.tensor([7, 9], dtype=M.int8), 255),
    lambda M: M.bucketize(7.5, M.tensor([7, 9], dtype=M.int8)),
    lambda M: M.searchsorted(M.tensor([1.0, 2.5], dtype=M.float16), 2.4),
    # tensors of two dtypes: torch's common dtype, not NumPy's (no DTypePromotionError)
    lambda M: M.searchsorted(M.tensor([], dtype=M.int16), M.tensor([NAN], dtype=M.bfloat16)),
    lambda M: M.searchsorted(M.tensor([1, 300], dtype=M.int16),
                             M.tensor([299.5, 300.5], dtype=M.bfloat16)),
    lambda M: M.bucketize(M.tensor([300, 3]), M.tensor([1, 5], dtype=M.uint8), right=True),
])
def test_search_converts_to_the_common_dtype_like_torch(call):
    check_call(call)


@pytest.mark.parametrize("data", [[[1, 1, 2, 2, 3], [1, 1, 2, 2, 3]], [False], [1, 1, 2],
                                  [[[1, 2]], [[1, 2]]]])
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("flags", [(False, False), (False, True), (True, False), (True, True)])
def test_unique_consecutive_outputs_like_torch(data, dim, flags):
    """The inverse and counts are empty unless asked for when flattening (no dim, or dim 0
    of a 1-d tensor: [False] gave [0], [1]); along another dim both always come."""
    if dim is not None and dim >= np.ndim(data):
        return
    check_call(lambda M: M.ops.aten.unique_consecutive.default(M.tensor(data), *flags, dim))


@pytest.mark.parametrize("call", [
    lambda M: M.ops.aten.squeeze.dims(M.zeros(0, 0), [0, 0, 2]),
    lambda M: M.ops.aten.squeeze.dims(M.zeros(0, 0), [2, 0, 0]),
    lambda M: M.ops.aten.squeeze_copy.dims(M.zeros(0), [0, 0, 1]),
    lambda M: M.flip(M.zeros(2, 3), [1, -1, 5]),
])
def test_dim_lists_checked_one_dim_after_the_other_like_torch(call):
    """A repeated dim raises before a later dim out of range (was IndexError)."""
    check_call(call)


@pytest.mark.parametrize("pad", [[], [-1, 0], [0, 0], [1, 0], [0, 2]])
@pytest.mark.parametrize("shape", [(3,), (0,)])
def test_constant_pad_without_positive_pad_ignores_the_value_like_torch(pad, shape):
    """No positive pad: torch returns a narrowed copy and never converts the value (256 into
    uint8 raised in ember); a positive pad checks it."""
    check_call(lambda M: M.constant_pad_nd(M.ones(shape, dtype=M.uint8), pad, 256))


@pytest.mark.parametrize("dims,phrase", [([0, 0, 4, 0], "duplicate dims"),
                                         ([0, 4, 0, 1], "Dimension out of range"),
                                         ([1, -3, 2, 3], "duplicate dims")])
@pytest.mark.parametrize("op", ["permute", "permute_copy"])
def test_permute_checks_its_dims_in_order(op, dims, phrase):
    """torch wraps and checks the dims one at a time: the first bad one names the error."""
    e, t = _x((2, 1, 3, 1))
    raises_like(lambda: getattr(ember, op)(e, dims), lambda: getattr(torch, op)(t, dims), phrase)
    for m in ("meta",):
        em = ember.empty((2, 1, 3, 1), device=m)
        with pytest.raises(RuntimeError if "duplicate" in phrase else IndexError):
            getattr(ember, op)(em, dims)
