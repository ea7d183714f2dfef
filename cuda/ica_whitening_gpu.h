// The Infomax whitening's data passes on the device (steps 2 and 3 of engine/ica/infomax.h),
// internal to cuda/. The raw block goes up once as floats, as SignalBlock holds it; the channel
// means and the covariance (cuBLAS DSYRK over centred double chunks) and the sphered rows the
// Infomax kernels read (cuBLAS DGEMM, then packed as floats) are computed from it in double, so a
// 256 x 600,000 block is whitened in milliseconds instead of seconds of host work and without an
// r x n double copy on the host. The CPU twins: icaChannelMoments and icaSpheredData
// (engine/ica/infomax.h), compared in tests/gpu/ica_parity_test.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/blas_handle.h"
#include "cuda/device_memory.cuh"
#include "cuda/ica_whitening_kernels.cuh"
#include "engine/core/recording.h"

namespace modescope::cuda {

class DeviceIcaBlock {
 public:
  // Uploads `block` to the current device. OutOfDeviceMemoryError (naming the size, what is free
  // and what to do) when the block and the chunk buffers do not fit.
  explicit DeviceIcaBlock(const SignalBlock& block);

  // Means (C) and covariance (C x C column-major, 1/(n - 1), of the centred data) in double.
  void moments(std::vector<double>& mean, std::vector<double>& covariance);

  // sphere * (x - mean) for every sample, `sphere` r x C column-major (r = rows.components), as
  // rows.row floats per sample in `out` (n x rows.row, on the device). Returns when done.
  void sphere(const double* mean, const double* sphere, const SpheredRows& rows, float* out);

  int channels() const { return channels_; }
  std::int64_t samples() const { return samples_; }

 private:
  int channels_;
  std::int64_t samples_;
  std::int64_t chunk_;  // samples per centred chunk
  Stream stream_;
  BlasHandle blas_;
  DeviceBuffer<float> raw_;       // C x n, channel-major
  DeviceBuffer<double> centred_;  // chunk x C, column-major
  DeviceBuffer<double> mean_;     // C
  DeviceBuffer<double> product_;  // C x C (covariance) or row x chunk (sphered)
};

}  // namespace modescope::cuda
