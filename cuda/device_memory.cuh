// RAII owners for device memory, streams and cuFFT plans (internal to cuda/). One owner per
// resource, move-only; destructors never throw (a failing free during unwinding is ignored: the
// error that caused the unwinding is the one to report).
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "cuda/cuda_check.cuh"

namespace modescope::cuda {

// Test hook (cuda_backend.h: setCudaTestHooks): fill new buffers with NaN.
bool poisonAllocations();

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // count elements; allocation failure throws OutOfDeviceMemoryError.
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ == 0) return;
    MODESCOPE_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&p_), bytes()));
    if (poisonAllocations()) {
      // All-ones bits are NaN in float. cudaMemset runs on the legacy default stream, which does
      // not order with the backend's non-blocking stream: wait for it before anyone writes.
      cudaError_t e = cudaMemset(p_, 0xFF, bytes());
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
      if (e != cudaSuccess) {
        cudaFree(p_);
        p_ = nullptr;
        MODESCOPE_CUDA_TRY(e);
      }
    }
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const noexcept { return p_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  void reset() noexcept {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    count_ = 0;
  }

 private:
  T* p_ = nullptr;
  std::size_t count_ = 0;
};

class Stream {
 public:
  Stream() { MODESCOPE_CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const noexcept { return s_; }
  void synchronize() const { MODESCOPE_CUDA_TRY(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// A batched 1-D real FFT plan (R2C or C2R) of length `n` over `batch` contiguous transforms,
// bound to `stream`. Its workspace is allocated at creation (CUFFT_ALLOC_FAILED ->
// OutOfDeviceMemoryError).
class FftPlan {
 public:
  FftPlan() = default;
  FftPlan(long long n, long long batch, cufftType type, cudaStream_t stream) {
    MODESCOPE_CUFFT_TRY(cufftCreate(&h_));
    valid_ = true;
    try {
      std::size_t work = 0;
      MODESCOPE_CUFFT_TRY(cufftMakePlanMany64(h_, 1, &n, nullptr, 1, 0, nullptr, 1, 0, type,
                                              batch, &work));
      MODESCOPE_CUFFT_TRY(cufftSetStream(h_, stream));
    } catch (...) {
      reset();  // the destructor does not run for a constructor that throws
      throw;
    }
    batch_ = batch;
  }
  ~FftPlan() { reset(); }
  FftPlan(FftPlan&& o) noexcept
      : h_(o.h_), valid_(std::exchange(o.valid_, false)), batch_(std::exchange(o.batch_, 0)) {}
  FftPlan& operator=(FftPlan&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = o.h_;
      valid_ = std::exchange(o.valid_, false);
      batch_ = std::exchange(o.batch_, 0);
    }
    return *this;
  }
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  cufftHandle get() const noexcept { return h_; }
  long long batch() const noexcept { return batch_; }
  void reset() noexcept {
    if (valid_) cufftDestroy(h_);
    valid_ = false;
    batch_ = 0;
  }

 private:
  cufftHandle h_ = 0;
  bool valid_ = false;
  long long batch_ = 0;
};

}  // namespace modescope::cuda
