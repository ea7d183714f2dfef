#include "cuda/cuda_check.cuh"

#include <string>

#include "engine/core/error.h"

namespace modescope::cuda {
namespace {

const char* cufftResultName(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS:
      return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
      return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
      return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
      return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
      return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
      return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
      return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
      return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
      return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA:
      return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE:
      return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE:
      return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED:
      return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
    default:
      return "cuFFT error";
  }
}

std::string where(const char* expr, const char* file, int line) {
  std::string f = file;
  const auto slash = f.find_last_of('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return std::string(expr) + " (" + f + ":" + std::to_string(line) + ")";
}

constexpr const char* kMemoryRemedy =
    ". Select fewer channels or a shorter time range, close other GPU programs, or use "
    "--backend cpu";

}  // namespace

void throwCudaError(cudaError_t e, const char* expr, const char* file, int line) {
  const std::string msg = "CUDA error in " + where(expr, file, line) + ": " +
                          cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // allocation failures are not sticky: clear the error state
    throw OutOfDeviceMemoryError(msg + kMemoryRemedy);
  }
  throw DeviceError(msg + ". The GPU result is unusable; use --backend cpu if it persists");
}

void throwCufftError(cufftResult r, const char* expr, const char* file, int line) {
  const std::string msg = "cuFFT error in " + where(expr, file, line) + ": " + cufftResultName(r);
  if (r == CUFFT_ALLOC_FAILED) {
    (void)cudaGetLastError();
    throw OutOfDeviceMemoryError(msg + kMemoryRemedy);
  }
  throw DeviceError(msg + ". Use --backend cpu if it persists");
}

void checkLaunch(const char* kernel, cudaStream_t stream, const char* file, int line) {
  check(cudaGetLastError(), kernel, file, line);
#ifdef MODESCOPE_CUDA_SYNC_DEBUG
  check(cudaStreamSynchronize(stream), kernel, file, line);
#else
  (void)stream;
#endif
}

}  // namespace modescope::cuda
