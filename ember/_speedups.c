/* ember._speedups: the few hot-path helpers that pay to write in C.

   Optional: ember runs the same pure-Python code when this module is not built (or with
   EMBER_PURE_PYTHON=1); every piece here has a Python twin, and
   tests/tensor/test_speedups.py compares the two.

   - from_array(arr, dt=None, contig=False): wraps a NumPy array a CPU kernel produced as a
     fresh Tensor (twin: ember.core.tensor.py_from_array): one allocation, slots written
     directly.
   - set_inference(flag) / inference(): a copy of the thread's inference-mode flag kept in a
     C thread-local, so from_array reads it without a threading.local lookup (written by
     ember.dispatch.tls.set_inference, next to the Python flag).
   - FastBinary: add/sub/mul's common case (twin: the Python kernel of
     kernels/cpu/_pointwise.py's _binary, which it calls for every other case).
   - binary_keys(self, other, include, keep): the arithmetic dunders' keyset and their test
     for a large temporary operand (twin: ember.core.elision.py_binary_keys).
   - bias_gemm(bias, a, b), in _speedups_gemm.c: a Linear's `bias + a @ b` as one BLAS call
     (twin: kernels/cpu/linalg.py's _bias_gemm).
   - gradient_edge, new_node, save, save_output, set_history_one, in _speedups_record.c: the helpers every
     recorded op calls (twins: ember/autograd/graph.py's py_* functions).
   - fma_update(x, y, z), in _speedups_fma.c: an optimizer's `z += y * x` with one fused
     multiply-add per element (twin: kernels/cpu/_fma_loop.py's fma_inplace).
   - make_view(base, shape, stride, offset, dt=None, arr=None): a view over base's storage
     when the kernel has the view's NumPy array (twin: ember.core.tensor.py_make_view).

   setup(...) hands over the Tensor class and the constants once, at import.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>

#include "_speedups.h"

PyTypeObject *tensor_type = NULL;
static PyObject *ndarray_type, *asarray, *np_to_dtype, *cpu_device, *zero, *complex_dtypes;
/* a fresh CPU tensor's keyset: [inference][complex] */
static PyObject *keysets[2][2];

/* byte offsets of Tensor's slots */
Py_ssize_t off_np, off_contig, off_shape, off_stride, off_offset, off_dtype, off_device,
    off_storage, off_ks, off_base, off_ag;

static _Thread_local int inference_flag = 0;

int
slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *out)
{
    PyObject *descr = PyDict_GetItemString(type->tp_dict, name);  /* borrowed */
    if (descr == NULL || Py_TYPE(descr) != &PyMemberDescr_Type) {
        PyErr_Format(PyExc_TypeError, "ember._speedups: %s has no slot %s", type->tp_name, name);
        return -1;
    }
    PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
    if (m->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "ember._speedups: slot %s is not an object slot", name);
        return -1;
    }
    *out = m->offset;
    return 0;
}

