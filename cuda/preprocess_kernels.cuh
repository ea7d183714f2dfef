// Kernels for preprocessing on the device (internal to cuda/). Every launcher takes an explicit
// stream, launches asynchronously and checks the launch (MODESCOPE_CUDA_CHECK_LAUNCH).
//
// Overlap-save layout: a batch of `channels` rows of `samples` floats, each cut into `segments`
// segments of `fftSize` floats. Segment s of a row starts at signal index s * valid - half, where
// valid = fftSize - taps + 1 and half = (taps - 1) / 2; indices outside the row read the odd
// reflection about the end sample for up to `pad` samples and zero beyond (cpu_backend.h states the
// same rule). After the circular convolution, outputs taps - 1 .. fftSize - 1 of segment s are
// the zero-phase filtered samples s * valid .. s * valid + valid - 1.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace modescope::cuda {

struct SegmentLayout {
  std::int64_t samples = 0;   // per row
  std::int64_t segments = 0;  // per row
  std::int64_t valid = 0;     // new outputs per segment
  std::int64_t half = 0;      // (taps - 1) / 2
  std::int64_t pad = 0;       // reflected samples at each end: min(half, samples - 1)
  int taps = 0;
  int fftSize = 0;
};

// rows[channels][samples] -> seg[channels * segments][fftSize]
void launchGatherSegments(const float* rows, std::int64_t channels, const SegmentLayout& l,
                          float* seg, cudaStream_t stream);

// spec[b][f] *= kernel[f] for every transform b of `transforms`, bins = fftSize / 2 + 1.
void launchMultiplySpectrum(float2* spec, const float2* kernel, std::int64_t transforms, int bins,
                            cudaStream_t stream);

// seg[channels * segments][fftSize] -> rows[channels][samples] (the valid part of each segment).
void launchScatterSegments(const float* seg, std::int64_t channels, const SegmentLayout& l,
                           float* rows, cudaStream_t stream);

// Reference signal of a resident block data[rows][pitch]: for every column t < columns,
// r[t] = sum_k weights[k] * data[sources[k]][t] in double, accumulated in the order of `sources`
// with round-to-nearest multiply and add (no fused multiply-add): the CPU backend's arithmetic,
// so r is bit-identical to the CPU's.
void launchComputeReference(const float* data, std::int64_t pitch, std::int64_t columns,
                            const int* sources, const double* weights, int sourceCount, double* r,
                            cudaStream_t stream);

// rows[rowCount][samples] in place: every row i is re-referenced counts[i] times (0: untouched;
// a row listed twice among the plan's targets is subtracted twice, as on the CPU), each time
// x = float(double(x) - r[t]).
void launchSubtractReference(float* rows, std::int64_t samples, std::int64_t rowCount,
                             const int* counts, const double* r, cudaStream_t stream);

// Launches an empty kernel and waits: cudaErrorNoKernelImageForDevice when this build has no
// code for the device's architecture. Returns the error instead of throwing.
cudaError_t probeKernelImage();

}  // namespace modescope::cuda
