/* ember._speedups: what its source files share (the module is ember/_speedups.c). */
#ifndef EMBER_SPEEDUPS_H
#define EMBER_SPEEDUPS_H

#include <Python.h>

/* _speedups_gemm.c */
PyObject *speedups_setup_blas(PyObject *mod, PyObject *args);
PyObject *speedups_bias_gemm(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

#endif
