// reduce.cu: reductions over any set of dims (sum, prod, max, min with a scale for mean;
// argmax/argmin with their values). One block per output element (a grid-stride loop over
// outputs): each thread folds its slice of the reduced elements in a fixed order, then the
// block combines the partials with warp shuffles and one shared-memory step, so results are
// deterministic. The host passes two layouts (common.cuh's Offsets):
//   kept:    [ndim, sizes, input strides, output strides (, second output strides)]
//   reduced: [ndim, sizes, input strides]
#include "common.cuh"

using namespace ember;

// The type a reduction carries and shuffles: float for 16-bit floats, int for the integer
// types narrower than int and bool (CUDA shuffles 32/64-bit values only).
template <class T> struct Red { typedef typename Acc<T>::type type; };
template <> struct Red<bool> { typedef int type; };
template <> struct Red<uint8> { typedef int type; };
template <> struct Red<int8> { typedef int type; };
template <> struct Red<int16> { typedef int type; };

template <class A> __device__ __forceinline__ bool nan_of(A x) { return x != x; }

struct SumOp {
  template <class A> __device__ A identity() const { return A(0); }
  template <class A> __device__ A operator()(A a, A b) const { return a + b; }
};
struct ProdOp {
  template <class A> __device__ A identity() const { return A(1); }
  template <class A> __device__ A operator()(A a, A b) const { return a * b; }
};
struct MaxOp {  // NaN wins
  template <class A> __device__ A identity() const { return A(0); }  // unused: never empty
  template <class A> __device__ A operator()(A a, A b) const {
    return nan_of(a) ? a : (nan_of(b) ? b : (a < b ? b : a));
  }
};
struct MinOp {
  template <class A> __device__ A identity() const { return A(0); }
  template <class A> __device__ A operator()(A a, A b) const {
    return nan_of(a) ? a : (nan_of(b) ? b : (b < a ? b : a));
  }
};

// Combines every thread's value; the result is valid in thread 0.
template <class A, class Op> __device__ A block_reduce(A v, Op op, A* partials) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int d = 16; d > 0; d >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, d));
  if (lane == 0) partials[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? partials[lane] : partials[0];
    for (int d = 16; d > 0; d >>= 1) {
      A o = __shfl_down_sync(0xffffffffu, v, d);
      if (lane + d < warps) v = op(v, o);
    }
  }
  __syncthreads();  // partials are reused by the next output
  return v;
}

template <class T, class Op>
__device__ void reduce_body(i64 n_out, i64 n_red, const i64* kept, const i64* red, T* out,
                            const T* in, typename Red<T>::type scale, Op op, bool first) {
  typedef typename Red<T>::type A;
  __shared__ A partials[32];
  Offsets<2> ok(kept);
  Offsets<1> orr(red);
  for (i64 o = blockIdx.x; o < n_out; o += gridDim.x) {
    i64 base[2];
    ok.get(o, base);
    A v = op.template identity<A>();
    bool any = false;
    for (i64 r = threadIdx.x; r < n_red; r += blockDim.x) {
      i64 off[1];
      orr.get(r, off);
      A x = cast<A>(in[base[0] + off[0]]);
      v = (first && !any) ? x : op(v, x);
      any = true;
    }
    if (first && !any) v = cast<A>(in[base[0]]);  // max/min: an idle thread repeats element 0
    v = block_reduce(v, op, partials);
    if (threadIdx.x == 0) out[base[1]] = cast<T>(v * scale);
  }
}

#define EMBER_REDUCE(op, Op, first, name, T)                                                     \
  extern "C" __global__ void reduce_##op##_##name(i64 n_out, i64 n_red, const i64* kept,        \
                                                  const i64* red, T* out, const T* in,          \
                                                  typename Red<T>::type scale) {                \
    reduce_body<T>(n_out, n_red, kept, red, out, in, scale, Op(), first);                       \
  }
#define EMBER_REDUCE_OPS(name, T)                                                                \
  EMBER_REDUCE(sum, SumOp, false, name, T) EMBER_REDUCE(prod, ProdOp, false, name, T)            \
  EMBER_REDUCE(max, MaxOp, true, name, T) EMBER_REDUCE(min, MinOp, true, name, T)
