"""One rank of test_collectives: every collective of ember.distributed against the result
torch computes in this one process from every rank's (deterministic) input. Prints
"rank R: N checks passed" at the end; any failure raises (the rank exits non-zero)."""
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np
from helpers import check, from_torch, np_data, torch, torch_of

import ember
import ember.distributed as dist

dist.init_process_group(backend="gloo")     # (torch code's CPU backend name: runs on MPI)
R, N = dist.get_rank(), dist.get_world_size()
assert (R, N) == (int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
assert dist.is_initialized() and dist.get_backend() == "gloo"
passed = 0


def data(rank, shape=(2, 3), dtype="float32", **kw):
    """Rank `rank`'s input, as a torch tensor (small integers: exact in every dtype)."""
    return torch_of(np_data(shape, dtype, seed=rank, ints=kw.get("ints", (-5, 6)),
                            scale=kw.get("scale", 1)).astype(np.float32).round().astype(
                                np_data((), dtype).dtype))


def ok(e, t):
    global passed
    check(e, t)
    passed += 1


FOLD = {dist.ReduceOp.SUM: lambda a, b: a + b, dist.ReduceOp.PRODUCT: lambda a, b: a * b,
        dist.ReduceOp.MIN: torch.minimum, dist.ReduceOp.MAX: torch.maximum,
        dist.ReduceOp.BAND: lambda a, b: a & b, dist.ReduceOp.BOR: lambda a, b: a | b,
        dist.ReduceOp.BXOR: lambda a, b: a ^ b}


def reduced(inputs, op):
    if op == dist.ReduceOp.AVG:
        return functools.reduce(FOLD[dist.ReduceOp.SUM], inputs) / len(inputs)
    return functools.reduce(FOLD[op], inputs)


# all_reduce: every dtype, every op it allows, sync and async, a strided view
for dtype in ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32",
              "float64"]:
    ops = [dist.ReduceOp.SUM, dist.ReduceOp.PRODUCT, dist.ReduceOp.MIN, dist.ReduceOp.MAX]
    if dtype in ("float16", "bfloat16", "float32", "float64"):
        ops.append(dist.ReduceOp.AVG)
    else:
        ops += [dist.ReduceOp.BAND, dist.ReduceOp.BOR, dist.ReduceOp.BXOR]
    for op in ops:
        inputs = [data(r, dtype=dtype) for r in range(N)]
        mine = from_torch(inputs[R])
        dist.all_reduce(mine, op=op)
        ok(mine, reduced(inputs, op))
wide = from_torch(data(R, (4, 6)))
view = wide[:, ::2]
work = dist.all_reduce(view, async_op=True)
assert isinstance(work, dist.Work) and work.wait() is True and work.is_completed()
ok(wide, torch.cat([reduced([data(r, (4, 6))[:, ::2] for r in range(N)], dist.ReduceOp.SUM)[
    :, :, None], data(R, (4, 6)).reshape(4, 3, 2)[:, :, 1:]], 2).reshape(4, 6))
ints = [torch.tensor([100, 5], dtype=torch.int8) for _ in range(N)]     # wraps around, as torch
mine = from_torch(ints[R])
dist.all_reduce(mine)
ok(mine, reduced(ints, dist.ReduceOp.SUM))

# broadcast from every root, reduce into every root
for root in range(N):
    mine = from_torch(data(R, dtype="bfloat16"))
    dist.broadcast(mine, src=root)
    ok(mine, data(root, dtype="bfloat16"))
    mine = from_torch(data(R))
    dist.reduce(mine, dst=root, op=dist.ReduceOp.MAX)
    ok(mine, reduced([data(r) for r in range(N)], dist.ReduceOp.MAX) if R == root else data(R))

# all_gather, all_gather_into_tensor (concatenated and stacked), async
out = [ember.zeros(2, 3, dtype=ember.int64) for _ in range(N)]
dist.all_gather(out, from_torch(data(R, dtype="int64")))
for r in range(N):
    ok(out[r], data(r, dtype="int64"))
