"""The optional C helpers (ember/_speedups.c) against their pure-Python twins: from_array
and the binary kernels' C fast path give the same tensors (slots, bits, keysets, errors),
and ember runs without them (EMBER_PURE_PYTHON=1)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ember
from ember._accel import speedups
from ember.core import dtype as D
from ember.core import tensor as T
from ember.kernels.cpu import binary as B

ROOT = Path(__file__).resolve().parents[2]
needs_c = pytest.mark.skipif(speedups is None, reason="ember._speedups is not built")
SLOTS = [s for s in T.Tensor.__slots__ if s != "__weakref__"]


def same_tensor(x, y):
    """Every slot alike: the same objects for the constants, equal arrays and shapes."""
    assert type(x) is type(y)
    for name in SLOTS:
        u, v = getattr(x, name, "<unset>"), getattr(y, name, "<unset>")
        if name == "_np":
            assert u.dtype == v.dtype and u.shape == v.shape and u.strides == v.strides
            np.testing.assert_array_equal(u, v)
        elif name == "_storage":    # (a fresh storage each: alike in size)
            assert (u is None) == (v is None) and (u is None or u.nbytes() == v.nbytes())
        elif name == "_contig":
            assert (u is None) == (v is None) and (u is None or u is x._np), name
        else:
            assert u == v and type(u) is type(v), (name, u, v)


ARRAYS = [np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((), np.int64),
          np.ones(3, np.complex64), np.array([True, False]), np.float64(2.5),
          np.arange(4, dtype=np.int16)[::2], np.empty((0, 3), np.uint8)]


@needs_c
@pytest.mark.parametrize("arr", ARRAYS, ids=lambda a: f"{a.dtype}{np.shape(a)}")
@pytest.mark.parametrize("contig", [False, True])
@pytest.mark.parametrize("inference", [False, True])
def test_from_array_matches_python(arr, contig, inference):
    with ember.inference_mode(inference):
        for dt in (None, D._BY_NP[np.asarray(arr).dtype]):
            c, p = speedups.from_array(arr, dt, contig), T.py_from_array(arr, dt, contig)
            same_tensor(c, p)
            assert c.is_inference() is inference
    same_tensor(speedups.from_array(arr, contig=contig), T.py_from_array(arr, contig=contig))


@needs_c
def test_from_array_bad_arguments():
    a = np.ones(2)
    for call in (lambda f: f(), lambda f: f(a, None, True, 1), lambda f: f(a, arr=a),
                 lambda f: f(a, bogus=1)):
        with pytest.raises(TypeError):
            call(speedups.from_array)
        with pytest.raises(TypeError):
            call(T.py_from_array)
    with pytest.raises(KeyError):       # a NumPy dtype ember has no dtype for, in both
        speedups.from_array(np.ones(2, np.uint32))
    with pytest.raises(KeyError):
        T.py_from_array(np.ones(2, np.uint32))


def _view_bases():
    """Bases of every kind make_view meets: a kernel's result (no storage yet), a view (its
    _base is the root), a complex tensor, a leaf that requires grad, a Parameter, Meta."""
    fresh = ember.arange(12.0).view(3, 4) * 1
    root = ember.arange(24.0)
    leaf = ember.ones(3, 4, requires_grad=True)
    return {"fresh": lambda: ember.arange(12.0).view(3, 4) * 1, "view": lambda: root[2:14].view(3, 4),
            "complex": lambda: ember.ones(3, 4, dtype=ember.complex64) * 1, "leaf": lambda: leaf,
            "parameter": lambda: ember.nn.Parameter(fresh), "meta": lambda: ember.ones(3, 4, device="meta")}


@needs_c
@pytest.mark.parametrize("kind", list(_view_bases()))
@pytest.mark.parametrize("inference", [False, True])
def test_make_view_matches_python(kind, inference):
    """The C make_view and its Python twin give the same views (slots, keysets, _base, the
    shared storage), with and without the view's array, and with a dtype change."""
    make = _view_bases()[kind]
    with ember.inference_mode(inference):
        for arr in (True, False):
            for dt in (None, ember.int32):
                views = []
                for f in (speedups.make_view, T.py_make_view):
                    base = make()
                    if dt is not None and base.dtype is not ember.float32:
                        continue
                    a = None if base._np is None else base._np[:2]
                    if a is not None and dt is not None:
                        a = a.view(np.int32)
                    v = f(base, (2, 4), (4, 1), base._offset, dt, a if arr else None)
                    assert v.untyped_storage() is base.untyped_storage()
                    assert v._base is (base if base._base is None else base._base)
                    assert v.is_inference() == base.is_inference()
                    views.append(v)
                if not views:
                    continue
                c, p = views
                for name in ("_shape", "_stride", "_offset", "_dtype", "_device", "_ks", "_contig"):
                    assert getattr(c, name) == getattr(p, name), name
                if c._np is not None:
                    np.testing.assert_array_equal(c._np, p._np)
                    assert c._np.strides == p._np.strides


