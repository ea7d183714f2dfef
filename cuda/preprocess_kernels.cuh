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

// On a compact matrix data[rows][pitch] holding `columns` columns: for every column t,
// r = sum_k weights[k] * data[sources[k]][t] in double (same order and rounding as the CPU),
// then data[targets[j]][t] -= r for every target, rounded once to float.
void launchApplyReference(float* data, std::int64_t pitch, std::int64_t columns,
                          const int* sources, const double* weights, int sourceCount,
                          const int* targets, int targetCount, cudaStream_t stream);

// Launches an empty kernel and waits: cudaErrorNoKernelImageForDevice when this build has no
// code for the device's architecture. Returns the error instead of throwing.
cudaError_t probeKernelImage();

}  // namespace modescope::cuda
