"""Regressions from the issue-12 fuzzing session: ember disagreed with torch on these calls
(overload choice for 0-d tensors, topk/roll of 0-d tensors, padding, take_along_dim,
division dunders, huge sizes, ...). Each test compares values, dtypes, shapes, strides and
errors with torch."""
import numpy as np
import pytest
from helpers import assert_same, check, raises_like

import ember

torch = pytest.importorskip("torch")


def _same(fn):
    """fn(ember) matches fn(torch): a tensor or a tuple/list of tensors, or both raise the
    same exception type."""
    try:
        t = fn(torch)
    except (RuntimeError, IndexError, TypeError, ValueError):
        raises_like(lambda: fn(ember), lambda: fn(torch))
        return
    e = fn(ember)
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
        o = m.empty(0, dtype=m.int64)
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


# --- topk, roll and stack: 0-d tensors, None dims, strides of transposed inputs --------------
@pytest.mark.parametrize("k", [0, 1])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [0, -1])
def test_topk_0d(k, largest, dim):
    _same(lambda m: m.topk(m.tensor(3.5), k, dim, largest=largest))

    def out(m):
        v, i = m.empty(0), m.empty(0, dtype=m.int64)
        m.topk(m.tensor(3.5), k, out=(v, i))
        return v, i
    _same(out)


@pytest.mark.parametrize("k", [-1, 2])
def test_topk_0d_errors(k):
    raises_like(lambda: ember.tensor(3.5).topk(k), lambda: torch.tensor(3.5).topk(k),
                "selected index k out of range")


@pytest.mark.parametrize("shifts,dims", [(1, None), (5, None), (-3, 1), (1, 0), ((1, 2), (0, 1)),
                                         ((2, -1), (1, 1)), (7, ())])
@pytest.mark.parametrize("view", [lambda x: x, lambda x: x.t(), lambda x: x[:, ::2]])
def test_roll(shifts, dims, view):
    x = lambda m: view(m.arange(24.0).reshape(4, 6))
    _same(lambda m: m.roll(x(m), shifts, dims))
    _same(lambda m: x(m).roll(shifts, dims=dims))


@pytest.mark.parametrize("shifts,dims", [(1, 0), (1, -1), (1, 5), ((1, 2), (0, -1)),
                                         ((1, 2), (0,))])
def test_roll_0d_errors(shifts, dims):
    raises_like(lambda: ember.tensor(2.0).roll(shifts, dims),
                lambda: torch.tensor(2.0).roll(shifts, dims))
    if isinstance(shifts, int):
        with pytest.raises(IndexError, match="Dimension specified as .* but tensor has no dim"):
            ember.tensor(2.0).roll(shifts, dims)


def test_roll_0d_flat():
    _same(lambda m: m.tensor(2.0).roll(3))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack_transposed(dim):
    _same(lambda m: m.stack([m.arange(6.0).reshape(2, 3).t()] * 2, dim))
    _same(lambda m: m.stack([m.arange(6.0).reshape(2, 3).t(), m.arange(6.0).reshape(3, 2)], dim))


def test_none_for_empty_int_list_default():
    """torch's parser takes None for an int list whose default is [] (amax, max_pool2d's
    stride, roll's dims), not for one without a default."""
    x = lambda m: m.arange(16.0).reshape(1, 4, 4)
    _same(lambda m: m.amax(x(m), None))
    _same(lambda m: m.max_pool2d(x(m), 2, None))
    _same(lambda m: m.nn.functional.max_pool2d(x(m), 2, None))
    raises_like(lambda: ember.flip(x(ember), None), lambda: torch.flip(x(torch), None))


# --- padding: negative pads (values, strides), circular wrapping, reflect errors ------------
_VIEWS = [lambda x: x, lambda x: x.t(), lambda x: x[:, ::2],
          lambda x: x.unsqueeze(0).expand(2, 3, 4)[:, :, :3]]


@pytest.mark.parametrize("pad", [(-1, 0), (0, -1, -1, 0), (-4, 0), (1, -1), (0, 0, -3, 0),
                                 (-1, -1, -1, -1), (0, 0), (-1, 2), (1, -2, 0, -1)])
@pytest.mark.parametrize("view", _VIEWS)
def test_constant_pad_nd_negative(pad, view):
    x = lambda m: view(m.arange(12.0).reshape(3, 4))
    _same(lambda m: m.constant_pad_nd(x(m), pad, 7.0))
    _same(lambda m: m.nn.functional.pad(x(m), pad, value=7.0))
    _same(lambda m: m.constant_pad_nd(x(m).to("meta"), pad, 7.0))