@needs_c
def test_make_view_arguments():
    """Keywords and lists reach the same view; a bad call raises the twin's TypeError."""
    base = ember.arange(6.0) * 1
    a = base._np.reshape(2, 3)
    v = speedups.make_view(base, [2, 3], [3, 1], offset=0, arr=a)
    assert v._shape == (2, 3) and v._stride == (3, 1) and v._np is a and v._base is base
    for call in (lambda f: f(base, (2, 3)), lambda f: f(base, (2, 3), (3, 1), 0, bogus=1),
                 lambda f: f(base, (2, 3), (3, 1), 0, base=base)):
        with pytest.raises(TypeError):
            call(speedups.make_view)
        with pytest.raises(TypeError):
            call(T.py_make_view)


def test_inference_flag_follows_inference_mode():
    with ember.inference_mode():
        assert ember.is_inference_mode_enabled()
        assert speedups is None or speedups.inference()
        with ember.inference_mode(False):
            assert speedups is None or not speedups.inference()
            assert not (ember.ones(2) * 2).is_inference()
        assert (ember.ones(2) * 2).is_inference()
    assert speedups is None or not speedups.inference()


def _operands():
    """Pairs of (self, other) covering the C fast path and each way out of it."""
    rng = np.random.default_rng(0)
    f32 = lambda *s: T.from_array(rng.standard_normal(s).astype(np.float32), None, True)
    p = ember.nn.Parameter(ember.ones(3))
    return {
        "same": (f32(3, 4), f32(3, 4)),
        "broadcast": (f32(3, 1), f32(1, 4)),
        "0-d": (f32(), f32()),
        "int": (T.from_array(np.arange(5), None, True), T.from_array(np.arange(5), None, True)),
        "mixed dtypes": (f32(3), T.from_array(np.ones(3), None, True)),
        "unmarked": (ember.ones(3, 4), ember.ones(3, 4)),
        "view": (f32(4, 4).t(), f32(4, 4)),
        "number": (f32(3), 2.5),
        "number beyond float32": (f32(3), 1e39),
        "nan": (f32(3), float("nan")),
        "float64 and a number": (T.from_array(np.arange(3.0), None, True), 1e300),
        "complex64 and a number": (T.from_array(np.ones(2, np.complex64), None, True), -0.5),
        "float16 and a number": (T.from_array(np.ones(2, np.float16), None, True), 0.1),
        "int and a number": (T.from_array(np.arange(3), None, True), 0.5),
        "int number": (f32(3), 2),
        "big int number": (f32(3), 2 ** 63 + 5),
        "int beyond uint64": (f32(3), 2 ** 65),
        "negative int number": (T.from_array(np.ones(2, np.complex128), None, True), -7),
        "bool number": (f32(3), True),
        "parameter": (p, f32(3)),
        "empty": (f32(0, 3), f32(1, 3)),
    }


@needs_c
@pytest.mark.parametrize("case", list(_operands()))
@pytest.mark.parametrize("kernel", [B.add, B.sub, B.mul], ids=lambda k: k.__name__)
def test_fast_binary_matches_the_python_kernel(kernel, case):
    assert isinstance(kernel, speedups.FastBinary)
    x, y = _operands()[case]
    args = (x, y, 1) if kernel is not B.mul else (x, y)
    same_outcome(lambda: kernel(*args), lambda: kernel.kernel(*args))


def same_outcome(fast, slow):
    """The same tensor, or the same error (type and message)."""
    try:
        expected = slow()
    except Exception as e:          # noqa: BLE001  (any error: the C path must raise it too)
        with pytest.raises(type(e)) as got:
            fast()
        assert str(got.value) == str(e)
        return
    same_tensor(fast(), expected)


