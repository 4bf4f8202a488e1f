/* ember._speedups, part 3: the helpers every recorded op calls (ember/autograd/graph.py).

   gradient_edge(t), new_node(cls, edges, needs), save(t), save_output(t, nr) and
   set_history_one(t, node) do what their Python twins (graph.py's py_gradient_edge, ...) do
   on the common path, and call the twin for everything else: a number or another object for
   a tensor, a view whose base changed in place (its grad_fn is regenerated), a leaf's first
   AccumulateGrad, anomaly mode, saved-tensor hooks, a dispatch mode (it sees the saved
   output's aten.detach), a functional tensor, an inference tensor saved, an integral output.
   So the rare paths and their errors live in one place, in Python.

   setup_recording(...) hands over the classes, the twins and the constants once, at import. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_speedups.h"

static PyTypeObject *node_type, *saved_type;
static PyObject *meta_type;         /* AutogradMeta (instances keep their fields in a dict) */
static PyObject *py_edge, *py_new_node, *py_save, *py_save_output, *py_set_history_one;
static PyObject *tls;               /* ember.dispatch.tls.state: dispatch_modes */
static PyTypeObject *storage_type;  /* Storage, made for a fresh tensor's saved output */
static long no_history_mask, functionalize_bit;
static PyObject *seq;               /* the itertools.count numbering nodes */
static PyObject *anomaly;           /* graph._anomaly: [enabled, check_nan] */
static PyObject *graph_globals;     /* graph.py's globals: _hooks_entered */
static PyObject *empty_tuple, *zero_int;
static long autograd_bit, adinplace_bit;
static Py_ssize_t off_next, off_needs, off_seq, off_extra, off_out_meta;   /* Node's slots */
static Py_ssize_t off_data, off_version, off_output_nr;                   /* SavedTensor's */
static Py_ssize_t off_st_owner, off_st_bytes, off_st_nbytes, off_st_device, off_st_version;

static PyObject *s_attr_version, *s_grad_fn, *s_grad_acc, *s_output_nr, *s_version,
    *s_differentiable, *s_hooks_entered, *s_untyped_storage, *s_dispatch_modes;
static PyObject *minus_one, *cpu;

static int
intern(PyObject **slot, const char *name)
{
    if (*slot == NULL)
        *slot = PyUnicode_InternFromString(name);
    return *slot == NULL ? -1 : 0;
}

static void
keep(PyObject **slot, PyObject *value)
{
    Py_INCREF(value);
    Py_XSETREF(*slot, value);
}

PyObject *
speedups_setup_recording(PyObject *mod, PyObject *args)
{
    PyTypeObject *node, *saved, *storage;
    PyObject *meta, *twins, *counter, *anomaly_list, *globals, *state, *cpu_device;
    if (!PyArg_ParseTuple(args, "O!O!O!OO!OO!O!OOllll:setup_recording", &PyType_Type, &node,
                          &PyType_Type, &saved, &PyType_Type, &storage, &meta, &PyTuple_Type,
                          &twins, &counter, &PyList_Type, &anomaly_list, &PyDict_Type, &globals,
                          &state, &cpu_device, &autograd_bit, &adinplace_bit, &no_history_mask,
                          &functionalize_bit))
        return NULL;
    if (PyTuple_GET_SIZE(twins) != 5) {
        PyErr_SetString(PyExc_TypeError, "setup_recording: five twins expected");
        return NULL;
    }
    if (slot_offset(node, "next_functions", &off_next) || slot_offset(node, "_needs", &off_needs) ||
        slot_offset(node, "_seq", &off_seq) || slot_offset(node, "_extra", &off_extra) ||
        slot_offset(node, "_out_meta", &off_out_meta) || slot_offset(saved, "data", &off_data) ||
        slot_offset(saved, "version", &off_version) ||
        slot_offset(saved, "output_nr", &off_output_nr) ||
        slot_offset(storage, "_owner", &off_st_owner) ||
        slot_offset(storage, "_bytes", &off_st_bytes) ||
        slot_offset(storage, "_nbytes", &off_st_nbytes) ||
        slot_offset(storage, "device", &off_st_device) ||
        slot_offset(storage, "_version", &off_st_version))
        return NULL;
    if (intern(&s_attr_version, "attr_version") || intern(&s_grad_fn, "grad_fn") ||
        intern(&s_grad_acc, "grad_acc") || intern(&s_output_nr, "output_nr") ||
        intern(&s_version, "_version") || intern(&s_differentiable, "differentiable") ||
        intern(&s_hooks_entered, "_hooks_entered") ||
        intern(&s_untyped_storage, "untyped_storage") ||
        intern(&s_dispatch_modes, "dispatch_modes"))
        return NULL;
    if (minus_one == NULL && (minus_one = PyLong_FromLong(-1)) == NULL)
        return NULL;
    if (empty_tuple == NULL && (empty_tuple = PyTuple_New(0)) == NULL)
        return NULL;
    if (zero_int == NULL && (zero_int = PyLong_FromLong(0)) == NULL)
        return NULL;
    keep((PyObject **)&node_type, (PyObject *)node);
    keep((PyObject **)&saved_type, (PyObject *)saved);
    keep(&meta_type, meta);
    keep(&py_edge, PyTuple_GET_ITEM(twins, 0));
    keep(&py_new_node, PyTuple_GET_ITEM(twins, 1));
    keep(&py_save, PyTuple_GET_ITEM(twins, 2));
    keep(&py_save_output, PyTuple_GET_ITEM(twins, 3));
    keep(&py_set_history_one, PyTuple_GET_ITEM(twins, 4));
    keep((PyObject **)&storage_type, (PyObject *)storage);
    keep(&tls, state);
    keep(&cpu, cpu_device);
    keep(&seq, counter);
    keep(&anomaly, anomaly_list);
    keep(&graph_globals, globals);
    Py_RETURN_NONE;
}

