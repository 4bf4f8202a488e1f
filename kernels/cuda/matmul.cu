// matmul.cu: C = beta * bias + alpha * A @ B for batches of matrices with any strides, as a
// tiled shared-memory kernel (16x16 tiles, float accumulation for 16-bit floats). On a GPU
// ember prefers cuBLAS through CuPy; this kernel runs on the emulator and is the reference.
// strides = [A: batch, row, col, B: batch, row, col, C: batch, row, col, bias: batch, row, col]
#include "common.cuh"

using namespace ember;

#define EMBER_TILE 16

template <class T>
__device__ void gemm_body(i64 M, i64 N, i64 K, const i64* st, T* C, const T* A, const T* B,
                          const T* bias, typename Acc<T>::type alpha, typename Acc<T>::type beta) {
  typedef typename Acc<T>::type Ac;
  __shared__ Ac As[EMBER_TILE][EMBER_TILE];
  __shared__ Ac Bs[EMBER_TILE][EMBER_TILE];
  i64 b = blockIdx.z;
  i64 row = (i64)blockIdx.y * EMBER_TILE + threadIdx.y;
  i64 col = (i64)blockIdx.x * EMBER_TILE + threadIdx.x;
  const T* a = A + b * st[0];
  const T* bb = B + b * st[3];
  Ac acc = Ac(0);
  for (i64 k0 = 0; k0 < K; k0 += EMBER_TILE) {
    i64 ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? cast<Ac>(a[row * st[1] + ka * st[2]]) : Ac(0);
    Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? cast<Ac>(bb[kb * st[4] + col * st[5]]) : Ac(0);
    __syncthreads();
    for (int k = 0; k < EMBER_TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) {
    Ac r = alpha * acc;
    if (bias) r += beta * cast<Ac>(bias[b * st[9] + row * st[10] + col * st[11]]);
    C[b * st[6] + row * st[7] + col * st[8]] = cast<T>(r);
  }
}

#define EMBER_GEMM(name, T)                                                                      \
  extern "C" __global__ void gemm_##name(i64 M, i64 N, i64 K, const i64* strides, T* C,         \
                                         const T* A, const T* B, const T* bias,                 \
                                         typename Acc<T>::type alpha,                           \
                                         typename Acc<T>::type beta) {                          \
    gemm_body<T>(M, N, K, strides, C, A, B, bias, alpha, beta);                                  \
  }
EMBER_FOR_FLOATS(EMBER_GEMM)
EMBER_FOR_INTS(EMBER_GEMM)
