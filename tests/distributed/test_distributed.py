"""ember.distributed against torch.distributed.

The multi-process tests start 2 or 3 ranks through the launcher
(`python -m ember.distributed.run`); each rank script (rank_*.py beside this file) checks
its results itself and prints a line per rank when all passed. The other tests run in this
process, which never initialises MPI.
"""
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("mpi4py")

import torch.distributed as tdist
import torch.utils.data as tdata

import ember.distributed as dist
from ember.distributed import run
from ember.utils.data import DistributedSampler

HERE = Path(__file__).parent


def launch(script, nproc, timeout=120):
    """(returncode, output, seconds) of `script` on `nproc` ranks through the launcher."""
    with socket.socket() as s:      # a free port for torch's Gloo in rank_errors
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "ember.distributed.run", "--nproc-per-node",
                        str(nproc), "--master-port", str(port), str(HERE / script)],
                       check=False, capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return p.returncode, p.stdout + p.stderr, time.monotonic() - start


@pytest.mark.parametrize("nproc", [2, 3])
def test_collectives_match_single_process_torch(nproc):
    rc, out, _ = launch("rank_collectives.py", nproc)
    assert rc == 0, out
    for r in range(nproc):
        assert f"rank {r}: " in out and "checks passed" in out, out


def test_ddp_two_ranks_equal_one_process():
    rc, out, _ = launch("rank_ddp.py", 2)
    assert rc == 0, out
    assert "rank 0: ddp checks passed" in out and "rank 1: ddp checks passed" in out, out


def test_errors_and_timeout():
    rc, out, _ = launch("rank_errors.py", 2)
    for r in range(2):
        assert f"rank {r}: error checks passed" in out, out
        assert f"rank {r}: timed out after 1." in out, out
    assert rc != 0      # a rank whose wait timed out exits with 1, skipping MPI_Finalize


def test_dead_rank_makes_the_others_raise():
    rc, out, took = launch("rank_dead.py", 2)
    assert rc != 0 and "RuntimeError: rank 1 dies here" in out, out
    assert "DistBackendError: [Rank 0] all_reduce[SUM]: rank 1 (pid" in out, out
    assert took < 60, took      # the group's timeout is 30 minutes: rank 0 did not wait it out


# --- in this process -----------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["get_rank", "get_world_size", "barrier", "get_backend"])
def test_uninitialized_raises_as_torch(fn):
    with pytest.raises(ValueError) as want:
        getattr(tdist, fn)()
    with pytest.raises(ValueError) as got:
        getattr(dist, fn)()
    assert str(got.value) == str(want.value)
    assert dist.is_initialized() is tdist.is_initialized() is False


def test_names_as_torch():
    for name in ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]:
        e, t = getattr(dist.ReduceOp, name), getattr(tdist.ReduceOp, name)
        assert (str(e), repr(e), int(e)) == (str(t), repr(t), int(t))
    for name in ["gloo", "GLOO", "nccl", "mpi"]:
        assert dist.Backend(name) == tdist.Backend(name)
    assert dist.default_pg_timeout == tdist.default_pg_timeout
    assert issubclass(dist.DistBackendError, dist.DistError)
    assert issubclass(dist.DistError, RuntimeError)
    assert dist.is_available()


@pytest.mark.parametrize("n", [1, 7, 64, 1438])
@pytest.mark.parametrize("replicas", [1, 2, 3])
@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("drop_last", [True, False])
def test_distributed_sampler_order_as_torch(n, replicas, shuffle, drop_last):
    for rank in range(replicas):
        for seed, epoch in [(0, 0), (7, 3), (2**32 + 5, 1)]:
            t = tdata.DistributedSampler(range(n), replicas, rank, shuffle, seed, drop_last)
            e = DistributedSampler(range(n), replicas, rank, shuffle, seed, drop_last)
            t.set_epoch(epoch)
            e.set_epoch(epoch)
            assert list(e) == list(t) and len(e) == len(t)


def test_distributed_sampler_errors_as_torch():
    for rank in (-1, 2):
        with pytest.raises(ValueError) as want:
            tdata.DistributedSampler(range(4), 2, rank)
        with pytest.raises(ValueError) as got:
            DistributedSampler(range(4), 2, rank)
        assert str(got.value) == str(want.value)


def test_launcher_sets_torchrun_environment():
    args = run.parse_args(["--nproc-per-node", "2", "--nnodes", "2", "--hosts", "a,b",
                           "--master-port", "1234", "train.py", "--lr", "0.1"])
    cmd = run.command(args)
    assert cmd[0].endswith("mpiexec") and "-disable-auto-cleanup" in cmd
    blocks = " ".join(cmd[2:]).split(" : ")
    assert len(blocks) == 4
    for rank, block in enumerate(blocks):
        words = block.split()
        env = {words[i + 1]: words[i + 2] for i, w in enumerate(words) if w == "-env"}
        assert env == {"RANK": str(rank), "LOCAL_RANK": str(rank % 2), "WORLD_SIZE": "4",
                       "LOCAL_WORLD_SIZE": "2", "GROUP_RANK": str(rank // 2),
                       "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1234"}
        assert words[words.index("-host") + 1] == "ab"[rank // 2]
        assert words[-3:] == ["train.py", "--lr", "0.1"]
    with pytest.raises(SystemExit):
        run.parse_args(["--nnodes", "2", "--hosts", "a", "x.py"])
