"""F.fractional_max_pool2d/3d and nn.FractionalMaxPool2d/3d against torch, from the same
_random_samples: values, indices, strides, gradients (overlapping windows accumulate),
NaN and tie rules, half precision window placement, output_ratio, and torch's errors."""
import numpy as np
import pytest
from nn_compare import assert_close, to_ember

import ember

torch = pytest.importorskip("torch")
EF = ember.nn.functional
TF = torch.nn.functional


def samples_for(shape, n, dtype=torch.float64, batch=None, seed=0):
    batch = batch or (shape[0] if len(shape) == n + 2 else 1)
    gen = torch.Generator().manual_seed(seed)
    return torch.rand(batch, shape[-n - 1], n, generator=gen, dtype=dtype)


def copy(t):
    """An ember copy of a torch tensor (bfloat16 too, through float32)."""
    if t.dtype == torch.bfloat16:
        return to_ember(t.float()).to(ember.bfloat16)
    return to_ember(t)


def both(n, x, kernel, samples, **kwargs):
    """(ember's input leaf, ember's (values, indices), torch's)."""
    ex = copy(x).requires_grad_(x.requires_grad)
    ef = EF.fractional_max_pool2d if n == 2 else EF.fractional_max_pool3d
    tf = TF.fractional_max_pool2d if n == 2 else TF.fractional_max_pool3d
    e = ef(ex, kernel, return_indices=True, _random_samples=copy(samples), **kwargs)
    t = tf(x, kernel, return_indices=True, _random_samples=samples, **kwargs)
    return ex, e, t


CASES = [((2, 3, 9, 11), (2, 3), (5, 4), 2), ((3, 9, 11), 2, (4, 6), 2),
         ((2, 3, 8, 8), 3, 6, 2), ((1, 2, 8, 8), 2, 1, 2), ((2, 2, 5, 5), 2, 4, 2),
         ((2, 2, 7, 8, 9), (2, 2, 3), (4, 3, 5), 3), ((2, 6, 7, 8), 2, 3, 3),
         ((2, 2, 6, 7, 8), 2, (1, 1, 1), 3), ((1, 1, 9, 9, 9), 3, 6, 3)]


@pytest.mark.parametrize(("shape", "kernel", "out", "n"), CASES)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_values_indices_gradients(shape, kernel, out, n, dtype):
    x = torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(1))
    x.requires_grad_()
    ex, (ev, ei), (tv, ti) = both(n, x, kernel, samples_for(shape, n, dtype),
                                  output_size=out)
    assert_close(ev, tv)
    assert ev.stride() == tv.stride()
    assert ei.dtype.name == "int64" and ei.tolist() == ti.tolist()
    weights = torch.randn(tv.shape, dtype=dtype, generator=torch.Generator().manual_seed(2))
    (tv * weights).sum().backward()
    (ev * to_ember(weights)).sum().backward()
    assert_close(ex.grad, x.grad)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_places_windows_in_that_precision(dtype):
    shape = (4, 8, 61, 57)
    x = torch.randn(shape, generator=torch.Generator().manual_seed(3)).to(dtype)
    _, (ev, ei), (tv, ti) = both(2, x, 3, samples_for(shape, 2, dtype), output_size=(31, 23))
    assert ei.tolist() == ti.tolist()
    assert_close(ev, tv)


def test_nan_and_ties_follow_torch():
    x = torch.tensor([[[[1.0, 1.0, 5.0, 5.0],
                        [float("nan"), 1.0, float("nan"), 5.0],
                        [-float("inf"), -float("inf"), 2.0, 2.0],
                        [-float("inf"), -float("inf"), 2.0, 2.0]]]], dtype=torch.float64)
    samples = torch.tensor([[[0.3, 0.6]]], dtype=torch.float64)
    for out in (2, 3):
        _, (ev, ei), (tv, ti) = both(2, x, 2, samples, output_size=out)
        assert ei.tolist() == ti.tolist()
        np.testing.assert_array_equal(ev.numpy(), tv.numpy())


def test_output_ratio_and_unbatched_input():
    shape = (3, 10, 13)
    x = torch.randn(shape, dtype=torch.float64)
    _, (ev, ei), (tv, ti) = both(2, x, 2, samples_for(shape, 2), output_ratio=(0.5, 0.7))
    assert tuple(ev.shape) == tuple(tv.shape) == (3, 5, 9)
    assert ei.tolist() == ti.tolist()
    shape = (2, 3, 6, 8, 10)
    x = torch.randn(shape, dtype=torch.float64)
    _, (ev, ei), (tv, ti) = both(3, x, 2, samples_for(shape, 3), output_ratio=0.5)
    assert tuple(ev.shape) == tuple(tv.shape) == (2, 3, 3, 4, 5)
    assert ei.tolist() == ti.tolist()
    # extra rows of samples are ignored, as by torch
    shape = (2, 2, 8, 8)
    x = torch.randn(shape, dtype=torch.float64)
    _, (ev, _), (tv, _) = both(2, x, 2, samples_for(shape, 2, batch=5), output_size=4)
    assert_close(ev, tv)


def test_default_samples_draw_fresh_windows():
    x = ember.randn(2, 3, 20, 20)
    first, second = (EF.fractional_max_pool2d(x, 2, output_size=8, return_indices=True)[1]
                     for _ in range(2))
    assert tuple(first.shape) == (2, 3, 8, 8)
    assert first.tolist() != second.tolist()
    assert EF.fractional_max_pool2d(x, 2, output_size=7).shape == (2, 3, 7, 7)


