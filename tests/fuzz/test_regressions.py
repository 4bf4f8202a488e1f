"""Regression tests of forward differences the differential fuzzer (test_differential.py)
found or its KNOWN table documents: each builds the call on ember and on torch
(helpers.check_call: the same error type and message, or the same values, dtype, shape
and strides).

    .venv/bin/python -m pytest tests/fuzz/test_regressions.py -q
"""
import pytest
from helpers import check_call

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
    ember's overlap error first; the KNOWN table's OVERLAP_ORDER)."""
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
