"""Emits generated/autograd.py: one Backward Node class per derivatives.yaml entry and
one Autograd-key kernel per differentiable overload (functional and in-place).

The kernel redispatches below Autograd, then (grad mode on, some input needing a
gradient) builds the Node, saves what the formulas use, and sets the outputs' history:

    def _ag_mul_Tensor(ks, self, other):
        _out = <kernel below Autograd>(self, other)
        if not _tls.grad_enabled:
            return _out
        _e_self = _edge(self)
        _e_other = _edge(other)
        ...
"""
from __future__ import annotations

import ast

from .api import py_name
from .derivatives import Derivative, return_names
from .native import NativeFunction

IND = "    "
# tensor attributes read straight from Tensor's slots when saving them (not the device: a
# fake tensor's slot holds meta, its `device` the device it stands for)
FAST_ATTRS = {"shape": "_shape", "dtype": "_dtype"}


def _needed_expr(name: str, is_list: bool) -> str:
    return f"_a_{name}" if is_list else f"_e_{name} is not None"


def _positions(d: Derivative) -> dict[str, str]:
    """name -> index expression into `_needs` (a list input spans `_L` entries)."""
    pos, fixed, after_list = {}, 0, False
    for name, is_list in d.inputs:
        base = f"{fixed} + _L" if after_list else str(fixed)
        pos[name] = f"{base}:{base} + _L" if is_list else base
        if is_list:
            after_list = True
        else:
            fixed += 1
    return pos


def _list_input(d: Derivative):
    return next((n for n, is_list in d.inputs if is_list), None)


_TENSOR_KINDS = ("tensor", "tensor_list", "output")


def _unpacked_first(d: Derivative) -> list[str]:
    """The saved tensors apply() unpacks before any formula, once each, in torch's order
    (its generated nodes unpack every saved variable first: the inputs by name, then the
    outputs), so saved_tensors_hooks see torch's unpack calls."""
    inputs = sorted(s.local for s in d.saved if s.kind in ("tensor", "tensor_list"))
    outputs = [s.local for s in sorted((s for s in d.saved if s.kind == "output"),
                                       key=lambda s: s.output_index)]
    return inputs + outputs


def _unpack_first_line(d: Derivative, local: str, prefix: str = "") -> str:
    """The unpacking of saved tensor `local` (into `prefix + local`) at the top of apply(),
    under the condition the forward saved it on (_save_lines: an input whose formula uses
    it needs a gradient)."""
    kind = next(s.kind for s in d.saved if s.local == local)
    if kind == "tensor_list":
        value = f"[_unpack(_s, _node) for _s in _node._s_{local}]"
    else:
        value = f"_unpack(_node._s_{local}, _node)"
    target = prefix + local
    if len(d.inputs) == 1:
        return f"{target} = {value}"
    pos = _positions(d)
    users = [n for f in d.formulas if local in f.uses for n in f.inputs]
    conds = dict.fromkeys(f"any(_n[{pos[n]}])" if ":" in pos[n] else f"_n[{pos[n]}]"
                          for n in users)
    return f"{target} = {value} if {' or '.join(conds)} else None"


def _tuple_items(names) -> str:
    """'a, b' (or 'a,' for one name): a tuple's items, to build or unpack it."""
    names = list(names)
    return ", ".join(names) + ("," if len(names) == 1 else "")


def _unpack_line(d: Derivative, local: str) -> str:
    s = next(s for s in d.saved if s.local == local)
    if s.kind in ("tensor", "output"):
        return f"{local} = _unpack(_node._s_{local}, _node)"
    if s.kind == "tensor_list":
        return f"{local} = [_unpack(_s, _node) for _s in _node._s_{local}]"
    return f"{local} = _node._s_{local}"


def view_entries(fns: list[NativeFunction]) -> dict[str, tuple[str, int]]:
    """Tensor method name -> (its entry's ident, its arguments after self), for the methods
    of one overload (what `grad.t()` in a formula calls, without resolving)."""
    found: dict[str, list[NativeFunction]] = {}
    for fn in fns:
        if "method" in fn.variants:
            found.setdefault(fn.op_name, []).append(fn)
    return {name: (group[0].ident, len(group[0].schema.arguments.flat_non_out()) - 1)
            for name, group in found.items() if len(group) == 1}


