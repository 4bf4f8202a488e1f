"""mm, bmm, addmm, matmul and linear against torch: values, dtypes, shapes, strides for
many shapes (empty, broadcast batches, every rank combination, non-contiguous inputs) and
dtypes; Meta layouts; torch's errors."""
from functools import partial

import numpy as np
import pytest
from helpers import NUMERIC, layout_pair, meta_of, pair, raises_like
from helpers import check as _check
from hypothesis import given, settings
from hypothesis import strategies as st

import ember

torch = pytest.importorskip("torch")

TOLS = {"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 1e-1), "float32": (1e-5, 1e-4),
        "float64": (1e-12, 1e-12)}
check = partial(_check, tols=TOLS)


# --- helpers -------------------------------------------------------------------------------
def inputs(shape, name="float32", transposed=False, seed=0):
    """(ember, torch), integers in [-5, 5); `transposed` swaps the last two dims in memory."""
    layout = "mT" if transposed and len(shape) >= 2 else "contiguous"
    return layout_pair(shape, name, layout, seed, ints=(-5, 5))


# --- mm / bmm ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NUMERIC)
@pytest.mark.parametrize("n,k,p", [(2, 3, 4), (1, 1, 1), (5, 0, 3), (0, 3, 2), (3, 4, 0)])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_mm(name, n, k, p, ta, tb):
    a_e, a_t = inputs((n, k), name, ta, seed=1)
    b_e, b_t = inputs((k, p), name, tb, seed=2)
    check(a_e.mm(b_e), a_t.mm(b_t))
    check(ember.mm(a_e, b_e), torch.mm(a_t, b_t))


@pytest.mark.parametrize("name", NUMERIC)
@pytest.mark.parametrize("b,n,k,p", [(2, 3, 4, 5), (1, 1, 1, 1), (0, 2, 3, 4), (3, 2, 0, 2)])
@pytest.mark.parametrize("transposed", [False, True])
def test_bmm(name, b, n, k, p, transposed):
    a_e, a_t = inputs((b, n, k), name, transposed, seed=1)
    b_e, b_t = inputs((b, k, p), name, not transposed, seed=2)
    check(a_e.bmm(b_e), a_t.bmm(b_t))


def test_bmm_batch_permuted_result_is_contiguous():
    a_e, a_t = inputs((3, 2, 4), "float32")
    b_e, b_t = inputs((2, 4, 5), "float32")
    r = a_e.permute(1, 0, 2).bmm(b_e)
    check(r, a_t.permute(1, 0, 2).bmm(b_t))
    assert r.is_contiguous()


def test_integer_overflow_wraps_like_torch():
    a_e, a_t = pair(np.full((2, 8), 100, np.uint8))
    b_e, b_t = pair(np.full((8, 2), 3, np.uint8))
    check(a_e.mm(b_e), a_t.mm(b_t))


def test_mm_bmm_errors():
    a_e, a_t = inputs((2, 3))
    raises_like(lambda: a_e.mm(inputs((4, 5))[0]), lambda: a_t.mm(inputs((4, 5))[1]),
                "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")
    d_e, d_t = inputs((3, 5), "float64")
    raises_like(lambda: a_e.mm(d_e), lambda: a_t.mm(d_t),
                "expected m1 and m2 to have the same dtype, but got: float != double")
    h_e, h_t = inputs((2, 3), "float16")
    raises_like(lambda: h_e.mm(d_e), lambda: h_t.mm(d_t), "c10::Half != double")
    raises_like(lambda: inputs((3,))[0].mm(d_e), lambda: inputs((3,))[1].mm(d_t),
                "self must be a matrix")
    raises_like(lambda: a_e.mm(inputs((3,))[0]), lambda: a_t.mm(inputs((3,))[1]),
                "mat2 must be a matrix")
    b_e, b_t = inputs((2, 3), "bool")
    c_e, c_t = inputs((3, 2), "bool")
    raises_like(lambda: b_e.mm(c_e), lambda: b_t.mm(c_t),
                "\"addmm_impl_cpu_\" not implemented for 'Bool'")
    x_e, x_t = inputs((2, 2, 3))
    raises_like(lambda: x_e.bmm(inputs((3, 3, 4))[0]), lambda: x_t.bmm(inputs((3, 3, 4))[1]),
                "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: "
                "[3, 3].")
    raises_like(lambda: x_e.bmm(inputs((2, 4, 4))[0]), lambda: x_t.bmm(inputs((2, 4, 4))[1]),
                "[2, 3] but got: [2, 4]")
    raises_like(lambda: a_e.bmm(x_e), lambda: a_t.bmm(x_t), "batch1 must be a 3D tensor")
    raises_like(lambda: x_e.bmm(a_e), lambda: x_t.bmm(a_t), "batch2 must be a 3D tensor")
    y_e, y_t = inputs((2, 3, 4), "float64")
    raises_like(lambda: x_e.bmm(y_e), lambda: x_t.bmm(y_t),
                "expected scalar type Float but found Double")
    z_e, z_t = inputs((2, 2, 3), "bool")
    w_e, w_t = inputs((2, 3, 2), "bool")
    raises_like(lambda: z_e.bmm(w_e), lambda: z_t.bmm(w_t), "\"bmm\" not implemented for 'Bool'")


