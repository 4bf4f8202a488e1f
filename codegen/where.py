"""`python -m codegen where QUERY`: from a generated comment to its YAML line.

Generated code points at schema entries by their key (`# schema/native_functions.yaml:
neg(Tensor self) -> Tensor`), not by line number, so that adding one op changes only that
op's lines in the generated diff. This resolves a key, a qualified overload (`add.Tensor`)
or an op name (`add`: every overload) to `file:line` in each schema that mentions it:

    >>> print(where(Path("."), "neg.out"))   # doctest: +ELLIPSIS
    schema/native_functions.yaml:...: neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!) (autogen of neg)
"""
from __future__ import annotations

from pathlib import Path

from .autocast import parse_autocast
from .derivatives import helper_names, parse_derivatives
from .kernel_index import KernelIndex
from .loader import load_yaml_list
from .native import parse_native_functions


def _entries(root: Path):
    """(key text, qualified overload, op name, loc) for every native function, derivative
    and autocast item."""
    from .pipeline import AUTOCAST, DERIVATIVES, FORMULA_HELPERS, NATIVE
    fns = parse_native_functions(load_yaml_list(root / NATIVE, NATIVE),
                                 KernelIndex(root / "kernels"))
    for fn in fns:
        yield fn.ref, fn.qualified, fn.op_name, fn.loc
    if (root / DERIVATIVES).exists():
        helpers, forward = helper_names(root / FORMULA_HELPERS)
        for d in parse_derivatives(load_yaml_list(root / DERIVATIVES, DERIVATIVES), fns,
                                   helpers, forward):
            yield d.ref, d.qualified, d.fn.op_name, d.loc
    for r in parse_autocast(root / AUTOCAST, AUTOCAST, fns)[1]:
        yield r.ref, r.fn.qualified, r.fn.op_name, r.loc


def _normal(query: str) -> str:
    """A query as a key: without a leading '#', file prefix and '.default'."""
    q = query.strip().lstrip("#").strip()
    if ".yaml: " in q:
        q = q.split(".yaml: ", 1)[1]
    return q.removesuffix(".default")


def where(root: Path, query: str) -> str:
    """One line `file:line: key` per matching entry (empty string: nothing matches)."""
    q = _normal(query)
    lines = []
    for ref, qualified, name, loc in _entries(Path(root)):
        key = ref.split(": ", 1)[1]
        if q in (key, key.split(" (autogen of ")[0], qualified, name) or \
                (":" in q and key.endswith(q)):
            lines.append(f"{loc}: {key}")
    return "\n".join(lines)
