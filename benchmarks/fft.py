"""ember.fft next to NumPy (numpy.fft) and torch.fft in the same run, float32 inputs.

    .venv/bin/python benchmarks/fft.py [--json out.json]

Rows: rfft of a 1024-sample signal (issue 22's measure), its inverse irfft, a complex
fft of 1024 points, rfft over the last dim of a (64, 1024) batch, and rfft's backward
(rfft(x).abs().sum() then backward) against torch's. ember computes with scipy.fft
(pocketfft) in the input's precision; numpy.fft computes in float64.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse

import numpy as np
from harness import Table, measure, torch

import ember


def _backward(lib, x):
    def run():
        lib.fft.rfft(x).abs().sum().backward()
    return run


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="benchmarks/last_run_fft.json")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1024).astype(np.float32)
    z = (x + 1j * rng.standard_normal(1024)).astype(np.complex64)
    batch = rng.standard_normal((64, 1024)).astype(np.float32)
    spec = np.fft.rfft(x).astype(np.complex64)
    libs = {"ember": ember, "torch": torch}
    data = {name: {k: lib.from_numpy(v.copy()) for k, v in
                   (("x", x), ("z", z), ("batch", batch), ("spec", spec))}
            for name, lib in libs.items() if lib is not None}

    def row(name, call, numpy_fn, number=5000):
        results = {n: measure(lambda n=n: call(libs[n], data[n]), number=number)
                   for n in data}
        table.add(name, results["ember"], measure(numpy_fn, number=number), results.get("torch"))

    table = Table(34)
    row("fft.rfft (1024,)", lambda lib, d: lib.fft.rfft(d["x"]), lambda: np.fft.rfft(x))
    row("fft.irfft (513,) -> (1024,)", lambda lib, d: lib.fft.irfft(d["spec"]),
        lambda: np.fft.irfft(spec))
    row("fft.fft complex (1024,)", lambda lib, d: lib.fft.fft(d["z"]), lambda: np.fft.fft(z))
    row("fft.rfft (64, 1024) last dim", lambda lib, d: lib.fft.rfft(d["batch"]),
        lambda: np.fft.rfft(batch), number=500)
    grads = {n: libs[n].from_numpy(x.copy()).requires_grad_() for n in data}
    table.add("rfft(x).abs().sum().backward()", measure(_backward(ember, grads["ember"]), 2000),
              None, measure(_backward(torch, grads["torch"]), 2000) if torch else None)
    table.write_json(args.json)


if __name__ == "__main__":
    main()
