"""Regression tests of forward differences the differential fuzzer (test_differential.py)
found or its KNOWN table documents: each builds the call on ember and on torch
(helpers.check_call: the same error type and message, or the same values, dtype, shape
and strides).

    .venv/bin/python -m pytest tests/fuzz/test_regressions.py -q
"""
import math

import numpy as np
import pytest
from helpers import check_call, raises_like

import ember

torch = pytest.importorskip("torch")


def _expanded(M, *sizes, dtype="float32"):
    return M.ones(1, dtype=getattr(M, dtype)).expand(*sizes)


# --------------------------------------------------------------------------- in-place order
@pytest.mark.parametrize("call", [
    # addbmm_: batch shapes and dtypes, self's broadcast
    lambda M: _expanded(M, 2, 3).addbmm_(M.ones(2, 2, 4), M.ones(2, 5, 3)),
    lambda M: _expanded(M, 2, 3).addbmm_(M.ones(2, 2, 4), M.ones(3, 4, 3)),
    lambda M: _expanded(M, 2, 3).addbmm_(M.ones(2, 2), M.ones(2, 4, 3)),
    lambda M: _expanded(M, 2, 3).addbmm_(M.ones(2, 2, 4, dtype=M.float64), M.ones(2, 4, 3)),
    lambda M: _expanded(M, 2, 2).addbmm_(M.ones(2, 2, 4), M.ones(2, 4, 3)),
    lambda M: _expanded(M, 2, 3).addbmm_(M.ones(2, 2, 4), M.ones(2, 4, 3)),   # overlap
    # addmv_, baddbmm_
    lambda M: _expanded(M, 2).addmv_(M.ones(2, 4), M.ones(5)),
    lambda M: _expanded(M, 2).addmv_(M.ones(2, 4), M.ones(4, dtype=M.float64)),
    lambda M: _expanded(M, 2, 2, 2).baddbmm_(M.ones(2, 2, 3), M.ones(2, 4, 2)),
    # put_: index dtype, source dtype and numel
    lambda M: _expanded(M, 2, 3).put_(M.tensor([0.0, 1.0]), M.tensor([1.0, 2.0])),
    lambda M: _expanded(M, 2, 3).put_(M.tensor([0, 1], dtype=M.int32), M.tensor([1.0, 2.0])),
    lambda M: _expanded(M, 2, 3).put_(M.tensor([0, 1]), M.tensor([1.0, 2.0], dtype=M.float64)),
    lambda M: _expanded(M, 2, 3).put_(M.tensor([0, 1]), M.tensor([1.0, 2.0, 3.0])),
    lambda M: _expanded(M, 2, 3).put_(M.tensor([0, 7]), M.tensor([1.0, 2.0])),  # overlap
    # renorm_: p, maxnorm, dims, dim
    lambda M: _expanded(M, 2, 3).renorm_(-1, 0, 1.0),
    lambda M: _expanded(M, 2, 3).renorm_(2, 0, -1.0),
    lambda M: _expanded(M, 3).renorm_(2, 0, 1.0),
    lambda M: _expanded(M, 2, 3).renorm_(2, 5, 1.0),
])
def test_argument_errors_come_before_the_overlap_error(call):
    """addbmm_, addmv_, baddbmm_, put_ and renorm_ are not TensorIterator ops in torch:
    their argument checks run before the in-place overlap check (an expanded self got
    ember's overlap error first: the KNOWN table's former OVERLAP_ORDER)."""
    check_call(call)


@pytest.mark.parametrize("call", [
    lambda M: M.ones(2, 2).baddbmm_(M.ones(2, 2, 3), M.ones(2, 4, 2)),
    lambda M: M.ones(2, 2).baddbmm_(M.ones(2, 2, 3), M.ones(2, 3, 2, dtype=M.float64)),
    lambda M: M.ones(2, 2, 2).baddbmm_(M.ones(2, 2, 3), M.ones(2, 4, 2, dtype=M.float64)),
    lambda M: M.ones(2, 2, 2, dtype=M.float64).baddbmm_(M.ones(2, 2, 3),
                                                        M.ones(2, 3, 2, dtype=M.float64)),
    lambda M: M.ones(2, 2, 3).baddbmm_(M.ones(2, 2, 3), M.ones(2, 3, 2, dtype=M.float64)),
    lambda M: M.ones(2, 2, 2).baddbmm(M.ones(2, 2, 3), M.ones(2, 4, 2, dtype=M.float64)),
    lambda M: M.ones(2, 3).addbmm(M.ones(2, 2, 4), M.ones(2, 5, 3)),
    lambda M: M.ones(2, 3).addbmm(M.ones(2, 2, 4), M.ones(3, 4, 3)),
    lambda M: M.ones(2, 0).put_(M.tensor([0]), M.tensor([1.0])),
    lambda M: M.ones(0).take(M.tensor([0])),
    lambda M: M.ones(2, 0).put_(M.tensor([], dtype=M.int64), M.tensor([])),
])
def test_batched_product_and_take_put_errors(call):
    """torch's order of baddbmm's checks (self's expand, its dtype, batch2's sizes, the
    in-place output's dtype then shape, batch2's dtype), addbmm's own messages, take/put_
    into an empty self."""
    check_call(call)