@pytest.mark.parametrize("n", [2, 3])
def test_modules(n):
    shape = (2, 3, 9, 10, 11)[: n + 2]
    samples = samples_for(shape, n)
    tm = (torch.nn.FractionalMaxPool2d if n == 2 else torch.nn.FractionalMaxPool3d)(
        2, output_size=4, return_indices=True, _random_samples=samples)
    em = (ember.nn.FractionalMaxPool2d if n == 2 else ember.nn.FractionalMaxPool3d)(
        2, output_size=4, return_indices=True, _random_samples=to_ember(samples))
    x = torch.randn(shape, dtype=torch.float64)
    (ev, ei), (tv, ti) = em(to_ember(x)), tm(x)
    assert_close(ev, tv)
    assert ei.tolist() == ti.tolist()
    assert list(em.state_dict()) == list(tm.state_dict()) == ["_random_samples"]
    assert (em.kernel_size, em.output_size, em.output_ratio) == \
        (tm.kernel_size, tm.output_size, tm.output_ratio)
    ratio = (ember.nn.FractionalMaxPool2d if n == 2 else ember.nn.FractionalMaxPool3d)(
        2, output_ratio=0.5)
    assert ratio.output_ratio == (0.5,) * n and ratio.output_size is None


def error_of(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001  (its type and message are compared)
        return type(exc).__name__, str(exc)
    return None


X2, X3 = (1, 2, 8, 8), (1, 2, 5, 8, 8)
FUNCTIONAL_ERRORS = [
    (2, X2, 3, {"output_size": 7}, None),             # pool too large (height)
    (2, X2, 2, {"output_size": (3, 8)}, None),        # pool too large (width)
    (2, (8, 8), 2, {"output_size": 3}, "no samples"),  # 2-d input
    (2, (1, 1, 2, 8, 8), 2, {"output_size": 3}, "no samples"),
    (2, (1, 2, 0, 8), 2, {"output_size": 3}, "no samples"),
    (2, X2, (2, 2, 2), {"output_size": 3}, None),
    (2, X2, 2, {"output_size": (3, 4, 5)}, None),
    (2, X2, 2, {}, None),
    (2, X2, 2, {"output_ratio": 0.5}, None),          # torch's len() of a float
    (2, X2, 2, {"output_ratio": (0.5, 0.5, 0.5)}, None),
    (3, X3, 2, {"output_size": (3, 7, 3)}, None),     # 3-d checks are strict
    (3, X3, 2, {"output_size": (3, 3, 7)}, None),
    (3, X3, 6, {"output_size": 3}, None),
    (3, (1, 2, 5, 8), 2, {"output_size": 3}, "no samples"),
    (3, (1, 2, 5, 0, 8), 2, {"output_size": 3}, "no samples"),
    (3, X3, (2, 2), {"output_size": 3}, None),
    (3, X3, 2, {"output_size": (3, 3)}, None),
    (3, X3, 2, {}, None),
]


@pytest.mark.parametrize(("n", "shape", "kernel", "kwargs", "samples"), FUNCTIONAL_ERRORS)
def test_functional_errors_match_torch(n, shape, kernel, kwargs, samples):
    x = torch.randn(shape)
    s = None if samples else samples_for(shape, n, torch.float32)
    tf = TF.fractional_max_pool2d if n == 2 else TF.fractional_max_pool3d
    ef = EF.fractional_max_pool2d if n == 2 else EF.fractional_max_pool3d
    want = error_of(lambda: tf(x, kernel, _random_samples=s, **kwargs))
    got = error_of(lambda: ef(to_ember(x), kernel, _random_samples=None if s is None
                              else to_ember(s), **kwargs))
    assert want is not None and got == want


@pytest.mark.parametrize("samples_shape", [(1, 2, 3), (1, 3, 2), (2, 2), (0, 2, 2)])
def test_bad_samples_match_torch(samples_shape):
    x = torch.randn(X2)
    s = torch.rand(samples_shape)
    want = error_of(lambda: TF.fractional_max_pool2d(x, 2, 3, _random_samples=s))
    got = error_of(lambda: EF.fractional_max_pool2d(to_ember(x), 2, 3,
                                                    _random_samples=to_ember(s)))
    assert want is not None and got == want
    want = error_of(lambda: TF.fractional_max_pool2d(x, 2, 3, _random_samples=s.double()))
    got = error_of(lambda: EF.fractional_max_pool2d(to_ember(x), 2, 3,
                                                    _random_samples=to_ember(s.double())))
    same_dtype = "Expect _random_samples to have the same dtype as input"
    assert want == got == ("RuntimeError", same_dtype)


@pytest.mark.parametrize(("cls", "args", "kwargs"), [
    ("FractionalMaxPool2d", (2,), {}),
    ("FractionalMaxPool2d", (2,), {"output_size": 3, "output_ratio": 0.5}),
    ("FractionalMaxPool2d", (2,), {"output_ratio": 1.5}),
    ("FractionalMaxPool3d", (2,), {"output_ratio": (0.5, 0.5, 0.0)}),
    ("FractionalMaxPool3d", (0,), {"output_size": 2}),
    ("FractionalMaxPool3d", ((2, -1, 2),), {"output_size": 2}),
])
def test_module_errors_match_torch(cls, args, kwargs):
    want = error_of(lambda: getattr(torch.nn, cls)(*args, **kwargs))
    got = error_of(lambda: getattr(ember.nn, cls)(*args, **kwargs))
    assert want is not None and got == want


def test_non_positive_kernel_is_refused():
    # torch reads outside the input here (kernel -1) or returns -inf (kernel 0)
    with pytest.raises(RuntimeError, match="kernel_size must be greater than zero"):
        EF.fractional_max_pool2d(ember.randn(1, 1, 5, 5), 0, output_size=2)
