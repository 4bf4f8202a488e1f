"""`RemovableHandle`: what `Module.register_*_hook` returns, and `BackwardHook`, which runs
a module's full backward hooks (like torch.utils.hooks).

    >>> import collections
    >>> hooks = collections.OrderedDict()     # held weakly: a plain dict cannot be
    >>> h = RemovableHandle(hooks)
    >>> hooks[h.id] = print
    >>> len(hooks), h.remove(), len(hooks)
    (1, None, 0)
"""
from __future__ import annotations

import itertools
import warnings
import weakref

__all__ = ["BackwardHook", "RemovableHandle"]

_ids = itertools.count()


class RemovableHandle:
    """Removes the entry `id` from a hooks dict (and from `extra_dict`s) on `.remove()`;
    usable as a context manager. The dicts are held weakly, like torch's."""

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(_ids)
        if extra_dict is None:
            extra_dict = ()
        elif isinstance(extra_dict, dict):
            extra_dict = (extra_dict,)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def _backward_hook_function():
    """The identity autograd Function whose nodes mark a module's inputs and outputs."""
    from ..autograd import Function

    class BackwardHookFunction(Function):
        @staticmethod
        def forward(ctx, *args):
            ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
            return args

        @staticmethod
        def backward(ctx, *args):
            return args

    return BackwardHookFunction


_hook_function = []


class BackwardHook:
    """Runs a module's full backward (pre-)hooks for one call: the module's tensor inputs
    and outputs pass through an identity Function; the node on the outputs sees the
    gradients with respect to the outputs (pre-hooks run there), the node on the inputs sees
    those with respect to the inputs (full hooks run there)."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    def _apply_on_tensors(self, on_node, args):
        """Passes the tensors of `args` through the identity Function and calls
        `on_node(its node)`; (args, None) when no gradient will flow."""
        from ..autograd import is_grad_enabled
        from ..core.tensor import Tensor
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        if not _hook_function:
            _hook_function.append(_backward_hook_function())
        new = _hook_function[0].apply(*tensors)
        new = new if isinstance(new, tuple) else (new,)
        on_node(next(t.grad_fn for t in new if t.grad_fn is not None))
        out = list(args)
        for i, t in zip(index, new):
            out[i] = t
        return tuple(out), index

    def setup_input_hook(self, args):
        def on_node(node):
            node.register_hook(self._input_hook)
        res, self.input_tensors_index = self._apply_on_tensors(on_node, args)
        self.n_inputs = len(args)
        return res

    def _input_hook(self, grad_input, _):
        if self.grad_outputs is None:
            return None
        res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = out
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_tensors_index)

    def setup_output_hook(self, result):
        def on_node(node):
            node.register_hook(self._output_hook)
        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, self.output_tensors_index = self._apply_on_tensors(on_node, args)
        self.n_outputs = len(args)
        return res if is_tuple else res[0]

    def _output_hook(self, _, grad_output):
        self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                 self.n_outputs)
        for pre_hook in self.user_pre_hooks:
            new = pre_hook(self.module, self.grad_outputs)
            if new is None:
                continue
            if len(new) != len(self.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(new)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = new
        local = self.grad_outputs
        if self.input_tensors_index is None:    # no input needs grad: the hooks run here
            warnings.warn("Full backward hook is firing when gradients are computed with respect "
                          "to module outputs since no inputs require gradients.", stacklevel=5)
            grad_inputs = (None,) * self.n_inputs
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple)
                                            and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_tensors_index)