# --------------------------------------------------------------------------- addmm_
def _bools(M, *shape):
    return M.ones(*shape, dtype=M.bool)


@pytest.mark.parametrize("call", [
    lambda M: M.ones(2, 2).addmm_(M.ones(2, 3), M.ones(3, 2)),
    lambda M: M.arange(6.0).reshape(2, 3).addmm_(M.arange(8.0).reshape(2, 4),
                                                  M.arange(12.0).reshape(4, 3).t().t(),
                                                  beta=0.5, alpha=-2),
    lambda M: M.ones(3, 2).t().addmm_(M.ones(2, 4), M.ones(4, 3)),       # a transposed self
    lambda M: M.ones(4, 4)[::2, 1:3].addmm_(M.ones(2, 3), M.ones(3, 2)),  # a strided view
    lambda M: M.full((2, 2), 3, dtype=M.int64).addmm_(M.ones(2, 3, dtype=M.int64),
                                                      M.ones(3, 2, dtype=M.int64), beta=0.5,
                                                      alpha=2),
    lambda M: M.ones(2, 2, dtype=M.float16).addmm_(M.ones(2, 3, dtype=M.float16),
                                                   M.ones(3, 2, dtype=M.float16), alpha=0.1),
    lambda M: M.tensor([[float("nan"), 1.0], [2.0, 3.0]]).addmm_(M.ones(2, 3), M.ones(3, 2),
                                                                 beta=0),
    lambda M: M.ones(2, 2).addmm_(M.ones(2, 0), M.ones(0, 2), beta=2),
    lambda M: M.ones(1).expand(0, 2).addmm_(M.ones(0, 3), M.ones(3, 2)),
    # errors: torch's structured in-place check (self has the product's shape), dtypes,
    # sizes, factor overflow, bool, and the overlap check after all of them
    lambda M: M.ones(2).addmm_(M.ones(2, 3), M.ones(3, 2)),
    lambda M: M.ones(2, 2, 2).addmm_(M.ones(2, 3), M.ones(3, 2)),
    lambda M: M.ones(2, 2, dtype=M.float64).addmm_(M.ones(2, 3), M.ones(3, 2)),
    lambda M: M.ones(2, 2).addmm_(M.ones(2, 3, dtype=M.float64), M.ones(3, 2)),
    lambda M: M.ones(2, 2).addmm_(M.ones(2, 4), M.ones(3, 2)),
    lambda M: M.ones(2, 2).addmm_(M.ones(3), M.ones(3, 2)),
    lambda M: M.ones(2, 2).addmm_(M.ones(2, 3), M.ones(3, 2), beta=1e39),
    lambda M: M.ones(2, 2, dtype=M.int8).addmm_(M.ones(2, 3, dtype=M.int8),
                                                M.ones(3, 2, dtype=M.int8), beta=300),
    lambda M: _bools(M, 2, 2).addmm_(_bools(M, 2, 3), _bools(M, 3, 2)),
    lambda M: _expanded(M, 2, 2).addmm_(M.ones(2, 3), M.ones(3, 2)),
    lambda M: _expanded(M, 2, 2).addmm_(M.ones(2, 4), M.ones(3, 2)),
    lambda M: _expanded(M, 3).addmm_(M.ones(2, 3), M.ones(3, 2)),
    lambda M: M.ones(2, 2, requires_grad=True).addmm_(M.ones(2, 3), M.ones(3, 2)),
    lambda M: M.ones(3, 3, requires_grad=True)[:2, :2].addmm_(M.ones(2, 3), M.ones(3, 2)),
])
def test_addmm_inplace(call):
    """addmm_ (missing: AttributeError): values, factors, layouts of self, and torch's
    errors in its order."""
    check_call(call)


