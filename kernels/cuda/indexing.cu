// indexing.cu: gather-style reads (index_select, gather, embedding) and scatter-add writes
// (scatter_add, embedding backward) with atomics. Offsets<3> runs over the shape of the
// index-driven operand: [ndim, sizes, strides of out/self (0 along dim), of the index, of the
// other operand]; along `dim` the indexed operand moves by dim_stride per index value. An index
// outside [0, dim_size) is recorded in *bad and skipped (the host raises torch's IndexError).
#include "common.cuh"

using namespace ember;

template <class T>
__device__ void gather_body(i64 n, const i64* meta, T* out, const T* in, const i64* idx,
                            i64 dim_stride, i64 dim_size, i64* bad) {
  Offsets<3> oc(meta);  // out, in (dim stride 0), index
  EMBER_LOOP(i, n) {
    i64 o[3];
    oc.get(i, o);
    i64 k = idx[o[2]];
    if (k < 0 || k >= dim_size) {
      *bad = k;
      continue;
    }
    out[o[0]] = in[o[1] + k * dim_stride];
  }
}

#define EMBER_GATHER(name, T)                                                                    \
  extern "C" __global__ void gather_##name(i64 n, const i64* meta, T* out, const T* in,         \
                                           const i64* idx, i64 dim_stride, i64 dim_size,        \
                                           i64* bad) {                                          \
    gather_body<T>(n, meta, out, in, idx, dim_stride, dim_size, bad);                            \
  }
EMBER_FOR_ALL(EMBER_GATHER)

// CUDA has atomicAdd for these (16-bit floats from sm_70 / sm_80); int64 goes through the
// unsigned 64-bit overload (two's complement makes it the same addition).
__device__ __forceinline__ void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(int* p, int v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(i64* p, i64 v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
__device__ __forceinline__ void atomic_add(__half* p, __half v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(__nv_bfloat16* p, __nv_bfloat16 v) { atomicAdd(p, v); }

// self[... idx ...] += src[...] (Add) or = src[...] (a plain store: of repeated indices one
// write wins, as in torch); index entries equal to `skip` are ignored (padding_idx).
template <bool Add, class T>
__device__ void scatter_body(i64 n, const i64* meta, T* self, const i64* idx, const T* src,
                             i64 dim_stride, i64 dim_size, i64 skip, i64* bad) {
  Offsets<3> oc(meta);
  EMBER_LOOP(i, n) {
    i64 o[3];
    oc.get(i, o);
    i64 k = idx[o[1]];
    if (k == skip) continue;
    if (k < 0 || k >= dim_size) {
      *bad = k;
      continue;
    }
    if constexpr (Add) atomic_add(&self[o[0] + k * dim_stride], src[o[2]]);
    else self[o[0] + k * dim_stride] = src[o[2]];
  }
}
#define EMBER_SCATTER(op, add, name, T)                                                          \
  extern "C" __global__ void op##_##name(i64 n, const i64* meta, T* self, const i64* idx,       \
                                         const T* src, i64 dim_stride, i64 dim_size, i64 skip,  \
                                         i64* bad) {                                            \
    scatter_body<add>(n, meta, self, idx, src, dim_stride, dim_size, skip, bad);                 \
  }
#define EMBER_SCATTER_ADD(name, T) EMBER_SCATTER(scatter_add, true, name, T)
#define EMBER_SCATTER_STORE(name, T) EMBER_SCATTER(scatter, false, name, T)
EMBER_FOR_ALL(EMBER_SCATTER_STORE)
EMBER_SCATTER_ADD(float16, __half)
EMBER_SCATTER_ADD(bfloat16, __nv_bfloat16)
EMBER_SCATTER_ADD(float32, float)
EMBER_SCATTER_ADD(float64, double)
EMBER_SCATTER_ADD(int32, int)
EMBER_SCATTER_ADD(int64, i64)

// --- masks: m is a contiguous bool mask over a shape (row-major) and pos its inclusive running
// count (int64), so the k-th True element (k = pos - 1) has a place of its own: compaction and
// expansion need no atomics and keep torch's row-major order. `meta` lays out the other operand
// over the same shape (Offsets<1>).
#define EMBER_MASKED(name, T)                                                                    \
  extern "C" __global__ void masked_select_##name(i64 n, const i64* meta, T* out, const T* self,\
                                                  const bool* m, const i64* pos) {              \
    Offsets<1> oc(meta);                                                                         \
    EMBER_LOOP(i, n) {                                                                           \
      if (!m[i]) continue;                                                                       \
      i64 o[1];                                                                                  \
      oc.get(i, o);                                                                              \
      out[pos[i] - 1] = self[o[0]];                                                              \
    }                                                                                            \
  }                                                                                              \
  extern "C" __global__ void masked_scatter_##name(i64 n, const i64* meta, T* self,              \
                                                   const bool* m, const i64* pos, const T* src) {\
    Offsets<1> oc(meta);                                                                         \
    EMBER_LOOP(i, n) {                                                                           \
      if (!m[i]) continue;                                                                       \
      i64 o[1];                                                                                  \
      oc.get(i, o);                                                                              \
      self[o[0]] = src[pos[i] - 1];                                                              \
    }                                                                                            \
  }
EMBER_FOR_ALL(EMBER_MASKED)

// nonzero: row pos[i] - 1 of out (count, ndim), column-major as torch lays it out, gets the
// coordinates of element i; shape = [ndim, sizes].
extern "C" __global__ void nonzero_coords(i64 n, const i64* shape, const bool* m, const i64* pos,
                                          i64* out, i64 count) {
  EMBER_LOOP(i, n) {
    if (!m[i]) continue;
    i64 r = pos[i] - 1, rest = i;
    for (i64 d = shape[0] - 1; d >= 0; --d) {
      out[r + d * count] = rest % shape[1 + d];
      rest /= shape[1 + d];
    }
  }
}
