"""torch.nn.modules.fold's path for Fold, Unfold (defined with the other vision layers in
vision.py)."""
from .vision import Fold, Unfold  # noqa: F401
