"""One rank of test_ddp (2 ranks): DistributedDataParallel against one process.

- the digits MLP, 20 SGD steps, each rank a 32-row half of each 64-row batch, ends with the
  parameters one process reaches with the whole batches (float32 tolerance), with the
  default bucket and with buckets so small that every parameter has its own;
- no_sync: gradients of two micro-batches, the first not synchronised, equal one process's
  accumulated gradients;
- find_unused_parameters, and the error without it; different models on the ranks.
"""
import numpy as np
from sklearn.datasets import load_digits

import ember
import ember.distributed as dist
from ember import nn
from ember.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group()
R, N = dist.get_rank(), dist.get_world_size()
assert N == 2
digits = load_digits()
X = ember.from_numpy(((digits.data - digits.data.mean()) / digits.data.std()).astype(np.float32))
Y = ember.from_numpy(digits.target.astype(np.int64))
loss_fn = nn.CrossEntropyLoss()


def mlp(seed):
    ember.manual_seed(seed)
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def close(a, b, what):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=2e-5, atol=2e-6,
                               err_msg=what)


def train(model, rows, steps=20):
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(steps):
        idx = rows(step)
        opt.zero_grad()
        loss_fn(model(X[idx]), Y[idx]).backward()
        opt.step()


try:        # replicas of different models: every rank refuses at construction
    DDP(nn.Linear(3 if R else 4, 2))
except RuntimeError as e:
    assert f"[{R}]: params[0] in this process with sizes [2, {3 if R else 4}]" in str(e), e
    assert f"appears not to match sizes [2, {4 if R else 3}]" in str(e), e
else:
    raise AssertionError("DDP over different models passed")

reference = mlp(0)
train(reference, lambda s: slice(64 * s, 64 * s + 64))
for cap in (None, 0.001):
    model = DDP(mlp(seed=R), bucket_cap_mb=cap)     # rank 1's own init is replaced by rank 0's
    assert len(model._buckets) == (1 if cap is None else 4)
    for p, q in zip(model.parameters(), mlp(0).parameters()):
        close(p, q, "rank 0's parameters after construction")
    train(model, lambda s: slice(64 * s + 32 * R, 64 * s + 32 * R + 32))
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        close(p, q, f"{name} after 20 DDP steps, bucket_cap_mb={cap}")
    assert next(iter(model.state_dict())) == "module.0.weight"

# no_sync: micro-batch A without sync, B with; one process: A then B, gradients accumulated
ref = mlp(1)
for part in (slice(0, 64), slice(64, 128)):
    loss_fn(ref(X[part]), Y[part]).backward()
model = DDP(mlp(1))
with model.no_sync():
    a = slice(32 * R, 32 * R + 32)
    loss_fn(model(X[a]), Y[a]).backward()
local = [p.grad.clone() for p in model.parameters()]
both = [None] * N
dist.all_gather_object(both, local[0].numpy())
assert not np.allclose(both[0], both[1]), "no_sync all-reduced the gradients"
b = slice(64 + 32 * R, 64 + 32 * R + 32)
loss_fn(model(X[b]), Y[b]).backward()
for p, q in zip(model.parameters(), ref.parameters()):
    close(p.grad, q.grad, "gradients accumulated over no_sync")


class TwoBranches(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(4, 3), nn.Linear(4, 3)

    def forward(self, x, use_b):
        return self.a(x) + self.b(x) if use_b else self.a(x)


x = X[:8, :4] * (R + 1)
ember.manual_seed(2)
ref = TwoBranches()
for r in range(N):      # one process: the mean of the ranks' losses
    (ref(X[:8, :4] * (r + 1), use_b=r == 0).sum() / N).backward()
ember.manual_seed(2)
model = DDP(TwoBranches(), find_unused_parameters=True)
model(x, use_b=R == 0).sum().backward()          # b is used by rank 0 only
for p, q in zip(model.parameters(), ref.parameters()):
    close(p.grad, q.grad, "find_unused_parameters, b used on rank 0 only")
model.zero_grad(set_to_none=True)
model(x, use_b=False).sum().backward()           # b used nowhere: its .grad stays None
assert model.module.b.weight.grad is None and model.module.a.weight.grad is not None

model = DDP(TwoBranches())
model(x, use_b=False).sum().backward()
try:
    model(x, use_b=False)
except RuntimeError as e:
    assert str(e).startswith("Expected to have finished reduction in the prior iteration"), e
    assert "rank " + str(R) + ": [2, 3]" in str(e), e
else:
    raise AssertionError("an unused parameter without find_unused_parameters passed")
model(x, use_b=True).sum().backward()            # the next iteration works again
print(f"rank {R}: ddp checks passed", flush=True)