@pytest.mark.parametrize("call", [
    lambda M: _expanded(M, 2, 2, dtype="bool").addmm_(_bools(M, 2, 3), _bools(M, 3, 2)),
    lambda M: _expanded(M, 2, dtype="bool").addmv_(_bools(M, 2, 3), _bools(M, 3)),
    lambda M: _expanded(M, 2, 2, dtype="bool").addbmm_(_bools(M, 2, 2, 3), _bools(M, 2, 3, 2)),
    lambda M: _expanded(M, 2, 2, 2, dtype="bool").baddbmm_(_bools(M, 2, 2, 3),
                                                           _bools(M, 2, 3, 2)),
    lambda M: _expanded(M, 2, 2, dtype="bool").addr_(_bools(M, 2), _bools(M, 2)),
])
def test_bool_products_refused_before_the_overlap_check(call):
    """torch's BLAS-product kernels refuse bool (their dtype switch) before they check an
    expanded self's overlap (addr_, a TensorIterator op, checks the overlap first)."""
    check_call(call)


# --------------------------------------------------------------------------- scatter_reduce
def _scatter_mean(M, shape, index, **kwargs):
    src = M.ones(index.shape if hasattr(index, "shape") else (), dtype=M.bool)
    return M.ops.aten.scatter_reduce.two(M.zeros(shape, dtype=M.bool), 0, index, src, "mean",
                                         **kwargs)


@pytest.mark.parametrize("call", [
    lambda M: _scatter_mean(M, (0,), M.zeros(0, dtype=M.int64)),
    lambda M: _scatter_mean(M, (3,), M.zeros(0, dtype=M.int64), include_self=False),
    lambda M: _scatter_mean(M, (3,), M.tensor([0, 0])),
    lambda M: _scatter_mean(M, (), M.tensor(0)),
    lambda M: M.zeros(3, dtype=M.bool).scatter_reduce_(0, M.tensor([1]),
                                                       M.ones(1, dtype=M.bool), "mean"),
    lambda M: M.zeros(3, dtype=M.bool).scatter_reduce(0, M.tensor([1]),
                                                      M.ones(1, dtype=M.bool), "amax"),
    lambda M: M.zeros(3, dtype=M.bool).scatter_reduce(0, M.tensor([1, 1]),
                                                      M.ones(2, dtype=M.bool), "sum"),
])
def test_scatter_reduce_mean_refuses_bool(call):
    """torch has no bool scatter mean: 'scatter_gather_tensor_cpu_reduce_mean' refuses it, and
    with no index its count division does ('div_floor_cpu'); ember answered."""
    check_call(call)