/* the keyset of a tensor, or -1 when the slot is unset */
static inline long
keyset(PyObject *t)
{
    PyObject *ks = SLOT(t, off_ks);
    return ks == NULL ? -1 : PyLong_AsLong(ks);
}

/* bool(getattr(o, name)); -1 with an exception */
static int
attr_true(PyObject *o, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL)
        return -1;
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

/* t._storage._version (0 without a storage); NULL with an exception */
static PyObject *
storage_version(PyObject *t)
{
    PyObject *st = SLOT(t, off_storage);
    if (st == NULL || st == Py_None)
        return Py_NewRef(zero_int);
    return PyObject_GetAttr(st, s_version);
}

/* --- gradient_edge ---------------------------------------------------------------------- */
PyObject *
speedups_gradient_edge(PyObject *mod, PyObject *t)
{
    if (!PyObject_TypeCheck(t, tensor_type))
        return PyObject_CallOneArg(py_edge, t);
    long ks = keyset(t);
    if (ks == -1)
        return PyObject_CallOneArg(py_edge, t);
    if (!(ks & autograd_bit))
        Py_RETURN_NONE;
    PyObject *ag = SLOT(t, off_ag);
    if (ag == NULL || ag == Py_None)
        return PyObject_CallOneArg(py_edge, t);
    PyObject *av = PyObject_GetAttr(ag, s_attr_version);
    if (av == NULL)
        return NULL;
    if (av != Py_None) {        /* a view: is its grad_fn still current? */
        PyObject *v = storage_version(t);
        int stale = v == NULL ? -1 : PyObject_RichCompareBool(av, v, Py_NE);
        Py_DECREF(av);
        Py_XDECREF(v);
        if (stale < 0)
            return NULL;
        if (stale)
            return PyObject_CallOneArg(py_edge, t);
    }
    else
        Py_DECREF(av);
    PyObject *fn = PyObject_GetAttr(ag, s_grad_fn);
    if (fn == NULL)
        return NULL;
    if (fn == Py_None) {        /* a leaf: its AccumulateGrad */
        Py_DECREF(fn);
        PyObject *acc = PyObject_GetAttr(ag, s_grad_acc);
        if (acc == NULL || acc == Py_None) {
            Py_XDECREF(acc);
            return acc == NULL ? NULL : PyObject_CallOneArg(py_edge, t);
        }
        return Py_BuildValue("(NO)", acc, zero_int);
    }
    PyObject *nr = PyObject_GetAttr(ag, s_output_nr);
    if (nr == NULL) {
        Py_DECREF(fn);
        return NULL;
    }
    return Py_BuildValue("(NN)", fn, nr);
}

/* --- new_node --------------------------------------------------------------------------- */
static inline void
put_slot(PyObject *o, Py_ssize_t off, PyObject *v)
{
    Py_INCREF(v);
    Py_XSETREF(SLOT(o, off), v);
}

PyObject *
speedups_new_node(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "new_node(cls, edges, needs)");
        return NULL;
    }
    PyObject *cls = args[0];
    int anomaly_on = PyObject_IsTrue(PyList_GET_ITEM(anomaly, 0));
    if (anomaly_on < 0)
        return NULL;
    if (anomaly_on || !PyType_Check(cls) ||
        !PyType_IsSubtype((PyTypeObject *)cls, node_type) ||
        ((PyTypeObject *)cls)->tp_init != PyBaseObject_Type.tp_init)
        return PyObject_Vectorcall(py_new_node, args, nargs, NULL);
    PyTypeObject *tp = (PyTypeObject *)cls;
    PyObject *node = tp->tp_new(tp, empty_tuple, NULL);
    if (node == NULL)
        return NULL;
    PyObject *nr = PyIter_Next(seq);
    if (nr == NULL) {
        Py_DECREF(node);
        return NULL;
    }
    put_slot(node, off_next, args[1]);
    put_slot(node, off_needs, args[2]);
    Py_XSETREF(SLOT(node, off_seq), nr);
    put_slot(node, off_extra, Py_None);
    return node;
}