static PyObject *
setup(PyObject *self, PyObject *args)
{
    PyTypeObject *type;
    PyObject *ndarray, *asarray_fn, *by_np, *cpu, *complexes, *ks_cpu, *ks_inference,
        *complex_bit;
    if (!PyArg_ParseTuple(args, "O!OOO!OO!OOO", &PyType_Type, &type, &ndarray, &asarray_fn,
                          &PyDict_Type, &by_np, &cpu, &PyTuple_Type, &complexes, &ks_cpu,
                          &ks_inference, &complex_bit))
        return NULL;
    if (slot_offset(type, "_np", &off_np) || slot_offset(type, "_contig", &off_contig) ||
        slot_offset(type, "_shape", &off_shape) || slot_offset(type, "_stride", &off_stride) ||
        slot_offset(type, "_offset", &off_offset) || slot_offset(type, "_dtype", &off_dtype) ||
        slot_offset(type, "_device", &off_device) ||
        slot_offset(type, "_storage", &off_storage) || slot_offset(type, "_ks", &off_ks) ||
        slot_offset(type, "_base", &off_base) || slot_offset(type, "_ag", &off_ag))
        return NULL;
    PyObject *ks[2][2];
    ks[0][0] = ks_cpu;
    ks[1][0] = ks_inference;
    ks[0][1] = PyNumber_Or(ks_cpu, complex_bit);
    ks[1][1] = PyNumber_Or(ks_inference, complex_bit);
    if (ks[0][1] == NULL || ks[1][1] == NULL)
        return NULL;
    Py_INCREF(ks_cpu);
    Py_INCREF(ks_inference);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            Py_XSETREF(keysets[i][j], ks[i][j]);
        }
    Py_INCREF(type);
    Py_XSETREF(tensor_type, type);
    Py_INCREF(ndarray);
    Py_XSETREF(ndarray_type, ndarray);
    Py_INCREF(asarray_fn);
    Py_XSETREF(asarray, asarray_fn);
    Py_INCREF(by_np);
    Py_XSETREF(np_to_dtype, by_np);
    Py_INCREF(cpu);
    Py_XSETREF(cpu_device, cpu);
    Py_INCREF(complexes);
    Py_XSETREF(complex_dtypes, complexes);
    if (zero == NULL)
        zero = PyLong_FromLong(0);
    Py_RETURN_NONE;
}

static inline void
put(PyObject *t, Py_ssize_t off, PyObject *v)
{
    Py_INCREF(v);
    SLOT(t, off) = v;   /* a fresh object: the slot is NULL */
}

/* A fresh CPU Tensor over `arr` (an ndarray) of ember dtype `dt`; steals both references
   (and releases them on failure). */
static PyObject *
wrap(PyObject *arr, PyObject *dt, int contig)
{
    PyObject *shape = PyObject_GetAttrString(arr, "shape");
    if (shape == NULL)
        goto fail;
    PyObject *t = tensor_type->tp_alloc(tensor_type, 0);
    if (t == NULL) {
        Py_DECREF(shape);
        goto fail;
    }
    int is_complex = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(complex_dtypes); i++)
        if (PyTuple_GET_ITEM(complex_dtypes, i) == dt)
            is_complex = 1;
    SLOT(t, off_np) = arr;                  /* the references move in */
    SLOT(t, off_dtype) = dt;
    SLOT(t, off_shape) = shape;
    put(t, off_contig, contig ? arr : Py_None);
    put(t, off_stride, Py_None);
    put(t, off_offset, zero);
    put(t, off_device, cpu_device);
    put(t, off_storage, Py_None);
    put(t, off_ks, keysets[inference_flag][is_complex]);
    put(t, off_base, Py_None);
    put(t, off_ag, Py_None);
    return t;
fail:
    Py_DECREF(arr);
    Py_DECREF(dt);
    return NULL;
}

static PyObject *
from_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "ember._speedups.setup was not called");
        return NULL;
    }
    /* the positional arguments, then `dt=` and `contig=` given by name */
    PyObject *given[3] = {NULL, Py_None, Py_False};
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (nargs > 3 || nargs + nkw > 3 || nargs + nkw < 1)
        goto usage;
    for (Py_ssize_t i = 0; i < nargs; i++)
        given[i] = args[i];
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        int at = PyUnicode_CompareWithASCIIString(name, "arr") == 0 ? 0
               : PyUnicode_CompareWithASCIIString(name, "dt") == 0 ? 1
               : PyUnicode_CompareWithASCIIString(name, "contig") == 0 ? 2 : -1;
        if (at < nargs)     /* unknown, or given twice */
            goto usage;
        given[at] = args[nargs + i];
    }
    if (given[0] == NULL)
        goto usage;
    PyObject *arr = given[0], *dt = given[1];
    int contig = PyObject_IsTrue(given[2]);
    if (contig < 0)
        return NULL;
    Py_INCREF(arr);
    if ((PyObject *)Py_TYPE(arr) != ndarray_type) {
        Py_SETREF(arr, PyObject_CallOneArg(asarray, arr));
        if (arr == NULL)
            return NULL;
    }
    Py_INCREF(dt);
    if (dt == Py_None) {
        PyObject *npdt = PyObject_GetAttrString(arr, "dtype");
        if (npdt == NULL)
            goto fail;
        Py_SETREF(dt, PyObject_GetItem(np_to_dtype, npdt));
        Py_DECREF(npdt);
        if (dt == NULL)
            goto fail;
    }
    return wrap(arr, dt, contig);