# --------------------------------------------------------------------------- expanded selves
@pytest.mark.parametrize("call", [
    # the reduce string is checked after the overlap (and after the index's shape)
    lambda M: _expanded(M, 3).scatter_(0, M.tensor([0]), M.ones(1), reduce="bad"),
    lambda M: _expanded(M, 3).scatter_(0, M.tensor([0]), 2.0, reduce="bad"),
    lambda M: _expanded(M, 3).scatter_(0, M.zeros(0, dtype=M.int64), M.ones(1), reduce="bad"),
    lambda M: _expanded(M, 3).scatter_reduce_(0, M.tensor([0]), M.ones(1), "bad"),
    lambda M: _expanded(M, 3).scatter_(0, M.tensor([[0]]), M.ones(1, 1), reduce="bad"),
    lambda M: M.zeros(3).scatter_(0, M.tensor([[0]]), M.ones(1, 1), reduce="bad"),
    lambda M: M.zeros(3).scatter_reduce(0, M.tensor([[0]]), M.ones(1, 1), "bad"),
    lambda M: M.zeros(3).scatter_reduce(0, M.tensor([0.0]), M.ones(1), "bad"),
    lambda M: M.zeros(3).scatter_reduce(0, M.zeros(0, dtype=M.int64), M.ones(1), "bad"),
    lambda M: M.zeros(3).scatter(0, M.zeros(0, dtype=M.int64), 1.0, reduce="bad"),
    # index_fill_ (both overloads), index_put_, masked_fill_ write an expanded self (with a
    # deprecation warning); their own checks still raise
    lambda M: _expanded(M, 3).index_fill_(0, M.tensor([0]), M.tensor(1.0)),
    lambda M: _expanded(M, 2, 3).index_fill_(1, M.tensor([0, 2]), 1.0),
    lambda M: _expanded(M, 3).index_fill_(0, M.tensor([5]), 1.0),
    lambda M: _expanded(M, 3).index_fill_(0, M.tensor([0]), M.tensor([1.0])),
    lambda M: _expanded(M, 3).index_fill_(0, M.tensor([0]), 1j),
    lambda M: M.zeros(3).index_fill_(0, M.tensor([0.0]), M.tensor([1.0])),
    lambda M: _expanded(M, 3).index_put_((M.tensor([0]),), M.ones(1), accumulate=True),
    lambda M: _expanded(M, 3).masked_fill_(M.tensor([True, False, False]), M.tensor(2.0)),
    lambda M: _expanded(M, 2, 2).fill_diagonal_(3.0),
    # triu_/tril_ write in place up to 3 dims or over a contiguous batch (zeros only), else
    # copy back (the overlap check); nan_to_num_ of integers is a no-op
    lambda M: _expanded(M, 2, 2).triu_(1),
    lambda M: M.full((1, 1), 9, dtype=M.uint8).expand(1, 2).triu_(1),
    lambda M: _expanded(M, 2, 1, 2, 2).tril_(-1),
    lambda M: _expanded(M, 1, 1, 2, 1).tril_(),
    lambda M: _expanded(M, 3, dtype="int64").nan_to_num_(),
    lambda M: _expanded(M, 3).nan_to_num_(),
    # addr_: vectors and self's shape before the overlap; casts and factors after it
    lambda M: _expanded(M, 2, 2).addr_(M.ones(3), M.ones(2)),
    lambda M: _expanded(M, 2, 2).addr_(M.ones(2, 1), M.ones(2)),
    lambda M: _expanded(M, 2, 1).addr_(M.ones(2), M.ones(2)),
    lambda M: _expanded(M, 2, 2, dtype="int64").addr_(M.ones(2), M.ones(2)),
    lambda M: _expanded(M, 2, 2).addr_(M.ones(2), M.ones(2), beta=True),
    lambda M: M.zeros(2, 1).addr_(M.ones(2), M.ones(2)),
    lambda M: M.zeros(3).addr_(M.ones(2), M.ones(2)),
    # index_copy_: the index count after the overlap
    lambda M: _expanded(M, 2).index_copy_(0, M.zeros(0, dtype=M.int64), M.ones(2)),
    lambda M: M.zeros(2).index_copy_(0, M.zeros(0, dtype=M.int64), M.ones(2)),
])
def test_expanded_inplace_targets_follow_torch(call):
    """torch checks an in-place self's internal overlap in TensorIterator and in some meta
    functions; masked_fill_, index_fill_ and index_put_ skip it (and warn), triu_/tril_
    skip it when they write in place, fill_diagonal_ fills a view; the checks made before
    and after it follow torch's order."""
    check_call(call)


def test_expanded_index_fill_warns_like_torch():
    for M in (ember, torch):
        with pytest.warns(UserWarning, match="Use of index_fill_ on expanded tensors is "
                                             "deprecated"):
            _expanded(M, 3).index_fill_(0, M.tensor([1]), 2.0)


# --------------------------------------------------------------------------- seed 3501
@pytest.mark.parametrize("call", [
    lambda M: M.nn.functional.glu(M.zeros(0, dtype=M.bool), 1),
    lambda M: M.nn.functional.glu(M.zeros(3, dtype=M.bool), 0),
    lambda M: M.nn.functional.glu(M.zeros(2, dtype=M.bool), 0),
    lambda M: M.histc(M.tensor([], dtype=M.float16), 1, 0, 70000),
    lambda M: M.histc(M.tensor([1.0], dtype=M.float16), 1, -70000, 1),
    lambda M: M.histc(M.tensor([], dtype=M.bfloat16), 1, 0, 1e39),
    lambda M: M.histc(M.tensor([1.0], dtype=M.float16), 1, 70000, 70000),
])
def test_fuzz_seed_3501_findings(call):
    """glu checks its dim and halving before refusing bool (torch's meta checks, then its
    kernel's dtype); histc converts a given range to self's dtype (float16's 70000
    overflows), empty self too, after the range checks."""
    check_call(call)


# --------------------------------------------------------------------------- seed 3601
_X = [-1.5, 2.0]


