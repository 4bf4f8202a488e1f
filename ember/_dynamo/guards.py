"""Guards: what a captured graph assumed, checked before each call by one generated function.

At capture, `build_guards` walks the call's arguments (in `tree_flatten`'s order), the
module's parameters, buffers, submodules and hooks, the Python globals and closure cells the
code reads, and the thread's grad mode, autocast state and default dtype. It writes one
boolean expression per fact and compiles them into a single function that returns the
call's tensors (the graph's inputs) when every fact still holds, else None. A hit costs one
Python call and a few attribute reads per tensor, as torch's C++ guard managers aim for.

    >>> x = ember.ones(2)
    >>> g = build_guards((x, 3), {}, dynamic={})
    >>> g.check((x, 3), {}) == [x], g.check((x, 4), {})
    (True, None)
    >>> print(g.describe().splitlines()[1])
    TENSOR_MATCH(args[0]: shape=[2], stride=[1], dtype=ember.float32, device=cpu, requires_grad=False)
"""
from __future__ import annotations

import math
import types

import sympy

from ..amp import autocast_mode
from ..core import dtype as D
from ..core.tensor import Tensor
from ..dispatch.tls import state as _tls

_SIMPLE = (bool, int, float, complex, str, bytes, type(None))
_AUTOCAST_BITS = 0
for _dev in ("cpu", "cuda"):
    _AUTOCAST_BITS |= autocast_mode._KEY_BIT[_dev]


