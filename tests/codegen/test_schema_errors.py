"""Error paths of the codegen front end not reached by test_faults/test_derivatives: the
YAML loader, native_functions entries and derivatives entries, each failing with
`file:line: what is wrong (what was expected)`."""
from __future__ import annotations

from pathlib import Path

import pytest

from codegen.derivatives import parse_derivatives
from codegen.kernel_index import KernelIndex
from codegen.loader import CodegenError, load_yaml_list, load_yaml_mapping
from codegen.native import parse_native_functions

ROOT = Path(__file__).resolve().parents[2]
KERNELS = KernelIndex(ROOT / "kernels")


def _raises(fn, text, tmp_path, line, phrase):
    path = tmp_path / "f.yaml"
    path.write_text(text)
    with pytest.raises(CodegenError) as info:
        fn(path)
    assert f"f.yaml:{line}:" in str(info.value), info.value
    assert phrase in str(info.value), info.value


@pytest.mark.parametrize("text,line,phrase", [
    ("- func: a\n  x: [1\n", 3, "YAML syntax error"),
    ("func: a\n", 1, "top level must be a list of entries"),
    ("- func: a\n- just text\n", 2, "each entry must be a mapping"),
    ("- func: a\n  func: b\n", 2, "duplicate key 'func'"),
], ids=["syntax", "not_a_list", "entry_not_mapping", "duplicate_key"])
def test_loader_list_errors(tmp_path, text, line, phrase):
    _raises(lambda p: load_yaml_list(p, "f.yaml"), text, tmp_path, line, phrase)


@pytest.mark.parametrize("text,line,phrase", [
    ("cpu: [1\n", 2, "YAML syntax error"), ("- a\n", 1, "top level must be a mapping"),
], ids=["syntax", "not_a_mapping"])
def test_loader_mapping_errors(tmp_path, text, line, phrase):
    _raises(lambda p: load_yaml_mapping(p, "f.yaml"), text, tmp_path, line, phrase)


def test_loader_empty_files(tmp_path):
    (tmp_path / "e.yaml").write_text("# nothing\n")
    assert load_yaml_list(tmp_path / "e.yaml", "e") == []
    assert load_yaml_mapping(tmp_path / "e.yaml", "e") == ({}, None)


OK = "  dispatch:\n    CPU: add\n"


@pytest.mark.parametrize("text,line,phrase", [
    ("- variants: function\n", 1, "entry has no 'func'"),
    ("- func: [1]\n", 1, "'func' must be a string schema"),
    ("- func: myop(Tensor self -> Tensor\n" + OK, 1, "malformed func"),
    ("- func: myop(Tensor self, int x=abc) -> Tensor\n" + OK, 1, "abc"),
    ("- func: myop(Tensor self) -> Tensor\n  variants: 3\n" + OK, 2,
     "'variants' must be a comma-separated string or a list of strings"),
    ("- func: myop(Tensor self) -> Tensor\n  dispatch: add\n", 2, "'dispatch' must be a mapping"),
    ("- func: myop(Tensor self) -> Tensor\n  dispatch:\n    CPU: 3\n", 2,
     "must name a kernel function"),
    (("- func: myop(Tensor self) -> Tensor\n  dispatch:\n"
      "    CompositeImplicitAutograd: l1_loss\n    CPU: add\n"), 2,
     "cannot also have backend kernels"),
    ("- func: myop.out(Tensor self, *, Tensor(a!) out) -> (Tensor(a!), Tensor)\n" + OK, 1,
     "has 1 out argument(s) but 2 return(s)"),
    ("- func: myop.out(Tensor self, *, Tensor(a!) out) -> Tensor(b!)\n" + OK, 1,
     "does not match out argument"),
    ("- func: myop(Tensor self) -> (Tensor, int)\n  autogen: myop.out\n" + OK, 2,
     "cannot autogenerate 'myop.out': return 'int' is not a Tensor"),
    ("- func: myop(Tensor self) -> Tensor\n  autogen: myop.out(Tensor self, *,\n" + OK, 2,
     "malformed autogen schema"),
], ids=["no_func", "func_not_string", "malformed_func", "bad_default", "variants_type",
        "dispatch_not_mapping", "kernel_not_identifier", "composite_and_backend",
        "out_count", "out_annotation", "autogen_non_tensor", "autogen_malformed"])
def test_native_entry_errors(tmp_path, text, line, phrase):
    _raises(lambda p: parse_native_functions(load_yaml_list(p, "f.yaml"), KERNELS), text,
            tmp_path, line, phrase)


NATIVE = """
- func: myop(Tensor self, Tensor other) -> Tensor
  dispatch:
    CPU: add
- func: mycat(Tensor[] tensors, Tensor[] more) -> Tensor
  dispatch:
    CPU: add
- func: mytwo(Tensor self) -> (Tensor a, Tensor b)
  dispatch:
    CPU: add
"""


@pytest.mark.parametrize("text,line,phrase", [
    ("- name: myop(Tensor self, Tensor other\n  self: grad\n", 1, "malformed name"),
    ("- name: myop\n  self: 3\n  other: grad\n", 2, "formula for self must be a string"),
    ("- name: mycat\n  tensors: grad\n  more: grad\n", 1,
     "at most one differentiable Tensor[] input is supported"),
    ("- name: mytwo\n  self: grad\n", 2, "'grad' is ambiguous"),
], ids=["malformed_name", "formula_not_string", "two_tensor_lists", "grad_ambiguous"])
def test_derivative_entry_errors(tmp_path, text, line, phrase):
    (tmp_path / "n.yaml").write_text(NATIVE)
    fns = parse_native_functions(load_yaml_list(tmp_path / "n.yaml", "n.yaml"), KERNELS)
    _raises(lambda p: parse_derivatives(load_yaml_list(p, "f.yaml"), fns, set(), set()), text,
            tmp_path, line, phrase)
