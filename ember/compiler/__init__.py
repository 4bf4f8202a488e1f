"""ember.compiler (torch.compiler): `disable`, `reset`, `list_backends`, `is_compiling`."""
from .._dynamo import disable, list_backends, reset
from .._guards import is_compiling

__all__ = ["disable", "is_compiling", "list_backends", "reset"]