@pytest.mark.parametrize("pad", [(1, 1), (-1, 0), (-1, -1, 1, 0), (0, 0, -2, -1)])
def test_constant_pad_nd_channels_last(pad):
    x = lambda m: m.arange(120.0).reshape(2, 3, 4, 5).contiguous(memory_format=m.channels_last)
    _same(lambda m: m.constant_pad_nd(x(m), pad))


@pytest.mark.parametrize("pad", [(-6, 0), (0, 0, -2, -2), (2, -5)])
def test_constant_pad_nd_negative_errors(pad):
    raises_like(lambda: ember.constant_pad_nd(ember.zeros(3, 4), pad),
                lambda: torch.constant_pad_nd(torch.zeros(3, 4), pad))


@pytest.mark.parametrize("shape,pad", [((1, 2, 5), (1, 2)), ((1, 2, 5), (-1, 2)), ((1, 2, 5), (2, -1)),
                                       ((1, 2, 5), (5, 0)), ((2, 5), (-2, -1)),
                                       ((1, 1, 3, 4), (1, 1, 2, 0)), ((1, 1, 3, 4), (-1, 1, 0, -1)),
                                       ((3, 4), (-1, 3, 2, -1)), ((1, 1, 2, 3, 4), (1, 1, 1, 1, 1, 1)),
                                       ((1, 1, 2, 3, 4), (0, -1, 1, 0, 2, -1))])
def test_pad_circular(shape, pad):
    n = int(np.prod(shape))
    _same(lambda m: m.nn.functional.pad(m.arange(float(n)).reshape(shape), pad, mode="circular"))


@pytest.mark.parametrize("shape,pad", [((1, 2, 5), (6, 0)), ((1, 1, 3), (-2, 3)),
                                       ((1, 1, 5), (-3, 4)), ((1, 1, 3), (-3, 0))])
def test_pad_circular_errors(shape, pad):
    """Wrapping more than once raises (torch: an error, or uninitialised memory for pads past
    what negative pads leave, where ember raises torch's wrapping error)."""
    with pytest.raises(RuntimeError):
        ember.nn.functional.pad(ember.zeros(shape), pad, mode="circular")


@pytest.mark.parametrize("shape,pad", [((1, 2, 5), (5, 0)), ((1, 1, 3, 4), (0, 0, 3, 0)),
                                       ((1, 1, 2, 3, 4), (0, 0, 0, 0, 2, 0)),
                                       ((1, 1, 2, 3, 4), (0, 0, 3, 0, 0, 0))])
def test_pad_reflect_error_names_the_argument(shape, pad):
    with pytest.raises(RuntimeError) as t:
        torch.nn.functional.pad(torch.zeros(shape), pad, mode="reflect")
    with pytest.raises(RuntimeError) as e:
        ember.nn.functional.pad(ember.zeros(shape), pad, mode="reflect")
    assert str(e.value) == str(t.value)


# --- take_along_dim / gather index rules ------------------------------------------------------
_X = lambda m: m.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize("idx", [[[0, 4]], [[-1, 0]], [[-5, 9], [100, -100], [3, 2]], [[0], [1], [2]]])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_take_along_dim_wraps_indices(idx, dim):
    """torch wraps take_along_dim's indices around the dim's size (gather does not)."""
    _same(lambda m: m.take_along_dim(_X(m), m.tensor(idx), dim))
    _same(lambda m: m.take_along_dim(_X(m).t(), m.tensor(idx), dim))
    _same(lambda m: m.gather(_X(m), dim, m.tensor(idx)))


def test_take_along_dim_grad():
    def grad(m):
        x = _X(m).requires_grad_()
        m.take_along_dim(x, m.tensor([[-1, 5]]), 1).sum().backward()
        return x.grad
    _same(grad)


@pytest.mark.parametrize("call", [
    lambda m: m.take_along_dim(_X(m), m.tensor([12])),            # flattened: no wrapping
    lambda m: m.take_along_dim(_X(m), m.tensor([-1])),
    lambda m: m.take_along_dim(m.empty(3, 0), m.tensor([[0]]), 1),  # torch: "ZeroDivisionError"
    lambda m: m.take_along_dim(_X(m), m.tensor([[0]], dtype=m.int32), 1),
    lambda m: m.take_along_dim(_X(m), m.tensor([0]), 1),
    lambda m: m.take_along_dim(_X(m), m.tensor([[0], [1]]), 1),
    lambda m: m.gather(_X(m), 1, m.tensor([[0]], dtype=m.int16)),
    lambda m: m.gather(_X(m), 1, m.tensor([[4]])),
    lambda m: m.gather(_X(m), 1, m.tensor([[-1]])),
    lambda m: m.gather(_X(m), 0, m.tensor([0])),
    lambda m: m.gather(_X(m), 1, m.tensor([[0]] * 4)),
])
def test_take_along_dim_gather_errors(call):
    raises_like(lambda: call(ember), lambda: call(torch))