# --- addmm ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NUMERIC)
@pytest.mark.parametrize("self_shape", [(4,), (2, 4), (2, 1), (1, 4), (), (1,)])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2), (0, 1), (2, 0), (1.5, -1.5)])
def test_addmm(name, self_shape, beta, alpha):
    if name == "uint8" and alpha < 0:
        alpha = -2  # an integer wraps (a float would overflow)
    s_e, s_t = inputs(self_shape, name, seed=3)
    a_e, a_t = inputs((2, 3), name, seed=1)
    b_e, b_t = inputs((3, 4), name, True, seed=2)
    check(ember.addmm(s_e, a_e, b_e, beta=beta, alpha=alpha),
          torch.addmm(s_t, a_t, b_t, beta=beta, alpha=alpha))
    check(s_e.addmm(a_e, b_e), s_t.addmm(a_t, b_t))


def test_addmm_transposed_self_and_empty_inner():
    s_e, s_t = inputs((2, 4), "float32", True)
    a_e, a_t = inputs((2, 0))
    b_e, b_t = inputs((0, 4))
    check(ember.addmm(s_e, a_e, b_e, beta=2), torch.addmm(s_t, a_t, b_t, beta=2))


def test_addmm_beta_zero_ignores_nan_and_alpha_zero_ignores_product():
    s_e, s_t = pair(np.array([np.nan], np.float32))
    a_e, a_t = inputs((2, 3))
    b_e, b_t = inputs((3, 4))
    r = ember.addmm(s_e, a_e, b_e, beta=0)
    check(r, torch.addmm(s_t, a_t, b_t, beta=0))
    assert not np.isnan(r.numpy()).any()
    s_e, s_t = pair(np.array([1.0], np.float32))
    i_e, i_t = pair(np.array([[np.inf, np.nan]], np.float32))
    o_e, o_t = pair(np.ones((2, 1), np.float32))
    check(ember.addmm(s_e, i_e, o_e, alpha=0), torch.addmm(s_t, i_t, o_t, alpha=0))


def test_addmm_integer_scalars_truncate():
    s_e, s_t = inputs((4,), "int64")
    a_e, a_t = inputs((2, 3), "int64")
    b_e, b_t = inputs((3, 4), "int64")
    check(ember.addmm(s_e, a_e, b_e, beta=2.5, alpha=1.5),
          torch.addmm(s_t, a_t, b_t, beta=2.5, alpha=1.5))
    check(ember.addmm(s_e, a_e, b_e, beta=-3, alpha=ember.tensor(2)),
          torch.addmm(s_t, a_t, b_t, beta=-3, alpha=torch.tensor(2)))


@pytest.mark.parametrize("name,alpha", [("uint8", -1.0), ("uint8", -256), ("uint8", 255.5), ("int8", 200),
                                        ("int32", 2**40), ("float32", 1e300),
                                        ("bfloat16", 1e300)])
def test_addmm_scalar_overflow(name, alpha):
    s_e, s_t = inputs((2,), name)
    a_e, a_t = inputs((2, 2), name)
    raises_like(lambda: ember.addmm(s_e, a_e, a_e, alpha=alpha),
                lambda: torch.addmm(s_t, a_t, a_t, alpha=alpha), "without overflow")


