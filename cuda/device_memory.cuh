// RAII owners for device memory, pinned host memory, streams, events and cuFFT plans (internal
// to cuda/). One owner per resource, move-only; destructors never throw (a failing free during
// unwinding is ignored: the error that caused the unwinding is the one to report).
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "cuda/cuda_check.cuh"
#include "cuda/device_pool.h"
#include "cuda/pinned_pool.h"

namespace modescope::cuda {

// Test hook (cuda_backend.h: setCudaTestHooks): fill new buffers with NaN.
bool poisonAllocations();

// Device memory from the pool (device_pool.h), released when the owner goes.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // count elements; allocation failure throws OutOfDeviceMemoryError.
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ == 0) return;
    p_ = static_cast<T*>(allocateDeviceBytes(bytes()));
    if (poisonAllocations()) {
      // All-ones bits are NaN in float. cudaMemset runs on the legacy default stream, which does
      // not order with the backend's non-blocking stream: wait for it before anyone writes.
      cudaError_t e = cudaMemset(p_, 0xFF, bytes());
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
      if (e != cudaSuccess) {
        releaseDeviceBytes(p_);
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
    releaseDeviceBytes(p_);
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

// An event for ordering between streams and for waiting on the host (timing disabled: cheaper
// to record and to wait on).
class Event {
 public:
  Event() { MODESCOPE_CUDA_TRY(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    if (this != &o) {
      if (e_) cudaEventDestroy(e_);
      e_ = std::exchange(o.e_, nullptr);
    }
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const noexcept { return e_; }
  void record(cudaStream_t s) const { MODESCOPE_CUDA_TRY(cudaEventRecord(e_, s)); }
  // Host wait; returns at once for an event never recorded.
  void synchronize() const { MODESCOPE_CUDA_TRY(cudaEventSynchronize(e_)); }

 private:
  cudaEvent_t e_ = nullptr;
};

// Waits for the stream on every exit, so no copy or kernel outlives the buffers it uses.
// Declare it after the buffers so it runs before they are freed.
class StreamDrain {
 public:
  explicit StreamDrain(const Stream& s) : s_(s) {}
  ~StreamDrain() { cudaStreamSynchronize(s_.get()); }
  StreamDrain(const StreamDrain&) = delete;
  StreamDrain& operator=(const StreamDrain&) = delete;

 private:
  const Stream& s_;
};

// Page-locked host memory (from the pool of pinned_pool.h), the only host memory that
// asynchronous copies read or write. Whoever owns one must make sure no copy using it is in
// flight when it is destroyed (the pipeline synchronises its streams before it returns or
// unwinds).
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count_ == 0) return;
    p_ = static_cast<T*>(allocatePinnedBytes(count_ * sizeof(T)));
  }
  ~PinnedBuffer() { reset(); }
  PinnedBuffer(PinnedBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* get() const noexcept { return p_; }
  std::size_t size() const noexcept { return count_; }
  void reset() noexcept {
    releasePinnedBytes(p_);
    p_ = nullptr;
    count_ = 0;
  }

 private:
  T* p_ = nullptr;
  std::size_t count_ = 0;
};

// A batched 1-D real FFT plan (R2C or C2R) of length `n` over `batch` contiguous transforms,
// bound to `stream`, WITHOUT its own workspace: workSize() says how many bytes it needs and
// setWorkArea() hands it a buffer, so plans that run one after another on one stream share one
// workspace.
class FftPlan {
 public:
  FftPlan() = default;
  FftPlan(long long n, long long batch, cufftType type, cudaStream_t stream) {
    MODESCOPE_CUFFT_TRY(cufftCreate(&h_));
    valid_ = true;
    try {
      MODESCOPE_CUFFT_TRY(cufftSetAutoAllocation(h_, 0));
      MODESCOPE_CUFFT_TRY(
          cufftMakePlanMany64(h_, 1, &n, nullptr, 1, 0, nullptr, 1, 0, type, batch, &work_));
      MODESCOPE_CUFFT_TRY(cufftSetStream(h_, stream));
    } catch (...) {
      reset();  // the destructor does not run for a constructor that throws
      throw;
    }
    batch_ = batch;
  }
  ~FftPlan() { reset(); }
  FftPlan(FftPlan&& o) noexcept
      : h_(o.h_),
        valid_(std::exchange(o.valid_, false)),
        batch_(std::exchange(o.batch_, 0)),
        work_(std::exchange(o.work_, 0)) {}
  FftPlan& operator=(FftPlan&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = o.h_;
      valid_ = std::exchange(o.valid_, false);
      batch_ = std::exchange(o.batch_, 0);
      work_ = std::exchange(o.work_, 0);
    }
    return *this;
  }
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  cufftHandle get() const noexcept { return h_; }
  bool valid() const noexcept { return valid_; }
  long long batch() const noexcept { return batch_; }
  std::size_t workSize() const noexcept { return work_; }
  // `area` must hold workSize() bytes and outlive every execution of this plan.
  void setWorkArea(void* area) const { MODESCOPE_CUFFT_TRY(cufftSetWorkArea(h_, area)); }
  void reset() noexcept {
    if (valid_) cufftDestroy(h_);
    valid_ = false;
    batch_ = 0;
    work_ = 0;
  }

 private:
  cufftHandle h_ = 0;
  bool valid_ = false;
  long long batch_ = 0;
  std::size_t work_ = 0;
};

}  // namespace modescope::cuda