def test_take_along_dim_empty_and_gather_int32():
    _same(lambda m: m.take_along_dim(m.empty(3, 0), m.zeros(3, 0, dtype=m.int64), 1))
    _same(lambda m: m.gather(_X(m), 1, m.tensor([[3, 0]], dtype=m.int32)))


# --- Python 2 division names torch's Tensor still has ------------------------------------------
@pytest.mark.parametrize("name", ["__div__", "__rdiv__", "__truediv__", "__rtruediv__"])
@pytest.mark.parametrize("other", [lambda m: 2, lambda m: 2.5, lambda m: m.tensor([2, 4])])
def test_div_dunders(name, other):
    _same(lambda m: getattr(m.tensor([1, 2]), name)(other(m)))


@pytest.mark.parametrize("name", ["__idiv__", "__itruediv__"])
def test_idiv(name):
    def run(m):
        x = m.tensor([1.0, 2.0])
        assert getattr(x, name)(m.tensor([2.0, 4.0])) is x
        return x
    _same(run)
    raises_like(lambda: getattr(ember.tensor([1, 2]), name)(2),
                lambda: getattr(torch.tensor([1, 2]), name)(2))


# --- batch_norm on (N, C) and (N, C, L); mean(dtype=) gradients ------------------------------
_TOLS = {"float32": (1e-5, 1e-6), "float16": (1e-3, 1e-3)}


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (1, 3), (2, 3, 4, 5)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm(shape, training, affine, momentum):
    xa = np.random.default_rng(0).standard_normal(shape).astype(np.float32)

    def run(m):
        rm, rv = m.full((3,), 0.5), m.full((3,), 2.0)
        w, b = (m.tensor([1.0, 2.0, 3.0]), m.tensor([0.5, 0.0, -1.0])) if affine else (None, None)
        out = m.nn.functional.batch_norm(m.tensor(xa), rm, rv, w, b, training=training,
                                         momentum=momentum)
        return out, rm, rv
    try:
        t = run(torch)
    except (TypeError, ValueError):
        raises_like(lambda: run(ember), lambda: run(torch))
        return
    for a, b in zip(run(ember), t):
        check(a, b, _TOLS)


def test_batch_norm_module_cumulative_average():
    def run(m):
        bn = m.nn.BatchNorm1d(3, momentum=None)
        x = m.arange(24.0).reshape(4, 3, 2)
        bn(x)
        bn(x * 2)
        return bn.running_mean, bn.running_var, bn.num_batches_tracked
    for a, b in zip(run(ember), run(torch)):
        check(a, b, _TOLS)


@pytest.mark.parametrize("src", ["float32", "float16"])
@pytest.mark.parametrize("dt", ["float64", "float32", "float16"])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_mean_dtype_grad(src, dt, dim):
    """The gradient has the input's dtype and is computed in the mean's dtype first."""
    def run(m):
        x = m.tensor([[1.0, 2.0, 5.0], [3.0, 4.0, 7.0]], dtype=getattr(m, src), requires_grad=True)
        y = x.mean(dtype=getattr(m, dt)) if dim is None else x.mean(dim, dtype=getattr(m, dt))
        y.sum().backward()
        return x.grad
    _same(run)


# --- sizes too big to allocate: torch's RuntimeErrors, not NumPy's ValueError/MemoryError ----
_HUGE = [lambda m: m.empty(2 ** 62), lambda m: m.zeros(2 ** 40, 2 ** 40),
         lambda m: m.ones(2 ** 33, 2 ** 33), lambda m: m.full((2 ** 62,), 1.0),
         lambda m: m.empty(2 ** 50), lambda m: m.zeros(2 ** 50, dtype=m.int64),
         lambda m: m.empty_strided((2 ** 50,), (1,)), lambda m: m.zeros(2).new_empty(2 ** 50),
         lambda m: m.zeros(1).expand(2 ** 50).contiguous(), lambda m: m.rand(2 ** 50),
         lambda m: m.randn(2 ** 62, dtype=m.float64)]


@pytest.mark.parametrize("call", _HUGE)
def test_huge_sizes_raise_torch_errors(call):
    with pytest.raises(RuntimeError) as t:
        call(torch)
    with pytest.raises(RuntimeError) as e:
        call(ember)
    for phrase in ("Storage size calculation overflowed with sizes=",
                   "DefaultCPUAllocator: can't allocate memory: you tried to allocate"):
        if phrase in str(t.value):
            assert str(e.value).split(phrase)[1][:40] == str(t.value).split(phrase)[1][:40]
            break
    else:
        raise AssertionError(t.value)


