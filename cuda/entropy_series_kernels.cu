// The host steps of the entropy matrices that the CUDA backend runs on the device instead
// (entropy_kernels.cuh: launchZScores, launchEntropyValues). Both reproduce the CPU's results:
// the z-scores bit for bit (the same operations in the same order, every one rounded as the
// host rounds it), the values with the formulas the host uses (engine/entropy/entropy_values.h).
// They spare the host a 60 MB array of double z-scores and a 50 MB download of counts per
// 148-channel subject, which took about a third of a subject's time.
#include <algorithm>

#include "cuda/cuda_check.cuh"
#include "cuda/entropy_kernels.cuh"
#include "engine/entropy/entropy_values.h"

namespace modescope::cuda {
namespace {

// One thread per (epoch, channel) series: the sums must run in sample order to round as the
// host's loop does (zscoreSeries), so a series is not split. 7,000 series of 1,024 samples take
// tens of microseconds. The explicit __d*_rn intrinsics keep nvcc from fusing a multiply and an
// add, which the host (x86-64 without FMA) never does.
__global__ void zscoreKernel(const float* raw, const std::uint8_t* constant, int epochs,
                             int channels, int n, double divisor, double* exact, float* series) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= epochs * channels) return;
  const int e = s / channels, c = s % channels;
  const float* x = raw + (static_cast<std::size_t>(c) * epochs + e) * n;
  double* out = exact + static_cast<std::size_t>(s) * n;
  float* outFloat = series + static_cast<std::size_t>(s) * n;
  if (constant[s]) {
    for (int k = 0; k < n; ++k) {
      out[k] = 0.0;
      outFloat[k] = 0.0f;
    }
    return;
  }
  double sum = 0.0;
  for (int k = 0; k < n; ++k) sum = __dadd_rn(sum, static_cast<double>(x[k]));
  const double mean = __ddiv_rn(sum, static_cast<double>(n));
  double ss = 0.0;
  for (int k = 0; k < n; ++k) {
    const double d = __dsub_rn(static_cast<double>(x[k]), mean);
    ss = __dadd_rn(ss, __dmul_rn(d, d));
  }
  const double sd = __dsqrt_rn(__ddiv_rn(ss, divisor));
  for (int k = 0; k < n; ++k) {
    const double z = __ddiv_rn(__dsub_rn(static_cast<double>(x[k]), mean), sd);
    out[k] = z;
    outFloat[k] = static_cast<float>(z);
  }
}

__global__ void valuesKernel(const EntropyPairCounts* counts, const std::uint8_t* constant,
                             int epochs, int channels, long long n, int m, bool sampleEntropy,
                             ApEnBias bias, double* values) {
  const long long entries = static_cast<long long>(epochs) * channels * channels;
  const EntropyTemplateCounts templates(n, m);
  for (long long at = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; at < entries;
       at += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long e = at / (static_cast<long long>(channels) * channels);
    const int u = static_cast<int>((at / channels) % channels), v = static_cast<int>(at % channels);
    if (constant[e * channels + u] || constant[e * channels + v]) {
      values[at] = __longlong_as_double(0x7ff8000000000000LL);  // NaN, as the host leaves it
      continue;
    }
    values[at] = sampleEntropy ? sampEnValue(counts[at], n, m, u == v)
                               : apEnValue(counts[at], templates, bias);
  }
}

}  // namespace

void launchZScores(const float* raw, const std::uint8_t* constant, int epochs, int channels, int n,
                   SdConvention sd, double* exact, float* series, cudaStream_t stream) {
  const int seriesCount = epochs * channels;
  if (seriesCount == 0) return;
  const double divisor = static_cast<double>(sd == SdConvention::Sample ? n - 1 : n);
  constexpr int kThreads = 128;
  zscoreKernel<<<(seriesCount + kThreads - 1) / kThreads, kThreads, 0, stream>>>(
      raw, constant, epochs, channels, n, divisor, exact, series);
  MODESCOPE_CUDA_CHECK_LAUNCH("zscoreKernel", stream);
}

void launchEntropyValues(const DevicePairCounts* counts, const std::uint8_t* constant, int epochs,
                         int channels, int n, int m, EntropyMeasure measure, ApEnBias bias,
                         double* values, cudaStream_t stream) {
  const long long entries = static_cast<long long>(epochs) * channels * channels;
  if (entries == 0) return;
  const int blocks = static_cast<int>(std::min<long long>((entries + 255) / 256, 4096));
  valuesKernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<const EntropyPairCounts*>(counts),
                                           constant, epochs, channels, n, m,
                                           measure == EntropyMeasure::SampleEntropy, bias, values);
  MODESCOPE_CUDA_CHECK_LAUNCH("valuesKernel", stream);
}

}  // namespace modescope::cuda
