"""Where the CUDA C sources and headers are: ember's kernels (kernels/cuda) and NVIDIA's
headers (cuda_fp16.h, cuda_bf16.h, vector_types.h) from the `nvidia-cuda-runtime` and
`nvidia-cuda-crt` wheels, `$EMBER_CUDA_INCLUDE` or a CUDA toolkit."""
from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from ember.kernels import cuda as _kernels_cuda

KERNEL_DIR = Path(_kernels_cuda.__file__).resolve().parent


def sources() -> dict[str, Path]:
    """Every kernel source by module name: {'elementwise': .../elementwise.cu, ...}."""
    return {p.stem: p for p in sorted(KERNEL_DIR.glob("*.cu"))}


def headers_digest() -> str:
    """A hash of ember's own headers (a change in one recompiles every module)."""
    h = hashlib.sha256()
    for p in sorted(KERNEL_DIR.glob("*.cuh")) + sorted(KERNEL_DIR.glob("*.h")):
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


@functools.cache
def cuda_include_dir() -> str:
    """The folder holding cuda_fp16.h; OSError with the fix when there is none."""
    candidates = [os.environ.get("EMBER_CUDA_INCLUDE", "")]
    try:
        import nvidia
        candidates += [os.path.join(p, sub, "include") for p in nvidia.__path__
                       for sub in ("cu13", "cu12", "cuda_runtime")]
    except ImportError:
        pass
    candidates += ["/usr/local/cuda/include"]
    for c in candidates:
        if c and os.path.exists(os.path.join(c, "cuda_fp16.h")) and os.path.exists(
                os.path.join(c, "crt", "host_defines.h")):
            return c
    raise OSError("CUDA headers (cuda_fp16.h) not found: pip install nvidia-cuda-runtime "
                  "nvidia-cuda-crt, or set EMBER_CUDA_INCLUDE to a CUDA include folder")
