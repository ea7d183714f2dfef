// Sizes in messages (engine/core/text.h): a need is never understated; sizes for people are
// in the unit they reach.
#include <gtest/gtest.h>

#include "engine/core/text.h"

namespace modescope {
namespace {

TEST(FormatMebibytes, RoundsUpToWholeMebibytes) {
  EXPECT_EQ(formatMebibytes(0), "0 MiB");
  EXPECT_EQ(formatMebibytes(1), "1 MiB");
  EXPECT_EQ(formatMebibytes(std::size_t{1} << 20), "1 MiB");
  EXPECT_EQ(formatMebibytes((std::size_t{1} << 20) + 1), "2 MiB");
  EXPECT_EQ(formatMebibytes(std::size_t{614400000}), "586 MiB");  // 256 x 600,000 floats
}

TEST(FormatByteSize, TakesTheLargestUnitReachedWithOneDecimal) {
  EXPECT_EQ(formatByteSize(100), "100 bytes");
  EXPECT_EQ(formatByteSize(12 * 1024.0), "12.0 KiB");
  EXPECT_EQ(formatByteSize(200e6), "190.7 MiB");  // not "0.2 GiB"
  EXPECT_EQ(formatByteSize(1.5 * 1024 * 1024 * 1024), "1.5 GiB");
}

}  // namespace
}  // namespace modescope
