// The streamed time-frequency transform on the CPU (engine/tf/tf_tiles.h): the tiles cover every
// (channel, column) once, in order, and carry exactly the values (or their magnitudes) of the
// whole image; the whole image's size bound does not apply; what the sink throws stops the run.
#include "engine/tf/tf_tiles.h"

#include <H5Cpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <complex>
#include <filesystem>
#include <string>
#include <vector>

#include "app/core/tf_job.h"
#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/io/hdf5_tf.h"
#include "engine/tf/tf_analysis.h"

namespace modescope {
namespace {

SignalBlock tones(std::size_t channels, int n) {
  SignalBlock b;
  b.sampleRate = 256.0;
  b.samples = n;
  for (std::size_t c = 0; c < channels; ++c) {
    b.channels.push_back(c);
    for (int i = 0; i < n; ++i)
      b.data.push_back(static_cast<float>(std::sin(0.21 * (c + 1) * i) + 0.3 * std::cos(0.05 * i)));
  }
  return b;
}

TfParams small(TfOrder order) {
  TfParams p;
  p.order = order;
  p.windowLength = 64;
  p.fftLength = 128;
  return p;
}

TEST(TfTiles, CoverEveryColumnOnceInOrderWithTheWholeImagesValues) {
  const SignalBlock b = tones(3, 9000);  // 9000 columns: 3 tiles per channel, the last partial
  auto cpu = makeCpuBackend(2);
  for (TfOrder o : {TfOrder::Spectrogram, TfOrder::Third}) {
    const TfParams p = small(o);
    JobContext ctx;
    const TfResult whole = cpu->timeFrequency(b, p, ctx);
    const std::size_t T = static_cast<std::size_t>(whole.columns),
                      K = static_cast<std::size_t>(whole.bins);
    for (TfTileValues kind : {TfTileValues::Complex, TfTileValues::Magnitude}) {
      std::vector<int> seen(3 * T, 0);
      std::size_t lastChannel = 0;
      int64_t nextColumn = 0;
      bool ordered = true, exact = true;
      const TfResult shape = cpu->timeFrequencyTiles(
          b, p, kind,
          [&](const TfTile& t) {
            if (t.channel != lastChannel) {
              ordered = ordered && t.channel == lastChannel + 1 && nextColumn == whole.columns;
              lastChannel = t.channel;
              nextColumn = 0;
            }
            ordered = ordered && t.firstColumn == nextColumn && t.bins == whole.bins;
            nextColumn = t.firstColumn + t.columns;
            ASSERT_EQ(kind == TfTileValues::Complex, t.values != nullptr);
            ASSERT_EQ(kind == TfTileValues::Magnitude, t.magnitude != nullptr);
            for (int64_t i = 0; i < t.columns; ++i) {
              ++seen[t.channel * T + static_cast<std::size_t>(t.firstColumn + i)];
              const std::complex<float>* w = whole.column(t.channel, t.firstColumn + i);
              for (std::size_t k = 0; k < K; ++k) {
                const std::size_t at = static_cast<std::size_t>(i) * K + k;
                if (kind == TfTileValues::Complex) {
                  exact = exact && t.values[at] == w[k];
                } else {
                  const float re = w[k].real(), im = w[k].imag();
                  exact = exact && t.magnitude[at] == std::sqrt(re * re + im * im);
                }
              }
            }
          },
          ctx);
      EXPECT_TRUE(ordered) << tfOrderName(o);
      EXPECT_TRUE(exact) << tfOrderName(o);
      EXPECT_EQ(lastChannel, 2u);
      EXPECT_EQ(nextColumn, whole.columns);
      for (int v : seen) ASSERT_EQ(v, 1);
      EXPECT_TRUE(shape.values.empty());
      EXPECT_EQ(shape.columns, whole.columns);
      EXPECT_EQ(shape.bins, whole.bins);
      EXPECT_EQ(shape.channels, whole.channels);
    }
  }
}

TEST(TfTiles, TheWholeImageMayExceedTheBoundThatOneChannelMeets) {
  const SignalBlock b = tones(4, 3000);
  auto cpu = makeCpuBackend(2);
  TfParams p = small(TfOrder::Spectrogram);
  const std::size_t oneChannel = 3000 * 65 * sizeof(std::complex<float>);
  p.maxBytes = 2 * oneChannel;  // the 4-channel image is twice this
  JobContext ctx;
  EXPECT_THROW(cpu->timeFrequency(b, p, ctx), InvalidParameterError);
  int64_t columns = 0;
  cpu->timeFrequencyTiles(
      b, p, TfTileValues::Magnitude, [&](const TfTile& t) { columns += t.columns; }, ctx);
  EXPECT_EQ(columns, 4 * 3000);
}

TEST(TfTiles, WhatTheSinkThrowsStopsTheRun) {
  const SignalBlock b = tones(2, 9000);
  auto cpu = makeCpuBackend(2);
  JobContext ctx;
  int calls = 0;
  EXPECT_THROW(cpu->timeFrequencyTiles(
                   b, small(TfOrder::First), TfTileValues::Magnitude,
                   [&](const TfTile&) {
                     if (++calls == 2) throw Cancelled();
                   },
                   ctx),
               Cancelled);
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace modescope

namespace modescope {
namespace {

TEST(TfTiles, RenyiSumsOfTilesEqualTheWholeImagesEntropy) {
  const SignalBlock b = tones(2, 5000);
  auto cpu = makeCpuBackend(2);
  JobContext ctx;
  const TfResult whole = cpu->timeFrequency(b, small(TfOrder::Second), ctx);
  for (std::size_t c = 0; c < 2; ++c) {
    const std::size_t n = static_cast<std::size_t>(whole.columns) * whole.bins;
    TfRenyiSums fromValues, fromMagnitudes;
    fromValues.add(whole.column(c, 0), n / 2);
    fromValues.add(whole.column(c, 0) + n / 2, n - n / 2);
    std::vector<float> m(n);
    for (std::size_t i = 0; i < n; ++i) m[i] = std::abs(whole.column(c, 0)[i]);
    fromMagnitudes.add(m.data(), n);
    const double expected = tfRenyiEntropy(whole, c, 3.0);
    EXPECT_NEAR(fromValues.entropy(), expected, 1e-9 * std::fabs(expected));
    EXPECT_NEAR(fromMagnitudes.entropy(), expected, 1e-6 * std::fabs(expected));
  }
  EXPECT_TRUE(std::isnan(TfRenyiSums().entropy()));  // a flat channel: no distribution
}

std::vector<float> readMagnitudes(const std::string& path) {
  H5::H5File f(path, H5F_ACC_RDONLY);
  H5::DataSet ds = f.openDataSet("magnitude");
  hsize_t dims[3];
  ds.getSpace().getSimpleExtentDims(dims);
  std::vector<float> v(dims[0] * dims[1] * dims[2]);
  ds.read(v.data(), H5::PredType::NATIVE_FLOAT);
  return v;
}

TEST(TfTiles, AStreamedFileHoldsTheHeldFilesImageAndAThrowLeavesNoFile) {
  const SignalBlock b = tones(3, 3000);
  auto cpu = makeCpuBackend(2);
  const TfParams p = small(TfOrder::Third);
  JobContext ctx;
  const auto dir =
      std::filesystem::temp_directory_path() / ("modescope_tf_tiles_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string held = (dir / "held.h5").string(), streamed = (dir / "streamed.h5").string();

  TfFile whole;
  whole.result = cpu->timeFrequency(b, p, ctx);
  for (std::size_t c = 0; c < 3; ++c) {
    ResultFileChannel ch;
    ch.recordingIndex = c;
    ch.name = ch.label = "C" + std::to_string(c);
    ch.type = "EEG";
    ch.unit = "uV";
    whole.channels.push_back(ch);
    whole.renyiEntropy.push_back(tfRenyiEntropy(whole.result, c));
  }
  writeTfFile(held, whole, TfStorage::Magnitude, ctx);

  TfFile shape;
  shape.result = whole.result;
  shape.result.values.clear();
  shape.channels = whole.channels;
  writeTfFileStreamed(
      streamed, shape, TfStorage::Magnitude,
      [&](const TfTileSink& write) {
        cpu->timeFrequencyTiles(b, p, TfTileValues::Magnitude, write, ctx);
        shape.renyiEntropy = whole.renyiEntropy;
      },
      ctx);
  const std::vector<float> a = readMagnitudes(held), s = readMagnitudes(streamed);
  ASSERT_EQ(a.size(), s.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], s[i], 1e-6f * std::max(1.0f, a[i])) << i;

  const std::string broken = (dir / "broken.h5").string();
  TfFile again = shape;
  again.renyiEntropy.clear();
  int tiles = 0;
  EXPECT_THROW(writeTfFileStreamed(
                   broken, again, TfStorage::Magnitude,
                   [&](const TfTileSink& write) {
                     cpu->timeFrequencyTiles(
                         b, p, TfTileValues::Magnitude,
                         [&](const TfTile& t) {
                           if (++tiles == 2) throw Cancelled();
                           write(t);
                         },
                         ctx);
                   },
                   ctx),
               Cancelled);
  EXPECT_FALSE(std::filesystem::exists(broken));
  std::filesystem::remove_all(dir);
}

TEST(TfTiles, AStreamedImageLargerThanTheFreeDiskIsRefusedWithBothSizes) {
  const std::size_t gib = std::size_t{1} << 30;
  EXPECT_NO_THROW(checkTfFileFits(20 * gib, 100 * gib, "/data"));
  try {
    checkTfFileFits(156 * gib, 58 * gib, "/data");
    FAIL() << "a 156 GiB image on 58 GiB free was accepted";
  } catch (const InvalidParameterError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("156"), std::string::npos) << what;
    EXPECT_NE(what.find("58"), std::string::npos) << what;
    EXPECT_NE(what.find("/data"), std::string::npos) << what;
    EXPECT_NE(what.find("--hop"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace modescope