class Guards:
    """The facts of one capture: `check(args, kwargs)` gives the graph's tensor inputs or
    None; `describe()` lists the facts in torch's guard names."""

    def __init__(self):
        self.exprs: list[str] = []
        self.facts: list[str] = []
        self.env: dict[str, object] = {}
        self.leaves: list[str] = []     # how check() reads each graph input (a local)
        self.paths: list[str] = []      # where each one is in (args, kwargs)
        self.matched: set[int] = set()  # ids of the lifted tensors with a TENSOR_MATCH
        self.check = None
        self.source = ""

    # --- building ---------------------------------------------------------------------------
    def const(self, obj) -> str:
        """A name for `obj` in the guard function's namespace."""
        name = f"_c{len(self.env)}"
        self.env[name] = obj
        return name

    def add(self, expr: str, fact: str) -> None:
        self.exprs.append(expr)
        self.facts.append(fact)

    def tensor(self, ref: str, t: Tensor, label: str, dynamic_dims=()) -> str:
        """TENSOR_MATCH: type, dispatch keys (device, requires_grad, conj bit), dtype, sizes,
        strides; a dynamic dim only has to be >= 2 and the tensor contiguous. An argument
        is read once (bound to a local); returns the name it is read by."""
        first = ref
        if not ref.isidentifier():
            local = f"_t{len(self.leaves)}"
            first, ref = f"({local} := {ref})", local
        parts = [f"type({first}) is {self.const(type(t))}", f"{ref}._ks == {t._ks}",
                 f"{ref}._dtype is {self.const(t.dtype)}"]
        if t.device.type != "cpu":
            parts.append(f"{ref}._device == {self.const(t.device)}")
        shape = tuple(t.shape)
        if dynamic_dims:
            parts.append(f"len({ref}._shape) == {len(shape)}")
            parts += [f"{ref}._shape[{i}] == {n}" for i, n in enumerate(shape)
                      if i not in dynamic_dims]
            parts += [f"{ref}._shape[{i}] >= 2" for i in sorted(dynamic_dims)]
            parts.append(f"{ref}.is_contiguous()")
            sizes = ["*" if i in dynamic_dims else str(n) for i, n in enumerate(shape)]
            layout = f"shape=[{', '.join(sizes)}], contiguous"
        else:
            # (the strides a tensor cached, else computed: one attribute read on a hit)
            parts += [f"{ref}._shape == {shape!r}",
                      f"({ref}._stride or {ref}.stride()) == {tuple(t.stride())!r}"]
            layout = f"shape={list(shape)}, stride={list(t.stride())}"
        self.add(" and ".join(parts),
                 f"TENSOR_MATCH({label}: {layout}, dtype={t.dtype}, device={t.device}, "
                 f"requires_grad={t.requires_grad})")
        return ref

    def value(self, ref: str, v, label: str) -> None:
        """CONSTANT_MATCH for numbers, strings and None (NaN matches NaN); EQUALS_MATCH for
        objects with their own equality (dtypes, devices); ID_MATCH for any other object."""
        if v is None or isinstance(v, bool):
            self.add(f"{ref} is {v}", f"CONSTANT_MATCH({label} is {v})")
        elif isinstance(v, _SIMPLE):
            nan = isinstance(v, float) and math.isnan(v)
            same = f"{ref} != {ref}" if nan else f"{ref} == {self.const(v)}"
            self.add(f"type({ref}) is {self.const(type(v))} and {same}",
                     f"CONSTANT_MATCH({label} == {v!r})")
        elif type(v).__eq__ is not object.__eq__ and type(v).__hash__ is not None:
            self.add(f"type({ref}) is {self.const(type(v))} and {ref} == {self.const(v)}",
                     f"EQUALS_MATCH({label} == {v!r})")
        else:
            self.add(f"{ref} is {self.const(v)}", f"ID_MATCH({label}: {type(v).__name__})")

    def arg(self, ref: str, v, label: str, dynamic: dict) -> None:
        """An argument, walked in tree_flatten's order: tensors become graph inputs."""
        if isinstance(v, Tensor):
            self.paths.append(ref)
            self.leaves.append(self.tensor(ref, v, label, dynamic.get(len(self.leaves), ())))
        elif isinstance(v, (list, tuple)):
            self.add(f"type({ref}) is {self.const(type(v))} and len({ref}) == {len(v)}",
                     f"TYPE_MATCH({label}: {type(v).__name__} of {len(v)})")
            for i, x in enumerate(v):
                self.arg(f"{ref}[{i}]", x, f"{label}[{i}]", dynamic)
        elif isinstance(v, dict):
            keys = list(v)
            self.add(f"type({ref}) is {self.const(type(v))} and list({ref}) == "
                     f"{self.const(keys)}", f"DICT_KEYS({label}: {keys})")
            for k, x in v.items():
                self.arg(f"{ref}[{self.const(k)}]", x, f"{label}[{k!r}]", dynamic)
        else:
            self.value(ref, v, label)

    # --- compiling ----------------------------------------------------------------------------
    def compile(self) -> None:
        body = " and\n            ".join(self.exprs) or "True"
        consts = "".join(f", {name}={name}" for name in self.env)    # (locals: fast loads)
        self.source = (f"def check(args, kwargs{consts}):\n"
                       f"    if not ({body}):\n"
                       f"        return None\n"
                       f"    return [{', '.join(self.leaves)}]\n")
        namespace = dict(self.env)
        exec(compile(self.source, "<ember guards>", "exec"), namespace)  # noqa: S102
        self.check = namespace["check"]

    def describe(self) -> str:
        return "\n".join(self.facts)

    def failures(self, args, kwargs) -> list[str]:
        """The facts that do not hold for this call (a miss's explanation)."""
        out = []
        for expr, fact in zip(self.exprs, self.facts):
            try:
                ok = eval(f"lambda args, kwargs: {expr}", dict(self.env))(args, kwargs)
            except Exception:  # noqa: BLE001  (a fact about another type: it does not hold)
                ok = False
            if not ok:
                out.append(fact)
        return out


