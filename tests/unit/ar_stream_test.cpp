// The streamed AR features (engine/ar/ar_stream.h, CPU stream in ar_stream_cpu.h): every update
// must equal the offline Burg spectra (computeArSpectraCpu, after applySpatialFilter for a CAR)
// of the same N-sample window, whatever the block size; the stream is not ready before N samples,
// forgets everything on reset, names the row and sample of a NaN, and refuses bad configurations.
#include "engine/ar/ar_stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "engine/ar/ar_spectrum.h"
#include "engine/ar/ar_stream_cpu.h"
#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/io/recording_io.h"
#include "engine/spatial/spatial_filter.h"
#include "error_message_support.h"

namespace modescope {
namespace {

using test_support::messageOf;

// The demo's 64 EEG channels, 160 Hz (PhysioNet S001R03), first `seconds` seconds.
struct DemoBlock {
  std::shared_ptr<const Recording> rec;
  SignalBlock block;
};

DemoBlock demo(double seconds) {
  DemoBlock d;
  d.rec = openRecording(std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_64ch.h5");
  std::vector<std::size_t> all;
  for (std::size_t c = 0; c < d.rec->channelCount(); ++c) all.push_back(c);
  d.block = extractBlock(*d.rec, all, 0.0, seconds);
  return d;
}

// Row-major rows x count samples [first, first + count) of a channel-major block, as pushed.
std::vector<float> slice(const SignalBlock& b, int64_t first, int64_t count) {
  std::vector<float> out;
  out.reserve(b.channels.size() * static_cast<std::size_t>(count));
  for (std::size_t c = 0; c < b.channels.size(); ++c)
    out.insert(out.end(), b.channel(c) + first, b.channel(c) + first + count);
  return out;
}

// The offline oracle: the one window [end - N, end) of `filtered` through computeArSpectraCpu.
ArSpectrumResult offlineWindow(const SignalBlock& filtered, int64_t end, int64_t n,
                               const BurgArParams& params) {
  SignalBlock w;
  w.channels = filtered.channels;
  w.sampleRate = filtered.sampleRate;
  w.samples = n;
  w.data = slice(filtered, end - n, n);
  JobContext ctx;
  return computeArSpectraCpu(w, params, 1, ctx);
}

// Pushes `block` in pieces of `blockSize` samples and compares every ready update with the
// offline spectra of its window. `relTol` is relative to the largest bin value of the output
// (a bin 1e6 times below the peak carries no information a relative-per-bin test could check).
void expectMatchesOffline(ArStream& stream, const SignalBlock& pushed, const SignalBlock& filtered,
                          const BurgArParams& params, int64_t blockSize, double relTol) {
  const int64_t n = resolveArLengths(params, pushed.sampleRate).windowSamples;
  const std::size_t bins = stream.binCount();
  int64_t end = 0;
  int updates = 0;
  while (end < pushed.samples) {
    const int64_t count = std::min(blockSize, pushed.samples - end);
    const std::vector<float> x = slice(pushed, end, count);
    const ArStreamUpdate u = stream.push(x.data(), count);
    end += count;
    ASSERT_EQ(u.pushedSamples, end);
    ASSERT_EQ(u.ready, end >= n) << "after " << end << " samples (N = " << n << ")";
    if (!u.ready) {
      EXPECT_TRUE(u.values.empty());
      continue;
    }
    ++updates;
    const ArSpectrumResult ref = offlineWindow(filtered, end, n, params);
    ASSERT_EQ(u.values.size(), stream.outputCount() * bins);
    ASSERT_EQ(ref.valuesPerWindow(), bins);
    for (std::size_t o = 0; o < stream.outputCount(); ++o) {
      const float* r = ref.row(o, 0);
      const double peak = *std::max_element(r, r + bins);
      for (std::size_t b = 0; b < bins; ++b)
        ASSERT_NEAR(u.values[o * bins + b], r[b], relTol * peak)
            << "output " << o << " bin " << b << " window ending at sample " << end
            << " (blocks of " << blockSize << ")";
      ASSERT_NEAR(u.noiseVariance[o], ref.noiseVariance[o], relTol * ref.noiseVariance[o]);
    }
  }
  EXPECT_GT(updates, 0);
}

BurgArParams bci2000() { return burgArPreset("bci2000"); }

// Without a filter the stream and the offline driver see the same float samples and run the same
// double arithmetic, except that arBinValues sums arPsd per frequency while the offline loop
// scales the sum once: results agree to ~1e-15 before the float rounding, so a few float ulps
// (4e-7 relative) bound the whole difference. (Measured with GCC 12 on x86-64: the floats are
// identical; the margin is for compilers that contract to FMA differently.) A ring read from the
// wrong end changes values at the 1e-1 level (checked by mutating the stream).
constexpr double kSameSamples = 4e-7;
// With a CAR the stream accumulates each output over the inputs in input order, applySpatialFilter
// through Eigen's product: a different summation order can move a filtered float by one ulp
// (6e-8), which Burg of order 16 on 80 samples amplifies by its conditioning. Measured here: the
// floats are identical on the demo; 1e-4 allows for other Eigen kernels and still catches a wrong
// weight (1/64 of a channel changes bins by ~1e-2).
constexpr double kFilteredSamples = 1e-4;

TEST(ArStream, UpdatesEqualOfflineSpectraWithoutAFilter) {
  const DemoBlock d = demo(6.0);
  ArStreamConfig cfg;
  cfg.channels = d.block.channels.size();
  cfg.params = bci2000();
  cfg.sampleRate = d.block.sampleRate;
  // Block sizes: the 50 ms block (8 samples, divides N = 80), 7 and 13 (do not divide N),
  // 1 (sample by sample) and 200 (more than a window per push).
  for (int64_t size : {8, 7, 13, 1, 200}) {
    auto stream = makeCpuArStream(cfg, 2);
    EXPECT_EQ(stream->inputCount(), 64u);
    EXPECT_EQ(stream->outputCount(), 64u);
    expectMatchesOffline(*stream, d.block, d.block, cfg.params, size, kSameSamples);
  }
}

TEST(ArStream, UpdatesEqualOfflineSpectraWithACar) {
  const DemoBlock d = demo(5.0);
  auto car =
      std::make_shared<SpatialFilter>(commonAverageReference(d.rec->channels, d.block.channels));
  const SignalBlock filtered = applySpatialFilter(*car, d.block);
  for (ArDetrend detrend : {ArDetrend::None, ArDetrend::Linear}) {
    ArStreamConfig cfg;
    cfg.filter = car;
    cfg.params = bci2000();
    cfg.params.detrend = detrend;
    cfg.params.output = ArOutput::Amplitude;
    cfg.sampleRate = d.block.sampleRate;
    for (int64_t size : {8, 11}) {
      auto stream = makeCpuArStream(cfg, 3);
      expectMatchesOffline(*stream, d.block, filtered, cfg.params, size, kFilteredSamples);
    }
  }
}

TEST(ArStream, WilsonPresetThroughTheBackendInterface) {
  const DemoBlock d = demo(3.0);
  ArStreamConfig cfg;
  cfg.channels = d.block.channels.size();
  cfg.params = burgArPreset("wilson2009");
  cfg.sampleRate = d.block.sampleRate;
  auto backend = makeCpuBackend(2);
  auto stream = backend->openArStream(cfg);
  expectMatchesOffline(*stream, d.block, d.block, cfg.params, 8, kSameSamples);
}

TEST(ArStream, NotReadyBeforeAWindowAndResetForgets) {
  const DemoBlock d = demo(2.0);
  ArStreamConfig cfg;
  cfg.channels = 64;
  cfg.params = bci2000();  // N = 80 at 160 Hz
  cfg.sampleRate = 160.0;
  auto stream = makeCpuArStream(cfg, 1);
  const std::vector<float> first = slice(d.block, 0, 79);
  EXPECT_FALSE(stream->push(first.data(), 79).ready);
  const std::vector<float> one = slice(d.block, 79, 1);
  const ArStreamUpdate full = stream->push(one.data(), 1);
  ASSERT_TRUE(full.ready);

  // After a reset the stream needs a whole window again, and then gives the spectra of the new
  // window only (samples 100..179), none of the forgotten ones.
  stream->reset();
  const std::vector<float> partial = slice(d.block, 100, 79);
  const ArStreamUpdate notYet = stream->push(partial.data(), 79);
  EXPECT_FALSE(notYet.ready);
  EXPECT_EQ(notYet.pushedSamples, 79);
  const std::vector<float> last = slice(d.block, 179, 1);
  const ArStreamUpdate again = stream->push(last.data(), 1);
  ASSERT_TRUE(again.ready);
  const ArSpectrumResult ref = offlineWindow(d.block, 180, 80, cfg.params);
  for (std::size_t i = 0; i < again.values.size(); ++i)
    ASSERT_NEAR(again.values[i], ref.values[i], kSameSamples * std::abs(ref.values[i]) + 1e-30);
}

TEST(ArStream, FlatOutputsAreCountedAndZero) {
  // A CAR over one channel is the zero filter: every output is flat.
  const DemoBlock d = demo(1.0);
  ArStreamConfig cfg;
  cfg.filter = std::make_shared<SpatialFilter>(commonAverageReference(d.rec->channels, {3}));
  cfg.params = bci2000();
  cfg.sampleRate = 160.0;
  auto stream = makeCpuArStream(cfg, 2);
  SignalBlock one = extractBlock(*d.rec, {3}, 0.0, 1.0);
  const ArStreamUpdate u = stream->push(one.data.data(), one.samples);
  ASSERT_TRUE(u.ready);
  EXPECT_EQ(u.flatOutputs, 1u);
  for (float v : u.values) EXPECT_EQ(v, 0.0f);
}

TEST(ArStream, NonFiniteSampleNamesRowAndSampleAndResets) {
  const DemoBlock d = demo(2.0);
  ArStreamConfig cfg;
  cfg.filter =
      std::make_shared<SpatialFilter>(commonAverageReference(d.rec->channels, d.block.channels));
  cfg.params = bci2000();
  cfg.sampleRate = 160.0;
  auto stream = makeCpuArStream(cfg, 2);
  std::vector<float> x = slice(d.block, 0, 100);
  ASSERT_TRUE(stream->push(x.data(), 100).ready);
  std::vector<float> bad = slice(d.block, 100, 8);
  bad[5 * 8 + 3] = std::numeric_limits<float>::quiet_NaN();  // row 5, sample 3
  const std::string m = messageOf<InvalidInputError>([&] { stream->push(bad.data(), 8); });
  EXPECT_NE(m.find("row 5"), std::string::npos) << m;
  EXPECT_NE(m.find(d.rec->channels[5].name), std::string::npos) << m;
  EXPECT_NE(m.find("sample 3"), std::string::npos) << m;
  EXPECT_NE(m.find("sample 103"), std::string::npos) << m;
  EXPECT_NE(m.find("NaN"), std::string::npos) << m;
  // Reset: the next push starts a fresh window.
  const std::vector<float> good = slice(d.block, 108, 8);
  const ArStreamUpdate u = stream->push(good.data(), 8);
  EXPECT_FALSE(u.ready);
  EXPECT_EQ(u.pushedSamples, 8);

  bad[2] = std::numeric_limits<float>::infinity();
  bad[5 * 8 + 3] = 0.0f;
  const std::string inf = messageOf<InvalidInputError>([&] { stream->push(bad.data(), 8); });
  EXPECT_NE(inf.find("row 0"), std::string::npos) << inf;
  EXPECT_NE(inf.find("infinite"), std::string::npos) << inf;
}

TEST(ArStream, BadPushesAreRefused) {
  ArStreamConfig cfg;
  cfg.channels = 2;
  cfg.params = bci2000();
  cfg.sampleRate = 160.0;
  auto stream = makeCpuArStream(cfg, 1);
  const float x[2] = {1.0f, 2.0f};
  EXPECT_NE(messageOf<InvalidParameterError>([&] { stream->push(x, 0); }).find("count"),
            std::string::npos);
  EXPECT_NE(messageOf<InvalidParameterError>([&] { stream->push(nullptr, 1); }).find("samples"),
            std::string::npos);
}

TEST(ArStream, BadConfigurationsAreRefusedWithClearMessages) {
  ArStreamConfig good;
  good.channels = 4;
  good.params = bci2000();
  good.sampleRate = 160.0;
  EXPECT_NO_THROW(validateArStreamConfig(good));

  auto refused = [](ArStreamConfig c, const std::string& words) {
    const std::string m = messageOf<InvalidParameterError>([&] { makeCpuArStream(c, 1); });
    EXPECT_NE(m.find(words), std::string::npos) << m;
  };
  ArStreamConfig c = good;
  c.params.output = ArOutput::Coefficients;
  refused(c, "coefficients");
  c = good;
  c.channels = 0;
  refused(c, "channels");
  c = good;
  c.sampleRate = 0.0;
  refused(c, "sample");
  c = good;
  c.params.order = 200;
  refused(c, "order");
  c = good;
  c.params.window = {10, ArLengthUnit::Samples};  // order 16 needs 17 samples
  refused(c, "window");
  c = good;
  auto filter = std::make_shared<SpatialFilter>();
  filter->inputNames = {"C3", "C4"};
  filter->outputNames = {"C3"};
  filter->matrix = {1.0, -0.5, 0.25};  // 3 weights for 1 x 2
  c.filter = filter;
  refused(c, "matrix");
  auto empty = std::make_shared<SpatialFilter>();
  c.filter = empty;
  refused(c, "spatial filter");
}

TEST(ArStream, ThreadCountsGiveTheSameValues) {
  // Outputs are independent: 1, 2 and 5 workers must give bit-identical updates.
  const DemoBlock d = demo(2.0);
  ArStreamConfig cfg;
  cfg.filter =
      std::make_shared<SpatialFilter>(commonAverageReference(d.rec->channels, d.block.channels));
  cfg.params = bci2000();
  cfg.sampleRate = 160.0;
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 5}) {
    auto stream = makeCpuArStream(cfg, threads);
    const std::vector<float> x = slice(d.block, 0, 160);
    results.push_back(stream->push(x.data(), 160).values);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

}  // namespace
}  // namespace modescope
