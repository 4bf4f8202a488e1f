"""torch.nn.modules.pixelshuffle's path for PixelShuffle, PixelUnshuffle (defined with the other vision layers in
vision.py)."""
from .vision import PixelShuffle, PixelUnshuffle  # noqa: F401
