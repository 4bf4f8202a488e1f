"""torch.func's transforms on top of ember's autograd: grad, grad_and_value, vjp, jvp,
jacrev, jacfwd, hessian, vmap, functional_call.

The derivative transforms run the function on fresh differentiable aliases of the inputs
and differentiate with `ember.autograd.grad`. Inside another transform (or when an input
already requires grad) the graph is kept (create_graph), so transforms nest: grad(grad(f)),
jacfwd(jacrev(f)). jvp is the double-vjp trick: J t is the gradient, with respect to a
dummy cotangent u, of <vjp(u), t>.

vmap has no batching rules: it runs the function once per batch element and stacks the
results, which gives the same values (at a Python loop's speed).

    >>> ember.func.grad(lambda x: (x ** 3).sum())(ember.tensor([1.0, 2.0]))
    tensor([ 3., 12.])
"""
from __future__ import annotations

import contextlib
import functools

import ember

from ..dispatch.python_dispatch import TorchDispatchMode
from ..utils._pytree import LeafSpec, tree_flatten, tree_map, tree_unflatten

_depth = [0]  # transforms being run (an inner one keeps its graph for the outer one)


@contextlib.contextmanager
def _level():
    _depth[0] += 1
    try:
        with ember.enable_grad():
            yield
    finally:
        _depth[0] -= 1


def _differentiable(t):
    """A fresh alias of `t` that requires grad (connected to `t`'s graph when it has one)."""
    if not isinstance(t, ember.Tensor):
        return t
    if t.requires_grad:
        return t.view_as(t)
    return t.detach().requires_grad_(True)


def _keep_graph(originals) -> bool:
    return _depth[0] > 1 or any(t.requires_grad for t in originals)


def _grads(outputs, inputs, cotangents, create_graph):
    """autograd.grad with zeros for inputs the outputs do not depend on."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not pairs:
        return [ember.zeros_like(x) for x in inputs]
    gs = ember.autograd.grad([o for o, _ in pairs], inputs, [c for _, c in pairs],
                             retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [ember.zeros_like(x) if g is None else g for g, x in zip(gs, inputs)]


def _detach_unless(keep, tree):
    return tree if keep else tree_map(lambda t: t.detach(), tree)


def _argnums_tuple(argnums, nargs, name):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise RuntimeError(f"{name}: argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"{name}: argnums must be int or Tuple[int, ...], got: "  # noqa: TRY004 (torch's type)
                               f"{type(argnums)}")
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
    return tuple(a % nargs for a in nums)


def _split_aux(out, has_aux, name):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{name}(f)(*args): output of function f should be a tuple: "
                           "(output, aux) if has_aux is True")
    return out


# --- grad / grad_and_value -------------------------------------------------------------------
def grad_and_value(func, argnums=0, has_aux=False):
    """`(gradient, value)` of a function returning a scalar tensor, with respect to the
    positional arguments `argnums` (an int, or a tuple for a tuple of gradients; an argument
    may be a nested structure of tensors)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums_tuple(argnums, len(args), "grad_and_value")
        originals = [leaf for a in nums for leaf in tree_flatten(args[a])[0]]
        keep = _keep_graph(originals)
        with _level():
            args = list(args)
            for a in nums:
                args[a] = tree_map(_differentiable, args[a])
            out, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value")
            if not isinstance(out, ember.Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "  # noqa: TRY004
                                   f"Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {out.dim()} dims. Maybe "
                                   "you wanted to use the vjp or jacrev APIs instead?")
            specs = [tree_flatten(args[a]) for a in nums]
            flat = [leaf for leaves, _ in specs for leaf in leaves]
            gs = _grads([out], flat, [ember.ones_like(out)], keep)
        grads, i = [], 0
        for leaves, spec in specs:
            grads.append(tree_unflatten(gs[i:i + len(leaves)], spec))
            i += len(leaves)
        g = grads[0] if isinstance(argnums, int) else tuple(grads)
        g, out, aux = (_detach_unless(keep, x) for x in (g, out, aux))
        return (g, (out, aux)) if has_aux else (g, out)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a function returning a scalar tensor (see grad_and_value); with
    has_aux, `(gradient, aux)`."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


