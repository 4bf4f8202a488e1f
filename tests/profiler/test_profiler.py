"""ember.profiler against torch.profiler on the same programs: event names, counts, nesting,
input shapes, memory, the table's columns, the chrome trace, schedules."""
import collections
import json
import re
import subprocess
import sys

import pytest

import ember
import ember.profiler as eprof
from ember.dispatch import observers

torch = pytest.importorskip("torch")
tprof = torch.profiler


def train_step(lib, prof_mod, **opts):
    """Linear + mul + relu + sum, backward, an SGD step and zero_grad, under a profile."""
    x = lib.ones(3, 4, requires_grad=True)
    w = lib.ones(5, 4, requires_grad=True)
    b = lib.zeros(5, requires_grad=True)
    opt = lib.optim.SGD([x, w, b], lr=0.1)
    with prof_mod.profile(**opts) as p:
        with prof_mod.record_function("fwd"):
            y = lib.nn.functional.linear(x, w, b)
            z = (y * y).relu().sum()
        z.backward()
        opt.step()
        opt.zero_grad()
    return p


def both(**opts):
    return train_step(ember, eprof, **opts), train_step(torch, tprof, **opts)


def top_level(p):
    return [(e.name, e.input_shapes) for e in p.events()
            if e.cpu_parent is None and e.name != "[memory]"]


def test_top_level_events_and_shapes_match_torch():
    e, t = both(record_shapes=True)
    assert top_level(e) == top_level(t)
    assert top_level(e)[0] == ("fwd", [])
    assert ("Optimizer.step#SGD.step", []) in top_level(e)
    assert ("Optimizer.zero_grad#SGD.zero_grad", []) in top_level(e)


def test_autograd_events_match_torch():
    def autograd_counts(p):
        return collections.Counter(ev.name for ev in p.events()
                                   if "autograd" in ev.name or ev.name.endswith("Backward0"))
    e, t = both()
    assert autograd_counts(e) == autograd_counts(t)
    assert autograd_counts(e)["autograd::engine::evaluate_function: MulBackward0"] == 1
    assert autograd_counts(e)["torch::autograd::AccumulateGrad"] == 3
    # the node's own range sits inside its evaluate_function range
    node = next(ev for ev in e.events() if ev.name == "MulBackward0")
    assert node.cpu_parent.name == "autograd::engine::evaluate_function: MulBackward0"


def test_ops_nest_under_the_public_call_and_user_range():
    e, t = both(record_shapes=True)
    for p in (e, t):
        fwd = next(ev for ev in p.events() if ev.name == "fwd")
        names = [c.name for c in fwd.cpu_children]
        assert names == ["aten::linear", "aten::mul", "aten::relu", "aten::sum"]
    lin = next(ev for ev in e.events() if ev.name == "aten::linear")
    tlin = next(ev for ev in t.events() if ev.name == "aten::linear")
    assert [c.name for c in lin.cpu_children] == [c.name for c in tlin.cpu_children]
    assert lin.input_shapes == tlin.input_shapes == [[3, 4], [5, 4], [5]]
    addmm = next(ev for ev in e.events() if ev.name == "aten::addmm")
    assert addmm.input_shapes == next(ev for ev in t.events()
                                      if ev.name == "aten::addmm").input_shapes
    # times nest
    for ev in e.events():
        if ev.cpu_parent is not None:
            assert ev.cpu_parent.time_range.start <= ev.time_range.start
            assert ev.time_range.end <= ev.cpu_parent.time_range.end


def test_key_averages_counts_match_torch_for_pointwise_program():
    def prog(lib, prof_mod):
        a, b = lib.ones(4), lib.ones(4)
        with prof_mod.profile(record_shapes=True) as p:
            for _ in range(3):
                c = a + b
                c = c * b
            lib.neg(c)
        return {(k.key, k.count, str(k.input_shapes))
                for k in p.key_averages(group_by_input_shape=True)}
    assert prog(ember, eprof) == prog(torch, tprof)
    assert ("aten::add", 3, "[[4], [4], []]") in prog(ember, eprof)


def test_memory_matches_torch_for_fresh_outputs():
    def prog(lib, prof_mod):
        a = lib.ones(4, 8)
        with prof_mod.profile(profile_memory=True) as p:
            c = a + a           # 128 bytes
            d = c.sum(0)        # 32 bytes
            del c, d
        return {e.name: (e.cpu_memory_usage, e.self_cpu_memory_usage) for e in p.events()
                if e.name in ("aten::add", "aten::sum")}
    assert prog(ember, eprof) == prog(torch, tprof) == {"aten::add": (128, 128),
                                                        "aten::sum": (32, 32)}