@needs_c
@pytest.mark.parametrize("kernel", [B.add, B.sub], ids=lambda k: k.__name__)
def test_fast_binary_alpha_and_refusals(kernel):
    x, y = _operands()["same"]
    for alpha in (2, 1.0, 0.5):
        same_tensor(kernel(x, y, alpha), kernel.kernel(x, y, alpha))
    for k in (kernel, kernel.kernel):      # (True is 1, but torch refuses it)
        with pytest.raises(RuntimeError, match="Boolean alpha only supported"):
            k(x, y, True)
    same_tensor(kernel(x, y, alpha=1), kernel.kernel(x, y, alpha=1))
    bad = (T.from_array(np.ones((2, 3), np.float32), None, True),
           T.from_array(np.ones((4,), np.float32), None, True))
    with pytest.raises(RuntimeError) as c_err:
        kernel(*bad)
    with pytest.raises(RuntimeError) as py_err:
        kernel.kernel(*bad)
    assert str(c_err.value) == str(py_err.value)
    assert "must match the size" in str(c_err.value)


@needs_c
def test_fast_binary_keeps_torch_errors_for_bool_sub():
    t = T.from_array(np.array([True, False]), None, True)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool"):
        ember.sub(t, t)


@needs_c
def test_fast_binary_metadata():
    assert B.mul.__name__ == "multiply" and B.mul.__wrapped__ is B.mul.kernel
    assert B.mul.ufunc is np.multiply and D.bool_ not in B.sub.dtypes


def test_pure_python_fallback_runs_the_same_tests():
    """With EMBER_PURE_PYTHON=1 ember never imports the C helpers; the tensor, binary-op and
    autograd-basics tests pass on the Python twins."""
    env = dict(os.environ, EMBER_PURE_PYTHON="1")
    probe = ("import ember, ember._accel as a, ember.core.tensor as T, "
             "ember.kernels.cpu.binary as B; "
             "assert a.speedups is None and T.from_array is T.py_from_array; "
             "assert T.make_view is T.py_make_view; "
             "assert type(B.mul).__name__ == 'function'; "
             "import ember.autograd.graph as G, ember.kernels.cpu.linalg as L; "
             "assert G.save_output is G.py_save_output and L._c_bias_gemm is None; "
             "print('pure')")
    out = subprocess.run([sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True,
                         text=True, timeout=300, check=False)
    assert out.returncode == 0 and "pure" in out.stdout, out.stderr
    tests = ["tests/tensor/test_tensor_core.py", "tests/tensor/test_elision.py",
             "tests/tensor/test_speedups_kernels.py", "tests/autograd/test_speedups_record.py",
             "tests/tensor/test_speedups.py::test_inference_flag_follows_inference_mode"]
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-x", *tests], env=env, cwd=ROOT, capture_output=True, text=True,
                         timeout=600, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


def test_inference_flag_is_per_thread():
    """A thread inside inference_mode does not make another thread's results inference
    tensors (the C flag is a C thread-local, as the Python one is thread-local)."""
    import threading
    entered, done = threading.Event(), threading.Event()
    seen = {}

    def worker():
        with ember.inference_mode():
            entered.set()
            done.wait(10)
            seen["worker"] = (ember.ones(2) * 2).is_inference()

    th = threading.Thread(target=worker)
    th.start()
    entered.wait(10)
    seen["main"] = (ember.ones(2) * 2).is_inference()
    done.set()
    th.join(10)
    assert seen == {"worker": True, "main": False}


@needs_c
def test_binary_keys_matches_python():
    """The dunders' keyset (operands held here: no temporaries) from C and from Python."""
    from ember.core import elision
    from ember.dispatch import keys as K
    x, c = ember.ones(3), ember.ones(2, dtype=ember.complex64)
    p = ember.nn.Parameter(ember.ones(3))
    for self_ in (x, c, p):
        for other in (x, c, p, 2.0, 3, True, 1j, "a", None, np.float32(2)):
            for inc, keep in ((0, K.FULL), (K.PYTHON_BIT, K.FULL), (0, K.FULL & ~K.AUTOGRAD_BIT)):
                assert speedups.binary_keys(self_, other, inc, keep) == \
                    elision.py_binary_keys(self_, other, inc, keep), (self_, other)
