"""torch.nn.modules.upsampling's path for Upsample, UpsamplingBilinear2d, UpsamplingNearest2d (defined with the other vision layers in
vision.py)."""
from .vision import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: F401
