"""Custom autograd Functions: `Function` with a static `forward` and `backward`, like torch's.

    >>> class Exp(Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         result = x.exp()
    ...         ctx.save_for_backward(result)
    ...         return result
    ...
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         result, = ctx.saved_tensors
    ...         return grad * result
    >>> y = Exp.apply(ember.ones(2, requires_grad=True))
    >>> y.grad_fn.name()
    'ExpBackward'

Each Function subclass gets a backward Node class `<Name>Backward` (`Function._backward_cls`).
`apply` makes one node per call and passes it to `forward` as `ctx` (like torch's
BackwardCFunction): saved tensors, `needs_input_grad` and any attribute set in forward are
there in backward. `forward` runs with grad mode off; when grad mode is on and some tensor
input requires grad, the outputs get the node as grad_fn.

torch-2 style: `forward(*args)` without ctx plus `setup_context(ctx, inputs, output)`.
"""
from __future__ import annotations

import functools
import inspect
import warnings

import ember

from ..core.dtype import float32
from ..core.tensor import Tensor, shallow_copy
from ..dispatch.tls import state as _tls
from . import graph as G
from . import meta as M

__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "FunctionMeta", "InplaceFunction",
           "once_differentiable"]

# Creation meta of views returned by a custom Function: modifying one in place is an error.
_IN_CUSTOM_FUNCTION = M.IN_CUSTOM_FUNCTION
# `_out_meta` of an output that is not a tensor (no gradient ever flows there)
_NOT_A_TENSOR = ((), float32, None)

_DIRTY_VIEW_MULTI = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one "
    "doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change.")
_DIRTY_NOT_RETURNED = (
    "Some elements marked as dirty during the forward method were not returned as output. The "
    "inputs that are modified inplace must all be outputs of the Function.")
_DIRTY_NOT_INPUT = (
    "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have "
    "been mutated should be passed to ctx.mark_dirty().")
_SAVED_INPUT_RETURNED = (
    "An input that has been returned as-is as output is being saved for backward. This is not "
    "supported if you override setup_context. You should return and save a view of the input "
    "instead, e.g. with x.view_as(x) or setup ctx inside the forward function itself.")
_ONCE_DIFFERENTIABLE = ("trying to differentiate twice a function that was marked with "
                        "@once_differentiable")


class FunctionCtx:
    """What `ctx` offers in `forward` / `setup_context`.

    >>> class Sort(ember.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         values, idx = x.sort()
    ...         ctx.save_for_backward(idx)          # tensors for backward: ctx.saved_tensors
    ...         ctx.mark_non_differentiable(idx)    # idx never requires grad
    ...         ctx.set_materialize_grads(False)    # backward may get None for unused outputs
    ...         return values, idx
    ...     @staticmethod
    ...     def backward(ctx, g_values, g_idx):
    ...         idx, = ctx.saved_tensors
    ...         return ember.zeros_like(g_values).scatter(0, idx, g_values)
    >>> x = ember.tensor([3., 1., 2.], requires_grad=True)
    >>> values, idx = Sort.apply(x)
    >>> values, idx
    (tensor([1., 2., 3.], grad_fn=<SortBackward>), tensor([1, 2, 0]))
    >>> (values * ember.tensor([1., 2., 3.])).sum().backward(); x.grad
    tensor([3., 1., 2.])

    >>> class AddOne_(ember.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.mark_dirty(x)                   # x was modified in place and is returned
    ...         return x.add_(1)
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         return grad
    >>> a = ember.zeros(2, requires_grad=True).clone()
    >>> AddOne_.apply(a)
    tensor([1., 1.], grad_fn=<AddOne_Backward>)
    """

    __slots__ = ()

    def save_for_backward(self, *tensors):
        """Saves inputs, outputs (or None) for `ctx.saved_tensors`; in-place changes to
        them before backward are detected."""
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        for t in tensors:
            if not (isinstance(t, Tensor) or t is None):
                raise AssertionError("save_for_forward expects all arguments to be tensors; you "
                                     "should save non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Marks inputs that forward modified in place (they must be returned)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        """Marks outputs that never require grad (backward still gets zeros for them)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool):
        """With False, backward gets None (not zeros) for outputs no gradient reached."""
        self.materialize_grads = value


