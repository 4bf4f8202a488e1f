"""ember.amp: automatic mixed precision.

    >>> scaler = ember.amp.GradScaler("cpu")
    >>> with ember.autocast("cpu"):
    ...     loss = loss_fn(model(x), y)
    >>> scaler.scale(loss).backward()
    >>> scaler.step(optimizer)
    >>> scaler.update()

`autocast` (autocast_mode.py) picks per-op precision from schema/autocast.yaml;
`GradScaler` (grad_scaler.py) scales the loss so float16 gradients do not underflow.
"""
from .autocast_mode import (  # noqa: F401
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_dtype,
    is_autocast_cache_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from .grad_scaler import GradScaler  # noqa: F401


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast supports `device_type` ("cpu" and "cuda")."""
    return device_type in ("cpu", "cuda")
