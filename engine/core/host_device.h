// MODESCOPE_HOST_DEVICE: marks plain functions that the engine (g++) and the CUDA kernels (nvcc)
// both compile, so a formula is written once for both backends.
#pragma once

#if defined(__CUDACC__)
#define MODESCOPE_HOST_DEVICE __host__ __device__
#else
#define MODESCOPE_HOST_DEVICE
#endif
