"""Backward formulas multiply by a number literal with aten.mul.Scalar, as torch's C++
formulas do (`2 * result` is `operator*(Scalar, Tensor)`): make_fx graphs of the backward
record the same ops as torch's (ember recorded mul.Tensor, Python's `2 * t`)."""
from collections import Counter

import pytest

import ember
from ember.fx.experimental.proxy_tensor import make_fx as ember_make_fx

torch = pytest.importorskip("torch")
from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx


def backward_ops(M, make_fx, op, double):
    def f(x):
        (g,) = M.autograd.grad(getattr(M, op)(x).sum(), x, create_graph=True)
        if double:
            (g,) = M.autograd.grad(g.sum(), x)
        return g
    graph = make_fx(f)(M.tensor([0.5, 2.0], requires_grad=True)).graph
    return Counter(str(n.target) for n in graph.nodes if n.op == "call_function")


@pytest.mark.parametrize("op, double", [("sqrt", False), ("sqrt", True), ("rsqrt", False),
                                        ("rsqrt", True), ("tanh", True)])
def test_backward_records_torchs_ops(op, double):
    """The same aten overloads, as many times (the order of a formula's operands may
    differ: C++ leaves it unspecified)."""
    ops = backward_ops(ember, ember_make_fx, op, double)
    assert ops == backward_ops(torch, torch_make_fx, op, double)
    assert ops["aten.mul.Scalar"] > 0


def test_number_helpers_keep_python_numbers():
    from ember.autograd.formulas import div_number, mul_number
    assert (mul_number(3, 2), div_number(3, 2)) == (6, 1.5)
    x = ember.tensor([3.0], requires_grad=True)
    y = mul_number(x, 2)
    assert y.grad_fn.name() == "MulBackward1" and y.tolist() == [6.0]
