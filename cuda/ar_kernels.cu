// Burg AR per window on the device: one warp per (row, window). ar_kernels.cuh describes the
// layout; engine/ar/burg.h and ar_spectrum.h the procedure.
#include <algorithm>
#include <climits>

#include "cuda/ar_kernels.cuh"
#include "cuda/cuda_check.cuh"

namespace modescope::cuda {
namespace {

constexpr int kWarp = 32;
constexpr int kMaxWarpsPerBlock = 4;
constexpr unsigned kAll = 0xffffffffu;

__device__ double warpSum(double v) {
  for (int o = kWarp / 2; o > 0; o >>= 1) v += __shfl_xor_sync(kAll, v, o);
  return v;
}

__device__ bool warpAny(bool v) { return __any_sync(kAll, v); }

// Sample j of window (row, w).
struct WindowReader {
  const float* row;
  std::int64_t start, ring;
  __device__ float operator()(std::int64_t j) const {
    std::int64_t i = start + j;
    if (ring > 0 && i >= ring) i -= ring;
    return row[i];
  }
};

// Step 3d for one window: the bins (or coefficients) of the model a[1..order] (a[0] unused),
// noise power sigma2, written by the warp.
__device__ void writeOutputs(const BurgBatch& b, const double* a, int order, double sigma2,
                             float* out, int lane) {
  if (b.output == 2) {
    for (int k = lane; k < b.order; k += kWarp)
      out[k] = static_cast<float>(k < order ? a[k + 1] : 0.0);
    return;
  }
  for (int bin = 0; bin < b.bins; ++bin) {
    double partial = 0.0;
    for (int e = lane; e < b.evals; e += kWarp) {
      const double c = b.cosOmega[bin * b.evals + e], s = -b.sinOmega[bin * b.evals + e];
      // Horner on z = e^{-i w}: s = 0; for k = p..1: s = s z + a_k; s = s z; A = 1 - s.
      double re = 0.0, im = 0.0;
      for (int k = order; k >= 1; --k) {
        const double nr = re * c - im * s + a[k];
        im = re * s + im * c;
        re = nr;
      }
      const double zr = re * c - im * s, zi = re * s + im * c;
      const double ar = 1.0 - zr, ai = -zi;
      partial += sigma2 / (ar * ar + ai * ai);
    }
    const double mean = b.scale * warpSum(partial) / b.evals;
    if (lane == 0) out[bin] = static_cast<float>(b.output == 1 ? sqrt(mean) : mean);
  }
}

__global__ void burgWindowsKernel(BurgBatch b) {
  extern __shared__ unsigned char sharedBytes[];
  const int lane = threadIdx.x % kWarp;
  const int warpInBlock = threadIdx.x / kWarp;
  const int warpsPerBlock = blockDim.x / kWarp;
  const std::int64_t items = static_cast<std::int64_t>(b.rows) * b.windows;
  const int perWindow = b.output == 2 ? b.order : b.bins;

  // Per warp: coefficients a[0..64] (double), then the error sequences e[n], l[n] (float).
  const std::size_t aBytes = 65 * sizeof(double);
  double* a;
  float *e, *l;
  if (b.scratch == nullptr) {
    unsigned char* base =
        sharedBytes + warpInBlock * (aBytes + 2 * static_cast<std::size_t>(b.n) * sizeof(float));
    a = reinterpret_cast<double*>(base);
    e = reinterpret_cast<float*>(base + aBytes);
  } else {
    a = reinterpret_cast<double*>(sharedBytes) + warpInBlock * 65;
    e = b.scratch + (static_cast<std::int64_t>(blockIdx.x) * warpsPerBlock + warpInBlock) * 2 * b.n;
  }
  l = e + b.n;

  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * warpsPerBlock;
  for (std::int64_t item = static_cast<std::int64_t>(blockIdx.x) * warpsPerBlock + warpInBlock;
       item < items; item += stride) {
    const int row = static_cast<int>(item / b.windows);
    const int w = static_cast<int>(item % b.windows);
    std::int64_t start = b.firstStart + static_cast<std::int64_t>(w) * b.step;
    if (b.ring > 0) start %= b.ring;
    const WindowReader x{b.data + row * b.rowStride, start, b.ring};
    float* out = b.values + item * perWindow;
    const int n = b.n;

    // 3a flat (on the raw floats, as the CPU) and the detrending sums.
    const float x0 = x(0);
    bool differs = false;
    double sum = 0.0, sumUx = 0.0;
    const double centre = (n - 1) / 2.0;
    for (int j = lane; j < n; j += kWarp) {
      const float v = x(j);
      differs = differs || v != x0;
      sum += v;
      sumUx += (j - centre) * static_cast<double>(v);
    }
    if (!warpAny(differs)) {
      for (int k = lane; k < perWindow; k += kWarp) out[k] = 0.0f;
      if (lane == 0) {
        b.noise[item] = 0.0f;
        b.orderReached[item] = -1;
      }
      continue;
    }
    sum = warpSum(sum);
    sumUx = warpSum(sumUx);
    // 3b detrend, in double as the CPU; the detrended window goes to e (0..n-2) and l (1..n-1).
    double mean = 0.0, slope = 0.0;
    if (b.detrend >= 1) mean = sum / n;
    if (b.detrend == 2) {
      const double nd = n, suu = nd * (nd * nd - 1.0) / 12.0;
      slope = suu > 0 ? sumUx / suu : 0.0;
    }
    double sumSquares = 0.0;
    bool detrendedDiffers = false;
    const double first = static_cast<double>(x0) - mean - slope * (0 - centre);
    for (int j = lane; j < n; j += kWarp) {
      const double v = static_cast<double>(x(j)) - mean - slope * (j - centre);
      sumSquares += v * v;
      detrendedDiffers = detrendedDiffers || v != first;
      const float f = static_cast<float>(v);
      if (j < n - 1) e[j] = f;
      if (j >= 1) l[j - 1] = f;
    }
    if (!warpAny(detrendedDiffers)) {  // a detrended ramp can become exactly flat
      for (int k = lane; k < perWindow; k += kWarp) out[k] = 0.0f;
      if (lane == 0) {
        b.noise[item] = 0.0f;
        b.orderReached[item] = -1;
      }
      continue;
    }
    double sigma2 = warpSum(sumSquares) / n;
    for (int k = lane; k <= b.order; k += kWarp) a[k] = 0.0;
    __syncwarp();

    // Stage 1's sums over L = n - 1 pairs.
    double num = 0.0, den = 0.0;
    for (int j = lane; j < n - 1; j += kWarp) {
      const double le = l[j], ee = e[j];
      num += le * ee;
      den += le * le + ee * ee;
    }
    num = warpSum(num);
    den = warpSum(den);

    int reached = 0;
    for (int m = 1; m <= b.order; ++m) {
      if (!(den > 0.0) || fabs(2.0 * num) >= den) break;
      const double k = 2.0 * num / den;
      // Levinson: a_i -= k a_{m-i} (i < m), a_m = k; old values read before any lane writes.
      const int i0 = lane + 1, i1 = lane + 1 + kWarp;
      const double o0 = i0 < m ? a[i0] - k * a[m - i0] : 0.0;
      const double o1 = i1 < m ? a[i1] - k * a[m - i1] : 0.0;
      __syncwarp();
      if (i0 < m) a[i0] = o0;
      if (i1 < m) a[i1] = o1;
      if (lane == 0) a[m] = k;
      __syncwarp();
      sigma2 *= (1.0 - k) * (1.0 + k);
      reached = m;
      if (m == b.order) break;
      // e'_j = e_j - k l_j, l'_j = l_{j+1} - k e_{j+1}, j < L - 1 = n - m - 1, fused with the
      // next stage's sums. The (j + 1) values come from the next lane's reads by shuffle (lane
      // 31 reads them itself, before lane 0 of the next round can write them: the shuffle of
      // that round needs lane 31 to have arrived).
      const int len = n - m;  // pairs at this stage
      num = 0.0;
      den = 0.0;
      for (int base = 0; base < len - 1; base += kWarp) {
        const int j = base + lane;
        const float ej = j < len ? e[j] : 0.0f, lj = j < len ? l[j] : 0.0f;
        float eNext = __shfl_down_sync(kAll, ej, 1), lNext = __shfl_down_sync(kAll, lj, 1);
        if (lane == kWarp - 1) {
          eNext = j + 1 < len ? e[j + 1] : 0.0f;
          lNext = j + 1 < len ? l[j + 1] : 0.0f;
        }
        if (j < len - 1) {
          const double ne = static_cast<double>(ej) - k * static_cast<double>(lj);
          const double nl = static_cast<double>(lNext) - k * static_cast<double>(eNext);
          const float fe = static_cast<float>(ne), fl = static_cast<float>(nl);
          e[j] = fe;
          l[j] = fl;
          num += static_cast<double>(fl) * fe;
          den += static_cast<double>(fl) * fl + static_cast<double>(fe) * fe;
        }
        __syncwarp();  // orders lane 31's read of e/l[base + 32] before lane 0 writes it
      }
      num = warpSum(num);
      den = warpSum(den);
    }
    if (lane == 0) {
      b.noise[item] = static_cast<float>(sigma2);
      b.orderReached[item] = reached;
    }
    writeOutputs(b, a, reached, sigma2, out, lane);
    __syncwarp();
  }
}

__global__ void findNonFiniteKernel(const float* data, int rows, std::int64_t count,
                                    std::int64_t stride, unsigned long long* firstBad) {
  const std::int64_t total = static_cast<std::int64_t>(rows) * count;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t r = i / count, c = i % count;
    if (!isfinite(data[r * stride + c])) atomicMin(firstBad, static_cast<unsigned long long>(i));
  }
}

}  // namespace

