// Small device-side function objects shared by the kernels (internal to cuda/).
#pragma once

namespace modescope::cuda {

// The larger of two values, for cub reductions (cub dropped cub::Max in CUDA 13).
struct MaxOp {
  template <class T>
  __device__ T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};

}  // namespace modescope::cuda
