"""Ops with several named returns: their bindings give named tuples (torch.return_types)
and their out= variants take a tuple of out tensors."""
from __future__ import annotations

from pathlib import Path

import pytest

from codegen import api
from codegen.kernel_index import KernelIndex
from codegen.loader import load_yaml_list
from codegen.native import parse_native_functions
from codegen.render import binding_context, return_type, return_types

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def fns():
    entries = load_yaml_list(ROOT / "schema/native_functions.yaml", "schema/native_functions.yaml")
    return {f.qualified: f for f in parse_native_functions(entries, KernelIndex(ROOT / "kernels"))}


def test_named_returns_give_a_return_type(fns):
    assert return_type(fns["max.dim"]) == ("max", ("values", "indices"))
    assert return_type(fns["max.dim_max"]) == ("max_out", ("values", "indices"))
    assert return_type(fns["var_mean.correction"]) is None     # unnamed: a plain tuple
    assert return_type(fns["sum.dim_IntList"]) is None


def test_bindings_wrap_results_and_unpack_out_tuples(fns):
    groups = api.group_bindings(list(fns.values()), "function")
    ctx = binding_context("max", groups["max"], method=False)
    dim = next(c for c in ctx["cases"] if c["fn"]["overload"] == "dim")
    assert dim["wrap"] == ("_rt_max._make(", ")")
    assert dim["out_wrap"] == ("_rt_max_out._make(", ")") and dim["out_call"].endswith(", *out")
    full = next(c for c in ctx["cases"] if c["fn"]["overload"] == "default")
    assert full["wrap"] == ("", "") and full["out_call"].endswith(", out")
    names = {rt["name"] for rt in return_types(groups)}
    assert {"max", "max_out", "min", "min_out"} <= names


def test_generated_max_returns_a_named_tuple():
    import ember
    r = ember.max(ember.tensor([[1.0, 4.0], [3.0, 2.0]]), 1)
    assert type(r) is ember.return_types.max and r.indices.tolist() == [1, 0]
    r = ember.tensor([[1.0, 4.0]]).min(dim=1, keepdim=True)
    assert type(r) is ember.return_types.min and r.values.shape == (1, 1)
