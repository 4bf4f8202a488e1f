"""`FlopCounterMode`: counts the FLOPs of matmuls, convolutions and attention, per module,
with torch.utils.flop_counter's formulas.

    >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    >>> with ember.utils.flop_counter.FlopCounterMode(display=False) as fc:
    ...     model(ember.ones(3, 4)).sum().backward()
    >>> fc.get_total_flops()
    672
    >>> {str(op): n for op, n in fc.get_flop_counts()["Global"].items()}
    {'aten.addmm': 288, 'aten.mm': 384}

It is a TorchDispatchMode underneath, so it sees the aten ops after autograd and the
composite decompositions: `linear` arrives as `t` + `addmm`, its backward as `mm`s.
"""
from __future__ import annotations

import weakref
from collections import defaultdict
from functools import wraps
from math import prod

from ..core.tensor import Tensor
from ..dispatch.dispatcher import ops
from ..dispatch.python_dispatch import TorchDispatchMode

__all__ = ["FlopCounterMode", "register_flop_formula"]

aten = ops.aten
flop_registry: dict = {}


def get_shape(i):
    return i.shape if isinstance(i, Tensor) else i


def shape_wrapper(f):
    """`f` called with tensor shapes instead of tensors (and `out_shape=`)."""
    @wraps(f)
    def nf(*args, out_val=None, **kwargs):
        args = [get_shape(a) for a in args]
        kwargs = {k: get_shape(v) for k, v in kwargs.items()}
        out = (tuple(get_shape(o) for o in out_val) if isinstance(out_val, (tuple, list))
               else get_shape(out_val))
        return f(*args, out_shape=out, **kwargs)
    return nf


def register_flop_formula(targets, get_raw=False):
    """Decorator: `formula(*shapes, out_shape=...)` counts the FLOPs of the target packets."""
    def register_fun(flop_formula):
        wrapped = flop_formula if get_raw else shape_wrapper(flop_formula)
        for target in targets if isinstance(targets, (list, tuple)) else (targets,):
            if target in flop_registry:
                raise RuntimeError(f"duplicate registrations for {target}")
            flop_registry[target] = wrapped
        return wrapped
    return register_fun


@register_flop_formula(aten.mm)
def mm_flop(a_shape, b_shape, *args, out_shape=None, **kwargs) -> int:
    """2 * m * n * k."""
    m, k = a_shape
    k2, n = b_shape
    if k != k2:
        raise AssertionError(f"matmul: inner dimensions must match (k == k2), got {k} and {k2}")
    return m * n * 2 * k


@register_flop_formula(aten.addmm)
def addmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs) -> int:
    return mm_flop(a_shape, b_shape)


@register_flop_formula(aten.bmm)
def bmm_flop(a_shape, b_shape, out_shape=None, **kwargs) -> int:
    b, m, k = a_shape
    b2, k2, n = b_shape
    if b != b2:
        raise AssertionError(f"bmm: batch dimensions must match (b == b2), got {b} and {b2}")
    if k != k2:
        raise AssertionError(f"bmm: inner dimensions must match (k == k2), got {k} and {k2}")
    return b * m * n * 2 * k


@register_flop_formula(aten.baddbmm)
def baddbmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs) -> int:
    return bmm_flop(a_shape, b_shape)


def conv_flop_count(x_shape, w_shape, out_shape, transposed=False) -> int:
    """Multiplications of a convolution (bias ignored), as torch counts them: each point of
    the output (input, when transposed) times the filter, batch and channels, times 2."""
    batch_size = x_shape[0]
    conv_shape = (x_shape if transposed else out_shape)[2:]
    c_out, c_in, *filter_size = w_shape
    return prod(conv_shape) * prod(filter_size) * batch_size * c_out * c_in * 2


@register_flop_formula(aten.convolution)
def conv_flop(x_shape, w_shape, _bias, _stride, _padding, _dilation, transposed, *args,
              out_shape=None, **kwargs) -> int:
    return conv_flop_count(x_shape, w_shape, out_shape, transposed=transposed)


@register_flop_formula(aten.convolution_backward)
def conv_backward_flop(grad_out_shape, x_shape, w_shape, _bias, _stride, _padding, _dilation,
                       transposed, _output_padding, _groups, output_mask, out_shape,
                       **kwargs) -> int:
    """grad_input as the transposed convolution of grad_out with the weight; grad_weight
    as a convolution of the input with grad_out (batch and channels swapped)."""
    def t(shape):
        return [shape[1], shape[0], *shape[2:]]
    flop_count = 0
    if output_mask[0]:
        flop_count += conv_flop_count(grad_out_shape, w_shape, out_shape[0], not transposed)
    if output_mask[1]:
        if transposed:
            flop_count += conv_flop_count(t(grad_out_shape), t(x_shape), t(out_shape[1]))
        else:
            flop_count += conv_flop_count(t(x_shape), t(grad_out_shape), t(out_shape[1]))
    return flop_count


