"""DistributedDataParallel: one model replica per process, gradients averaged over the
process group during backward (torch.nn.parallel.DistributedDataParallel).

At construction the replicas are checked to have the same parameters and rank 0's
parameters and buffers are broadcast. The parameters (reversed, as their gradients tend to
arrive during backward) are packed into buckets of at most `bucket_cap_mb` MiB of one
dtype. A post-accumulate-grad hook on each parameter copies its gradient into its bucket;
a full bucket is all-reduced (averaged) asynchronously while backward goes on, buckets
strictly in order so that every rank issues the same collectives in the same order. When
the last bucket is launched the hook waits for them all and writes the averages back into
`.grad`.
"""
from __future__ import annotations

from contextlib import contextmanager

import ember

from ..modules.module import Module

_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `ember.nn.parallel.DistributedDataParallel`, and by "
    "making sure all `forward` function outputs participate in calculating loss.\n"
    "Parameter indices which did not receive grad for rank {rank}: {indices}")


class _Bucket:
    """Gradients of some parameters of one dtype, flattened into `flat` for one all-reduce."""

    def __init__(self, params, dtype, device):
        self.params, self.offsets = params, []
        total = 0
        for p in params:
            self.offsets.append(total)
            total += p.numel()
        self.flat = ember.zeros(total, dtype=dtype, device=device)
        self.pending, self.work = len(params), None

    def slot(self, i):
        o, p = self.offsets[i], self.params[i]
        return self.flat[o:o + p.numel()].view(p.shape)


