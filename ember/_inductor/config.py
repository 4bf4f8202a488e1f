"""Settings of ember's code generator (torch._inductor.config's names where torch has one).

- `fusion`: fuse pointwise chains (and a reduction they feed) into numba kernels; off, every
  op runs as its own NumPy call.
- `parallel_threshold`: a kernel iterating over at least this many elements is compiled with
  `parallel=True` (below it, starting threads costs more than it saves). On two cores or
  fewer it never pays (benchmarks/compile.py: `a*b+c` on 10M float32 took 1.4-1.7x the
  serial loop's time on 2 shared cores), so there it is off.
- `recycle_bytes`: a buffer the generated code allocates with at least this many bytes is
  kept by its allocation site and handed out again by the next call once nobody holds it
  (runtime._reuse: no page faults of fresh memory); sys.maxsize turns it off.
- `cache_dir`: where kernel sources are written, so numba's on-disk cache (`cache=True`)
  serves a second process (TORCHINDUCTOR_CACHE_DIR's place: EMBER_INDUCTOR_CACHE_DIR).
- `debug` / `debug_dir`: keep each graph's generated module in `debug_dir` (torch's
  `torch_compile_debug/`; EMBER_COMPILE_DEBUG=1 turns it on).
- `output_code`: log each generated module (EMBER_LOGS=output_code, as TORCH_LOGS).
"""
from __future__ import annotations

import getpass
import os
import sys
import tempfile


def _user():
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001  (no user name in some containers)
        return str(os.getuid())


def _logs():
    return {s.strip().lstrip("+") for s in os.environ.get("EMBER_LOGS", "").split(",")}


fusion = True
parallel_threshold = 1 << 20 if (os.cpu_count() or 1) > 2 else sys.maxsize
recycle_bytes = 1 << 20
cache_dir = os.environ.get("EMBER_INDUCTOR_CACHE_DIR") or os.path.join(
    tempfile.gettempdir(), f"emberinductor_{_user()}")
debug = os.environ.get("EMBER_COMPILE_DEBUG", "") not in ("", "0")
debug_dir = os.path.join(os.getcwd(), "ember_compile_debug")
output_code = "output_code" in _logs()
