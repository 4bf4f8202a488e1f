"""schema/autocast.yaml -> one `AutocastRule` per (device type, overload), and the code of
the wrapper each rule registers at AutocastCPU / AutocastCUDA.

    >>> from codegen.kernel_index import KernelIndex
    >>> from codegen.loader import load_yaml_list
    >>> from codegen.native import parse_native_functions
    >>> path = Path("schema/native_functions.yaml")
    >>> entries = load_yaml_list(path, str(path))    # str(path): the name errors show
    >>> fns = parse_native_functions(entries, KernelIndex(Path("kernels")))
    >>> devices, rules = parse_autocast(Path("schema/autocast.yaml"), "schema/autocast.yaml", fns)
    >>> [(d.device, d.dtype) for d in devices]
    [('cpu', 'bfloat16'), ('cuda', 'float16')]
    >>> r = next(r for r in rules if r.device == "cpu" and r.fn.op_name == "mm")
    >>> r.policy, r.ref
    ('lower_precision_fp', 'schema/autocast.yaml: cpu.lower_precision_fp: mm')

A whole op name (`mm`) stands for its functional overloads; `conv1d.padding` for one.
In-place and out= overloads cannot be listed: torch never autocasts them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import api
from .loader import CodegenError, Loc, line_of, load_yaml_mapping
from .native import NativeFunction

DEVICE_TYPES = ("cpu", "cuda")
LOWER_DTYPES = ("bfloat16", "float16")
POLICIES = ("lower_precision_fp", "fp32", "fp32_set_opt_dtype", "promote", "banned")
SECTION_KEYS = ("dtype",) + POLICIES
KEY_OF_DEVICE = {"cpu": "AutocastCPU", "cuda": "AutocastCUDA"}


@dataclass(frozen=True)
class AutocastRule:
    """`fn` runs under `policy` when autocast is enabled for `device` (yaml line `loc`)."""
    device: str
    policy: str
    fn: NativeFunction
    loc: Loc
    message: str | None = None   # banned ops: the error to raise

    @property
    def ref(self) -> str:
        """The list item by its key: 'schema/autocast.yaml: cpu.lower_precision_fp: mm'."""
        return f"{self.loc.file}: {self.device}.{self.policy}: {self.fn.qualified}"


@dataclass(frozen=True)
class AutocastDevice:
    device: str
    dtype: str
    loc: Loc


def parse_autocast(path: Path, display: str,
                   fns: list[NativeFunction]) -> tuple[list[AutocastDevice], list[AutocastRule]]:
    """Validates autocast.yaml against the declared ops; every error names file:line."""
    if not Path(path).exists():
        return [], []
    data, root = load_yaml_mapping(path, display)
    by_name: dict[str, list[NativeFunction]] = {}
    by_qualified: dict[str, NativeFunction] = {}
    for fn in fns:
        by_name.setdefault(fn.op_name, []).append(fn)
        by_qualified[f"{fn.op_name}.{fn.overload}"] = fn
    devices, rules = [], []
    key_lines = {k.value: k.start_mark.line + 1 for k, _ in root.value} if root else {}
    for device, section in (data or {}).items():
        where = Loc(display, key_lines[device])
        if device not in DEVICE_TYPES:
            raise CodegenError(where, f"unknown device type '{device}' "
                               f"(expected one of {', '.join(DEVICE_TYPES)})")
        if not isinstance(section, dict):
            raise CodegenError(where, f"section '{device}' must be a mapping "
                               f"(expected keys {', '.join(SECTION_KEYS)})")
        for key in section:
            if key not in SECTION_KEYS:
                raise CodegenError(Loc(display, line_of(root, device, key)),
                                   f"unknown key '{key}' in section '{device}' "
                                   f"(expected one of {', '.join(SECTION_KEYS)})")
        dtype = section.get("dtype")
        if dtype not in LOWER_DTYPES:
            raise CodegenError(Loc(display, line_of(root, device, "dtype")),
                               f"{device}.dtype is {dtype!r} "
                               f"(expected one of {', '.join(LOWER_DTYPES)})")
        devices.append(AutocastDevice(device, dtype, where))
        seen: dict[str, Loc] = {}
        for policy in POLICIES:
            items = section.get(policy) or []
            if not isinstance(items, list):
                raise CodegenError(Loc(display, line_of(root, device, policy)),
                                   f"{device}.{policy} must be a list of op names")
            for i, item in enumerate(items):
                loc = Loc(display, line_of(root, device, policy, i))
                name, message = _item(item, policy, device, loc)
                for fn in _resolve(name, by_name, by_qualified, f"{device}.{policy}", loc):
                    _check_rule(fn, policy, loc, seen)
                    rules.append(AutocastRule(device, policy, fn, loc, message))
    return devices, rules


def _item(item, policy: str, device: str, loc: Loc) -> tuple[str, str | None]:
    if policy == "banned":
        if not (isinstance(item, dict) and set(item) == {"op", "message"}):
            raise CodegenError(loc, f"{device}.banned items need 'op' and 'message' "
                               "(expected '- op: <name>' and 'message: <error text>')")
        return str(item["op"]), str(item["message"])
    if not isinstance(item, str):
        raise CodegenError(loc, f"{device}.{policy} items are op names "
                           f"(expected 'mm' or 'conv1d.padding', got {item!r})")
    return item, None


def _resolve(name, by_name, by_qualified, where, loc) -> list[NativeFunction]:
    if "." in name:
        fn = by_qualified.get(name)
        if fn is None:
            raise CodegenError(loc, f"{where} names '{name}', which is not a declared overload "
                               "(expected <op>.<overload> from schema/native_functions.yaml)")
        if fn.schema.kind() != "functional":
            raise CodegenError(loc, f"{where} names '{name}', which writes its arguments: "
                               "in-place and out= calls are never autocast (expected a "
                               "functional overload)")
        return [fn]
    fns = [fn for fn in by_name.get(name, ()) if fn.schema.kind() == "functional"]
    if not fns:
        raise CodegenError(loc, f"{where} names '{name}', which is not a declared op with a "
                           "functional overload (expected an op from "
                           "schema/native_functions.yaml)")
    return fns


def _check_rule(fn: NativeFunction, policy: str, loc: Loc, seen: dict) -> None:
    key = fn.qualified
    if key in seen:
        raise CodegenError(loc, f"'{key}' is listed twice for one device (first at "
                           f"{seen[key]}; expected each overload in one list)")
    seen[key] = loc
    if not any(a.type.is_tensor_like() for a in fn.schema.arguments.flat()):
        raise CodegenError(loc, f"'{key}' takes no tensor, so there is nothing to autocast")
    if policy == "fp32_set_opt_dtype" and _dtype_arg(fn) is None:
        raise CodegenError(loc, f"'{key}' has no 'ScalarType? dtype' argument "
                           "(fp32_set_opt_dtype needs one; use fp32 instead)")


def _dtype_arg(fn: NativeFunction):
    for a in fn.schema.arguments.flat():
        if a.name == "dtype" and str(a.type) == "ScalarType?":
            return a
    return None


# ------------------------------------------------------------------------------ code


def wrapper_code(rule: AutocastRule, name: str) -> str:
    """The Python source of one wrapper: exclude this autocast key, cast, redispatch below.

    Arguments are cast in schema order; `_cast_list` handles Tensor[] and Tensor?[].
    """
    fn, dev = rule.fn, rule.device
    params = api.call_args(fn.schema)
    tensors = [(p, a) for p, a in zip(params, fn.schema.arguments.flat())
               if a.type.is_tensor_like()]
    head = f"def {name}(keyset, {', '.join(params)}):"
    if rule.policy == "banned":
        return f"{head}\n    raise RuntimeError({rule.message!r})\n"
    lines = [head]
    if rule.policy == "fp32_set_opt_dtype":
        first = tensors[0][0]
        lines.append(f"    if dtype is None and _eligible({first}, {dev!r}):")
        lines.append("        dtype = _FLOAT32")
        call = ", ".join(params)
    else:
        if rule.policy == "lower_precision_fp":
            lines.append(f"    to = _lower_dtype({dev!r})")
        elif rule.policy == "fp32":
            lines.append("    to = _FLOAT32")
        else:
            lines.append(f"    to = _promote_dtype({dev!r}, {', '.join(p for p, _ in tensors)})")
        cast = {}
        for p, a in tensors:
            helper = "_cast_list" if a.type.is_tensor_list() else "_cast"
            cast[p] = f"{helper}({p}, to, {dev!r})"
        call = ", ".join(cast.get(p, p) for p in params)
    lines.append(f"    saved = _exclude(_{dev.upper()}_BIT)")
    lines.append("    try:")
    lines.append(f"        return _o.{fn.ident}.redispatch(keyset & _BELOW_{dev.upper()}, {call})")
    lines.append("    finally:")
    lines.append("        _restore(saved)")
    return "\n".join(lines) + "\n"