def build_guards(args, kwargs, *, dynamic, lifted=None, fn=None, shape_env=None) -> Guards:
    """The guards of a capture of `fn(*args, **kwargs)` (see the module docstring).
    `dynamic` maps a tensor leaf's index to its symbolic dims; `shape_env` (a symbolic
    trace's) adds the trace's guards over those sizes; `lifted` (lifted.Lifted) gives the
    modules and optimizers whose state the graph reads, and the `.grad` inputs."""
    g = Guards()
    g.add(f"len(args) == {len(args)} and len(kwargs) == {len(kwargs)}",
          f"ARG_COUNT({len(args)} positional, keywords {sorted(kwargs)})")
    for i, a in enumerate(args):
        g.arg(f"args[{i}]", a, f"args[{i}]", dynamic)
    for k, v in kwargs.items():
        g.arg(f"kwargs[{g.const(k)}]", v, k, dynamic)
    if lifted is not None:
        _grad_guards(g, lifted)
    if shape_env is not None:
        _shape_guards(g, shape_env)
    modules = lifted.modules if lifted is not None else []
    for m in modules:
        _module_guards(g, m)
    for opt in lifted.optimizers if lifted is not None else []:
        _optimizer_guards(g, opt)
    for code, cells, globals_ in _code_of(fn, modules):
        _global_guards(g, code, cells, globals_)
    _state_guards(g)
    g.compile()
    return g


def _shape_guards(g: Guards, env) -> None:
    """SHAPE_ENV: the trace's guards over its size symbols, checked on the new sizes; sizes
    that shared a symbol (duck sizing) must stay equal."""
    refs = {}                                    # placeholder symbol -> where its size is
    for sym, sources in env.var_to_sources.items():
        where = [f"{g.paths[leaf]}._shape[{dim}]" for leaf, dim in
                 ((_leaf_of(name), dim) for name, dim in sources)
                 if leaf is not None and leaf < len(g.paths)]
        if where:
            refs[sympy.Symbol(f"__{sym}__")] = (sym, where[0])
        for other in where[1:]:
            g.add(f"{other} == {where[0]}", f"SHAPE_ENV({sym}: {other} == {where[0]})")
    by_sym = {sym: r for r, (sym, _) in refs.items()}
    for guard in env.guards:
        expr = sympy.pycode(guard.xreplace(by_sym))
        for r, (_, where) in refs.items():
            expr = expr.replace(str(r), where)
        g.add(f"({expr})", f"SHAPE_ENV({guard})")


def _leaf_of(name: str):
    """The leaf index of a placeholder named `arg{i}_1` (make_fx's names for `*flat`)."""
    if name.startswith("arg") and name.endswith("_1") and name[3:-2].isdigit():
        return int(name[3:-2])
    return None


_HOOK_TABLES = ("_forward_pre_hooks", "_forward_hooks", "_backward_hooks", "_backward_pre_hooks")


def _module_guards(g: Guards, module) -> None:
    """The module tree as captured: training flags, hooks (the module's and the global
    ones), submodules, and each parameter's and buffer's identity and metadata (they are
    the graph's trailing inputs)."""
    from ..nn.modules import _hooks
    tables = [getattr(_hooks, t) for t in ("_global_forward_pre_hooks", "_global_forward_hooks")]
    counts = tuple(len(t) for t in tables)
    g.add(" and ".join(f"len({g.const(t)}) == {n}" if n else f"not {g.const(t)}"
                       for t, n in zip(tables, counts)), f"GLOBAL_HOOKS({counts})")
    for path, m in module.named_modules(remove_duplicate=False):
        label = f"self{'.' if path else ''}{path}"
        ref = g.const(m)
        g.add(f"{ref}.training is {m.training}", f"TRAINING({label}: {m.training})")
        counts = tuple(len(getattr(m, t)) for t in _HOOK_TABLES)
        if any(counts):
            g.add(f"({', '.join(f'len({ref}.{t})' for t in _HOOK_TABLES)},) == {counts}",
                  f"HOOKS({label}: {counts})")
        else:
            g.add(f"not ({' or '.join(f'{ref}.{t}' for t in _HOOK_TABLES)})",
                  f"NO_HOOKS({label})")
        for table in ("_modules", "_parameters", "_buffers"):
            d = getattr(m, table)
            dref = g.const(d)
            size = f"len({dref}) == {len(d)}" if d else f"not {dref}"
            g.add(f"{ref}.{table} is {dref} and {size}",
                  f"DICT_LENGTH({label}.{table}: {len(d)})")
            for name, v in d.items():
                vlabel = f"{label}.{name}"
                if table != "_modules" and v is not None:
                    _tensor_by_id(g, f"{dref}[{name!r}]", v, vlabel)
                else:
                    g.add(f"{dref}[{name!r}] is {g.const(v)}",
                          f"ID_MATCH({vlabel})" if v is not None else f"{vlabel} is None")


