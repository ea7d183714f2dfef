// Mean, sample standard deviation and largest |x| of the rows of a batch on the device (internal
// to cuda/): the channels' std that scales the ensemble's noise (engine/emd/emd.h), the noise
// modes' std where ICEEMDAN normalises them, and max |x| for emd.m's amplitude stop. The CPU
// twin is sampleStd (engine/emd/emd_internal.h); tests/gpu/row_stats_parity_test.cpp compares them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace modescope::cuda {

// Where rowStatistics writes, per row; a null pointer is a statistic not wanted (with stddev
// null, the second pass over the rows is skipped).
template <class R>
struct RowStatsOut {
  double* mean = nullptr;
  double* stddev = nullptr;  // with n - 1, as MATLAB's std and sampleStd
  R* maxAbs = nullptr;
};

// The doubles of scratch rowStatistics needs for `rows` rows of n samples.
std::size_t rowStatsScratch(std::int64_t n, int rows);

// Statistics of rows base + r n, r < rows, queued on `stream`. Two passes in double, the mean
// first, as sampleStd; each row is summed in chunks of kStatsChunk samples whose sums are added
// in chunk order, so the result does not depend on the device (but its last bits differ from
// sampleStd's sum in sample order).
template <class R>
void rowStatistics(const R* base, std::int64_t n, int rows, const RowStatsOut<R>& out,
                   double* scratch, cudaStream_t stream);

}  // namespace modescope::cuda
