// FNV-1a 64: a change detector over bytes (not a security hash), for the study manifest's
// pipeline hash and emd_bench's check that two builds give the same bits.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace modescope {

inline constexpr std::uint64_t kFnv1aOffsetBasis = 14695981039346656037ull;

// The hash of `bytes` continued from `h` (the hash of what came before; the offset basis to
// start), so a sequence of buffers hashes as their concatenation.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = kFnv1aOffsetBasis);
// 16 hex digits.
std::string hex16(std::uint64_t h);

}  // namespace modescope
