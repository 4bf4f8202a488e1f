/* ember._speedups: what its source files share (the module is ember/_speedups.c). */
#ifndef EMBER_SPEEDUPS_H
#define EMBER_SPEEDUPS_H

#include <Python.h>

/* an object slot of an instance, by its byte offset (NULL when unset) */
#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

/* the kind of float a buffer holds: 'f' (float32), 'd' (float64), or 0 for anything else
   (another type, or not in native byte order) */
static inline char
buffer_float_kind(const Py_buffer *v)
{
    const char *f = v->format;
    if (f == NULL || f[0] == '\0' || f[1] != '\0')
        return 0;
    return f[0] == 'f' || f[0] == 'd' ? f[0] : 0;
}

/* _speedups.c: the Tensor class and its slots' offsets (set by setup) */
extern PyTypeObject *tensor_type;
extern Py_ssize_t off_np, off_contig, off_shape, off_stride, off_offset, off_dtype, off_device,
    off_storage, off_ks, off_base, off_ag;
/* the byte offset of the object slot `name` of `type`; -1 with an exception if none */
int slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *out);

/* _speedups_gemm.c */
PyObject *speedups_setup_blas(PyObject *mod, PyObject *args);
PyObject *speedups_bias_gemm(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

/* _speedups_record.c */
PyObject *speedups_setup_recording(PyObject *mod, PyObject *args);
PyObject *speedups_gradient_edge(PyObject *mod, PyObject *t);
PyObject *speedups_new_node(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);
PyObject *speedups_save(PyObject *mod, PyObject *t);
PyObject *speedups_save_output(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);
PyObject *speedups_set_history_one(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);
/* Storage.of_array(arr) (a new reference), and a Storage's device (borrowed); NULL without an
   exception before setup_recording (or, for the device, for an object not a Storage) */
PyObject *speedups_storage_of_array(PyObject *arr);
PyObject *speedups_storage_device(PyObject *st);

/* _speedups_fma.c */
PyObject *speedups_fma_update(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

#endif
