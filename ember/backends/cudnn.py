"""`ember.backends.cudnn`: torch.backends.cudnn's flags (ember has no cuDNN)."""
import sys

from . import set_flags

enabled = True
benchmark = False
benchmark_limit = None  # (None on torch builds without cuDNN)
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version():
    return None


def is_acceptable(tensor) -> bool:
    return False


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True):
    """Sets the flags for a block."""
    return set_flags(sys.modules[__name__], enabled=enabled, benchmark=benchmark,
                     benchmark_limit=benchmark_limit, deterministic=deterministic,
                     allow_tf32=allow_tf32)
