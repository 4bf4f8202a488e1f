"""ember.masked against torch.masked (issue 22): values, dtypes, shapes and strides with
element-wise, broadcast and missing masks, fully masked slices (identities, nan), dim/keepdim/
dtype, integer and bool inputs, errors, and gradients through the masked ops.

    .venv/bin/python -m pytest tests/ops/test_masked.py -q
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers import check, raises_like

import ember

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(28)
X = _RNG.standard_normal((3, 4))
INTS = _RNG.integers(-5, 6, (3, 4)).astype(np.int32)
# row 1 fully masked out; column 1 masked out in every row but the last
MASK = np.array([[True, False, True, True], [False] * 4, [True, True, False, True]])
MASKS = {"elementwise": MASK, "broadcast_row": MASK[0], "none": None}
TOLS = {"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)}

REDUCTIONS = ["sum", "prod", "amax", "amin", "mean", "logsumexp", "norm", "var", "std"]
ALONG_DIM = ["argmax", "argmin", "cumsum", "cumprod", "softmax", "log_softmax", "softmin",
             "median"]


def _call(m, name, x, *args, mask=None, **kw):
    mask = None if mask is None else m.tensor(mask)
    return getattr(m.masked, name)(m.tensor(x), *args, mask=mask, **kw)


def _same(fn):
    """fn(ember) matches fn(torch): the same result, or the same error."""
    try:
        expected = fn(torch)
    except (RuntimeError, ValueError, IndexError, TypeError, NotImplementedError):
        raises_like(lambda: fn(ember), lambda: fn(torch))
        return
    check(fn(ember), expected, TOLS)


def test_the_module_is_reachable_and_covers_torch_masked():
    public = {n for n in dir(torch.masked) if not n.startswith("_") and
              callable(getattr(torch.masked, n))}
    tensor_api = {"MaskedTensor", "as_masked_tensor", "is_masked_tensor", "masked_tensor"}
    assert sorted(public - tensor_api) == sorted(ember.masked.__all__)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("mask", list(MASKS))
@pytest.mark.parametrize("dim", [1, None, (0, 1), -2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions_match_torch(name, mask, dim, keepdim):
    """Fully masked slices give the identity (sum 0, prod 1, amax -inf, norm 0, logsumexp
    -inf) or nan (mean, var, std)."""
    _same(lambda m: _call(m, name, X.astype(np.float32), dim, keepdim=keepdim,
                          mask=MASKS[mask]))


@pytest.mark.parametrize("name", ALONG_DIM)
@pytest.mark.parametrize("mask", list(MASKS))
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_ops_along_a_dim_match_torch(name, mask, dim):
    _same(lambda m: _call(m, name, X.astype(np.float32), dim, mask=MASKS[mask]))


@pytest.mark.parametrize("name", ["sum", "prod", "amax", "amin", "argmax", "argmin", "cumsum",
                                  "cumprod", "mean", "var", "std", "median", "logsumexp"])
@pytest.mark.parametrize("dtype", ["int32", "uint8", "bool"])
def test_integer_and_bool_inputs_as_torch(name, dtype):
    """Sum/prod promote small integers to int64; amax/argmax of bool have no identity; mean
    wants a floating dtype; var/std compute in float32; cumsum/cumprod keep the input dtype
    (bool has no kernel); median raises on fully masked integer slices."""
    x = np.abs(INTS).astype(dtype)
    _same(lambda m: _call(m, name, x, 1, mask=MASK))
    _same(lambda m: _call(m, name, x, 1, mask=MASK | MASK[2]))


@pytest.mark.parametrize("call", [
    lambda m: _call(m, "sum", X, (0, 1), dtype=m.float32, mask=MASK),
    lambda m: _call(m, "mean", INTS, 1, dtype=m.float64, mask=MASK),
    lambda m: _call(m, "softmax", X.astype(np.float32), 1, dtype=m.float64, mask=MASK),
    lambda m: _call(m, "cumsum", INTS, 0, dtype=m.float64, mask=MASK),
    lambda m: _call(m, "amax", X, 1, dtype=m.float32, mask=MASK),
    lambda m: _call(m, "norm", X, float("-inf"), 1, mask=MASK),
    lambda m: _call(m, "norm", X, float("inf"), 0, keepdim=True, mask=MASK),
    lambda m: _call(m, "norm", X, 1, 1, mask=MASK),
    lambda m: _call(m, "var", X, 1, correction=0, mask=MASK),
    lambda m: _call(m, "var", X, 0, correction=2, keepdim=True, mask=MASK),
    lambda m: _call(m, "std", X, 1, unbiased=False, mask=MASK),
    lambda m: _call(m, "normalize", X, 2.0, 1, mask=MASK),
    lambda m: _call(m, "normalize", X, 1.0, 0, eps=0.5, mask=MASK[0]),
    lambda m: _call(m, "sum", X, 1, mask=MASK.astype(np.int64)),
    lambda m: m.masked.logaddexp(m.tensor(X), m.tensor(X[::-1].copy()),
                                 input_mask=m.tensor(MASK), other_mask=m.tensor(MASK[0])),
    lambda m: m.masked.logaddexp(m.tensor(X), m.tensor(X), dtype=m.float32),
], ids=["sum_dtype", "mean_int_dtype", "softmax_dtype", "cumsum_dtype", "amax_dtype",
        "norm_ninf", "norm_inf", "norm_1", "var_correction0", "var_correction2",
        "std_biased", "normalize", "normalize_eps", "int_mask", "logaddexp", "logaddexp_dtype"])
def test_options_match_torch(call):
    _same(call)


@pytest.mark.parametrize("call", [
    lambda m: _call(m, "sum", X, (1, 1), mask=MASK),
    lambda m: _call(m, "sum", X, 2, mask=MASK),
    lambda m: _call(m, "cumsum", X, -3, mask=MASK),
    lambda m: _call(m, "sum", X[0], 0, mask=MASK),
    lambda m: _call(m, "mean", INTS, 1, mask=MASK),
    lambda m: _call(m, "mean", X, 1, dtype=m.int64, mask=MASK),
    lambda m: _call(m, "var", X, 1, True, correction=1, mask=MASK),
    lambda m: _call(m, "amax", X.astype(bool), 1, mask=MASK),
    lambda m: _call(m, "median", INTS, 1, mask=MASK),
], ids=["repeated_dim", "dim_out_of_range", "scan_dim_out_of_range", "mask_rank_too_high",
        "mean_int", "mean_int_dtype", "unbiased_and_correction", "amax_bool", "median_int_empty"])
def test_errors_match_torch(call):
    """torch's exception type and message (dtype names read torch. for ember.)."""
    errors = []
    for m in (ember, torch):
        with pytest.raises(Exception) as info:
            call(m)
        errors.append(info.value)
    assert type(errors[0]) is type(errors[1])
    assert str(errors[0]).replace("ember.", "torch.") == str(errors[1])