class BackwardCFunction(G.Node, FunctionCtx):
    """The node of one `Function.apply` call, and its `ctx`. Subclassed per Function as
    `<Name>Backward`; instances have a `__dict__` for whatever forward stores on ctx."""

    _forward_cls = None
    _release_after_backward = True
    _skip_if_no_grad = False         # torch runs a Function's backward even then (zeros in)

    def _get_user_fn(self):
        cls = self._forward_cls
        backward_fn, vjp_fn = cls.backward, cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                               "not allowed. You should only implement one of them.")
        return vjp_fn if vjp_fn is not Function.vjp else backward_fn

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to save_for_backward, checked against in-place changes."""
        if self._fn_released:
            raise RuntimeError(G.RELEASED)
        saved = self._fn_saved
        if saved is None:
            return ()
        return tuple(s.unpack(self, with_grad_fn=True) if isinstance(s, G.SavedTensor) else s
                     for s in saved)

    @property
    def saved_variables(self) -> tuple:
        return self.saved_tensors

    def release_variables(self) -> None:
        self._fn_saved = None
        self._fn_released = True

    def apply(self, grads):
        """Runs the user's backward: one gradient per forward output in, one per tensor
        input (the entries of next_functions) out."""
        grads = list(grads)
        materialize = self.materialize_grads
        for i, meta in enumerate(self._out_meta):
            if not self._fn_out_is_tensor[i]:
                grads[i] = None
            elif grads[i] is None and materialize:
                shape, dtype, device = meta
                grads[i] = ember.zeros(shape, dtype=dtype, device=device)
        result = self._get_user_fn()(self, *grads)
        return self._fn_check_grads(result)

    def _fn_check_grads(self, result) -> tuple:
        """torch's checks of what backward returned; drops the non-tensor inputs' entries."""
        if not isinstance(result, tuple):
            result = (result,)
        is_tensor_input = self._fn_is_tensor_input
        n = len(is_tensor_input)
        if len(result) > n and all(r is None for r in result[n:]):
            result = result[:n]
        if len(result) != n:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {n}, got {len(result)})")
        out = []
        for i, (g, is_tensor) in enumerate(zip(result, is_tensor_input)):
            if not is_tensor:
                if g is not None:
                    raise RuntimeError(f"function {self.name()} returned a gradient different "
                                       f"than None at position {i + 1}, but the corresponding "
                                       "forward input was not a Variable")
                continue
            if g is not None and not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            out.append(g)
        return tuple(out)


class FunctionMeta(type):
    """Gives each Function subclass its backward node class `<Name>Backward`."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": cls.__module__,
                                  "__qualname__": name + "Backward"})
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of custom autograd Functions: override the static `forward` and
    `backward` (or `forward` + `setup_context` + `backward`), call `MyFn.apply(...)`.

    backward(ctx, *grads) gets one gradient per forward output and returns one per
    forward input (None for inputs that need none, and for non-tensor inputs).
    """

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd "
                      "functions are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        """`forward(ctx, *args)`, or `forward(*args)` together with `setup_context`."""
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Saves what backward needs, given the inputs and the output of a ctx-less forward."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """The gradients of the inputs, given those of the outputs."""
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs forward and records the backward node when an input requires grad."""
        setup = cls.setup_context is not _base_setup_context
        if setup:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        return _apply(cls, setup, args, kwargs)


_base_setup_context = Function.setup_context


