"""ember.utils: `_python_dispatch` (TorchDispatchMode), `data` (Dataset, DataLoader),
`checkpoint` and friends."""
from . import _python_dispatch, checkpoint, data, dlpack  # noqa: F401
