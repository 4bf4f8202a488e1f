// pool.cu: max_pool2d (with indices) and avg_pool2d, forward and backward. Forward: a thread
// per output element walks its window. Backward: a thread per input element gathers from the
// outputs whose windows hold it (no atomics, so the sums are deterministic).
// p = [N, C, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw, strides (n, c, h, w) of the input
// (or grad_input), of the output (or grad_output), of the indices]; a 3-d input has N = 1.
#include "common.cuh"

using namespace ember;

struct Pool2d {
  const i64* p;
  __device__ explicit Pool2d(const i64* params) : p(params) {}
  __device__ i64 at(int t, i64 n, i64 c, i64 y, i64 x) const {  // offset in tensor t (0, 1, 2)
    const i64* s = p + 14 + 4 * t;
    return n * s[0] + c * s[1] + y * s[2] + x * s[3];
  }
  // (n, c, y, x) of element i of a (N, C, rows, cols) tensor
  __device__ void split(i64 i, i64 rows, i64 cols, i64* n, i64* c, i64* y, i64* x) const {
    *x = i % cols;
    i /= cols;
    *y = i % rows;
    i /= rows;
    *c = i % p[1];
    *n = i / p[1];
  }
  // the outputs along one axis whose windows can hold input position v: [*lo, *hi]
  __device__ void covering(i64 v, int axis, i64* lo, i64* hi) const {
    i64 k = p[6 + axis], s = p[8 + axis], pad = p[10 + axis], d = p[12 + axis];
    i64 first = v + pad - (k - 1) * d;
    *lo = first <= 0 ? 0 : (first + s - 1) / s;
    i64 last = (v + pad) / s;
    *hi = last < p[4 + axis] - 1 ? last : p[4 + axis] - 1;
  }
};

// The lowest value of T (the max's start): -inf for floats.
template <class A> __device__ A lowest() { return -A(1) / A(0); }  // -inf (NVRTC has no INFINITY)
template <> __device__ uint8 lowest<uint8>() { return 0; }
template <> __device__ int8 lowest<int8>() { return -128; }
template <> __device__ int16 lowest<int16>() { return -32768; }
template <> __device__ int lowest<int>() { return -2147483647 - 1; }
template <> __device__ i64 lowest<i64>() { return -9223372036854775807LL - 1; }

// torch's: the first maximum wins (`val > max`), a NaN takes over (`isnan(val)`); a window of
// only lowest values gives its first position inside the input.
template <class T>
__device__ void max_pool2d_body(i64 n_out, const i64* params, T* out, i64* idx, const T* in) {
  typedef typename Acc<T>::type A;
  Pool2d P(params);
  const i64* p = params;
  EMBER_LOOP(i, n_out) {
    i64 n, c, oy, ox;
    P.split(i, p[4], p[5], &n, &c, &oy, &ox);
    i64 y0 = oy * p[8] - p[10], x0 = ox * p[9] - p[11];
    while (y0 < 0) y0 += p[12];
    while (x0 < 0) x0 += p[13];
    i64 y1 = oy * p[8] - p[10] + (p[6] - 1) * p[12] + 1, x1 = ox * p[9] - p[11] + (p[7] - 1) * p[13] + 1;
    if (y1 > p[2]) y1 = p[2];
    if (x1 > p[3]) x1 = p[3];
    A best = lowest<A>();
    i64 at = y0 * p[3] + x0;
    for (i64 y = y0; y < y1; y += p[12])
      for (i64 x = x0; x < x1; x += p[13]) {
        A v = cast<A>(in[P.at(0, n, c, y, x)]);
        if (v > best || v != v) {
          best = v;
          at = y * p[3] + x;
        }
      }
    out[P.at(1, n, c, oy, ox)] = cast<T>(best);
    idx[P.at(2, n, c, oy, ox)] = at;
  }
}

template <class T>
__device__ void max_pool2d_backward_body(i64 n_in, const i64* params, T* gi, const T* go,
                                         const i64* idx) {
  typedef typename Acc<T>::type A;
  Pool2d P(params);
  const i64* p = params;
  EMBER_LOOP(i, n_in) {
    i64 n, c, y, x, ylo, yhi, xlo, xhi;
    P.split(i, p[2], p[3], &n, &c, &y, &x);
    P.covering(y, 0, &ylo, &yhi);
    P.covering(x, 1, &xlo, &xhi);
    A g = A(0);
    for (i64 oy = ylo; oy <= yhi; ++oy)
      for (i64 ox = xlo; ox <= xhi; ++ox)
        if (idx[P.at(2, n, c, oy, ox)] == y * p[3] + x) g += cast<A>(go[P.at(1, n, c, oy, ox)]);
    gi[P.at(0, n, c, y, x)] = cast<T>(g);
  }
}

