"""Finds the kernels named in `dispatch:` by reading kernels/*/ with `ast` (no imports).

    >>> from codegen.loader import Loc
    >>> KernelIndex(Path("kernels")).find("CPU", "add", Loc("schema/native_functions.yaml", 1))
    'cpu.binary.add'
"""
from __future__ import annotations

import ast
from pathlib import Path

from .loader import CodegenError


class KernelIndex:
    def __init__(self, root: Path):
        self.root = Path(root)
        self._folders: dict[str, dict[str, list[str]]] = {}

    def _scan(self, folder: str) -> dict[str, list[str]]:
        if folder in self._folders:
            return self._folders[folder]
        names: dict[str, list[str]] = {}
        for path in sorted((self.root / folder).glob("*.py")):
            if path.name.startswith("_"):
                continue
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in tree.body:
                found = []
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found = [node.name]
                elif isinstance(node, ast.Assign):
                    found = [t.id for t in node.targets if isinstance(t, ast.Name)]
                for n in found:
                    if not n.startswith("_"):
                        names.setdefault(n, []).append(path.stem)
        self._folders[folder] = names
        return names

    def find(self, key: str, name: str, loc) -> str:
        from .native import KERNEL_FOLDERS
        folders = KERNEL_FOLDERS[key]
        for folder in folders:
            modules = self._scan(folder).get(name)
            if modules:
                if len(set(modules)) > 1:
                    raise CodegenError(loc, f"kernel '{name}' is defined in several modules of "
                                       f"kernels/{folder}: {', '.join(sorted(set(modules)))} "
                                       "(expected one definition)")
                return f"{folder}.{modules[0]}.{name}"
        where = " or ".join(f"kernels/{f}/" for f in folders)
        raise CodegenError(loc, f"dispatch to kernel '{name}' for {key}, which does not exist "
                           f"(expected a top-level function '{name}' in {where})")