EMBER_FOR_ALL(EMBER_REDUCE_OPS)

// --- argmax / argmin: (value, index) pairs; ties and NaNs keep the first index ---------------
template <class A> struct ArgPair {
  A v;
  i64 i;
};
template <bool IsMax> struct ArgOp {
  template <class A> __device__ ArgPair<A> operator()(ArgPair<A> a, ArgPair<A> b) const {
    if (nan_of(a.v)) return (nan_of(b.v) && b.i < a.i) ? b : a;
    if (nan_of(b.v)) return b;
    bool b_wins = IsMax ? (b.v > a.v) : (b.v < a.v);
    return (b_wins || (b.v == a.v && b.i < a.i)) ? b : a;
  }
};
template <class A> __device__ ArgPair<A> shfl_down(ArgPair<A> p, int d) {
  ArgPair<A> r;
  r.v = __shfl_down_sync(0xffffffffu, p.v, d);
  r.i = __shfl_down_sync(0xffffffffu, p.i, d);
  return r;
}

template <class T, bool IsMax>
__device__ void arg_reduce_body(i64 n_out, i64 n_red, const i64* kept, const i64* red,
                                i64* idx_out, T* val_out, const T* in) {
  typedef typename Red<T>::type A;
  __shared__ ArgPair<A> partials[32];
  ArgOp<IsMax> op;
  Offsets<3> ok(kept);
  Offsets<1> orr(red);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (i64 o = blockIdx.x; o < n_out; o += gridDim.x) {
    i64 base[3];
    ok.get(o, base);
    ArgPair<A> v;
    v.v = cast<A>(in[base[0]]);
    v.i = 0;
    for (i64 r = threadIdx.x; r < n_red; r += blockDim.x) {
      i64 off[1];
      orr.get(r, off);
      ArgPair<A> x;
      x.v = cast<A>(in[base[0] + off[0]]);
      x.i = r;
      v = op(v, x);
    }
    for (int d = 16; d > 0; d >>= 1) v = op(v, shfl_down(v, d));
    if (lane == 0) partials[warp] = v;
    __syncthreads();
    if (warp == 0) {
      v = lane < warps ? partials[lane] : partials[0];
      for (int d = 16; d > 0; d >>= 1) {
        ArgPair<A> other = shfl_down(v, d);
        if (lane + d < warps) v = op(v, other);
      }
      if (lane == 0) {
        idx_out[base[1]] = v.i;
        if (val_out) val_out[base[2]] = cast<T>(v.v);
      }
    }
    __syncthreads();
  }
}

#define EMBER_ARG_REDUCE(name, T)                                                                \
  extern "C" __global__ void reduce_argmax_##name(i64 n_out, i64 n_red, const i64* kept,        \
                                                  const i64* red, i64* idx, T* val,             \
                                                  const T* in) {                                \
    arg_reduce_body<T, true>(n_out, n_red, kept, red, idx, val, in);                            \
  }                                                                                              \
  extern "C" __global__ void reduce_argmin_##name(i64 n_out, i64 n_red, const i64* kept,        \
                                                  const i64* red, i64* idx, T* val,             \
                                                  const T* in) {                                \
    arg_reduce_body<T, false>(n_out, n_red, kept, red, idx, val, in);                           \
  }
EMBER_FOR_ALL(EMBER_ARG_REDUCE)

// --- logsumexp and vector norms (float types) -------------------------------------------------
template <class A> __device__ __forceinline__ A m_exp(A x) { return exp(x); }
template <> __device__ __forceinline__ float m_exp(float x) { return expf(x); }
template <class A> __device__ __forceinline__ A m_log(A x) { return log(x); }
template <> __device__ __forceinline__ float m_log(float x) { return logf(x); }
template <class A> __device__ __forceinline__ A m_pow(A x, A y) { return pow(x, y); }
template <> __device__ __forceinline__ float m_pow(float x, float y) { return powf(x, y); }
template <class A> __device__ __forceinline__ A m_sqrt(A x) { return sqrt(x); }
template <> __device__ __forceinline__ float m_sqrt(float x) { return sqrtf(x); }