@pytest.mark.parametrize("call", [
    # a complex Scalar where torch reads a double: its imaginary part must be 0
    lambda M: M.nn.functional.celu(M.tensor(_X), 1 - 1j),
    lambda M: M.nn.functional.celu(M.tensor(_X), 2 + 0j),
    lambda M: M.nn.functional.elu(M.tensor(_X), 1.5 + 0j),
    lambda M: M.nn.functional.elu(M.tensor(_X), 1.5 + 1j),
    lambda M: M.nn.functional.softshrink(M.tensor(_X), 1 - 1j),
    lambda M: M.nn.functional.softshrink(M.tensor(_X), 0.5 + 0j),
    lambda M: M.threshold(M.tensor(_X), 0j, 1 + 1j),
    lambda M: M.threshold(M.tensor(_X), 0j, 1 + 0j),
    lambda M: M.nn.functional.leaky_relu(M.tensor(_X), 0.5 + 0j),
    lambda M: M.nn.functional.softplus(M.tensor(_X), 2 + 0j, 3 + 1j),
    lambda M: M.var(M.tensor(_X), correction=1 + 1j),
    lambda M: M.std(M.tensor(_X), correction=1 + 0j),
    lambda M: M.histc(M.tensor(_X), 4, 1 + 2j, 3),
    lambda M: M.histc(M.tensor(_X), 4, -2 + 0j, 3),
    # renorm's own refusals; complex64 range; float16 with a complex number (complex32)
    lambda M: M.renorm(M.tensor([_X]), 2, 0, 1.5 + 0j),
    lambda M: M.renorm(M.tensor([_X]), 2 + 0j, 0, 1.5),
    lambda M: M.where(M.tensor([True, False]), 1e5, 1e39 + 1j),
    lambda M: M.full((2,), 1e39 + 1j, dtype=M.complex64),
])
def test_fuzz_seed_3601_findings(call):
    """Complex Scalars (the fuzzers' new draws): where torch reads a real parameter
    (Scalar.toDouble()) ember raised a Python TypeError from float(complex) or refused the
    real tensor at the Complex key; where and full did not check complex64's range; a
    float16 tensor with a complex number raised TypeError (torch: complex32 refusals)."""
    check_call(call)


def test_float16_with_a_complex_number_raises_like_torch():
    """torch computes in complex32, then refuses (NotImplementedError for its kernels,
    RuntimeError for conversions); ember, which has no complex32, raises
    NotImplementedError (a RuntimeError), not TypeError."""
    for call in (lambda M: M.div(M.tensor(_X, dtype=M.float16), 1j, rounding_mode="floor"),
                 lambda M: M.threshold(M.tensor(_X, dtype=M.float16), 0.0, 1e39 + 1j)):
        raises_like(lambda c=call: c(ember), lambda c=call: c(torch))


@pytest.mark.parametrize("call", [
    lambda M: M.clamp(M.tensor(_X, dtype=M.float16), 0j, 0j),
    lambda M: M.clamp(M.tensor(_X), 0.5 + 0j),
    lambda M: M.clamp(M.tensor(_X), None, complex(math.nan, 0)),
    lambda M: M.clip(M.tensor(_X), -1 + 0j, 1.5),
    lambda M: M.tensor(_X).clamp_(0.5 + 0j),
    lambda M: M.tensor(_X).expand(2, 2).clip_(0.5 + 0j, 1),   # (then the overlap error)
    lambda M: M.clamp(M.tensor(_X), 1j),                       # "... type double ..."
    lambda M: M.tensor(_X).clamp_(None, 2 - 1j),
    lambda M: M.clamp(M.tensor([1, 2]), 0.5 + 0j),             # promotes: complex refused
    lambda M: M.tensor([1, 2]).clamp_(0.5 + 0j),               # the in-place cast first
    lambda M: M.clamp_min(M.tensor(_X), 0.5 + 0j),             # always refused
    # Tensor bounds: a complex self refused, then (in place) overlap and cast, then the kernel
    lambda M: M.clamp(M.tensor(_X), M.tensor(1j)),
    lambda M: M.clamp(M.tensor(_X), None, M.tensor(1j)),
    lambda M: M.tensor(_X).clamp_(M.tensor(1j)),
    lambda M: M.tensor(_X).expand(2, 2).clamp_(M.tensor(1j)),
    lambda M: M.tensor([1j, 2]).expand(2, 2).clamp_(M.tensor(1.0)),
])
def test_complex_bounds_of_clamp(call):
    """torch promotes clamp's Scalar bounds with a non-floating self only: a floating self
    keeps its dtype and reads a complex bound as a double (0j clamps, 1j raises the
    conversion error), where ember refused every complex bound (the former COMPLEX_BOUNDS
    of fuzz_support)."""
    check_call(call)


# --------------------------------------------------------------------------- factors
@pytest.mark.parametrize("beta, alpha", [(0.5, 1), (1, 0.5), (2.5, 1.5), (-0.5, 1), (True, 1),
                                         (float("nan"), 1), (1e30, 1), (1 + 1j, 1)])
