"""schema/autocast.yaml: what codegen accepts, what it emits, and the file:line errors."""
from __future__ import annotations

from pathlib import Path

import pytest
from test_faults import project, run_expecting_error  # noqa: F401  (fixture)

from codegen.__main__ import main
from codegen.autocast import parse_autocast
from codegen.kernel_index import KernelIndex
from codegen.loader import load_yaml_list
from codegen.native import parse_native_functions

ROOT = Path(__file__).resolve().parents[2]


def write_policy(root, text):
    (root / "schema" / "autocast.yaml").write_text(text)


def native_fns():
    entries = load_yaml_list(ROOT / "schema/native_functions.yaml", "native")
    return parse_native_functions(entries, KernelIndex(ROOT / "kernels"))


def test_whole_op_names_expand_to_functional_overloads_only(tmp_path):
    path = tmp_path / "autocast.yaml"
    path.write_text("cpu:\n  dtype: bfloat16\n  fp32:\n    - prod\n    - pow.Scalar\n")
    devices, rules = parse_autocast(path, "autocast.yaml", native_fns())
    assert [(d.device, d.dtype) for d in devices] == [("cpu", "bfloat16")]
    assert sorted(r.fn.qualified for r in rules) == ["pow.Scalar", "prod", "prod.dim_int"]
    assert {str(r.loc) for r in rules if r.fn.op_name == "prod"} == {"autocast.yaml:4"}


def test_generated_wrapper_shape(project):  # noqa: F811  (the fixture)
    text = (project / "generated" / "autocast.py").read_text()
    assert "def cpu_mm(keyset, self, mat2):" in text
    assert "_o.mm.register(\"AutocastCPU\", cpu_mm, with_keyset=True)" in text
    # fp32_set_opt_dtype fills dtype instead of casting; banned raises torch's message
    assert "if dtype is None and _eligible(self, 'cuda'):" in text
    assert "are unsafe to autocast" in text
    # one comment per wrapper points at its yaml line
    assert "# schema/autocast.yaml:" in text


BAD = [
    ("xpu:\n  dtype: float16\n", 1, "unknown device type 'xpu'"),
    ("cpu:\n  dtype: float32\n", 2, "cpu.dtype is 'float32'"),
    ("cpu:\n  lower_precision_fp: [mm]\n", 2, "cpu.dtype is None"),
    ("cpu:\n  dtype: bfloat16\n  lower: [mm]\n", 3, "unknown key 'lower'"),
    ("cpu:\n  dtype: bfloat16\n  fp32:\n    - mm\n    - not_an_op\n", 5,
     "'not_an_op', which is not a declared op"),
    ("cpu:\n  dtype: bfloat16\n  fp32:\n    - mm.nope\n", 4, "not a declared overload"),
    ("cpu:\n  dtype: bfloat16\n  fp32:\n    - exp\n  promote:\n    - exp\n", 6,
     "'exp' is listed twice for one device (first at schema/autocast.yaml:4"),
    ("cpu:\n  dtype: bfloat16\n  fp32:\n    - exp_.default\n", 4, "never autocast"),
    ("cpu:\n  dtype: bfloat16\n  fp32:\n    - add.out\n", 4, "never autocast"),
    ("cpu:\n  dtype: bfloat16\n  fp32_set_opt_dtype:\n    - exp\n", 4,
     "has no 'ScalarType? dtype' argument"),
    ("cpu:\n  dtype: bfloat16\n  banned:\n    - mm\n", 4, "need 'op' and 'message'"),
    ("cpu:\n  dtype: bfloat16\n  fp32: mm\n", 3, "must be a list"),
    ("cpu: [mm]\n", 1, "section 'cpu' must be a mapping"),
    ("cpu:\n  dtype: bfloat16\n  fp32:\n    - arange\n", 4, "takes no tensor"),
    ("cpu:\n  dtype: bfloat16\n  fp32:\n    - [mm]\n", 4, "items are op names"),
]


@pytest.mark.parametrize("text,line,phrase", BAD, ids=[b[2][:30] for b in BAD])
def test_bad_policies_name_file_line_and_leave_generated_alone(project, capsys, text, line,  # noqa: F811
                                                               phrase):
    write_policy(project, text)
    err = run_expecting_error(project, capsys, line, phrase)
    assert "schema/autocast.yaml" in err


def test_same_op_may_be_listed_for_each_device(project):  # noqa: F811  (the fixture)
    write_policy(project, "cpu:\n  dtype: bfloat16\n  fp32: [exp]\n"
                          "cuda:\n  dtype: float16\n  fp32: [exp]\n")
    assert main(["--root", str(project)]) == 0
    text = (project / "generated" / "autocast.py").read_text()
    assert "def cpu_exp(" in text and "def cuda_exp(" in text
