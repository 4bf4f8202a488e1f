// elementwise.cu: strided elementwise kernels (cast/copy, fill, unary, binary, comparisons,
// where). Every operand has its own strides (broadcast dims have stride 0), so outputs and
// inputs may be non-contiguous; the host collapses dims first, so most launches are 1-d.
// Kernels are templates instantiated by name: `<family>_<op>_<dtype>` (e.g. binary_add_float32).
// 16-bit floats compute in float. Type promotion happens on the host: operands arrive in the
// compute dtype (ember/cuda/_launch.py casts them).
#include "common.cuh"

using namespace ember;

// --- copy / cast / fill ----------------------------------------------------------------------
template <class To, class From>
__device__ void cast_body(i64 n, const i64* meta, To* out, const From* in) {
  Offsets<2> oc(meta);
  EMBER_LOOP(i, n) {
    i64 o[2];
    oc.get(i, o);
    out[o[0]] = cast<To>(in[o[1]]);
  }
}
#define EMBER_CAST_TO(to_name, To, from_name, From)                                           \
  extern "C" __global__ void cast_##from_name##_##to_name(i64 n, const i64* meta, To* out,   \
                                                           const From* in) {                 \
    cast_body<To, From>(n, meta, out, in);                                                   \
  }
#define EMBER_CAST_FROM(from_name, From)                                                      \
  EMBER_CAST_TO(bool, bool, from_name, From) EMBER_CAST_TO(uint8, uint8, from_name, From)    \
  EMBER_CAST_TO(int8, int8, from_name, From) EMBER_CAST_TO(int16, int16, from_name, From)    \
  EMBER_CAST_TO(int32, int, from_name, From) EMBER_CAST_TO(int64, i64, from_name, From)      \
  EMBER_CAST_TO(float16, float16, from_name, From)                                           \
  EMBER_CAST_TO(bfloat16, bfloat16, from_name, From)                                         \
  EMBER_CAST_TO(float32, float, from_name, From) EMBER_CAST_TO(float64, double, from_name, From)
EMBER_FOR_ALL(EMBER_CAST_FROM)

#define EMBER_FILL(name, T)                                                                   \
  extern "C" __global__ void fill_##name(i64 n, const i64* meta, T* out,                     \
                                         typename Acc<T>::type value) {                      \
    Offsets<1> oc(meta);                                                                     \
    T v = cast<T>(value);                                                                    \
    EMBER_LOOP(i, n) {                                                                       \
      i64 o[1];                                                                              \
      oc.get(i, o);                                                                          \
      out[o[0]] = v;                                                                         \
    }                                                                                        \
  }
EMBER_FOR_ALL(EMBER_FILL)

// --- unary: out = op(in), same dtype --------------------------------------------------------
template <class T, class Op> __device__ void unary_body(i64 n, const i64* meta, T* out, const T* in) {
  typedef typename Acc<T>::type A;
  Offsets<2> oc(meta);
  EMBER_LOOP(i, n) {
    i64 o[2];
    oc.get(i, o);
    out[o[0]] = cast<T>(Op()(cast<A>(in[o[1]])));
  }
}

// Math of float and double by one name (the C library's f-suffixed functions for float).
#define EMBER_MATH(fn)                                                                        \
  __device__ __forceinline__ float m_##fn(float x) { return fn##f(x); }                      \
  __device__ __forceinline__ double m_##fn(double x) { return fn(x); }
