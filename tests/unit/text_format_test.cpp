// Sizes in messages (engine/core/text.h): a need is never understated.
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

}  // namespace
}  // namespace modescope