cat = ember.empty(2 * N, 3)
assert dist.all_gather_into_tensor(cat, from_torch(data(R))) is None     # (synchronous)
ok(cat, torch.cat([data(r) for r in range(N)]))
stacked = ember.empty(N, 2, 3)
dist.all_gather_into_tensor(stacked, from_torch(data(R)), async_op=True).wait()
ok(stacked, torch.stack([data(r) for r in range(N)]))

# reduce_scatter, reduce_scatter_tensor
out = ember.empty(2, 3)
dist.reduce_scatter(out, [from_torch(data(R * N + k)) for k in range(N)])
ok(out, reduced([data(r * N + R) for r in range(N)], dist.ReduceOp.SUM))
out = ember.empty(2, 3, dtype=ember.float64)
dist.reduce_scatter_tensor(out, from_torch(data(R, (2 * N, 3), "float64")), op=dist.ReduceOp.AVG)
ok(out, reduced([data(r, (2 * N, 3), "float64")[2 * R:2 * R + 2] for r in range(N)],
                dist.ReduceOp.AVG))

# gather, scatter to and from every root
for root in range(N):
    lst = [ember.empty(2, 3) for _ in range(N)] if R == root else None
    dist.gather(from_torch(data(R)), lst, dst=root)
    if R == root:
        for r in range(N):
            ok(lst[r], data(r))
    mine = ember.empty(2, 3)
    dist.scatter(mine, [from_torch(data(10 + k)) for k in range(N)] if R == root else None,
                 src=root)
    ok(mine, data(10 + R))

# send/recv around a ring, isend/irecv with Work.wait, recv from any source
x = ember.empty(2, 3)
if R % 2 == 0:
    dist.send(from_torch(data(R)), dst=(R + 1) % N)
    sender = dist.recv(x, src=(R - 1) % N)
else:
    sender = dist.recv(x, src=(R - 1) % N)
    dist.send(from_torch(data(R)), dst=(R + 1) % N)
assert sender == (R - 1) % N
ok(x, data((R - 1) % N))
works = [dist.isend(from_torch(data(R, dtype="float16")), dst=(R + 1) % N, tag=3)]
y = ember.empty(2, 3, dtype=ember.float16)
works.append(dist.irecv(y, src=(R - 1) % N, tag=3))
for w in works:
    w.wait()
ok(y, data((R - 1) % N, dtype="float16"))
if R == 0:
    got = set()
    for _ in range(N - 1):
        z = ember.empty(2, 3)
        got.add(dist.recv(z))
        ok(z, data(50))
    assert got == set(range(1, N)), got
else:
    dist.send(from_torch(data(50)), dst=0)

# objects
objs = [None] * N
dist.all_gather_object(objs, {"rank": R, "sq": [R] * R})
assert objs == [{"rank": r, "sq": [r] * r} for r in range(N)], objs
lst = [("from", R), None, 3] if R == 1 else [None, None, None]
dist.broadcast_object_list(lst, src=1)
assert lst == [("from", 1), None, 3], lst
passed += 2

# a subgroup: ranks {0, last}; the middle rank (3 ranks) is outside it
g = dist.new_group([N - 1, 0])
if R in (0, N - 1):
    assert dist.get_rank(g) == (0 if R == 0 else 1) and dist.get_world_size(g) == 2
    assert dist.get_process_group_ranks(g) == [0, N - 1]
    mine = from_torch(data(R))
    dist.all_reduce(mine, group=g)
    ok(mine, data(0) + data(N - 1))
    mine = from_torch(data(R))
    dist.broadcast(mine, src=N - 1, group=g)
    ok(mine, data(N - 1))
else:
    assert g is dist.GroupMember.NON_GROUP_MEMBER
    assert dist.get_rank(g) == -1 and dist.all_reduce(ember.ones(1), group=g) is None
dist.barrier()
dist.barrier(async_op=True).wait()
dist.destroy_process_group()
assert not dist.is_initialized()
print(f"rank {R}: {passed} checks passed", flush=True)
