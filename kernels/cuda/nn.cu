// nn.cu: softmax / log_softmax and their backward (one block per row, block reductions as in
// reduce.cu), and nll_loss per-sample terms with a device-side target check.
// Row layouts: kept = Offsets over every dim but `dim` ([ndim, sizes, strides of each
// operand]); along `dim` each operand has one stride.
#include "common.cuh"

using namespace ember;

template <class A> __device__ A row_reduce(A v, bool is_max, A* partials) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int d = 16; d > 0; d >>= 1) {
    A o = __shfl_down_sync(0xffffffffu, v, d);
    v = is_max ? ((o > v || o != o) ? o : v) : v + o;
  }
  if (lane == 0) partials[warp] = v;
  __syncthreads();
  A r = partials[0];
  for (int w = 1; w < warps; ++w) {
    A p = partials[w];
    r = is_max ? ((p > r || p != p) ? p : r) : r + p;
  }
  __syncthreads();
  return r;  // every thread gets the row's value
}

__device__ __forceinline__ float m_exp(float x) { return expf(x); }
__device__ __forceinline__ double m_exp(double x) { return exp(x); }
__device__ __forceinline__ float m_log(float x) { return logf(x); }
__device__ __forceinline__ double m_log(double x) { return log(x); }

template <class T>
__device__ void softmax_body(i64 rows, i64 n, const i64* kept, i64 s_in, i64 s_out, T* out,
                             const T* in, int log_softmax) {
  typedef typename Acc<T>::type A;
  __shared__ A partials[32];
  Offsets<2> ok(kept);
  for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
    i64 base[2];
    ok.get(r, base);
    const T* x = in + base[0];
    T* y = out + base[1];
    A mx = n > 0 ? cast<A>(x[0]) : A(0);
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) {
      A v = cast<A>(x[i * s_in]);
      mx = (v > mx || v != v) ? v : mx;
    }
    mx = row_reduce(mx, true, partials);
    A sum = A(0);
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) sum += m_exp(cast<A>(x[i * s_in]) - mx);
    sum = row_reduce(sum, false, partials);
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) {
      A v = cast<A>(x[i * s_in]) - mx;
      y[i * s_out] = cast<T>(log_softmax ? v - m_log(sum) : m_exp(v) / sum);
    }
  }
}

// softmax: gi = y * (g - sum(g * y)); log_softmax: gi = g - exp(y) * sum(g)
template <class T>
__device__ void softmax_backward_body(i64 rows, i64 n, const i64* kept, i64 s_g, i64 s_y,
                                      i64 s_gi, T* gi, const T* g, const T* y, int log_softmax) {
  typedef typename Acc<T>::type A;
  __shared__ A partials[32];
  Offsets<3> ok(kept);
  for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
    i64 base[3];
    ok.get(r, base);
    A s = A(0);
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) {
      A gv = cast<A>(g[base[0] + i * s_g]);
      s += log_softmax ? gv : gv * cast<A>(y[base[1] + i * s_y]);
    }
    s = row_reduce(s, false, partials);
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) {
      A gv = cast<A>(g[base[0] + i * s_g]), yv = cast<A>(y[base[1] + i * s_y]);
      gi[base[2] + i * s_gi] = cast<T>(log_softmax ? gv - m_exp(yv) * s : yv * (gv - s));
    }
  }
}

// Per sample i: loss[i] = -w[t] * x[i, t] and weight[i] = w[t] (0 for ignore_index); a target
// outside [0, C) is recorded in *bad (the host raises torch's IndexError).
template <class T>
__device__ void nll_body(i64 N, i64 C, const T* x, i64 sx0, i64 sx1, const i64* target,
                         i64 st, const T* w, i64 ignore, T* loss, T* weight, i64* bad) {
  typedef typename Acc<T>::type A;
  EMBER_LOOP(i, N) {
    i64 t = target[i * st];
    if (t == ignore) {
      loss[i] = cast<T>(A(0));
      weight[i] = cast<T>(A(0));
      continue;
    }
    if (t < 0 || t >= C) {
      *bad = t;
      t = 0;
    }
    A wt = w ? cast<A>(w[t]) : A(1);
    loss[i] = cast<T>(-wt * cast<A>(x[i * sx0 + t * sx1]));
    weight[i] = cast<T>(wt);
  }
}