def sdpa_flop_count(query_shape, key_shape, value_shape) -> int:
    """scores = q @ k^T, then scores @ v (GQA: key/value heads broadcast to the query's)."""
    b, h_q, s_q, d_q = query_shape
    _b2, h_kv, s_k, _d2 = key_shape
    _b3, _h3, _s3, d_v = value_shape
    if not (b == _b2 == _b3 and h_kv == _h3 and d_q == _d2 and s_k == _s3):
        raise AssertionError(f"sdpa_flop_count: query/key/value shapes are incompatible: "
                             f"q={query_shape}, k={key_shape}, v={value_shape}")
    return (bmm_flop((b * h_q, s_q, d_q), (b * h_q, d_q, s_k))
            + bmm_flop((b * h_q, s_q, s_k), (b * h_q, s_k, d_v)))


def sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape) -> int:
    """The scores again, then the gradients of scores @ v and of q @ k^T (two bmms each)."""
    b, h_q, s_q, d_q = query_shape
    _, _, s_k, _ = key_shape
    d_v = value_shape[3]
    bh = b * h_q
    return (bmm_flop((bh, s_q, d_q), (bh, d_q, s_k)) + bmm_flop((bh, s_q, d_v), (bh, d_v, s_k))
            + bmm_flop((bh, s_k, s_q), (bh, s_q, d_v)) + bmm_flop((bh, s_q, s_k), (bh, s_k, d_q))
            + bmm_flop((bh, d_q, s_q), (bh, s_q, s_k)))


def _attention_packets(*names):
    """The fused attention ops this build declares (ember's attention decomposes into
    bmm/matmul, which are counted instead)."""
    return [getattr(aten, n) for n in names if n in aten._packets]


@register_flop_formula(_attention_packets("_scaled_dot_product_efficient_attention",
                                          "_scaled_dot_product_flash_attention"))
def sdpa_flop(query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs) -> int:
    return sdpa_flop_count(query_shape, key_shape, value_shape)


@register_flop_formula(_attention_packets("_scaled_dot_product_efficient_attention_backward",
                                          "_scaled_dot_product_flash_attention_backward"))
def sdpa_backward_flop(grad_out_shape, query_shape, key_shape, value_shape, *args,
                       out_shape=None, **kwargs) -> int:
    return sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape)


def flops_from_shapes(op, shapes) -> int:
    """The profiler's `with_flops`: FLOPs of one recorded call from its input shapes (0 for
    ops without a shape-only formula)."""
    packet = getattr(aten, op.name, None) if op.namespace == "aten" else None
    n_tensors = {aten.mm: 2, aten.bmm: 2, aten.addmm: 3, aten.baddbmm: 3}.get(packet)
    if n_tensors is None:
        return 0
    try:
        return flop_registry[packet](*shapes[:n_tensors])
    except (AssertionError, ValueError):
        return 0


# --- the table ----------------------------------------------------------------------------
suffixes = ["", "K", "M", "B", "T"]


