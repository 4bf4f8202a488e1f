"""View ops against torch: shapes, strides, storage offsets, values, storage sharing
(writes through the base show up in the view), Meta layouts, and errors.

Inputs are built from the same NumPy data in both libraries, then put in a layout
(contiguous, transposed, strided, offset, broadcast) by the same ops on both sides.
"""
import numpy as np
import pytest
from helpers import DTYPES, np_dtype
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember.core.tensor import from_array

torch = pytest.importorskip("torch")

_RAW_TORCH = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


# --- building inputs ---------------------------------------------------------------------
def _np_data(shape, name, seed=0):
    n = int(np.prod(shape))
    vals = (np.arange(n) * 7 + 3 + seed) % 251
    if name == "bool":
        return (vals % 2).astype(np.bool_).reshape(shape)
    return vals.astype(np_dtype(name)).reshape(shape)


def _torch_from_np(a, name):
    if name == "bfloat16":
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(a.copy())


class Lib:
    """The calls that differ between the two libraries."""

    def __init__(self, name):
        self.name = name
        self.is_torch = name == "torch"

    def slice(self, x, dim=0, start=None, end=None, step=1):
        if self.is_torch:
            return torch.ops.aten.slice.Tensor(x, dim, start, end, step)
        return ember.slice(x, dim, start, end, step)

    def alias(self, x):
        return torch.ops.aten.alias(x) if self.is_torch else x.alias()

    def dtype(self, name):
        return getattr(torch if self.is_torch else ember, name)

    def other(self, shape):
        """A tensor of `shape` (only its shape is used)."""
        if self.is_torch:
            return torch.empty(shape, device="meta")
        return ember.empty(shape, device="meta")


T, E = Lib("torch"), Lib("ember")

# layout name -> (root shape for a wanted shape, ops giving the wanted shape from the root);
# "broadcast" expands a root whose first dim is 1.
LAYOUTS = {
    "contiguous": (lambda s: s, lambda L, x, s: x),
    "transposed": (lambda s: s[::-1], lambda L, x, s: x.permute(*range(x.dim() - 1, -1, -1))),
    "strided": (lambda s: (2 * s[0] + 1,) + s[1:], lambda L, x, s: L.slice(x, 0, 1, None, 2)),
    "offset": (lambda s: s[:-1] + (s[-1] + 2,), lambda L, x, s: L.slice(x, -1, 1, -1)),
    "broadcast": (lambda s: (1,) + s[1:], lambda L, x, s: x.expand(*s)),
}


def layouts_for(shape):
    if len(shape) == 0:
        return ["contiguous"]
    out = ["contiguous", "strided", "offset"]
    if len(shape) >= 2:
        out.append("transposed")
    if shape[0] != 1:
        out.append("broadcast")
    return out


def make_inputs(shape, dtype, layout, seed=0):
    """(ember root, ember x, torch root, torch x, ember meta x, torch meta x)."""
    shape = tuple(shape)
    root_shape_of, arrange = LAYOUTS[layout]
    root_shape = root_shape_of(shape)
    data = _np_data(root_shape, dtype, seed)
    e_root = ember.from_numpy(data.copy())  # NumPy strides, like torch.from_numpy
    t_root = _torch_from_np(data, dtype)
    m_root = ember.empty(root_shape, dtype=getattr(ember, dtype), device="meta")
    tm_root = torch.empty(root_shape, dtype=getattr(torch, dtype), device="meta")

    return (e_root, arrange(E, e_root, shape), t_root, arrange(T, t_root, shape),
            arrange(E, m_root, shape), arrange(T, tm_root, shape))


# --- comparing ---------------------------------------------------------------------------
def raw_ember(x):
    a = x.numpy()
    return a.view(f"u{a.itemsize}")


def raw_torch(x):
    return x.view(_RAW_TORCH[x.element_size()]).numpy().view(f"u{x.element_size()}")


def check_layout(e, t):
    assert tuple(e.shape) == tuple(t.shape)
    assert e.stride() == t.stride()
    assert e.storage_offset() == t.storage_offset()
    assert e.dtype.name == str(t.dtype).replace("torch.", "")


def check_tensor(e, t, e_root, t_root):
    """Layout and bits equal torch's; shares the root's storage exactly when torch's
    result does (views do, reshape copies do not); same view-ness."""
    check_layout(e, t)
    assert e.device.type == "cpu"
    np.testing.assert_array_equal(raw_ember(e), raw_torch(t))
    t_shares = t.untyped_storage().data_ptr() == t_root.untyped_storage().data_ptr()
    assert (e.untyped_storage().data_ptr() == e_root.untyped_storage().data_ptr()) == t_shares
    if t._base is not None:
        assert e._base is e_root
    elif t_shares:
        assert e._base is None      # detach / view(dtype): shared, but not a tracked view


def as_tuple(r):
    return tuple(r) if isinstance(r, (list, tuple)) else (r,)


