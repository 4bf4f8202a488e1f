"""torch.autograd.profiler's `profile` and `record_function` (`ember.autograd.profiler`).

    >>> with ember.autograd.profiler.profile(record_shapes=True) as prof:
    ...     with ember.autograd.profiler.record_function("block"):
    ...         y = ember.ones(3) + 1
    >>> [e.name for e in prof.function_events]
    ['block', 'aten::ones', 'aten::add']

Events come from the dispatcher's observer hook (ember/dispatch/observers.py); the
results are ember/profiler/_events.py's FunctionEvent and EventList.
"""
from __future__ import annotations

from contextlib import ContextDecorator

from ..dispatch import observers
from ._collector import Collector
from ._events import EventList, FunctionEvent, FunctionEventAvg, events_from_collector

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]


class record_function(observers.Range, ContextDecorator):
    """A user range in the profile, as a context manager or a function decorator."""

    __slots__ = ("__dict__",)

    def __init__(self, name: str, args: str | None = None):
        super().__init__(name, "user_annotation")
        self.args = args

    def _recreate_cm(self):
        return record_function(self.name, self.args)   # one range per decorated call


class profile:
    """Records the ops, autograd nodes and user ranges run inside the block.

    `function_events`, `key_averages()`, `table()` and `export_chrome_trace()` read
    the results once the block exits.
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        self.enabled = enabled
        self.record_shapes = record_shapes or with_flops
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.use_device = "cuda" if use_cuda else use_device
        self.function_events: EventList | None = None
        self._collector = None
        self._previous = None
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self._stop()
        return False

    def _start(self):
        self.entered = True
        self._collector = Collector(self.record_shapes, self.profile_memory, self.with_stack)
        self._previous = observers.active
        self._collector.start()
        observers.set_active(self._collector)

    def _stop(self):
        c = self._collector
        if c is None or not c.recording:
            return
        c.stop()
        if observers.active is c:
            observers.set_active(self._previous)
        self.function_events = events_from_collector(c, self.with_flops, self.use_device)
        self.entered = False

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def events(self) -> EventList:
        self._check_finish()
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        self._check_finish()
        return self.function_events.table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path):
        self._check_finish()
        return self.function_events.export_chrome_trace(path)

    def total_average(self):
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finish()
        return self.function_events.self_cpu_time_total

    def __str__(self):
        return self.table()