fail:
    Py_DECREF(arr);
    Py_XDECREF(dt);
    return NULL;
usage:
    PyErr_SetString(PyExc_TypeError,
                    "from_array(arr, dt=None, contig=False): bad or repeated arguments");
    return NULL;
}

/* --- FastBinary: a binary pointwise kernel's common case in C ------------------------------

   FastBinary(ufunc, kernel, dtypes) is called like `kernel(self, other[, alpha])`. When both
   operands are plain CPU Tensors whose arrays a kernel marked C-contiguous (`_contig is _np`),
   of one dtype found in `dtypes`, and alpha is absent or 1, the result is `ufunc(a, b)`
   wrapped as from_array(..., dt, True) would: what the Python kernel's first fast path
   computes (kernels/cpu/_pointwise.py, _binary). So is `other` a Python float when self's
   dtype is in `wide` (float64, complex128) or in `narrow` (float32, complex64) and the number
   fits in float32, or a Python int within int64 when self's dtype is one of those
   (_scalar_fast: NumPy 2 then computes in self's dtype, as torch).
   Every other call, and a ValueError from the ufunc (shapes that do not broadcast: the
   kernel raises torch's error), goes to `kernel`. */
typedef struct {
    PyObject_HEAD
    PyObject *ufunc, *kernel, *dtypes, *wide, *narrow, *dict;
    vectorcallfunc vectorcall;
} FastBinary;

#define FLOAT32_MAX 3.4028234663852886e38

static PyObject *one;

static int
has_dtype(PyObject *dtypes, PyObject *dt)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dtypes); i++)
        if (PyTuple_GET_ITEM(dtypes, i) == dt)
            return 1;
    return 0;
}

/* --- make_view: a view of a tensor over its storage ---------------------------------------

   make_view(base, shape, stride, offset, dt=None, arr=None) does what its Python twin
   (ember.core.tensor.py_make_view) does when the kernel passes the view's NumPy array `arr`
   and base is a CPU tensor outside inference mode: a plain Tensor sharing base's storage
   (made first when base has none yet), keyset base's without history (the Complex key
   following dt), _base the root of base's views. Every other call goes to the twin. */
static PyObject *py_make_view;
static long view_no_history, view_complex_bit, view_adinplace_bit;
static const char *const make_view_names[6] = {"base", "shape", "stride", "offset", "dt", "arr"};

static PyObject *
as_tuple(PyObject *seq)
{
    return PyTuple_CheckExact(seq) ? Py_NewRef(seq) : PySequence_Tuple(seq);
}

