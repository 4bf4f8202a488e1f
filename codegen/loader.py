"""YAML loading with line marks, so every error can name file:line.

    >>> path = Path("schema/native_functions.yaml")
    >>> entries = load_yaml_list(path, str(path))    # str(path): the name errors show
    >>> e = next(e for e in entries if e.data["func"].startswith("add.Tensor("))
    >>> e.data["func"], e.data["dispatch"]
    ('add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor',
     {'CPU': 'add', 'CUDA': 'add', 'Meta': 'add'})
    >>> e.loc, e.at("dispatch").line - e.loc.line      # the entry's line; keys have theirs
    (Loc(file='schema/native_functions.yaml', line=...), 2)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml


class CodegenError(Exception):
    """A schema problem: `file:line: what is wrong (what was expected)`."""

    def __init__(self, loc: Loc, message: str):
        self.loc = loc
        self.message = message
        super().__init__(f"{loc}: {message}")


@dataclass(frozen=True)
class Loc:
    file: str
    line: int

    def __str__(self):
        return f"{self.file}:{self.line}"


@dataclass
class Entry:
    """One top-level YAML list item: its data and where each key sits."""
    loc: Loc
    data: dict
    key_lines: dict = field(default_factory=dict)

    def at(self, key) -> Loc:
        return Loc(self.loc.file, self.key_lines.get(key, self.loc.line))


# libyaml's composer when PyYAML was built with it (5x faster); the same nodes and marks.
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _plain(node):
    """A YAML node to Python data, as `yaml.safe_load` would give (scalars stay strings
    except what YAML types)."""
    return yaml.SafeLoader("").construct_document(node) if node is not None else None


def _compose(text: str, display: str):
    """The file's node tree; a syntax error becomes `file:line: YAML syntax error`."""
    try:
        return yaml.compose(text, Loader=_FAST_LOADER)
    except yaml.YAMLError:
        pass    # the pure-Python parser's report names the line its documentation describes
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise CodegenError(Loc(display, mark.line + 1 if mark else 1),
                           f"YAML syntax error: {e.problem} (expected valid YAML)") from None


def load_yaml_list(path: Path, display: str) -> list[Entry]:
    """Loads a YAML file whose top level is a list of mappings."""
    root = _compose(Path(path).read_text(), display)
    if root is None:
        return []
    if not isinstance(root, yaml.SequenceNode):
        raise CodegenError(Loc(display, root.start_mark.line + 1),
                           "top level must be a list of entries (expected '- func: ...')")
    out = []
    for item in root.value:
        loc = Loc(display, item.start_mark.line + 1)
        if not isinstance(item, yaml.MappingNode):
            raise CodegenError(loc, "each entry must be a mapping (expected 'key: value' lines)")
        data, lines = {}, {}
        for k, v in item.value:
            key = k.value
            if key in data:
                raise CodegenError(Loc(display, k.start_mark.line + 1),
                                   f"duplicate key '{key}' (expected each key once per entry)")
            data[key] = _plain(v)
            lines[key] = k.start_mark.line + 1
        out.append(Entry(loc, data, lines))
    return out


def load_yaml_mapping(path: Path, display: str) -> tuple[dict, dict]:
    """Loads a YAML file whose top level is a mapping; returns (data, node) for line lookups."""
    root = _compose(Path(path).read_text(), display)
    if root is None:
        return {}, None
    if not isinstance(root, yaml.MappingNode):
        raise CodegenError(Loc(display, root.start_mark.line + 1),
                           "top level must be a mapping (expected 'cpu:' / 'cuda:' sections)")
    return _plain(root), root


def line_of(node, *path) -> int:
    """The 1-based line of the value at `path` inside a composed YAML node (best effort)."""
    cur = node
    for p in path:
        if isinstance(cur, yaml.MappingNode):
            nxt = None
            for k, v in cur.value:
                if k.value == p:
                    nxt = v
                    break
            if nxt is None:
                return cur.start_mark.line + 1
            cur = nxt
        elif isinstance(cur, yaml.SequenceNode) and isinstance(p, int) and p < len(cur.value):
            cur = cur.value[p]
        else:
            break
    return cur.start_mark.line + 1 if cur is not None else 1
