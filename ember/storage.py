"""`ember.storage`: torch.storage's module path for `UntypedStorage`."""
from .core.storage import Storage as UntypedStorage  # noqa: F401