// avg_pool2d's divisor for the window of output (oy, ox), and its clipped bounds (torch's).
__device__ i64 avg_window(const i64* p, i64 oy, i64 ox, int count_include_pad,
                          i64 divisor_override, i64* y0, i64* y1, i64* x0, i64* x1) {
  *y0 = oy * p[8] - p[10];
  *x0 = ox * p[9] - p[11];
  *y1 = *y0 + p[6] < p[2] + p[10] ? *y0 + p[6] : p[2] + p[10];
  *x1 = *x0 + p[7] < p[3] + p[11] ? *x0 + p[7] : p[3] + p[11];
  i64 pool = (*y1 - *y0) * (*x1 - *x0);
  *y0 = *y0 < 0 ? 0 : *y0;
  *x0 = *x0 < 0 ? 0 : *x0;
  *y1 = *y1 < p[2] ? *y1 : p[2];
  *x1 = *x1 < p[3] ? *x1 : p[3];
  if (divisor_override) return divisor_override;
  return count_include_pad ? pool : (*y1 - *y0) * (*x1 - *x0);
}

template <class T>
__device__ void avg_pool2d_body(i64 n_out, const i64* params, T* out, const T* in,
                                int count_include_pad, i64 divisor_override) {
  typedef typename Acc<T>::type A;
  Pool2d P(params);
  const i64* p = params;
  EMBER_LOOP(i, n_out) {
    i64 n, c, oy, ox, y0, y1, x0, x1;
    P.split(i, p[4], p[5], &n, &c, &oy, &ox);
    i64 div = avg_window(p, oy, ox, count_include_pad, divisor_override, &y0, &y1, &x0, &x1);
    A s = A(0);
    for (i64 y = y0; y < y1; ++y)
      for (i64 x = x0; x < x1; ++x) s += cast<A>(in[P.at(0, n, c, y, x)]);
    out[P.at(1, n, c, oy, ox)] = cast<T>(s / A(div));
  }
}

template <class T>
__device__ void avg_pool2d_backward_body(i64 n_in, const i64* params, T* gi, const T* go,
                                         int count_include_pad, i64 divisor_override) {
  typedef typename Acc<T>::type A;
  Pool2d P(params);
  const i64* p = params;
  EMBER_LOOP(i, n_in) {
    i64 n, c, y, x, ylo, yhi, xlo, xhi, y0, y1, x0, x1;
    P.split(i, p[2], p[3], &n, &c, &y, &x);
    P.covering(y, 0, &ylo, &yhi);
    P.covering(x, 1, &xlo, &xhi);
    A g = A(0);
    for (i64 oy = ylo; oy <= yhi; ++oy)
      for (i64 ox = xlo; ox <= xhi; ++ox) {
        i64 div = avg_window(p, oy, ox, count_include_pad, divisor_override, &y0, &y1, &x0, &x1);
        if (y >= y0 && y < y1 && x >= x0 && x < x1) g += cast<A>(go[P.at(1, n, c, oy, ox)]) / A(div);
      }
    gi[P.at(0, n, c, y, x)] = cast<T>(g);
  }
}

#define EMBER_MAX_POOL(name, T)                                                                  \
  extern "C" __global__ void max_pool2d_##name(i64 n, const i64* p, T* out, i64* idx,           \
                                               const T* in) {                                   \
    max_pool2d_body<T>(n, p, out, idx, in);                                                      \
  }
#define EMBER_POOL_FLOAT(name, T)                                                                \
  extern "C" __global__ void max_pool2d_backward_##name(i64 n, const i64* p, T* gi, const T* go,\
                                                        const i64* idx) {                       \
    max_pool2d_backward_body<T>(n, p, gi, go, idx);                                              \
  }
#define EMBER_AVG_POOL(name, T)                                                                  \
  extern "C" __global__ void avg_pool2d_##name(i64 n, const i64* p, T* out, const T* in,        \
                                               int count_include_pad, i64 divisor_override) {   \
    avg_pool2d_body<T>(n, p, out, in, count_include_pad, divisor_override);                      \
  }                                                                                              \
  extern "C" __global__ void avg_pool2d_backward_##name(i64 n, const i64* p, T* gi, const T* go,\
                                                        int count_include_pad,                  \
                                                        i64 divisor_override) {                 \
    avg_pool2d_backward_body<T>(n, p, gi, go, count_include_pad, divisor_override);              \
  }
EMBER_FOR_INTS(EMBER_MAX_POOL)
EMBER_FOR_FLOATS(EMBER_MAX_POOL)
EMBER_FOR_FLOATS(EMBER_POOL_FLOAT)
EMBER_FOR_FLOATS(EMBER_AVG_POOL)
EMBER_AVG_POOL(int64, i64)
