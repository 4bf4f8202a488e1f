"""A tour of ember's foundation: tensors and views, type promotion, Meta tensors,
the dispatcher (trace, modes, a custom op), and the generated op surface.

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
