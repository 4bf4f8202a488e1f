"""Global numerics switches torch scripts set: float32 matmul precision and deterministic
algorithms. Ember computes on the CPU in full precision and deterministically whatever
they say; they are kept (and read back) as torch keeps them.

>>> ember.set_float32_matmul_precision("high")
>>> ember.get_float32_matmul_precision()
'high'
>>> ember.set_float32_matmul_precision("highest")
"""
from __future__ import annotations

import warnings

_PRECISIONS = ("highest", "high", "medium")
_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}
_state = {"precision": "highest", "deterministic": False, "warn_only": False}


def set_float32_matmul_precision(precision: str) -> None:
    """Sets the internal precision of float32 matmuls ("highest", "high" or "medium")."""
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", stacklevel=2)
        return
    _state["precision"] = precision


def get_float32_matmul_precision() -> str:
    return _state["precision"]


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Asks for deterministic algorithms (ember's always are)."""
    for position, (name, value) in enumerate((("mode", mode), ("warn_only", warn_only)), 1):
        if type(value) is not bool:
            raise TypeError(f"_set_deterministic_algorithms(): argument '{name}' (position "
                            f"{position}) must be bool, not {type(value).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """0 / "default", 1 / "warn" or 2 / "error", as torch."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if type(debug_mode) is not int:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError("invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    return 0 if not _state["deterministic"] else 1 if _state["warn_only"] else 2