static PyObject *
make_view(PyObject *mod, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *given[6] = {NULL, NULL, NULL, NULL, Py_None, Py_None};
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (py_make_view == NULL || nargs > 6)
        goto twin;
    for (Py_ssize_t i = 0; i < nargs; i++)
        given[i] = args[i];
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        int at = -1;
        for (int j = nargs; j < 6 && at < 0; j++)
            if (PyUnicode_CompareWithASCIIString(name, make_view_names[j]) == 0)
                at = j;
        if (at < 0)
            goto twin;          /* unknown or repeated: the twin raises */
        given[at] = args[nargs + i];
    }
    PyObject *base = given[0], *arr = given[5], *dt = given[4];
    if (given[3] == NULL || arr == Py_None || !PyObject_TypeCheck(base, tensor_type))
        goto twin;
    PyObject *ks_obj = SLOT(base, off_ks), *root = SLOT(base, off_base);
    PyObject *st = SLOT(base, off_storage);
    if (ks_obj == NULL || root == NULL || st == NULL)
        goto twin;
    long ks = PyLong_AsLong(ks_obj);
    if (ks == -1 && PyErr_Occurred())
        return NULL;
    if (inference_flag && (ks & view_adinplace_bit))
        goto twin;              /* (autograd marks such views) */
    if (dt == Py_None)
        dt = SLOT(base, off_dtype);
    if (dt == NULL)
        goto twin;
    if (st == Py_None) {        /* a kernel's result: its storage is made on first use */
        PyObject *a = SLOT(base, off_np);
        if (a == NULL || a == Py_None)
            goto twin;
        st = speedups_storage_of_array(a);
        if (st == NULL) {
            if (PyErr_Occurred())
                return NULL;
            goto twin;
        }
        Py_SETREF(SLOT(base, off_storage), st);
    }
    PyObject *device = speedups_storage_device(st);
    if (device == NULL)
        goto twin;
    ks &= view_no_history;
    ks = has_dtype(complex_dtypes, dt) ? ks | view_complex_bit : ks & ~view_complex_bit;
    PyObject *shape = as_tuple(given[1]);
    if (shape == NULL)
        return NULL;
    PyObject *stride = as_tuple(given[2]);
    if (stride == NULL) {
        Py_DECREF(shape);
        return NULL;
    }
    PyObject *new_ks = PyLong_FromLong(ks);
    PyObject *v = new_ks == NULL ? NULL : tensor_type->tp_alloc(tensor_type, 0);
    if (v == NULL) {
        Py_DECREF(shape);
        Py_DECREF(stride);
        Py_XDECREF(new_ks);
        return NULL;
    }
    SLOT(v, off_shape) = shape;             /* the references move in */
    SLOT(v, off_stride) = stride;
    SLOT(v, off_ks) = new_ks;
    put(v, off_np, arr);
    put(v, off_contig, Py_None);
    put(v, off_offset, given[3]);
    put(v, off_dtype, dt);
    put(v, off_device, device);
    put(v, off_storage, st);
    put(v, off_base, root == Py_None ? base : root);
    put(v, off_ag, Py_None);
    return v;
twin:
    return PyObject_Vectorcall(py_make_view, args, nargsf, kwnames);
}

static PyObject *
setup_views(PyObject *mod, PyObject *args)
{
    PyObject *twin;
    if (!PyArg_ParseTuple(args, "Olll:setup_views", &twin, &view_no_history, &view_complex_bit,
                          &view_adinplace_bit))
        return NULL;
    Py_INCREF(twin);
    Py_XSETREF(py_make_view, twin);
    Py_RETURN_NONE;
}

/* the operand's array when the fast path may use it, else NULL */
static inline PyObject *
contiguous_array(PyObject *t)
{
    if (Py_TYPE(t) != tensor_type)
        return NULL;
    PyObject *a = SLOT(t, off_np);
    return a != NULL && a != Py_None && a == SLOT(t, off_contig) ? a : NULL;
}