def check_result(e_out, t_out, e_root, t_root, dtype, seed=0):
    assert isinstance(e_out, (list, tuple)) == isinstance(t_out, (list, tuple))
    if isinstance(t_out, tuple):
        assert isinstance(e_out, tuple)
    es, ts = as_tuple(e_out), as_tuple(t_out)
    assert len(es) == len(ts)
    for e, t in zip(es, ts):
        check_tensor(e, t, e_root, t_root)
    # writing through the root's memory shows up in the views exactly as in torch
    new = _np_data(tuple(e_root.shape), dtype, seed + 11)
    if new.size:
        e_root.numpy()[...] = new
        t_root.copy_(_torch_from_np(new, dtype))
    for e, t in zip(es, ts):
        np.testing.assert_array_equal(raw_ember(e), raw_torch(t))


def check_meta(m_out, tm_out):
    ms, tms = as_tuple(m_out), as_tuple(tm_out)
    assert len(ms) == len(tms)
    for m, tm in zip(ms, tms):
        assert m.device.type == "meta"
        check_layout(m, tm)


def norm_msg(msg):
    return str(msg).split("\n")[0].replace("torch.", "ember.")


def run(fn, x_e, x_t):
    """Runs fn on both; when torch raises, ember must raise the same type and message."""
    try:
        t_out = fn(T, x_t)
    except Exception as exc:  # noqa: BLE001  (any torch error must be mirrored)
        with pytest.raises(type(exc)) as info:
            fn(E, x_e)
        assert norm_msg(info.value) == norm_msg(exc)
        return None, None
    return fn(E, x_e), t_out


def check_op(fn, shape, dtype="float32", layout="contiguous", seed=0):
    e_root, x_e, t_root, x_t, m_x, tm_x = make_inputs(shape, dtype, layout, seed)
    e_out, t_out = run(fn, x_e, x_t)
    if t_out is None:
        return False
    check_result(e_out, t_out, e_root, t_root, dtype, seed)
    m_out, tm_out = run(fn, m_x, tm_x)
    check_meta(m_out, tm_out)
    return True


# --- the cases ---------------------------------------------------------------------------
def _m(name, *args, **kwargs):
    """A case calling the method `name` with the same arguments on both sides."""
    def fn(L, x):
        return getattr(x, name)(*args, **kwargs)
    fn.__name__ = f"{name}{args}{kwargs or ''}"
    return fn


def _f(label, fn):
    fn.__name__ = label
    return fn


