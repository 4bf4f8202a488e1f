"""ember.compiler (torch.compiler): `disable`, `reset`, `list_backends`."""
from .._dynamo import disable, list_backends, reset

__all__ = ["disable", "list_backends", "reset"]
