"""The naming/signature layer (codegen.api) on the real schema."""
from __future__ import annotations

from pathlib import Path

import pytest

from codegen import api
from codegen.kernel_index import KernelIndex
from codegen.loader import load_yaml_list
from codegen.native import parse_native_functions
from codegen.render import dunder_contexts

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def fns():
    entries = load_yaml_list(ROOT / "schema/native_functions.yaml", "schema/native_functions.yaml")
    return {f.qualified: f for f in parse_native_functions(entries, KernelIndex(ROOT / "kernels"))}


def test_function_and_method_parameters(fns):
    add, add_out = fns["add.Tensor"], fns["add.out"]
    assert api.py_params(add, method=False, out_fn=add_out) == "input, other, *, alpha=1, out=None"
    assert api.py_params(add, method=True, out_fn=None) == "self, other, *, alpha=1"


def test_int_lists_become_varargs_when_alone(fns):
    # the list also goes by its keyword, like torch's `zeros(size=(2, 3))`
    assert api.py_params(fns["view"], method=True, out_fn=None) == "self, *_size, size=None"
    assert api.py_params(fns["zeros"], method=False, out_fn=None).startswith(
        "*_size, size=None, dtype=None")
    # two positional parameters: no varargs
    assert api.varargs_param(fns["permute"], method=False) is None
    assert api.varargs_param(fns["permute"], method=True).name == "dims"


def test_keyset_expressions(fns):
    assert api.ks_expr(fns["add.Tensor"]) == (
        "self._ks | (other._ks if other.__class__ is _Tensor else 0 if other.__class__ is "
        "float else _ks_num(other)) | (_COMPLEX if alpha.__class__ is _complex else 0)")
    # a complex number in a Scalar argument sets the Complex key (refusals sit there)
    assert api.ks_expr(fns["lt.Scalar"]) == \
        "self._ks | (_COMPLEX if other.__class__ is _complex else 0)"
    assert api.ks_expr(fns["mm"]) == "self._ks | mat2._ks"
    assert api.ks_expr(fns["cat"]) == "_ks_list(tensors)"
    assert api.ks_expr(fns["index.Tensor"]) == "self._ks | _ks_optlist(indices)"
    assert api.ks_expr(fns["linear"]) == "input._ks | weight._ks | (bias._ks if bias is not None else 0)"
    assert api.ks_expr(fns["zeros"]) == "_BACKEND_SELECT" and api.is_factory(fns["zeros"])
    assert api.ks_expr(fns["full"]) == "_BACKEND_SELECT"     # (a Scalar, no tensor)


def test_scalar_twins_of_pointwise_ops_are_hidden(fns):
    groups = api.group_bindings(list(fns.values()), "function")
    assert [b.fn.qualified for b in groups["add"]] == ["add.Tensor"]
    assert groups["add"][0].out_fn.qualified == "add.out"
    # fill_.Tensor is not pointwise: both overloads stay, the Tensor one first
    methods = api.group_bindings(list(fns.values()), "method")
    assert [b.fn.qualified for b in methods["fill_"]] == ["fill_.Tensor", "fill_.Scalar"]


def test_out_variants_fold_into_their_functional_binding(fns):
    groups = api.group_bindings(list(fns.values()), "function")
    assert "out" not in [b.fn.schema.name.overload for b in groups["sum"]]
    dim = next(b for b in groups["sum"] if b.fn.schema.name.overload == "dim_IntList")
    assert dim.out_fn.qualified == "sum.IntList_out"


def test_dunders_map_to_ops(fns):
    d = {c["name"]: c for c in dunder_contexts(list(fns.values()))}
    assert d["__add__"]["call"] == "self, other, 1"
    assert d["__rsub__"]["call"] == "_wrap(other, self), self, 1"
    assert d["__neg__"]["params"] == "self"
    assert d["__matmul__"]["op"]["ident"] == "matmul"
    assert d["__iand__"]["op"]["ident"] == "bitwise_and__Tensor"
    # a dunder whose op is not declared is left out
    without = [fn for fn in fns.values() if fn.op_name != "bitwise_and"]
    assert "__and__" not in {c["name"] for c in dunder_contexts(without)}


def test_python_keywords_are_renamed():
    assert api.py_name("from") == "from_" and api.py_name("self") == "self"


def test_manual_binding_ops_get_no_generated_binding(fns):
    assert fns["to.dtype"].manual_binding
    methods = api.group_bindings(list(fns.values()), "method")
    assert "to" not in methods and "clone" in methods


def test_an_eliding_dunder_must_dispatch_inline(fns, monkeypatch):
    """__add__/__sub__/__mul__/__truediv__ read their keyset from binary_keys, inline: a schema
    that would route one through an entry call is refused with its file:line."""
    from codegen import render
    monkeypatch.setattr(render, "_inline_ks", lambda fn, call: None)
    from codegen.loader import CodegenError
    with pytest.raises(CodegenError, match=r"native_functions\.yaml:\d+: the eliding dunder"):
        dunder_contexts(list(fns.values()))
