// FNV-1a 64 (engine/core/fnv1a.h): the published test vectors, and buffers hashed in turn hash
// as their concatenation.
#include "engine/core/fnv1a.h"

#include <gtest/gtest.h>

namespace modescope {
namespace {

TEST(Fnv1a, MatchesThePublishedVectors) {
  EXPECT_EQ(hex16(fnv1a64("")), "cbf29ce484222325");
  EXPECT_EQ(hex16(fnv1a64("a")), "af63dc4c8601ec8c");
  EXPECT_EQ(hex16(fnv1a64("foobar")), "85944171f73967e8");
}

TEST(Fnv1a, ContinuesFromAPreviousHash) {
  EXPECT_EQ(fnv1a64("bar", fnv1a64("foo")), fnv1a64("foobar"));
}

}  // namespace
}  // namespace modescope
