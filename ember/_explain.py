"""`ember.explain(op_or_fn, *args, **kwargs)`: what the dispatcher did for one call.

    >>> x = ember.ones(2, requires_grad=True)
    >>> print(ember.explain(ember.add, x, 1.5))
    ember.explain: add(Tensor[2] float32 requires_grad, 1.5)
    grad mode: on; autocast: off
    <BLANKLINE>
    aten::add.Tensor  schema/native_functions.yaml:...
      add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
      keyset: Autograd, ADInplaceOrView, CPU
      Autograd         _ag_add_Tensor                    generated/autograd.py:...
                       from schema/native_functions.yaml: add.Tensor(...) -> Tensor  [...]
      ADInplaceOrView  fallthrough
      CPU              add                               kernels/cpu/_pointwise.py:...
    <BLANKLINE>
    backward: AddBackward0  generated/autograd.py:...
      formula: schema/derivatives.yaml: add.Tensor(...) -> Tensor  [schema/derivatives.yaml:...]
      next functions: AccumulateGrad, None
      saved self_dtype: ember.float32
      saved self_shape: shape [2]
    result: Tensor[2] float32 stride=(1,) requires_grad
    meta result: Tensor[2] float32 meta stride=(1,) requires_grad

It runs the call once with an observer on the dispatcher (ember/dispatch/observers.py):
each op entry opens a call, and every kernel the dispatcher runs for it, redispatches
included, is a step. Nothing is re-derived, so the report is what actually ran. Then it
reads the Backward node on the result and runs the call again on meta copies of the
tensor arguments for the fake result.
"""
from __future__ import annotations

import functools
import inspect
import linecache
import os
from dataclasses import dataclass, field
from pathlib import Path

from .core.tensor import Tensor
from .dispatch import keys as K
from .dispatch import observers
from .dispatch.dispatcher import OpOverload, OpOverloadPacket

__all__ = ["Explanation", "explain"]

_ROOT = Path(__file__).resolve().parents[1]      # the checkout: schema/, kernels/, generated/


@dataclass
class Step:
    """One kernel the dispatcher ran (or a key it fell through)."""
    key: str
    kernel: str = "fallthrough"
    source: str = ""              # file:line of the kernel
    entry: str = ""               # the YAML entry a generated kernel was made from

    def __str__(self):
        s = f"{self.key:<16} {self.kernel}"
        if self.source:
            s = f"{s:<50} {self.source}"
        return s + (f"\n{'':17}from {self.entry}" if self.entry else "")


@dataclass
class Call:
    """One op call: its schema, keyset, the steps at each key, the op calls inside it."""
    op: str
    schema: str
    schema_loc: str
    keyset: list[str]
    steps: list[Step] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    autocast: dict = field(default_factory=dict)     # device type -> policy (schema/autocast.yaml)
    _op: object = None
    _last_key: int | None = None
    direct: bool = False          # reached by a kernel's redispatch, not through the op's entry

    def lines(self, indent=""):
        out = [f"{indent}{self.op}  {self.schema_loc}".rstrip(), f"{indent}  {self.schema}",
               f"{indent}  keyset: {', '.join(self.keyset)}"]
        if self.autocast:
            out.append(f"{indent}  autocast policy: " + ", ".join(
                f"{d}: {p}" for d, p in self.autocast.items()))
        for s in self.steps:
            out += [f"{indent}  {line}" for line in str(s).splitlines()]
        for c in self.calls:
            out += c.lines(indent + "    ")
        return out


@dataclass
class Backward:
    """The node recorded on the result, and what it saved."""
    node: str
    source: str
    saved: dict                   # name -> description (tensors vs shapes, dtypes, scalars)
    next_functions: list[str]
    formula: str = ""             # the derivatives.yaml entry, file:line

    def lines(self):
        out = [f"backward: {self.node}  {self.source}".rstrip()]
        if self.formula:
            out.append(f"  formula: {self.formula}")
        out.append(f"  next functions: {', '.join(self.next_functions) or '-'}")
        out += [f"  saved {name}: {desc}" for name, desc in self.saved.items()]
        if not self.saved:
            out.append("  saved: nothing")
        return out


@dataclass
class Explanation:
    """What `explain` found; `str()` is the report."""
    target: str
    calls: list[Call]
    result: object = None
    backward: Backward | None = None
    meta: str = ""
    grad_mode: bool = True
    autocast: list[str] = field(default_factory=list)

    def __str__(self):
        autocast = ", ".join(self.autocast) or "off"
        out = [f"ember.explain: {self.target}",
               f"grad mode: {'on' if self.grad_mode else 'off'}; autocast: {autocast}", ""]
        for c in self.calls:
            out += c.lines() + [""]
        out += self.backward.lines() if self.backward else ["backward: no node recorded"]
        out.append(f"result: {_describe(self.result)}")
        out.append(f"meta result: {self.meta}")
        return "\n".join(out)

    __repr__ = __str__

    def ops(self):
        """Every op call, depth first (nested ones after their caller)."""
        def walk(calls):
            for c in calls:
                yield c
                yield from walk(c.calls)
        return list(walk(self.calls))