/* --- save, save_output ------------------------------------------------------------------ */
/* whether a saved_tensors_hooks context is open in any thread (graph._hooks_entered); -1 with
   an exception */
static int
hooks_entered(void)
{
    PyObject *n = PyDict_GetItemWithError(graph_globals, s_hooks_entered);  /* borrowed */
    if (n == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return PyObject_IsTrue(n);
}

/* Storage.of_array(arr) */
static PyObject *
storage_of_array(PyObject *arr)
{
    PyObject *s = storage_type->tp_new(storage_type, empty_tuple, NULL);
    if (s == NULL)
        return NULL;
    put_slot(s, off_st_owner, arr);
    put_slot(s, off_st_bytes, Py_None);
    put_slot(s, off_st_nbytes, minus_one);
    put_slot(s, off_st_device, cpu);
    put_slot(s, off_st_version, zero_int);
    return s;
}
PyObject *
speedups_save(PyObject *mod, PyObject *t)
{
    if (!PyObject_TypeCheck(t, tensor_type))
        return Py_NewRef(t);        /* None, or a number given for a Tensor */
    long ks = keyset(t);
    int hooked = hooks_entered();
    if (hooked < 0)
        return NULL;
    if (ks == -1 || !(ks & adinplace_bit) || hooked)
        return PyObject_CallOneArg(py_save, t);
    PyObject *version = storage_version(t);
    if (version == NULL)
        return NULL;
    PyObject *s = saved_type->tp_new(saved_type, empty_tuple, NULL);
    if (s == NULL) {
        Py_DECREF(version);
        return NULL;
    }
    put_slot(s, off_data, t);
    Py_XSETREF(SLOT(s, off_version), version);
    put_slot(s, off_output_nr, Py_None);
    return s;
}

/* the slots shallow_copy copies */
#define N_LAYOUT 8
static Py_ssize_t *
layout_slots(void)
{
    static Py_ssize_t offs[N_LAYOUT];
    offs[0] = off_storage, offs[1] = off_np, offs[2] = off_contig, offs[3] = off_shape;
    offs[4] = off_stride, offs[5] = off_offset, offs[6] = off_dtype, offs[7] = off_device;
    return offs;
}

/* whether shallow_copy below serves t: a plain Tensor with every slot it reads set, not a
   functional tensor, and an array for its storage when it has none yet */
static int
plain_tensor(PyObject *t, long ks)
{
    if (Py_TYPE(t) != tensor_type || ks == -1 || (ks & functionalize_bit) ||
        SLOT(t, off_base) == NULL || SLOT(t, off_ag) == NULL)
        return 0;
    Py_ssize_t *offs = layout_slots();
    for (int i = 0; i < N_LAYOUT; i++)
        if (SLOT(t, offs[i]) == NULL)
            return 0;
    return SLOT(t, off_storage) != Py_None || SLOT(t, off_np) != Py_None;
}

/* shallow_copy(t) for a plain Tensor (ember/core/tensor.py): a new tensor over the same
   storage and layout, without history; the storage is made first when t has none yet, so
   the two share the version counter */
static PyObject *
shallow_copy(PyObject *t, long ks)
{
    if (SLOT(t, off_storage) == Py_None) {
        PyObject *st = storage_of_array(SLOT(t, off_np));
        if (st == NULL)
            return NULL;
        Py_SETREF(SLOT(t, off_storage), st);
    }
    PyObject *new_ks = PyLong_FromLong(ks & no_history_mask);
    if (new_ks == NULL)
        return NULL;
    PyObject *u = tensor_type->tp_alloc(tensor_type, 0);
    if (u == NULL) {
        Py_DECREF(new_ks);
        return NULL;
    }
    Py_ssize_t *offs = layout_slots();
    for (int i = 0; i < N_LAYOUT; i++)
        put_slot(u, offs[i], SLOT(t, offs[i]));
    SLOT(u, off_ks) = new_ks;
    put_slot(u, off_base, Py_None);
    put_slot(u, off_ag, Py_None);
    return u;
}

PyObject *
speedups_save_output(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "save_output(t, nr=0)");
        return NULL;
    }
    PyObject *t = args[0], *nr = nargs == 2 ? args[1] : zero_int;
    int hooked = hooks_entered();
    if (hooked < 0)
        return NULL;
    int moded = attr_true(tls, s_dispatch_modes);
    if (moded < 0)
        return NULL;
    long ks = Py_TYPE(t) == tensor_type ? keyset(t) : -1;
    if (hooked || moded || !plain_tensor(t, ks))
        return PyObject_Vectorcall(py_save_output, args, nargs, NULL);
    PyObject *u = shallow_copy(t, ks);
    if (u == NULL)
        return NULL;
    PyObject *version = storage_version(u);
    if (version == NULL) {
        Py_DECREF(u);
        return NULL;
    }
    PyObject *s = saved_type->tp_new(saved_type, empty_tuple, NULL);
    if (s == NULL) {
        Py_DECREF(u);
        Py_DECREF(version);
        return NULL;
    }
    Py_XSETREF(SLOT(s, off_data), u);
    Py_XSETREF(SLOT(s, off_version), version);
    put_slot(s, off_output_nr, nr);
    return s;
}

