"""ember.utils: `_python_dispatch` (TorchDispatchMode), `data` (Dataset, DataLoader) and
friends."""
from . import _python_dispatch, data  # noqa: F401