def _view_of_grad(d: Derivative, entries: dict) -> tuple[str, list[str]] | None:
    """(entry ident, argument names) when the node's one formula is a method of `grad`
    given every argument by name (`grad.t()`, `grad.reshape(self_shape)`)."""
    if len(d.formulas) != 1 or len(d.inputs) != 1 or d.inputs[0][1]:
        return None
    f = d.formulas[0]
    if f.kind != "expr" or f.array_code or f.grads != ("grad",):
        return None
    call = ast.parse(f.code, mode="eval").body
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "grad"
            and not call.keywords and all(isinstance(a, ast.Name) for a in call.args)):
        return None
    entry = entries.get(call.func.attr)
    if entry is None or entry[1] != len(call.args):
        return None
    return entry[0], [a.id for a in call.args]


def _apply_array_view(d: Derivative, entry: tuple[str, list[str]]) -> list[str]:
    """`_apply_array` of a node whose formula is one method of grad (a view op): the
    method's entry called directly on a plain tensor (no binding; the same result)."""
    ident, args = entry
    lines = ["", f"{IND}def _apply_array(_node, _grads):",
             f"{IND*2}grad = _grads[0]",
             f"{IND*2}if grad.__class__ is not _A.Tensor or not _node._needs[0]:",
             f"{IND*3}return _node.apply(_grads)"]
    for local in d.formulas[0].uses:
        lines.append(f"{IND*2}{_unpack_line(d, local)}")
    call = f"_o._entry_{ident}({', '.join(['grad', *args])})"
    if ident == "reshape":
        # (a contiguous gradient: the view kernel's make_view, without reshape's layers)
        lines += [f"{IND*2}_v = _A.reshape_contiguous(grad, {args[0]})",
                  f"{IND*2}return ({call} if _v is None else _v,)"]
    else:
        lines.append(f"{IND*2}return ({call},)")
    return lines


def node_class(d: Derivative, entries: dict | None = None) -> str:
    rets = return_names(d.fn.schema)
    tensor_slots = [f"_s_{s.local}" for s in d.saved if s.kind in ("tensor", "output")]
    list_slots = [f"_s_{s.local}" for s in d.saved if s.kind == "tensor_list"]
    slots = sorted(f"_s_{s.local}" for s in d.saved)
    lst = _list_input(d)
    if lst:
        slots.append("_nlist")
    view = _view_of_grad(d, entries or {})
    array = _apply_array_view(d, view) if view else _apply_array(d)
    unpacked = _unpacked_first(d) if any(f.kind != "not_implemented" for f in d.formulas) else []
    # (an array version that falls back hands apply() the saved tensors it unpacked: the
    # saved_tensors_hooks run once per tensor, as in torch)
    handed = bool(array and unpacked and not view)
    lines = [f"class {d.node}(_Node):",
             f'{IND}"""Backward of {d.fn.schema.name}, from {d.loc.file}."""',
             f"{IND}__slots__ = {tuple(slots)!r}",
             f"{IND}_saved_slots = {tuple(tensor_slots)!r}",
             f"{IND}_saved_list_slots = {tuple(list_slots)!r}",
             *([f"{IND}_release_after_backward = True"] if tensor_slots or list_slots else []),
             f"{IND}_input_names = {tuple(n for n, _ in d.inputs)!r}",
             "",
             f"{IND}def apply(_node, grads{', _saved=None' if handed else ''}):",
             f"{IND*2}_n = _node._needs"]
    if lst:
        lines.append(f"{IND*2}_L = _node._nlist")
    grads_used = sorted({g for f in d.formulas for g in f.grads})
    for g in grads_used:
        if g == "grad":
            lines.append(f"{IND*2}grad = grads[0]")
        elif g.startswith("grad_"):
            lines.append(f"{IND*2}{g} = grads[{rets.index(g[5:])}]")
    for name, is_list in d.inputs:
        lines.append(f"{IND*2}_r_{name} = [None] * _L" if is_list else f"{IND*2}_r_{name} = None")
    if handed:
        lines.append(f"{IND*2}if _saved is None:")
        lines += [f"{IND*3}{_unpack_first_line(d, local)}" for local in unpacked]
        lines += [f"{IND*2}else:", f"{IND*3}{_tuple_items(unpacked)} = _saved"]
    else:
        lines += [f"{IND*2}{_unpack_first_line(d, local)}" for local in unpacked]
    kinds = {s.local: s.kind for s in d.saved}
    pos = _positions(d)
    for f in d.formulas:
        conds = [f"any(_n[{pos[n]}])" if ":" in pos[n] else f"_n[{pos[n]}]" for n in f.inputs]
        lines.append(f"{IND*2}if {' or '.join(conds)}:")
        if f.kind == "not_implemented":
            lines.append(f"{IND*3}raise _not_implemented({f.code!r})")
            continue
        for local in f.uses:
            if kinds[local] not in _TENSOR_KINDS:
                lines.append(f"{IND*3}{_unpack_line(d, local)}")
        targets = ", ".join(f"_r_{n}" for n in f.inputs)
        lines.append(f"{IND*3}{targets} = {f.code}")
    parts = [f"*_r_{n}" if is_list else f"_r_{n}" for n, is_list in d.inputs]
    lines.append(f"{IND*2}return ({', '.join(parts)}{',' if len(parts) == 1 else ''})")
    lines += array
    for s in d.saved:
        lines += ["", f"{IND}@property", f"{IND}def _saved_{s.local}(self):"]
        if s.kind in ("tensor", "output"):
            lines.append(f"{IND*2}return _unpack(self._s_{s.local}, self)")
        elif s.kind == "tensor_list":
            lines.append(f"{IND*2}return [_unpack(_s, self) for _s in self._s_{s.local}]")
        else:
            lines.append(f"{IND*2}return self._s_{s.local}")
    return "\n".join(lines)