CASES = [
    # view
    ((2, 3, 4), _m("view", 6, 4)), ((2, 3, 4), _m("view", -1)), ((2, 3, 4), _m("view", (4, -1, 2))),
    ((2, 3, 4), _m("view", [2, 3, 2, 2])), ((2, 3, 4), _m("view", ember.Size([24]))),
    ((2, 3, 4), _m("view", 2, 12)), ((2, 3, 4), _m("view", 1, 2, 1, 12, 1)),
    ((6,), _m("view", 2, 3)), ((), _m("view", 1, 1)), ((), _m("view", -1)), ((1,), _m("view", [])),
    ((0, 3), _m("view", -1)), ((0, 3), _m("view", 3, 0, 2)), ((0, 3), _m("view", 0, -1)),
    ((2, 3), _m("view", 7)), ((2, 3), _m("view", -1, -1)), ((2, 3), _m("view", 4, -1)),
    ((2, 3), _m("view", -2, 3)), ((2, 1, 4), _m("view", 8)), ((2, 1, 4), _m("view", 4, 1, 2)),
    ((2, 3, 4), _m("view", 2, 3, 4)), ((2, 3), _m("view", [2, np.int64(3)])),
    # reshape (views when possible, copies otherwise)
    ((2, 3, 4), _m("reshape", 6, 4)), ((2, 3, 4), _m("reshape", (-1,))),
    ((2, 3, 4), _m("reshape", 4, 3, 2)), ((), _m("reshape", 1)), ((0, 4), _m("reshape", 2, 0, 2)),
    ((2, 3), _m("reshape", 5)), ((2, 3, 4), _m("reshape", [2, -1])), ((2, 3, 4), _m("reshape", 2, 3, 4)),
    ((2, 1, 4), _m("reshape", 4, 2)), ((2, 3, 4), _m("reshape", 6, -2)),
    # view_as / reshape_as / expand_as
    ((2, 3, 4), _f("view_as", lambda L, x: x.view_as(L.other((6, 4))))),
    ((2, 3, 4), _f("reshape_as", lambda L, x: x.reshape_as(L.other((4, 6))))),
    ((3, 1), _f("expand_as", lambda L, x: x.expand_as(L.other((2, 3, 5))))),
    # as_strided
    ((4, 5), _m("as_strided", (2, 2), (1, 2))), ((4, 5), _m("as_strided", (3, 3), (5, 1), 2)),
    ((4, 5), _m("as_strided", (2,), (0,), 19)), ((4, 5), _m("as_strided", (0, 7), (1, 1), 3)),
    ((4, 5), _m("as_strided", (5, 5), (5, 1))), ((4, 5), _m("as_strided", (2, 2), (1, 1), 19)),
    ((4, 5), _m("as_strided", (2, 2), (-1, 1))), ((4, 5), _m("as_strided", (2,), (1, 1))),
    ((4, 5), _m("as_strided", (2, 2), (1, 1), -1)), ((), _m("as_strided", (), ())),
    ((4, 5), _m("as_strided", (2, -1), (1, 1), -1)), ((4, 5), _m("as_strided", (2, -1), (1, 1))),
    ((4, 5), _m("as_strided", (2, -1), (-1, 1), -1)),
    # permute / transpose / t / adjoint / movedim
    ((2, 3, 4), _m("permute", 2, 0, 1)), ((2, 3, 4), _m("permute", (-1, 0, -2))),
    ((2, 3, 4), _m("permute", [1, 0, 2])), ((), _m("permute", ())), ((2, 3), _m("permute", 0)),
    ((2, 3), _m("permute", 0, 0)), ((2, 3), _m("permute", 0, 2)),
    ((2, 3, 4), _m("transpose", 0, 2)), ((2, 3, 4), _m("transpose", -1, 1)),
    ((2, 3, 4), _m("transpose", 1, 1)), ((), _m("transpose", 0, -1)), ((2, 3), _m("transpose", 0, 2)),
    ((2, 3), _m("t")), ((3,), _m("t")), ((), _m("t")), ((2, 3, 4), _m("t")), ((0, 3), _m("t")),
    ((2, 3, 4), _m("adjoint")), ((2, 3), _m("adjoint")), ((3,), _m("adjoint")),
    ((2, 3, 4), _m("movedim", 0, -1)), ((2, 3, 4), _m("movedim", (0, 1), (2, 0))),
    ((2, 3, 4, 5), _m("movedim", [3, 0], [1, 2])), ((), _m("movedim", 0, -1)),
    ((2, 3, 4), _m("movedim", (0, 1), (2,))), ((2, 3, 4), _m("movedim", (0, -3), (1, 2))),
    ((2, 3, 4), _m("movedim", (0, 1), (2, -1))), ((2, 3, 4), _m("movedim", 3, 0)),
    # unsqueeze / squeeze
    ((2, 3), _m("unsqueeze", 0)), ((2, 3), _m("unsqueeze", 1)), ((2, 3), _m("unsqueeze", 2)),
    ((2, 3), _m("unsqueeze", -1)), ((2, 3), _m("unsqueeze", -3)), ((), _m("unsqueeze", 0)),
    ((), _m("unsqueeze", -1)), ((0, 2), _m("unsqueeze", 1)), ((2, 3), _m("unsqueeze", 3)),
    ((1, 3, 1), _m("squeeze")), ((1, 3, 1), _m("squeeze", 0)), ((1, 3, 1), _m("squeeze", 1)),
    ((1, 3, 1), _m("squeeze", -1)), ((1, 3, 1), _m("squeeze", (0, 1, 2))),
    ((1, 3, 1), _m("squeeze", [-1])), ((1, 3, 1), _m("squeeze", ())), ((), _m("squeeze")),
    ((), _m("squeeze", 0)), ((), _m("squeeze", [-1])), ((1, 0, 1), _m("squeeze")),
    ((1, 3, 1), _m("squeeze", 3)), ((1, 3, 1), _m("squeeze", (0, 0))), ((), _m("squeeze", 1)),
    # expand
    ((3, 1), _m("expand", 3, 4)), ((3, 1), _m("expand", 2, -1, 4)), ((3, 1), _m("expand", (1, 3, 1))),
    ((1, 3), _m("expand", [4, 1, 3])), ((), _m("expand", 2, 3)), ((), _m("expand", 1, 1)),
    ((), _m("expand", ())), ((3, 1), _m("expand", 3, 0)), ((0, 1), _m("expand", 0, 5)),
    ((3, 1), _m("expand", 4)), ((3, 1), _m("expand", 4, 4)), ((3, 1), _m("expand", -1, 3, 4)),
    ((2, 3), _m("expand", 2, 3)),
    # slice
    ((5, 4), _f("slice(0,1,4)", lambda L, x: L.slice(x, 0, 1, 4))),
    ((5, 4), _f("slice(1,None,None,2)", lambda L, x: L.slice(x, 1, None, None, 2))),
    ((5, 4), _f("slice(-1,-3)", lambda L, x: L.slice(x, -1, -3))),
    ((5, 4), _f("slice(0,-100,100,3)", lambda L, x: L.slice(x, 0, -100, 100, 3))),
    ((5, 4), _f("slice(0,4,2)", lambda L, x: L.slice(x, 0, 4, 2))),
    ((5, 4), _f("slice(0,4,12)", lambda L, x: L.slice(x, 0, 4, 12))),
    ((0, 4), _f("slice(0,1,3)", lambda L, x: L.slice(x, 0, 1, 3))),
    ((5, 4), _f("slice(0,0,5,0)", lambda L, x: L.slice(x, 0, 0, 5, 0))),
    ((5, 4), _f("slice(0,0,5,-1)", lambda L, x: L.slice(x, 0, 0, 5, -1))),
    ((5, 4), _f("slice(2)", lambda L, x: L.slice(x, 2))),
    ((), _f("slice(0)", lambda L, x: L.slice(x, 0))),
    # select / unbind
    ((3, 4), _m("select", 0, 2)), ((3, 4), _m("select", 1, -1)), ((3, 4), _m("select", -1, 0)),
    ((3,), _m("select", 0, 1)), ((3, 4), _m("select", 0, 3)), ((3, 4), _m("select", 1, -5)),
    ((), _m("select", 0, 0)), ((3, 4), _m("select", 2, 0)),
    ((3, 4), _m("unbind")), ((3, 4), _m("unbind", 1)), ((3, 4), _m("unbind", -1)),
    ((0, 4), _m("unbind")), ((3,), _m("unbind")), ((), _m("unbind")), ((3, 4), _m("unbind", 2)),
    # diagonal
    ((3, 4), _m("diagonal")), ((3, 4), _m("diagonal", 1)), ((3, 4), _m("diagonal", -2)),
    ((3, 4), _m("diagonal", 5)), ((3, 4), _m("diagonal", -5)), ((3, 4), _m("diagonal", 0, 1, 0)),
    ((2, 3, 4), _m("diagonal", 0, 0, 2)), ((2, 3, 4), _m("diagonal", 1, -1, -2)),
    ((3, 0), _m("diagonal")), ((3, 4), _m("diagonal", 0, 0, 0)), ((3, 4), _m("diagonal", 0, 0, -2)),
    ((3,), _m("diagonal")),
    # split / split_with_sizes / chunk
    ((5, 4), _m("split", 2)), ((5, 4), _m("split", 3, 1)), ((5, 4), _m("split", 10, -1)),
    ((5, 4), _m("split", 1)), ((0, 4), _m("split", 0)), ((0, 4), _m("split", 2)),
    ((5, 4), _m("split", 0)), ((5, 4), _m("split", -1)), ((), _m("split", 1)),
    ((5, 4), _m("split_with_sizes", [2, 3])), ((5, 4), _m("split_with_sizes", [0, 4, 0], 1)),
    ((5, 4), _m("split_with_sizes", [4], -1)), ((5, 4), _m("split_with_sizes", [1, 2])),
    ((5, 4), _m("split_with_sizes", [6, -1])), ((5, 4), _m("split_with_sizes", [])),
    ((5, 4), _m("split_with_sizes", [1, 2], -1)), ((5, 4), _m("split_with_sizes", [1, -2], 3)),
    ((), _m("split_with_sizes", [1])),
    ((5, 4), _m("chunk", 2)), ((5, 4), _m("chunk", 4)), ((5, 4), _m("chunk", 3, 1)),
    ((5, 4), _m("chunk", 10, -1)), ((0, 4), _m("chunk", 3)), ((5, 4), _m("chunk", 0)),
    ((), _m("chunk", 1)), ((6,), _m("chunk", 4)),
    # narrow
    ((5, 4), _m("narrow", 0, 1, 3)), ((5, 4), _m("narrow", 1, -3, 2)), ((5, 4), _m("narrow", -1, 4, 0)),
    ((5, 4), _m("narrow", 0, -6, 1)), ((5, 4), _m("narrow", 0, 4, 2)), ((5, 4), _m("narrow", 0, 0, -1)),
    ((), _m("narrow", 0, 0, 1)),
    # flatten / unflatten
    ((2, 3, 4), _m("flatten")), ((2, 3, 4), _m("flatten", 1)), ((2, 3, 4), _m("flatten", 0, 1)),
    ((2, 3, 4), _m("flatten", -2, -1)), ((), _m("flatten")), ((0, 3), _m("flatten")),
    ((2, 3, 4), _m("flatten", 2, 1)), ((), _m("flatten", 1)),
    ((2, 12), _m("unflatten", 1, (3, 4))), ((2, 12), _m("unflatten", -1, (2, -1, 3))),
    ((2, 12), _m("unflatten", 0, [1, 2])), ((2, 0), _m("unflatten", 1, (0, 5))),
    ((2, 12), _m("unflatten", 1, (5, -1))), ((2, 12), _m("unflatten", 1, (5, 2))),
    ((2, 12), _m("unflatten", 1, ())),
    # detach / alias
    ((2, 3), _m("detach")), ((), _m("detach")), ((2, 3), _f("alias", lambda L, x: L.alias(x))),
    ((), _f("alias", lambda L, x: L.alias(x))),
]