// grad_input[i, t] = -w[t] * g[i] * scale (grad_input zero-filled by the host)
template <class T>
__device__ void nll_backward_body(i64 N, const i64* target, i64 st, const T* w, i64 ignore,
                                  const T* g, i64 sg, typename Acc<T>::type scale, T* gi,
                                  i64 sgi0, i64 sgi1, i64 C, i64* bad) {
  typedef typename Acc<T>::type A;
  EMBER_LOOP(i, N) {
    i64 t = target[i * st];
    if (t == ignore) continue;
    if (t < 0 || t >= C) {
      *bad = t;
      continue;
    }
    A wt = w ? cast<A>(w[t]) : A(1);
    gi[i * sgi0 + t * sgi1] = cast<T>(-wt * cast<A>(g[i * sg]) * scale);
  }
}

#define EMBER_NN(name, T)                                                                        \
  extern "C" __global__ void softmax_##name(i64 rows, i64 n, const i64* kept, i64 s_in,         \
                                            i64 s_out, T* out, const T* in, int log_softmax) {  \
    softmax_body<T>(rows, n, kept, s_in, s_out, out, in, log_softmax);                           \
  }                                                                                              \
  extern "C" __global__ void softmax_backward_##name(i64 rows, i64 n, const i64* kept, i64 s_g, \
                                                     i64 s_y, i64 s_gi, T* gi, const T* g,      \
                                                     const T* y, int log_softmax) {             \
    softmax_backward_body<T>(rows, n, kept, s_g, s_y, s_gi, gi, g, y, log_softmax);              \
  }                                                                                              \
  extern "C" __global__ void nll_loss_##name(i64 N, i64 C, const T* x, i64 sx0, i64 sx1,        \
                                             const i64* target, i64 st, const T* w, i64 ignore, \
                                             T* loss, T* weight, i64* bad) {                    \
    nll_body<T>(N, C, x, sx0, sx1, target, st, w, ignore, loss, weight, bad);                    \
  }                                                                                              \
  extern "C" __global__ void nll_loss_backward_##name(                                           \
      i64 N, const i64* target, i64 st, const T* w, i64 ignore, const T* g, i64 sg,              \
      typename Acc<T>::type scale, T* gi, i64 sgi0, i64 sgi1, i64 C, i64* bad) {                 \
    nll_backward_body<T>(N, target, st, w, ignore, g, sg, scale, gi, sgi0, sgi1, C, bad);        \
  }
EMBER_FOR_FLOATS(EMBER_NN)

// --- batch_norm: per-channel statistics (a block per channel, two passes in float or double)
// and the fused elementwise steps. `red` is Offsets over the reduced dims (every dim but 1)
// with the strides of x (and of grad_out); channel c starts at c * s_c. The elementwise
// kernels address the per-channel arrays (length C, contiguous, in the accumulation type)
// through a third layout operand whose stride is 1 along dim 1 and 0 elsewhere.
template <class T>
__device__ void batch_norm_stats_body(i64 C, i64 n, const i64* red, i64 s_c, const T* x,
                                      typename Acc<T>::type* mean, typename Acc<T>::type* var) {
  typedef typename Acc<T>::type A;
  __shared__ A partials[32];
  Offsets<1> orr(red);
  for (i64 c = blockIdx.x; c < C; c += gridDim.x) {
    const T* xc = x + c * s_c;
    A s = A(0);
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) {
      i64 o[1];
      orr.get(i, o);
      s += cast<A>(xc[o[0]]);
    }
    A m = row_reduce(s, false, partials) / A(n);
    A q = A(0);
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) {
      i64 o[1];
      orr.get(i, o);
      A d = cast<A>(xc[o[0]]) - m;
      q += d * d;
    }
    q = row_reduce(q, false, partials);
    if (threadIdx.x == 0) {
      mean[c] = m;
      var[c] = q / A(n);
    }
  }
}

// sum_dy[c] = sum(grad_out), sum_dy_xmu[c] = sum(grad_out * (x - mean[c])) over channel c.
template <class T>
__device__ void batch_norm_backward_reduce_body(i64 C, i64 n, const i64* red, i64 sx_c, i64 sg_c,
                                                const T* x, const T* g,
                                                const typename Acc<T>::type* mean,
                                                typename Acc<T>::type* sum_dy,
                                                typename Acc<T>::type* sum_dy_xmu) {
  typedef typename Acc<T>::type A;
  __shared__ A partials[32];
  Offsets<2> orr(red);
  for (i64 c = blockIdx.x; c < C; c += gridDim.x) {
    A m = mean[c], s = A(0), sx = A(0);
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) {
      i64 o[2];
      orr.get(i, o);
      A gv = cast<A>(g[c * sg_c + o[1]]);
      s += gv;
      sx += gv * (cast<A>(x[c * sx_c + o[0]]) - m);
    }
    s = row_reduce(s, false, partials);
    sx = row_reduce(sx, false, partials);
    if (threadIdx.x == 0) {
      sum_dy[c] = s;
      sum_dy_xmu[c] = sx;
    }
  }
}

