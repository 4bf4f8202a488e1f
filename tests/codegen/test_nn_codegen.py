"""derivatives.yaml's `raises_if_requires_grad` (added for the nn family, issue 4): the
input gets no gradient edge, and the Autograd kernel raises torch's
check_no_requires_grad error in grad mode before running the op."""
from __future__ import annotations

import ast

from test_derivatives import MUL, _derivs
from test_faults import project  # noqa: F401  (fixture)

from codegen.autograd_gen import forward_kernel


def test_raises_if_requires_grad(project):  # noqa: F811
    (d,), fns = _derivs(project, MUL + "  self: grad * other\n  other: raises_if_requires_grad\n")
    assert d.forbidden == ("other",)
    assert [name for name, _ in d.inputs] == ["self"]
    code = forward_kernel(d, fns["mul.Tensor"])
    ast.parse(code)
    check = "if _tls.grad_enabled and other.requires_grad:"
    assert check in code
    assert "is not differentiable with respect to argument 'other'" in code
    assert code.index(check) < code.index("_out = _k(")      # before the op runs
    inplace = forward_kernel(d, fns["mul_.Tensor"])
    assert inplace.index(check) < inplace.index("_out = _k(")
