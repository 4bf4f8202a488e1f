"""`python -m codegen [--check] [--root DIR] [--out DIR]`, and
`python -m codegen where QUERY [--root DIR]` (a generated comment's key, an overload or an
op name -> file:line of its schema entries; see codegen/where.py).

Writes into a temporary folder first and swaps it in only when everything
rendered, so a bad schema leaves generated/ exactly as it was.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from .loader import CodegenError
from .pipeline import generate_files


def write_tree(files: dict[str, str], out: Path) -> None:
    """Replaces `out` with exactly `files` (name -> text), atomically per folder."""
    out = out.resolve()
    tmp = Path(tempfile.mkdtemp(prefix=".generated-", dir=out.parent))
    try:
        for name, text in files.items():
            (tmp / name).write_text(text)
        old = out.with_name(out.name + ".old")
        if old.exists():
            shutil.rmtree(old)
        if out.exists():
            out.rename(old)
        tmp.rename(out)
        if old.exists():
            shutil.rmtree(old)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def diff_tree(files: dict[str, str], out: Path) -> list[str]:
    """Names of files that differ between `files` and the folder `out`."""
    problems = []
    existing = {p.name for p in out.glob("*.py")} if out.exists() else set()
    for name, text in files.items():
        p = out / name
        if not p.exists() or p.read_text() != text:
            problems.append(name)
    problems += sorted(existing - set(files))
    return problems


def where_main(argv) -> int:
    from .where import where
    ap = argparse.ArgumentParser(prog="python -m codegen where", description=where.__doc__)
    ap.add_argument("query", help="'add.Tensor', 'add', or a generated comment's key")
    ap.add_argument("--root", default=".", help="project root (holds schema/)")
    a = ap.parse_args(argv)
    try:
        found = where(Path(a.root), a.query)
    except CodegenError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not found:
        print(f"no schema entry matches {a.query!r}", file=sys.stderr)
        return 1
    print(found)
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["where"]:
        return where_main(argv[1:])
    ap = argparse.ArgumentParser(prog="python -m codegen", description=__doc__)
    ap.add_argument("--check", action="store_true", help="fail if generated/ is not current")
    ap.add_argument("--root", default=".", help="project root (holds schema/, templates/, kernels/)")
    ap.add_argument("--out", default=None, help="output folder (default: <root>/generated)")
    a = ap.parse_args(argv)
    root = Path(a.root)
    out = Path(a.out) if a.out else root / "generated"
    try:
        files = generate_files(root)
    except CodegenError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.check:
        stale = diff_tree(files, out)
        if stale:
            print(f"generated/ is not current: {', '.join(stale)} differ. Run `make generate`.",
                  file=sys.stderr)
            return 1
        print("generated/ is current")
        return 0
    write_tree(files, out)
    print(f"wrote {len(files)} files to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