/* AutogradMeta(): the class has no __init__ (its fields default to class attributes) */
static PyObject *
meta_new(PyTypeObject *tp)
{
    if (tp == NULL || tp->tp_init != PyBaseObject_Type.tp_init)
        return PyObject_CallNoArgs(meta_type);
    return tp->tp_new(tp, empty_tuple, NULL);
}

/* --- set_history_one -------------------------------------------------------------------- */
PyObject *
speedups_set_history_one(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "set_history_one(t, node)");
        return NULL;
    }
    PyObject *t = args[0], *node = args[1];
    if (Py_TYPE(t) != tensor_type || !PyObject_TypeCheck(node, node_type))
        return PyObject_Vectorcall(py_set_history_one, args, nargs, NULL);
    PyObject *dt = SLOT(t, off_dtype), *shape = SLOT(t, off_shape),
             *device = SLOT(t, off_device), *ag = SLOT(t, off_ag), *base = SLOT(t, off_base);
    long ks = keyset(t);
    if (dt == NULL || shape == NULL || device == NULL || ag == NULL || base == NULL || ks == -1)
        return PyObject_Vectorcall(py_set_history_one, args, nargs, NULL);
    int diff = attr_true(dt, s_differentiable);
    if (diff < 0)
        return NULL;
    if (!diff)      /* an integral output: nothing to record, or torch's refusal */
        return PyObject_Vectorcall(py_set_history_one, args, nargs, NULL);
    if (ag == Py_None) {
        ag = meta_new(Py_TYPE(meta_type) == &PyType_Type ? (PyTypeObject *)meta_type : NULL);
        if (ag == NULL)
            return NULL;
        Py_XSETREF(SLOT(t, off_ag), ag);
        if (PyObject_SetAttr(ag, s_grad_fn, node) < 0)
            return NULL;
    }
    else if (PyObject_SetAttr(ag, s_grad_fn, node) < 0 ||
             PyObject_SetAttr(ag, s_output_nr, zero_int) < 0)
        return NULL;
    if (!(ks & autograd_bit)) {
        PyObject *new_ks = PyLong_FromLong(ks | autograd_bit);
        if (new_ks == NULL)
            return NULL;
        Py_XSETREF(SLOT(t, off_ks), new_ks);
    }
    if (base != Py_None) {      /* a view: the version its grad_fn is made at */
        PyObject *st = SLOT(t, off_storage);
        st = st == NULL || st == Py_None ? PyObject_CallMethodNoArgs(t, s_untyped_storage)
                                          : Py_NewRef(st);
        PyObject *v = st == NULL ? NULL : PyObject_GetAttr(st, s_version);
        Py_XDECREF(st);
        if (v == NULL)
            return NULL;
        int err = PyObject_SetAttr(ag, s_attr_version, v);
        Py_DECREF(v);
        if (err < 0)
            return NULL;
    }
    PyObject *meta = Py_BuildValue("((OOO))", shape, dt, device);
    if (meta == NULL)
        return NULL;
    Py_XSETREF(SLOT(node, off_out_meta), meta);
    Py_RETURN_NONE;
}

/* for make_view (_speedups.c): Storage.of_array(arr), and a storage's device (borrowed);
   NULL (without an exception) until setup_recording has run */
PyObject *
speedups_storage_of_array(PyObject *arr)
{
    return storage_type == NULL ? NULL : storage_of_array(arr);
}

PyObject *
speedups_storage_device(PyObject *st)
{
    if (storage_type == NULL || Py_TYPE(st) != storage_type)
        return NULL;
    return SLOT(st, off_st_device);
}