def _columns(table):
    return re.split(r"\s{2,}", table.splitlines()[1].strip())


@pytest.mark.parametrize("opts,group", [({}, False), ({"profile_memory": True}, False),
                                        ({"record_shapes": True}, True)])
def test_table_columns_equal_torch(opts, group):
    e, t = both(**opts)
    et = e.key_averages(group_by_input_shape=group).table(sort_by="cpu_time_total")
    tt = t.key_averages(group_by_input_shape=group).table(sort_by="cpu_time_total")
    assert _columns(et) == _columns(tt)
    # torch's layout: 12-wide columns after the name, the total line last
    assert et.splitlines()[0].split("  ")[1:] == tt.splitlines()[0].split("  ")[1:]
    assert et.rstrip().splitlines()[-1].startswith("Self CPU time total: ")


def test_table_sort_and_row_limit():
    e, _ = both()
    lines = e.key_averages().table(sort_by="self_cpu_time_total", row_limit=3).splitlines()
    assert len(lines) == 3 + 3 + 2
    with pytest.raises(AttributeError):
        e.key_averages().table(sort_by="no_such_column")


def test_chrome_trace_is_valid_and_nested(tmp_path):
    e = train_step(ember, eprof, record_shapes=True, profile_memory=True)
    path = tmp_path / "trace.json"
    e.export_chrome_trace(str(path))
    data = json.loads(path.read_text())
    assert data["schemaVersion"] == 1 and data["displayTimeUnit"] == "ms"
    complete = [ev for ev in data["traceEvents"] if ev["ph"] == "X"]
    assert len(complete) == sum(1 for ev in e.events() if ev.name != "[memory]")
    for ev in complete:
        assert {"ts", "dur", "pid", "tid", "name", "cat"} <= ev.keys()
        assert ev["dur"] >= 0
    assert {ev["cat"] for ev in complete} == {"cpu_op", "user_annotation"}
    linear = next(ev for ev in complete if ev["name"] == "aten::linear")
    assert linear["args"]["Input Dims"] == [[3, 4], [5, 4], [5]]
    assert linear["args"]["Input type"] == ["float", "float", "float"]
    # every event lies inside any event on its thread that it starts in (proper nesting)
    eps = 1e-6
    spans = sorted(complete, key=lambda ev: (ev["ts"], -ev["dur"]))
    stack = []
    for ev in spans:
        while stack and ev["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] - eps:
            stack.pop()
        if stack:
            assert ev["ts"] + ev["dur"] <= stack[-1]["ts"] + stack[-1]["dur"] + eps
        stack.append(ev)
    mem = [ev for ev in data["traceEvents"] if ev["ph"] == "i"]
    assert mem and all(ev["name"] == "[memory]" and "Bytes" in ev["args"] for ev in mem)


def _run_schedule(prof_mod, steps, **sched):
    ready = []
    with prof_mod.profile(schedule=prof_mod.schedule(**sched),
                          on_trace_ready=lambda p: ready.append(
                              sorted(e.name for e in p.events()
                                     if e.name.startswith("ProfilerStep")))) as p:
        for _ in range(steps):
            ember.ones(2) if prof_mod is eprof else torch.ones(2)
            p.step()
    return ready


@pytest.mark.parametrize("sched,steps", [
    ({"wait": 1, "warmup": 1, "active": 2}, 8),
    ({"wait": 1, "warmup": 1, "active": 2, "repeat": 1}, 8),
    ({"wait": 0, "warmup": 1, "active": 1, "repeat": 2, "skip_first": 2}, 9),
    ({"wait": 2, "warmup": 1, "active": 3, "repeat": 1}, 4),
])
def test_schedule_trace_ready_calls_match_torch(sched, steps):
    assert _run_schedule(eprof, steps, **sched) == _run_schedule(tprof, steps, **sched)


def test_schedule_actions_and_errors():
    s = eprof.schedule(wait=1, warmup=1, active=2, repeat=1)
    ts = tprof.schedule(wait=1, warmup=1, active=2, repeat=1)
    assert [s(i).name for i in range(6)] == [ts(i).name for i in range(6)]
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        eprof.schedule(wait=1, warmup=1, active=0)
    with pytest.warns(UserWarning, match="won't be using warmup"):
        eprof.schedule(wait=1, warmup=0, active=1)


def test_tensorboard_trace_handler_writes_traces(tmp_path):
    with eprof.profile(schedule=eprof.schedule(wait=0, warmup=1, active=1, repeat=2),
                       on_trace_ready=eprof.tensorboard_trace_handler(str(tmp_path), "w")) as p:
        for _ in range(5):
            ember.ones(2) + 1
            p.step()
    files = sorted(tmp_path.iterdir())
    assert len(files) == 2 and all(f.name.endswith(".pt.trace.json") for f in files)
    assert any(ev["name"] == "aten::add" for ev in json.loads(files[0].read_text())["traceEvents"])


def test_record_function_as_decorator_and_autograd_profiler_names():
    @ember.autograd.profiler.record_function("my_fn")
    def f(x):
        return x * 2
    with ember.autograd.profiler.profile() as p:
        f(ember.ones(2))
        f(ember.ones(2))
    avg = {k.key: k.count for k in p.key_averages()}
    assert avg["my_fn"] == 2 and avg["aten::mul"] == 2
    mul = next(e for e in p.function_events if e.name == "aten::mul")
    assert mul.cpu_parent.name == "my_fn"
    assert p.self_cpu_time_total > 0
    assert "my_fn" in p.table()


def test_nothing_recorded_outside_and_state_restored():
    assert observers.active is None
    with eprof.profile() as outer:
        ember.ones(2)
        with eprof.profile() as inner:
            ember.zeros(2)
        ember.ones(3)
    assert observers.active is None
    assert [e.name for e in inner.events()] == ["aten::zeros"]
    assert [e.name for e in outer.events()] == ["aten::ones", "aten::ones"]
    ember.ones(2)                                    # after: nothing records
    assert len(outer.events()) == 2


def test_an_exception_closes_the_ranges():
    with pytest.raises(RuntimeError), eprof.profile() as p, eprof.record_function("outer"):
        ember.ones(2, 3) + ember.ones(4)
    assert observers.active is None
    outer = next(e for e in p.events() if e.name == "outer")
    add = next(e for e in p.events() if e.name == "aten::add")
    assert add.cpu_parent is outer and add.time_range.end <= outer.time_range.end


def test_supported_activities():
    acts = eprof.supported_activities()
    assert eprof.ProfilerActivity.CPU in acts
    assert (eprof.ProfilerActivity.CUDA in acts) == ember.cuda.is_available()


def test_events_before_profiling_raise_as_torch():
    with pytest.raises(AssertionError, match="Profiler must be initialized"):
        eprof.profile().events()


def test_with_stack_points_at_the_caller():
    with eprof.profile(with_stack=True) as p:
        ember.ones(2)
    ev = p.events()[0]
    assert ev.stack and __file__ in ev.stack[0] and "test_with_stack" in ev.stack[0]


def test_import_ember_does_not_import_the_profiler():
    code = "import sys, ember; print('ember.profiler' in sys.modules); ember.profiler.profile"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cuda_allocator_memory_events():
    """The caching allocator reports each block (on the emulator's device here)."""
    from ember.cuda import _driver, _emulator, _runtime
    if not _emulator.available():
        pytest.skip("the CUDA emulator needs g++ and the CUDA headers")
    acts = [eprof.ProfilerActivity.CPU, eprof.ProfilerActivity.CUDA]
    with _runtime.using(_driver.EmulatorDriver()), \
            eprof.profile(activities=acts, profile_memory=True) as p:
        a = ember.empty(256, device="cuda")
        del a
    empty = next(e for e in p.events() if e.name == "aten::empty")
    assert empty.self_device_memory_usage == empty.device_memory_usage == 1024
    assert empty.cpu_memory_usage == 0
    assert sum(e.device_memory_usage for e in p.events() if e.cpu_parent is None) == 0
    assert _columns(p.key_averages().table())[6:10] == ["CPU Mem", "Self CPU Mem", "CUDA Mem",
                                                         "Self CUDA Mem"]


def test_a_failing_backward_closes_its_node_ranges():
    def fail(grad):
        raise ValueError("hook failed")
    x = ember.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(fail)
    with eprof.profile() as p:
        with pytest.raises(ValueError, match="hook failed"):
            y.sum().backward()
        ember.ones(1)
    last = p.events()[-1]
    assert last.name == "aten::ones" and last.cpu_parent is None
    assert all(e.time_range.end >= e.time_range.start for e in p.events())


def test_start_stop_without_context_manager_as_torch():
    def run(lib, prof_mod):
        p = prof_mod.profile()
        p.start()
        lib.ones(2) + 1
        p.stop()
        return [e.name for e in p.events() if e.cpu_parent is None]
    assert run(ember, eprof) == run(torch, tprof) == ["aten::ones", "aten::add"]
    assert observers.active is None
