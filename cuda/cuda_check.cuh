// Error checking for CUDA runtime and cuFFT calls (internal to cuda/). Every call is checked;
// failures become the engine's error types: OutOfDeviceMemoryError for allocation failures,
// DeviceError for everything else, with the call, the place and the CUDA error text.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

namespace modescope::cuda {

[[noreturn]] void throwCudaError(cudaError_t e, const char* expr, const char* file, int line);
[[noreturn]] void throwCufftError(cufftResult r, const char* expr, const char* file, int line);

inline void check(cudaError_t e, const char* expr, const char* file, int line) {
  if (e != cudaSuccess) throwCudaError(e, expr, file, line);
}
inline void checkCufft(cufftResult r, const char* expr, const char* file, int line) {
  if (r != CUFFT_SUCCESS) throwCufftError(r, expr, file, line);
}

// After every kernel launch: the launch error, and with MODESCOPE_CUDA_SYNC_DEBUG the execution
// error of that kernel (synchronising the stream), so a fault is reported at its kernel.
void checkLaunch(const char* kernel, cudaStream_t stream, const char* file, int line);

}  // namespace modescope::cuda

#define MODESCOPE_CUDA_TRY(expr) ::modescope::cuda::check((expr), #expr, __FILE__, __LINE__)
#define MODESCOPE_CUFFT_TRY(expr) ::modescope::cuda::checkCufft((expr), #expr, __FILE__, __LINE__)
#define MODESCOPE_CUDA_CHECK_LAUNCH(kernel, stream) \
  ::modescope::cuda::checkLaunch((kernel), (stream), __FILE__, __LINE__)
