"""The backward nodes whose formula is one view method of the gradient (`grad.t()`,
`grad.reshape(self_shape)`, `grad.transpose(dim0, dim1)`, `grad.conj()`) call that
method's entry directly when nothing observes the ops (codegen/autograd_gen.py's
`_apply_array_view`): the gradient must be the same tensor as through the method, a view
of the incoming gradient with the same layout, and the same as torch's.
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers import check

import ember
from ember._generated import autograd as generated

torch = pytest.importorskip("torch")

VIEW_NODES = {"TBackward0": lambda x: x.t(), "TransposeBackward0": lambda x: x.transpose(0, 1),
              "ViewBackward0": lambda x: x.view(-1), "SqueezeBackward1": lambda x: x.squeeze(1),
              "ConjBackward0": lambda x: x.conj()}


def test_the_view_nodes_have_the_direct_version():
    for name in VIEW_NODES:
        assert "_apply_array" in vars(getattr(generated, name)), name
        names = getattr(generated, name)._apply_array.__code__.co_names
        assert any(n.startswith("_entry_") for n in names), name


def _source(shape, dtype=np.float32):
    a = (np.arange(np.prod(shape)).reshape(shape) - 5).astype(dtype)
    return a * (1 - 2j) if np.dtype(dtype).kind == "c" else a


@pytest.mark.parametrize("name", sorted(VIEW_NODES))
def test_direct_version_gives_the_methods_tensor(name):
    shape = (3, 4) if name in ("TBackward0", "TransposeBackward0") else (3, 1, 4)
    dtype = np.complex64 if name == "ConjBackward0" else np.float32
    x = ember.from_numpy(_source(shape, dtype)).requires_grad_()
    y = VIEW_NODES[name](x)
    node = y.grad_fn
    assert type(node).__name__ == name
    g = ember.from_numpy(_source(tuple(y.shape), dtype) * 0.5)
    with ember.no_grad():
        (expected,) = node.apply([g])
        (got,) = node._apply_array([g])
    for attr in ("shape", "dtype", "device"):
        assert getattr(got, attr) == getattr(expected, attr)
    assert got.stride() == expected.stride() and got.storage_offset() == expected.storage_offset()
    assert got._base is expected._base and got._ks == expected._ks
    assert got.untyped_storage().data_ptr() == g.untyped_storage().data_ptr() or got is g
    assert got.grad_fn is None and not got.requires_grad
    assert got.is_conj() == expected.is_conj()
    np.testing.assert_array_equal(got.resolve_conj().numpy(), expected.resolve_conj().numpy())


def test_a_needs_less_node_and_a_subclass_gradient_take_the_method():
    x = ember.ones(2, 3, requires_grad=True)
    node = x.t().grad_fn

    class Sub(ember.Tensor):
        pass
    g = ember.ones(3, 2).as_subclass(Sub)
    with ember.no_grad():
        (r,) = node._apply_array([g])
    assert isinstance(r, Sub) and tuple(r.shape) == (2, 3)


@pytest.mark.parametrize("chain", ["t", "transpose", "view", "squeeze", "reshape", "mixed"])
def test_gradients_and_their_layout_match_torch(chain):
    ops = {"t": lambda y: y.t(), "transpose": lambda y: y.transpose(0, 1),
           "view": lambda y: y.view(y.shape[::-1]), "squeeze": lambda y: y.unsqueeze(1).squeeze(1),
           "reshape": lambda y: y.reshape(-1).reshape(y.shape[::-1])}
    steps = list(ops.values()) if chain == "mixed" else [ops[chain]] * 3
    a = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)
    grads = []
    for lib in (ember, torch):
        x = lib.from_numpy(a.copy()).requires_grad_()
        w = lib.from_numpy(a.T.copy()).requires_grad_()
        y = x
        for step in steps:
            y = step(y)
        ((y if y.shape == w.shape else y.reshape(w.shape)) * w).sum().backward()
        grads.append((x.grad, w.grad))
    for e, t in zip(*grads):
        check(e, t)


@pytest.mark.parametrize("layout", ["contiguous", "offset", "size1_stride", "transposed",
                                    "empty", "float64"])
def test_reshape_of_a_contiguous_gradient_is_the_kernels_view(layout):
    """ViewBackward0's reshape of a gradient laid out exactly contiguous is made directly
    (array_formulas.reshape_contiguous): the same view as the op's (base, offset, strides,
    keys); other layouts (a size-1 dim with another stride, transposed, empty) take the op."""
    dtype = ember.float64 if layout == "float64" else ember.float32
    x = ember.zeros(0 if layout == "empty" else 2, 3, 4, dtype=dtype, requires_grad=True)
    node = x.view(-1, 1, 4).grad_fn
    big = ember.arange(48.0, dtype=dtype).reshape(2, 6, 1, 4)
    g = {"contiguous": big[0] * 1, "offset": big[1], "empty": ember.zeros(0, 1, 4),
         "size1_stride": big.as_strided((6, 1, 4), (4, 7, 1), 24),
         "transposed": big[0].squeeze(1).t().contiguous().t().unsqueeze(1),
         "float64": big[1]}[layout]
    with ember.no_grad():
        (expected,) = node.apply([g])
        (got,) = node._apply_array([g])
    assert got.stride() == expected.stride() and got.storage_offset() == expected.storage_offset()
    assert got._base is expected._base and got._ks == expected._ks and got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
