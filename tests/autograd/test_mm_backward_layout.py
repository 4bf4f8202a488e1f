"""The layout of mm/addmm gradients (torch's mm_mat1_backward/mm_mat2_backward): a
column-major (transposed) operand gets its gradient computed transposed, so a Linear's
weight gradient comes out contiguous like torch's; values, dtypes, shapes and strides
against torch, through the array formulas and the ember-op formulas.

    .venv/bin/python -m pytest tests/autograd/test_mm_backward_layout.py -q
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers import to_np

import ember
from ember.autograd import array_formulas

torch = pytest.importorskip("torch")


def _grads(lib, arrays, layouts, fn):
    """Gradients of fn(*operands).sum() for operands laid out as `layouts` ("c": as
    given, "t": the transpose of a contiguous copy of the transpose)."""
    ops = []
    for a, layout in zip(arrays, layouts):
        t = lib.from_numpy(np.ascontiguousarray(a.T if layout == "t" else a)).requires_grad_()
        ops.append((t, t.t() if layout == "t" else t))
    out = fn(lib, *[v for _, v in ops])
    return lib.autograd.grad(out, [t for t, _ in ops], lib.ones_like(out))


CASES = {
    "mm": (lambda lib, a, b: lib.mm(a, b), ((5, 3), (3, 4))),
    "addmm_alpha": (lambda lib, c, a, b: lib.addmm(c, a, b, beta=0.5, alpha=2.5),
                    ((4,), (5, 3), (3, 4))),
    "linear": (lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), ((5, 3), (4, 3), (4,))),
    "linear_3d": (lambda lib, x, w: lib.nn.functional.linear(x, w), ((2, 5, 3), (4, 3))),
}


@pytest.mark.parametrize("array_versions", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("layouts", ["cc", "tc", "ct", "tt"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_mm_gradient_layout_matches_torch(case, layouts, dtype, array_versions, monkeypatch):
    monkeypatch.setattr(array_formulas, "ENABLED", array_versions)
    fn, shapes = CASES[case]
    rng = np.random.default_rng(0)
    arrays = [(rng.standard_normal(s) + (1j * rng.standard_normal(s) if dtype == np.complex64
                                         else 0)).astype(dtype) for s in shapes]
    # the layouts apply to the matrix operands (the last two), the others stay contiguous
    full = "c" * (len(shapes) - 2) + layouts
    full = "".join(l if len(s) == 2 else "c" for l, s in zip(full, shapes))
    for e, t in zip(_grads(ember, arrays, full, fn), _grads(torch, arrays, full, fn)):
        assert (e.dtype.name, tuple(e.shape), e.stride()) == \
            (str(t.dtype).removeprefix("torch."), tuple(t.shape), t.stride())
        np.testing.assert_allclose(to_np(e), t.numpy(), rtol=1e-5, atol=1e-5)


def test_linear_weight_grad_is_contiguous():
    """The issue's case: autograd.grad of a Linear's weight had strides (1, 3) for (4, 3)."""
    lin = ember.nn.Linear(3, 4)
    (gw,) = ember.autograd.grad(lin(ember.ones(5, 3)).sum(), [lin.weight])
    assert gw.stride() == (3, 1) and gw.is_contiguous()
