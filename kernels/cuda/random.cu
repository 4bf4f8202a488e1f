// random.cu: counter-based random numbers (Philox4x32-10, the generator torch's CUDA backend
// uses), so every element's value depends only on (seed, offset, element index): no state per
// thread, the same numbers for any launch shape. Each call advances the generator's offset.
#include "common.cuh"

using namespace ember;

typedef unsigned int u32;
typedef unsigned long long u64;

struct Philox4 {
  u32 v[4];
};

__device__ __forceinline__ u32 mulhilo(u32 a, u32 b, u32* hi) {
  u64 p = (u64)a * b;
  *hi = (u32)(p >> 32);
  return (u32)p;
}

// Philox4x32 with 10 rounds: counter (4 words) and key (2 words) -> 4 random words.
__device__ Philox4 philox(u32 c0, u32 c1, u32 c2, u32 c3, u32 k0, u32 k1) {
  for (int r = 0; r < 10; ++r) {
    u32 hi0, hi1;
    u32 lo0 = mulhilo(0xD2511F53u, c0, &hi0);
    u32 lo1 = mulhilo(0xCD9E8D57u, c2, &hi1);
    u32 n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  Philox4 out;
  out.v[0] = c0; out.v[1] = c1; out.v[2] = c2; out.v[3] = c3;
  return out;
}

// Uniform in [0, 1) with as many random bits as T has mantissa digits (torch's rule: 11 for
// float16, 8 for bfloat16, 24 for float, 53 for double), so the value is exact in T and < 1.
template <class T> struct Digits { static const int value = 24; };
template <> struct Digits<__half> { static const int value = 11; };
template <> struct Digits<__nv_bfloat16> { static const int value = 8; };
template <> struct Digits<double> { static const int value = 53; };

template <class T> struct Uniform01 {
  typedef typename Acc<T>::type A;
  static __device__ A draw(u64 s, u64 o, i64 i, int w) {
    Philox4 r = philox((u32)i, (u32)((u64)i >> 32), (u32)o, (u32)(o >> 32), (u32)s, (u32)(s >> 32));
    const int d = Digits<T>::value;
    u64 bits = (((u64)r.v[2 * w] << 32) | r.v[2 * w + 1]) & ((1ull << d) - 1);
    return A(bits) * (A(1) / A(1ull << d));
  }
};

template <class T>
__device__ void uniform_body(i64 n, const i64* meta, T* out, u64 seed, u64 offset,
                             typename Acc<T>::type lo, typename Acc<T>::type hi) {
  typedef typename Acc<T>::type A;
  Offsets<1> oc(meta);
  EMBER_LOOP(i, n) {
    i64 o[1];
    oc.get(i, o);
    A u = Uniform01<T>::draw(seed, offset, i, 0);
    out[o[0]] = cast<T>(lo + (hi - lo) * u);
  }
}

// Box-Muller from the element's own two draws.
template <class T>
__device__ void normal_body(i64 n, const i64* meta, T* out, u64 seed, u64 offset,
                            typename Acc<T>::type mean, typename Acc<T>::type std) {
  typedef typename Acc<T>::type A;
  Offsets<1> oc(meta);
  EMBER_LOOP(i, n) {
    i64 o[1];
    oc.get(i, o);
    A u1 = A(1) - Uniform01<T>::draw(seed, offset, i, 0);  // (0, 1]: log is finite
    A u2 = Uniform01<T>::draw(seed, offset, i, 1);
    A z = sqrt(A(-2) * log(u1)) * cos(A(6.283185307179586) * u2);
    out[o[0]] = cast<T>(mean + std * z);
  }
}

// out = in * keep / (1 - p), keep = uniform >= p; mask = keep.
template <class T>
__device__ void dropout_body(i64 n, const i64* meta, T* out, bool* mask, const T* in, u64 seed,
                             u64 offset, float p) {
  typedef typename Acc<T>::type A;
  Offsets<3> oc(meta);
  A scale = p >= 1.0f ? A(0) : A(1) / (A(1) - A(p));
  EMBER_LOOP(i, n) {
    i64 o[3];
    oc.get(i, o);
    bool keep = Uniform01<float>::draw(seed, offset, i, 0) >= p;
    mask[o[1]] = keep;
    out[o[0]] = cast<T>(keep ? cast<A>(in[o[2]]) * scale : A(0));
  }
}

template <class T>
__device__ void bernoulli_body(i64 n, const i64* meta, T* out, u64 seed, u64 offset, double p) {
  Offsets<1> oc(meta);
  EMBER_LOOP(i, n) {
    i64 o[1];
    oc.get(i, o);
    out[o[0]] = cast<T>(Uniform01<double>::draw(seed, offset, i, 0) < p ? 1 : 0);
  }
}

#define EMBER_RANDOM_FLOAT(name, T)                                                              \
  extern "C" __global__ void uniform_##name(i64 n, const i64* meta, T* out, u64 seed,           \
                                            u64 offset, typename Acc<T>::type lo,               \
                                            typename Acc<T>::type hi) {                         \
    uniform_body<T>(n, meta, out, seed, offset, lo, hi);                                         \
  }                                                                                              \
  extern "C" __global__ void normal_##name(i64 n, const i64* meta, T* out, u64 seed,            \
                                           u64 offset, typename Acc<T>::type mean,              \
                                           typename Acc<T>::type std) {                         \
    normal_body<T>(n, meta, out, seed, offset, mean, std);                                       \
  }                                                                                              \
  extern "C" __global__ void dropout_##name(i64 n, const i64* meta, T* out, bool* mask,         \
                                            const T* in, u64 seed, u64 offset, float p) {       \
    dropout_body<T>(n, meta, out, mask, in, seed, offset, p);                                    \
  }
EMBER_FOR_FLOATS(EMBER_RANDOM_FLOAT)

#define EMBER_BERNOULLI(name, T)                                                                 \
  extern "C" __global__ void bernoulli_##name(i64 n, const i64* meta, T* out, u64 seed,         \
                                              u64 offset, double p) {                           \
    bernoulli_body<T>(n, meta, out, seed, offset, p);                                            \
  }
EMBER_FOR_ALL(EMBER_BERNOULLI)
