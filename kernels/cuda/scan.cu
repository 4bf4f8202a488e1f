// scan.cu: cumulative ops along one dim (cumsum, cumprod, cummax/cummin with indices). One
// thread per row scans it in order, so results match a sequential scan exactly (16-bit floats
// accumulate in float). `kept` is Offsets over every dim but `dim` ([ndim, sizes, strides of
// each operand]); along `dim` each operand has one stride.
#include "common.cuh"

using namespace ember;

struct AddOp {
  template <class A> __device__ A operator()(A a, A b) const { return a + b; }
};
struct MulOp {
  template <class A> __device__ A operator()(A a, A b) const { return a * b; }
};

template <class T, class Op>
__device__ void scan_body(i64 rows, i64 n, const i64* kept, i64 s_out, i64 s_in, T* out,
                          const T* in) {
  typedef typename Acc<T>::type A;
  Offsets<2> ok(kept);
  EMBER_LOOP(r, rows) {
    i64 base[2];
    ok.get(r, base);
    A acc = A(0);
    for (i64 i = 0; i < n; ++i) {
      A x = cast<A>(in[base[1] + i * s_in]);
      acc = i ? A(Op()(acc, x)) : x;
      out[base[0] + i * s_out] = cast<T>(acc);
    }
  }
}

// cummax (IsMax) / cummin: a later equal value or a NaN takes over; after a NaN only NaNs do.
template <class T, bool IsMax>
__device__ void cum_extreme_body(i64 rows, i64 n, const i64* kept, i64 s_val, i64 s_idx,
                                 i64 s_in, T* val, i64* idx, const T* in) {
  typedef typename Acc<T>::type A;
  Offsets<3> ok(kept);
  EMBER_LOOP(r, rows) {
    i64 base[3];
    ok.get(r, base);
    A best = A(0);
    i64 at = 0;
    for (i64 i = 0; i < n; ++i) {
      A x = cast<A>(in[base[2] + i * s_in]);
      bool better = IsMax ? x >= best : x <= best;
      if (i == 0 || x != x || (best == best && better)) {
        best = x;
        at = i;
      }
      val[base[0] + i * s_val] = cast<T>(best);
      idx[base[1] + i * s_idx] = at;
    }
  }
}

#define EMBER_SCAN(name, T)                                                                      \
  extern "C" __global__ void cumsum_##name(i64 rows, i64 n, const i64* kept, i64 s_out,         \
                                           i64 s_in, T* out, const T* in) {                     \
    scan_body<T, AddOp>(rows, n, kept, s_out, s_in, out, in);                                    \
  }                                                                                              \
  extern "C" __global__ void cumprod_##name(i64 rows, i64 n, const i64* kept, i64 s_out,        \
                                            i64 s_in, T* out, const T* in) {                    \
    scan_body<T, MulOp>(rows, n, kept, s_out, s_in, out, in);                                    \
  }                                                                                              \
  extern "C" __global__ void cummax_##name(i64 rows, i64 n, const i64* kept, i64 s_val,         \
                                           i64 s_idx, i64 s_in, T* val, i64* idx, const T* in) {\
    cum_extreme_body<T, true>(rows, n, kept, s_val, s_idx, s_in, val, idx, in);                  \
  }                                                                                              \
  extern "C" __global__ void cummin_##name(i64 rows, i64 n, const i64* kept, i64 s_val,         \
                                           i64 s_idx, i64 s_in, T* val, i64* idx, const T* in) {\
    cum_extreme_body<T, false>(rows, n, kept, s_val, s_idx, s_in, val, idx, in);                 \
  }
EMBER_FOR_ALL(EMBER_SCAN)