class _Recorder:
    """The collector and step hook of one explain run."""

    def __init__(self):
        self.calls: list[Call] = []
        self.open: list[Call] = []

    # collector interface (observers.active)
    def enter(self, name, kind, op=None, args=None):
        if op is None:
            return None                  # autograd nodes, record_function: not op calls
        call = Call(op._cpp_name, op._schema_str, _yaml_loc(_native_key(op)), [], _op=op,
                    autocast=_autocast_policy(op))
        (self.open[-1].calls if self.open else self.calls).append(call)
        self.open.append(call)
        return call

    def exit(self, call, out=None):
        if call is not None and self.open and self.open[-1] is call:
            self.open.pop()

    def memory(self, nbytes, device, addr=0):
        pass

    def _direct_call(self, caller, op):
        """A kernel that called another op's kernel directly (`op.redispatch`, no entry):
        its steps go into one call under the caller."""
        siblings = caller.calls if caller is not None else self.calls
        if siblings and siblings[-1]._op is op and siblings[-1].direct:
            return siblings[-1]
        call = Call(op._cpp_name + " (redispatched)", op._schema_str,
                    _yaml_loc(_native_key(op)), [], _op=op, autocast=_autocast_policy(op))
        call.direct = True
        siblings.append(call)
        return call

    # step hook interface
    def step(self, op, keyset, key, fn, args):
        call = self.open[-1] if self.open else None
        if call is None or call._op is not op:
            call = self._direct_call(call, op)
        if not call.keyset:
            call.keyset = K.names(keyset)
        previous = call._last_key if call._last_key is not None else K.highest(keyset) + 1
        for skipped in range(previous - 1, key, -1):
            if keyset >> skipped & 1:
                call.steps.append(Step(K.KEY_NAMES[skipped]))
        call._last_key = key
        src, entry = _source(fn)
        call.steps.append(Step(K.KEY_NAMES[key], _kernel_name(fn), src, entry))


def explain(op_or_fn, *args, **kwargs) -> Explanation:
    """Runs `op_or_fn(*args, **kwargs)` once and reports, for each op call in it: the
    schema and its YAML line, the keyset, the kernel that ran at each key (file:line), the
    autocast policy; then the Backward node on the result and what it saved, and the
    result of the same call on meta tensors."""
    from .amp.autocast_mode import is_autocast_enabled
    from .dispatch.tls import state
    rec = _Recorder()
    previous = observers.active
    observers.set_active(rec)
    observers.add_step_hook(rec.step)
    try:
        try:
            result = op_or_fn(*args, **kwargs)
        finally:
            observers.remove_step_hook(rec.step)
        observers.set_active(_Recorder())   # the meta run: in no report, in no outer profile
        meta = _meta_result(op_or_fn, args, kwargs, result)
    finally:
        observers.set_active(previous)
    return Explanation(
        target=f"{_callable_name(op_or_fn)}({_describe_args(args, kwargs)})", calls=rec.calls,
        result=result, backward=_backward(result, rec.calls), meta=meta,
        grad_mode=state.grad_enabled,
        autocast=[d for d in ("cpu", "cuda") if is_autocast_enabled(d)])


# --- sources and YAML entries ---------------------------------------------------------------
def _relative(path: str) -> str:
    try:
        return os.path.relpath(path, _ROOT) if path.startswith(str(_ROOT)) else path
    except ValueError:
        return path


def _unwrap(fn):
    while isinstance(fn, functools.partial):
        fn = fn.func
    return inspect.unwrap(getattr(fn, "__func__", fn))


def _kernel_name(fn):
    f = _unwrap(fn)
    return getattr(f, "__qualname__", None) or type(f).__name__


def _source(fn):
    """(`file:line` of the kernel, the YAML entry named by the comment above a generated
    kernel, with its file:line)."""
    f = _unwrap(fn)
    code = getattr(f, "__code__", None)
    if code is None:
        return "", ""
    path, line = code.co_filename, code.co_firstlineno
    comment = linecache.getline(path, line - 1).strip()
    entry = ""
    if comment.startswith("# schema/"):
        key = comment[2:].split(" (derivative: ")[0]
        entry = f"{key}  [{_yaml_loc(key)}]" if _yaml_loc(key) else key
    return f"{_relative(path)}:{line}", entry


def _native_key(op):
    return f"schema/native_functions.yaml: {op._schema_str}"


@functools.cache
def _yaml_index():
    """Every schema entry's key -> `file:line`, from the codegen's own parser (empty when
    the schema files are not installed)."""
    if not (_ROOT / "schema" / "native_functions.yaml").exists():
        return {}, {}
    from .codegen.where import _entries
    locs, autocast = {}, {}
    for ref, qualified, name, loc in _entries(_ROOT):
        locs[ref.split(" (autogen of ")[0]] = str(loc)
        if ref.startswith("schema/autocast.yaml: "):
            device, policy = ref.split(": ", 2)[1].split(".")
            autocast.setdefault(qualified, {})[device] = policy
    return locs, autocast


