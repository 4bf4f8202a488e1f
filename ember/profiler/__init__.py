"""`ember.profiler`: torch.profiler's API over the dispatcher's observer hook.

    >>> from ember.profiler import profile, record_function, ProfilerActivity
    >>> with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    ...     with record_function("forward"):
    ...         y = ember.ones(2, 3) + 1
    >>> [(e.name, e.input_shapes) for e in prof.events()]
    [('forward', []), ('aten::ones', [[], [], [], [], []]), ('aten::add', [[2, 3], [], []])]

`print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))` prints torch's
table; `prof.export_chrome_trace("trace.json")` writes a trace for chrome://tracing or
Perfetto.

Every op call is an `aten::<name>` event with its input shapes, nested under the
record_function ranges and ops that called it; backward adds
`autograd::engine::evaluate_function: <Node>` events, optimizers `Optimizer.step#SGD.step`.
Nothing of this package is imported by `import ember`: while no profiler runs, an op
pays one `observers.active is not None` check (ember/dispatch/observers.py).
"""
from ._autograd_profiler import record_function
from .profiler import (
    ProfilerAction,
    ProfilerActivity,
    _KinetoProfile,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = ["ProfilerAction", "ProfilerActivity", "_KinetoProfile", "profile", "record_function",
           "schedule", "supported_activities", "tensorboard_trace_handler"]