def test_size_past_int64():
    for n in (2 ** 63, 2 ** 64):
        with pytest.raises(TypeError) as t:
            torch.empty(n)
        with pytest.raises(TypeError, match="Overflow when unpacking long long") as e:
            ember.empty(n)
        assert str(t.value).startswith(str(e.value).rstrip('"'))


def test_view_numpy_cannot_hold_is_a_clear_error():
    """torch allows expand(2**62) (stride 0); ember's NumPy arrays cannot span that many bytes:
    a RuntimeError that says so, not NumPy's ValueError."""
    with pytest.raises(RuntimeError, match="ember cannot hold a CPU tensor of sizes"):
        ember.zeros(1).expand(2 ** 62)


# --- big-endian NumPy arrays ------------------------------------------------------------------
_BE = [np.arange(4, dtype=">f4"), np.arange(3, dtype=">i8"), np.array(3.0, ">f8"),
       np.arange(3, dtype=">c8")]


@pytest.mark.parametrize("a", _BE)
@pytest.mark.parametrize("fn", ["tensor", "as_tensor", "from_numpy"])
def test_big_endian_arrays_raise_torch_error(a, fn):
    with pytest.raises(ValueError, match="byte order different from the native") as t:
        getattr(torch, fn)(a)
    with pytest.raises(ValueError) as e:
        getattr(ember, fn)(a)
    assert str(e.value) == str(t.value)


def test_big_endian_arrays_in_a_list_are_read_by_value():
    data = [np.arange(2, dtype=">i8"), np.arange(2, dtype="<i8")]
    with pytest.warns(UserWarning):
        t = torch.tensor(data)
    assert_same(ember.tensor(data), t)
    be = np.arange(4, dtype=">f4")
    _same(lambda m: m.tensor([be[0], be[3]]))


# --- hooks returning what torch refuses --------------------------------------------------------
def _backward_with(m, register, ret):
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    register(x, y, ret)
    y.sum().backward()
    return x.grad


_REGISTER = {
    "leaf": lambda x, y, ret: x.register_hook(lambda g: ret(g)),
    "nonleaf": lambda x, y, ret: y.register_hook(lambda g: ret(g)),
    "node_post": lambda x, y, ret: y.grad_fn.register_hook(lambda gi, go: ret(gi)),
    "node_pre": lambda x, y, ret: y.grad_fn.register_prehook(lambda go: ret(go)),
}
_RETURNS = [lambda g: 3, lambda g: "a", lambda g: None, lambda g: [g], lambda g: (g, g),
            lambda g: (5,), lambda g: (None,), lambda g: g, lambda g: g[0] * 2,
            lambda g: (g[0].double(),), lambda g: (g[0][:1],)]


@pytest.mark.parametrize("kind", list(_REGISTER))
@pytest.mark.parametrize("ret", _RETURNS)
def test_hook_results_checked_like_torch(kind, ret):
    def run(m):
        return _backward_with(m, _REGISTER[kind], ret)
    try:
        t = run(torch)
    except (TypeError, RuntimeError, IndexError, AttributeError) as err:
        with pytest.raises(type(err)) as e:
            run(ember)
        assert str(e.value).replace("ember", "torch") == str(err).splitlines()[0]
        return
    e = run(ember)
    if t is None:
        assert e is None
    else:
        check(e, t, _TOLS)


# --- binary dunders give Python NotImplemented on a TypeError, like torch ----------------------
@pytest.mark.parametrize("expr", [lambda t: t == "x", lambda t: t != "x", lambda t: t == [1.0, 2.0],
                                  lambda t: t == (1, 2), lambda t: t == object(),
                                  lambda t: "a" in [t], lambda t: t.__iadd__("x"),
                                  lambda t: t + "x", lambda t: t < "x", lambda t: "x" + t,
                                  lambda t: t @ "x", lambda t: t + [1.0, 2.0]])
def test_binary_dunders_with_foreign_operands(expr):
    try:
        t = expr(torch.tensor([1.0, 2.0]))
    except TypeError as err:
        with pytest.raises(TypeError) as e:
            expr(ember.tensor([1.0, 2.0]))
        assert str(e.value) == str(err)
        return
    assert expr(ember.tensor([1.0, 2.0])) == t


# --- the long fuzz run of session 31 -----------------------------------------------------------
NAN = float("nan")


@pytest.mark.parametrize("alpha", [2**31, -2**31, 2**31 - 1, -2**31 - 1])
@pytest.mark.parametrize("op", ["sub", "rsub", "subtract", "add", "sub_"])
@pytest.mark.parametrize("n", [0, 3])
def test_sub_checks_the_negated_alpha(op, alpha, n):
    """torch runs sub/rsub as add with -alpha: that is the value that must fit the dtype."""
    def call(m):
        a = m.arange(n, dtype=m.int32) + 5
        b = m.arange(n, dtype=m.int32)
        return a.sub_(b, alpha=alpha) if op == "sub_" else getattr(m, op)(a, b, alpha=alpha)
    _same(call)


