// activation.cu: activations with scalar parameters and their backward, as strided
// elementwise kernels (layouts as in elementwise.cu): act_<op>_<dtype>(n, meta, out, x, p0,
// p1, p2) and act_<op>_backward_<dtype>(n, meta, out, grad, x, p0, p1, p2); 16-bit floats
// compute in float. gelu (erf and tanh forms), softplus, leaky_relu, elu, hardtanh, silu,
// hardswish, hardsigmoid, mish, hardshrink, softshrink.
#include "common.cuh"

using namespace ember;

#define EMBER_MATH(fn)                                                                        \
  __device__ __forceinline__ float m_##fn(float x) { return fn##f(x); }                      \
  __device__ __forceinline__ double m_##fn(double x) { return fn(x); }
EMBER_MATH(exp) EMBER_MATH(expm1) EMBER_MATH(log1p) EMBER_MATH(tanh) EMBER_MATH(erf)

template <class A> __device__ __forceinline__ A maximum(A a, A b) { return a != a || a > b ? a : b; }
template <class A> __device__ __forceinline__ A minimum(A a, A b) { return a != a || a < b ? a : b; }

#define K_BETA A(0.7978845608028654)     // sqrt(2 / pi)
#define K_KAPPA A(0.044715)
#define K_SQRT1_2 A(0.7071067811865476)
#define K_INV_SQRT_2PI A(0.3989422804014327)

#define EMBER_ACT_OP(op, expr) \
  struct Op_##op { template <class A> __device__ A operator()(A x, A p0, A p1, A p2) const { return expr; } };
#define EMBER_ACT_BACKWARD_OP(op, expr) \
  struct Op_##op##_backward { template <class A> __device__ A operator()(A g, A x, A p0, A p1, A p2) const { return expr; } };

EMBER_ACT_OP(gelu, x * A(0.5) * (A(1) + m_erf(x * K_SQRT1_2)))
EMBER_ACT_OP(gelu_tanh, A(0.5) * x * (A(1) + m_tanh(K_BETA * (x + K_KAPPA * x * x * x))))
EMBER_ACT_OP(softplus, x * p0 > p1 ? x : m_log1p(m_exp(x * p0)) / p0)      // beta, threshold
EMBER_ACT_OP(leaky_relu, x > A(0) ? x : x * p0)                              // slope
EMBER_ACT_OP(elu, x < A(0) ? m_expm1(x * p2) * (p0 * p1) : x * p1)           // alpha, scale, input_scale (0: x * scale, as torch)
EMBER_ACT_OP(hardtanh, minimum(maximum(x, p0), p1))                          // min, max
EMBER_ACT_OP(hardswish, x * minimum(maximum(x + A(3), A(0)), A(6)) / A(6))
EMBER_ACT_OP(hardsigmoid, minimum(maximum(x + A(3), A(0)), A(6)) / A(6))
EMBER_ACT_OP(mish, x * m_tanh(m_log1p(m_exp(x))))
EMBER_ACT_OP(hardshrink, (x >= -p0 && x <= p0) ? A(0) : x)                   // lambd
EMBER_ACT_OP(softshrink, x > p0 ? x - p0 : (x < -p0 ? x + p0 : x * A(0)))    // lambd

EMBER_ACT_BACKWARD_OP(gelu, g * (A(0.5) * (A(1) + m_erf(x * K_SQRT1_2)) +
                                 x * m_exp(A(-0.5) * x * x) * K_INV_SQRT_2PI))
