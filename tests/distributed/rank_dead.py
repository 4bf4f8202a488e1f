"""One rank of test_dead_rank (2 ranks): rank 1 dies of an exception before a collective;
rank 0, whose timeout is the default 30 minutes, must raise DistBackendError at once
instead of waiting for it."""
import time

import ember
import ember.distributed as dist

dist.init_process_group()
if dist.get_rank() == 1:
    raise RuntimeError("rank 1 dies here")
start = time.monotonic()
try:
    dist.all_reduce(ember.ones(4))
except dist.DistBackendError as e:
    print(f"rank 0 raised after {time.monotonic() - start:.1f}s: {e}", flush=True)
    raise
