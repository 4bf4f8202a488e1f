"""`ember.autograd.profiler`: torch.autograd.profiler's names (ember/profiler/ has them)."""
from ..profiler._autograd_profiler import (
    EventList,
    FunctionEvent,
    FunctionEventAvg,
    profile,
    record_function,
)

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]