EMBER_MATH(exp) EMBER_MATH(exp2) EMBER_MATH(expm1) EMBER_MATH(log) EMBER_MATH(log2)
EMBER_MATH(log10) EMBER_MATH(log1p) EMBER_MATH(sqrt) EMBER_MATH(sin) EMBER_MATH(cos)
EMBER_MATH(tan) EMBER_MATH(asin) EMBER_MATH(acos) EMBER_MATH(atan) EMBER_MATH(sinh)
EMBER_MATH(cosh) EMBER_MATH(tanh) EMBER_MATH(asinh) EMBER_MATH(acosh) EMBER_MATH(atanh)
EMBER_MATH(erf) EMBER_MATH(erfc) EMBER_MATH(floor) EMBER_MATH(ceil) EMBER_MATH(trunc)
EMBER_MATH(rint) EMBER_MATH(fabs)
__device__ __forceinline__ float m_atan2(float a, float b) { return atan2f(a, b); }
__device__ __forceinline__ double m_atan2(double a, double b) { return atan2(a, b); }
__device__ __forceinline__ float m_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double m_fmod(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ float m_pow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double m_pow(double a, double b) { return pow(a, b); }

#define EMBER_UNARY_OP(op, expr) \
  struct Op_##op { template <class A> __device__ A operator()(A x) const { return expr; } };
// float functions
EMBER_UNARY_OP(exp, m_exp(x)) EMBER_UNARY_OP(exp2, m_exp2(x)) EMBER_UNARY_OP(expm1, m_expm1(x))
EMBER_UNARY_OP(log, m_log(x)) EMBER_UNARY_OP(log2, m_log2(x)) EMBER_UNARY_OP(log10, m_log10(x))
EMBER_UNARY_OP(log1p, m_log1p(x)) EMBER_UNARY_OP(sqrt, m_sqrt(x))
EMBER_UNARY_OP(rsqrt, A(1) / m_sqrt(x)) EMBER_UNARY_OP(sin, m_sin(x)) EMBER_UNARY_OP(cos, m_cos(x))
EMBER_UNARY_OP(tan, m_tan(x)) EMBER_UNARY_OP(asin, m_asin(x)) EMBER_UNARY_OP(acos, m_acos(x))
EMBER_UNARY_OP(atan, m_atan(x)) EMBER_UNARY_OP(sinh, m_sinh(x)) EMBER_UNARY_OP(cosh, m_cosh(x))
EMBER_UNARY_OP(tanh, m_tanh(x)) EMBER_UNARY_OP(asinh, m_asinh(x)) EMBER_UNARY_OP(acosh, m_acosh(x))
EMBER_UNARY_OP(atanh, m_atanh(x)) EMBER_UNARY_OP(erf, m_erf(x)) EMBER_UNARY_OP(erfc, m_erfc(x))
EMBER_UNARY_OP(sigmoid, A(1) / (A(1) + m_exp(-x))) EMBER_UNARY_OP(reciprocal, A(1) / x)
EMBER_UNARY_OP(silu, x / (A(1) + m_exp(-x)))
EMBER_UNARY_OP(frac, x - m_trunc(x))
// float rounding (identity on integers: those use Op_positive)
EMBER_UNARY_OP(floor, m_floor(x)) EMBER_UNARY_OP(ceil, m_ceil(x)) EMBER_UNARY_OP(trunc, m_trunc(x))
EMBER_UNARY_OP(round, m_rint(x))
// any dtype but bool
EMBER_UNARY_OP(neg, A(-x)) EMBER_UNARY_OP(abs, A(x < A(0) ? -x : x))
EMBER_UNARY_OP(relu, A(x > A(0) ? x : (x != x ? x : A(0))))
EMBER_UNARY_OP(sign, A((A(0) < x) - (x < A(0))))
EMBER_UNARY_OP(positive, x)
// integers; bool's is logical_not (C++'s ~ on a promoted bool is not a negation)
EMBER_UNARY_OP(bitwise_not, A(~x)) EMBER_UNARY_OP(logical_not, A(!x))

#define EMBER_UNARY(op, name, T)                                                              \
  extern "C" __global__ void unary_##op##_##name(i64 n, const i64* meta, T* out, const T* in) { \
    unary_body<T, Op_##op>(n, meta, out, in);                                                \
  }
#define EMBER_UNARY_FLOAT_OPS(name, T)                                                        \
  EMBER_UNARY(exp, name, T) EMBER_UNARY(exp2, name, T) EMBER_UNARY(expm1, name, T)           \
  EMBER_UNARY(log, name, T) EMBER_UNARY(log2, name, T) EMBER_UNARY(log10, name, T)           \
  EMBER_UNARY(log1p, name, T) EMBER_UNARY(sqrt, name, T) EMBER_UNARY(rsqrt, name, T)         \
  EMBER_UNARY(sin, name, T) EMBER_UNARY(cos, name, T) EMBER_UNARY(tan, name, T)              \
  EMBER_UNARY(asin, name, T) EMBER_UNARY(acos, name, T) EMBER_UNARY(atan, name, T)           \
  EMBER_UNARY(sinh, name, T) EMBER_UNARY(cosh, name, T) EMBER_UNARY(tanh, name, T)           \
  EMBER_UNARY(asinh, name, T) EMBER_UNARY(acosh, name, T) EMBER_UNARY(atanh, name, T)        \
  EMBER_UNARY(erf, name, T) EMBER_UNARY(erfc, name, T) EMBER_UNARY(sigmoid, name, T)         \
  EMBER_UNARY(reciprocal, name, T) EMBER_UNARY(silu, name, T) EMBER_UNARY(frac, name, T)     \
  EMBER_UNARY(floor, name, T) EMBER_UNARY(ceil, name, T) EMBER_UNARY(trunc, name, T)         \
  EMBER_UNARY(round, name, T)