def _case_id(case):
    shape, fn = case
    return f"{fn.__name__}-{list(shape)}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_view_ops_layouts(case):
    shape, fn = case
    for layout in layouts_for(shape):
        check_op(fn, shape, "float32", layout)


SMALL_CASES = [((2, 3, 4), _m("view", 6, 4)), ((2, 3, 4), _m("permute", 2, 0, 1)),
               ((3, 1), _m("expand", 2, 3, 4)), ((5, 4), _m("split", 2)), ((3, 4), _m("diagonal", 1)),
               ((3, 4), _m("unbind", 1)), ((1, 3, 1), _m("squeeze")), ((5, 4), _m("narrow", 1, 1, 2)),
               ((2, 3, 4), _m("flatten", 1)), ((2, 3, 4), _m("movedim", 0, -1)),
               ((5, 4), _f("slice", lambda L, x: L.slice(x, 0, 1, None, 2)))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", SMALL_CASES, ids=[_case_id(c) for c in SMALL_CASES])
def test_view_ops_dtypes(case, dtype):
    shape, fn = case
    assert check_op(fn, shape, dtype, "contiguous")
    for layout in layouts_for(shape)[1:]:
        check_op(fn, shape, dtype, layout)


def test_cases_mostly_succeed():
    """Guard against a case table where everything errors (so nothing is compared)."""
    ok = sum(check_op(fn, shape) for shape, fn in CASES)
    assert ok > 0.6 * len(CASES)


# --- specific behaviour ------------------------------------------------------------------
def test_view_of_noncontiguous_when_dims_are_contiguous_chunks():
    e_root, x_e, t_root, x_t, _, _ = make_inputs((3, 4, 2), "float32", "contiguous")
    e = E.slice(x_e, 1, 1, 3)           # (3, 2, 2), strides (8, 2, 1): dims 1, 2 contiguous
    t = T.slice(x_t, 1, 1, 3)
    assert not e.is_contiguous()
    check_tensor(e.view(3, 4), t.view(3, 4), e_root, t_root)
    check_tensor(e.view(3, 1, 4, 1), t.view(3, 1, 4, 1), e_root, t_root)
    check_tensor(e.view(3, 2, 1, 2), t.view(3, 2, 1, 2), e_root, t_root)
    with pytest.raises(RuntimeError, match=r"view size is not compatible .* Use \.reshape"):
        e.view(12)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        e.view(6, 2)
    check_tensor(e.reshape(3, 4), t.reshape(3, 4), e_root, t_root)


def test_reshape_copies_only_when_needed():
    e_root, x_e, _, x_t, _, _ = make_inputs((2, 3), "float32", "contiguous")
    r = x_e.reshape(3, 2)
    assert r._base is e_root
    c = x_e.t().reshape(6)
    tc = x_t.t().reshape(6)
    check_layout(c, tc)
    np.testing.assert_array_equal(c.numpy(), tc.numpy())
    assert c.untyped_storage().data_ptr() != e_root.untyped_storage().data_ptr()


@pytest.mark.parametrize("make, shape", [
    (lambda lib, x: x.reshape(6), (2, 3)),                 # a view
    (lambda lib, x: x.t().reshape(6), (2, 3)),             # a copy: clone + _unsafe_view
    (lambda lib, x: x.t().flatten(), (2, 3)),
    (lambda lib, x: x.transpose(0, 1).reshape(3, 2, 2, 2), (2, 3, 4)),   # _reshape_alias
    (lambda lib, x: x[:, :, :2].reshape(6, 2), (2, 3, 4)),               # _reshape_alias
    (lambda lib, x: x[:, 1:].flatten(1), (2, 3, 4)),
    (lambda lib, x: x.flatten(0, 1), (2, 3, 4)),
    (lambda lib, x: x.unflatten(-1, (2, 2)), (2, 3, 4)),
    (lambda lib, x: x @ x.transpose(-1, -2), (2, 3, 4)),   # matmul's bmm, then _unsafe_view
    (lambda lib, x: x @ x[0, 0], (2, 3, 4)),               # folded mv
    (lambda lib, x: lib.nn.functional.linear(x, x[0], x[1, 1]), (2, 3, 3)),  # linear's N-D
    (lambda lib, x: lib.nn.functional.linear(x.transpose(0, 1), x[0]), (2, 3, 3)),  # matmul
])
def test_view_ness_and_grad_fn_of_reshapes_and_matmul(make, shape):
    """Same _is_view(), _base-ness, grad_fn name, layout, values and gradients as torch."""
    data = np.random.default_rng(0).standard_normal(shape)
    outs, grads = [], []
    for lib in (torch, ember):
        x = lib.tensor(data, requires_grad=True)
        y = make(lib, x * 1)
        y.backward(lib.ones_like(y))
        outs.append(y)
        grads.append(x.grad.numpy())
    t, e = outs
    check_layout(e, t)
    assert (e._is_view(), e._base is None, e.grad_fn.name()) == \
        (t._is_view(), t._base is None, t.grad_fn.name())
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)