@pytest.mark.parametrize("name,args", [
    ("sum", (1,)), ("prod", (1,)), ("amax", (1,)), ("amin", (0,)), ("mean", (1,)),
    ("logsumexp", (1,)), ("norm", (2.0, 1)), ("var", (1,)), ("std", (0,)), ("softmax", (1,)),
    ("log_softmax", (0,)), ("softmin", (1,)), ("normalize", (2.0, 1)), ("cumsum", (1,)),
    ("cumprod", (1,)), ("median", (1,))])
def test_gradients_match_torch(name, args):
    """Masked-out elements get no gradient; the rest get the plain op's."""
    mask = MASK | np.array([False, True, False, False])  # no fully masked row: finite grads
    grads = []
    for m in (ember, torch):
        x = m.tensor(X + 3.0, requires_grad=True)
        out = getattr(m.masked, name)(x, *args, mask=m.tensor(mask))
        (out * m.tensor(np.arange(1.0, out.numel() + 1).reshape(tuple(out.shape)))).sum().backward()
        grads.append(x.grad)
    check(grads[0], grads[1], TOLS)


def test_logaddexp_gradients_match_torch():
    grads = []
    for m in (ember, torch):
        a, b = (m.tensor(v, requires_grad=True) for v in (X, 2 * X))
        m.masked.logaddexp(a, b, input_mask=m.tensor(MASK), other_mask=m.tensor(MASK[0])
                           ).sum().backward()
        grads += [a.grad, b.grad]
    check(grads[0], grads[2], TOLS)
    check(grads[1], grads[3], TOLS)
