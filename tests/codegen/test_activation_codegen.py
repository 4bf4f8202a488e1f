"""Codegen fixes the activation ops needed (issue 4): node classes numbered per class
name (an in-place entry next to its functional twin), and an argument named like its op
(`threshold(Tensor self, Scalar threshold, Scalar value)`) not shadowing the op object."""
from __future__ import annotations

from test_derivatives import _derivs
from test_faults import project  # noqa: F401  (fixture)

from codegen.render import op_context


def test_inplace_entry_gets_the_next_node_number(project):  # noqa: F811
    ds, _ = _derivs(project, "- name: exp(Tensor self) -> Tensor\n  self: grad * result\n"
                    "- name: exp_(Tensor(a!) self) -> Tensor(a!)\n  self: grad * result\n")
    assert [d.node for d in ds] == ["ExpBackward0", "ExpBackward1"]


def test_argument_named_like_the_op_does_not_shadow_it(project):  # noqa: F811
    _, fns = _derivs(project, "")
    ctx = op_context(fns["threshold"])
    assert ctx["args"] == "self, threshold, value"
    assert ctx["op_ref"] == "_op_threshold"         # the op object under another name
    assert op_context(fns["threshold.out"])["op_ref"] == "threshold_out"