@pytest.mark.parametrize("mode", ["make_fx", "fake"])
def test_reshape_of_a_non_contiguous_tensor_under_modes_is_a_view(mode):
    """Under a dispatch mode (and for subclasses) torch's reshape calls view, not the
    internal _reshape_alias: the same graph and grad_fn in ember."""
    if mode == "make_fx":
        from torch.fx.experimental.proxy_tensor import make_fx as t_make_fx

        from ember.fx.experimental.proxy_tensor import make_fx as e_make_fx
        graphs = [[str(n.target) for n in make(lambda t: t[:, :, :2].reshape(6, 2))(
            lib.zeros(2, 3, 4)).graph.nodes if n.op == "call_function"]
            for lib, make in ((torch, t_make_fx), (ember, e_make_fx))]
        assert [g.replace("ember.ops", "aten") for g in graphs[1]] == graphs[0] == \
            ["aten.slice.Tensor", "aten.view.default"]
        return
    from torch._subclasses.fake_tensor import FakeTensorMode as TFake

    from ember._subclasses.fake_tensor import FakeTensorMode as EFake
    names = []
    for lib, fake in ((torch, TFake), (ember, EFake)):
        with fake():
            x = lib.zeros(2, 3, 4, requires_grad=True) * 1
            names.append(x.transpose(0, 1).reshape(3, 2, 2, 2).grad_fn.name())
    assert names[0] == names[1] == "ViewBackward0"


