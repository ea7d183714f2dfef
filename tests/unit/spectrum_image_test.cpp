// The spectrum colouring (engine/hht/spectrum_image.h) against values worked out by hand: the
// host path of the spectrum views and the reference of the CUDA-OpenGL interop test.
#include "engine/hht/spectrum_image.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace modescope {
namespace {

std::vector<uint32_t> indexTable() {
  std::vector<uint32_t> t(kSpectrumTableSize);
  for (int i = 0; i < kSpectrumTableSize; ++i) t[i] = static_cast<uint32_t>(i);
  return t;
}

TEST(SpectrumImage, LinearPositionsPickTheRoundedEntry) {
  EXPECT_DOUBLE_EQ(spectrumPosition(5.0, false, 0.0, 10.0), 0.5);
  EXPECT_EQ(spectrumTableIndex(0.5), 128);  // round(0.5 x 255 = 127.5) = 128
  EXPECT_EQ(spectrumTableIndex(1.0 / 255.0 * 0.49), 0);
  EXPECT_EQ(spectrumTableIndex(1.0 / 255.0 * 0.51), 1);
  EXPECT_EQ(spectrumTableIndex(1.0), 255);
  EXPECT_EQ(spectrumTableIndex(-0.2), 0);
  EXPECT_DOUBLE_EQ(spectrumPosition(20.0, false, 0.0, 10.0), 1.0);  // clamped
  EXPECT_DOUBLE_EQ(spectrumPosition(-1.0, false, 0.0, 10.0), 0.0);
}

TEST(SpectrumImage, LogPositionsAndValuesBelowTheRange) {
  // Three decades: 1e-3 .. 1; 1e-2 is a third of the way, 0 and negative values are at the bottom.
  EXPECT_NEAR(spectrumPosition(1e-2, true, 1e-3, 1.0), 1.0 / 3.0, 1e-15);
  EXPECT_DOUBLE_EQ(spectrumPosition(0.0, true, 1e-3, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(spectrumPosition(-5.0, true, 1e-3, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(spectrumPosition(1e-3, true, 1e-3, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(spectrumPosition(1.0, true, 0.0, 1.0), 0.0);  // no log range without low > 0
}

TEST(SpectrumImage, NonFiniteValuesTakeTheFirstEntry) {
  EXPECT_DOUBLE_EQ(spectrumPosition(std::nan(""), false, 0.0, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(spectrumPosition(INFINITY, false, 0.0, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(spectrumPosition(0.5, false, 1.0, 1.0), 0.0);  // empty range: t not finite
}

TEST(SpectrumImage, ImageRowsRunFromTheHighestFrequencyDown) {
  // 2 rows x 3 columns, row 0 (lowest frequency) = 0, 0.5, 1; row 1 = 1, 1, 0.
  const std::vector<float> grid = {0.0f, 0.5f, 1.0f, 1.0f, 1.0f, 0.0f};
  const auto table = indexTable();
  SpectrumColouring c;
  c.low = 0.0;
  c.high = 1.0;
  c.table = table.data();
  std::vector<uint32_t> px(6);
  renderSpectrumImage(grid.data(), 2, 3, c, px.data());
  EXPECT_EQ(px, (std::vector<uint32_t>{255, 255, 0, 0, 128, 255}));
}

}  // namespace
}  // namespace modescope
