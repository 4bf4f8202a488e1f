// emulator.h: runs ember's CUDA C kernels on the CPU (EMBER_CUDA_EMULATOR=1).
// Force-included by g++ (ember/cuda/_emulator.py):
//   g++ -std=c++20 -O1 -fPIC -shared -I<cuda include> -include emulator.h -x c++ k.cu
// Blocks run one after another on one OS thread. In fiber mode each CUDA thread of a block is
// a fiber (a ucontext stack, entered once with setcontext; later switches are _setjmp /
// _longjmp, which skip the signal-mask system call of swapcontext): __syncthreads,
// __syncwarp, shuffles and votes yield to a scheduler that releases a barrier when every live
// thread reached it, and reports a deadlock otherwise.
// Kernels that never synchronise (elementwise) run in plain mode: each thread is a call.
// __shared__ is a static, shared by the block's threads (blocks run serially).
#pragma once
#include <cuda_fp16.h>  // NVIDIA's headers: their host paths give exact half/bfloat16 semantics
#include <cuda_bf16.h>  // (and vector_types.h: dim3, uint3, make_uint3, float4 ...)
#include <setjmp.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#undef __global__
#undef __device__
#undef __host__
#undef __shared__
#undef __constant__
#undef __forceinline__
#ifdef EMBER_EMULATOR_SCAN  // the driver lists the kernels of a preprocessed source
#define __global__ __ember_global__
#else
#define __global__
#endif
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __shared__ static
#define EMBER_EMULATOR 1

inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
constexpr int warpSize = 32;

namespace emu {
enum State : unsigned char { RUNNABLE, AT_BARRIER, AT_WARP_SYNC, FINISHED };
struct Thread {
  ucontext_t ctx;  // the first entry
  jmp_buf resume;  // where it waits
  bool started;
  uint3 idx;
  State state;
  unsigned mask;  // lanes named by the warp-level call it waits in
};
inline Thread* threads;      // null in plain mode
inline int current, n_threads;
inline jmp_buf scheduler;
inline void* dyn_smem;       // dynamic shared memory of the running block
inline int error;            // first error of this launch (0: none)
struct WarpSlots { unsigned char lane[32][16]; };
inline WarpSlots* warp_slots;

inline int linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned lanes_present(int warp) {
  int n = n_threads - 32 * warp;
  return n >= 32 ? ~0u : (1u << n) - 1u;
}
inline void wait(State s, unsigned mask = 0) {
  if (!threads) {  // plain mode: the kernel synchronises, so its launcher must ask for fibers
    if (!error) error = -3;
    return;
  }
  threads[current].state = s;
  threads[current].mask = mask;
  if (!_setjmp(threads[current].resume)) _longjmp(scheduler, 1);
}
// Every lane of `mask` publishes v, then reads lane src's value (its own when src is absent).
template <class T> T exchange(unsigned mask, T v, int src) {
  static_assert(sizeof(T) <= 16, "warp exchange of more than 16 bytes");
  int t = linear_tid(), lane = t % 32;
  auto& slot = warp_slots[t / 32].lane;
  std::memcpy(slot[lane], &v, sizeof(T));
  wait(AT_WARP_SYNC, mask);
  T r = v;
  if (src >= 0 && src < 32 && (lanes_present(t / 32) >> src & 1u)) std::memcpy(&r, slot[src], sizeof(T));
  wait(AT_WARP_SYNC, mask);
  return r;
}
template <class T, class F> T atomic_update(T* p, F f) {  // compare-and-swap on the bits
  using U = std::conditional_t<sizeof(T) == 2, uint16_t,
                               std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
  U old = __atomic_load_n(reinterpret_cast<U*>(p), __ATOMIC_SEQ_CST);
  for (;;) {
    T o, n;
    std::memcpy(&o, &old, sizeof(T));
    n = f(o);
    U bits;
    std::memcpy(&bits, &n, sizeof(T));
    if (__atomic_compare_exchange_n(reinterpret_cast<U*>(p), &old, bits, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
      return o;
  }
}
}  // namespace emu

inline void __syncthreads() { emu::wait(emu::AT_BARRIER); }
inline void __syncwarp(unsigned mask = ~0u) { emu::wait(emu::AT_WARP_SYNC, mask); }
inline int __syncthreads_count(int p) {
  static int count;
  __syncthreads();
  if (emu::linear_tid() == 0) count = 0;
  __syncthreads();
  count += p != 0;
  __syncthreads();
  int r = count;
  __syncthreads();
  return r;
}
inline int __syncthreads_or(int p) { return __syncthreads_count(p) != 0; }
inline int __syncthreads_and(int p) { return __syncthreads_count(p) == emu::n_threads; }
inline void __threadfence() {}
inline void __threadfence_block() {}
inline unsigned __activemask() { return emu::lanes_present(emu::linear_tid() / 32); }
template <class T> T __shfl_sync(unsigned m, T v, int src, int w = 32) {
  int l = emu::linear_tid() % 32;
  return emu::exchange(m, v, (l & ~(w - 1)) + (src & (w - 1)));
}
template <class T> T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32) {
  int l = emu::linear_tid() % 32;
  return emu::exchange(m, v, (l & (w - 1)) + (int)d < w ? l + (int)d : l);
}
template <class T> T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32) {
  int l = emu::linear_tid() % 32;
  return emu::exchange(m, v, (l & (w - 1)) >= (int)d ? l - (int)d : l);
}
template <class T> T __shfl_xor_sync(unsigned m, T v, int x, int w = 32) {
  int l = emu::linear_tid() % 32, s = l ^ x;
  return emu::exchange(m, v, (s & ~(w - 1)) == (l & ~(w - 1)) ? s : l);
}
inline unsigned __ballot_sync(unsigned m, int p) {
  unsigned r = 0;
  for (int l = 0; l < 32; ++l) r |= (unsigned)(emu::exchange(m, p ? 1 : 0, l) != 0) << l;
  return r & m;
}
inline int __any_sync(unsigned m, int p) { return __ballot_sync(m, p) != 0; }
inline int __all_sync(unsigned m, int p) { return __ballot_sync(m, p) == (m & __activemask()); }

