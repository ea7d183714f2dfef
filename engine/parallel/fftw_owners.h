// The FFTW planner lock and RAII owners for FFTW memory and plans, shared by the CPU backend's
// filters, the CPU Hilbert transform and the Welch spectra (engine-internal).
//
// Thread rules: FFTW's planner is not thread-safe; every FFTW plan creation or destruction in the
// process must hold fftwPlannerMutex() (FftwPlan destroys its plan under it). fftw_execute_* on
// distinct arrays is thread-safe.
#pragma once

#include <fftw3.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "engine/core/error.h"

namespace modescope {

// The one lock around FFTW's planner (plan creation and destruction) for the whole process.
std::mutex& fftwPlannerMutex();

struct FftwFree {
  void operator()(void* p) const noexcept { fftw_free(p); }
};
template <class T>
using FftwBuffer = std::unique_ptr<T[], FftwFree>;

// n elements (at least one) from fftw_malloc, aligned for FFTW's SIMD code.
template <class T>
FftwBuffer<T> fftwAlloc(std::size_t n) {
  auto* p = static_cast<T*>(fftw_malloc(sizeof(T) * std::max<std::size_t>(n, 1)));
  if (!p) throw std::bad_alloc();
  return FftwBuffer<T>(p);
}

class FftwPlan {
 public:
  // `what` names the transform in the error when FFTW returns no plan.
  FftwPlan(fftw_plan p, const char* what) : p_(p) {
    if (!p_) throw Error(std::string("FFTW could not create a plan for ") + what);
  }
  ~FftwPlan() {
    std::lock_guard lock(fftwPlannerMutex());
    fftw_destroy_plan(p_);
  }
  FftwPlan(const FftwPlan&) = delete;
  FftwPlan& operator=(const FftwPlan&) = delete;
  fftw_plan get() const { return p_; }

 private:
  fftw_plan p_;
};

}  // namespace modescope
