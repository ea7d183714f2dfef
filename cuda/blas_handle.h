// A cuBLAS handle bound to one stream, and the one product the spatial filters need (internal to
// cuda/). cuBLAS status codes become the engine's errors: OutOfDeviceMemoryError when cuBLAS
// cannot allocate, DeviceError otherwise, naming the call.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

typedef struct cublasContext* cublasHandle_t;

namespace modescope::cuda {

class BlasHandle {
 public:
  explicit BlasHandle(cudaStream_t stream);
  ~BlasHandle();
  BlasHandle(const BlasHandle&) = delete;
  BlasHandle& operator=(const BlasHandle&) = delete;

  // y = B x in FP32 (no TF32: the filter output feeds a recursion that amplifies rounding):
  // B is `outputs` x `inputs` row-major (ld inputs), x is `inputs` rows of `columns` samples
  // (row stride ldx), y is `outputs` rows (row stride ldy). Runs on the handle's stream.
  void filterRows(const float* b, int outputs, int inputs, const float* x, std::int64_t ldx,
                  float* y, std::int64_t ldy, std::int64_t columns);

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace modescope::cuda