static PyObject *
fast_binary_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FastBinary *k = (FastBinary *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames == NULL && (nargs == 2 || (nargs == 3 && args[2] == one))) {
        PyObject *a = contiguous_array(args[0]), *b = NULL, *dt = NULL;
        if (a != NULL && PyFloat_CheckExact(args[1])) {
            dt = SLOT(args[0], off_dtype);
            double v = PyFloat_AS_DOUBLE(args[1]);
            if (has_dtype(k->wide, dt) || (has_dtype(k->narrow, dt) && fabs(v) <= FLOAT32_MAX))
                b = args[1];
        }
        else if (a != NULL && PyLong_CheckExact(args[1])) {   /* (bool is not exact) */
            int overflow;
            PyLong_AsLongLongAndOverflow(args[1], &overflow);
            dt = SLOT(args[0], off_dtype);
            if (!overflow && (has_dtype(k->wide, dt) || has_dtype(k->narrow, dt)))
                b = args[1];
        }
        else if (a != NULL && (b = contiguous_array(args[1])) != NULL) {
            dt = SLOT(args[0], off_dtype);
            if (dt != SLOT(args[1], off_dtype) || !has_dtype(k->dtypes, dt))
                b = NULL;
        }
        if (b != NULL) {
            PyObject *ab[2] = {a, b};
            PyObject *r = PyObject_Vectorcall(k->ufunc, ab, 2, NULL);
            if (r != NULL) {
                if ((PyObject *)Py_TYPE(r) != ndarray_type) {   /* 0-d operands: a scalar */
                    Py_SETREF(r, PyObject_CallOneArg(asarray, r));
                    if (r == NULL)
                        return NULL;
                }
                Py_INCREF(dt);
                return wrap(r, dt, 1);
            }
            if (!PyErr_ExceptionMatches(PyExc_ValueError))
                return NULL;
            PyErr_Clear();
        }
    }
    return PyObject_Vectorcall(k->kernel, args, nargsf, kwnames);
}

static PyObject *
fast_binary_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *ufunc, *kernel, *dtypes, *wide, *narrow;
    if (!PyArg_ParseTuple(args, "OOO!O!O!:FastBinary", &ufunc, &kernel, &PyTuple_Type, &dtypes,
                          &PyTuple_Type, &wide, &PyTuple_Type, &narrow))
        return NULL;
    if (tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "ember._speedups.setup was not called");
        return NULL;
    }
    FastBinary *k = (FastBinary *)type->tp_alloc(type, 0);
    if (k == NULL)
        return NULL;
    Py_INCREF(ufunc);
    k->ufunc = ufunc;
    Py_INCREF(kernel);
    k->kernel = kernel;
    Py_INCREF(dtypes);
    k->dtypes = dtypes;
    Py_INCREF(wide);
    k->wide = wide;
    Py_INCREF(narrow);
    k->narrow = narrow;
    k->vectorcall = fast_binary_call;
    return (PyObject *)k;
}

static int
fast_binary_traverse(FastBinary *k, visitproc visit, void *arg)
{
    Py_VISIT(k->ufunc);
    Py_VISIT(k->kernel);
    Py_VISIT(k->dtypes);
    Py_VISIT(k->wide);
    Py_VISIT(k->narrow);
    Py_VISIT(k->dict);
    return 0;
}

static int
fast_binary_clear(FastBinary *k)
{
    Py_CLEAR(k->ufunc);
    Py_CLEAR(k->kernel);
    Py_CLEAR(k->dtypes);
    Py_CLEAR(k->wide);
    Py_CLEAR(k->narrow);
    Py_CLEAR(k->dict);
    return 0;
}

static void
fast_binary_dealloc(FastBinary *k)
{
    PyObject_GC_UnTrack(k);
    fast_binary_clear(k);
    Py_TYPE(k)->tp_free((PyObject *)k);
}

static PyMemberDef fast_binary_members[] = {
    {"ufunc", T_OBJECT, offsetof(FastBinary, ufunc), READONLY, "the NumPy ufunc"},
    {"kernel", T_OBJECT, offsetof(FastBinary, kernel), READONLY, "the Python kernel"},
    {"__wrapped__", T_OBJECT, offsetof(FastBinary, kernel), READONLY, "the Python kernel"},
    {"dtypes", T_OBJECT, offsetof(FastBinary, dtypes), READONLY, "dtypes of two tensors"},
    {"wide", T_OBJECT, offsetof(FastBinary, wide), READONLY, "dtypes with any float other"},
    {"narrow", T_OBJECT, offsetof(FastBinary, narrow), READONLY,
     "dtypes with a float other within float32's range"},
    {"__dictoffset__", T_PYSSIZET, offsetof(FastBinary, dict), READONLY},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(FastBinary, vectorcall), READONLY},
    {NULL},
};

