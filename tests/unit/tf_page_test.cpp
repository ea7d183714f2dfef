// The time-frequency view's page (app/core/tf_page.h) and its ridge modes as a recording
// (app/core/tf_modes_recording.h): a page equals the same columns of the whole recording's
// transform (the margins give its edge columns the signal a whole-recording transform sees), at
// the start, in the middle and at the end; the ridges of two tones lie on the tones; the modes
// reconstruct the tones; the refusals name what was wrong.
#include "app/core/tf_page.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "app/core/imf_recording.h"
#include "app/core/tf_modes_recording.h"
#include "engine/core/error.h"
#include "engine/tf/tf_plan.h"

namespace modescope {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kRate = 256.0;
constexpr double kSeconds = 20.0;
constexpr double kLowHz = 12.0, kHighHz = 40.0;

double lowTone(int64_t i) { return 2.0 * std::sin(2 * kPi * kLowHz * i / kRate + 0.3); }
double highTone(int64_t i) { return 1.0 * std::sin(2 * kPi * kHighHz * i / kRate + 1.1); }

std::shared_ptr<const Recording> twoTones() {
  const auto n = static_cast<int64_t>(kSeconds * kRate);
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.02);
  std::vector<float> x(static_cast<std::size_t>(n)), flat(static_cast<std::size_t>(n), 0.0f);
  for (int64_t i = 0; i < n; ++i)
    x[static_cast<std::size_t>(i)] = static_cast<float>(lowTone(i) + highTone(i) + noise(rng));
  auto rec = std::make_shared<Recording>();
  for (const char* name : {"Cz", "Flat"}) {
    ChannelInfo c;
    c.label = c.name = name;
    c.unit = "uV";
    c.type = ChannelType::EEG;
    c.sampleRate = kRate;
    c.sampleCount = n;
    rec->channels.push_back(c);
  }
  rec->annotations = {{3.0, 0.0, "before"}, {7.5, 0.5, "inside"}};
  rec->source = std::make_shared<InMemorySource>(std::vector<std::vector<float>>{x, flat});
  return rec;
}

TfParams pageParams(TfOrder order, int hop) {
  TfParams p;
  p.order = order;
  p.windowLength = 128;
  p.fftLength = 256;
  p.hop = hop;
  return p;
}

TEST(TfPage, EqualsTheWholeRecordingsColumnsAtTheStartMiddleAndEnd) {
  const auto rec = twoTones();
  const auto backend = makeCpuBackend(1);
  const SignalBlock whole = extractBlock(*rec, {0}, 0.0, -1.0);
  for (TfOrder order : {TfOrder::Spectrogram, TfOrder::Second}) {
    const int hop = 4;
    JobContext ctx;
    const TfResult full = backend->timeFrequency(whole, pageParams(order, hop), ctx);
    float peak = 0.0f;
    for (const auto& v : full.values) peak = std::max(peak, std::norm(v));
    for (double start : {0.0, 5.0, 16.0}) {
      TfPageRequest req;
      req.channel = 0;
      req.startSeconds = start;
      req.seconds = 4.0;
      req.params = pageParams(order, hop);
      const TfPage page = computeTfPage(*rec, req, *backend, ctx);
      ASSERT_EQ(page.cols, static_cast<int>(4.0 * kRate / hop));
      ASSERT_EQ(page.rows, full.bins);
      EXPECT_EQ(page.firstSample, static_cast<int64_t>(start * kRate));
      EXPECT_DOUBLE_EQ(page.columnSeconds(0), start);
      const std::vector<float>& grid =
          order == TfOrder::Spectrogram ? page.spectrogram : page.squeezed;
      ASSERT_EQ(grid.size(), static_cast<std::size_t>(page.rows) * page.cols);
      const int64_t first = page.firstSample / hop;
      double worst = 0.0;
      for (int k = 0; k < page.rows; ++k)
        for (int c = 0; c < page.cols; ++c)
          worst =
              std::max<double>(worst, std::abs(grid[static_cast<std::size_t>(k) * page.cols + c] -
                                               std::norm(full.column(0, first + c)[k])));
      // The squeezing threshold scales with the block's RMS, which differs a little between the
      // page's block and the whole recording: only bins near the threshold (power ~1e-6 of the
      // peak) may land elsewhere.
      EXPECT_LT(worst, 1e-4 * peak) << "order " << tfOrderName(order) << " page at " << start;
    }
  }
}