// out = (x - mean) * invstd * w + b (w, b optional)
template <class T>
__device__ void batch_norm_elemt_body(i64 n, const i64* meta, T* out, const T* x,
                                      const typename Acc<T>::type* mean,
                                      const typename Acc<T>::type* invstd,
                                      const typename Acc<T>::type* w,
                                      const typename Acc<T>::type* b) {
  typedef typename Acc<T>::type A;
  Offsets<3> oc(meta);
  EMBER_LOOP(i, n) {
    i64 o[3];
    oc.get(i, o);
    A y = (cast<A>(x[o[1]]) - mean[o[2]]) * invstd[o[2]];
    if (w) y *= w[o[2]];
    if (b) y += b[o[2]];
    out[o[0]] = cast<T>(y);
  }
}

// grad_input: training (sum_dy given) subtracts the projections on the batch statistics;
// evaluation is grad_out * invstd * w.
template <class T>
__device__ void batch_norm_backward_elemt_body(
    i64 n, const i64* meta, T* dx, const T* g, const T* x, const typename Acc<T>::type* mean,
    const typename Acc<T>::type* invstd, const typename Acc<T>::type* w,
    const typename Acc<T>::type* sum_dy, const typename Acc<T>::type* sum_dy_xmu,
    typename Acc<T>::type inv_n) {
  typedef typename Acc<T>::type A;
  Offsets<4> oc(meta);
  EMBER_LOOP(i, n) {
    i64 o[4];
    oc.get(i, o);
    i64 c = o[3];
    A r = invstd[c], gv = cast<A>(g[o[1]]);
    if (sum_dy) gv -= sum_dy[c] * inv_n + (cast<A>(x[o[2]]) - mean[c]) * r * r * sum_dy_xmu[c] * inv_n;
    dx[o[0]] = cast<T>(gv * r * (w ? w[c] : A(1)));
  }
}

#define EMBER_BATCH_NORM(name, T)                                                                \
  extern "C" __global__ void batch_norm_stats_##name(i64 C, i64 n, const i64* red, i64 s_c,     \
                                                     const T* x, Acc<T>::type* mean,            \
                                                     Acc<T>::type* var) {                       \
    batch_norm_stats_body<T>(C, n, red, s_c, x, mean, var);                                      \
  }                                                                                              \
  extern "C" __global__ void batch_norm_backward_reduce_##name(                                  \
      i64 C, i64 n, const i64* red, i64 sx_c, i64 sg_c, const T* x, const T* g,                 \
      const Acc<T>::type* mean, Acc<T>::type* sum_dy, Acc<T>::type* sum_dy_xmu) {                \
    batch_norm_backward_reduce_body<T>(C, n, red, sx_c, sg_c, x, g, mean, sum_dy, sum_dy_xmu);   \
  }                                                                                              \
  extern "C" __global__ void batch_norm_elemt_##name(i64 n, const i64* meta, T* out, const T* x,\
                                                     const Acc<T>::type* mean,                  \
                                                     const Acc<T>::type* invstd,                \
                                                     const Acc<T>::type* w,                     \
                                                     const Acc<T>::type* b) {                   \
    batch_norm_elemt_body<T>(n, meta, out, x, mean, invstd, w, b);                               \
  }                                                                                              \
  extern "C" __global__ void batch_norm_backward_elemt_##name(                                   \
      i64 n, const i64* meta, T* dx, const T* g, const T* x, const Acc<T>::type* mean,           \
      const Acc<T>::type* invstd, const Acc<T>::type* w, const Acc<T>::type* sum_dy,             \
      const Acc<T>::type* sum_dy_xmu, Acc<T>::type inv_n) {                                      \
    batch_norm_backward_elemt_body<T>(n, meta, dx, g, x, mean, invstd, w, sum_dy, sum_dy_xmu,    \
                                      inv_n);                                                    \
  }
EMBER_FOR_FLOATS(EMBER_BATCH_NORM)
