// A cuBLAS handle bound to one stream, and the products the spatial filters and the Infomax
// whitening need (internal to cuda/). cuBLAS status codes become the engine's errors:
// OutOfDeviceMemoryError when cuBLAS cannot allocate, DeviceError otherwise, naming the call.
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

  // c = a^T a (lower triangle only), or c += a^T a when `accumulate`, in double: a is rows x cols
  // column-major (ld lda), c is cols x cols (ld cols). The Infomax covariance over sample chunks.
  void gramLowerDouble(const double* a, std::int64_t rows, int cols, std::int64_t lda, double* c,
                       bool accumulate);

  // c = a b^T in double: a is m x k (ld m), b is n x k (ld ldb), c is m x n (ld ldc). The Infomax
  // sphering: sphere (r x C) times a chunk of centred channels (n samples x C).
  void multiplyByTransposeDouble(const double* a, int m, int k, const double* b, std::int64_t ldb,
                                 std::int64_t n, double* c, std::int64_t ldc);

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace modescope::cuda
