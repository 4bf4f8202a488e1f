"""Meta strides of copysign, floor_divide and logaddexp: torch's Meta kernels for them are
its Python references (chains of pointwise ops over the operands expanded to one shape,
ending in a where()), whose layouts differ from TensorIterator's: copysign(contiguous,
transposed) is transposed on Meta, contiguous on the CPU."""
import itertools

import pytest

import ember

torch = pytest.importorskip("torch")

LAYOUTS = {
    "contiguous": lambda M, s, dt: M.empty(s, device="meta", dtype=dt),
    "transposed": lambda M, s, dt: M.empty(s[::-1], device="meta", dtype=dt).permute(
        *range(len(s))[::-1]),
    "sliced": lambda M, s, dt: M.empty(s[:-1] + (2 * s[-1],), device="meta", dtype=dt)[..., ::2],
    "expanded": lambda M, s, dt: M.empty((1,) + s[1:], device="meta", dtype=dt).expand(*s),
    "broadcast": lambda M, s, dt: M.empty(s[1:], device="meta", dtype=dt),
}
OPS = {"copysign": "float32", "floor_divide": "float32", "logaddexp": "float64"}


@pytest.mark.parametrize("op", [*OPS, "floor_divide_int"])
def test_meta_strides_are_torchs(op):
    name, dt = (op, OPS[op]) if op in OPS else ("floor_divide", "int32")
    for shape, (ka, kb) in itertools.product([(3, 4), (2, 3, 4), (3, 1)],
                                             itertools.product(LAYOUTS, repeat=2)):
        strides = [getattr(M, name)(LAYOUTS[ka](M, shape, getattr(M, dt)),
                                    LAYOUTS[kb](M, shape, getattr(M, dt))).stride()
                   for M in (ember, torch)]
        assert strides[0] == strides[1], (shape, ka, kb, strides)