struct Op_gelu_tanh_backward_impl {
  template <class A> __device__ A operator()(A g, A x) const {
    A t = m_tanh(K_BETA * (x + K_KAPPA * x * x * x));
    A right = A(0.5) * x * (A(1) - t * t) * K_BETA * (A(1) + A(3) * K_KAPPA * x * x);
    return g * (A(0.5) * (A(1) + t) + right);
  }
};
EMBER_ACT_BACKWARD_OP(gelu_tanh, Op_gelu_tanh_backward_impl()(g, x))
EMBER_ACT_BACKWARD_OP(silu, g * (A(1) / (A(1) + m_exp(-x))) * (A(1) + x * (A(1) - A(1) / (A(1) + m_exp(-x)))))
EMBER_ACT_BACKWARD_OP(softplus, x * p0 > p1 ? g : g * m_exp(x * p0) / (m_exp(x * p0) + A(1)))
EMBER_ACT_BACKWARD_OP(leaky_relu, x > A(0) ? g : g * p0)
// elu: p0 = alpha * scale, p1 = scale, p2 = input_scale; x is the input, or the result
EMBER_ACT_BACKWARD_OP(elu, x <= A(0) ? g * p2 * p0 * m_exp(x * p2) : g * p1)
EMBER_ACT_BACKWARD_OP(elu_result, x <= A(0) ? g * p2 * (x + p0) : g * p1)
EMBER_ACT_BACKWARD_OP(hardtanh, (x <= p0 || x >= p1) ? A(0) : g)
EMBER_ACT_BACKWARD_OP(hardswish, x <= A(-3) ? A(0) : (x < A(3) ? g * (x / A(3) + A(0.5)) : g))
EMBER_ACT_BACKWARD_OP(hardsigmoid, (x > A(-3) && x < A(3)) ? g * p0 : A(0))  // 1/6
struct Op_mish_backward_impl {
  template <class A> __device__ A operator()(A g, A x) const {
    A sigmoid = A(1) / (A(1) + m_exp(-x));
    A t = m_tanh(m_log1p(m_exp(x)));
    return g * (t + x * sigmoid * (A(1) - t * t));
  }
};
EMBER_ACT_BACKWARD_OP(mish, Op_mish_backward_impl()(g, x))
EMBER_ACT_BACKWARD_OP(shrink, (x >= -p0 && x <= p0) ? A(0) : g)              // lambd

#define EMBER_ACT(op, name, T)                                                                   \
  extern "C" __global__ void act_##op##_##name(i64 n, const i64* meta, T* out, const T* x,      \
                                               Acc<T>::type p0, Acc<T>::type p1,                \
                                               Acc<T>::type p2) {                               \
    typedef Acc<T>::type A;                                                                      \
    Offsets<2> oc(meta);                                                                         \
    EMBER_LOOP(i, n) {                                                                           \
      i64 o[2];                                                                                  \
      oc.get(i, o);                                                                              \
      out[o[0]] = cast<T>(Op_##op()(cast<A>(x[o[1]]), p0, p1, p2));                              \
    }                                                                                            \
  }
#define EMBER_ACT_BACKWARD(op, name, T)                                                          \
  extern "C" __global__ void act_##op##_backward_##name(i64 n, const i64* meta, T* out,         \
                                                        const T* g, const T* x,                 \
                                                        Acc<T>::type p0, Acc<T>::type p1,       \
                                                        Acc<T>::type p2) {                      \
    typedef Acc<T>::type A;                                                                      \
    Offsets<3> oc(meta);                                                                         \
    EMBER_LOOP(i, n) {                                                                           \
      i64 o[3];                                                                                  \
      oc.get(i, o);                                                                              \
      out[o[0]] = cast<T>(Op_##op##_backward()(cast<A>(g[o[1]]), cast<A>(x[o[2]]), p0, p1, p2)); \
    }                                                                                            \
  }
#define EMBER_ACT_FLOAT(name, T)                                                                 \
  EMBER_ACT(gelu, name, T) EMBER_ACT(gelu_tanh, name, T) EMBER_ACT(softplus, name, T)            \
  EMBER_ACT(leaky_relu, name, T) EMBER_ACT(elu, name, T)                                         \
  EMBER_ACT_BACKWARD(gelu, name, T) EMBER_ACT_BACKWARD(gelu_tanh, name, T)                       \
  EMBER_ACT_BACKWARD(silu, name, T) EMBER_ACT_BACKWARD(softplus, name, T)                        \
  EMBER_ACT_BACKWARD(leaky_relu, name, T) EMBER_ACT_BACKWARD(elu, name, T)                       \
  EMBER_ACT_BACKWARD(elu_result, name, T) EMBER_ACT_BACKWARD(hardtanh, name, T)              \
  EMBER_ACT(hardswish, name, T) EMBER_ACT(hardsigmoid, name, T) EMBER_ACT(mish, name, T)         \
  EMBER_ACT(hardshrink, name, T) EMBER_ACT(softshrink, name, T)                                  \
  EMBER_ACT_BACKWARD(hardswish, name, T) EMBER_ACT_BACKWARD(hardsigmoid, name, T)                \
  EMBER_ACT_BACKWARD(mish, name, T) EMBER_ACT_BACKWARD(shrink, name, T)
EMBER_FOR_FLOATS(EMBER_ACT_FLOAT)
#define EMBER_ACT_HARDTANH(name, T) EMBER_ACT(hardtanh, name, T)
EMBER_FOR_FLOATS(EMBER_ACT_HARDTANH)
EMBER_FOR_INTS(EMBER_ACT_HARDTANH)
