"""torch's profiler results: FunctionEvent, FunctionEventAvg, EventList (the table and
the chrome trace), built from a stopped Collector by `events_from_collector(collector)`;
`events.key_averages().table(sort_by="self_cpu_time_total", row_limit=10)` is the summary.
"""
from __future__ import annotations

import json
import os
import socket
from collections import defaultdict
from enum import Enum

MEMORY_EVENT_NAME = "[memory]"


class DeviceType(Enum):
    CPU = 0
    CUDA = 1


class Interval:
    """[start, end) in microseconds since the trace started."""

    __slots__ = ("end", "start")

    def __init__(self, start, end):
        self.start, self.end = start, end

    def elapsed_us(self):
        return self.end - self.start


def _format_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_time_share(us, total):
    if total == 0:
        return "NaN"
    return f"{us * 100.0 / total:.2f}%"


def _format_memory(nbytes):
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


class _Stats:
    """What FunctionEvent and FunctionEventAvg share: times, memory, their formatting."""

    count = 1
    node_id = -1
    is_async = False
    is_legacy = False
    is_remote = False
    use_device = None
    overload_name = ""
    device_type = DeviceType.CPU
    device_time_total = self_device_time_total = 0
    device_memory_usage = self_device_memory_usage = 0

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    device_time = 0.0
    cuda_time_total = self_cuda_time_total = 0
    cpu_time_str = property(lambda self: _format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))


class FunctionEvent(_Stats):
    """One recorded range (an op call, a record_function, an autograd node)."""

    def __init__(self, id, name, thread, start_us, end_us, kind, input_shapes=None,
                 stack=None, sequence_nr=-1, trace_args=None, trace_name=None):
        self.id = id
        self.name = name
        self.trace_name = trace_name or name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.kind = kind                      # chrome trace category: cpu_op, user_annotation
        self.input_shapes = input_shapes or []
        self.stack = stack or []
        self.sequence_nr = sequence_nr
        self.trace_args = trace_args or {}
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_device_memory_usage = 0
        self.flops = 0
        self.kernels = []

    key = property(lambda self: self.name)
    is_user_annotation = property(lambda self: self.kind == "user_annotation")

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_total_str} "
                f"start_us={self.time_range.start:.3f} end_us={self.time_range.end:.3f} "
                f"cpu_children={[c.id for c in self.cpu_children]} input_shapes="
                f"{self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg(_Stats):
    """The events of one key (name, and input shapes when grouped by them) added up."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.device_memory_usage = self.self_device_memory_usage = 0
        self.input_shapes = None
        self.stack = None
        self.cpu_parent = None
        self.cpu_children = None
        self.is_user_annotation = False
        self.flops = 0

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.flops += other.flops
        return self

    __iadd__ = add

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of FunctionEvent (or FunctionEventAvg) with torch's table and trace export."""

    def __init__(self, *args, profile_memory=False, with_flops=False, trace_meta=None,
                 memory_events=(), use_device=None):
        super().__init__(*args)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._trace_meta = trace_meta or {}
        self._memory_events = list(memory_events)

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0):
        """FunctionEventAvg per name (and input shapes / top stack entries), in order of
        first occurrence."""
        stats: dict[tuple, FunctionEventAvg] = defaultdict(FunctionEventAvg)
        for e in self:
            key = (e.key, e.is_user_annotation)
            if group_by_input_shapes:
                key += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            stats[key].add(e)
        return EventList(stats.values(), profile_memory=self._profile_memory,
                         with_flops=self._with_flops, use_device=self._use_device)

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total.count += e.count
            total.cpu_time_total += e.cpu_time_total
            total.self_cpu_time_total += e.self_cpu_time_total
            total.cpu_memory_usage += e.cpu_memory_usage
            total.self_cpu_memory_usage += e.self_cpu_memory_usage
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """torch's summary table: Name, Self CPU %, Self CPU, CPU total %, CPU total,
        CPU time avg, [CPU Mem, Self CPU Mem, [CUDA Mem, Self CUDA Mem,]] # of Calls
        [, Input Shapes][, Total FLOPs]."""
        return _build_table(self, sort_by, header, row_limit, max_src_column_width,
                            max_name_column_width, max_shapes_column_width, self._with_flops,
                            self._profile_memory, top_level_events_only, time_unit,
                            self._use_device)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Writes the Chrome trace event format (chrome://tracing, Perfetto)."""
        with open(path, "w") as f:
            json.dump(self._chrome_trace(path), f)

    def _chrome_trace(self, name):
        meta = self._trace_meta
        pid = os.getpid()
        events = [{"ph": "M", "name": "process_name", "ts": 0, "pid": pid, "tid": 0,
                   "args": {"name": "python"}}]
        for tid in sorted({e.thread for e in self}):
            events.append({"ph": "M", "name": "thread_name", "ts": 0, "pid": pid, "tid": tid,
                           "args": {"name": f"thread {tid} (python)"}})
        for i, e in enumerate(self):
            if e.name == MEMORY_EVENT_NAME:     # written as the instant events below
                continue
            args = {"External id": e.id, "Record function id": 0, **e.trace_args, "Ev Idx": i}
            events.append({"ph": "X", "cat": e.kind, "name": e.trace_name, "pid": pid, "tid": e.thread,
                           "ts": e.time_range.start, "dur": e.time_range.elapsed_us(),
                           "args": args})
        for i, m in enumerate(self._memory_events, len(self)):
            events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t",
                           "name": MEMORY_EVENT_NAME, "pid": pid, "tid": m.tid, "ts": m.ts,
                           "args": {"Total Reserved": 0, "Total Allocated": m.total,
                                    "Bytes": m.nbytes, "Device Id": m.device[1],
                                    "Device Type": 0 if m.device[0] == "cpu" else 1,
                                    "Addr": m.addr, "Ev Idx": i}})
        return {"schemaVersion": 1, "deviceProperties": [],
                "profile_memory": int(self._profile_memory),
                "record_shapes": int(meta.get("record_shapes", False)),
                "host_name": socket.gethostname(), "displayTimeUnit": "ms",
                "baseTimeNanoseconds": meta.get("base_ns", 0), "traceEvents": events,
                "traceName": str(name)}


