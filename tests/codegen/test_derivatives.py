"""derivatives.yaml: formulas are parsed with ast, names checked (file:line errors that
leave generated/ untouched), and the generated Autograd code saves only what the
formulas use, gated on which inputs need a gradient."""
from __future__ import annotations

import ast

import pytest
from test_faults import project, run_expecting_error  # noqa: F401  (fixture)

from codegen.__main__ import main
from codegen.autograd_gen import forward_kernel, node_class
from codegen.derivatives import camel, helper_names, parse_derivatives
from codegen.loader import CodegenError, load_yaml_list

MUL = "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n"


def write_derivatives(root, text: str) -> None:
    (root / "schema" / "derivatives.yaml").write_text("# header\n" + text)


@pytest.mark.parametrize(("text", "line", "phrases"), [
    (MUL + "  self: grad * othr\n  other: grad * self\n", 3,
     ("unknown name 'othr'", "expected grad")),
    (MUL + "  self: grad *\n  other: grad\n", 3, ("not a Python expression",)),
    (MUL + "  self: grad\n  weight: grad\n", 4, ("'weight' is not an input",)),
    (MUL + "  self: grad\n", 2, ("input 'other'", "has no formula")),
    (MUL + "  self: grad\n  other: grad\n  result: grad\n", 5, ("forward-mode",)),
    (MUL + "  self: grad\n  other: grad\n  output_differentiability: [True, False]\n", 5,
     ("output_differentiability must list 1",)),
    (MUL + "  self: grad\n  other: grad\n" + MUL + "  self: grad\n  other: grad\n", 5,
     ("second derivative entry",)),
    ("- name: mul.Tensor(Tensor self, Tensor othr) -> Tensor\n  self: grad\n  othr: grad\n", 2,
     ("differs from the declared",)),
    ("- name: mul.out\n  self: grad\n  other: grad\n", 2, ("out", "not differentiable")),
    (("- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
     "  self: grad\n  other: grad\n  alpha: grad\n"), 5, ("is a Scalar, not a Tensor",)),
    (MUL + "  self: not_implemented(1, 2)\n  other: grad\n", 3, ("not_implemented takes",)),
    (MUL + "  self, other: grad\n  other: grad\n", 4, ("two formulas",)),
    ("- self: grad\n", 2, ("has no 'name'",)),
    # calls must bind to an ember op's overloads or a helper's signature
    (MUL + "  self: mul(grad, 2, self, 7)\n  other: grad\n", 3,
     ("'mul(_, _, _, _)' does not match", "mul(input, other)")),
    (MUL + "  self: grad\n  other: mul(grad, othr=self)\n", 4, ("'mul(_, othr=_)'",)),
    (MUL + "  self: sum_to_size(grad)\n  other: grad\n", 3,
     ("'sum_to_size(_)' does not match", "sum_to_size(grad, shape)")),
    (MUL + "  self: expand_grad(grad, self.shape, dims=None, size=2)\n  other: grad\n", 3,
     ("size=_",)),
])
def test_bad_formulas_name_file_and_line(project, capsys, text, line, phrases):  # noqa: F811
    write_derivatives(project, text)
    err = run_expecting_error(project, capsys, line, *phrases)
    assert "derivatives.yaml" in err


def _derivs(root, text):
    write_derivatives(root, text)
    from codegen.kernel_index import KernelIndex
    from codegen.native import parse_native_functions
    fns = parse_native_functions(load_yaml_list(root / "schema" / "native_functions.yaml", "n"),
                                 KernelIndex(root / "kernels"))
    helpers, fwd = helper_names(root / "ember" / "autograd" / "formulas")
    entries = load_yaml_list(root / "schema" / "derivatives.yaml", "d")
    return parse_derivatives(entries, fns, helpers, fwd), {f.qualified: f for f in fns}


def test_attribute_uses_save_values_not_tensors(project):  # noqa: F811
    (d,), _ = _derivs(project, MUL + "  self: grad * other\n  other: grad.expand(self.shape)\n")
    saved = {s.local: s.kind for s in d.saved}
    # `self.shape` saves the shape; the tensor `self` is not saved at all
    assert saved == {"other": "tensor", "self_shape": "value"}
    code = node_class(d)
    ast.parse(code)
    assert "_saved_slots = ('_s_other',)" in code


def test_saves_are_gated_on_the_inputs_that_need_them(project):  # noqa: F811
    (d,), fns = _derivs(project, MUL + "  self: grad * other\n  other: grad * self\n")
    code = forward_kernel(d, fns["mul.Tensor"])
    tree = ast.parse(code)
    # other is saved only when self needs a gradient, and vice versa
    assert "if _e_self is not None:\n        _node._s_other = _save(other)" in code
    assert "if _e_other is not None:\n        _node._s_self = _save(self)" in code
    assert isinstance(tree.body[0], ast.FunctionDef)


def test_inplace_variant_saves_the_original_self(project):  # noqa: F811
    (d,), fns = _derivs(project, MUL + "  self: grad * other\n  other: grad * self\n")
    code = forward_kernel(d, fns["mul_.Tensor"])
    assert "_save(self.clone())" in code
    assert code.index("_save(self.clone())") < code.index("_out = _k(")   # before the op runs
    assert "_rebase_history(self, _node)" in code


