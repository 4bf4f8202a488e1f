"""`ember.utils.dlpack`: torch.utils.dlpack's module path for `from_dlpack`."""
from ..core.factories import from_dlpack  # noqa: F401
