// Using a decomposition: activations, back-projection without rejected components, the sample
// requirement and the Amari index (infomax.h).
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/ica/infomax.h"

namespace modescope {
namespace {

void checkBlockMatches(const IcaResult& r, const SignalBlock& block) {
  const int c = r.unmixing.cols;
  if (static_cast<int>(block.channels.size()) != c || r.mean.size() != static_cast<std::size_t>(c))
    throw InvalidParameterError("block", std::to_string(block.channels.size()) + " channels",
                                std::to_string(c) + " channels, those the ICA was computed on",
                                "select the same channels as for the decomposition");
  if (block.samples < 0 ||
      block.data.size() != block.channels.size() * static_cast<std::size_t>(block.samples))
    throw InvalidParameterError(
        "block", std::to_string(block.data.size()) + " samples in all",
        std::to_string(c) + " channels x " + std::to_string(block.samples) + " samples");
}

// Samples per chunk: keeps the centred chunk (C x chunk doubles) small and cache-resident.
constexpr int64_t kChunk = 2048;

// Activations of components `rows` (indices into the result's rows) for samples [t0, t0 + len):
// out[k * len + j].
void activationsChunk(const IcaResult& r, const SignalBlock& block, const std::vector<int>& rows,
                      int64_t t0, int64_t len, std::vector<double>& centred,
                      std::vector<double>& out) {
  const int c = r.unmixing.cols;
  centred.resize(static_cast<std::size_t>(c * len));
  for (int ch = 0; ch < c; ++ch) {
    const float* x = block.channel(static_cast<std::size_t>(ch)) + t0;
    double* dst = centred.data() + static_cast<std::size_t>(ch) * len;
    for (int64_t j = 0; j < len; ++j) dst[j] = static_cast<double>(x[j]) - r.mean[ch];
  }
  out.assign(rows.size() * static_cast<std::size_t>(len), 0.0);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    double* o = out.data() + k * len;
    for (int ch = 0; ch < c; ++ch) {
      const double u = r.unmixing(rows[k], ch);
      const double* src = centred.data() + static_cast<std::size_t>(ch) * len;
      for (int64_t j = 0; j < len; ++j) o[j] += u * src[j];
    }
  }
}

}  // namespace

IcaSampleRequirement icaSampleRequirement(int components) {
  const int64_t r = std::max(components, 1);
  IcaSampleRequirement q;
  q.minimum = std::max<int64_t>(r * r, 10);
  q.recommended = std::max<int64_t>(20 * r * r, q.minimum);
  return q;
}

std::vector<float> icaActivations(const IcaResult& r, const SignalBlock& block) {
  checkBlockMatches(r, block);
  const int64_t n = block.samples;
  std::vector<int> rows(static_cast<std::size_t>(r.unmixing.rows));
  for (int k = 0; k < r.unmixing.rows; ++k) rows[static_cast<std::size_t>(k)] = k;
  std::vector<float> out(rows.size() * static_cast<std::size_t>(n));
  std::vector<double> centred, act;
  for (int64_t t0 = 0; t0 < n; t0 += kChunk) {
    const int64_t len = std::min(kChunk, n - t0);
    activationsChunk(r, block, rows, t0, len, centred, act);
    for (std::size_t k = 0; k < rows.size(); ++k)
      for (int64_t j = 0; j < len; ++j) out[k * n + t0 + j] = static_cast<float>(act[k * len + j]);
  }
  return out;
}

SignalBlock icaBackProject(const IcaResult& r, const SignalBlock& block,
                           const std::vector<int>& rejected) {
  checkBlockMatches(r, block);
  std::vector<int> rows;
  for (int k : rejected) {
    if (k < 0 || k >= r.unmixing.rows)
      throw InvalidParameterError(
          "rejected", std::to_string(k),
          "a component number from 0 to " + std::to_string(r.unmixing.rows - 1),
          "pick components of this decomposition");
    if (std::find(rows.begin(), rows.end(), k) == rows.end()) rows.push_back(k);
  }
  SignalBlock out = block;
  if (rows.empty()) return out;
  const int c = r.unmixing.cols;
  const int64_t n = block.samples;
  std::vector<double> centred, act;
  for (int64_t t0 = 0; t0 < n; t0 += kChunk) {
    const int64_t len = std::min(kChunk, n - t0);
    activationsChunk(r, block, rows, t0, len, centred, act);
    for (int ch = 0; ch < c; ++ch) {
      float* dst = out.channel(static_cast<std::size_t>(ch)) + t0;
      const float* src = block.channel(static_cast<std::size_t>(ch)) + t0;
      for (int64_t j = 0; j < len; ++j) {
        double v = src[j];
        for (std::size_t k = 0; k < rows.size(); ++k) v -= r.mixing(ch, rows[k]) * act[k * len + j];
        dst[j] = static_cast<float>(v);
      }
    }
  }
  return out;
}

double amariIndex(const IcaMatrix& p) {
  const int n = p.rows;
  if (n != p.cols || n < 2)
    throw InvalidParameterError("amariIndex",
                                std::to_string(p.rows) + " x " + std::to_string(p.cols),
                                "a square matrix of size 2 or more");
  double rows = 0.0, cols = 0.0;
  for (int i = 0; i < n; ++i) {
    double sum = 0.0, mx = 0.0;
    for (int j = 0; j < n; ++j) {
      sum += std::abs(p(i, j));
      mx = std::max(mx, std::abs(p(i, j)));
    }
    rows += mx > 0 ? sum / mx - 1.0 : static_cast<double>(n - 1);
  }
  for (int j = 0; j < n; ++j) {
    double sum = 0.0, mx = 0.0;
    for (int i = 0; i < n; ++i) {
      sum += std::abs(p(i, j));
      mx = std::max(mx, std::abs(p(i, j)));
    }
    cols += mx > 0 ? sum / mx - 1.0 : static_cast<double>(n - 1);
  }
  return (rows + cols) / (2.0 * n * (n - 1));
}

}  // namespace modescope