template <class T> using NoDeduce = std::type_identity_t<T>;  // CUDA converts the value operand
template <class T> T atomicAdd(T* p, NoDeduce<T> v) { return emu::atomic_update(p, [v](T o) { return T(o + v); }); }
template <class T> T atomicSub(T* p, NoDeduce<T> v) { return emu::atomic_update(p, [v](T o) { return T(o - v); }); }
template <class T> T atomicExch(T* p, NoDeduce<T> v) { return emu::atomic_update(p, [v](T) { return v; }); }
template <class T> T atomicMax(T* p, NoDeduce<T> v) { return emu::atomic_update(p, [v](T o) { return o < v ? v : o; }); }
template <class T> T atomicMin(T* p, NoDeduce<T> v) { return emu::atomic_update(p, [v](T o) { return v < o ? v : o; }); }
template <class T> T atomicAnd(T* p, NoDeduce<T> v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicOr(T* p, NoDeduce<T> v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicCAS(T* p, NoDeduce<T> expected, NoDeduce<T> v) {
  __atomic_compare_exchange_n(p, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
template <class T> inline T __ldg(const T* p) { return *p; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __fdividef(float a, float b) { return a / b; }
template <class A, class B> std::common_type_t<A, B> min(A a, B b) { return b < a ? b : a; }
template <class A, class B> std::common_type_t<A, B> max(A a, B b) { return a < b ? b : a; }

namespace emu {
// The launcher: arguments arrive as void** exactly like cuLaunchKernel's kernelParams, with
// each one's byte size so that a wrong scalar width is an error, not a wrong answer.
template <class... A> struct Body {
  static inline void (*kernel)(A...);
  static inline void** args;
  template <size_t... I> static void call(std::index_sequence<I...>) {
    kernel(*reinterpret_cast<std::remove_cv_t<A>*>(args[I])...);
  }
  static void fiber(int i) {
    call(std::index_sequence_for<A...>{});
    threads[i].state = FINISHED;
    _longjmp(scheduler, 1);  // never returns: its stack is reused by the next block
  }
};

struct Stacks {  // per-thread fiber stacks, reserved once and committed lazily by the kernel
  char* base = nullptr;
  size_t count = 0;
  static constexpr size_t size = 256 << 10;
  char* get(int n) {
    if ((size_t)n > count) {
      if (base) munmap(base, size * count);
      base = (char*)mmap(nullptr, size * n, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      count = n;
    }
    return base;
  }
};
inline Stacks stacks;

// Runs one block with fibers until every thread finished; returns false on a deadlock.
template <class... A> bool run_block_fibers(int nt, bool reverse, const unsigned* b) {
  int n_warps = (nt + 31) / 32;
  char* stack = stacks.get(nt);
  for (int i = 0; i < nt; ++i) {
    Thread& t = threads[i];
    getcontext(&t.ctx);
    t.ctx.uc_stack.ss_sp = stack + Stacks::size * i;
    t.ctx.uc_stack.ss_size = Stacks::size;
    t.ctx.uc_link = nullptr;
    makecontext(&t.ctx, (void (*)())Body<A...>::fiber, 1, i);
    t.idx = make_uint3(i % b[0], i / b[0] % b[1], i / (b[0] * b[1]));
    t.state = RUNNABLE;
    t.started = false;
  }
  for (;;) {
    for (int j = 0; j < nt; ++j) {  // each runnable thread runs until it waits or returns
      int i = reverse ? nt - 1 - j : j;
      if (threads[i].state == RUNNABLE) {
        current = i;
        threadIdx = threads[i].idx;
        if (!_setjmp(scheduler)) {
          if (threads[i].started) _longjmp(threads[i].resume, 1);
          threads[i].started = true;
          setcontext(&threads[i].ctx);
        }
      }
    }
    int finished = 0, at_barrier = 0, woken = 0;
    for (int w = 0; w < n_warps; ++w) {  // a warp sync completes once every live lane named waits
      unsigned need = 0, waiting = 0, dead = 0;
      for (int l = 0; l < 32 && 32 * w + l < nt; ++l) {
        Thread& t = threads[32 * w + l];
        if (t.state == AT_WARP_SYNC) { waiting |= 1u << l; need |= t.mask; }
        if (t.state == FINISHED) dead |= 1u << l;
      }
      if (waiting && !(need & lanes_present(w) & ~dead & ~waiting))
        for (int l = 0; l < 32; ++l)
          if (waiting >> l & 1u) { threads[32 * w + l].state = RUNNABLE; ++woken; }
    }
    for (int i = 0; i < nt; ++i) {
      finished += threads[i].state == FINISHED;
      at_barrier += threads[i].state == AT_BARRIER;
    }
    if (finished == nt) return true;
    if (woken) continue;
    if (at_barrier + finished == nt) {  // every live thread is in __syncthreads
      for (int i = 0; i < nt; ++i)
        if (threads[i].state == AT_BARRIER) threads[i].state = RUNNABLE;
      continue;
    }
    fprintf(stderr, "ember cuda emulator: block (%u,%u,%u) deadlocked: %d threads in "
            "__syncthreads, %d finished, %d in a warp sync\n", blockIdx.x, blockIdx.y, blockIdx.z,
            at_barrier, finished, nt - at_barrier - finished);
    return false;
  }
}

// Return codes: 0 ok, -1 wrong argument count, -2 bad block size, -3 a plain-mode kernel
// synchronised, -4 deadlock, -1000 - i: argument i has the wrong byte size.
template <class... A>
int launch(void (*kernel)(A...), const unsigned* g, const unsigned* b, size_t smem, void** args,
           const size_t* sizes, int nargs, int mode) {
  constexpr size_t want[] = {sizeof(A)..., 0};
  if (nargs != (int)sizeof...(A)) return -1;
  for (int i = 0; i < nargs; ++i)
    if (sizes[i] != want[i]) return -1000 - i;
  int nt = b[0] * b[1] * b[2];
  if (nt < 1 || nt > 1024) return -2;
  bool fibers = mode & 1, reverse = mode & 2;
  gridDim = dim3(g[0], g[1], g[2]);
  blockDim = dim3(b[0], b[1], b[2]);
  n_threads = nt;
  error = 0;
  std::vector<Thread> tv(fibers ? nt : 0);
  threads = fibers ? tv.data() : nullptr;
  std::vector<WarpSlots> ws((nt + 31) / 32);
  warp_slots = ws.data();
  std::vector<unsigned char> shared(smem + 64);
  dyn_smem = (void*)(((uintptr_t)shared.data() + 63) & ~(uintptr_t)63);
  Body<A...>::kernel = kernel;
  Body<A...>::args = args;
  for (unsigned z = 0; z < g[2] && !error; ++z)
    for (unsigned y = 0; y < g[1] && !error; ++y)
      for (unsigned x = 0; x < g[0] && !error; ++x) {
        blockIdx = make_uint3(x, y, z);
        std::memset(dyn_smem, 0xff, smem);  // poison: uninitialised reads show as NaN / -1
        if (fibers) {
          if (!run_block_fibers<A...>(nt, reverse, b)) error = -4;
          continue;
        }
        for (int j = 0; j < nt && !error; ++j) {
          int i = reverse ? nt - 1 - j : j;
          threadIdx = make_uint3(i % b[0], i / b[0] % b[1], i / (b[0] * b[1]));
          Body<A...>::call(std::index_sequence_for<A...>{});
        }
      }
  threads = nullptr;
  return error;
}
}  // namespace emu

#define EMBER_EMULATOR_EXPORT(name)                                                              \
  extern "C" __attribute__((visibility("default"))) int ember_launch_##name(                    \
      const unsigned* g, const unsigned* b, size_t smem, void** a, const size_t* s, int n,      \
      int mode) {                                                                               \
    return emu::launch(name, g, b, smem, a, s, n, mode);                                        \
  }
