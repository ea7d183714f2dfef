// Spatial filters as one dense matrix: output = B * input, B of size C_out x C_in (Wilson and
// Williams 2009, Eq. 1-2: C_out may be below C_in, and every input feeds every output). Common
// average reference, small and large surface Laplacians and user matrices are all just particular
// matrices, so the CPU path here and the later GPU path (one cuBLAS GEMM) apply the same
// SpatialFilter.
//
// Laplacian neighbours come from the channels' montage positions (ChannelInfo::position,
// unit-sphere directions, x right, y nose, z up); the rule is documented at laplacianNeighbours()
// and in docs/spatial-filters.md.
//
// Thread rules: plain values and free functions without shared state; safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

struct SpatialFilter {
  // Row-major C_out x C_in weights: matrix[r * inputCount() + c] is the weight of input c in
  // output r. (Read column-major this is the C_in x C_out transpose, which is how cuBLAS will see
  // it.)
  std::vector<double> matrix;
  std::vector<std::string> inputNames;   // C_in channel names, column order ("" if unnamed)
  std::vector<std::string> outputNames;  // C_out names (re-referenced channels keep their name)
  // Recording channel index of each input column, in column order. Builders from channels fill it;
  // a loaded file leaves it empty until bindSpatialFilter() resolves the names.
  std::vector<std::size_t> inputChannels;
  std::string description;  // e.g. "common average reference over 64 channels"

  std::size_t inputCount() const { return inputNames.size(); }
  std::size_t outputCount() const { return outputNames.size(); }
  double weight(std::size_t out, std::size_t in) const { return matrix[out * inputCount() + in]; }
};

// Common average reference over `selection` (indices into `channels`): B = I - (1/C) 1 1^T, so
// every output is its channel minus the mean of all selected channels. Rows sum to zero, outputs
// sum to zero at every sample, B*B = B (tests/unit/spatial_filter_test.cpp). Throws
// InvalidParameterError for an empty selection, a repeated index or an index out of range. One
// channel gives the zero filter.
SpatialFilter commonAverageReference(const std::vector<ChannelInfo>& channels,
                                     const std::vector<std::size_t>& selection);

enum class LaplacianSize { Small, Large };
enum class LaplacianWeighting {
  Equal,            // Hjorth: subtract the plain mean of the neighbours (default)
  InverseDistance,  // McFarland et al. 1997: weights (1/d_ij) / sum_j (1/d_ij)
};

// Neighbours of every selected channel among the selected channels, as positions in `selection`
// (neighbours[k] lists positions in `selection`, not recording indices), by this rule:
//  - distance d = great-circle angle between the unit-sphere directions; the direction of a
//    neighbour is the tangent at the channel of the great circle toward it;
//  - small: candidates are the channels with d <= 1.5 * d1 (d1 = the channel's nearest distance),
//    taken nearest first; a candidate joins when its direction is at least 67.5 degrees from every
//    neighbour already taken (so grid diagonals, 45 degrees off, are left out); at most 4;
//  - large: for each small neighbour at distance d, the channel nearest to the point 2d along the
//    same great circle, if it lies within 0.5 d of that point (the next ring, one grid step on).
// On the 10-10 montage this gives C3 -> FC3, C1, CP3, C5 (small) and F3, Cz, P3, T7 (large).
// Edge channels get fewer than four. Throws InvalidInputError naming every selected channel that
// has no position (remedy: set a montage or load electrode positions), InvalidParameterError for
// a bad selection or for a channel with no neighbour at all.
std::vector<std::vector<std::size_t>> laplacianNeighbours(const std::vector<ChannelInfo>& channels,
                                                          const std::vector<std::size_t>& selection,
                                                          LaplacianSize size);

// Surface Laplacian over `selection`: output k = channel k minus the (weighted) mean of its
// neighbours from laplacianNeighbours(). Square, input and output order = selection order.
SpatialFilter surfaceLaplacian(const std::vector<ChannelInfo>& channels,
                               const std::vector<std::size_t>& selection, LaplacianSize size,
                               LaplacianWeighting weighting = LaplacianWeighting::Equal);

// Reads a user matrix from a text file. Lines that are empty or start with '#' are skipped. Cells
// are separated by tabs if the first line has a tab, else by commas if it has a comma, else by
// spaces. Two layouts:
//  - named: the first line holds the input channel names (optionally after a corner cell such as
//    "output"); every further line is an output name then C_in weights;
//  - plain: every line holds C_in weights; outputs are named "out1", "out2", ...; inputs are
//    unnamed and map to a selection in order (bindSpatialFilter).
// The layout is named when the first line has a cell that is not a number. Throws
// InvalidInputError naming the file, the line and column, what was found and what was expected.
SpatialFilter loadSpatialFilter(const std::string& path);

// Writes the named layout (tab-separated, corner cell "output", 17 significant digits so the
// weights read back exactly). Throws OutputError when the file cannot be written.
void saveSpatialFilter(const SpatialFilter& filter, const std::string& path);

// Resolves a filter's inputs to recording channels and fills inputChannels. Named inputs match a
// channel's name or label (case-insensitive); unnamed inputs map to `selection` in order (their
// count must equal the filter's C_in). Throws InvalidInputError naming the inputs not found.
void bindSpatialFilter(SpatialFilter& filter, const std::vector<ChannelInfo>& channels,
                       const std::vector<std::size_t>& selection = {});

// Applies the filter on the CPU with double accumulation: out(r, t) = sum_c B(r, c) in(c, t). The
// block must hold every input channel of the filter (filter.inputChannels, bound) in any order;
// extra block channels are ignored. The result has C_out channels whose `channels` entries are
// the output rows 0..C_out-1 (names in filter.outputNames), and the block's rate and first
// sample. Throws InvalidParameterError for an unbound filter, a missing input channel or a
// matrix whose size disagrees with the names.
SignalBlock applySpatialFilter(const SpatialFilter& filter, const SignalBlock& block);

// The pieces of applySpatialFilter every backend shares: the checks above with the block row of
// each input column (throws as applySpatialFilter), and the output block without its samples.
std::vector<std::size_t> spatialFilterInputRows(const SpatialFilter& filter,
                                                const SignalBlock& block);
SignalBlock spatialFilterOutputFrame(const SpatialFilter& filter, const SignalBlock& block);

}  // namespace modescope
