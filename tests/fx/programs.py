"""Small programs written once for either library (`lib` is ember or torch), so ember.fx
can be compared with torch.fx on the same code."""
from __future__ import annotations

import math
from math import sqrt


def mlp(lib):
    nn = lib.nn

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Linear(4, 8)
            self.act = nn.ReLU()
            self.l2 = nn.Linear(8, 3)

        def forward(self, x):
            return self.l2(self.act(self.l1(x))).softmax(dim=-1)
    return MLP()


def attrs(lib):
    nn = lib.nn

    class Attrs(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Linear(3, 4)
            self.register_buffer("scale", lib.full((4,), 2.0))
            self.c = lib.ones(4)

        def forward(self, x):
            y = lib.relu(self.l1(x)) + self.l1.weight.sum() + self.c
            y = y * self.scale
            return y.view(-1).sum(dim=0, keepdim=True), x.size(0), x.shape[1]
    return Attrs()


def sequential(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Sequential(nn.Linear(6, 2), nn.Sigmoid()))


def nested(lib):
    nn = lib.nn
    F = nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            return F.gelu(self.lin(x)) + x

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([Block(), Block()])
            self.norm = nn.LayerNorm(4)

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            x = self.norm(x)
            return lib.cat([x, -x], 1).mean(1), lib.sqrt(x.abs() + 1)
    return Net()


def conv(lib):
    nn = lib.nn

    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 3, padding=1)
            self.pool = nn.MaxPool2d(2)
            self.fc = nn.Linear(8, 2)

        def forward(self, x):
            x = self.pool(nn.functional.relu(self.conv(x)))
            return self.fc(x.flatten(1))
    return ConvNet()


def methods_and_operators(lib):
    def fn(x, y):
        z = (x @ y.t()).exp().clamp(max=3.0)
        z = -z + 2 * x.sum() / (y.mean() - 1) ** 2
        z = z[0:2, 1:]
        a, b = z.chunk(2)
        return a * b, z.transpose(0, 0).to(lib.float64), z >= 0.5, lib.where(z > 1, z, 0.0)
    return fn


def uses_math(lib):
    def fn(x):
        return x / sqrt(x.size(-1)) + math.pi
    return fn


PROGRAMS = {"mlp": mlp, "attrs": attrs, "sequential": sequential, "nested": nested,
            "conv": conv}
INPUT_SHAPES = {"mlp": [(5, 4)], "attrs": [(2, 3)], "sequential": [(3, 4)],
                "nested": [(2, 4)], "conv": [(2, 1, 4, 4)]}