def test_addmm_errors():
    a_e, a_t = inputs((2, 3))
    b_e, b_t = inputs((3, 4))
    s_e, s_t = inputs((5,))
    raises_like(lambda: ember.addmm(s_e, a_e, b_e), lambda: torch.addmm(s_t, a_t, b_t),
                "The expanded size of the tensor (4) must match the existing size (5) at "
                "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [5]")
    s3_e, s3_t = inputs((2, 1, 4))
    raises_like(lambda: ember.addmm(s3_e, a_e, b_e), lambda: torch.addmm(s3_t, a_t, b_t),
                "must be greater or equal to the number of dimensions in the tensor (3)")
    d_e, d_t = inputs((4,), "float64")
    raises_like(lambda: ember.addmm(d_e, a_e, b_e), lambda: torch.addmm(d_t, a_t, b_t),
                "self and mat2 must have the same dtype, but got Double and Float")
    m_e, m_t = inputs((2, 3), "float64")
    raises_like(lambda: ember.addmm(inputs((4,))[0], m_e, b_e),
                lambda: torch.addmm(inputs((4,))[1], m_t, b_t),
                "mat1 and mat2 must have the same dtype, but got Double and Float")
    raises_like(lambda: ember.addmm(inputs((4,))[0], a_e, inputs((4, 4))[0]),
                lambda: torch.addmm(inputs((4,))[1], a_t, inputs((4, 4))[1]),
                "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)")
    raises_like(lambda: ember.addmm(inputs((4,))[0], inputs((3,))[0], b_e),
                lambda: torch.addmm(inputs((4,))[1], inputs((3,))[1], b_t),
                "mat1 must be a matrix, got 1-D tensor")
    bs = [inputs(s, "bool") for s in ((4,), (2, 3), (3, 4))]
    raises_like(lambda: ember.addmm(*[x[0] for x in bs]), lambda: torch.addmm(*[x[1] for x in bs]),
                "\"addmm_impl_cpu_\" not implemented for 'Bool'")


