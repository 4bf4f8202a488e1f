"""torch's products, norms and Tensor utilities that ember decomposes
(kernels/composite/products.py): kron, inner, vdot, tensordot, dist, renorm, addmv, addr,
addbmm, type_as, sum_to_size, fill_diagonal_, isreal, against torch on values, dtypes,
shapes, strides, gradients and errors."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
g = torch.Generator().manual_seed(0)


def R(*shape, dtype=torch.float64):
    return torch.randn(*shape, generator=g, dtype=dtype)


def E(x):
    return ember.tensor(x.numpy()) if isinstance(x, torch.Tensor) else x


A, B, V = R(2, 3), R(3, 4), R(3)
CASES = {
    "kron": (lambda t, x, y: t.kron(x, y), A, B),
    "kron_int_float": (lambda t, x, y: t.kron(x, y), torch.arange(3), A),
    "kron_ranks": (lambda t, x, y: x.kron(y), R(2, 1, 2), R(3, 2)),
    "inner": (lambda t, x, y: t.inner(x, y), A, R(4, 3)),
    "inner_0d": (lambda t, x, y: t.inner(x, y), A, torch.tensor(2.0)),
    "inner_error": (lambda t, x, y: t.inner(x, y), A, B),
    "vdot": (lambda t, x, y: t.vdot(x, y), V, V.flip(0)),
    "vdot_complex": (lambda t, x, y: x.vdot(y), R(3, dtype=torch.complex128),
                     R(3, dtype=torch.complex128)),
    "vdot_error": (lambda t, x, y: t.vdot(x, y), A, A),
    "tensordot_int": (lambda t, x, y: t.tensordot(x, y, 1), A, B),
    "tensordot_lists": (lambda t, x, y: t.tensordot(x, y, dims=([0], [1])), A, R(4, 2)),
    "tensordot_0": (lambda t, x, y: t.tensordot(x, y, dims=0), A, V),
    "tensordot_error": (lambda t, x, y: t.tensordot(x, y, dims=([0], [0])), A, B),
    "dist": (lambda t, x, y: t.dist(x, y), A, A.flip(0)),
    "dist_p1": (lambda t, x, y: x.dist(y, 1), A, A.flip(0)),
    "dist_inf": (lambda t, x, y: x.dist(y, float("inf")), A, A.flip(0)),
    "renorm": (lambda t, x: t.renorm(x, 2, 0, 1.0), A * 3),
    "renorm_p1_dim1": (lambda t, x: x.renorm(1, 1, 0.5), A * 3),
    "renorm_": (lambda t, x: x.clone().renorm_(2, -1, 1.0), A * 3),
    "renorm_p_error": (lambda t, x: t.renorm(x, 0, 0, 1.0), A),
    "renorm_1d_error": (lambda t, x: t.renorm(x, 2, 0, 1.0), V),
    "addmv": (lambda t, x, m, y: t.addmv(x, m, y, beta=2, alpha=0.5), R(2), A, V),
    "addmv_broadcast": (lambda t, x, m, y: t.addmv(x, m, y), R(1), A, V),
    "addmv_beta0_nan": (lambda t, x, m, y: t.addmv(x, m, y, beta=0),
                        torch.tensor([float("nan"), 1.0], dtype=torch.float64), A, V),
    "addmv_": (lambda t, x, m, y: t.addmv_(x.clone(), m, y, alpha=2), R(2), A, V),
    "addmv_error": (lambda t, x, m, y: t.addmv(x, m, y), R(3), A, V),
    "addr": (lambda t, x, y, z: t.addr(x, y, z, beta=0.5, alpha=2), A, R(2), V),
    "addr_": (lambda t, x, y, z: x.clone().addr_(y, z), A, R(2), V),
    "addr_bool": (lambda t, x, y, z: t.addr(x, y, z, alpha=0), torch.ones(2, 2, dtype=torch.bool),
                  torch.tensor([True, False]), torch.tensor([True, True])),
    "addr_bool_beta0": (lambda t, x, y, z: t.addr(x, y, z, beta=0), torch.ones(2, 2, dtype=torch.bool),
                        torch.tensor([True, False]), torch.tensor([True, True])),
    "addr_int_float_alpha_error": (lambda t, x, y, z: t.addr(x, y, z, alpha=0.5),
                                   torch.ones(2, 2, dtype=torch.int64), torch.arange(2),
                                   torch.arange(2)),
    "addbmm_1d_error": (lambda t, x, y, z: t.addbmm(x, y, z), torch.zeros(0), torch.zeros(0),
                        torch.zeros(0)),
    "renorm_checks_p_first": (lambda t, x: t.renorm(x, 0, 1, 1.0), torch.zeros(0)),
    "tensordot_empty": (lambda t, x, y: t.tensordot(x, y, dims=([-1], [-1])), torch.zeros(0),
                        torch.zeros(0)),
    "addbmm": (lambda t, x, y, z: t.addbmm(x, y, z, alpha=2), R(2, 4), R(5, 2, 3), R(5, 3, 4)),
    "addbmm_": (lambda t, x, y, z: x.clone().addbmm_(y, z), R(2, 4), R(5, 2, 3), R(5, 3, 4)),
    "type_as": (lambda t, x, y: x.type_as(y), A, torch.arange(3)),
    "sum_to_size": (lambda t, x: x.sum_to_size(1, 3), A),
    "sum_to_size_leading": (lambda t, x: x.sum_to_size([3]), A),
    "sum_to_size_error": (lambda t, x: x.sum_to_size(3, 3), A),
    "fill_diagonal_": (lambda t, x: x.clone().fill_diagonal_(5), torch.zeros(3, 4)),
    "fill_diagonal_wrap": (lambda t, x: x.clone().fill_diagonal_(5, wrap=True), torch.zeros(7, 3)),
    "fill_diagonal_tall": (lambda t, x: x.clone().fill_diagonal_(5), torch.zeros(7, 3)),
    "fill_diagonal_3d": (lambda t, x: x.clone().fill_diagonal_(2), torch.zeros(3, 3, 3)),
    "fill_diagonal_error": (lambda t, x: x.clone().fill_diagonal_(2), torch.zeros(3)),
    "isreal_complex": (lambda t, x: t.isreal(x), torch.tensor([1 + 0j, 1 + 1j])),
    "isreal_float": (lambda t, x: x.isreal(), A),
}


def run(fn, module, args):
    try:
        return fn(module, *args), None
    except Exception as e:  # noqa: BLE001 (compared with torch's)
        return None, e


def assert_like_torch(fn, args):
    ref, ref_exc = run(fn, torch, args)
    got, exc = run(fn, ember, [E(a) for a in args])
    if ref_exc is not None:
        assert type(exc) is type(ref_exc), (ref_exc, exc)
        assert str(exc) == str(ref_exc).replace("torch.", "ember.")
        return
    assert exc is None, exc
    assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(ref.shape)
    if ref.numel() > 1:
        assert got.stride() == ref.stride()
    np.testing.assert_allclose(np.asarray(got.tolist()), ref.numpy(), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, *args = CASES[name]
    assert_like_torch(fn, args)


GRAD_CASES = ["kron", "inner", "vdot", "tensordot_int", "dist", "renorm", "addmv", "addr",
              "addbmm", "sum_to_size"]


@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradients_match_torch(name):
    fn, *args = CASES[name]
    targs = [a.clone().requires_grad_(a.is_floating_point()) for a in args]
    eargs = [E(a).requires_grad_(a.is_floating_point()) for a in args]
    fn(torch, *targs).sum().backward()
    fn(ember, *eargs).sum().backward()
    for t, e in zip(targs, eargs):
        if t.requires_grad:
            np.testing.assert_allclose(np.asarray(e.grad.tolist()), t.grad.numpy(), rtol=1e-6,
                                       atol=1e-9)


def test_tensordot_out_and_functional_module():
    out = ember.empty(2, 4, dtype=ember.float64)
    r = ember.tensordot(E(A), E(B), 1, out=out)
    assert r is out
    np.testing.assert_allclose(np.asarray(out.tolist()), torch.tensordot(A, B, 1).numpy())
    assert ember.functional.tensordot is ember.tensordot
