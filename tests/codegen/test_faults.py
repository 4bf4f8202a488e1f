"""Bad schemas fail with `file:line: what is wrong (what was expected)` and leave
generated/ exactly as it was."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import without_readme_example

from codegen.__main__ import main

ROOT = Path(__file__).resolve().parents[2]

GOOD_OP = """
- func: myop(Tensor self, Scalar alpha=1) -> Tensor
  variants: function
  dispatch:
    CPU: add
    Meta: add
"""


@pytest.fixture()
def project(generated_project, tmp_path):
    """This test's own copy of the schemas, templates and kernels with a freshly generated/
    (conftest's `generated_project`)."""
    shutil.copytree(generated_project, tmp_path, dirs_exist_ok=True)
    return tmp_path


def snapshot(root: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted((root / "generated").iterdir())}


def append_native(root: Path, text: str) -> int:
    """Appends YAML to native_functions.yaml; returns the line number the text starts at."""
    path = root / "schema" / "native_functions.yaml"
    old = path.read_text()
    path.write_text(old + text)
    return old.count("\n") + 1


def run_expecting_error(root, capsys, expected_line, *phrases):
    before = snapshot(root)
    assert main(["--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert f":{expected_line}:" in err, err
    for p in phrases:
        assert p in err, err
    assert snapshot(root) == before, "generated/ changed after a failed run"
    return err


def test_good_op_generates(project, capsys):
    append_native(project, GOOD_OP)
    assert main(["--root", str(project)]) == 0
    assert "def _entry_myop(self, alpha):" in (project / "generated" / "ops.py").read_text()


def test_yaml_syntax_error(project, capsys):
    start = append_native(project, "\n- func: oops(Tensor self) -> Tensor\n  dispatch: {CPU: add\n")
    err = run_expecting_error(project, capsys, start + 3, "YAML syntax error")
    assert "native_functions.yaml" in err


def test_unknown_key(project, capsys):
    start = append_native(project, GOOD_OP + "  colour: red\n")
    run_expecting_error(project, capsys, start + 6, "unknown key 'colour'", "expected one of")


def test_unknown_type(project, capsys):
    start = append_native(project, GOOD_OP.replace("Scalar alpha", "Scalr alpha"))
    run_expecting_error(project, capsys, start + 1, "unknown type 'Scalr'")


def test_malformed_func(project, capsys):
    start = append_native(project, GOOD_OP.replace(" -> Tensor", ""))
    run_expecting_error(project, capsys, start + 1, "malformed func", "->")


def test_duplicate_overload(project, capsys):
    start = append_native(project, GOOD_OP + GOOD_OP)
    run_expecting_error(project, capsys, start + 7, "duplicate overload 'myop'",
                        f"first declared at schema/native_functions.yaml:{start + 1}")


def test_default_of_wrong_type(project, capsys):
    start = append_native(project, GOOD_OP.replace("alpha=1", "alpha=abc"))
    run_expecting_error(project, capsys, start + 1, "default 'abc'", "alpha")


def test_dispatch_to_missing_kernel(project, capsys):
    start = append_native(project, GOOD_OP.replace("CPU: add", "CPU: no_such_kernel"))
    run_expecting_error(project, capsys, start + 3, "kernel 'no_such_kernel'", "does not exist",
                        "kernels/cpu/")


def test_unknown_dispatch_key(project, capsys):
    start = append_native(project, GOOD_OP.replace("CPU: add", "GPU: add"))
    run_expecting_error(project, capsys, start + 3, "unknown dispatch key 'GPU'", "expected one of")


def test_out_variant_mismatch(project, capsys):
    text = """
- func: myop.out(Tensor self, *, Tensor(a!) out) -> (Tensor(a!), Tensor(b!))
  dispatch:
    CPU: add
"""
    start = append_native(project, text)
    run_expecting_error(project, capsys, start + 1, "1 out argument(s) but 2 return(s)")


def test_inplace_not_returning_self(project, capsys):
    text = """
- func: myop_(Tensor(a!) self) -> Tensor
  dispatch:
    CPU: add_
"""
    start = append_native(project, text)
    run_expecting_error(project, capsys, start + 1, "in-place op 'myop_' must return self")


def test_inplace_without_dispatch_needs_a_functional_twin(project, capsys):
    start = append_native(project, "\n- func: myop_(Tensor(a!) self, Scalar alpha) -> Tensor(a!)\n")
    run_expecting_error(project, capsys, start + 1, "in-place op 'myop_' has no dispatch entry",
                        "functional 'myop' with the same arguments")


def test_inplace_without_dispatch_is_derived_from_its_functional(project, capsys):
    append_native(project, GOOD_OP + "\n- func: myop_(Tensor(a!) self, Scalar alpha) -> Tensor(a!)\n"
                  "  variants: function, method\n")
    assert main(["--root", str(project)]) == 0
    regs = (project / "generated" / "registrations.py").read_text()
    assert ("_o.myop_.register('CompositeExplicitAutograd', _autogen_inplace(_o.myop), "
            "with_keyset=True)") in regs


def test_autogen_takes_a_full_out_schema_with_torchs_out_names(project):
    append_native(project, GOOD_OP + "  autogen:\n    - myop.grad_input(Tensor self, Scalar alpha=1, "
                  "*, Tensor(a!) grad_input) -> Tensor(a!)\n")
    assert main(["--root", str(project)]) == 0
    gen = project / "generated"
    regs = (gen / "registrations.py").read_text()
    assert "_o.myop_grad_input.register('CompositeExplicitAutograd', _autogen_out(_o.myop))" in regs
    assert "myop_grad_input = _Op(\"aten\", 'myop', 'grad_input'" in (gen / "ops.py").read_text()


@pytest.mark.parametrize("schema,phrase", [
    ("myop.grad_input(Tensor self, Scalar alpha=2, *, Tensor(a!) grad_input) -> Tensor(a!)",
     "must take the arguments of 'myop' (expected 'Tensor self, Scalar alpha=1'"),
    ("myop.grad_input(Tensor self, Scalar alpha=1) -> Tensor", "is not an out= variant"),
    ("other.grad_input(Tensor self, Scalar alpha=1, *, Tensor(a!) g) -> Tensor(a!)",
     "must name an overload of 'myop'"),
    (("myop.grad_input(Tensor self, Scalar alpha=1, *, Tensor(a!) g, Tensor(b!) h) -> "
      "(Tensor(a!), Tensor(b!))"), "needs one out Tensor per returned Tensor of 'myop' (1)"),
    ("myop.grad_input(Tensor self", "malformed autogen schema"),
])
def test_autogen_out_schema_errors(project, capsys, schema, phrase):
    start = append_native(project, GOOD_OP + f"  autogen:\n    - {schema}\n")
    run_expecting_error(project, capsys, start + 6, phrase)   # the autogen: line


def test_derivative_for_undeclared_op(project, capsys):
    (project / "schema" / "derivatives.yaml").write_text(
        "# header\n- name: not_an_op(Tensor self) -> Tensor\n  self: grad\n")
    err = run_expecting_error(project, capsys, 2, "derivative for 'not_an_op'", "not declared")
    assert "derivatives.yaml:2" in err


def test_check_detects_drift(project, capsys):
    assert main(["--root", str(project), "--check"]) == 0
    (project / "generated" / "ops.py").write_text("# edited by hand\n")
    assert main(["--root", str(project), "--check"]) == 1
    assert "ops.py" in capsys.readouterr().err


@pytest.mark.parametrize("edit,phrase", [
    (lambda t: t.replace("variants: function", "variants: functon"), "unknown variant 'functon'"),
    (lambda t: t + "  tags: [pointwise, shiny]\n", "unknown tag 'shiny'"),
    (lambda t: t.replace("    Meta: add\n", "    Meta: add\n    CompositeImplicitAutograd: matmul\n"),
     "cannot also have backend kernels"),
    (lambda t: t + "  autogen: other.out\n", "autogen 'other.out' must name an overload of 'myop'"),
    (lambda t: t.replace("  dispatch:\n    CPU: add\n    Meta: add\n", ""), "has no dispatch entry"),
    (lambda t: t + "  manual_binding: maybe\n", "'manual_binding' must be true or false"),
])
def test_other_validation_errors(project, capsys, edit, phrase):
    append_native(project, edit(GOOD_OP))
    before = snapshot(project)
    assert main(["--root", str(project)]) == 2
    err = capsys.readouterr().err
    assert phrase in err and "schema/native_functions.yaml:" in err, err
    assert snapshot(project) == before


def test_readme_add_an_op_example_generates(project):
    """The README's worked example (ember.square) goes through codegen as described."""
    readme = (ROOT / "README.md").read_text()
    assert "- func: square(Tensor self) -> Tensor" in readme
    without_readme_example(project)
    append_native(project, """
- func: square(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CPU: square
    Meta: unary_same
  autogen: square.out
  tags: [pointwise]
""")
    kernels = project / "kernels" / "cpu" / "unary.py"
    kernels.write_text(kernels.read_text() + "\n\ndef square(self):\n"
                       "    return from_array(np.square(self._np), self._dtype)\n")
    assert main(["--root", str(project)]) == 0
    gen = project / "generated"
    assert "def square(input, *, out=None):" in (gen / "functions.py").read_text()
    assert "def square(self):" in (gen / "tensor_methods.py").read_text()
    regs = (gen / "registrations.py").read_text()
    assert "_o.square.register('CPU', _cpu_unary.square)" in regs
    assert "_o.square_out.register('CompositeExplicitAutograd', _autogen_out(_o.square))" in regs
    assert "square_out = _Op(\"aten\", 'square', 'out'" in (gen / "ops.py").read_text()


def test_where_resolves_keys_and_reports_no_match(capsys):
    from codegen.__main__ import main as codegen_main
    assert codegen_main(["where", "# schema/native_functions.yaml: neg(Tensor self) -> Tensor",
                         "--root", str(ROOT)]) == 0
    out = capsys.readouterr().out
    assert "schema/native_functions.yaml:" in out and "schema/derivatives.yaml:" in out
    assert codegen_main(["where", "no_such_op", "--root", str(ROOT)]) == 1
    assert "no schema entry matches 'no_such_op'" in capsys.readouterr().err
