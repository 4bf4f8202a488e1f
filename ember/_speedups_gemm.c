/* ember._speedups, part 2: a Linear's forward, `bias + a @ b`, as one BLAS gemm call.

   bias_gemm(bias, a, b) -> ndarray or None. The Python twin is kernels/cpu/linalg.py's
   _bias_gemm / _gemm_into (a fresh C-contiguous result filled with the bias, then gemm with
   beta=1 on the transposes). This does the same with the same BLAS routine (scipy's, through
   the function pointers scipy.linalg.cython_blas exports), so the bits are the same; it saves
   the Python checks, f2py's argument parsing and the NumPy broadcast assignment (~2 us of a
   64x64x128 Linear's 20).

   It serves: a, b 2-D float32 or float64 arrays of one dtype, each C- or F-contiguous, not
   overlapping in memory, with 0 < k <= 256 and at least two rows and columns in the result;
   a bias of the same dtype that is contiguous and of shape (p,), (1, p) or (n, p). Every
   other call returns None and the Python path runs. setup_blas(sgemm, dgemm, empty, float32,
   float64) hands over scipy's capsules and NumPy's empty and dtypes once, at import. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "_speedups.h"

typedef void (*gemm_fn)(char *transa, char *transb, int *m, int *n, int *k, void *alpha,
                        void *a, int *lda, void *b, int *ldb, void *beta, void *c, int *ldc);

static gemm_fn sgemm, dgemm;
static PyObject *np_empty, *np_float32, *np_float64;

#define GEMM_MAX_K 256

static void *
capsule_pointer(PyObject *capsule)
{
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_SetString(PyExc_TypeError, "setup_blas: expected scipy.linalg.cython_blas capsules");
        return NULL;
    }
    return PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule));
}

PyObject *
speedups_setup_blas(PyObject *mod, PyObject *args)
{
    PyObject *s, *d, *empty, *f32, *f64;
    if (!PyArg_ParseTuple(args, "OOOOO:setup_blas", &s, &d, &empty, &f32, &f64))
        return NULL;
    void *ps = capsule_pointer(s), *pd = ps == NULL ? NULL : capsule_pointer(d);
    if (pd == NULL)
        return NULL;
    sgemm = (gemm_fn)ps;
    dgemm = (gemm_fn)pd;
    Py_INCREF(empty);
    Py_XSETREF(np_empty, empty);
    Py_INCREF(f32);
    Py_XSETREF(np_float32, f32);
    Py_INCREF(f64);
    Py_XSETREF(np_float64, f64);
    Py_RETURN_NONE;
}

/* NumPy's contiguity flags for a 2-D buffer (a dim of size 1 may have any stride). */
static int
c_contiguous(const Py_buffer *v)
{
    return (v->shape[1] == 1 || v->strides[1] == v->itemsize) &&
           (v->shape[0] == 1 || v->strides[0] == v->shape[1] * v->itemsize);
}

static int
f_contiguous(const Py_buffer *v)
{
    return (v->shape[0] == 1 || v->strides[0] == v->itemsize) &&
           (v->shape[1] == 1 || v->strides[1] == v->shape[0] * v->itemsize);
}

/* whether two buffers' byte ranges meet (np.may_share_memory's bound test) */
static int
overlap(const Py_buffer *x, const Py_buffer *y)
{
    char *x0 = x->buf, *y0 = y->buf;
    return x0 < y0 + y->len && y0 < x0 + x->len;
}

/* The operand as gemm takes it: `v` holds the matrix M (rows x cols) of the row-major
   product; gemm is column-major, so a C-contiguous M is its transpose without copying
   ('N', leading dim cols) and an F-contiguous M is M itself ('T', leading dim rows). */
static int
operand(const Py_buffer *v, char *trans, int *ld)
{
    if (c_contiguous(v)) {
        *trans = 'N';
        *ld = (int)v->shape[1];
    }
    else if (f_contiguous(v)) {
        *trans = 'T';
        *ld = (int)v->shape[0];
    }
    else
        return 0;
    if (*ld < 1)
        *ld = 1;
    return 1;
}

/* the bias copied into each row of the C-contiguous (n, p) result; 0 when its shape or layout
   is not one this serves */
static int
fill_bias(char *out, const Py_buffer *s, Py_ssize_t n, Py_ssize_t p)
{
    Py_ssize_t row = p * s->itemsize;
    if (s->ndim == 1 || (s->ndim == 2 && s->shape[0] == 1)) {
        const Py_ssize_t last = s->ndim - 1;
        if (s->shape[last] != p || (p > 1 && s->strides[last] != s->itemsize))
            return 0;
        for (Py_ssize_t i = 0; i < n; i++)
            memcpy(out + i * row, s->buf, row);
        return 1;
    }
    if (s->ndim == 2 && s->shape[0] == n && s->shape[1] == p && c_contiguous(s)) {
        memcpy(out, s->buf, n * row);
        return 1;
    }
    return 0;
}

static PyObject *
gemm_result(Py_buffer *s, Py_buffer *a, Py_buffer *b)
{
    char kind = buffer_float_kind(a);
    if (kind == 0 || buffer_float_kind(b) != kind || buffer_float_kind(s) != kind ||
        a->ndim != 2 || b->ndim != 2 || a->shape[1] != b->shape[0])
        Py_RETURN_NONE;
    Py_ssize_t n = a->shape[0], k = a->shape[1], p = b->shape[1];
    char ta, tb;
    int lda, ldb;
    if (!(0 < k && k <= GEMM_MAX_K) || n < 2 || p < 2 || n > INT_MAX || p > INT_MAX ||
        overlap(a, b) || !operand(b, &ta, &lda) || !operand(a, &tb, &ldb))
        Py_RETURN_NONE;
    PyObject *out = PyObject_CallFunction(np_empty, "((nn)O)", n, p,
                                          kind == 'f' ? np_float32 : np_float64);
    if (out == NULL)
        return NULL;
    Py_buffer o;
    if (PyObject_GetBuffer(out, &o, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    if (!fill_bias(o.buf, s, n, p)) {
        PyBuffer_Release(&o);
        Py_DECREF(out);
        Py_RETURN_NONE;
    }
    /* out.T (p x n, column-major, ldc p) = b.T @ a.T */
    int m_ = (int)p, n_ = (int)n, k_ = (int)k, ldc = (int)p;
    float f1 = 1.0f;
    double d1 = 1.0;
    void *one = kind == 'f' ? (void *)&f1 : (void *)&d1;
    gemm_fn gemm = kind == 'f' ? sgemm : dgemm;
    Py_BEGIN_ALLOW_THREADS
    gemm(&ta, &tb, &m_, &n_, &k_, one, b->buf, &lda, a->buf, &ldb, one, o.buf, &ldc);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&o);
    return out;
}

PyObject *
speedups_bias_gemm(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "bias_gemm(bias, a, b)");
        return NULL;
    }
    if (sgemm == NULL)
        Py_RETURN_NONE;
    Py_buffer v[3];
    int got = 0;
    PyObject *result = NULL;
    for (; got < 3; got++)
        if (args[got] == Py_None || PyObject_GetBuffer(args[got], &v[got], PyBUF_RECORDS_RO) < 0)
            break;
    if (got == 3)
        result = gemm_result(&v[0], &v[1], &v[2]);
    else {      /* None, or no buffer: not an array this serves */
        PyErr_Clear();
        result = Py_NewRef(Py_None);
    }
    while (got-- > 0)
        PyBuffer_Release(&v[got]);
    return result;
}