#define EMBER_UNARY_SIGNED_OPS(name, T)                                                       \
  EMBER_UNARY(neg, name, T) EMBER_UNARY(abs, name, T) EMBER_UNARY(relu, name, T)             \
  EMBER_UNARY(sign, name, T) EMBER_UNARY(positive, name, T)
#define EMBER_UNARY_INT_OPS(name, T) EMBER_UNARY_SIGNED_OPS(name, T) EMBER_UNARY(bitwise_not, name, T)
EMBER_FOR_FLOATS(EMBER_UNARY_FLOAT_OPS)
EMBER_FOR_FLOATS(EMBER_UNARY_SIGNED_OPS)
EMBER_FOR_INTS(EMBER_UNARY_INT_OPS)
EMBER_UNARY(logical_not, bool, bool)
EMBER_UNARY(positive, bool, bool)

// float classification: bool results
template <class T, class Op> __device__ void classify_body(i64 n, const i64* meta, bool* out, const T* in) {
  typedef typename Acc<T>::type A;
  Offsets<2> oc(meta);
  EMBER_LOOP(i, n) {
    i64 o[2];
    oc.get(i, o);
    out[o[0]] = Op()(cast<A>(in[o[1]]));
  }
}
struct Op_isinf { template <class A> __device__ bool operator()(A x) const { return x == x && x - x != x - x; } };
struct Op_isfinite { template <class A> __device__ bool operator()(A x) const { return x - x == A(0); } };
#define EMBER_CLASSIFY(op, name, T)                                                           \
  extern "C" __global__ void unary_##op##_##name(i64 n, const i64* meta, bool* out, const T* in) { \
    classify_body<T, Op_##op>(n, meta, out, in);                                             \
  }
#define EMBER_CLASSIFY_OPS(name, T) EMBER_CLASSIFY(isinf, name, T) EMBER_CLASSIFY(isfinite, name, T)
EMBER_FOR_FLOATS(EMBER_CLASSIFY_OPS)

// --- binary: out = op(a, b, alpha), R is T or bool -------------------------------------------
template <class T, class R, class Op>
__device__ void binary_body(i64 n, const i64* meta, R* out, const T* a, const T* b,
                            typename Acc<T>::type alpha) {
  typedef typename Acc<T>::type A;
  Offsets<3> oc(meta);
  EMBER_LOOP(i, n) {
    i64 o[3];
    oc.get(i, o);
    out[o[0]] = cast<R>(Op()(cast<A>(a[o[1]]), cast<A>(b[o[2]]), alpha));
  }
}
template <class A> __device__ __forceinline__ bool is_nan(A x) { return x != x; }
// Python's modulo from C's remainder r of a / b: the result takes b's sign.
template <class A> __device__ __forceinline__ A py_mod(A r, A b) {
  return (r != A(0) && ((r < A(0)) != (b < A(0)))) ? A(r + b) : r;
}
// Integer power by squaring; a negative exponent gives 1 / a**-e truncated (torch's rule).
template <class A> __device__ A int_pow(A a, A e) {
  if (e < A(0)) return A(a == A(1) ? 1 : (a == A(-1) ? ((e & 1) ? -1 : 1) : 0));
  A r = 1;
  for (; e; e >>= 1) {
    if (e & 1) r *= a;
    a *= a;
  }
  return r;
}

#define EMBER_BINARY_OP(op, expr) \
  struct Op_##op { template <class A> __device__ auto operator()(A a, A b, A alpha) const { return expr; } };
EMBER_BINARY_OP(add, A(a + alpha * b)) EMBER_BINARY_OP(sub, A(a - alpha * b))
EMBER_BINARY_OP(mul, A(a * b)) EMBER_BINARY_OP(div, A(a / b))
EMBER_BINARY_OP(maximum, is_nan(a) ? a : (is_nan(b) ? b : (a < b ? b : a)))
EMBER_BINARY_OP(minimum, is_nan(a) ? a : (is_nan(b) ? b : (b < a ? b : a)))
EMBER_BINARY_OP(atan2, m_atan2(a, b)) EMBER_BINARY_OP(fmod, m_fmod(a, b))
EMBER_BINARY_OP(pow, m_pow(a, b))
EMBER_BINARY_OP(remainder, py_mod(m_fmod(a, b), b))
EMBER_BINARY_OP(remainder_int, b == A(0) ? A(0) : py_mod(A(a % b), b))
EMBER_BINARY_OP(fmod_int, A(b == A(0) ? A(0) : A(a % b)))
EMBER_BINARY_OP(pow_int, int_pow(a, b))
EMBER_BINARY_OP(bitwise_and, A(a & b)) EMBER_BINARY_OP(bitwise_or, A(a | b))
EMBER_BINARY_OP(bitwise_xor, A(a ^ b))
EMBER_BINARY_OP(eq, a == b) EMBER_BINARY_OP(ne, a != b) EMBER_BINARY_OP(lt, a < b)
EMBER_BINARY_OP(le, a <= b) EMBER_BINARY_OP(gt, a > b) EMBER_BINARY_OP(ge, a >= b)
EMBER_BINARY_OP(logical_and, a != A(0) && b != A(0)) EMBER_BINARY_OP(logical_or, a != A(0) || b != A(0))
EMBER_BINARY_OP(logical_xor, (a != A(0)) != (b != A(0)))
// backward of activations: a is the incoming gradient (alpha: threshold's threshold)
EMBER_BINARY_OP(sigmoid_backward, A(a * (A(1) - b) * b))
EMBER_BINARY_OP(tanh_backward, A(a * (A(1) - b * b)))
EMBER_BINARY_OP(threshold_backward, A(b > alpha ? a : A(0)))

