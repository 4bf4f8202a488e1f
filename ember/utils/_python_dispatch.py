"""TorchDispatchMode and helpers, as in torch.utils._python_dispatch."""
from ..dispatch.python_dispatch import (  # noqa: F401
    TorchDispatchMode,
    _get_current_dispatch_mode,
    _pop_mode,
    _push_mode,
    is_traceable_wrapper_subclass,
)
