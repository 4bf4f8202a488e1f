"""Generated code is current, and the same bytes under any PYTHONHASHSEED."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import hashlib, sys
from pathlib import Path
from codegen.pipeline import generate_files
files = generate_files(Path("."))
h = hashlib.sha256()
for name, text in files.items():
    h.update(name.encode()); h.update(text.encode())
print(h.hexdigest())
"""


def _digest(seed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True)
    return out.stdout.strip()


def test_same_bytes_under_any_hash_seed():
    digests = {_digest(s) for s in ("0", "1", "12345")}
    assert len(digests) == 1


def test_committed_output_is_current():
    from codegen.pipeline import generate_files
    files = generate_files(ROOT)
    for name, text in files.items():
        assert (ROOT / "generated" / name).read_text() == text, f"generated/{name} is stale"


def test_every_generated_file_has_a_header_and_source_lines():
    from codegen.pipeline import generate_files
    files = generate_files(ROOT)
    for name, text in files.items():
        assert text.startswith("# @generated"), name
    ops = files["ops.py"]
    assert "# schema/native_functions.yaml:" in ops
    # every OpOverload definition is preceded by its YAML location
    n_ops = ops.count(" = _Op(")
    assert ops.count("# schema/native_functions.yaml:") >= n_ops
    digest = hashlib.sha256(ops.encode()).hexdigest()
    assert len(digest) == 64
