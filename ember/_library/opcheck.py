"""opcheck: does a custom op's registration match what its kernel does (torch's)?

    >>> from ember._library.custom_ops import custom_op
    >>> @custom_op("mylib::bad_fake", mutates_args=())
    ... def bad(x: ember.Tensor) -> ember.Tensor:
    ...     return x * 2
    >>> _ = bad.register_fake(lambda x: ember.empty(x.shape[0] + 1))
    >>> opcheck(bad, (ember.ones(3),), raise_exception=False)["test_faketensor"]
    OpCheckError(...)
"""
from __future__ import annotations

import ember
from ember.core.tensor import Tensor

DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor")


class OpCheckError(Exception):
    """One opcheck test failed (torch.testing._internal.optests.OpCheckError)."""

    def __repr__(self):
        return "OpCheckError(...)"


def _tensors(x):
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _tensors(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _tensors(v)]
    return []


def _clone(x):
    if isinstance(x, Tensor):
        return x.detach().clone().requires_grad_(x.requires_grad)
    if isinstance(x, (list, tuple)):
        return type(x)(_clone(v) for v in x)
    if isinstance(x, dict):
        return {k: _clone(v) for k, v in x.items()}
    return x


def _overload(op):
    from ember._library.custom_ops import CustomOpDef
    if isinstance(op, CustomOpDef):
        return op._opoverload
    return op


def _mutable_names(op) -> set:
    return {a.name for a in op.schema.arguments.flat()
            if a.annotation is not None and a.annotation.is_write}


def test_schema(op, args, kwargs):
    """Inputs the schema does not mark mutable keep their values; outputs alias no input."""
    args, kwargs = _clone(args), _clone(kwargs)
    names = list(op._arg_names)
    bound = dict(zip(names, args)) | kwargs
    before = {n: v.detach().clone() for n, v in bound.items() if isinstance(v, Tensor)}
    with ember.no_grad():
        out = op(*args, **kwargs)
    writable = _mutable_names(op)
    for n, old in before.items():
        changed = not ember.equal(bound[n].detach(), old)
        if changed and n not in writable:
            raise OpCheckError(f"{op._cpp_name}: argument {n} is mutated but not marked as "
                               "mutable in the schema (mutates_args)")
    ins = {id(v) for v in _tensors(bound)}
    ins_storage = {id(v.untyped_storage()) for v in _tensors(bound)}
    for o in _tensors(out):
        if id(o) in ins or id(o.untyped_storage()) in ins_storage:
            raise OpCheckError(f"{op._cpp_name}: an output aliases an input, which the "
                               "schema does not declare")


def test_autograd_registration(op, args, kwargs):
    """With inputs that require grad, the op has an autograd formula (or raises in
    backward, for ops that cannot have one)."""
    args, kwargs = _clone(args), _clone(kwargs)
    if not any(t.requires_grad for t in _tensors((args, kwargs))):
        return
    out = op(*args, **kwargs)
    outs = [o for o in _tensors(out) if o.requires_grad]
    if not outs:
        raise OpCheckError(f"{op._cpp_name}: inputs require grad but no output does: the "
                           "op has no autograd registration (register_autograd)")
    node = outs[0].grad_fn
    fn = getattr(node, "_forward_cls", None) or getattr(type(node), "_forward_cls", None)
    if node.name() == "NotImplemented" or (fn is not None and hasattr(fn, "_user_backward")
                                          and fn._user_backward is None):
        raise OpCheckError(f"{op._cpp_name}: inputs require grad but the op has no autograd "
                           "formula: use register_autograd")


def test_faketensor(op, args, kwargs):
    """The fake implementation gives outputs with the real ones' shape, dtype, strides and
    device."""
    from ember._subclasses.fake_tensor import FakeTensorMode
    with ember.no_grad():
        real = op(*_clone(args), **_clone(kwargs))
    mode = FakeTensorMode()

    def fake(x):
        if isinstance(x, Tensor):
            return mode.from_tensor(x)
        if isinstance(x, (list, tuple)):
            return type(x)(fake(v) for v in x)
        if isinstance(x, dict):
            return {k: fake(v) for k, v in x.items()}
        return x
    f_args, f_kwargs = fake(_clone(args)), fake(_clone(kwargs))
    try:
        with mode, ember.no_grad():
            got = op(*f_args, **f_kwargs)
    except Exception as e:
        raise OpCheckError(f"{op._cpp_name}: running it on fake tensors failed: {e}") from e
    for r, f in zip(_tensors(real), _tensors(got)):
        for what in ("shape", "dtype", "device"):
            if getattr(r, what) != getattr(f, what):
                raise OpCheckError(f"{op._cpp_name}: the fake implementation's {what} "
                                   f"{getattr(f, what)} is not the real one's "
                                   f"{getattr(r, what)}")
        if r.stride() != f.stride():
            raise OpCheckError(f"{op._cpp_name}: the fake implementation's strides "
                               f"{f.stride()} are not the real ones' {r.stride()}")


_TESTS = {"test_schema": test_schema, "test_autograd_registration": test_autograd_registration,
          "test_faketensor": test_faketensor}


def opcheck(op, args, kwargs=None, *, test_utils=DEFAULT_TEST_UTILS,
            raise_exception=True, atol=None, rtol=None) -> dict:
    """Runs the checks on one call; {test name: "SUCCESS" or the OpCheckError}."""
    op = _overload(op)
    kwargs = kwargs or {}
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    unknown = [t for t in test_utils if t not in _TESTS]
    if unknown:
        raise ValueError(f"opcheck: unknown test_utils {unknown}; ember has "
                         f"{sorted(_TESTS)} (no AOT dispatch yet)")
    results = {}
    for name in test_utils:
        try:
            _TESTS[name](op, args, kwargs)
            results[name] = "SUCCESS"
        except OpCheckError as e:
            if raise_exception:
                raise
            results[name] = e
    return results


__all__ = ["OpCheckError", "opcheck"]
