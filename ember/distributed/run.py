"""`python -m ember.distributed.run --nproc-per-node N script.py [args]`: torchrun's role on
top of `mpiexec` (the mpich wheel's, beside this Python).

Each rank gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR and
MASTER_PORT, as torchrun sets them (one `-n 1 -env ...` block per rank in mpiexec's MPMD
form). mpiexec runs with -disable-auto-cleanup, so that when a rank dies the others raise
(see ember.distributed) rather than being killed mid-print. With --nnodes M and --hosts
h1,h2,... the ranks go node-major over the hosts (run the launcher once, on one host).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path


def _mpiexec() -> str:
    here = Path(sys.executable).parent / "mpiexec"
    found = str(here) if here.exists() else shutil.which("mpiexec")
    if not found:
        raise SystemExit("ember.distributed.run: mpiexec not found (pip install mpich)")
    return found


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m ember.distributed.run",
                                description="Starts N ranks of a script under mpiexec.")
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=int, default=1)
    p.add_argument("--nnodes", type=int, default=1)
    p.add_argument("--hosts", default=None, help="comma-separated hosts, one per node")
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", type=int, default=29500)
    p.add_argument("-m", "--module", action="store_true",
                   help="run the script argument as a module (python -m)")
    p.add_argument("--no-python", "--no_python", action="store_true",
                   help="run the script argument as a program, not with Python")
    p.add_argument("script")
    p.add_argument("script_args", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if args.nproc_per_node < 1 or args.nnodes < 1:
        p.error("--nproc-per-node and --nnodes must be at least 1")
    hosts = args.hosts.split(",") if args.hosts else None
    if hosts is not None and len(hosts) != args.nnodes:
        p.error(f"--hosts names {len(hosts)} hosts for --nnodes {args.nnodes}")
    args.hosts = hosts
    return args


def command(args) -> list[str]:
    """The mpiexec command line for `args`."""
    if args.no_python:
        program = [args.script]
    else:
        program = [sys.executable, "-u", *(["-m"] if args.module else []), args.script]
    program += args.script_args
    world = args.nproc_per_node * args.nnodes
    cmd = [_mpiexec(), "-disable-auto-cleanup"]
    for node in range(args.nnodes):
        for local in range(args.nproc_per_node):
            rank = node * args.nproc_per_node + local
            env = {"RANK": rank, "LOCAL_RANK": local, "WORLD_SIZE": world,
                   "LOCAL_WORLD_SIZE": args.nproc_per_node, "GROUP_RANK": node,
                   "MASTER_ADDR": args.master_addr, "MASTER_PORT": args.master_port}
            block = ["-n", "1"] + (["-host", args.hosts[node]] if args.hosts else [])
            for k, v in env.items():
                block += ["-env", k, str(v)]
            cmd += ([":"] if rank else []) + block + program
    return cmd


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")      # torchrun's default with several ranks a node
    return subprocess.call(command(args), env=env)


if __name__ == "__main__":
    sys.exit(main())
