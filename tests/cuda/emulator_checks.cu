// Kernels that exercise the emulator itself (tests/cuda/test_emulator.py).
#include "common.cuh"

// Block sum in shared memory; with `sync` = 0 the tree misses its barrier.
extern "C" __global__ void block_sum(const float* x, float* out, int n, int sync) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0.f;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    if (sync) __syncthreads();
  }
  if (t == 0) atomicAdd(out, s[0]);
}

// Warp-shuffle sum of each warp, written by lane 0.
extern "C" __global__ void warp_sum(const int* x, int* out) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

// Ballot of odd values per warp.
extern "C" __global__ void ballot_odd(const int* x, unsigned* out) {
  unsigned b = __ballot_sync(0xffffffffu, x[threadIdx.x] & 1);
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = b;
}

// Histogram with atomics (int and float16 through float).
extern "C" __global__ void histogram(const int* x, int n, int* bins) {
  EMBER_LOOP(i, n) atomicAdd(&bins[x[i]], 1);
}

// Lane 0 waits at the block barrier, its warp's other lanes wait for lane 0: a deadlock.
extern "C" __global__ void stuck(int* out) {
  if (threadIdx.x == 0) __syncthreads();
  else __syncwarp();
  out[threadIdx.x] = 1;
}

// float16 / bfloat16 round trips through NVIDIA's own conversions.
extern "C" __global__ void to_half(const float* x, __half* h, __nv_bfloat16* b, int n) {
  EMBER_LOOP(i, n) {
    h[i] = __float2half_rn(x[i]);
    b[i] = __float2bfloat16_rn(x[i]);
  }
}