TEST(TfPage, RidgesLieOnTheTonesAndTheHopFitsThePixels) {
  const auto rec = twoTones();
  const auto backend = makeCpuBackend(1);
  TfPageRequest req;
  req.startSeconds = 6.0;
  req.seconds = 10.0;
  req.params = pageParams(TfOrder::Third, tfDisplayHop(kRate, 10.0, 700));
  req.readout.ridges = 2;
  JobContext ctx;
  const TfPage page = computeTfPage(*rec, req, *backend, ctx);
  EXPECT_EQ(page.hop, 4);  // ceil(2560 / 700)
  EXPECT_FALSE(page.spectrogram.empty());
  EXPECT_FALSE(page.squeezed.empty());
  ASSERT_EQ(page.ridgeRows.size(), 2u);
  const double expected[] = {kLowHz, kHighHz};  // the stronger tone first
  for (std::size_t r = 0; r < 2; ++r) {
    ASSERT_EQ(page.ridgeRows[r].size(), static_cast<std::size_t>(page.cols));
    for (int row : page.ridgeRows[r]) ASSERT_NEAR(page.rowHz(row), expected[r], page.binHz);
  }
  EXPECT_EQ(tfDisplayHop(512.0, 10.0, 1000), 6);
  EXPECT_EQ(tfDisplayHop(512.0, 10.0, 100000), 1);
  EXPECT_EQ(tfDisplayHop(512.0, 10.0, 0), 1);
}

TEST(TfPage, RefusesWhatItCannotShowWithTheReason) {
  const auto rec = twoTones();
  const auto backend = makeCpuBackend(1);
  JobContext ctx;
  TfPageRequest req;
  req.params = pageParams(TfOrder::Third, 1);
  req.channel = 2;
  EXPECT_THROW(computeTfPage(*rec, req, *backend, ctx), InvalidParameterError);
  req.channel = 0;
  req.startSeconds = kSeconds + 1;
  EXPECT_THROW(computeTfPage(*rec, req, *backend, ctx), InvalidParameterError);
  req.startSeconds = 0;
  req.params.window = TfWindow::Hann;  // squeezing needs the Gaussian
  try {
    computeTfPage(*rec, req, *backend, ctx);
    FAIL() << "a Hann window with order 3 was accepted";
  } catch (const InvalidParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("window"), std::string::npos) << e.what();
  }
  req.params = pageParams(TfOrder::Third, 1);
  req.params.maxFrequency = 200;  // above Nyquist at 256 Hz
  EXPECT_THROW(computeTfPage(*rec, req, *backend, ctx), Error);
}

