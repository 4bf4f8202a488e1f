"""The dispatcher: keysets, the kernel cache, redispatch, fallthrough, boxed fallbacks,
the Library API, argument errors, overload resolution and the dispatch trace."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import ember
from ember.core.tensor import from_array
from ember.dispatch import keys as K
from ember.dispatch.dispatcher import FALLTHROUGH
from ember.library import Library

aten = ember.ops.aten


def arr(*shape, dtype=np.float32):
    return from_array(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape))


def test_keys_are_ordered_by_priority():
    # torch's order (c10/core/DispatchKey.h), highest first
    order = ["PreDispatch", "AutocastCPU", "AutocastCUDA", "Autograd", "ADInplaceOrView",
             "Functionalize", "Python", "BackendSelect", "Meta", "CUDA", "CPU"]
    bits = [K.key_of(n) for n in order]
    assert bits == sorted(bits, reverse=True)
    assert K.highest(K.CPU_BIT | K.AUTOGRAD_BIT | K.META_BIT) == K.Autograd
    assert K.names(K.CPU_BIT | K.PYTHON_BIT) == ["Python", "CPU"]
    assert K.highest(K.PYTHON_BIT | K.AUTOGRAD_BIT | K.CPU_BIT) == K.Autograd


def test_tensor_keysets():
    t = arr(2)
    assert t._ks == K.CPU_BIT | K.ADINPLACE_BIT
    t.requires_grad_()
    assert t._ks & K.AUTOGRAD_BIT
    m = ember.empty(2, device="meta")
    assert m._ks & K.META_BIT and not m._ks & K.CPU_BIT


def test_kernel_cache_is_per_keyset_and_cleared_on_registration():
    op = aten.neg.default
    a = arr(3)
    op(a)
    ks = a._ks
    assert ks in op._cache
    lib = Library("aten", "IMPL")
    try:
        lib.impl("neg", lambda x: from_array(np.full(x._shape, 7.0, np.float32)), "CPU")
        assert op._cache == {}
        assert ember.neg(a).tolist() == [7.0, 7.0, 7.0]
    finally:
        lib._destroy()
    assert ember.neg(a).tolist() == [-0.0, -1.0, -2.0]


def test_redispatch_with_keyset_kernel():
    seen = []

    def at_autocast(keyset, x):
        seen.append(K.names(keyset))
        return aten.neg.default.redispatch(keyset & K.below(K.AutocastCPU), x)

    lib = Library("aten", "IMPL")
    try:
        lib.impl("neg", at_autocast, "AutocastCPU", with_keyset=True)
        from ember.dispatch.tls import including
        with including(K.bit(K.AutocastCPU)):
            out = ember.neg(arr(2))
        assert out.tolist() == [-0.0, -1.0]
        assert seen == [["AutocastCPU", "ADInplaceOrView", "CPU"]]
        # without the key in the include set the kernel is not reached
        ember.neg(arr(2))
        assert len(seen) == 1
    finally:
        lib._destroy()


def test_fallthrough_registration_skips_the_key():
    lib = Library("aten", "IMPL")
    try:
        lib.impl("neg", FALLTHROUGH, "ADInplaceOrView")
        assert ember.neg(arr(2)).tolist() == [-0.0, -1.0]
    finally:
        lib._destroy()


def test_boxed_fallback_sees_every_op():
    calls = []

    def fallback(op, keyset, *args):
        calls.append(str(op))
        return op.redispatch(keyset & K.below(K.Functionalize), *args)

    lib = Library("_", "FRAGMENT")
    from ember.dispatch.tls import including
    try:
        lib.fallback(fallback, "Functionalize")
        with including(K.bit(K.Functionalize)):
            a = arr(2)
            (a + a).sum()
        assert calls == ["aten.add.Tensor", "aten.sum.default"]
    finally:
        lib._destroy()
    with including(K.bit(K.Functionalize)):
        arr(2) + 1
    assert len(calls) == 2


def test_library_define_and_impl_custom_op():
    lib = Library("embertest", "DEF")
    try:
        lib.define("scale(Tensor x, float factor=2.0) -> Tensor")
        lib.impl("scale", lambda x, f: x * f, "CompositeImplicitAutograd")
        out = ember.ops.embertest.scale(arr(3))
        assert out.tolist() == [0.0, 2.0, 4.0]
        assert ember.ops.embertest.scale.default(arr(2), factor=3.0).tolist() == [0.0, 3.0]
        meta = ember.ops.embertest.scale(ember.empty(4, device="meta"))
        assert meta.device.type == "meta" and meta.shape == (4,)
        assert str(ember.ops.embertest.scale.default.schema) == \
            "scale(Tensor x, float factor=2.0) -> Tensor"
        with pytest.raises(RuntimeError, match="already defined"):
            lib.define("scale(Tensor x, float factor=2.0) -> Tensor")
    finally:
        lib._destroy()
    with pytest.raises(AttributeError):
        ember.ops.embertest.scale.default  # noqa: B018


def test_library_backend_kernel_only_cpu():
    lib = Library("embertest2", "DEF")
    try:
        lib.define("double(Tensor x) -> Tensor")
        lib.impl("double", lambda x: from_array(x._np * 2), "CPU")
        assert ember.ops.embertest2.double(arr(2)).tolist() == [0.0, 2.0]
        with pytest.raises(NotImplementedError, match="Could not run 'embertest2::double' with "
                                                      "arguments from the 'Meta' backend"):
            ember.ops.embertest2.double(ember.empty(2, device="meta"))
    finally:
        lib._destroy()


def test_op_objects_carry_the_schema():
    op = aten.add.Tensor
    assert str(op) == "aten.add.Tensor"          # torch's str; C++ errors say aten::add.Tensor
    assert op._cpp_name == "aten::add.Tensor"
    assert str(op.schema) == "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert [a.name for a in op.schema.arguments.flat()] == ["self", "other", "alpha"]
    assert "Tensor" in aten.add.overloads() and "out" in aten.add.overloads()
    assert aten.add(arr(2), arr(2), alpha=2).tolist() == [0.0, 3.0]
    assert aten.add.Tensor(arr(2), 1).tolist() == [1.0, 2.0]


def test_wrong_arguments_raise_type_error_with_the_schema():
    with pytest.raises(TypeError, match=r"argument 'other' \(position 2\) must be Tensor, not str"):
        ember.add(arr(2), "x")
    with pytest.raises(TypeError, match="schema: add.Tensor"):
        ember.add(arr(2), "x")
    with pytest.raises(TypeError):
        ember.add(arr(2), arr(2), 1)  # alpha is keyword-only
    with pytest.raises(TypeError, match="expected one of"):
        arr(2, 3).sum("a")
    with pytest.raises(TypeError, match="argument 'input'"):
        ember.neg([1, 2])


def test_overload_resolution():
    x = arr(2, 3)
    assert x.sum().item() == 15.0
    assert x.sum(0).tolist() == [3.0, 5.0, 7.0]
    assert x.sum(dim=(0, 1), keepdim=True).shape == (1, 1)
    assert x.view(3, 2).shape == (3, 2)
    assert x.view((6,)).shape == (6,)
    assert x.view(ember.int32).dtype == ember.int32
    assert ember.sum(x, 1).tolist() == [3.0, 12.0]


def test_device_mismatch_error():
    with pytest.raises(RuntimeError, match="Tensor on device meta is not on the expected device cpu"):
        arr(2) + ember.empty(2, device="meta")


def test_dispatch_trace_prints_each_op():
    code = "import ember, numpy as np\nx = ember.ones(2)\n(x + x).sum()\n"
    env = dict(os.environ, EMBER_SHOW_DISPATCH_TRACE="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert "aten::add.Tensor" in out.stderr and "-> CPU" in out.stderr
    assert "aten::ones" in out.stderr and "BackendSelect" in out.stderr


def test_library_misuse_errors():
    with pytest.raises(ValueError, match="Unsupported kind"):
        Library("x", "DEFINE")
    with pytest.raises(ValueError, match="use IMPL"):
        Library("aten", "DEF")
    with pytest.raises(RuntimeError, match="define\\(\\) is not allowed on an IMPL library"):
        Library("aten", "IMPL").define("foo(Tensor x) -> Tensor")
    lib = Library("embertest3", "DEF")
    try:
        with pytest.raises(RuntimeError, match="Only a single Library"):
            Library("embertest3", "DEF")
        with pytest.raises(RuntimeError, match="malformed schema"):
            lib.define("bad(Tensor x")
        with pytest.raises(ValueError, match="unknown dispatch key 'GPU'"):
            lib.impl("aten::neg", lambda x: x, "GPU")
        with pytest.raises(RuntimeError, match="in a Library for namespace 'embertest3'"):
            lib.impl("aten::neg", lambda x: x, "CPU")
    finally:
        lib._destroy()
    with pytest.raises(AttributeError, match="has no overload name 'nope'"):
        aten.add.nope  # noqa: B018