@pytest.mark.parametrize("op", ["addbmm", "addmv", "addmm", "baddbmm", "addr"])
def test_integral_products_read_float_factors_like_torch(op, beta, alpha):
    """addbmm and addmv convert float beta/alpha to the integral type (0.5 -> 0, 2.5 -> 2;
    NaN or 1e30 overflow), as addmm does (ember refused them: addr's check); addr refuses
    float and bool factors for integral results."""
    def call(M):
        s = {"addbmm": (2, 3), "addmv": (2,), "addmm": (2, 3), "baddbmm": (2, 2, 3),
             "addr": (2, 2)}[op]
        a, b = {"addbmm": ((2, 2, 4), (2, 4, 3)), "addmv": ((2, 4), (4,)),
                "addmm": ((2, 4), (4, 3)), "baddbmm": ((2, 2, 4), (2, 4, 3)),
                "addr": ((2,), (2,))}[op]
        ints = {"dtype": M.int64}
        return getattr(M.full(s, 3, **ints), op)(M.ones(a, **ints) * 2, M.ones(b, **ints),
                                                 beta=beta, alpha=alpha)
    check_call(call)


@pytest.mark.parametrize("call", [
    lambda M: M.full((2,), 3, dtype=M.int8).addmv(M.ones(2, 4, dtype=M.int8),
                                                  M.ones(4, dtype=M.int8), beta=300),
    lambda M: M.full((2,), 3, dtype=M.float16).addmv(M.ones(2, 4, dtype=M.float16),
                                                     M.ones(4, dtype=M.float16), beta=70000),
    lambda M: M.full((2, 3), 3, dtype=M.float16).addbmm(M.ones(2, 2, 4, dtype=M.float16),
                                                        M.ones(2, 4, 3, dtype=M.float16),
                                                        beta=70000),
    lambda M: M.full((2, 2), 3, dtype=M.int8).addr(M.ones(2, dtype=M.int8),
                                                   M.ones(2, dtype=M.int8), beta=300),
    lambda M: M.ones(2, 2).addr(M.ones(2), M.ones(2), alpha=True),
    lambda M: M.ones(2, 2, dtype=M.bool).addr(M.ones(2, dtype=M.bool), M.ones(2, dtype=M.bool),
                                              beta=2),
])
def test_factor_conversion_overflow(call):
    """The checked conversion of the factors to the type torch reads them in: the
    result's for addmv and addr (int8 300, float16 70000 overflow), the opmath type for
    addbmm (addmm's: float16's 70000 is inf)."""
    check_call(call)


# --------------------------------------------------------------------------- checks
@pytest.mark.parametrize("call", [
    lambda M: M.take_along_dim(M.tensor(5.0), M.tensor(0), 0),
    lambda M: M.take_along_dim(M.tensor(5.0), M.tensor(0), -1),
    lambda M: M.take_along_dim(M.tensor(5.0), M.tensor(0), 5),
    lambda M: M.take_along_dim(M.ones(2, 3), M.tensor([[0]]), 3),
    lambda M: M.take_along_dim(M.ones(2, 3), M.tensor([[0]]), -3),
    lambda M: M.roll(M.ones(0, 3), 1, 5),
    lambda M: M.roll(M.ones(0, 3), [1, 1], [0, 7]),
    lambda M: M.roll(M.ones(0, 3), [1, 2], [0]),
])
def test_dim_checks(call):
    """take_along_dim wraps dim (it answered for a dim out of range; a 0-d self leaked
    'tuple index out of range'); roll of an empty tensor reads no dim (ember checked them)."""
    check_call(call)


@pytest.mark.parametrize("call", [
    lambda M: M.histc(M.tensor(-299008.0, dtype=M.bfloat16)),           # (a NumPy ValueError)
    lambda M: M.histc(M.tensor([-299008.0, -299008.0], dtype=M.bfloat16), 4),
    lambda M: M.histc(M.tensor([65504.0, 65504.0], dtype=M.float16), 4),  # 65505 overflows
    lambda M: M.histc(M.tensor([9], dtype=M.uint8), 1, 256, 256),        # no range to convert
    lambda M: M.histc(M.tensor([9], dtype=M.uint8), 1, 256, 257),
    lambda M: M.tensor([[1.369, -2.303], [-4.59, -4.836]], dtype=M.float16).renorm_(255, 0, 70000),
    lambda M: M.tensor([[1.0], [-float("inf")]], dtype=M.float16).renorm(True, 0, 70000),
    lambda M: M.tensor([[1.369, -2.303], [-4.59, -4.836]], dtype=M.float16).t().renorm(2, 0, 1),
    lambda M: M.tensor([[1.369, -2.303], [-4.59, -4.836]], dtype=M.bfloat16).t().renorm(2, 0, 1),
    lambda M: M.tensor([[1.369, -2.303], [-4.59, -4.836]]).t().renorm(2, 0, 1),
])
def test_histc_and_renorm_edges(call):
    """histc of a range that rounds to one value (bin 0), its widened edges' overflow, a
    uint8 self without a given range (histogram_cpu's refusal); renorm of float16 and
    bfloat16 in float32 with factors rounded to self's dtype, a contiguous result."""
    check_call(call)