def _apply_array(d: Derivative) -> list[str]:
    """`_apply_array`: the formulas over NumPy arrays (array_formulas.py), run by the engine
    when nobody can observe the ops; `Fallback` runs `apply`. Only when every formula has
    an array version."""
    if not all(f.array_code for f in d.formulas):
        return []
    rets = return_names(d.fn.schema)
    unpacked = _unpacked_first(d)
    # the saved tensors first, as apply() unpacks them (its order), kept for a fallback
    lines = ["", f"{IND}def _apply_array(_node, _grads):", f"{IND*2}_n = _node._needs"]
    lines += [f"{IND*2}{_unpack_first_line(d, local, prefix='_t_')}" for local in unpacked]
    lines += [f"{IND*2}try:"]
    if _list_input(d):
        lines.append(f"{IND*3}_L = _node._nlist")
    for g in sorted({g for f in d.formulas for g in f.grads}):
        if g == "grad":
            lines.append(f"{IND*3}grad = _A.arr(_grads[0])")
        elif g == "grads":
            lines.append(f"{IND*3}grads = _A.arrs(_grads)")
        else:
            lines.append(f"{IND*3}{g} = _A.arr(_grads[{rets.index(g[5:])}])")
    for name, is_list in d.inputs:
        lines.append(f"{IND*3}_r_{name} = [None] * _L" if is_list else f"{IND*3}_r_{name} = None")
    lines += [f"{IND*3}{local} = _A.arr(_t_{local})" for local in unpacked]
    pos = _positions(d)
    kinds = {s.local: s.kind for s in d.saved}
    is_list = dict(d.inputs)
    for f in d.formulas:
        conds = [f"any(_n[{pos[n]}])" if ":" in pos[n] else f"_n[{pos[n]}]" for n in f.inputs]
        lines.append(f"{IND*3}if {' or '.join(conds)}:")
        for local in f.uses:
            if kinds[local] not in _TENSOR_KINDS:
                lines.append(f"{IND*4}{_unpack_line(d, local)}")
        sources = "".join(f", {u}" for u in f.uses if kinds[u] in ("tensor", "output"))
        # (a list input's formula gives a list: `outs` keeps views of the gradient views)
        wrap = "_A.outs" if is_list[f.inputs[0]] else "_A.out"
        lines.append(f"{IND*4}_r_{f.inputs[0]} = {wrap}({f.array_code}, _grads{sources})")
    parts = [f"*_r_{n}" if is_list else f"_r_{n}" for n, is_list in d.inputs]
    lines.append(f"{IND*3}return ({', '.join(parts)}{',' if len(parts) == 1 else ''})")
    handed = f", ({_tuple_items(f'_t_{u}' for u in unpacked)})" if unpacked else ""
    lines += [f"{IND*2}except _A.Fallback:", f"{IND*3}return _node.apply(_grads{handed})"]
    return lines


