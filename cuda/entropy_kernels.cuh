// Kernels of the entropy matrices on the device (internal to cuda/; engine/entropy/entropy_cpu.h
// gives the procedure and entropy_result.h the EntropyPairCounts every backend produces).
//
// The CPU compares every template pair (i, j). The GPU finds the same matches with fewer
// comparisons: a template j of the target series can match template i only if its first value
// lies within r of x[i], so each (epoch, channel) series' first values y[j], j < T, are sorted
// once (with j), and template i binary-searches its window [x[i] - r, x[i] + r] and checks only
// the candidates in it against the remaining m coordinates (and the (m+1)-th). With r = 0.2 SD
// about 11 % of the templates are candidates, so an N = 1024 epoch needs ~130 checks per template
// instead of 1024. The window is searched a little wider than r and every candidate is tested
// with the rule |x[i+k] - y[j+k]| <= r. The template series' own first values are sorted too, and
// a warp takes 32 consecutive ones: their windows nearly coincide, so the warp scans the union
// window once with every lane reading the same candidate (a shared-memory broadcast, no
// divergence), each testing it against its own template.
//
// The rule is decided in float on the z-scores rounded from the host's doubles, except where the
// float distance lies within its rounding error of r: there the host's double z-scores (also on
// the device) decide, exactly as the CPU does. So the GPU's counts equal the CPU's exactly; real
// EEG, quantised to a few bits per microvolt, puts about one distance in ten million that close.
//
// Layout: series are E x C x N floats, [(e * C + c) * N + k], and the same in double;
// sorted first values: E x C x T (key, index) pairs, ascending keys.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "engine/entropy/entropy_params.h"

namespace modescope::cuda {

// One sorted first value of a template: key = y[index], last = y[index + m] (its (m+1)-th value;
// NaN for the last template, index = T - 1, which has none), index (j < T). 16 bytes: one
// shared-memory load gives a candidate everything an m = 1 check needs.
struct SortedTemplate {
  float key;
  float last;
  int index;
  int pad;
};

// The device image of EntropyPairCounts (same fields, same meaning).
struct DevicePairCounts {
  double sumLogM;
  double sumLogM1;
  int noMatchM;
  int noMatchBoth;
  int noMatchM1Only;
  int pad;
  long long matchesM;
  long long matchesM1;
};

struct EntropyCountBatch {
  const float* series = nullptr;           // E x C x N
  const double* exact = nullptr;           // E x C x N, the host's double z-scores
  const SortedTemplate* sorted = nullptr;  // E x C x T
  int epochs = 0, channels = 0;
  int n = 0;                           // N
  int m = 1;                           // template length, 1..16
  float r = 0.2f;                      // tolerance (z units), rounded to float
  double rExact = 0.2;                 // the same in double
  bool sampleEntropy = false;          // SampEn ranges (i, j < T - 1 for both lengths) else ApEn's
  DevicePairCounts* counts = nullptr;  // E x C x C, [(e * C + u) * C + v]
  // Work of this launch: rows [firstU, firstU + countU) of every epoch (entropySymmetric).
  int firstU = 0, countU = 0;
};

// Bytes of dynamic shared memory the count kernel needs for epochs of n samples.
std::size_t entropySharedBytes(int n);

// Sorts the first values y[0..T) of every (epoch, channel) series with their indices into
// `sorted` (E x C x T). `scratch`/`scratchBytes` from entropySortScratchBytes.
std::size_t entropySortScratchBytes(int epochs, int channels, int n, int m);
void launchSortTemplates(const float* series, int epochs, int channels, int n, int m,
                         SortedTemplate* sorted, void* scratch, std::size_t scratchBytes,
                         cudaStream_t stream);

// out[k] = (float) in[k]: the float z-scores from the double ones, on the device.
void launchToFloat(const double* in, std::size_t count, float* out, cudaStream_t stream);

// Whether the count kernel runs in symmetric mode for epochs of n samples and template length m
// (m = 1 with the epoch in shared memory): each unordered channel pair is scanned once and gives
// both directions (the (m+1)-match matrix of (u||v) is the transpose of (v||u)'s). The batch's
// rows are then ceil(C / 2) (row k covers template channels k and C - 1 - k), else C.
bool entropySymmetric(int n, int m);

// One block per (epoch, row) of the batch's rows [firstU, firstU + countU).
void launchCountMatches(const EntropyCountBatch& batch, cudaStream_t stream);

// Step 1's z-scores on the device (entropy_series_kernels.cu), bit for bit zscoreSeries's:
// `raw` holds the selection's rows in matrix order, row c = E * N samples at [c * E * N]
// (epoch e at [(c * E + e) * N]); `constant` (E x C, from planEntropy) marks the series stored
// as zeros. Writes the E x C x N double z-scores and their float roundings.
void launchZScores(const float* raw, const std::uint8_t* constant, int epochs, int channels, int n,
                   SdConvention sd, double* exact, float* series, cudaStream_t stream);

// Step 3's values on the device: values[k] from counts[k] (E x C x C) by entropy_values.h, NaN
// where either channel is constant in that epoch (as assembleEntropyResult leaves them).
void launchEntropyValues(const DevicePairCounts* counts, const std::uint8_t* constant, int epochs,
                         int channels, int n, int m, EntropyMeasure measure, ApEnBias bias,
                         double* values, cudaStream_t stream);

}  // namespace modescope::cuda
