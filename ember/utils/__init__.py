"""ember.utils: `_python_dispatch` (TorchDispatchMode) and friends."""
from . import _python_dispatch  # noqa: F401