@pytest.mark.parametrize("lo, hi, phrase", [(float("inf"), 1, "range of [inf, 1] is not finite"),
                                            (1, float("-inf"), "range of [1, -inf] is not finite"),
                                            (2, 1, "max must be larger than min")])
def test_histc_checks_a_given_range_finite_first(lo, hi, phrase):
    for x in ([], [0.5]):
        raises_like(lambda x=x: ember.histc(ember.tensor(x), 3, lo, hi),
                    lambda x=x: torch.histc(torch.tensor(x), 3, lo, hi), phrase)


# --------------------------------------------------------------------------- documented
# The KNOWN entries kept: real differences the fuzzer's draws seldom reach, shown here.
def _values(call):
    return [np.asarray(call(M).tolist(), dtype=float) for M in (ember, torch)]


def test_known_histogram_edges_are_torchs_vectorized_linspace():
    """LINSPACE: torch's bin edges come from its vectorized linspace, an ulp away from
    start + i * step in some lanes; ember's are the per-element formula's."""
    e, t = _values(lambda M: M.histogram(M.tensor([0.5]), bins=6, range=(-3.3, 7.1)).bin_edges)
    assert not np.array_equal(e, t)
    np.testing.assert_array_max_ulp(e.astype(np.float32), t.astype(np.float32), maxulp=1)


def test_known_igamma_float32_last_digits():
    """CEPHES: torch evaluates igamma/igammac in float32 (a few ulps off), ember in
    float64 rounded once (the closer value)."""
    a, x = [10.0, 1e-3], [9.0, 1.0]
    e, t = _values(lambda M: M.igammac(M.tensor(a), M.tensor(x)))
    exact = np.asarray(torch.igammac(torch.tensor(a, dtype=torch.float64),
                                     torch.tensor(x, dtype=torch.float64)))
    assert not np.array_equal(e, t)
    assert (np.abs(e - exact) <= np.abs(t - exact)).all()


def test_known_zeta_at_infinite_q_and_float32_gelu():
    """TORCH_APPROX: zeta(x, inf) is NaN in torch (its series' 0/0), 0 in ember (the
    limit); float32 gelu takes torch's vectorized erf (gelu(-3) -0.00405023, exact
    -0.00404970) and gives NaN at inf."""
    e, t = _values(lambda M: M.special.zeta(M.tensor([2.0, 3.0]), float("inf")))
    assert np.isnan(t).all() and (e == 0).all()
    e, t = _values(lambda M: M.special.zeta(2.0, M.tensor([float("inf")])))
    assert np.isnan(t).all() and (e == 0).all()
    e, t = _values(lambda M: M.nn.functional.gelu(M.tensor([-3.0, float("inf")])))
    exact = torch.nn.functional.gelu(torch.tensor(-3.0, dtype=torch.float64)).item()
    assert abs(e[0] - exact) < abs(t[0] - exact) and np.isnan(t[1]) and e[1] == np.inf


def test_known_var_mean_of_infinities():
    """VAR: torch's var_mean/std_mean run Welford's update, whose mean is NaN once an
    running mean becomes infinite before another element (inf + (2 - inf) / 2); ember's
    mean is the plain mean (inf)."""
    for op, kwargs in (("var_mean", {"dim": 0}), ("std_mean", {"dim": 0, "correction": 1})):
        (e_var, e_mean), (t_var, t_mean) = (getattr(M, op)(M.tensor([float("inf"), 2.0]), **kwargs)
                                            for M in (ember, torch))
        assert np.isnan(t_mean.item()) and e_mean.item() == np.inf
        assert np.isnan(t_var.item()) and np.isnan(e_var.item())


