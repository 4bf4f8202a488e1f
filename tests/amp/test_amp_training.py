"""A small model trains under bfloat16 autocast on CPU as well as in float32."""
from __future__ import annotations

import numpy as np
import pytest

import ember

datasets = pytest.importorskip("sklearn.datasets")


def digits():
    d = datasets.load_digits()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(x))
    x, y = x[order], y[order]
    return (x[:1437], y[:1437]), (x[1437:], y[1437:])


def train_mlp(amp: bool, epochs=12, lr=0.2, batch=64):
    """An MLP 64-64-10 trained with plain SGD; returns the test accuracy."""
    (xtr, ytr), (xte, yte) = digits()
    g = ember.Generator().manual_seed(0)
    params = [ember.randn(64, 64, generator=g) * 0.125, ember.zeros(64),
              ember.randn(10, 64, generator=g) * 0.125, ember.zeros(10)]
    for p in params:
        p.requires_grad_()
    w1, b1, w2, b2 = params

    def forward(x):
        with ember.autocast("cpu", enabled=amp):
            return ember.linear(ember.relu(ember.linear(x, w1, b1)), w2, b2)

    rng = np.random.default_rng(1)
    for _ in range(epochs):
        order = rng.permutation(len(xtr))
        for i in range(0, len(order), batch):
            idx = order[i:i + batch]
            logits = forward(ember.tensor(xtr[idx]))
            loss = ember.cross_entropy_loss(logits.float(), ember.tensor(ytr[idx]))
            for p in params:
                p.grad = None
            loss.backward()
            with ember.no_grad():
                for p in params:
                    p.sub_(p.grad, alpha=lr)
    with ember.no_grad():
        logits = forward(ember.tensor(xte))
    assert logits.dtype is (ember.bfloat16 if amp else ember.float32)
    return float((logits.float().argmax(1).numpy() == yte).mean())


def test_bf16_autocast_trains_to_float32_accuracy():
    full = train_mlp(amp=False)
    mixed = train_mlp(amp=True)
    assert full > 0.93, full
    assert abs(full - mixed) <= 0.01, (full, mixed)