def _edge_lines(d: Derivative, fn: NativeFunction) -> list[str]:
    args = {a.name: a for a in fn.schema.arguments.flat_non_out()}
    out = []
    for name, is_list in d.inputs:
        if is_list:
            out.append(f"_e_{name} = [None if _t is None else _edge(_t) for _t in {name}]")
            out.append(f"_a_{name} = any(_x is not None for _x in _e_{name})")
        elif args[name].type.is_nullable():
            out.append(f"_e_{name} = None if {name} is None else _edge({name})")
        else:
            out.append(f"_e_{name} = _edge({name})")
    return out


def _node_line(d: Derivative) -> list[str]:
    """The node, made once some input needs a gradient (with one input: that one)."""
    edges, needs = [], []
    for name, is_list in d.inputs:
        if len(d.inputs) == 1 and not is_list:     # its edge is known to exist here
            edges.append(f"_e_{name}")
            needs.append("True")
        elif is_list:
            edges.append(f"*[_x or _NO_EDGE for _x in _e_{name}]")
            needs.append(f"*[_x is not None for _x in _e_{name}]")
        else:
            edges.append(f"_e_{name} or _NO_EDGE")
            needs.append(f"_e_{name} is not None")
    comma = "," if len(edges) == 1 else ""
    lines = [(f"_node = _new_node({d.node}, ({', '.join(edges)}{comma}), "
              f"({', '.join(needs)}{comma}))")]
    lst = _list_input(d)
    if lst:
        lines.append(f"_node._nlist = len({lst})")
    return lines


def _save_lines(d: Derivative, after_op: bool, inplace: bool) -> list[str]:
    """Saves grouped by the inputs whose formulas need them."""
    users: dict[str, list[str]] = {}
    for f in d.formulas:
        for local in f.uses:
            users.setdefault(local, [])
            users[local] += [n for n in f.inputs if n not in users[local]]
    is_list = dict(d.inputs)
    tensor_args = {a.name for a in d.fn.schema.arguments.flat_non_out() if a.type.is_tensor_like()}
    lines: list[str] = []
    last_cond = None
    for s in d.saved:
        if (s.output_index >= 0) != after_op:
            continue
        # with one input, the kernel only gets here when that input needs a gradient
        cond = None if len(d.inputs) == 1 else " or ".join(
            _needed_expr(n, is_list[n]) for n in users[s.local])
        fwd = s.forward
        if s.kind == "tensor":
            value = f"_save({fwd}.clone())" if inplace and fwd == "self" else f"_save({fwd})"
        elif s.kind == "tensor_list":
            value = f"_save_list({fwd})"
        elif s.kind == "output":
            value = f"_save_output({fwd}, {s.output_index})"
        else:
            source, _, attr = fwd.partition(".")
            if attr in FAST_ATTRS:
                attr = FAST_ATTRS[attr]      # the raw tuple/dtype, no Size object
            if is_list.get(source) or (source in tensor_args and source not in users[s.local]):
                # the input may be a Python number: read the attribute of it as a tensor
                source = f"_as_tensor({source})"
            value = f"{source}.{attr}" if attr else fwd
        if cond is None:
            lines.append(f"_node._s_{s.local} = {value}")
        else:
            if cond != last_cond:
                lines.append(f"if {cond}:")
            lines.append(f"{IND}_node._s_{s.local} = {value}")
        last_cond = cond
    return lines


def _output_bindings(d: Derivative) -> list[str]:
    rets = return_names(d.fn.schema)
    if not any(s.output_index >= 0 for s in d.saved):
        return []
    if len(rets) == 1:
        return [f"{rets[0]} = _out"]
    return [f"{r} = _out[{i}]" for i, r in enumerate(rets)]


def _history_line(d: Derivative) -> str:
    schema = d.fn.schema
    rets = schema.returns
    if len(rets) == 1 and rets[0].type.is_tensor_list():
        multi_view = schema.is_view()
        return f"_set_history_many(_out, _node, None, {multi_view})"
    if len(rets) == 1:
        if d.output_differentiability[0]:
            return "_set_history_one(_out, _node)"
        return "_node._out_meta = ((_out._shape, _out._dtype, _out._device),)"
    return f"_set_history_many(_out, _node, {d.output_differentiability!r})"


