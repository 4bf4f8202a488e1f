"""Module hooks: the global forward hooks every module runs
(torch.nn.modules.module.register_module_forward_*hook), registering a hook, and calling a
module that has hooks. Module (module.py) registers its own hooks with `_add_hook` and
calls `_call_with_hooks` when any hook is registered."""
from __future__ import annotations

import warnings
from collections import OrderedDict

from ...core.tensor import Tensor
from ...utils.hooks import BackwardHook, RemovableHandle

# hooks every module runs (torch.nn.modules.module.register_module_forward_*hook)
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()
_global_forward_hooks_always_called: OrderedDict = OrderedDict()


def _add_hook(hooks: OrderedDict, hook, prepend=False, flags=()) -> RemovableHandle:
    """Registers `hook` in `hooks` (first if `prepend`); `flags` are (dict, on) pairs: the
    hook's id goes into each dict that is on (with_kwargs, always_call), and its handle
    removes it from all of them."""
    handle = RemovableHandle(hooks, extra_dict=[d for d, _ in flags])
    hooks[handle.id] = hook
    for d, on in flags:
        if on:
            d[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """A forward pre-hook `hook(module, args)` for every module, run before their own."""
    return _add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """A forward hook `hook(module, args, output)` for every module, run before their own."""
    return _add_hook(_global_forward_hooks, hook, flags=(
        (_global_forward_hooks_with_kwargs, with_kwargs),
        (_global_forward_hooks_always_called, always_call)))


def _call_with_hooks(module, args, kwargs):
    """`module(*args, **kwargs)` when hooks are registered: pre-hooks, forward, then
    forward hooks (global ones first, like torch)."""
    for hook_id, hook in (*_global_forward_pre_hooks.items(),
                          *module._forward_pre_hooks.items()):
        if hook_id in module._forward_pre_hooks_with_kwargs:
            out = hook(module, args, kwargs)
            if out is not None:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {out}.")
                args, kwargs = out
        else:
            out = hook(module, args)
            if out is not None:
                args = out if isinstance(out, tuple) else (out,)
    backward_hook = None
    if module._backward_hooks or module._backward_pre_hooks:
        backward_hook = BackwardHook(module, list(module._backward_hooks.values()),
                                     list(module._backward_pre_hooks.values()))
        args = backward_hook.setup_input_hook(args)
    hooks = (*_global_forward_hooks.items(), *module._forward_hooks.items())
    called = set()
    try:
        result = module.forward(*args, **kwargs)
        for hook_id, hook in hooks:
            called.add(hook_id)
            result = _run_forward_hook(module, hook_id, hook, args, kwargs, result)
    except Exception:
        for hook_id, hook in hooks:
            if hook_id not in called and (hook_id in module._forward_hooks_always_called
                                          or hook_id in _global_forward_hooks_always_called):
                try:
                    _run_forward_hook(module, hook_id, hook, args, kwargs, None)
                except Exception as e:  # noqa: BLE001 (torch warns, then re-raises forward's)
                    warnings.warn("forward hook with ``always_call=True`` raised an exception "
                                  "that was silenced as another error was raised in forward: "
                                  f"{e}", stacklevel=2)
        raise
    if backward_hook is not None:
        if not isinstance(result, (Tensor, tuple)):
            warnings.warn("For backward hooks to be called, module output should be a Tensor "
                          f"or a tuple of Tensors but received {type(result)}", stacklevel=2)
        result = backward_hook.setup_output_hook(result)
    return result


def _run_forward_hook(module, hook_id, hook, args, kwargs, result):
    if (hook_id in module._forward_hooks_with_kwargs
            or hook_id in _global_forward_hooks_with_kwargs):
        out = hook(module, args, kwargs, result)
    else:
        out = hook(module, args, result)
    return result if out is None else out