def _tensors_in(obj):
    if isinstance(obj, ember.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            yield from _tensors_in(x)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from _tensors_in(x)


def _leaves_reached(outputs) -> set:
    """ids of the leaf tensors the autograd graph of `outputs` reaches."""
    seen, found, stack = set(), set(), []
    for t in _tensors_in(outputs):
        if t.grad_fn is not None:
            stack.append(t.grad_fn)
        elif t.requires_grad:
            found.add(id(t))
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        leaf = getattr(fn, "variable", None)
        if leaf is not None:
            found.add(id(leaf))
        stack.extend(f for f, _ in fn.next_functions)
    return found


class DistributedDataParallel(Module):
    """Wraps `module` (as `.module`) for data-parallel training over `process_group` (the
    default group when None); see the module docstring. `no_sync()` skips the gradient
    all-reduce (gradients accumulate locally until the next synchronised backward);
    `find_unused_parameters=True` lets some parameters get no gradient in an iteration."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, init_sync=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None):
        super().__init__()
        from ... import distributed as dist
        self.module = module
        self.process_group = process_group if process_group is not None else dist.group.WORLD
        if self.process_group is None:
            raise ValueError(dist.distributed_c10d._NOT_INIT)
        self.device_ids, self.output_device, self.dim = device_ids, output_device, dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._params = [p for p in dict.fromkeys(module.parameters()) if p.requires_grad]
        if not self._params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        self._verify_same_model()
        if init_sync:
            self._broadcast_from_rank0([*self._params, *module.buffers()])
        self._buckets = self._make_buckets()
        self._where = {id(p): (b, i) for b in self._buckets for i, p in enumerate(b.params)}
        self._syncing = False           # this iteration's backward all-reduces
        self._next = 0                  # next bucket to launch
        self._used, self._got = None, set()
        for p in self._params:
            p.register_post_accumulate_grad_hook(self._grad_ready)

    # --- construction ---------------------------------------------------------------------------
    def _verify_same_model(self):
        from ... import distributed as dist
        mine = [(tuple(p.shape), str(p.dtype)) for p in self._params]
        everyone = [None] * dist.get_world_size(self.process_group)
        dist.all_gather_object(everyone, mine, group=self.process_group)
        rank = dist.get_rank(self.process_group)
        for j, theirs in enumerate(everyone):
            if len(theirs) != len(mine):
                raise RuntimeError(f"DDP expects same model across all ranks, but Rank {rank} has "
                                   f"{len(mine)} params, while rank {j} has inconsistent "
                                   f"{len(theirs)} params.")
            for i, (a, b) in enumerate(zip(mine, theirs)):
                if a != b:
                    raise RuntimeError(f"[{rank}]: params[{i}] in this process with sizes "
                                       f"{list(a[0])} ({a[1]}) appears not to match sizes "
                                       f"{list(b[0])} ({b[1]}) of the same param in process {j}.")

    def _broadcast_from_rank0(self, tensors):
        """Rank 0's values of `tensors`, one broadcast per dtype."""
        from ... import distributed as dist
        by_dtype = {}
        for t in tensors:
            by_dtype.setdefault((t.dtype, t.device), []).append(t)
        with ember.no_grad():
            for group in by_dtype.values():
                flat = ember.cat([t.detach().reshape(-1) for t in group])
                dist.broadcast(flat, src=dist.get_global_rank(self.process_group, 0),
                               group=self.process_group)
                o = 0
                for t in group:
                    t.copy_(flat[o:o + t.numel()].view(t.shape))
                    o += t.numel()

    def _make_buckets(self):
        buckets, open_ = [], {}
        for p in reversed(self._params):
            key = (p.dtype, p.device)
            params, size = open_.get(key, ([], 0))
            nbytes = p.numel() * p.dtype.itemsize
            if params and size + nbytes > self.bucket_bytes_cap:
                buckets.append(_Bucket(params, *key))
                params, size = [], 0
            open_[key] = (params + [p], size + nbytes)
        buckets += [_Bucket(params, *key) for key, (params, _) in open_.items()]
        return buckets

    # --- an iteration ---------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        if self._syncing:
            missing = [i for i, p in enumerate(self._params) if id(p) not in self._got]
            self._reset()
            from ... import distributed as dist
            raise RuntimeError(_UNFINISHED.format(rank=dist.get_rank(self.process_group),
                                                  indices=missing))
        if self.require_forward_param_sync and self.broadcast_buffers:
            buffers = list(self.module.buffers())
            if buffers:
                self._broadcast_from_rank0(buffers)
        output = self.module(*inputs, **kwargs)
        if ember.is_grad_enabled() and self.require_backward_grad_sync:
            self._prepare(output)
        return output

    def _prepare(self, output):
        self._syncing, self._next, self._got = True, 0, set()
        for b in self._buckets:
            b.pending, b.work = len(b.params), None
        if not self.find_unused_parameters:
            return
        reached = _leaves_reached(output)
        self._used = ember.tensor([id(p) in reached for p in self._params], dtype=ember.uint8)
        for p in self._params:
            if id(p) not in reached:
                b, i = self._where[id(p)]
                with ember.no_grad():
                    b.slot(i).zero_()
                self._mark_ready(b, p)

    def _grad_ready(self, p):
        if not self._syncing or p.grad is None:
            return
        b, i = self._where[id(p)]
        with ember.no_grad():
            b.slot(i).copy_(p.grad)
        self._mark_ready(b, p)

    def _mark_ready(self, bucket, p):
        from ...distributed import ReduceOp
        from ...distributed import distributed_c10d as c10d
        if id(p) in self._got:
            return
        self._got.add(id(p))
        bucket.pending -= 1
        while self._next < len(self._buckets) and self._buckets[self._next].pending == 0:
            b = self._buckets[self._next]
            b.work = c10d._all_reduce(self.process_group, b.flat, ReduceOp.AVG, async_op=True)
            self._next += 1
        if self._next == len(self._buckets):
            self._finish()
        elif self._next:
            self._buckets[self._next - 1].work.is_completed()    # lets MPI progress meanwhile

    def _finish(self):
        from ... import distributed as dist
        for b in self._buckets:
            b.work.wait()
        used = None
        if self.find_unused_parameters:
            dist.all_reduce(self._used, op=dist.ReduceOp.MAX, group=self.process_group)
            used = self._used.tolist()
        with ember.no_grad():
            for k, p in enumerate(self._params):
                if used is not None and not used[k]:
                    continue                # unused on every rank: .grad left as it is
                b, i = self._where[id(p)]
                if p.grad is None:
                    p.grad = b.slot(i).clone()
                else:
                    p.grad.copy_(b.slot(i))
        self._reset()

    def _reset(self):
        for b in self._buckets:
            if b.work is not None:
                b.work.wait()
            b.work = None
        self._syncing, self._next = False, 0

    @contextmanager
    def no_sync(self):
        """Within it, backward passes accumulate gradients locally without all-reducing;
        the first synchronised backward after it averages the accumulated gradients."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