def test_reshape_alias_called_directly():
    """_reshape_alias called with sizes and strides reshape did not compute: the view they
    describe over self's storage (as torch's, which also takes any strides), and
    as_strided's RuntimeError for a negative size or one reaching past the storage (torch
    checks nothing and reads past it) instead of NumPy's ValueError."""
    alias = ember.ops.aten._reshape_alias.default
    x = ember.arange(12.0)
    v = alias(x, (3, 2), (1, 3))        # not NumPy's reshape strides: a strided view
    t = torch.ops.aten._reshape_alias.default(torch.arange(12.0), (3, 2), (1, 3))
    assert v.stride() == t.stride() and v._base is x
    np.testing.assert_array_equal(v.numpy(), t.numpy())
    for size, stride in (((-1,), (-1,)), ((4, 4), (4, 1))):
        with pytest.raises(RuntimeError):
            alias(x, size, stride)


def test_cached_view_plans_keep_errors():
    """A repeated view, permute or expand (served from a remembered plan) gives the same
    view and still refuses what the first call refuses: float sizes, and a non-contiguous
    input goes the general way."""
    x = ember.arange(24.0).view(2, 3, 4) * 1
    b = x[:, :1]
    for _ in range(2):
        assert x.view(6, 4).stride() == (4, 1) and x.permute(2, 0, 1).stride() == (1, 12, 4)
        e = b.expand(5, 2, 3, 4)
        assert e.stride() == (0, 12, 0, 1) and e._base is x
        np.testing.assert_array_equal(e.numpy(), np.broadcast_to(b.numpy(), (5, 2, 3, 4)))
    for call in (lambda: ember.ops.aten.view.default(x, (6.0, 4)),
                 lambda: ember.ops.aten.permute.default(x, (2.0, 0, 1)),
                 lambda: ember.ops.aten.expand.default(b, (5, 2, 3.0, 4))):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.transpose(0, 1).view(6, 4)


@pytest.mark.parametrize("index", [(0,), (slice(None), 1), (slice(None), slice(None, 2)),
                                   (-1, slice(1, None), slice(None, None, 2)),
                                   (slice(None), slice(None)), (1, -1, 2), (slice(5, 1),),
                                   (0, slice(None), 9), (2, 0), (slice(None),) * 4])
def test_getitem_of_ints_and_slices(index):
    """getitem's one-pass path for tuples of ints and slices: torch's views and errors."""
    data = np.arange(24.0).reshape(2, 3, 4)
    got = []
    for lib in (torch, ember):
        x = lib.tensor(data, requires_grad=True) * 1
        try:
            got.append(x[index])
        except (IndexError, RuntimeError) as err:
            got.append(type(err))
    t, e = got
    if isinstance(t, type):
        assert e is t
        return
    check_layout(e, t)
    assert e.grad_fn.name() == t.grad_fn.name() and (e._base is None) == (t._base is None)
    np.testing.assert_array_equal(e.detach().numpy(), t.detach().numpy())


def test_flatten_returns_self_when_nothing_to_merge():
    x = from_array(np.zeros((2, 3), np.float32))
    assert x.flatten(1, 1) is x
    assert from_array(np.zeros(3, np.float32)).flatten().shape == (3,)


def test_size_arguments_accept_sequences_size_and_int_tensors():
    x = from_array(np.arange(24.0)).view(2, 3, 4)
    assert x.view(ember.Size([6, 4])).shape == (6, 4)
    assert x.view([4, 6]).shape == (4, 6)
    assert x.view(np.int64(24)).shape == (24,)
    n = from_array(np.array(12, np.int64))
    assert x.view(n, -1).shape == (12, 2)
    one = from_array(np.array(1, np.int64))
    assert x.select(one, one).storage_offset() == 4
    assert x.narrow(2, one, one).shape == (2, 3, 1)


def test_detach_and_alias_share_storage_and_version():
    x = from_array(np.arange(6.0))
    d, a = x.detach(), x.alias()
    assert d._base is None and a._base is x
    assert d.untyped_storage() is x.untyped_storage() is a.untyped_storage()
    x.numpy()[0] = 42
    assert d.numpy()[0] == 42 and a.numpy()[0] == 42
    v0 = d._version
    x.add_(1)  # an in-place op bumps the shared version counter
    assert d._version == v0 + 1


def test_views_of_views_point_at_the_root():
    e_root, x_e, _, _, _, _ = make_inputs((4, 6), "float32", "contiguous")
    v = x_e.t().unsqueeze(0).narrow(1, 1, 3).select(0, 0)
    assert v._base is e_root


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "offset", "broadcast"])
@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_view_dtype(src, dst, layout):
    fn = _f("view_dtype", lambda L, x: x.view(L.dtype(dst)))
    same_size = getattr(ember, src).itemsize == getattr(ember, dst).itemsize
    for shape in [(3, 4), (2, 8), (4, 1), (3, 0)]:
        if layout in layouts_for(shape):
            ok = check_op(fn, shape, src, layout)
            assert ok or not same_size        # same itemsize: always a valid view
    if layout == "contiguous":
        assert check_op(fn, (), src, layout) == same_size