def calls_other_ops(fn: NativeFunction) -> bool:
    """A CompositeExplicitAutograd kernel written over other ember ops (kernels/common):
    not an autogen'd one (those redispatch below their key), not a view (views are made
    directly, and they are the hot path)."""
    return [k for k, _ in fn.dispatch] == ["CompositeExplicitAutograd"] and \
        not fn.dispatch[0][1].startswith("@") and not fn.schema.is_view()


def _call_below(fn: NativeFunction) -> list[str]:
    args = ", ".join(py_name(a.name) for a in fn.schema.arguments.flat())
    lines = ["_ks = ks & _BELOW",
             f"_k = _c_{fn.ident}.get(_ks)",
             "if _k is None:",
             f"{IND}_k = _o.{fn.ident}._fill(_ks)"]
    if not calls_other_ops(fn):
        return lines + [f"_out = _k({args})"]
    # the ops such a kernel calls must not record backward nodes of their own: run it
    # with Autograd and ADInplaceOrView excluded (torch's AutoDispatchBelowADInplaceOrView)
    return lines + ["_m = _tls.masks",
                    "_tls.masks = (_m[0], _m[1] & _BELOW_AD_INPLACE)",
                    "try:",
                    f"{IND}_out = _k({args})",
                    "finally:",
                    f"{IND}_tls.masks = _m"]


def _forbidden_lines(d: Derivative, fn: NativeFunction) -> list[str]:
    """torch's check_no_requires_grad for inputs marked raises_if_requires_grad."""
    args = {a.name: a for a in fn.schema.arguments.flat_non_out()}
    lines = []
    for name in d.forbidden:
        none = f"{name} is not None and " if args[name].type.is_nullable() else ""
        msg = (f"The function '{d.fn.op_name}' is not differentiable with respect to argument "
               f"'{name}'. This input cannot have requires_grad True.")
        lines += [f"if _tls.grad_enabled and {none}{name}.requires_grad:",
                  f"{IND}raise RuntimeError({msg!r})"]
    return lines


def forward_kernel(d: Derivative, fn: NativeFunction) -> str:
    """The Autograd kernel of `fn`, the functional overload `d` describes or an in-place one."""
    inplace = fn.schema.kind() == "inplace"
    params = ", ".join(["ks"] + [py_name(a.name) for a in fn.schema.arguments.flat()])
    any_needed = " or ".join(_needed_expr(n, is_list) for n, is_list in d.inputs)
    body: list[str] = _forbidden_lines(d, fn)
    if not inplace:
        body += _call_below(fn)
        body.append("if not _tls.grad_enabled:")
        if fn.schema.is_view():
            body.append(f"{IND}return _mark_no_grad_view(_out, self)")
        else:
            body.append(f"{IND}return _out")
        body += _edge_lines(d, fn)
        single = len(d.inputs) == 1 and not d.inputs[0][1]
        body += [f"if _e_{d.inputs[0][0]} is None:" if single else f"if not ({any_needed}):",
                 f"{IND}return _out"]
        body += _node_line(d)
        body += _save_lines(d, False, False)
        body += _output_bindings(d)
        body += _save_lines(d, True, False)
        body.append(_history_line(d))
        body.append("return _out")
    else:
        inner = _edge_lines(d, fn) + [f"if {any_needed}:"]
        inner += [IND + x for x in ["_check_inplace(self)"] + _node_line(d)
                  + _save_lines(d, False, True)]
        body += ["_node = None", "if _tls.grad_enabled:"] + [IND + x for x in inner]
        body += _call_below(fn)
        # an in-place view op (t_) changes metadata, not data: self's history is the view
        # op's node itself (torch's), where a data mutation rebases it (CopySlices on views)
        history = ("_set_history_one(self, _node)" if "inplace_view" in fn.tags
                   else "_rebase_history(self, _node)")
        after = [history] + _output_bindings(d) + _save_lines(d, True, True)
        body += ["if _node is not None:"] + [IND + x for x in after]
        body.append("return _out")
    lines = [f"def _ag_{fn.ident}({params}):"] + [IND + x for x in body]
    return "\n".join(lines)


def needs_autograd_kernel(fn: NativeFunction) -> bool:
    """Ops that can see a tensor requiring grad (not factories, not implicit composites)."""
    if any(k == "CompositeImplicitAutograd" for k, _ in fn.dispatch):
        return False
    return any(a.type.is_tensor_like() for a in fn.schema.arguments.flat())
