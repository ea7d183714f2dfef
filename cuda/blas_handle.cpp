#include "cuda/blas_handle.h"

#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <string>

#include "engine/core/error.h"

namespace modescope::cuda {
namespace {

void checkBlas(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const std::string what = std::string(call) + " failed: " + cublasGetStatusString(status);
  if (status == CUBLAS_STATUS_ALLOC_FAILED) {
    throw OutOfDeviceMemoryError("cuBLAS could not allocate device memory (" + what +
                                 "). Close other GPU programs or use the CPU backend");
  }
  throw DeviceError("cuBLAS: " + what);
}

}  // namespace

BlasHandle::BlasHandle(cudaStream_t stream) {
  checkBlas(cublasCreate(&h_), "cublasCreate");
  const cublasStatus_t s = cublasSetStream(h_, stream);
  if (s != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(h_);
    checkBlas(s, "cublasSetStream");
  }
  cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH);
}

BlasHandle::~BlasHandle() {
  if (h_) cublasDestroy(h_);
}

void BlasHandle::filterRows(const float* b, int outputs, int inputs, const float* x,
                            std::int64_t ldx, float* y, std::int64_t ldy, std::int64_t columns) {
  // Column-major view: x is columns x inputs (ld ldx), B^T is inputs x outputs (ld inputs), and
  // y^T = x^T B^T is columns x outputs (ld ldy). Column counts above INT_MAX go in pieces.
  const float alpha = 1.0f, beta = 0.0f;
  constexpr std::int64_t kPiece = std::int64_t{1} << 30;
  for (std::int64_t c0 = 0; c0 < columns; c0 += kPiece) {
    const int m = static_cast<int>(std::min(kPiece, columns - c0));
    checkBlas(cublasSgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, outputs, inputs, &alpha, x + c0,
                          static_cast<int>(ldx), b, inputs, &beta, y + c0, static_cast<int>(ldy)),
              "cublasSgemm");
  }
}

void BlasHandle::gramLowerDouble(const double* a, std::int64_t rows, int cols, std::int64_t lda,
                                 double* c, bool accumulate) {
  const double alpha = 1.0, beta = accumulate ? 1.0 : 0.0;
  if (rows > INT_MAX || lda > INT_MAX)
    throw DeviceError("cuBLAS: a Gram product of " + std::to_string(rows) +
                      " rows is more than one call takes; use chunks below 2^31 rows");
  checkBlas(cublasDsyrk(h_, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, cols, static_cast<int>(rows),
                        &alpha, a, static_cast<int>(lda), &beta, c, cols),
            "cublasDsyrk");
}

void BlasHandle::multiplyByTransposeDouble(const double* a, int m, int k, const double* b,
                                           std::int64_t ldb, std::int64_t n, double* c,
                                           std::int64_t ldc) {
  const double alpha = 1.0, beta = 0.0;
  if (n > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
    throw DeviceError("cuBLAS: a product of " + std::to_string(n) +
                      " columns is more than one call takes; use chunks below 2^31 columns");
  checkBlas(cublasDgemm(h_, CUBLAS_OP_N, CUBLAS_OP_T, m, static_cast<int>(n), k, &alpha, a, m, b,
                        static_cast<int>(ldb), &beta, c, static_cast<int>(ldc)),
            "cublasDgemm");
}

}  // namespace modescope::cuda
