"""OpInfo coverage: how many of torch's OpInfo entries (torch.testing._internal's op_db)
name a function ember offers, resolved like torch's: `linalg.solve` as ember.linalg.solve,
`nn.functional.conv2d` as ember.nn.functional.conv2d, else a Tensor method (`__radd__`).

    .venv/bin/python benchmarks/opinfo_coverage.py [--missing] [--json out.json]
"""
from __future__ import annotations

import threads  # noqa: F401  (first, like every benchmark script: pins the BLAS threads)

# isort: split
import argparse
import json

import ember


def resolves(name: str) -> bool:
    """Whether ember has the function (or Tensor method) torch's OpInfo `name` tests."""
    obj = ember
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return hasattr(ember.Tensor, name)
    return True


def coverage():
    from torch.testing._internal.common_methods_invocations import op_db
    names = [op.name for op in op_db]
    found = [n for n in names if resolves(n)]
    return len(names), found, sorted({n for n in names if not resolves(n)})


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--missing", action="store_true", help="list the unresolved names")
    ap.add_argument("--json", help="also write the counts to this JSON file")
    args = ap.parse_args(argv)
    total, found, missing = coverage()
    print(f"ember resolves {len(found)} of torch's {total} OpInfo entries")
    linalg = [n for n in missing if n.startswith("linalg.")]
    print(f"torch.linalg entries unresolved: {linalg or 'none'}")
    if args.missing:
        print("\n".join(missing))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"total": total, "resolved": len(found), "missing": missing}, f, indent=1)


if __name__ == "__main__":
    main()