class _MemoryEvent:
    """A memory record as the trace writes it (ts in us since the trace started)."""

    __slots__ = ("addr", "device", "nbytes", "tid", "total", "ts")

    def __init__(self, m, base_ns):
        self.ts = (m.ts - base_ns) / 1000
        self.nbytes, self.device, self.tid, self.total, self.addr = (
            m.nbytes, m.device, m.tid, m.total, m.addr)


def events_from_collector(c, with_flops=False, use_device=None) -> EventList:
    """The FunctionEvents of a stopped collector, in start order, parents linked, memory
    added up (self: inside no child; total: with the children's)."""
    base = c.start_ns
    by_record = {}
    events = []
    for r in c.records:
        trace_args = {}
        if r.dims is not None:
            trace_args = {"Concrete Inputs": r.concrete, "Input type": r.types,
                          "Input Strides": r.strides, "Input Dims": r.dims}
        # torch's events and table say ProfilerStep* (the trace keeps ProfilerStep#3)
        name = "ProfilerStep*" if r.name.startswith("ProfilerStep#") else r.name
        e = FunctionEvent(0, name, r.tid, (r.start - base) / 1000, (r.end - base) / 1000,
                          r.kind, r.shapes, r.stack, trace_args=trace_args, trace_name=r.name)
        if with_flops and r.op is not None and r.shapes is not None:
            from ..utils.flop_counter import flops_from_shapes
            e.flops = flops_from_shapes(r.op, r.shapes)
        by_record[r] = e
        events.append(e)
    for r, e in by_record.items():
        if r.parent is not None and r.parent in by_record:
            e.cpu_parent = by_record[r.parent]
            e.cpu_parent.cpu_children.append(e)
    for m in c.memory_records:
        owner = by_record.get(m.owner)
        if owner is None:
            mem = FunctionEvent(0, MEMORY_EVENT_NAME, m.tid,
                                (m.ts - base) / 1000, (m.ts - base) / 1000, "cpu_instant_event")
            events.append(mem)
            owner = mem
        cpu = m.device[0] == "cpu"
        owner_attr = "self_cpu_memory_usage" if cpu else "self_device_memory_usage"
        setattr(owner, owner_attr, getattr(owner, owner_attr) + m.nbytes)
        e = owner
        while e is not None:
            if cpu:
                e.cpu_memory_usage += m.nbytes
            else:
                e.device_memory_usage += m.nbytes
            e = e.cpu_parent
    events.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
    for i, e in enumerate(events, 1):
        e.id = i
    return EventList(events, profile_memory=c.profile_memory, with_flops=with_flops,
                     use_device=use_device,
                     trace_meta={"record_shapes": c.record_shapes, "base_ns": c.wall_start_ns},
                     memory_events=[_MemoryEvent(m, base) for m in c.memory_records])