def test_view_dtype_is_not_a_tracked_view():
    x = from_array(np.zeros((2, 4), np.float32))
    v = x.view(ember.int16)
    assert v._base is None and v.untyped_storage() is x.untyped_storage()
    v.numpy()[0, 1] = 0x3F80     # high half of 1.0f (little endian)
    assert x.numpy()[0, 0] == 1.0


def test_meta_reshape_copy_layout():
    m = ember.empty((2, 3, 4), device="meta")
    v = m.permute(2, 0, 1).reshape(4, 6)
    tv = torch.empty((2, 3, 4), device="meta").permute(2, 0, 1).reshape(4, 6)
    check_layout(v, tv)


def test_as_strided_keeps_offset_when_none():
    e_root, x_e, t_root, x_t, _, _ = make_inputs((4, 5), "float32", "offset")
    check_tensor(x_e.as_strided((2, 2), (1, 1)), x_t.as_strided((2, 2), (1, 1)), e_root, t_root)


def test_as_strided_empty_with_offset_past_the_storage():
    x = from_array(np.zeros((2, 3), np.float32))
    v = x.as_strided((3, 0), (2, 1), 100)       # torch allows this: no element is read
    assert v.shape == (3, 0) and v.storage_offset() == 100


def test_empty_tail_slice_of_an_offset_view():
    e_root, x_e, t_root, x_t, _, _ = make_inputs((5, 4), "float32", "offset")
    check_tensor(E.slice(x_e, 0, 5), T.slice(x_t, 0, 5), e_root, t_root)  # x[5:], offset 21 of 20


def test_expand_error_messages():
    x = from_array(np.zeros((2, 3), np.float32))
    with pytest.raises(RuntimeError, match=r"expand\(ember.FloatTensor\{\[2, 3\]\}, size=\[3\]\): "
                       r"the number of sizes provided \(1\) must be greater or equal"):
        x.expand(3)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(4\) must match the "
                       r"existing size \(2\) at non-singleton dimension 0.  Target sizes: \[4, 3\]."
                       r"  Tensor sizes: \[2, 3\]"):
        x.expand(4, 3)
    with pytest.raises(RuntimeError):       # torch: "numel: integer multiplication overflow"
        x.expand(-2, 2, 3)
    with pytest.raises(RuntimeError):
        from_array(np.zeros((), np.float32)).expand(-1)


def test_select_error_message():
    with pytest.raises(IndexError, match=r"select\(\): index 5 out of range for tensor of size "
                       r"\[3\] at dimension 0"):
        from_array(np.zeros(3)).select(0, 5)


def test_as_strided_error_message():
    x = from_array(np.zeros((2, 3), np.float32))
    with pytest.raises(RuntimeError, match=r"setStorage: sizes \[3, 3\], strides \[2, 1\], storage "
                       r"offset 0, and itemsize 4 requiring a storage size of 28 are out of bounds "
                       r"for storage of size 24"):
        x.as_strided((3, 3), (2, 1))


