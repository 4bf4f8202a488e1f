"""A tour of ember: tensors and views, type promotion, Meta tensors, the dispatcher
(trace, modes, a custom op), the generated op surface, and autograd.

    make demo
"""
import ember
from ember.library import Library
from ember.utils._python_dispatch import TorchDispatchMode


def section(title):
    print(f"\n== {title} " + "=" * (60 - len(title)))


section("tensors and views")
x = ember.arange(12, dtype=ember.float32).view(3, 4)
print(x)
col = x[:, 1]
print("x[:, 1] is a view:", col.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(),
      "stride", col.stride(), "offset", col.storage_offset())
col.fill_(-1)
print("after x[:, 1].fill_(-1):\n", x)
print("x.t() contiguous?", x.t().is_contiguous(), "strides", x.t().stride())

section("type promotion (torch's rules)")
i = ember.tensor([1, 2, 3], dtype=ember.int32)
print("int32 + 2      ->", (i + 2).dtype)
print("int32 + 2.5    ->", (i + 2.5).dtype)
print("int32 / 2      ->", (i / 2).dtype)
print("uint8 + int8   ->", ember.promote_types(ember.uint8, ember.int8))

section("meta tensors: shapes and dtypes without data")
m = ember.empty(64, 128, device="meta")
w = ember.empty(128, 10, device="meta")
out = (m @ w).relu().sum(0)
print(out)

section("a dispatch mode sees every op")


class Log(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        print("  ", func)
        return func(*args, **(kwargs or {}))


with Log():
    y = ember.ones(2, 2) * 3 + 1
    y.sum()

section("a custom op through ember.library")
lib = Library("demo", "DEF")
lib.define("axpy(Tensor x, Tensor y, float a=2.0) -> Tensor")
lib.impl("axpy", lambda x, y, a: x * a + y, "CompositeImplicitAutograd")
print(ember.ops.demo.axpy(ember.ones(3), ember.arange(3, dtype=ember.float32)))
print("schema:", ember.ops.demo.axpy.default.schema)

section("the generated surface")
print("ops in aten:", len(list(ember.ops.aten)), "| e.g.", ember.ops.aten.add.Tensor.schema)
print("ember.add signature:", ember.add.__doc__)

section("autograd: fit y = 3x - 1 by gradient descent")
xs = ember.arange(32) / 16.0 - 1
ys = 3 * xs - 1
w = ember.zeros(1, requires_grad=True)
b = ember.zeros(1, requires_grad=True)
for step in range(200):
    loss = ((xs * w + b - ys) * (xs * w + b - ys)).mean()
    loss.backward()
    with ember.no_grad():
        w -= 0.5 * w.grad
        b -= 0.5 * b.grad
    w.grad = b.grad = None
print(f"w = {w.item():.4f}, b = {b.item():.4f}, loss = {loss.item():.2e}")
print("graph of the loss:", loss.grad_fn.name(), "->",
      [f.name() if f else None for f, _ in loss.grad_fn.next_functions])

section("autograd: in place on a view rewrites the base's history")
x = ember.ones(4, requires_grad=True)
base = x.clone()
base[1:3].mul_(10)                      # CopySlices on base
base.sum().backward()
print("base.grad_fn:", base.grad_fn.name(), "| x.grad:", x.grad)
with ember.inference_mode():
    z = x * 2
print("made in inference_mode:", z.is_inference(), "| requires_grad:", z.requires_grad)

section("the op catalogue: a small CNN step, by hand")
ember.manual_seed(0)
images = ember.randn(8, 1, 8, 8)
labels = ember.randint(0, 10, (8,))
conv_w = (ember.randn(4, 1, 3, 3) * 0.3).requires_grad_()
fc_w = (ember.randn(10, 64) * 0.1).requires_grad_()
h = ember.conv2d(images, conv_w, padding=1).relu()           # (8, 4, 8, 8)
h = ember.max_pool2d(h, 2).flatten(1)                        # (8, 64)
logits = ember.linear(h, fc_w)
loss = ember.cross_entropy_loss(logits, labels)
loss.backward()
print(f"loss {loss.item():.4f} | conv grad norm {conv_w.grad.norm().item():.4f} |",
      "grad_fn", loss.grad_fn.name())
probs = logits.softmax(-1)
print("top-2 classes of the first image:", probs[0].topk(2).indices.tolist(),
      "| sorted labels:", labels.sort().values.tolist())
print("std, mean of the batch:", [round(v.item(), 4) for v in ember.std_mean(images)])