#define EMBER_BINARY_R(op, name, T, R)                                                        \
  extern "C" __global__ void binary_##op##_##name(i64 n, const i64* meta, R* out, const T* a, \
                                                  const T* b, typename Acc<T>::type alpha) {  \
    binary_body<T, R, Op_##op>(n, meta, out, a, b, alpha);                                   \
  }
#define EMBER_BINARY(op, name, T) EMBER_BINARY_R(op, name, T, T)
#define EMBER_COMPARE_OPS(name, T)                                                            \
  EMBER_BINARY_R(eq, name, T, bool) EMBER_BINARY_R(ne, name, T, bool)                        \
  EMBER_BINARY_R(lt, name, T, bool) EMBER_BINARY_R(le, name, T, bool)                        \
  EMBER_BINARY_R(gt, name, T, bool) EMBER_BINARY_R(ge, name, T, bool)                        \
  EMBER_BINARY_R(logical_and, name, T, bool) EMBER_BINARY_R(logical_or, name, T, bool)       \
  EMBER_BINARY_R(logical_xor, name, T, bool)
#define EMBER_ARITH_OPS(name, T)                                                              \
  EMBER_BINARY(add, name, T) EMBER_BINARY(sub, name, T) EMBER_BINARY(mul, name, T)           \
  EMBER_BINARY(maximum, name, T) EMBER_BINARY(minimum, name, T)
#define EMBER_FLOAT_BINARY_OPS(name, T)                                                       \
  EMBER_BINARY(div, name, T) EMBER_BINARY(atan2, name, T) EMBER_BINARY(fmod, name, T)        \
  EMBER_BINARY(remainder, name, T) EMBER_BINARY(pow, name, T)                                \
  EMBER_BINARY(sigmoid_backward, name, T) EMBER_BINARY(tanh_backward, name, T)               \
  EMBER_BINARY(threshold_backward, name, T)
#define EMBER_INT_BINARY_OPS(name, T)                                                         \
  EMBER_BINARY(bitwise_and, name, T) EMBER_BINARY(bitwise_or, name, T)                       \
  EMBER_BINARY(bitwise_xor, name, T) EMBER_BINARY_R(remainder_int, name, T, T)               \
  EMBER_BINARY_R(fmod_int, name, T, T) EMBER_BINARY_R(pow_int, name, T, T)                  \
  EMBER_BINARY(threshold_backward, name, T)
EMBER_FOR_ALL(EMBER_COMPARE_OPS)
EMBER_FOR_ALL(EMBER_ARITH_OPS)
EMBER_FOR_FLOATS(EMBER_FLOAT_BINARY_OPS)
EMBER_FOR_INTS(EMBER_INT_BINARY_OPS)
EMBER_BINARY(bitwise_and, bool, bool) EMBER_BINARY(bitwise_or, bool, bool)
EMBER_BINARY(bitwise_xor, bool, bool)

// --- where(cond, a, b) -----------------------------------------------------------------------
#define EMBER_WHERE(name, T)                                                                  \
  extern "C" __global__ void where_##name(i64 n, const i64* meta, T* out, const bool* c,     \
                                          const T* a, const T* b) {                          \
    Offsets<4> oc(meta);                                                                     \
    EMBER_LOOP(i, n) {                                                                       \
      i64 o[4];                                                                              \
      oc.get(i, o);                                                                          \
      out[o[0]] = c[o[1]] ? a[o[2]] : b[o[3]];                                               \
    }                                                                                        \
  }
EMBER_FOR_ALL(EMBER_WHERE)