static PyTypeObject FastBinaryType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ember._speedups.FastBinary",
    .tp_basicsize = sizeof(FastBinary),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "FastBinary(ufunc, kernel, dtypes, wide, narrow): kernel with its common cases "
              "in C.",
    .tp_new = fast_binary_new,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(FastBinary, vectorcall),
    .tp_dictoffset = offsetof(FastBinary, dict),
    .tp_traverse = (traverseproc)fast_binary_traverse,
    .tp_clear = (inquiry)fast_binary_clear,
    .tp_dealloc = (destructor)fast_binary_dealloc,
    .tp_members = fast_binary_members,
};

/* --- binary_keys: the dispatch keyset of the generated arithmetic dunders -----------------

   binary_keys(self, other, include, keep) -> int: `(self._ks | other's keys | include) & keep`,
   the keyset the dunder dispatches on, when other is a Tensor or a float or int; -4 when other
   is anything else (the dunder computes it, with its errors); and first, when self (1) or
   other (2) is a large temporary, minus those bits (-1, -2, -3): an operand with exactly
   `temp_refs` references and an array of at least `min_bytes`, a candidate for writing the
   result into (ember/core/elision.py, whose `reusable` decides). A C function sees the
   reference counts getrefcount sees: the caller's stack slot, the dunder's parameter, this
   call's argument. */
static Py_ssize_t temp_refs = 0, min_bytes = 0;

static int
large_array(PyObject *t)
{
    PyObject *a = SLOT(t, off_np);
    if (a == NULL || a == Py_None)
        return 0;
    PyObject *n = PyObject_GetAttrString(a, "nbytes");
    if (n == NULL)
        return -1;
    Py_ssize_t nbytes = PyLong_AsSsize_t(n);
    Py_DECREF(n);
    if (nbytes == -1 && PyErr_Occurred())
        return -1;
    return nbytes >= min_bytes;
}

static PyObject *
binary_keys(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "binary_keys(self, other, include, keep)");
        return NULL;
    }
    PyObject *self = args[0], *other = args[1];
    int self_is_tensor = PyObject_TypeCheck(self, tensor_type);
    long bits = 0;
    if (temp_refs && Py_REFCNT(self) == temp_refs && self_is_tensor) {
        int large = large_array(self);
        if (large < 0)
            return NULL;
        bits |= large;
    }
    if (temp_refs && Py_REFCNT(other) == temp_refs && Py_TYPE(other) == tensor_type) {
        int large = large_array(other);
        if (large < 0)
            return NULL;
        bits |= large << 1;
    }
    if (bits)
        return PyLong_FromLong(-bits);
    long other_keys = 0;    /* (a real number adds no key: ks_number) */
    if (Py_TYPE(other) == tensor_type) {
        if (SLOT(other, off_ks) == NULL)
            return PyLong_FromLong(-4);
        other_keys = PyLong_AsLong(SLOT(other, off_ks));
    }
    else if (!PyFloat_CheckExact(other) && !PyLong_CheckExact(other))
        return PyLong_FromLong(-4);
    if (!self_is_tensor || SLOT(self, off_ks) == NULL)
        return PyLong_FromLong(-4);
    long keys = PyLong_AsLong(SLOT(self, off_ks)) | other_keys | PyLong_AsLong(args[2]);
    keys &= PyLong_AsLong(args[3]);
    if (PyErr_Occurred())
        return NULL;
    return PyLong_FromLong(keys);
}

