"""One rank of test_errors (2 ranks).

- bad arguments raise what torch.distributed (Gloo, started in the same process from the
  launcher's MASTER_ADDR/MASTER_PORT) raises: same type, same message (Gloo's
  "ProcessGroupGloo::" prefix, line breaks and the library's name aside);
- ranks that disagree on a collective's shapes, dtypes, op or root all raise a DistError
  naming both calls, and the group still works afterwards; a recv into a tensor of another
  shape raises on the receiver;
- last, both ranks wait for a recv nobody sends on a group with a 1 s timeout: both raise
  DistBackendError after about 1 s (then exit non-zero, skipping MPI_Finalize).
"""
import time
from datetime import timedelta

import torch
import torch.distributed as tdist

import ember
import ember.distributed as dist

try:        # a world size that is not the launch's: refused, and init still works after
    dist.init_process_group(world_size=3)
except ValueError as e:
    assert "of world_size 3 does not match MPI's world" in str(e), e
else:
    raise AssertionError("init_process_group(world_size=3) on 2 processes passed")
dist.init_process_group()
tdist.init_process_group("gloo")
R, N = dist.get_rank(), dist.get_world_size()


def same_error(fe, ft):
    """fe() (ember) and ft() (torch) raise the same exception type and message."""
    try:
        ft()
    except Exception as e:  # noqa: BLE001 (any error torch raises)
        want = e
    else:
        raise AssertionError("torch raised nothing")
    try:
        fe()
    except Exception as e:  # noqa: BLE001
        got = e
    else:
        raise AssertionError(f"ember raised nothing; torch raised {want!r}")
    assert type(got).__name__ == type(want).__name__ or isinstance(got, type(want)), (got, want)
    expected = " ".join(str(want).removeprefix("ProcessGroupGloo::").split())
    assert str(got) == expected.replace("torch.", "ember."), (str(got), str(want))


e1, t1 = ember.ones(2), torch.ones(2)
same_error(lambda: dist.all_gather([e1], e1), lambda: tdist.all_gather([t1], t1))
same_error(lambda: dist.all_gather([e1, ember.ones(1)], e1),
           lambda: tdist.all_gather([t1, torch.ones(1)], t1))
same_error(lambda: dist.broadcast(e1, src=5), lambda: tdist.broadcast(t1, src=5))
same_error(lambda: dist.send(e1, dst=R), lambda: tdist.send(t1, dst=R))
same_error(lambda: dist.all_reduce(ember.ones(2, dtype=ember.int64), op=dist.ReduceOp.AVG),
           lambda: tdist.all_reduce(torch.ones(2, dtype=torch.int64), op=tdist.ReduceOp.AVG))
same_error(lambda: dist.all_reduce(e1, op=dist.ReduceOp.BAND),
           lambda: tdist.all_reduce(t1, op=tdist.ReduceOp.BAND))
same_error(lambda: dist.all_reduce([e1]), lambda: tdist.all_reduce([t1]))
for root in range(N):
    wrong = R != root       # the list given where it must not be, or missing where it must
    same_error(lambda r=root, w=wrong: dist.scatter(e1, [e1] * N if w else None, src=r),
               lambda r=root, w=wrong: tdist.scatter(t1, [t1] * N if w else None, src=r))
    same_error(lambda r=root, w=wrong: dist.gather(e1, [e1] * N if w else None, dst=r),
               lambda r=root, w=wrong: tdist.gather(t1, [t1] * N if w else None, dst=r))
same_error(lambda: dist.init_process_group(), lambda: tdist.init_process_group("gloo"))
tdist.destroy_process_group()


def mismatch(fn, *phrases):
    try:
        fn()
    except dist.DistError as e:
        text = str(e)
    else:
        raise AssertionError("no error on mismatched ranks")
    assert text.startswith("Detected mismatch between collectives on ranks. Rank " + str(R)), text
    for p in phrases:
        assert p in text, (p, text)


mismatch(lambda: dist.all_reduce(ember.ones(2 + R)), "TensorShape=[2]", "TensorShape=[3]")
mismatch(lambda: dist.broadcast(ember.ones(2, dtype=ember.float64 if R else ember.float32), 0),
         "TensorDtypes=Float", "TensorDtypes=Double")
mismatch(lambda: dist.all_reduce(e1) if R else dist.broadcast(e1, 0), "all_reduce", "broadcast")
mismatch(lambda: dist.all_reduce(e1, op=dist.ReduceOp.MAX if R else dist.ReduceOp.SUM),
         "all_reduce[SUM]", "all_reduce[MAX]")
mismatch(lambda: dist.broadcast(e1, src=R), "Root=0", "Root=1")
mismatch(lambda: dist.barrier() if R else dist.all_reduce(e1), "barrier(", "all_reduce[SUM](")
mismatch(lambda: dist.new_group([0, 1] if R else [0]), "new_group(ranks=[0])",
         "new_group(ranks=[0, 1])")
x = ember.full((2,), float(R))
dist.all_reduce(x)                                   # the group still works
assert x.tolist() == [1.0, 1.0]

if R == 0:
    dist.send(ember.ones(3), dst=1)
    dist.send(ember.full((4,), 2.0), dst=1)
else:
    try:
        dist.recv(ember.empty(4), src=0)
    except dist.DistError as e:
        assert str(e) == ("[Rank 1] recv: rank 0 sent a Float tensor of shape [3] but the "
                          "receiving tensor is a Float tensor of shape [4]"), str(e)
    else:
        raise AssertionError("recv into a tensor of another shape passed")
    y = ember.empty(4)
    dist.recv(y, src=0)                             # the next message is the right one
    assert y.tolist() == [2.0] * 4
print(f"rank {R}: error checks passed", flush=True)

quick = dist.new_group(timeout=timedelta(seconds=1))
start = time.monotonic()
try:
    dist.recv(ember.empty(1), src=1 - R, group=quick)
except dist.DistBackendError as e:
    took = time.monotonic() - start
    assert "Timed out waiting 1000ms" in str(e) and 0.9 < took < 10, (str(e), took)
    print(f"rank {R}: timed out after {took:.1f}s", flush=True)
    raise