def test_sub_alpha_meta_does_not_convert():
    a = ember.ones(2, dtype=ember.int32, device="meta")
    t = torch.ones(2, dtype=torch.int32, device="meta")
    assert ember.sub(a, a, alpha=2**40).shape == torch.sub(t, t, alpha=2**40).shape == (2,)
    with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
        ember.sub(a, a, alpha=0.5)  # (alpha_check runs on Meta too; torch's is its Python ref)


@pytest.mark.parametrize("bounds", [(70000, NAN), (NAN, 70000), (NAN, NAN), (70000, None),
                                    (None, NAN), (-1.0, 2.0)])
@pytest.mark.parametrize("n", [0, 3])
def test_clamp_nan_bound_fills_nan(bounds, n):
    """A NaN bound (both given) fills the result with NaN, converting no bound (torch)."""
    x = lambda m: m.arange(n, dtype=m.float16) - 1
    _same(lambda m: m.clamp(x(m), *bounds))
    _same(lambda m: x(m).clamp_(*bounds))
    _same(lambda m: m.clamp(m.arange(n, dtype=m.int32), *[0.5 if b is None else b for b in bounds]))


@pytest.mark.parametrize("shape, pad", [((0, 4), [-2, -2, 0, 1]), ((0, 0), [0, 0, 0, 1]),
                                        ((1, 0), [0, 0, 0, 1]), ((2, 4), [-2, -2, 0, 1]),
                                        ((0, 2), [0, -2, 1, 0]), ((2, 4), [-4, -2, 0, 1])])
def test_constant_pad_to_zero_size(shape, pad):
    _same(lambda m: m.constant_pad_nd(m.ones(shape, dtype=m.bool), pad, 1))
    _same(lambda m: m.nn.functional.pad(m.ones(shape), pad))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_cum_bool_dtype(op, device):
    """No bool loop in torch's CPU kernels, but a 0-d or empty input never reaches it (and
    Meta has none to reach)."""
    for x in (lambda m: m.tensor(False), lambda m: m.tensor(2.5), lambda m: m.zeros(0, 3),
              lambda m: m.ones(3, dtype=m.bool)):
        def call(m, x=x):
            r = getattr(m, op)(x(m).to(device), 0 if x(m).dim() < 2 else 1, dtype=m.bool)
            return r if device == "cpu" else m.tensor(list(r.shape))
        _same(call)
        _same(lambda m, x=x: getattr(x(m).bool().to(device), op + "_")(0).to("cpu")
              if device == "cpu" else m.tensor(list(x(m).shape)))


@pytest.mark.parametrize("ord", [NAN, 3.0, 0.5, 2.0])
def test_norm_of_empty_is_zero(ord):
    _same(lambda m: m.linalg.vector_norm(m.zeros(0), ord))
    _same(lambda m: m.linalg.vector_norm(m.zeros(2, 0), ord, dim=1))
    _same(lambda m: m.dist(m.tensor(9, dtype=m.uint8), m.zeros(0, dtype=m.float16), ord))
    _same(lambda m: m.dist(m.ones(2), m.zeros(2), ord))


def test_lerp_zero_dim_weight_promotes():
    """A 0-d weight of another dtype takes part in the type promotion, as torch's iterator."""
    b = lambda m, v: m.tensor(v, dtype=m.bool)
    _same(lambda m: m.lerp(b(m, False), b(m, False), m.tensor(NAN, dtype=m.float16)))
    _same(lambda m: m.lerp(b(m, [False, True]), b(m, [True, True]), m.tensor(0.5, dtype=m.float16)))
    _same(lambda m: m.lerp(m.tensor([1, 2]), m.tensor([3, 4]), m.tensor(0.5)))
    _same(lambda m: m.lerp(m.tensor([1, 2]), m.tensor([3, 4]), m.tensor(0.5 + 1j)))
    _same(lambda m: m.lerp(m.tensor([1.0, 2], dtype=m.float16), m.tensor([3.0, 40], dtype=m.float16),
                           m.tensor(0.3337, dtype=m.float64)))
    _same(lambda m: b(m, [False, True]).lerp_(b(m, [True, True]), m.tensor(0.5, dtype=m.float16)))
    _same(lambda m: m.tensor([1, 2]).lerp_(m.tensor([3, 4]), m.tensor(0.5)))
    _same(lambda m: m.lerp(m.tensor([1, 2]), m.tensor([3, 4]), m.tensor(1)))


