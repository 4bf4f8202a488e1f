/* ember._speedups, part 4: an optimizer's in-place update `z += y * x` as one fused
   multiply-add per element.

   fma_update(x, y, z) -> bool. The twin is kernels/cpu/_fma_loop.py's fma_inplace (numba's
   llvm.fma loop): both round x * y + z once (IEEE fma), so the bits are the same. It serves
   x and z C-contiguous float32 or float64 arrays of one shape and dtype, z writable and not
   overlapping x unless it is x, y a float or a NumPy float scalar (converted to the arrays'
   dtype as fma_inplace does); True when done. Everything else returns False and
   the numba loop runs: so does a processor without FMA instructions, where a C fma would be
   a slow library call. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#include "_speedups.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define FMA_TARGET __attribute__((target("fma")))
static int
have_fma(void)
{
    return __builtin_cpu_supports("fma");
}
#elif defined(__aarch64__)
#define FMA_TARGET
static int
have_fma(void)
{
    return 1;       /* part of the base instruction set */
}
#else
#define FMA_TARGET
static int
have_fma(void)
{
    return 0;
}
#endif

FMA_TARGET static void
fma_f32(const float *x, float y, float *z, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        z[i] = fmaf(x[i], y, z[i]);
}

FMA_TARGET static void
fma_f64(const double *x, double y, double *z, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        z[i] = fma(x[i], y, z[i]);
}

static int
same_shape(const Py_buffer *u, const Py_buffer *v)
{
    if (u->ndim != v->ndim)
        return 0;
    for (int i = 0; i < u->ndim; i++)
        if (u->shape[i] != v->shape[i])
            return 0;
    return 1;
}

PyObject *
speedups_fma_update(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    static int fma_ok = -1;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "fma_update(x, y, z)");
        return NULL;
    }
    if (fma_ok < 0)
        fma_ok = have_fma();
    if (!fma_ok || PyLong_Check(args[1]))
        Py_RETURN_FALSE;
    double y = PyFloat_AsDouble(args[1]);
    if (y == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    Py_buffer x, z;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (PyObject_GetBuffer(args[2], &z, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyErr_Clear();
        PyBuffer_Release(&x);
        Py_RETURN_FALSE;
    }
    char kind = buffer_float_kind(&x);
    char *x0 = x.buf, *z0 = z.buf;
    int served = kind != 0 && buffer_float_kind(&z) == kind && same_shape(&x, &z) &&
                 (x0 == z0 || x0 + x.len <= z0 || z0 + z.len <= x0);
    if (served) {
        Py_ssize_t n = z.len / z.itemsize;
        Py_BEGIN_ALLOW_THREADS
        if (kind == 'f')
            fma_f32(x.buf, (float)y, z.buf, n);
        else
            fma_f64(x.buf, y, z.buf, n);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&z);
    return PyBool_FromLong(served);
}
