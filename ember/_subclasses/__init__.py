"""Tensor subclasses torch keeps here: FakeTensor and its mode (ember._subclasses.fake_tensor)."""
from .fake_tensor import (
    DynamicOutputShapeException,
    FakeTensor,
    FakeTensorMode,
    UnsupportedFakeTensorException,
)

__all__ = ["DynamicOutputShapeException", "FakeTensor", "FakeTensorMode",
           "UnsupportedFakeTensorException"]