@pytest.mark.parametrize("dtype", ["bool", "int64", "int32", "float16", "float64", "complex64"])
def test_nansum_zeroes_nan_before_the_cast(dtype):
    x = lambda m: m.tensor([[NAN, 2.5], [0.6, 1.0]])
    _same(lambda m: m.nansum(x(m), dtype=getattr(m, dtype)))
    _same(lambda m: m.nansum(x(m).t(), 1, dtype=getattr(m, dtype)))
    _same(lambda m: m.nansum(m.zeros(0, 2), 0, dtype=getattr(m, dtype)))
    _same(lambda m: m.nansum(x(m).to(m.complex64)))


def test_empty_sum_strides():
    """NumPy calls any empty array C-contiguous: the sum's fast path must not trust it."""
    from helpers import ember_of, torch_of
    a = np.zeros((1, 2, 0, 2), np.float32)
    e, t = ember_of(a).permute(3, 2, 1, 0), torch_of(a).permute(3, 2, 1, 0)
    assert_same(e.sum([1]), t.sum([1]))
    assert_same(e.sum([1], keepdim=True), t.sum([1], keepdim=True))


def _shifted_add(t):
    return t[1:].add_(t[:-1])


@pytest.mark.parametrize("call", [
    lambda m: m.tensor([False]).expand(2).scatter_add_(1, m.zeros(0, dtype=m.int64),
                                                       m.tensor([False, True])),
    lambda m: m.tensor([1.0]).expand(2).index_add_(5, m.zeros(1, dtype=m.int64), m.tensor([1.0])),
    lambda m: m.tensor([1.0]).expand(2).scatter_(1, m.zeros(1, dtype=m.int64), 1.0),
    lambda m: m.tensor([1.0]).expand(2).scatter_add_(0, m.zeros(1, dtype=m.int64),
                                                     m.tensor([1.0, 2])),
    lambda m: m.ones(3).expand(2, 3).add_(m.ones(2)),
    lambda m: _shifted_add(m.arange(4.0)),
])
def test_overlap_checked_after_the_ops_own_checks(call):
    """torch's kernels check overlap after their arguments (a bad dim is an IndexError)
    but before TensorIterator's shapes."""
    _same(call)


@pytest.mark.parametrize("call", [
    lambda m: m.addmv(m.zeros(()), m.ones(2, 3), m.ones(2)),
    lambda m: m.addmv(m.zeros(1), m.ones(2, 3), m.ones(3)),
    lambda m: m.addmv(m.zeros(2, 2), m.ones(2, 2), m.ones(2)),
    lambda m: m.addmv(m.zeros(2), m.ones(2), m.ones(2)),
    lambda m: m.addmv(m.zeros(2, dtype=m.int32), m.ones(2, 2), m.ones(2)),
    lambda m: m.addmv(m.zeros(2), m.ones(2, 2), m.ones(2, dtype=m.float64)),
    lambda m: m.zeros(2, dtype=m.int32).addmv_(m.ones(2, 2), m.ones(2)),
    lambda m: m.addbmm(m.zeros(2, 2, dtype=m.int32), m.ones(1, 2, 2), m.ones(1, 2, 2)),
    lambda m: m.addbmm(m.zeros(2, 2), m.ones(1, 2, 2, dtype=m.float64), m.ones(1, 2, 2)),
    lambda m: m.zeros(2, 2, dtype=m.int32).addr_(m.ones(2), m.ones(2)),
    lambda m: m.zeros(2, 2).addr_(m.ones(2, dtype=m.float64), m.ones(2, dtype=m.float64)),
    lambda m: m.zeros(0, 0, dtype=m.bool).addr_(m.zeros(0, dtype=m.bool),
                                                m.zeros(0, dtype=m.uint8)),
])
def test_addmv_addbmm_addr_checks(call):
    _same(call)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("eps", [None, 1e-3, 0.2])
def test_logit_half_types_round_each_step(dtype, eps):
    """torch's kernel computes 1 - x and x / (1 - x) in the half type itself."""
    a = np.random.default_rng(1).uniform(-0.1, 1.1, 4000).astype(np.float32)
    e = ember.logit(ember.tensor(a).to(getattr(ember, dtype)), eps)
    t = torch.logit(torch.from_numpy(a).to(getattr(torch, dtype)), eps)
    np.testing.assert_array_equal(e.float().numpy(), t.float().numpy())


@pytest.mark.parametrize("ord", [255.0, -255.0, 0.5, 0, float("inf")])
def test_norm_over_one_element_is_abs(ord):
    """Reducing one element is |x| in torch, with no power that could overflow."""
    x = lambda m: m.tensor([[-11.385], [11.385]])
    _same(lambda m: m.linalg.vector_norm(x(m), ord, dim=1))
    _same(lambda m: m.linalg.vector_norm(x(m), ord, dim=1, keepdim=True))
    _same(lambda m: m.linalg.vector_norm(x(m), ord, dim=0))
    _same(lambda m: m.linalg.vector_norm(m.tensor(-3 + 4j), ord))
    _same(lambda m: m.dist(m.tensor(-2.385, dtype=m.float16), m.tensor([9], dtype=m.uint8), ord))