def test_digamma_near_its_zeros_is_compared_to_one():
    """CANCELLING (fuzz_support): torch's Cephes digamma sums terms of order 1 that cancel
    near the zeros, millions of ulps off there; ember's (scipy's) is closer to the exact
    value, and both are within a few eps of 1, the comparison's floor."""
    mpmath = pytest.importorskip("mpmath")
    x = [1.4616321884772354, -0.5040830059227571, 1.4616287329759023]
    e, t = _values(lambda M: M.digamma(M.tensor(x, dtype=M.float64)))
    exact = np.array([float(mpmath.digamma(mpmath.mpf(v))) for v in x])
    assert (np.abs(e - exact) < np.abs(t - exact)).all()
    assert (np.abs(e - t) < 8 * np.finfo(np.float64).eps).all()
    assert (np.abs(e - t) > 1000 * np.spacing(np.abs(exact))).all()


# --------------------------------------------------------------------------- meta + CPU 0-d
@pytest.mark.parametrize("call", [
    lambda M: M.ones(2, 3, device="meta") + M.tensor(2.0),
    lambda M: M.tensor(2.0) * M.ones(2, 3, device="meta"),
    lambda M: M.where(M.ones(2, 3, device="meta") > 0, M.tensor(1.0),
                      M.ones(2, 3, device="meta")),
    lambda M: M.ones(2, 3, device="meta").add_(M.tensor(1.0)),
    lambda M: M.addcmul(M.ones(2, 3, device="meta"), M.tensor(2.0), M.tensor(3.0)),
    lambda M: M.ones(()) + M.ones((), device="meta"),
    lambda M: M.ones(2, 3, device="meta") * M.tensor([2.0]),      # not 0-d: refused
    lambda M: M.ones(3) + M.ones((), device="meta"),               # a Meta 0-d: refused
])
def test_meta_tensor_with_a_cpu_scalar_tensor(call):
    """torch lets a 0-d CPU tensor join tensors of any device, Meta included (the result is
    on the other device); ember refused it with Meta tensors."""
    try:
        t = call(torch)
    except RuntimeError:
        raises_like(lambda: call(ember), lambda: call(torch), "is not on the expected device")
        return
    e = call(ember)
    assert (tuple(e.shape), str(e.device), e.dtype.name) == \
        (tuple(t.shape), str(t.device), str(t.dtype).removeprefix("torch."))


# --------------------------------------------------------------------------- seed 3603
def _halves(M, dtype="float16", n=20):
    return M.full((n,), 1.0, dtype=getattr(M, dtype))


@pytest.mark.parametrize("call", [
    # float16/bfloat16 mul and div read a one-element divisor as one float from its own
    # dtype (torch's original_scalar_value), not rounded to the reduced type first
    lambda M: M.tensor(math.inf, dtype=M.float16) / M.tensor([-2**31], dtype=M.int32),
    lambda M: _halves(M) / M.tensor([70000]),
    lambda M: _halves(M).div_(M.tensor([70000])),
    lambda M: _halves(M, "bfloat16") / M.tensor(257),
    lambda M: _halves(M) * M.tensor(1e-5, dtype=M.float64),
    lambda M: _halves(M) / M.tensor([70000] * 20),      # (a tensor: rounded, 1/inf = 0)
    # copysign with a number (torch's copysign.Scalar overloads)
    lambda M: M.copysign(M.tensor(_X), -2.0),
    lambda M: M.copysign(M.tensor([1, -2]), True),
    lambda M: M.tensor(_X).copysign_(-1),
    lambda M: M.tensor([1, 2]).copysign_(-1.0),
    # copy_ takes a number for src in torch's parser (python_arg_parser's numbers-as-tensors)
    lambda M: M.zeros(2, dtype=M.int64).copy_(2.5),
    lambda M: M.zeros(2, dtype=M.int8).copy_(300),
    lambda M: M.zeros(2, dtype=M.float16).copy_(70000),
    lambda M: M.zeros(2).copy_(True),
    lambda M: M.zeros(2, dtype=M.complex64).copy_(1 + 2j),
])
def test_fuzz_seed_3603_findings(call):
    """Found by the forward fuzzer's seed 3603 (div.Tensor of float16 inf by int32 min: NaN,
    torch -inf) and by the binary-op sweep with Python numbers (copysign and copy_ refused
    them)."""
    check_call(call)


@pytest.mark.parametrize("call", [
    lambda M: M.quantile(M.tensor(_X), True),
    lambda M: M.tensor(_X).nanquantile(False),
    lambda M: M.linalg.matrix_rank(M.eye(3), True),
])
def test_a_bool_for_a_float_argument(call):
    """torch's parser takes a bool for a `float` argument (Python's bool is an int; the
    binary-op sweep found quantile(t, True) refused by ember's overload resolution)."""
    check_call(call)