def _yaml_loc(key):
    return _yaml_index()[0].get(key, "")


def _autocast_policy(op: OpOverload) -> dict:
    if op.namespace != "aten":
        return {}
    ov = "" if op.overload_name == "default" else f".{op.overload_name}"
    return dict(_yaml_index()[1].get(f"{op.name}{ov}", {}))


# --- the result: backward node, meta run ----------------------------------------------------
def _first_tensor(x):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (tuple, list)):
        return next((t for t in x if isinstance(t, Tensor)), None)
    return None


def _describe_saved(value):
    if value is None:
        return "None"
    data = getattr(value, "data", None)
    if isinstance(data, Tensor):             # a SavedTensor
        return f"tensor {_describe_tensor(data)}"
    if isinstance(value, (list, tuple)) and value and all(hasattr(v, "data") for v in value):
        return f"tensors [{', '.join(_describe_tensor(v.data) for v in value)}]"
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        return f"shape {list(value)}"
    return repr(value)


def _backward(result, calls):
    t = _first_tensor(result)
    node = getattr(t, "grad_fn", None) if t is not None else None
    if node is None:
        return None
    cls = type(node)
    saved = {}
    for slot in getattr(cls, "__slots__", ()):
        if slot.startswith("_s_") and hasattr(node, slot):     # unset: not needed this time
            saved[slot[3:]] = _describe_saved(getattr(node, slot))
    source = ""
    apply = getattr(cls, "apply", None)
    if apply is not None and hasattr(apply, "__code__"):
        source = f"{_relative(apply.__code__.co_filename)}:{inspect.getsourcelines(cls)[1]}"
    nexts = [fn.name() if fn is not None else "None" for fn, _ in node.next_functions]
    return Backward(node.name(), source, saved, nexts, _formula(node, calls))


def _formula(node, calls):
    """The derivatives.yaml entry of the op whose Autograd kernel recorded `node` (the
    last generated Autograd step of the call)."""
    steps = [(c, st) for c in Explanation("", calls).ops() for st in c.steps
             if st.key == "Autograd" and "(derivative: " in _comment_above(st)]
    if not steps:
        return ""
    key = _comment_above(steps[-1][1]).split("(derivative: ", 1)[1].rstrip(")")
    loc = _yaml_loc(key)
    return f"{key}  [{loc}]" if loc else key


def _comment_above(step):
    if not step.source:
        return ""
    path, line = step.source.rsplit(":", 1)
    return linecache.getline(str(_ROOT / path) if not os.path.isabs(path) else path,
                             int(line) - 1).strip()


def _to_meta(x):
    if isinstance(x, Tensor):
        import ember
        m = ember.empty_strided(tuple(x.shape), x.stride(), dtype=x.dtype, device="meta")
        return m.requires_grad_() if x.requires_grad and x.is_floating_point() else m
    if isinstance(x, (list, tuple)):
        return type(x)(_to_meta(v) for v in x)
    return x


def _meta_result(fn, args, kwargs, result):
    try:
        out = fn(*_to_meta(args), **{k: _to_meta(v) for k, v in kwargs.items()})
    except (RuntimeError, TypeError, ValueError, NotImplementedError) as e:
        # e.g. a module whose parameters are real tensors, an op without a Meta kernel
        return f"unavailable ({type(e).__name__}: {e})"
    meta, real = _first_tensor(out), _first_tensor(result)
    note = ""
    if meta is not None and real is not None and meta.dtype != real.dtype:
        note = " (autocast casts only tensors of its device type, not meta ones)"
    return _describe(out) + note


def _describe(out):
    if isinstance(out, (tuple, list)):
        return "(" + ", ".join(_describe(o) for o in out) + ")"
    return _describe_tensor(out) if isinstance(out, Tensor) else repr(out)


# --- naming ---------------------------------------------------------------------------------
def _describe_tensor(t):
    grad = " requires_grad" if t.requires_grad else ""
    dev = "" if t.device.type == "cpu" else f" {t.device}"
    return (f"Tensor{list(t.shape)} {str(t.dtype).removeprefix('ember.')}{dev} "
            f"stride={t.stride()}{grad}")


def _describe_args(args, kwargs):
    def one(a):
        if isinstance(a, Tensor):
            grad = " requires_grad" if a.requires_grad else ""
            return f"Tensor{list(a.shape)} {str(a.dtype).removeprefix('ember.')}{grad}"
        if isinstance(a, (list, tuple)):
            return "[" + ", ".join(one(v) for v in a) + "]"
        return repr(a)
    return ", ".join([one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()])


def _callable_name(fn):
    if isinstance(fn, (OpOverload, OpOverloadPacket)):
        return str(fn)
    return getattr(fn, "__qualname__", None) or type(fn).__name__
