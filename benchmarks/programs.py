"""The real-program rows of the suite: one training step of a GPT block and of ResNet-18,
written once over a library `lib` (ember or torch), so both run the same model.

    gpt_step(lib)     causal self-attention + MLP block (d 128, 4 heads, seq 64, batch 8),
                      AdamW, cross entropy over a 64-token vocabulary
    resnet_step(lib)  torchvision's ResNet-18 (BasicBlock [2, 2, 2, 2], 10 classes) on
                      batch 8 of 32x32 images, SGD with momentum and weight decay

Each returns a function running one step (forward, loss, zero_grad, backward, step).
Weights and data come from NumPy with a fixed seed, the same for both libraries.
"""
from __future__ import annotations

import threads  # noqa: F401  (first: pins the BLAS threads before NumPy loads)

# isort: split
import numpy as np


def _load_weights(lib, model, seed):
    """Every parameter set from one NumPy stream (the same values in both libraries)."""
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for p in model.parameters():
            a = rng.standard_normal(tuple(p.shape)).astype(np.float32)
            p.copy_(lib.from_numpy(a * (0.02 if p.dim() > 1 else 0.1)))


def gpt_block_model(lib, d=128, heads=4, vocab=64, seq=64):
    nn, F = lib.nn, lib.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(d, 3 * d)
            self.c_proj = nn.Linear(d, d)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(d, dim=2)
            q, k, v = (z.view(B, T, heads, C // heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, d)
            self.wpe = nn.Embedding(seq, d)
            self.ln_1, self.ln_2, self.ln_f = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = CausalSelfAttention()
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
            self.head = nn.Linear(d, vocab, bias=False)

        def forward(self, idx):
            x = self.wte(idx) + self.wpe(lib.arange(idx.shape[1]))
            x = x + self.attn(self.ln_1(x))
            x = x + self.mlp(self.ln_2(x))
            return self.head(self.ln_f(x))

    return Block()


def gpt_step(lib, batch=8, seq=64, vocab=64):
    model = gpt_block_model(lib, vocab=vocab, seq=seq)
    _load_weights(lib, model, 0)
    rng = np.random.default_rng(1)
    idx = lib.from_numpy(rng.integers(0, vocab, (batch, seq)))
    targets = lib.from_numpy(rng.integers(0, vocab, (batch * seq,)))
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    F = lib.nn.functional

    def step():
        loss = F.cross_entropy(model(idx).view(-1, vocab), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def resnet18_model(lib, num_classes=10):
    nn = lib.nn

    class BasicBlock(nn.Module):
        def __init__(self, inplanes, planes, stride=1):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = None
            if stride != 1 or inplanes != planes:
                self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False),
                                                nn.BatchNorm2d(planes))

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += x if self.downsample is None else self.downsample(x)
            return self.relu(out)

    class ResNet18(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            layers, inplanes = [], 64
            for planes, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
                layers += [BasicBlock(inplanes, planes, stride), BasicBlock(planes, planes)]
                inplanes = planes
            self.layers = nn.Sequential(*layers)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.avgpool(self.layers(x))
            return self.fc(lib.flatten(x, 1))

    return ResNet18()


def resnet_step(lib, batch=8, size=32):
    model = resnet18_model(lib)
    _load_weights(lib, model, 0)
    rng = np.random.default_rng(1)
    x = lib.from_numpy(rng.standard_normal((batch, 3, size, size)).astype(np.float32))
    y = lib.from_numpy(rng.integers(0, 10, (batch,)))
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    F = lib.nn.functional

    def step():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step