# --- random chains of view ops -----------------------------------------------------------
def _draw_op(data, shape):
    """A random view op (as a case function) for a tensor of `shape`; arguments are
    mostly valid but may be out of range (then both libraries must raise alike)."""
    nd = len(shape)
    valid_dim = st.integers(-nd, nd - 1) if nd else st.integers(-1, 0)
    dim = st.one_of(valid_dim, valid_dim, valid_dim, st.integers(-nd - 2, nd + 1))
    kind = data.draw(st.sampled_from([
        "view", "reshape", "permute", "transpose", "t", "unsqueeze", "squeeze", "squeeze_dim",
        "expand", "slice", "select", "diagonal", "split", "split_with_sizes", "unbind", "chunk",
        "narrow", "flatten", "unflatten", "movedim", "as_strided", "detach", "alias"]))
    if kind in ("view", "reshape"):
        dims = list(data.draw(st.permutations(list(shape))))
        parts = _factor_split(data, dims)
        if parts and data.draw(st.booleans()):
            parts[data.draw(st.integers(0, len(parts) - 1))] = -1
        return _m(kind, parts)
    if kind == "permute":
        return _m("permute", data.draw(st.permutations(list(range(nd)))))
    if kind == "transpose":
        return _m("transpose", data.draw(dim), data.draw(dim))
    if kind == "t":
        return _m("t")
    if kind == "unsqueeze":
        return _m("unsqueeze", data.draw(st.integers(-nd - 2, nd + 1)))
    if kind == "squeeze":
        return _m("squeeze")
    if kind == "squeeze_dim":
        return _m("squeeze", data.draw(dim))
    if kind == "expand":
        lead = data.draw(st.lists(st.integers(1, 3), max_size=2))
        tail = [data.draw(st.sampled_from([-1, n, 3] if n == 1 else [-1, n])) for n in shape]
        return _m("expand", lead + tail)
    if kind == "slice":
        s, e = data.draw(st.one_of(st.none(), st.integers(-6, 6))), data.draw(
            st.one_of(st.none(), st.integers(-6, 6)))
        step = data.draw(st.integers(1, 3))
        d = data.draw(dim)
        return _f(f"slice({d},{s},{e},{step})", lambda L, x: L.slice(x, d, s, e, step))
    if kind == "select":
        d = data.draw(dim)
        n = shape[d] if -nd <= d < nd else 1
        return _m("select", d, data.draw(st.integers(-n - 1, n)))
    if kind == "diagonal":
        return _m("diagonal", data.draw(st.integers(-3, 3)), data.draw(dim), data.draw(dim))
    if kind == "split":
        return _m("split", data.draw(st.integers(0, 4)), data.draw(dim))
    if kind == "split_with_sizes":
        d = data.draw(dim)
        n = shape[d] if nd and -nd <= d < nd else 0
        cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=3)))
        sizes = [b - a for a, b in zip([0] + cuts, cuts + [n])]
        return _m("split_with_sizes", sizes, d)
    if kind == "unbind":
        return _m("unbind", data.draw(dim))
    if kind == "chunk":
        return _m("chunk", data.draw(st.integers(1, 4)), data.draw(dim))
    if kind == "narrow":
        d = data.draw(dim)
        n = shape[d] if -nd <= d < nd else 1
        start = data.draw(st.integers(-n - 1, n))
        return _m("narrow", d, start, data.draw(st.integers(0, max(n - start % max(n, 1), 0) + 1)))
    if kind == "flatten":
        return _m("flatten", data.draw(dim), data.draw(dim))
    if kind == "unflatten":
        d = data.draw(dim)
        n = shape[d] if nd and -nd <= d < nd else 1
        parts = _factor_split(data, [n]) or [1]
        if data.draw(st.booleans()) and n:
            parts[0] = -1
        return _m("unflatten", d, parts)
    if kind == "movedim":
        k = data.draw(st.integers(0, nd))
        src = data.draw(st.permutations(list(range(nd))))[:k]
        dst = data.draw(st.permutations(list(range(nd))))[:k]
        return _m("movedim", src, dst)
    if kind == "as_strided":
        sz = data.draw(st.lists(st.integers(0, 3), max_size=3))
        sd = [data.draw(st.integers(0, 4)) for _ in sz]
        off = data.draw(st.one_of(st.none(), st.integers(0, 6)))
        return _m("as_strided", sz, sd, off)
    if kind == "detach":
        return _m("detach")
    return _f("alias", lambda L, x: L.alias(x))


def _factor_split(data, dims):
    """Splits each size into random factors (and sometimes inserts 1s)."""
    out = []
    for n in dims:
        for f in (2, 3):
            if n and n % f == 0 and n > f and data.draw(st.booleans()):
                out.append(f)
                n //= f
        out.append(n)
        if data.draw(st.integers(0, 4)) == 0:
            out.append(1)
    return out


@settings(max_examples=400, deadline=None)
@given(data=st.data(), shape=st.lists(st.integers(0, 4), max_size=4),
       layout=st.sampled_from(["contiguous", "transposed", "strided", "offset", "broadcast"]),
       dtype=st.sampled_from(["float32", "int64", "bfloat16", "uint8"]))
def test_random_view_chains(data, shape, layout, dtype):
    shape = tuple(shape)
    if layout not in layouts_for(shape):
        layout = "contiguous"
    e_root, x_e, t_root, x_t, m_x, tm_x = make_inputs(shape, dtype, layout)
    steps = data.draw(st.integers(1, 6))
    for _ in range(steps):
        fn = _draw_op(data, tuple(x_t.shape))
        e_out, t_out = run(fn, x_e, x_t)
        if t_out is None:
            return
        m_out, tm_out = run(fn, m_x, tm_x)
        check_meta(m_out, tm_out)
        es, ts, ms, tms = as_tuple(e_out), as_tuple(t_out), as_tuple(m_out), as_tuple(tm_out)
        assert len(es) == len(ts)
        for e, t in zip(es, ts):
            check_layout(e, t)
            np.testing.assert_array_equal(raw_ember(e), raw_torch(t))
            assert (e.untyped_storage().data_ptr() == e_root.untyped_storage().data_ptr()) == (
                t.untyped_storage().data_ptr() == t_root.untyped_storage().data_ptr())
        if not ts:
            return
        i = data.draw(st.integers(0, len(ts) - 1))
        x_e, x_t, m_x, tm_x = es[i], ts[i], ms[i], tms[i]


def test_numpy_integer_arguments():
    x = from_array(np.zeros((3, 4)))
    assert x.select(np.int64(1), np.int32(2)).storage_offset() == 2


@pytest.mark.parametrize("shape,dim", [((), -1), ((), 0), ((), 5), ((2,), 3), ((2, 3), -3)])
def test_size_and_stride_of_a_bad_dim_raise_torch_index_error(shape, dim):
    """A 0-d tensor has no dims at all ("Dimension specified as -1 but tensor has no
    dimensions"), not a wrapped one."""
    e, t = ember.zeros(shape), torch.zeros(shape)
    for name in ("size", "stride"):
        with pytest.raises(IndexError) as te:
            getattr(t, name)(dim)
        with pytest.raises(IndexError) as ee:
            getattr(e, name)(dim)
        assert str(ee.value) == str(te.value)