# --- vjp / jvp -------------------------------------------------------------------------------
def vjp(func, *primals, has_aux=False):
    """`(func(*primals), vjp_fn)` (and aux): vjp_fn(cotangents) gives one gradient per primal,
    as a tuple."""
    originals = [leaf for p in primals for leaf in tree_flatten(p)[0]]
    keep = _keep_graph(originals)
    with _level():
        diff = [tree_map(_differentiable, p) for p in primals]
        out, aux = _split_aux(func(*diff), has_aux, "vjp")
    outs, out_spec = tree_flatten(out)
    specs = [tree_flatten(p) for p in diff]

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        cts, ct_spec = tree_flatten(cotangents)
        if _structure(ct_spec) != _structure(out_spec):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function.")
        for o, c in zip(outs, cts):
            if o.shape != c.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {c.shape} "
                                   f"and output[0] has a shape of {o.shape}.")
        flat = [leaf for leaves, _ in specs for leaf in leaves]
        make_graph = keep or _depth[0] > 0 or any(c.requires_grad for c in cts) \
            if create_graph is None else create_graph
        with _level():
            gs = _grads(outs, flat, cts, make_graph)
        result, i = [], 0
        for leaves, spec in specs:
            result.append(tree_unflatten(gs[i:i + len(leaves)], spec))
            i += len(leaves)
        return tuple(result)

    out = _detach_unless(keep, out)
    return (out, vjp_fn, _detach_unless(keep, aux)) if has_aux else (out, vjp_fn)


