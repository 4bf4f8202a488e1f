"""ember.amp: automatic mixed precision.

    >>> model, loss_fn = nn.Linear(4, 1), nn.MSELoss()
    >>> optimizer = ember.optim.SGD(model.parameters(), lr=0.1)
    >>> x, y = ember.randn(8, 4), ember.randn(8, 1)
    >>> scaler = ember.amp.GradScaler("cpu")
    >>> with ember.autocast("cpu"):
    ...     out = model(x)              # linear runs in bfloat16
    ...     loss = loss_fn(out, y)      # mse_loss in float32
    >>> out.dtype, loss.dtype
    (ember.bfloat16, ember.float32)
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
    is_autocast_available,
    is_autocast_cache_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from .grad_scaler import GradScaler  # noqa: F401