class InplaceFunction(Function):
    """Kept for compatibility with torch; use Function."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


def _apply(cls, setup, args, kwargs):
    is_tensor_input = tuple(isinstance(a, Tensor) for a in args)
    tensor_inputs = [a for a, t in zip(args, is_tensor_input) if t]
    needs_input_grad = tuple(t and a.requires_grad for a, t in zip(args, is_tensor_input))
    executable = _tls.grad_enabled and any(needs_input_grad)
    node_cls = cls._backward_cls
    if executable:
        # edges are taken before forward: an input modified in place keeps its old history
        edges = [G.gradient_edge(a) for a in tensor_inputs]
        ctx = G.new_node(node_cls, tuple(e or G.NO_EDGE for e in edges),
                         tuple(e is not None for e in edges))
    else:
        ctx = node_cls()
        ctx.next_functions, ctx._needs, ctx._seq, ctx._extra = (), (), -1, None
        ctx._out_meta = ()
    ctx.needs_input_grad = needs_input_grad
    ctx.materialize_grads = True
    ctx._fn_is_tensor_input = is_tensor_input
    ctx._fn_out_is_tensor = ()
    ctx._fn_saved = None
    ctx._fn_released = False

    prev = _tls.grad_enabled
    _tls.grad_enabled = False
    try:
        if setup:
            output = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, output)
        else:
            output = cls.forward(ctx, *args, **kwargs)
    finally:
        _tls.grad_enabled = prev

    is_tuple = isinstance(output, tuple)
    raw = output if is_tuple else (output,)
    to_save = ctx.__dict__.pop("to_save", None)
    wrapped, diff = _wrap_outputs(ctx, raw, tensor_inputs, executable, setup, to_save)
    if executable and to_save is not None:
        ctx._fn_saved = _save(ctx, to_save, wrapped, diff)
    return tuple(wrapped) if is_tuple else wrapped[0]


def _is_in(t, ts) -> bool:
    return any(t is u for u in ts)


def _alias(t):
    """`t.view_as(t)` made with grad mode off (an input returned as-is gets its own history)."""
    prev = _tls.grad_enabled
    _tls.grad_enabled = False
    try:
        return t.view_as(t)
    finally:
        _tls.grad_enabled = prev


def _wrap_outputs(node, raw, tensor_inputs, executable, setup, to_save):
    """torch's _wrap_outputs: each tensor output gets `node` as grad_fn (unless not
    differentiable); inputs returned as-is become aliases, dirty inputs are rebased."""
    dirty = node.__dict__.pop("dirty_tensors", None) or ()
    non_diff = node.__dict__.pop("non_differentiable", None) or ()
    for k, t in enumerate(dirty):
        if not isinstance(t, Tensor):
            msg = f"mark_dirty can only accept variables, but argument {k} is of type "
            raise RuntimeError(msg + type(t).__name__)  # noqa: TRY004  (torch's type)
        t.untyped_storage()._version += 1    # like torch: changes made behind its back count
    for t in non_diff:
        if not isinstance(t, Tensor):
            msg = "mark_non_differentiable only accepts variable arguments, but got "
            raise RuntimeError(msg + type(t).__name__)  # noqa: TRY004  (torch's type)
    n_out = len(raw)
    wrapped, metas, diff = [], [], []
    n_dirty_returned = 0
    for i, var in enumerate(raw):
        if not isinstance(var, Tensor):
            wrapped.append(var)
            metas.append(_NOT_A_TENSOR)
            diff.append(False)
            continue
        is_input = _is_in(var, tensor_inputs)
        is_modified = _is_in(var, dirty)
        n_dirty_returned += is_modified
        is_diff = (executable and not _is_in(var, non_diff)
                   and (var.is_floating_point() or var.is_complex()))
        if not is_diff:
            if not var.requires_grad:
                if is_input and not is_modified:
                    var = _alias(var)
            elif is_input:
                var = var.detach()
            elif var._base is None:
                var.detach_()
        elif is_modified:
            _rebase_dirty(var, node, i, is_input, n_out)
        elif is_input:
            if setup and to_save is not None and _is_in(var, to_save):
                raise RuntimeError(_SAVED_INPUT_RETURNED)
            var = _alias(var)
            G.set_history(var, node, i)
        else:
            G.set_history(var, node, i)
        if not (is_input and is_modified) and var._base is not None:
            M.autograd_meta(var).creation_meta = _IN_CUSTOM_FUNCTION
        wrapped.append(var)
        metas.append((var._shape, var._dtype, var._device))
        diff.append(is_diff)
    if n_dirty_returned != len(dirty):
        raise RuntimeError(_DIRTY_NOT_RETURNED)
    if sum(diff) > 1:
        # several differentiable outputs: none of those that are views may change in place
        for var, d in zip(wrapped, diff):
            if d and var._base is not None:
                M.autograd_meta(var).creation_meta = M.MULTI_OUTPUT_NODE
    if executable:
        node._out_meta = tuple(metas)
    node._fn_out_is_tensor = tuple(isinstance(v, Tensor) for v in raw)
    return wrapped, diff


def _rebase_dirty(var, node, nr, is_input, n_out):
    """An input forward modified in place (ctx.mark_dirty): its history now ends in `node`
    (through CopySlices on its base when it is a view)."""
    if var.requires_grad and var.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    if not is_input:
        warnings.warn(_DIRTY_NOT_INPUT, UserWarning, stacklevel=4)
    if var._base is not None and n_out > 1:
        raise RuntimeError(_DIRTY_VIEW_MULTI)
    G.check_inplace(var)
    ag = var._ag
    if ag is not None:
        ag.grad = None
        ag.retains_grad = False
    G.rebase_history(var, node)
    if var._base is None:
        var._ag.output_nr = nr


def _save(node, to_save, wrapped, diff) -> list:
    """SavedTensors for ctx.save_for_backward's arguments: outputs without a reference
    back to the node (they get it back when unpacked), inputs with their version."""
    saved = []
    for k, t in enumerate(to_save):
        if t is None:
            saved.append(None)
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {k} is "
                            f"of type {type(t).__name__}")
        nr = next((j for j, (w, d) in enumerate(zip(wrapped, diff)) if d and w is t), None)
        saved.append(G.save(t) if nr is None else G.save_output(t, nr))
    return saved


def once_differentiable(fn):
    """For a backward that is not itself differentiable: it runs with grad mode off, and
    differentiating its results (double backward) raises an error.

    >>> @staticmethod
    ... @once_differentiable
    ... def backward(ctx, grad): ...
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        prev = _tls.grad_enabled
        _tls.grad_enabled = False
        try:
            outputs = fn(ctx, *args, **kwargs)
        finally:
            _tls.grad_enabled = prev
        if not prev:
            return outputs
        # create_graph: results that would require grad point to a node that raises
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        err = G.new_node(G.Error, tuple(G.NO_EDGE for _ in outs), tuple(False for _ in outs))
        err.message = _ONCE_DIFFERENTIABLE
        result, metas = [], []
        for i, v in enumerate(outs):
            if isinstance(v, Tensor):
                v = shallow_copy(v)
                metas.append(G.set_history(v, err, i))
            else:
                metas.append(_NOT_A_TENSOR)
            result.append(v)
        err._out_meta = tuple(metas)
        return tuple(result) if isinstance(outputs, tuple) else result[0]
    return wrapper