std::size_t burgSharedBytesPerWarp(int n, int order) {
  (void)order;  // the coefficient area is sized for the largest order (64)
  return 65 * sizeof(double) + 2 * static_cast<std::size_t>(n) * sizeof(float);
}

bool burgNeedsScratch(int n, int order, std::size_t maxSharedPerBlock) {
  return burgSharedBytesPerWarp(n, order) > maxSharedPerBlock;
}

void launchBurgWindows(const BurgBatch& b, std::size_t maxSharedPerBlock, cudaStream_t stream) {
  const std::int64_t items = static_cast<std::int64_t>(b.rows) * b.windows;
  if (items == 0) return;
  int warps;
  std::size_t shared;
  std::int64_t blocks;
  if (b.scratch == nullptr) {
    const std::size_t perWarp = burgSharedBytesPerWarp(b.n, b.order);
    warps = static_cast<int>(
        std::clamp<std::size_t>(maxSharedPerBlock / perWarp, 1, kMaxWarpsPerBlock));
    shared = perWarp * warps;
    blocks = std::min<std::int64_t>((items + warps - 1) / warps, INT_MAX);
  } else {
    warps = 1;
    shared = 65 * sizeof(double);
    blocks = std::min<std::int64_t>(b.scratchSlots, items);
  }
  if (shared > 48 * 1024) {
    MODESCOPE_CUDA_TRY(cudaFuncSetAttribute(
        burgWindowsKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  }
  burgWindowsKernel<<<static_cast<unsigned>(blocks), warps * kWarp, shared, stream>>>(b);
  MODESCOPE_CUDA_CHECK_LAUNCH("burgWindowsKernel", stream);
}

void launchFindNonFinite(const float* data, int rows, std::int64_t count, std::int64_t stride,
                         unsigned long long* firstBad, cudaStream_t stream) {
  const std::int64_t total = static_cast<std::int64_t>(rows) * count;
  if (total == 0) return;
  const int threads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((total + threads - 1) / threads, 4096);
  findNonFiniteKernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(data, rows, count,
                                                                             stride, firstBad);
  MODESCOPE_CUDA_CHECK_LAUNCH("findNonFiniteKernel", stream);
}

}  // namespace modescope::cuda