def _grad_guards(g: Guards, lifted) -> None:
    """GRAD: each lifted parameter's `.grad` is None, or a tensor of the captured layout
    (a graph input, read on every call)."""
    inputs = set(lifted.grads)
    for i, p in enumerate(lifted.params):
        ref, label = f"{g.const(p)}.grad", f"{_label(p)}.grad"
        if i in inputs:
            g.paths.append(ref)
            g.leaves.append(g.tensor(ref, p.grad, label))
        else:
            g.add(f"{ref} is None", f"GRAD_NONE({label})")


def _label(t) -> str:
    return f"tensor {tuple(t.shape)} at {id(t):#x}"


def _optimizer_guards(g: Guards, opt) -> None:
    """The optimizer as captured: its parameter groups (the same lists of the same
    parameters, the hyper-parameters by value) and its state (the same tensors by identity,
    other values by value)."""
    name = type(opt).__name__
    groups = opt.param_groups
    ref = g.const(groups)
    g.add(f"{g.const(opt)}.param_groups is {ref} and len({ref}) == {len(groups)}",
          f"OPTIMIZER_GROUPS({name}: {len(groups)})")
    for k, group in enumerate(groups):
        gref = g.const(group)
        label = f"{name}.param_groups[{k}]"
        g.add(f"{ref}[{k}] is {gref} and len({gref}) == {len(group)}",
              f"ID_MATCH({label}: {len(group)} keys)")
        for key, v in group.items():
            if key == "params":
                _tensor_list(g, f"{gref}['params']", v, f"{label}['params']")
            elif not isinstance(v, Tensor):
                g.value(f"{gref}[{key!r}]", v, f"{label}[{key!r}]")
            else:
                _tensor_by_id(g, f"{gref}[{key!r}]", v, f"{label}[{key!r}]")
    state = opt.state
    sref = g.const(state)
    g.add(f"{g.const(opt)}.state is {sref} and len({sref}) == {len(state)}",
          f"OPTIMIZER_STATE({name}: {len(state)} entries)")
    for p, s in state.items():
        dref = g.const(s)
        label = f"{name}.state[{_label(p)}]"
        g.add(f"{sref}.get({g.const(p)}) is {dref} and len({dref}) == {len(s)}",
              f"ID_MATCH({label}: {sorted(s)})")
        for key, v in s.items():
            if isinstance(v, Tensor):
                _tensor_by_id(g, f"{dref}[{key!r}]", v, f"{label}[{key!r}]")
            else:
                g.value(f"{dref}[{key!r}]", v, f"{label}[{key!r}]")


def _tensor_list(g: Guards, ref, ts, label) -> None:
    lref = g.const(ts)
    g.add(f"{ref} is {lref} and len({lref}) == {len(ts)}", f"ID_MATCH({label}: {len(ts)})")
    for i, t in enumerate(ts):
        _tensor_by_id(g, f"{lref}[{i}]", t, f"{label}[{i}]")


def _tensor_by_id(g: Guards, ref, t, label) -> None:
    """A lifted tensor: this very tensor (ID_MATCH), and its layout once per capture."""
    g.add(f"{ref} is {g.const(t)}", f"ID_MATCH({label})")
    if id(t) not in g.matched:
        g.matched.add(id(t))
        g.tensor(g.const(t), t, label)


