"""`ember.backends.mkldnn`: torch.backends.mkldnn's flags (ember has no oneDNN)."""
import sys

from . import set_flags

enabled = True
deterministic = False


def is_available() -> bool:
    return False


def flags(enabled=False, deterministic=False):
    """Sets the flags for a block."""
    return set_flags(sys.modules[__name__], enabled=enabled, deterministic=deterministic)
