#include "app/core/tf_page.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

// rows x cols power grid of channel 0 of `r`, columns [firstColumn, firstColumn + cols).
std::vector<float> powerGrid(const TfResult& r, int64_t firstColumn, int cols) {
  const int rows = r.bins;
  std::vector<float> grid(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (int c = 0; c < cols; ++c) {
    const std::complex<float>* column = r.column(0, firstColumn + c);
    for (int k = 0; k < rows; ++k)
      grid[static_cast<std::size_t>(k) * static_cast<std::size_t>(cols) +
           static_cast<std::size_t>(c)] = std::norm(column[k]);
  }
  return grid;
}

}  // namespace

int tfDisplayHop(double sampleRate, double seconds, int pixels) {
  if (!(sampleRate > 0) || !(seconds > 0) || pixels < 1) return 1;
  const double samples = sampleRate * seconds;
  return std::clamp(static_cast<int>(std::ceil(samples / pixels)), 1, kTfMaxHop);
}

TfPage computeTfPage(const Recording& rec, const TfPageRequest& request, ComputeBackend& backend,
                     JobContext& ctx) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::size_t> channels{request.channel};
  if (request.channel >= rec.channelCount())
    throw InvalidParameterError(
        "channel", std::to_string(request.channel),
        "a channel of the recording (0-" + std::to_string(rec.channelCount() - 1) + ")");
  // The page may start before 0 (the browser scrolled to the start): the check sees the part
  // inside the recording, to its end (the page's own length is checked below).
  const double fs =
      checkSelection(rec, Selection{channels, std::max(0.0, request.startSeconds), -1.0})
          .sampleRate;
  if (!(request.seconds > 0))
    throw InvalidParameterError("page length", formatNumber(request.seconds) + " s",
                                "a positive length");
  TfParams params = request.params;
  params.rows.clear();
  validateTfParams(params);
  const int hop = params.hop;
  const int64_t total = rec.channels[request.channel].sampleCount;
  const int64_t pageFirst = std::clamp<int64_t>(std::llround(request.startSeconds * fs), 0, total);
  const int64_t pageEnd =
      std::clamp<int64_t>(std::llround((request.startSeconds + request.seconds) * fs), 0, total);
  if (pageEnd <= pageFirst)
    throw InvalidParameterError("page", formatNumber(request.startSeconds) + " s",
                                "a page that holds samples of the channel");
  // Margins: the window reaches L/2 samples before and L - 1 - L/2 after its column. Whole hops
  // before the page, so the page's columns stay on the grid the page starts.
  const int64_t margin = params.windowLength / 2 + 1;
  const int64_t hopsBefore = std::min<int64_t>((margin + hop - 1) / hop, pageFirst / hop);
  const int64_t blockFirst = pageFirst - hopsBefore * hop;
  const int64_t blockEnd = std::min<int64_t>(total, pageEnd + margin);

  SignalBlock block;
  block.channels = channels;
  block.sampleRate = fs;
  block.firstSample = blockFirst;
  block.samples = blockEnd - blockFirst;
  block.data = rec.readChannel(request.channel, blockFirst, block.samples);
  block.samples = static_cast<int64_t>(block.data.size());
  ctx.checkpoint();

  TfPage page;
  page.request = request;
  page.sampleRate = fs;
  page.hop = hop;
  page.firstSample = pageFirst;
  page.backend = backend.info().describe();
  const bool squeeze = request.squeezed && params.order != TfOrder::Spectrogram;
  const bool spectrogram = request.spectrogram || !squeeze;
  TfResult spec, squeezed;
  if (spectrogram) {
    TfParams p0 = params;
    p0.order = TfOrder::Spectrogram;
    spec = backend.timeFrequency(block, p0, ctx);
  }
  if (squeeze) squeezed = backend.timeFrequency(block, params, ctx);
  const TfResult& any = squeeze ? squeezed : spec;
  const int64_t pageColumns = (pageEnd - pageFirst + hop - 1) / hop;
  page.cols = static_cast<int>(std::min<int64_t>(pageColumns, any.columns - hopsBefore));
  page.rows = any.bins;
  page.firstHz = any.frequency(0);
  page.binHz = any.binHz();
  if (page.cols < 1)
    throw InvalidParameterError("page", formatNumber(request.startSeconds) + " s",
                                "a page that holds at least one column");
  if (request.spectrogram || !squeeze) page.spectrogram = powerGrid(spec, hopsBefore, page.cols);
  if (squeeze) page.squeezed = powerGrid(squeezed, hopsBefore, page.cols);
  ctx.checkpoint();
  if (request.readout.ridges > 0) {
    // On the whole block: the margins steady the path at the page's edges.
    for (const std::vector<int>& ridge : tfRidges(any, 0, tfRidgeRequest(request.readout)))
      page.ridgeRows.emplace_back(ridge.begin() + hopsBefore,
                                  ridge.begin() + hopsBefore + page.cols);
  }
  page.computeSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return page;
}

}  // namespace modescope