def _code_of(fn, modules):
    """(code, closure cells, globals) of the user code the call runs: `fn` and the Python
    functions it names, and the forward of every module in the trees of `modules`."""
    seen, out = set(), []

    def visit(f, depth):
        f = getattr(f, "__func__", f)
        if not isinstance(f, types.FunctionType) or f.__code__ in seen or depth > 3:
            return
        if f.__module__ and f.__module__.split(".")[0] == "ember":
            return                                 # ember's own code is not user state
        seen.add(f.__code__)
        out.append((f.__code__, dict(zip(f.__code__.co_freevars, f.__closure__ or ())),
                    f.__globals__))
        for name in _names(f.__code__):
            v = f.__globals__.get(name)
            if isinstance(v, types.FunctionType):
                visit(v, depth + 1)
        for cell in f.__closure__ or ():
            try:
                visit(cell.cell_contents, depth + 1)
            except ValueError:
                pass
    visit(fn, 0)
    for module in modules:
        for m in module.modules():
            visit(type(m).forward, 0)
    return out


def _names(code) -> set:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names(c)
    return names


def _global_guards(g: Guards, code, cells, globals_) -> None:
    """GLOBAL/CLOSURE: the numbers, strings, tensors and containers of those the code reads
    (a changed value recompiles; functions, classes and modules are not guarded)."""
    for name in sorted(_names(code)):
        if name in globals_ and _guardable(globals_[name]):
            ref = f"{g.const(globals_)}[{name!r}]"
            g.add(f"{name!r} in {g.const(globals_)}", f"GLOBAL({name} defined)")
            _state_value(g, ref, globals_[name], f"G['{name}']")
    for name, cell in sorted(cells.items()):
        try:
            v = cell.cell_contents
        except ValueError:
            continue
        if _guardable(v):
            _state_value(g, f"{g.const(cell)}.cell_contents", v, f"closure {name}")


def _guardable(v) -> bool:
    from ..nn import Module
    from ..optim.optimizer import Optimizer
    if isinstance(v, (Tensor, Module, Optimizer, *_SIMPLE)):
        return True
    return isinstance(v, (list, tuple)) and len(v) <= 16 and all(
        isinstance(x, _SIMPLE) for x in v)


def _state_value(g: Guards, ref: str, v, label: str) -> None:
    """A global's value: tensors by identity (their data is read when the graph runs),
    others by value."""
    if isinstance(v, Tensor):
        g.add(f"{ref} is {g.const(v)}", f"ID_MATCH({label}: tensor)")
    elif isinstance(v, (list, tuple)):
        g.add(f"{ref} == {g.const(v)}", f"CONSTANT_MATCH({label} == {v!r})")
    else:
        g.value(ref, v, label)


def _state_guards(g: Guards) -> None:
    """GRAD_MODE, AUTOCAST (enabled devices and their dtypes), DEFAULT_DTYPE."""
    tls, amp = g.const(_tls), g.const(autocast_mode._state)
    g.add(f"{tls}.grad_enabled is {_tls.grad_enabled}", f"GRAD_MODE({_tls.grad_enabled})")
    g.add(f"{tls}.inference is {_tls.inference}", f"INFERENCE_MODE({_tls.inference})")
    bits = _tls.masks[0] & _AUTOCAST_BITS
    g.add(f"{tls}.masks[0] & {_AUTOCAST_BITS} == {bits}", f"AUTOCAST(key bits {bits})")
    for dev in ("cpu", "cuda"):
        if bits & autocast_mode._KEY_BIT[dev]:
            dt = autocast_mode._state.dtype[dev]
            g.add(f"{amp}.dtype[{dev!r}] is {g.const(dt)}", f"AUTOCAST_DTYPE({dev}: {dt})")
    default = g.const(D._default)
    g.add(f"{default}[0] is {g.const(D._default[0])}", f"DEFAULT_DTYPE({D._default[0]})")


__all__ = ["Guards", "build_guards"]