def get_suffix_str(number):
    return suffixes[max(0, min(len(suffixes) - 1, (len(str(number)) - 2) // 3))]


def convert_num_with_suffix(number, suffix):
    index = suffixes.index(suffix)
    return f"{number / 1000 ** index:.3f}" + suffixes[index]


def convert_to_percent_str(num, denom) -> str:
    return "0%" if denom == 0 else f"{num / denom:.2%}"


# --- module hierarchy -----------------------------------------------------------------------
class _ModuleTracker:
    """The fully qualified names of the modules running now, forward and backward
    (`parents`, always with "Global"), as torch.utils.module_tracker names them:
    `Sequential`, `Sequential.0`, ...

    Backward enters a module when the gradient of one of its outputs is ready and leaves
    it when the gradient of an input (or, with no input needing one, of all its
    parameters) is.
    """

    def __init__(self):
        self.parents = {"Global"}
        self._names = weakref.WeakKeyDictionary()
        self._handles = []

    def _name(self, mod):
        name = self._names.get(mod)
        if name is None:
            name = self._names[mod] = type(mod).__name__
        for child_name, child in mod.named_children():
            if child not in self._names:
                self._names[child] = f"{name}.{child_name}"
        return name

    def _when_all(self, tensors, fn):
        left = [len(tensors)]

        def hook(grad):
            left[0] -= 1
            if left[0] == 0:
                fn()
        self._handles += [t.register_hook(hook) for t in tensors]

    def _pre(self, mod, args):
        name = self._name(mod)
        self.parents.add(name)
        inputs = [a for a in args if isinstance(a, Tensor) and a.requires_grad]
        params = [p for p in mod.parameters() if p.requires_grad]
        if inputs or params:
            self._when_all(inputs[:1] or params, lambda: self.parents.discard(name))

    def _post(self, mod, args, output):
        name = self._name(mod)
        self.parents.discard(name)
        outs = output if isinstance(output, (tuple, list)) else (output,)
        outs = [o for o in outs if isinstance(o, Tensor) and o.requires_grad]
        if outs:
            self._when_all(outs[:1], lambda: self.parents.add(name))

    def __enter__(self):
        from ..nn.modules._hooks import (
            register_module_forward_hook,
            register_module_forward_pre_hook,
        )
        self._handles = [register_module_forward_pre_hook(self._pre),
                         register_module_forward_hook(self._post)]
        return self

    def __exit__(self, *exc):
        for h in self._handles:
            h.remove()
        self._handles = []
        self.parents = {"Global"}


class FlopCounterMode:
    """Counts FLOPs inside the block, per operator and per module; prints `get_table()`
    on exit when `display`."""

    def __init__(self, mods=None, depth: int = 2, display: bool = True, custom_mapping=None):
        self.flop_counts = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.mode = None
        if mods is not None:
            import warnings
            warnings.warn("mods argument is not needed anymore, you can stop passing it",
                          stacklevel=2)
        self.flop_registry = {
            **flop_registry,
            **{k: v if getattr(v, "_get_raw", False) else shape_wrapper(v)
               for k, v in (custom_mapping or {}).items()}}
        self.mod_tracker = _ModuleTracker()

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict:
        """{module name: {op packet: flops}}; "Global" holds everything."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None):
        """torch's table: Module, FLOP, % Total, a row per module and per op under it."""
        import tabulate
        tabulate.PRESERVE_WHITESPACE = True
        depth = self.depth if depth is None else depth
        depth = 999999 if depth is None else depth
        global_flops = self.get_total_flops()
        global_suffix = get_suffix_str(global_flops)
        subsumed = False

        def process_mod(mod_name, level):
            nonlocal subsumed
            total = sum(self.flop_counts[mod_name].values())
            subsumed |= total >= global_flops
            pad = " " * level
            rows = [[pad + mod_name, convert_num_with_suffix(total, global_suffix),
                     convert_to_percent_str(total, global_flops)]]
            for k, v in self.flop_counts[mod_name].items():
                rows.append([pad + " - " + str(k),
                             convert_num_with_suffix(v, global_suffix),
                             convert_to_percent_str(v, global_flops)])
            return rows

        values = []
        for mod in sorted(self.flop_counts):
            if mod == "Global" or mod.count(".") + 1 > depth:
                continue
            values += process_mod(mod, mod.count("."))
        if "Global" in self.flop_counts and not subsumed:
            for row in values:
                row[0] = " " + row[0]
            values = process_mod("Global", 0) + values
        if not values:
            values = [["Global", "0", "0%"]]
        return tabulate.tabulate(values, headers=["Module", "FLOP", "% Total"],
                                 colalign=("left", "right", "right"))

    def __enter__(self):
        self.flop_counts.clear()
        self.mod_tracker.__enter__()
        self.mode = _FlopCounterMode(self)
        self.mode.__enter__()
        return self

    def __exit__(self, *args):
        self.mode.__exit__(*args)
        self.mode = None
        self.mod_tracker.__exit__()
        if self.display:
            print(self.get_table(self.depth))
        return False

    def _count_flops(self, packet, out, args, kwargs):
        formula = self.flop_registry.get(packet)
        if formula is not None:
            flop_count = formula(*args, **kwargs, out_val=out)
            self.flop_counts["Global"][packet] += flop_count
            for par in self.mod_tracker.parents - {"Global"}:
                self.flop_counts[par][packet] += flop_count
        return out


class _FlopCounterMode(TorchDispatchMode):
    def __init__(self, counter: FlopCounterMode):
        self.counter = counter

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        packet = getattr(ops.namespace(func.namespace), func.name)
        return self.counter._count_flops(packet, out, args, kwargs or {})
