"""torch.nn.modules.channelshuffle's path for ChannelShuffle (defined with the other vision layers in
vision.py)."""
from .vision import ChannelShuffle  # noqa: F401