// The block's value of block_reduce, in every thread (`slot`: shared, read after a barrier).
template <class A, class Op> __device__ A block_all(A v, Op op, A* partials, A* slot) {
  v = block_reduce(v, op, partials);
  if (threadIdx.x == 0) *slot = v;
  __syncthreads();
  return *slot;
}

// log(sum(exp(x - m))) + m with m the max (an infinite max shifts by 0, as torch does).
template <class T>
__device__ void logsumexp_body(i64 n_out, i64 n_red, const i64* kept, const i64* red, T* out,
                               const T* in) {
  typedef typename Acc<T>::type A;
  __shared__ A partials[32];
  __shared__ A slot;
  Offsets<2> ok(kept);
  Offsets<1> orr(red);
  for (i64 o = blockIdx.x; o < n_out; o += gridDim.x) {
    i64 base[2], off[1];
    ok.get(o, base);
    A m = cast<A>(in[base[0]]);
    for (i64 r = threadIdx.x; r < n_red; r += blockDim.x) {
      orr.get(r, off);
      m = MaxOp()(m, cast<A>(in[base[0] + off[0]]));
    }
    m = block_all(m, MaxOp(), partials, &slot);
    A shift = (m - m == A(0) || m != m) ? m : A(0);   // finite or NaN: itself; +-inf: 0
    A s = A(0);
    for (i64 r = threadIdx.x; r < n_red; r += blockDim.x) {
      orr.get(r, off);
      s += m_exp(cast<A>(in[base[0] + off[0]]) - shift);
    }
    s = block_reduce(s, SumOp(), partials);
    if (threadIdx.x == 0) out[base[1]] = cast<T>(m_log(s) + shift);
  }
}

// linalg.vector_norm: ord inf / -inf: max / min of |x|; 0: the non-zeros; 1: sum |x|;
// 2: sqrt(sum x^2); else (sum |x|^ord)^(1/ord).
template <class T>
__device__ void norm_body(i64 n_out, i64 n_red, const i64* kept, const i64* red, T* out,
                          const T* in, typename Acc<T>::type ord) {
  typedef typename Acc<T>::type A;
  __shared__ A partials[32];
  Offsets<2> ok(kept);
  Offsets<1> orr(red);
  const A inf = A(1) / A(0);
  for (i64 o = blockIdx.x; o < n_out; o += gridDim.x) {
    i64 base[2], off[1];
    ok.get(o, base);
    A v = ord == -inf ? inf : A(0);
    for (i64 r = threadIdx.x; r < n_red; r += blockDim.x) {
      orr.get(r, off);
      A x = cast<A>(in[base[0] + off[0]]);
      A a = x < A(0) ? -x : x;
      if (ord == inf) v = MaxOp()(v, a);
      else if (ord == -inf) v = MinOp()(v, a);
      else v += ord == A(0) ? A(x != A(0)) : ord == A(1) ? a : ord == A(2) ? a * a : m_pow(a, ord);
    }
    if (ord == inf) v = block_reduce(v, MaxOp(), partials);
    else if (ord == -inf) v = block_reduce(v, MinOp(), partials);
    else v = block_reduce(v, SumOp(), partials);
    if (threadIdx.x == 0) {
      if (ord == A(2)) v = m_sqrt(v);
      else if (ord != A(0) && ord != A(1) && ord != inf && ord != -inf) v = m_pow(v, A(1) / ord);
      out[base[1]] = cast<T>(v);
    }
  }
}

#define EMBER_FLOAT_REDUCE(name, T)                                                              \
  extern "C" __global__ void reduce_logsumexp_##name(i64 n_out, i64 n_red, const i64* kept,     \
                                                     const i64* red, T* out, const T* in) {     \
    logsumexp_body<T>(n_out, n_red, kept, red, out, in);                                         \
  }                                                                                              \
  extern "C" __global__ void reduce_norm_##name(i64 n_out, i64 n_red, const i64* kept,          \
                                                const i64* red, T* out, const T* in,            \
                                                Acc<T>::type ord) {                             \
    norm_body<T>(n_out, n_red, kept, red, out, in, ord);                                         \
  }
EMBER_FOR_FLOATS(EMBER_FLOAT_REDUCE)
