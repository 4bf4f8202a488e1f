"""torch.profiler's `profile` with schedules: NONE/WARMUP/RECORD/RECORD_AND_SAVE steps.

    >>> from ember.profiler import profile, schedule
    >>> traces = []       # tensorboard_trace_handler("./log") would write each one
    >>> with profile(schedule=schedule(wait=1, warmup=1, active=2),
    ...              on_trace_ready=traces.append) as prof:
    ...     for step in range(8):
    ...         y = ember.ones(2) * 2
    ...         prof.step()
    >>> len(traces), [e.name for e in prof.events()][:3]
    (2, ['ProfilerStep*', 'aten::ones', 'aten::mul'])

Each active cycle records into a fresh `ember.autograd.profiler.profile`; the transitions
between actions are torch's table (`action_map`), so `on_trace_ready` runs as often.
"""
from __future__ import annotations

import os
import socket
import time
import warnings
from enum import Enum
from functools import partial

from ._autograd_profiler import profile as _autograd_profile
from ._autograd_profiler import record_function

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "schedule", "supported_activities",
           "tensorboard_trace_handler"]


class ProfilerActivity(Enum):
    CPU = 0
    CUDA = 2

    def __repr__(self):
        return f"<ProfilerActivity.{self.name}: {self.value}>"

    def __str__(self):
        return f"ProfilerActivity.{self.name}"


class ProfilerAction(Enum):
    """What the profiler does during one step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set:
    """CPU, and CUDA when ember sees a CUDA device (a GPU or the emulator)."""
    from .. import cuda
    return {ProfilerActivity.CPU} | ({ProfilerActivity.CUDA} if cuda.is_available() else set())


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """A schedule: skip `skip_first` steps, then cycles of `wait`, `warmup`, `active`
    steps (`repeat` cycles, 0: until the end); the last active step saves the trace."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE
    return schedule_fn


def _default_schedule_fn(_: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False, use_python_export: bool = False):
    """An `on_trace_ready` that writes `<worker>.<ns>.pt.trace.json[.gz]` into `dir_name`."""
    def handler_fn(prof) -> None:
        nonlocal worker_name
        try:
            os.makedirs(dir_name, exist_ok=True)
        except Exception as e:
            raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        path = os.path.join(dir_name, file_name)
        if not use_gzip:
            prof.export_chrome_trace(path)
            return
        import gzip
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            raw = os.path.join(tmp, file_name)
            prof.export_chrome_trace(raw)
            with open(raw, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                dst.write(src.read())
    return handler_fn


class _KinetoProfile:
    """The recording part of `profile`: one autograd profile per trace."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False,
                 with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False,
                 custom_trace_id_callback=None):
        self.activities = set(activities) if activities else {ProfilerActivity.CPU}
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_device = "cuda" if ProfilerActivity.CUDA in self.activities else None
        self.profiler: _autograd_profile | None = None

    def start(self):
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        self.stop_trace()

    def prepare_trace(self):
        self.profiler = _autograd_profile(
            use_device=self.use_device, record_shapes=self.record_shapes,
            with_flops=self.with_flops, profile_memory=self.profile_memory,
            with_stack=self.with_stack, with_modules=self.with_modules)

    def start_trace(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting")
        self.profiler._start()

    def stop_trace(self):
        if self.profiler is not None:
            self.profiler._stop()

    def _profiler_or_fail(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        return self.profiler

    def events(self):
        """The recorded FunctionEvents of the last trace."""
        return self._profiler_or_fail().function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        return self._profiler_or_fail().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str):
        return self._profiler_or_fail().export_chrome_trace(path)


class profile(_KinetoProfile):
    """torch.profiler.profile: records the block, or the steps a `schedule` selects
    (call `step()` at each step's end); `on_trace_ready(prof)` ends each active cycle."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, use_cuda=None, custom_trace_id_callback=None,
                 post_processing_timeout_s=None):
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
            activities = set(activities or {ProfilerActivity.CPU})
            activities.add(ProfilerActivity.CUDA) if use_cuda else activities.discard(
                ProfilerActivity.CUDA)
        super().__init__(activities=activities, record_shapes=record_shapes,
                         profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules)
        self.record_steps = schedule is not None
        self.schedule = schedule or _default_schedule_fn
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn: record_function | None = None
        self.current_action = self.schedule(self.step_num)
        A = ProfilerAction
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [partial(warnings.warn, "Incorrect schedule: WARMUP followed "
                                         "by NONE"), self.start_trace, self.stop_trace],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [partial(warnings.warn, "Incorrect schedule: RECORD followed "
                                         "by NONE"), self.stop_trace],
            (A.RECORD, A.WARMUP): [partial(warnings.warn, "Incorrect schedule: RECORD followed "
                                           "by WARMUP"), self.stop_trace],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self.stop_trace, self._trace_ready,
                                            self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [self.stop_trace, self._trace_ready,
                                            self.prepare_trace, self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [self.stop_trace, self._trace_ready,
                                                     self.prepare_trace, self.start_trace],
            # leaving the profiler
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        return False

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        self._enter_step()

    def stop(self):
        self._exit_step()
        self._transit_action(self.current_action, None)

    def step(self):
        """Signals that the next step begins."""
        self._exit_step()
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev_action, self.current_action)
        self._enter_step()

    def _enter_step(self):
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _exit_step(self):
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), ()):
            action()