def test_norm_ord_in_the_accumulation_dtype():
    """ord = 1e39 is inf in float32: torch's generic norm then gives sum(|x|^inf)^0 = 1."""
    _same(lambda m: m.dist(m.tensor([0.1182, 4.504]), m.tensor([4.082]), 1e39))
    _same(lambda m: m.dist(m.tensor([float("nan")], dtype=m.float16),
                           m.tensor([1.0, -float("inf")], dtype=m.float16), 1e39))
    _same(lambda m: m.linalg.vector_norm(m.tensor([0.5, 0.25], dtype=m.float64), 1e39))


def _doubled(x):
    return x + x


@pytest.mark.parametrize("call", [
    lambda m: m.tensor([[[False, True]]]).permute(2, 1, 0) * m.tensor([[[9], [7]]], dtype=m.uint8),
    lambda m: m.ops.aten.native_dropout_backward(m.tensor([[[0.5, 1.0]]]).permute(2, 1, 0),
                                                 m.tensor([[[True], [False]]]), 2.0),
    lambda m: m.zeros(2, 1, 1).as_strided((2, 1, 1), (1, 2, 2)) * 2,
    lambda m: _doubled(m.zeros(2, 1, 1).as_strided((2, 1, 1), (1, 2, 2))),
    lambda m: m.zeros(2, 1, 3).as_strided((2, 1, 3), (3, 7, 1)) * 2,
    lambda m: m.zeros(2, 1, 3).as_strided((2, 1, 3), (3, 7, 1)).exp(),
])
def test_size_one_dims_strides_order_the_result(call):
    """NumPy's C-contiguity ignores size-1 dims; torch's TensorIterator orders the result's
    dims by their strides (unless every operand has one shape and is contiguous)."""
    _same(call)


# --- the third long fuzz run (seed 3232, 250 examples per op) --------------------------------
@pytest.mark.parametrize("call", [
    lambda m: m.bincount(m.zeros(0, dtype=m.uint8), m.zeros(0, 0)),
    lambda m: m.bincount(m.zeros(0, dtype=m.uint8), m.zeros(0, dtype=m.float64), minlength=3),
    lambda m: m.bincount(m.zeros(0, dtype=m.int64), m.ones(5)),
    lambda m: m.bincount(m.zeros(0, dtype=m.int64), minlength=-1),
    lambda m: m.bincount(m.zeros(0, dtype=m.float32)),
    lambda m: m.bincount(m.zeros(0, 2, dtype=m.uint8)),
    lambda m: m.bincount(m.tensor([1, 3]), m.tensor([0.5, 2.0], dtype=m.float32)),
])
def test_bincount_of_empty_input(call):
    """An empty 1-d input is zeros(minlength) of int64 in torch, whatever the weights."""
    _same(call)


@pytest.mark.parametrize("call", [
    lambda m: m.cov(m.tensor(9, dtype=m.uint8), aweights=m.tensor([2.875], dtype=m.float16)),
    lambda m: m.cov(m.tensor([[5.0], [3.0]]), aweights=m.tensor([1.0])),
    lambda m: m.cov(m.tensor([[5], [3]]), fweights=m.tensor([2])),
    lambda m: m.cov(m.tensor([[5, 1], [3, 2]]), fweights=m.tensor([2, 1]),
                    aweights=m.tensor([0.5, 1.0])),
    lambda m: m.cov(m.tensor([1.0, 2.0, 3.0]), aweights=m.tensor([float("nan"), 1.0, 1.0])),
    lambda m: m.cov(m.tensor([True, False])),
    lambda m: m.cov(m.tensor([1, 2, 4]), correction=3),
])
@pytest.mark.filterwarnings("ignore:cov")
def test_cov_corner_cases(call):
    """torch's one-observation and degrees-of-freedom corner cases, its NaN-weight and bool
    refusals; ember never zeroes the input in place as torch's one-observation case does."""
    _same(call)


def test_cov_complex_keeps_the_imaginary_part():
    x = [[1 + 2j, 3 - 1j, 0.5j], [2, 1j, -1]]
    np.testing.assert_allclose(ember.cov(ember.tensor(x)).numpy(),
                               torch.cov(torch.tensor(x)).numpy(), rtol=1e-6, atol=1e-6)


def test_cov_leaves_its_input_alone():
    x = ember.tensor([[5.0], [3.0]])
    ember.cov(x, aweights=ember.tensor([1.0]))
    assert x.tolist() == [[5.0], [3.0]]


