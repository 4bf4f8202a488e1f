// ternary.cu: strided elementwise kernels of three operands and a scalar: lerp (weight a
// scalar or a tensor), addcmul, addcdiv. Layouts as in elementwise.cu (Offsets<4>: out, a, b,
// c; broadcast dims have stride 0); 16-bit floats compute in float.
#include "common.cuh"

using namespace ember;

template <class T, class Op>
__device__ void ternary_body(i64 n, const i64* meta, T* out, const T* a, const T* b, const T* c,
                             typename Acc<T>::type v) {
  typedef typename Acc<T>::type A;
  Offsets<4> oc(meta);
  EMBER_LOOP(i, n) {
    i64 o[4];
    oc.get(i, o);
    out[o[0]] = cast<T>(Op()(cast<A>(a[o[1]]), cast<A>(b[o[2]]), cast<A>(c[o[3]]), v));
  }
}

// torch's lerp: a + w * (b - a) for |w| < 0.5, else b - (b - a) * (1 - w)
template <class A> __device__ __forceinline__ A lerp(A a, A b, A w) {
  A d = b - a;
  return (w < A(0) ? -w : w) < A(0.5) ? a + w * d : b - d * (A(1) - w);
}
__device__ __forceinline__ float m_fma(float x, float y, float z) { return fmaf(x, y, z); }
__device__ __forceinline__ double m_fma(double x, double y, double z) { return fma(x, y, z); }

#define EMBER_TERNARY_OP(op, expr) \
  struct Op_##op { template <class A> __device__ A operator()(A a, A b, A c, A v) const { return expr; } };
EMBER_TERNARY_OP(lerp_scalar, lerp(a, b, v))
EMBER_TERNARY_OP(lerp_tensor, lerp(a, b, c))
EMBER_TERNARY_OP(addcmul, m_fma(v * b, c, a))     // torch: fma(value * tensor1, tensor2, self)
EMBER_TERNARY_OP(addcmul_int, A(a + v * b * c))
EMBER_TERNARY_OP(addcdiv, a + v * b / c)

#define EMBER_TERNARY(op, name, T)                                                               \
  extern "C" __global__ void ternary_##op##_##name(i64 n, const i64* meta, T* out, const T* a,  \
                                                   const T* b, const T* c, Acc<T>::type v) {    \
    ternary_body<T, Op_##op>(n, meta, out, a, b, c, v);                                          \
  }
#define EMBER_TERNARY_FLOAT(name, T)                                                             \
  EMBER_TERNARY(lerp_scalar, name, T) EMBER_TERNARY(lerp_tensor, name, T)                        \
  EMBER_TERNARY(addcmul, name, T) EMBER_TERNARY(addcdiv, name, T)
#define EMBER_TERNARY_INT(name, T) EMBER_TERNARY(addcmul_int, name, T)
EMBER_FOR_FLOATS(EMBER_TERNARY_FLOAT)
EMBER_FOR_INTS(EMBER_TERNARY_INT)
