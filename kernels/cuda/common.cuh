// common.cuh: what every ember kernel shares: integer types, dtype names, casts with torch's
// rules, float accumulation for float16/bfloat16, the strided offset calculator and the
// grid-stride loop. Compiles with NVRTC (CuPy) and with the CPU emulator (emulator.h).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

typedef long long i64;
typedef unsigned char uint8;
typedef signed char int8;
typedef short int16;
typedef int int32;
typedef long long int64;
typedef __half float16;
typedef __nv_bfloat16 bfloat16;
typedef float float32;
typedef double float64;
// `bool` keeps its name; it is one byte on both sides, like torch's.

namespace ember {

// The type a kernel computes in: float for the 16-bit floats, the type itself otherwise.
template <class T> struct Acc { typedef T type; };
template <> struct Acc<__half> { typedef float type; };
template <> struct Acc<__nv_bfloat16> { typedef float type; };

// Cast<To>::from(x): torch's conversions (to bool is `!= 0`; 16-bit floats go through float).
template <class To> struct Cast {
  template <class From> static __device__ __forceinline__ To from(From x) { return static_cast<To>(x); }
  static __device__ __forceinline__ To from(__half x) { return static_cast<To>(__half2float(x)); }
  static __device__ __forceinline__ To from(__nv_bfloat16 x) { return static_cast<To>(__bfloat162float(x)); }
};
template <> struct Cast<bool> {
  template <class From> static __device__ __forceinline__ bool from(From x) { return x != From(0); }
  static __device__ __forceinline__ bool from(__half x) { return __half2float(x) != 0.f; }
  static __device__ __forceinline__ bool from(__nv_bfloat16 x) { return __bfloat162float(x) != 0.f; }
};
template <> struct Cast<__half> {
  template <class From> static __device__ __forceinline__ __half from(From x) { return __float2half_rn(static_cast<float>(x)); }
  static __device__ __forceinline__ __half from(__half x) { return x; }
  static __device__ __forceinline__ __half from(__nv_bfloat16 x) { return __float2half_rn(__bfloat162float(x)); }
};
template <> struct Cast<__nv_bfloat16> {
  template <class From> static __device__ __forceinline__ __nv_bfloat16 from(From x) { return __float2bfloat16_rn(static_cast<float>(x)); }
  static __device__ __forceinline__ __nv_bfloat16 from(__half x) { return __float2bfloat16_rn(__half2float(x)); }
  static __device__ __forceinline__ __nv_bfloat16 from(__nv_bfloat16 x) { return x; }
};
template <class To, class From> __device__ __forceinline__ To cast(From x) { return Cast<To>::from(x); }

// Element offsets of N operands for a linear index over a shape (row-major order).
// meta = [ndim, sizes[ndim], strides of operand 0 [ndim], ..., strides of operand N-1 [ndim]].
template <int N> struct Offsets {
  int ndim;
  const i64* sizes;
  const i64* strides;
  __device__ explicit Offsets(const i64* meta)
      : ndim(static_cast<int>(meta[0])), sizes(meta + 1), strides(meta + 1 + meta[0]) {}
  __device__ void get(i64 i, i64* off) const {
    for (int k = 0; k < N; ++k) off[k] = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      i64 q = i / sizes[d], r = i - q * sizes[d];
      i = q;
      for (int k = 0; k < N; ++k) off[k] += r * strides[k * ndim + d];
    }
  }
};

// Block size of the elementwise launchers (ember/cuda/_launch.py uses the same number).
#define EMBER_BLOCK 256

}  // namespace ember

// for (i64 i ...) over [0, n) with a grid-stride loop.
#define EMBER_LOOP(i, n) \
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (i64)blockDim.x * gridDim.x)

// The 10 dtypes, as X(name, C type); the float ones; the integer ones (bool apart).
#define EMBER_FOR_FLOATS(X) X(float16, float16) X(bfloat16, bfloat16) X(float32, float) X(float64, double)
#define EMBER_FOR_INTS(X) X(uint8, uint8) X(int8, int8) X(int16, int16) X(int32, int) X(int64, i64)
#define EMBER_FOR_ALL(X) X(bool, bool) EMBER_FOR_INTS(X) EMBER_FOR_FLOATS(X)