def _structure(spec):
    return tree_map(lambda t: None, spec) if not isinstance(spec, LeafSpec) else "leaf"


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """`(func(*primals), J @ tangents)` (and aux), by the double-vjp trick."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it "  # noqa: TRY004
                           "should be valid to call f(*primals).")
    if len(primals) != len(tangents):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have "
                           f"the same python structure. For example, if primals is a tuple of 3 "
                           f"tensors, tangents also must be. Got primals with structure "
                           f"{len(primals)} and tangents with structure {len(tangents)}")
    for p, t in zip(tree_flatten(tuple(primals))[0], tree_flatten(tuple(tangents))[0]):
        if p.shape != t.shape:
            raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to "
                               f"have the same shape. Got {tuple(p.shape)} and "
                               f"{tuple(t.shape)}")
    originals = tree_flatten(tuple(primals))[0] + tree_flatten(tuple(tangents))[0]
    keep = _keep_graph(originals)
    with _level():
        res = vjp(func, *primals, has_aux=has_aux)
        out, vjp_fn = res[0], res[1]
        outs, spec = tree_flatten(out)
        us = [ember.zeros_like(o).requires_grad_(True) for o in outs]
        gs = tree_flatten(vjp_fn(tree_unflatten(us, spec), create_graph=True))[0]
        inner = sum(((g * t).sum() for g, t in zip(gs, tree_flatten(tuple(tangents))[0])
                     if g.requires_grad), ember.zeros(()))
        if inner.requires_grad:
            jv = list(ember.autograd.grad(inner, us, create_graph=keep, allow_unused=True))
        else:
            jv = [None] * len(us)
        jv = [ember.zeros_like(o) if j is None else j for j, o in zip(jv, outs)]
    result = (_detach_unless(keep, out), _detach_unless(keep, tree_unflatten(jv, spec)))
    return result + (res[2],) if has_aux else result


# --- jacobians -------------------------------------------------------------------------------
def _jacobian_layout(outs, args, rows_of):
    """[output][arg] jacobians of shape out.shape + arg.shape from `rows_of(out_index,
    arg_index)` (a tensor of shape (out.numel(),) + arg.shape)."""
    return [[rows_of(i, j).reshape(tuple(o.shape) + tuple(a.shape)) for j, a in enumerate(args)]
            for i, o in enumerate(outs)]


def _pack(table, single_out, single_arg, out_spec=None):
    rows = [r[0] if single_arg else tuple(r) for r in table]
    if single_out:
        return rows[0]
    return tree_unflatten(rows, out_spec)


def _basis(t, k):
    """The k-th one-hot tensor of t's shape and dtype."""
    e = ember.zeros(t.numel(), dtype=t.dtype, device=t.device)
    e[k] = 1
    return e.reshape(t.shape)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian by reverse mode: one vjp per output element (chunk_size is accepted for
    torch's signature; the rows are computed one at a time)."""
    @functools.wraps(func)
    def wrapper(*args):
        nums = _argnums_tuple(argnums, len(args), "jacrev")
        single_arg = isinstance(argnums, int)

        def f(*picked):
            full = list(args)
            for a, v in zip(nums, picked):
                full[a] = v
            return func(*full)
        res = vjp(f, *[args[a] for a in nums], has_aux=has_aux)
        out, vjp_fn = res[0], res[1]
        outs, spec = tree_flatten(out)
        picked = [args[a] for a in nums]
        table = []
        for i, o in enumerate(outs):
            rows = [[] for _ in picked]
            for k in range(o.numel()):
                cts = [ember.zeros_like(x) for x in outs]
                cts[i] = _basis(o, k)
                for j, g in enumerate(vjp_fn(tree_unflatten(cts, spec))):
                    rows[j].append(g)
            table.append([ember.stack(r) if r else ember.zeros((0,) + tuple(p.shape),
                                                               dtype=p.dtype)
                          for r, p in zip(rows, picked)])
        jac = _jacobian_layout(outs, picked, lambda i, j: table[i][j])
        result = _pack(jac, isinstance(spec, LeafSpec), single_arg, spec)
        return (result, res[2]) if has_aux else result
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian by forward mode: one jvp per input element."""
    @functools.wraps(func)
    def wrapper(*args):
        nums = _argnums_tuple(argnums, len(args), "jacfwd")
        single_arg = isinstance(argnums, int)
        picked = [args[a] for a in nums]

        def f(*xs):
            full = list(args)
            for a, v in zip(nums, xs):
                full[a] = v
            out = func(*full)
            return out[0] if has_aux else out
        out = f(*picked)
        outs, spec = tree_flatten(out)
        columns = [[[] for _ in picked] for _ in outs]
        for j, p in enumerate(picked):
            for k in range(p.numel()):
                tangents = [ember.zeros_like(x) for x in picked]
                tangents[j] = _basis(p, k)
                _, jv = jvp(f, tuple(picked), tuple(tangents))
                for i, col in enumerate(tree_flatten(jv)[0]):
                    columns[i][j].append(col.reshape(-1))

        def block(i, j):
            o, cols = outs[i], columns[i][j]
            return ember.stack(cols, -1) if cols else ember.zeros((o.numel(), 0), dtype=o.dtype)
        jac = _jacobian_layout(outs, picked, block)
        result = _pack(jac, isinstance(spec, LeafSpec), single_arg, spec)
        if has_aux:
            return result, func(*args)[1]
        return result
    return wrapper


def hessian(func, argnums=0):
    """jacfwd(jacrev(func, argnums), argnums)."""
    return jacfwd(jacrev(func, argnums), argnums)


# --- vmap ------------------------------------------------------------------------------------
class _NoRandomness(TorchDispatchMode):
    """randomness='error': a random op inside vmap raises (as torch's)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if "nondeterministic_seeded" in getattr(func, "tags", ()):
            raise RuntimeError("vmap: called random operation while in randomness error mode. "
                               "Please either use the 'same' or 'different' randomness flags on "
                               "vmap or perform the randomness outside of vmap")
        return func(*args, **(kwargs or {}))


def _broadcast_dims(dims, tree, what):
    """One in_dim per tensor leaf of `tree`: `dims` is an int/None for all of them or a
    structure matching `tree` (a prefix of it)."""
    if dims is None or isinstance(dims, int):
        return [dims] * len(tree_flatten(tree)[0])
    if isinstance(tree, (tuple, list)) and isinstance(dims, (tuple, list)):
        if len(dims) != len(tree):
            raise ValueError(f"vmap({what}): in_dims is not compatible with the structure of "
                             f"`inputs`. in_dims has structure {dims} but inputs has "
                             f"{len(tree)} elements")
        return [d for sub, t in zip(dims, tree) for d in _broadcast_dims(sub, t, what)]
    if isinstance(tree, dict) and isinstance(dims, dict):
        return [d for k in tree for d in _broadcast_dims(dims[k], tree[k], what)]
    raise ValueError(f"vmap({what}): in_dims is not compatible with the structure of `inputs`")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """`func` mapped over a dimension of its inputs: in_dims (an int, None, or a structure
    matching the arguments) says which dim of each input is the batch; out_dims where the
    batch goes in the outputs. Runs `func` once per batch element and stacks the results
    (ember has no batching rules: the values are vmap's, the speed a loop's). randomness:
    'error' (a random op raises), 'different' (each element draws its own numbers) or 'same'
    (every element draws the same ones)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    name = getattr(func, "__name__", repr(func))

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        what = f"{name}, in_dims={in_dims}, ..."
        if isinstance(in_dims, (tuple, list)) and len(in_dims) != len(args):
            raise ValueError(f"vmap({what})(<inputs>): in_dims is not compatible with the "
                             f"structure of `inputs`. in_dims has structure "
                             f"{type(in_dims).__name__} of length {len(in_dims)} but inputs has "
                             f"{len(args)} elements")
        leaves, spec = tree_flatten(args)
        dims = _broadcast_dims(in_dims, args, what)
        sizes = []
        for t, d in zip(leaves, dims):
            if d is None:
                continue
            if not -t.dim() <= d < max(t.dim(), 1) or t.dim() == 0:
                raise ValueError(f"vmap({what})(<inputs>): Got in_dim={d} for an input but the "
                                 f"input is of type {type(t)}. We cannot vmap over non-Tensor "
                                 "arguments, please use None as the respective in_dim"
                                 if t.dim() == 0 else
                                 f"vmap({what})(<inputs>): Got in_dim={d} for some input, but "
                                 f"that input is a Tensor of dimensionality {t.dim()} so expected"
                                 f" in_dim to satisfy -{t.dim()} <= in_dim < {t.dim()}.")
            sizes.append(t.shape[d])
        if not sizes:
            raise ValueError(f"vmap({what})(<inputs>): at least one input must be a Tensor "
                             "with a mapped dimension (an in_dim that is not None)")
        if len(set(sizes)) > 1:
            raise ValueError(f"vmap({what})(<inputs>): Expected all tensors to have the same "
                             f"size in the mapped dimension, got sizes {sizes} for the mapped "
                             "dimension")
        rng = ember.get_rng_state() if randomness == "same" else None
        results = []
        for b in range(sizes[0]):
            picked = [t if d is None else t.select(d, b) for t, d in zip(leaves, dims)]
            if rng is not None:
                ember.set_rng_state(rng)
            guard = _NoRandomness() if randomness == "error" else contextlib.nullcontext()
            with guard:
                results.append(func(*tree_unflatten(picked, spec), **kwargs))
        return _stack_outputs(results, out_dims, what)
    return wrapper


def _stack_outputs(results, out_dims, what):
    flats = [tree_flatten(r) for r in results]
    spec = flats[0][1]
    if not flats[0][0] and not isinstance(results[0], ember.Tensor):
        raise ValueError(f"vmap({what})(<inputs>): `{what.split(',')[0]}` must only return "
                         f"Tensors, got type {type(results[0])}. Did you mean to set out_dims= "
                         "to None for output?")
    n_out = len(flats[0][0])
    odims = _broadcast_dims(out_dims, results[0], what) if not isinstance(out_dims, int) \
        else [out_dims] * n_out
    stacked = []
    for k in range(n_out):
        column = [f[0][k] for f in flats]
        d = odims[k]
        if d is None:
            stacked.append(column[0])
        else:
            stacked.append(ember.stack(column, d if d >= 0 else d + column[0].dim() + 1))
    return tree_unflatten(stacked, spec)


# --- functional_call -------------------------------------------------------------------------
def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """module(*args, **kwargs) with its parameters and buffers replaced, for the call only,
    by the tensors of `parameter_and_buffer_dicts` (a dict of dotted names, or a sequence of
    dicts); the others stay. strict=True requires every parameter and buffer."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        merged = dict(dicts)
    else:
        merged = {}
        for d in dicts:
            dup = set(merged) & set(d)
            if dup:
                raise ValueError(f"{sorted(dup)} appeared in multiple dictionaries; behavior "
                                 "of functional call is ambiguous")
            merged.update(d)
    names = dict(module.named_parameters(remove_duplicate=False))
    names.update(dict(module.named_buffers(remove_duplicate=False)))
    if strict:
        missing = sorted(set(names) - set(merged))
        unexpected = sorted(set(merged) - set(names))
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                parts.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError("Error(s) in reparametrizing for " + type(module).__name__ + ":\n\t"
                               + "\n\t".join(parts))
    if tie_weights:
        tied = _tied_names(module)
        for name, value in list(merged.items()):
            for other in tied.get(name, ()):
                merged.setdefault(other, value)
    saved = []
    try:
        for name, value in merged.items():
            owner, attr = _owner(module, name)
            if attr in owner._parameters:
                kind, old = "_parameters", owner._parameters.pop(attr)
            elif attr in owner._buffers:
                kind, old = "_buffers", owner._buffers.pop(attr)
            else:
                kind, old = None, owner.__dict__.get(attr, _MISSING)
            saved.append((owner, attr, kind, old))
            object.__setattr__(owner, attr, value)
        args = () if args is None else args if isinstance(args, tuple) else (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for owner, attr, kind, old in reversed(saved):
            owner.__dict__.pop(attr, None)
            if kind is not None:
                getattr(owner, kind)[attr] = old
            elif old is not _MISSING:
                owner.__dict__[attr] = old


_MISSING = object()


def _owner(module, name):
    *path, attr = name.split(".")
    for p in path:
        module = getattr(module, p)
    return module, attr


def _tied_names(module):
    """{name: the other names of the same parameter or buffer}."""
    by_id: dict = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        by_id.setdefault(id(t), []).append(name)
    return {n: [m for m in group if m != n] for group in by_id.values() for n in group}