def test_result_is_saved_after_the_op(project):  # noqa: F811
    (d,), fns = _derivs(project, "- name: exp(Tensor self) -> Tensor\n  self: grad * result\n")
    code = forward_kernel(d, fns["exp"])
    assert code.index("_out = _k(") < code.index("_save_output(result, 0)")


def test_node_names_follow_torch(project):  # noqa: F811
    ds, _ = _derivs(project, MUL + "  self: grad\n  other: grad\n"
                    "- name: mul.Scalar(Tensor self, Scalar other) -> Tensor\n  self: grad\n")
    assert [d.node for d in ds] == ["MulBackward0", "MulBackward1"]
    assert camel("_to_copy") == "ToCopy" and camel("index_put") == "IndexPut"
    # torch title-cases each part and drops a trailing _forward
    assert camel("max_pool2d_with_indices") == "MaxPool2DWithIndices"
    assert camel("nll_loss_forward") == "NllLoss" and camel("log1p") == "Log1P"


def test_helpers_are_read_without_importing(tmp_path):
    (tmp_path / "f.py").write_text("def forward_value(f):\n    return f\n\n"
                                   "@forward_value\ndef sizes(ts):\n    pass\n\n"
                                   "def helper(x):\n    pass\n\ndef _private(x):\n    pass\n")
    names, fwd = helper_names(tmp_path / "f.py")
    assert set(names) == {"sizes", "helper"} and fwd == {"sizes"}
    assert str(names["helper"]) == "(x)"


def test_current_schema_generates_and_is_current():
    assert main(["--check"]) == 0


def test_codegen_error_carries_location():
    err = CodegenError("schema/derivatives.yaml:7", "boom")
    assert str(err).startswith("schema/derivatives.yaml:7")


def test_entries_without_a_differentiable_input_take_no_number(project):  # noqa: F811
    """torch numbers a node only for an entry with a differentiable input: lt.Scalar's
    (output_differentiability [False]) takes none, so lt_.Scalar's node is LtBackward0."""
    ds, _ = _derivs(project, "- name: lt.Scalar(Tensor self, Scalar other) -> Tensor\n"
                    "  output_differentiability: [False]\n  self: non_differentiable\n"
                    "- name: lt_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)\n"
                    "  self: zeros_like(grad)\n")
    assert [d.node for d in ds if d.inputs] == ["LtBackward0"]


def _torch_node_names(path) -> dict[str, str]:
    """'xlogy.Scalar_Other' -> 'XlogyBackward2': torch's numbering (tools/autograd/
    load_derivatives.py) over its derivatives.yaml: per node prefix, in entry order, only
    entries with a differentiable input (their Default dispatch's formulas)."""
    import yaml
    counts: dict[str, int] = {}
    names = {}
    for entry in yaml.safe_load(path.read_text()):
        key = entry["name"].split("(")[0]
        key = key if "." in key else f"{key}.default"
        formulas = entry["dispatch"].get("Default", {}) if "dispatch" in entry else entry
        if not any(k not in ("name", "output_differentiability", "dispatch", "result") and
                   str(v).strip() != "non_differentiable" for k, v in formulas.items()):
            continue
        prefix = f"{camel(key.split('.')[0])}Backward"
        names[key] = f"{prefix}{counts.get(prefix, 0)}"
        counts[prefix] = counts.get(prefix, 0) + 1
    return names


def test_node_names_are_torchs():
    """Every node of schema/derivatives.yaml that torch also has (and the `_copy` nodes of
    view_copy ops, torch's '<view node>_copy') has torch's name: the overloads of an op in
    torch's entry order (xlogy.Tensor, Scalar_Self, Scalar_Other: XlogyBackward0, 1, 2),
    in-place views after their functional twins (TransposeBackward1)."""
    torchgen = pytest.importorskip("torchgen")
    from pathlib import Path

    from test_faults import ROOT

    from codegen.kernel_index import KernelIndex
    from codegen.native import parse_native_functions
    torch_yaml = Path(torchgen.__file__).parent / "packaged" / "autograd" / "derivatives.yaml"
    if not torch_yaml.exists():
        pytest.skip("torchgen ships no derivatives.yaml")
    fns = parse_native_functions(load_yaml_list(ROOT / "schema" / "native_functions.yaml", "n"),
                                 KernelIndex(ROOT / "kernels"))
    helpers, fwd = helper_names(ROOT / "ember" / "autograd" / "formulas")
    ours = parse_derivatives(load_yaml_list(ROOT / "schema" / "derivatives.yaml", "d"), fns,
                             helpers, fwd)
    theirs = _torch_node_names(torch_yaml)
    # (lift_fresh_copy: ember's entry of its own, torch's the view_copy of lift_fresh)
    differ = {}
    for d in ours:
        key = d.fn.qualified if "." in d.fn.qualified else f"{d.fn.qualified}.default"
        base, overload = key.split(".")
        view = theirs.get(f"{base.removesuffix('_copy')}.{overload}") if d.fn.view_copy_of \
            else None
        expected = f"{view}_copy" if view else theirs.get(key)
        if d.inputs and expected and d.node != expected and key != "lift_fresh_copy.default":
            differ[key] = (d.node, expected)
    assert not differ, differ
    assert len([d for d in ours if d.inputs]) > 300
