// sort.cu: sort and topk along one dim by rank: element i of a row goes to position
// rank(i) = the number of elements that precede it (smaller, or equal with a lower index; NaN
// above everything, as torch orders it). Every (row, element) pair is one thread and reads its
// row, so the order is stable, deterministic and needs no scratch memory: O(n) work per
// element, meant for the short rows of sort/topk over a dim (a radix sort would serve long
// ones on a GPU). `kept` is Offsets over every dim but `dim` (values, indices, input).
#include "common.cuh"

using namespace ember;

// a strictly before b in ascending order (NaN last)
template <class A> __device__ __forceinline__ bool less_nan(A a, A b) {
  return a == a && (b != b || a < b);
}

template <class T>
__device__ void sort_body(i64 rows, i64 n, i64 k, const i64* kept, i64 s_val, i64 s_idx,
                          i64 s_in, T* val, i64* idx, const T* in, int descending) {
  typedef typename Acc<T>::type A;
  Offsets<3> ok(kept);
  EMBER_LOOP(g, rows * n) {
    i64 r = g / n, i = g - r * n, base[3];
    ok.get(r, base);
    const T* x = in + base[2];
    A v = cast<A>(x[i * s_in]);
    i64 rank = 0;
    for (i64 j = 0; j < n; ++j) {
      A u = cast<A>(x[j * s_in]);
      bool before = descending ? less_nan(v, u) : less_nan(u, v);
      bool tie = !less_nan(u, v) && !less_nan(v, u);
      rank += before || (tie && j < i);
    }
    if (rank < k) {
      val[base[0] + rank * s_val] = x[i * s_in];
      idx[base[1] + rank * s_idx] = i;
    }
  }
}

#define EMBER_SORT(name, T)                                                                      \
  extern "C" __global__ void sort_##name(i64 rows, i64 n, i64 k, const i64* kept, i64 s_val,    \
                                         i64 s_idx, i64 s_in, T* val, i64* idx, const T* in,    \
                                         int descending) {                                      \
    sort_body<T>(rows, n, k, kept, s_val, s_idx, s_in, val, idx, in, descending);                \
  }
EMBER_FOR_ALL(EMBER_SORT)