# --- matmul --------------------------------------------------------------------------------
MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
    ((5, 2, 3), (3,)), ((5, 2, 3), (3, 4)), ((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)), ((5, 2, 3), (1, 3, 4)), ((2, 1, 2, 3), (5, 3, 4)),
    ((4, 1, 2, 3), (1, 5, 3, 2)), ((0, 2, 3), (3, 4)), ((2, 0, 3), (3,)), ((0,), (0,)),
    ((2, 3, 0), (0, 4)), ((1, 2, 3), (3,)), ((3,), (2, 2, 3, 1)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
@pytest.mark.parametrize("name", ["int64", "float16", "float32", "float64"])
def test_matmul_shapes(sa, sb, name):
    a_e, a_t = inputs(sa, name, seed=1)
    b_e, b_t = inputs(sb, name, seed=2)
    check(ember.matmul(a_e, b_e), torch.matmul(a_t, b_t))
    check(a_e.matmul(b_e), a_t.matmul(b_t))


@pytest.mark.parametrize("sa,sb", [s for s in MATMUL_SHAPES if len(s[0]) >= 2 or len(s[1]) >= 2])
def test_matmul_noncontiguous(sa, sb):
    a_e, a_t = inputs(sa, "float32", True, seed=1)
    b_e, b_t = inputs(sb, "float32", True, seed=2)
    check(ember.matmul(a_e, b_e), torch.matmul(a_t, b_t))


def test_matmul_batched_broadcast_of_expanded_input():
    a_e, a_t = inputs((1, 2, 3))
    b_e, b_t = inputs((4, 3, 2))
    check(ember.matmul(a_e.expand(4, 2, 3), b_e), torch.matmul(a_t.expand(4, 2, 3), b_t))


def test_matmul_errors():
    def both(shape, name="float32"):
        return inputs(shape, name)
    cases = [
        ((), (3,), "float32", "float32",
         "both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
        ((3,), (4,), "float32", "float32",
         ("inconsistent tensor size, expected tensor [3] and src [4] to have the same number "
          "of elements, but got 3 and 4 elements respectively")),
        ((3,), (3,), "float32", "float64",
         "dot : expected both vectors to have same dtype, but found Float and Double"),
        ((2, 3), (4,), "float32", "float32", "size mismatch, got input (2), mat (2x3), vec (4)"),
        ((2, 3), (3,), "float32", "float64",
         "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
        ((4,), (2, 3), "float32", "float32",
         "mat1 and mat2 shapes cannot be multiplied (1x4 and 2x3)"),
        ((2, 2, 3), (4, 5), "float32", "float32", "mat1 and mat2 shapes cannot be multiplied"),
        ((2, 2, 3), (4,), "float32", "float32", "size mismatch, got input (4), mat (4x3), vec (4)"),
        ((2, 2, 3), (3, 3, 4), "float32", "float32",
         "must match the size of tensor b (3) at non-singleton dimension 0"),
        ((4,), (2, 3, 5), "float32", "float32", "Expected size for first two dimensions of batch2"),
        ((3,), (3,), "bool", "bool", "\"dot\" not implemented for 'Bool'"),
        ((2, 3), (3,), "bool", "bool", "\"addmv_impl_cpu\" not implemented for 'Bool'"),
    ]
    for sa, sb, da, db, phrase in cases:
        a_e, a_t = both(sa, da)
        b_e, b_t = both(sb, db)
        raises_like(partial(ember.matmul, a_e, b_e), partial(torch.matmul, a_t, b_t), phrase)


# --- linear --------------------------------------------------------------------------------
@pytest.mark.parametrize("in_shape", [(3,), (2, 3), (5, 2, 3), (4, 5, 2, 3), (0, 3)])
@pytest.mark.parametrize("bias", [None, (4,), ()])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("name", ["float32", "float64", "bfloat16"])
def test_linear(in_shape, bias, transposed, name):
    x_e, x_t = inputs(in_shape, name, transposed, seed=1)
    w_e, w_t = inputs((4, 3), name, seed=2)
    if bias is None:
        b_e = b_t = None
    else:
        b_e, b_t = inputs(bias, name, seed=3)
    check(ember.linear(x_e, w_e, b_e), torch.nn.functional.linear(x_t, w_t, b_t))


def test_linear_vector_weight_and_errors():
    x_e, x_t = inputs((2, 3))
    w_e, w_t = inputs((3,))
    check(ember.linear(x_e, w_e), torch.nn.functional.linear(x_t, w_t))
    w3_e, w3_t = inputs((4, 3, 2))
    raises_like(lambda: ember.linear(x_e, w3_e), lambda: torch.nn.functional.linear(x_t, w3_t),
                "t() expects a tensor with <= 2 dimensions, but self is 3D")
    raises_like(lambda: ember.linear(x_e, inputs((4, 5))[0]),
                lambda: torch.nn.functional.linear(x_t, inputs((4, 5))[1]),
                "mat1 and mat2 shapes cannot be multiplied (2x3 and 5x4)")


# --- Meta ----------------------------------------------------------------------------------
def _meta_check(fn, *tensors, **kw):
    c = fn(*tensors, **kw)
    m = fn(*[None if x is None else meta_of(x) for x in tensors], **kw)
    assert m.device.type == "meta"
    assert (m.shape, m.dtype, m.stride()) == (c.shape, c.dtype, c.stride())


@pytest.mark.parametrize("name", ["int32", "float16", "float32"])
def test_meta_matches_cpu(name):
    _meta_check(ember.mm, inputs((2, 3), name)[0], inputs((3, 4), name, True)[0])
    _meta_check(ember.bmm, inputs((2, 2, 3), name)[0], inputs((2, 3, 4), name)[0])
    _meta_check(ember.addmm, inputs((4,), name)[0], inputs((2, 3), name)[0],
                inputs((3, 4), name)[0], beta=2)
    for sa, sb in MATMUL_SHAPES:
        _meta_check(ember.matmul, inputs(sa, name)[0], inputs(sb, name)[0])
    _meta_check(ember.linear, inputs((5, 2, 3), name)[0], inputs((4, 3), name)[0],
                inputs((4,), name)[0])


def test_meta_errors_and_bool():
    m = ember.empty(2, 3, device="meta")
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        m.mm(ember.empty(4, 5, device="meta"))
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        m.bmm(ember.empty(2, 3, 4, device="meta"))
    b = ember.empty(2, 3, dtype=ember.bool, device="meta")  # torch's Meta kernel allows bool
    assert b.mm(ember.empty(3, 5, dtype=ember.bool, device="meta")).shape == (2, 5)


# --- property test -------------------------------------------------------------------------
@settings(max_examples=120, deadline=None)
@given(data=st.data(), n=st.integers(0, 3), k=st.integers(0, 3), p=st.integers(0, 3),
       ra=st.integers(1, 4), rb=st.integers(1, 4), name=st.sampled_from(["int64", "float64"]))
def test_random_matmul_matches_torch(data, n, k, p, ra, rb, name):
    batch = data.draw(st.lists(st.integers(1, 3), min_size=2, max_size=2))
    ba = tuple(data.draw(st.sampled_from([1, b])) for b in batch)[len(batch) - max(ra - 2, 0):]
    bb = tuple(data.draw(st.sampled_from([1, b])) for b in batch)[len(batch) - max(rb - 2, 0):]
    sa = ba + ((n,) if ra >= 2 else ()) + (k,)
    sb = bb + (k,) + ((p,) if rb >= 2 else ())
    a_e, a_t = inputs(sa, name, data.draw(st.booleans()), seed=1)
    b_e, b_t = inputs(sb, name, data.draw(st.booleans()), seed=2)
    check(ember.matmul(a_e, b_e), torch.matmul(a_t, b_t))