def _build_table(events, sort_by, header, row_limit, max_src_column_width,
                 max_name_column_width, max_shapes_column_width, with_flops, profile_memory,
                 top_level_events_only, time_unit, use_device=None):
    if len(events) == 0:
        return ""
    if sort_by is not None:
        events = sorted(events, key=lambda e: getattr(e, sort_by.replace("cuda", "device")),
                        reverse=True)
    has_shapes = any(e.input_shapes for e in events)
    stacks = [e.stack for e in events if e.stack]
    name_width = min(max(len(e.key) for e in events) + 4, max_name_column_width or 1 << 30)
    shapes_width = min(max(len(str(e.input_shapes)) for e in events) + 4,
                       max_shapes_column_width or 1 << 30)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    device_mem = use_device is not None and any(e.self_device_memory_usage > 0 for e in events)
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        if device_mem:
            headers += [f"{use_device.upper()} Mem", f"Self {use_device.upper()} Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [12] * (len(headers) - 1)
    aligns = [">"] * len(headers)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
        aligns.append(">")
    if stacks:
        headers.append("Source Location")
        widths.append(min(max(len(s) for st in stacks for s in st) + 4,
                          max_src_column_width or 1 << 30))
        aligns.append("<")
    flops_scale = None
    if with_flops:
        raw = [e.flops for e in events if e.flops > 0]
        if raw:
            flops_scale, unit = _flops_scale(min(raw))
            headers.append(f"Total {unit}")
            widths.append(12)
            aligns.append(">")
    row_format = "".join("{: " + a + str(w) + "}  " for a, w in zip(aligns, widths))
    sep = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2

    def fmt_time(us):
        scale = {"s": 1e6, "ms": 1e3, "us": 1.0}.get(time_unit)
        return _format_time(us) if scale is None else f"{us / scale:.3f}{time_unit}"

    total = sum(e.self_cpu_time_total for e in events)
    out = []
    if header is not None:
        out += ["=" * line_length, header]
    if top_level_events_only:
        out += ["=" * line_length, "This report only display top-level ops statistics"]
    out += [sep, row_format.format(*headers), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _format_time_share(e.self_cpu_time_total, total),
               fmt_time(e.self_cpu_time_total),
               _format_time_share(e.cpu_time_total, total) if not e.is_async else 0,
               fmt_time(e.cpu_time_total), fmt_time(e.cpu_time)]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
            if device_mem:
                row += [_format_memory(e.device_memory_usage),
                        _format_memory(e.self_device_memory_usage)]
        row.append(e.count)
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        if stacks:
            row.append(_trim_path(e.stack[0], widths[headers.index("Source Location")])
                       if e.stack else "")
        if flops_scale is not None:
            row.append("--" if e.flops <= 0 else f"{e.flops * flops_scale:8.3f}")
        out.append(row_format.format(*row))
    out += [sep, f"Self CPU time total: {fmt_time(total)}"]
    return "\n".join(out) + "\n"


def _trim_path(path, width):
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def _flops_scale(flops):
    import math
    units = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
    i = int(max(0, min(math.log10(flops) / 3, len(units) - 1)))
    return 10 ** (-3.0 * i), units[i]
