// conv.cu: im2col and col2im, the two halves of convolution as matrix products (conv.py runs
// the products on matmul.cu). Images are 3-d (N, C, D, H, W); 1-d and 2-d convolutions have
// leading sizes of 1. For a window k with stride s, padding q and dilation d the columns are
// (N, C * kd * kh * kw, OD * OH * OW): column o of row (c, i) holds the image at
// o * s - q + i * d per spatial dim, 0 outside. col2im sums the columns back into the image;
// a thread per pixel gathers the entries that came from it: no atomics, deterministic sums.
// p = [C, image sizes (3), column sizes (3), k (3), s (3), q (3), d (3),
//      image strides (n, c, 3 spatial)]
#include "common.cuh"

using namespace ember;

template <class T>
__device__ void im2col_body(i64 n, const i64* p, T* cols, const T* img) {
  const i64 *size = p + 1, *osize = p + 4, *k = p + 7, *s = p + 10, *q = p + 13, *d = p + 16,
            *st = p + 19;
  i64 K = k[0] * k[1] * k[2], L = osize[0] * osize[1] * osize[2];
  EMBER_LOOP(e, n) {
    i64 l = e % L, row = (e / L) % (p[0] * K), b = e / (L * p[0] * K);
    i64 off = b * st[0] + (row / K) * st[1], tap = row % K;
    bool inside = true;
    for (int a = 2; a >= 0; --a) {
      i64 v = (l % osize[a]) * s[a] - q[a] + (tap % k[a]) * d[a];
      l /= osize[a];
      tap /= k[a];
      inside = inside && v >= 0 && v < size[a];
      off += v * st[2 + a];
    }
    cols[e] = inside ? img[off] : cast<T>(0);
  }
}

template <class T>
__device__ void col2im_body(i64 n, const i64* p, T* img, const T* cols) {
  typedef typename Acc<T>::type A;
  const i64 *size = p + 1, *osize = p + 4, *k = p + 7, *s = p + 10, *q = p + 13, *d = p + 16,
            *st = p + 19;
  i64 K = k[0] * k[1] * k[2], L = osize[0] * osize[1] * osize[2];
  EMBER_LOOP(e, n) {
    i64 v[3], r = e;
    for (int a = 2; a >= 0; --a) {
      v[a] = r % size[a];
      r /= size[a];
    }
    i64 c = r % p[0], b = r / p[0];
    A sum = A(0);
    for (i64 tap = 0; tap < K; ++tap) {
      i64 l = 0, t = tap;
      bool hit = true;
      i64 taps[3];
      for (int a = 2; a >= 0; --a) {
        taps[a] = t % k[a];
        t /= k[a];
      }
      for (int a = 0; a < 3 && hit; ++a) {
        i64 u = v[a] + q[a] - taps[a] * d[a];
        hit = u >= 0 && u % s[a] == 0 && u / s[a] < osize[a];
        l = l * osize[a] + u / s[a];
      }
      if (hit) sum += cast<A>(cols[((b * p[0] + c) * K + tap) * L + l]);
    }
    img[b * st[0] + c * st[1] + v[0] * st[2] + v[1] * st[3] + v[2] * st[4]] = cast<T>(sum);
  }
}

#define EMBER_CONV(name, T)                                                                      \
  extern "C" __global__ void im2col_##name(i64 n, const i64* p, T* cols, const T* img) {        \
    im2col_body<T>(n, p, cols, img);                                                             \
  }                                                                                              \
  extern "C" __global__ void col2im_##name(i64 n, const i64* p, T* img, const T* cols) {        \
    col2im_body<T>(n, p, img, cols);                                                             \
  }
EMBER_FOR_INTS(EMBER_CONV)
EMBER_FOR_FLOATS(EMBER_CONV)
