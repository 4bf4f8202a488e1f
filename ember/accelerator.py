"""`ember.accelerator`: torch.accelerator's device-agnostic queries. Ember has no
accelerator backend yet, so none is ever available (as on a CPU-only torch build).

>>> ember.accelerator.is_available(), ember.accelerator.current_accelerator()
(False, None)
"""
from __future__ import annotations


def current_accelerator(check_available: bool = False):
    """The accelerator device type in use: None (ember runs on the CPU)."""


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0