static PyObject *
set_elision(PyObject *mod, PyObject *args)
{
    if (!PyArg_ParseTuple(args, "nn:set_elision", &temp_refs, &min_bytes))
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
set_inference(PyObject *self, PyObject *flag)
{
    int v = PyObject_IsTrue(flag);
    if (v < 0)
        return NULL;
    inference_flag = v;
    Py_RETURN_NONE;
}

static PyObject *
get_inference(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(inference_flag);
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(Tensor, ndarray, asarray, np_to_dtype, cpu, complex_dtypes, ks, ks_inference, "
     "complex_bit): the class and constants from_array uses."},
    {"from_array", (PyCFunction)(void (*)(void))from_array, METH_FASTCALL | METH_KEYWORDS,
     "from_array(arr, dt=None, contig=False) -> Tensor: ember.core.tensor.from_array in C."},
    {"binary_keys", (PyCFunction)(void (*)(void))binary_keys, METH_FASTCALL,
     "binary_keys(self, other, include, keep) -> int: an arithmetic dunder's keyset, or -1/-2/-3 "
     "for large temporary operands, -4 for an other it leaves to Python; see "
     "ember/core/elision.py."},
    {"set_elision", set_elision, METH_VARARGS,
     "set_elision(temp_refs, min_bytes): the thresholds binary_keys uses."},
    {"make_view", (PyCFunction)(void (*)(void))make_view, METH_FASTCALL | METH_KEYWORDS,
     "make_view(base, shape, stride, offset, dt=None, arr=None) -> Tensor: "
     "ember.core.tensor.make_view in C for the common case."},
    {"setup_views", setup_views, METH_VARARGS,
     "setup_views(make_view, no_history_mask, complex_bit, adinplace_bit): the Python twin "
     "make_view calls for every other case, and the keyset bits it uses."},
    {"set_inference", set_inference, METH_O,
     "set_inference(flag): this thread's inference-mode flag, as from_array reads it."},
    {"inference", get_inference, METH_NOARGS, "inference() -> bool: the flag set_inference set."},
    {"setup_blas", speedups_setup_blas, METH_VARARGS,
     "setup_blas(sgemm, dgemm, empty, float32, float64): scipy.linalg.cython_blas's gemm "
     "capsules, numpy.empty and the two dtypes, for bias_gemm."},
    {"setup_recording", speedups_setup_recording, METH_VARARGS,
     "setup_recording(Node, SavedTensor, Storage, AutogradMeta, twins, counter, anomaly, "
     "graph_globals, tls, cpu, autograd_bit, adinplace_bit, no_history_mask, "
     "functionalize_bit): what the recording helpers use."},
    {"gradient_edge", speedups_gradient_edge, METH_O,
     "gradient_edge(t): ember.autograd.graph's gradient_edge in C."},
    {"new_node", (PyCFunction)(void (*)(void))speedups_new_node, METH_FASTCALL,
     "new_node(cls, edges, needs): ember.autograd.graph's new_node in C."},
    {"save", speedups_save, METH_O, "save(t): ember.autograd.graph's save in C."},
    {"save_output", (PyCFunction)(void (*)(void))speedups_save_output, METH_FASTCALL,
     "save_output(t, nr=0): ember.autograd.graph's save_output in C."},
    {"set_history_one", (PyCFunction)(void (*)(void))speedups_set_history_one, METH_FASTCALL,
     "set_history_one(t, node): ember.autograd.graph's set_history_one in C."},
    {"fma_update", (PyCFunction)(void (*)(void))speedups_fma_update, METH_FASTCALL,
     "fma_update(x, y, z) -> bool: z += y * x in place, one fused multiply-add per element, "
     "as kernels/cpu/_fma_loop.py's fma_inplace; False for the cases it leaves to it."},
    {"bias_gemm", (PyCFunction)(void (*)(void))speedups_bias_gemm, METH_FASTCALL,
     "bias_gemm(bias, a, b) -> ndarray or None: bias + a @ b through one gemm, as "
     "kernels/cpu/linalg.py's _bias_gemm; None for the cases it leaves to Python."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "ember._speedups",
    "Optional C versions of ember's hottest helpers (see ember/_speedups.c).", -1, methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    if (PyType_Ready(&FastBinaryType) < 0)
        return NULL;
    one = PyLong_FromLong(1);
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&FastBinaryType);
    if (PyModule_AddObject(m, "FastBinary", (PyObject *)&FastBinaryType) < 0) {
        Py_DECREF(&FastBinaryType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