TEST(TfModesRecording, ModesReconstructTheTonesAndSumToTheInput) {
  const auto rec = twoTones();
  const auto backend = makeCpuBackend(1);
  TfModesRequest req;
  req.channel = 0;
  req.startSeconds = 5.0;
  req.seconds = 6.0;
  req.params = pageParams(TfOrder::Third, 8);  // hop is forced to 1
  req.readout.ridges = 2;
  req.readout.ridge.halfWidth = 3;
  JobContext ctx;
  const TfModesRecording out = tfModesRecording(*rec, req, *backend, ctx);
  const Recording& d = *out.recording;
  ASSERT_EQ(d.channelCount(), 4u);
  EXPECT_EQ(d.channels[0].name, "Cz");
  EXPECT_EQ(d.channels[1].name.rfind("Cz ridge 1 (", 0), 0u) << d.channels[1].name;
  EXPECT_EQ(d.channels[2].name.rfind("Cz ridge 2 (", 0), 0u) << d.channels[2].name;
  EXPECT_EQ(d.channels[3].name, "Cz residual");
  ASSERT_EQ(out.ridgeMeanHz.size(), 2u);
  EXPECT_NEAR(out.ridgeMeanHz[0], kLowHz, 1.0);
  EXPECT_NEAR(out.ridgeMeanHz[1], kHighHz, 1.0);
  const auto n = static_cast<int64_t>(6.0 * kRate);
  const auto first = static_cast<int64_t>(5.0 * kRate);
  std::vector<std::vector<float>> ch;
  for (std::size_t c = 0; c < 4; ++c) ch.push_back(d.readChannel(c, 0, n));
  const std::vector<float> input = rec->readChannel(0, first, n);
  ASSERT_EQ(ch[0].size(), static_cast<std::size_t>(n));
  // Away from the range's edges (half a window, where the transform sees zeros beyond them),
  // each mode is its tone within 1 % of the energy (20 dB).
  std::vector<double> low, lowHat, high, highHat;
  for (int64_t i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    EXPECT_EQ(ch[0][u], input[u]);
    ASSERT_NEAR(ch[1][u] + ch[2][u] + ch[3][u], input[u], 1e-4);
    if (i < 64 || i >= n - 64) continue;
    low.push_back(lowTone(first + i));
    lowHat.push_back(ch[1][u]);
    high.push_back(highTone(first + i));
    highHat.push_back(ch[2][u]);
  }
  EXPECT_GT(tfReconstructionQuality(low, lowHat), 20.0);
  EXPECT_GT(tfReconstructionQuality(high, highHat), 20.0);
  // The range's annotations, shifted to its start.
  ASSERT_EQ(d.annotations.size(), 1u);
  EXPECT_DOUBLE_EQ(d.annotations[0].onset, 2.5);
  EXPECT_EQ(out.provenance.method, "tfr");
  bool modes = false;
  for (const auto& [key, value] : out.provenance.parameters) modes |= key == "ran.modes";
  EXPECT_TRUE(modes);

  req.readout.ridges = 0;
  EXPECT_THROW(tfModesRecording(*rec, req, *backend, ctx), InvalidParameterError);
}

}  // namespace
}  // namespace modescope

namespace modescope {
namespace {

TEST(ImfRecording, PlacesTheModesOnTheRecordingsTimeAxis) {
  const auto rec = twoTones();
  auto result = std::make_shared<EmdResult>();
  result->sampleRate = kRate;
  result->firstSample = 100;
  result->samples = 50;
  EmdChannelModes modes;
  modes.channel = 0;
  modes.rows = 3;
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 50; ++i) modes.data.push_back(static_cast<float>(1000 * (r + 1) + i));
  result->channels.push_back(modes);
  const auto imfs = imfRecording(*rec, result, 0);
  ASSERT_EQ(imfs->channelCount(), 3u);
  EXPECT_EQ(imfs->channels[0].name, "Cz IMF 1");
  EXPECT_EQ(imfs->channels[1].name, "Cz IMF 2");
  EXPECT_EQ(imfs->channels[2].name, "Cz residue");
  EXPECT_EQ(imfs->channels[1].sampleCount, 150);
  const std::vector<float> row = imfs->readChannel(1, 98, 60);
  ASSERT_EQ(row.size(), 52u);  // clipped at the end of the decomposition
  EXPECT_EQ(row[0], 0.0f);
  EXPECT_EQ(row[1], 0.0f);
  EXPECT_EQ(row[2], 2000.0f);
  EXPECT_EQ(row[51], 2049.0f);
  EXPECT_THROW(imfRecording(*rec, result, 1), InvalidParameterError);
}

}  // namespace
}  // namespace modescope