@pytest.mark.parametrize("self_dtype,value", [
    ("uint8", lambda m: m.tensor(300)), ("uint8", lambda m: m.tensor(float("nan"), dtype=m.float16)),
    ("int8", lambda m: m.tensor(-129)), ("float16", lambda m: m.tensor(1e10)),
    ("int32", lambda m: m.tensor(1e20, dtype=m.float64)), ("uint8", lambda m: m.tensor(-1)),
    ("bool", lambda m: m.tensor(2)), ("float32", lambda m: m.tensor(2.5, dtype=m.float64)),
])
@pytest.mark.parametrize("n", [0, 3])
def test_masked_fill_checks_a_tensor_value(self_dtype, value, n):
    """A 0-d tensor value takes the Scalar's checked conversion, on empty tensors too."""
    x = lambda m: m.zeros(n, dtype=getattr(m, self_dtype))
    mask = lambda m: m.ones(n, dtype=m.bool)
    _same(lambda m: x(m).masked_fill(mask(m), value(m)))
    _same(lambda m: x(m).masked_fill_(mask(m), value(m)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("n", [0, 3])
@pytest.mark.parametrize("call", [
    lambda m, x: m.ops.aten.softplus(x, 1e39), lambda m, x: m.ops.aten.softplus(x, 1, 1e39),
    lambda m, x: m.ops.aten.softplus_backward(x, x, 1e39, 20),
    lambda m, x: m.ops.aten.elu(x, 1e39), lambda m, x: m.ops.aten.elu(x, 1, 1e39),
    lambda m, x: m.ops.aten.elu(x, 1, 1, 1e39), lambda m, x: m.ops.aten.elu_(x.clone(), 1e39),
    lambda m, x: m.ops.aten.elu_backward(x, 1e39, 1, 1, False, x),
    lambda m, x: m.ops.aten.logit(x, 1e39), lambda m, x: m.ops.aten.logit(x, 70000.0),
    lambda m, x: m.ops.aten.softplus(x, 70000.0), lambda m, x: m.ops.aten.elu(x, 70000.0),
])
def test_float_kernel_scalars_are_checked(call, dtype, n):
    """softplus/elu convert their Scalars to the opmath type, logit its eps to the dtype,
    with torch's overflow check, which holds for empty inputs too."""
    _same(lambda m: call(m, m.linspace(-2, 2, n, dtype=getattr(m, dtype))))


@pytest.mark.parametrize("params", [(float("nan"),), (1.0, float("nan")), (1.0, 1.0, float("nan")),
                                    (1.0,)])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_elu_of_zero_is_zero(params, dtype):
    """torch's elu takes x * scale at x = 0 (so 0 and -0 stay, even for a NaN alpha)."""
    _same(lambda m: m.ops.aten.elu(m.tensor([0.0, -0.0, 5.0, -1.0], dtype=getattr(m, dtype)),
                                   *params))


@pytest.mark.parametrize("op", ["mul_", "multiply_"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "int8"])
@pytest.mark.parametrize("value", [70000, 1e-8, 2.5, 3, True, 2**62])
def test_mul_scalar_overload_rounds_the_number(op, dtype, value):
    """aten.mul_.Scalar rounds the number to a half self's dtype first (torch's CPU kernel
    passes it as the first operand); the method, mul_.Tensor, computes in float32."""
    x = lambda m: m.tensor([0.4363, -1.0]).to(getattr(m, dtype))
    _same(lambda m: getattr(m.ops.aten, op).Scalar(x(m), value))
    _same(lambda m: getattr(x(m), op)(value))


def test_lgamma_near_its_zeros():
    """glibc's lgamma, within 3 ulp of the exact value like torch's; scipy's gammaln was up
    to 10^5 ulp off near the zeros at 1 and 2 (lgamma(1.00192743) 8 digits off)."""
    rng = np.random.default_rng(0)
    a = np.concatenate([1 + rng.uniform(-0.01, 0.01, 2000), 2 + rng.uniform(-0.01, 0.01, 2000),
                        -2.4806 + rng.uniform(-1e-3, 1e-3, 500), rng.uniform(-20, 20, 2000),
                        [0.0, -0.0, -1.0, np.inf, -np.inf, np.nan, 1e308]])
    e = ember.lgamma(ember.tensor(a)).numpy()
    t = torch.lgamma(torch.from_numpy(a)).numpy()
    finite = np.isfinite(t)
    np.testing.assert_array_equal(np.isfinite(e), finite)
    np.testing.assert_array_equal(e[~finite], t[~finite])
    ulps = np.abs(e - t)[finite] / np.spacing(np.abs(t[finite]))
    assert ulps.max() <= 16, ulps.max()
