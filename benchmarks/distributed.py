"""What data parallelism costs and gives on this machine: ember.distributed (MPI, mpich
wheel) next to torch.distributed (Gloo), 2 ranks on the same host.

    .venv/bin/python benchmarks/distributed.py [--json out.json] [--max-mib 64]

Rows: all_reduce (SUM) of a float32 buffer of 1 KiB ... --max-mib MiB between 2 local
ranks, microseconds per call (rank 0's median of 5 timed loops; the bus bandwidth,
2 (n-1)/n * bytes / time, is printed beside it and kept in the JSON); then one epoch of
the digits MLP (1438 training images, global batch 64, SGD) with DDP on 2 ranks (batch 32
each, DistributedSampler) against 1 process, in ms. The NumPy column is empty. Each
measurement runs in its own launch (ember: `python -m ember.distributed.run`, torch:
torchrun), so the numbers include no start-up.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import Table

ROOT = Path(__file__).resolve().parents[1]


def sizes(max_mib):
    n, out = 1024, []
    while n <= max_mib * 1024 * 1024:
        out.append(n)
        n *= 4
    return out


# --- the ranks' side ---------------------------------------------------------------------------
def allreduce_times(lib, dist, max_mib):
    """{bytes: median us per all_reduce} on rank 0."""
    out = {}
    for nbytes in sizes(max_mib):
        x = lib.ones(nbytes // 4)
        loops = max(3, min(200, (64 << 20) // nbytes // 4))
        for _ in range(min(loops, 20)):       # warm-up
            dist.all_reduce(x)
        runs = []
        for _ in range(5):
            dist.barrier()
            start = time.perf_counter()
            for _ in range(loops):
                dist.all_reduce(x)
            runs.append((time.perf_counter() - start) / loops * 1e6)
        out[nbytes] = (statistics.median(runs), min(runs), max(runs))
    return out


def ddp_epoch_times(epochs=4):
    """ms per epoch of the digits MLP with DDP on this launch's ranks (batch 64 / ranks)."""
    sys.path.insert(0, str(ROOT / "examples"))
    from train_digits import digits_data, make_mlp

    import ember
    import ember.distributed as dist
    from ember.nn.parallel import DistributedDataParallel as DDP
    from ember.utils.data import DataLoader, DistributedSampler
    train_set, _ = digits_data()
    ranks = dist.get_world_size()
    ember.manual_seed(0)
    model = DDP(make_mlp())
    sampler = DistributedSampler(train_set, shuffle=True, seed=0)
    loader = DataLoader(train_set, batch_size=64 // ranks, sampler=sampler)
    opt = ember.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = ember.nn.CrossEntropyLoss()
    times = []
    for epoch in range(epochs + 1):
        sampler.set_epoch(epoch)
        dist.barrier()
        start = time.perf_counter()
        for x, y in loader:
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()
        dist.barrier()
        times.append((time.perf_counter() - start) * 1e3)
    times = times[1:]       # the first epoch warms up
    return statistics.median(times), min(times), max(times)


def worker(kind, out, max_mib):
    if kind == "torch-allreduce":
        import torch
        import torch.distributed as dist
        torch.set_num_threads(1)
        dist.init_process_group("gloo")
        result = allreduce_times(torch, dist, max_mib)
    else:
        import ember
        import ember.distributed as dist
        dist.init_process_group()
        result = (allreduce_times(ember, dist, max_mib) if kind == "ember-allreduce"
                  else ddp_epoch_times())
    if dist.get_rank() == 0:
        Path(out).write_text(json.dumps(result))
    dist.destroy_process_group()


# --- the driver -------------------------------------------------------------------------------
def launch(kind, nproc, max_mib):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    launcher = ("torch.distributed.run" if kind.startswith("torch") else "ember.distributed.run")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        subprocess.run([sys.executable, "-m", launcher, "--nproc-per-node", str(nproc),
                        "--master-port", port, __file__, "--worker", kind, "--out", out,
                        "--max-mib", str(max_mib)], check=True,
                       env={**os.environ, "PYTHONWARNINGS": "ignore"})
        return json.loads(Path(out).read_text())


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="benchmarks/last_run_distributed.json")
    ap.add_argument("--max-mib", type=int, default=64)
    ap.add_argument("--threads", default=None, help="BLAS threads (see threads.py)")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.out, args.max_mib)
    ember_ar = launch("ember-allreduce", 2, args.max_mib)
    torch_ar = launch("torch-allreduce", 2, args.max_mib)
    table = Table(34)
    bandwidth = []
    for nbytes in sizes(args.max_mib):
        e, t = ember_ar[str(nbytes)], torch_ar[str(nbytes)]
        label = f"{nbytes >> 10} KiB" if nbytes < 1 << 20 else f"{nbytes >> 20} MiB"
        table.add(f"all_reduce 2 ranks {label}", e, None, t)
        bus = {k: nbytes / (r[0] * 1e-6) / 1e9 for k, r in (("ember", e), ("torch", t))}
        bandwidth.append({"bytes": nbytes, "ember_GBps": bus["ember"], "torch_GBps": bus["torch"]})
        print(f"{'':34}   bus bandwidth: ember {bus['ember']:.2f} GB/s, "
              f"torch Gloo {bus['torch']:.2f} GB/s")
    one = launch("ddp-epoch", 1, args.max_mib)
    two = launch("ddp-epoch", 2, args.max_mib)
    table.add("DDP digits epoch, 1 rank", [v * 1e3 for v in one], None, None, unit="ms")
    table.add("DDP digits epoch, 2 ranks", [v * 1e3 for v in two], None, None, unit="ms")
    print(f"DDP digits epoch: 2 ranks take {two[0] / one[0]:.2f}x the time of 1")
    table.write_json(args.json, bandwidth=bandwidth)
    return None


if __name__ == "__main__":
    main()
