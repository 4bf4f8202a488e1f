"""Recurrent and attention layers, forward + backward: ember next to torch in the same run.

    .venv/bin/python benchmarks/nn.py [--json out.json] [--threads 1]

Cases (float32, weights copied from torch so both compute the same thing; dropout off):
LSTM 2 layers, input and hidden 256, seq 35, batch 20 (word_language_model's sizes);
TransformerEncoderLayer d_model 256, 4 heads, feed-forward 1024, seq 64, batch 16 with a
causal mask. Each round trip sums the output and backpropagates into the input and every
parameter (their .grad reset each time). torch and NumPy's BLAS run on `--threads`
threads (default 1). There is no NumPy column: these are composites of many ops.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import argparse

from harness import TIMERS, Table, measure, torch, warm_allocator

import ember


def _twins(make):
    """The torch module and an ember one with the same weights, both in training mode."""
    torch.manual_seed(0)
    t_mod = make(torch.nn)
    e_mod = make(ember.nn)
    e_mod.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                           for k, v in t_mod.state_dict().items()})
    return t_mod, e_mod


def _round_trip(module, x, *args):
    params = list(module.parameters())

    def run():
        x.grad = None
        for p in params:
            p.grad = None
        out = module(x, *args)
        (out[0] if isinstance(out, tuple) else out).sum().backward()
    return run


def _inputs(lib, shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.randn(shape, generator=g)
    if lib is torch:
        return t.requires_grad_()
    return ember.from_numpy(t.numpy().copy()).requires_grad_()


def cases():
    """(name, ember fn, torch fn) for each benchmark."""
    lstm = _twins(lambda nn: nn.LSTM(256, 256, num_layers=2))
    encoder = _twins(lambda nn: nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0))
    t_mask = torch.nn.Transformer.generate_square_subsequent_mask(64)
    e_mask = ember.nn.Transformer.generate_square_subsequent_mask(64)
    return [
        ("LSTM 2x256 seq35 b20 fwd+bwd", _round_trip(lstm[1], _inputs(ember, (35, 20, 256))),
         _round_trip(lstm[0], _inputs(torch, (35, 20, 256)))),
        ("TransformerEncoderLayer d256 h4 seq64 b16 fwd+bwd",
         _round_trip(encoder[1], _inputs(ember, (64, 16, 256)), e_mask),
         _round_trip(encoder[0], _inputs(torch, (64, 16, 256)), t_mask)),
    ]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="also write the results to this JSON file")
    ap.add_argument("--number", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1,
                    help="threads of torch and of NumPy's BLAS (default 1)")
    ap.add_argument("--timer", choices=("wall", "cpu"), default="wall")
    args = ap.parse_args(argv)
    if torch is None:
        raise SystemExit("benchmarks/nn.py needs torch: it builds ember's weights from torch's")
    warm_allocator()
    table = Table(52)
    for name, e_fn, t_fn in cases():
        table.add(name, measure(e_fn, args.number, args.repeat, TIMERS[args.timer]), None,
                  measure(t_fn, args.number, args.repeat, TIMERS[args.timer]), unit="ms")
    table.write_json(args.json, timer=args.timer)
    return table.rows


if __name__ == "__main__":
    main()
