#include "cuda/host_thread_pool.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace modescope::cuda {
namespace {

// memcpy with non-temporal (streaming) stores for the aligned middle: the destination lines are
// written without being read first (a plain copy reads them for ownership: 3 bytes of memory
// traffic per byte instead of 2) and without evicting the cache; neither the DMA engine reading
// a staging buffer nor the caller reading its block soon after wants them cached. The closing
// fence makes the weakly ordered streaming stores visible before the caller hands the buffer to
// the DMA engine or returns.
void streamingCopy(unsigned char* d, const unsigned char* s, std::size_t n) {
#if defined(__SSE2__)
  constexpr std::size_t kWorthIt = std::size_t{64} << 10;
  if (n < kWorthIt) {
    std::memcpy(d, s, n);
    return;
  }
  const std::size_t head = (16 - (reinterpret_cast<std::uintptr_t>(d) & 15)) & 15;
  std::memcpy(d, s, head);
  d += head;
  s += head;
  n -= head;
  const std::size_t blocks = n / 64;
  for (std::size_t i = 0; i < blocks; ++i, d += 64, s += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
  }
  std::memcpy(d, s, n - blocks * 64);
  _mm_sfence();
#else
  std::memcpy(d, s, n);
#endif
}

}  // namespace

HostThreadPool::HostThreadPool(int threads) : threads_(std::max(1, threads)), team_(threads_) {}

HostThreadPool::~HostThreadPool() = default;

void HostThreadPool::run(int parts, const std::function<void(int)>& fn) {
  if (parts <= 0) return;
  team_->run(static_cast<std::size_t>(parts),
             [&](int, std::size_t part) { fn(static_cast<int>(part)); });
}

void HostThreadPool::copy(void* dst, const void* src, std::size_t bytes) {
  constexpr std::size_t kMinPiece = std::size_t{1} << 20;
  constexpr std::size_t kAlign = 4096;  // pieces start on page boundaries of the source offset
  if (bytes == 0) return;
  const std::size_t parts =
      std::clamp<std::size_t>(bytes / kMinPiece, 1, static_cast<std::size_t>(threads_));
  std::size_t piece = (bytes + parts - 1) / parts;
  piece = (piece + kAlign - 1) / kAlign * kAlign;
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  run(static_cast<int>(parts), [&](int p) {
    const std::size_t begin = static_cast<std::size_t>(p) * piece;
    if (begin >= bytes) return;
    streamingCopy(d + begin, s + begin, std::min(piece, bytes - begin));
  });
}

int HostThreadPool::defaultThreads() { return std::clamp(hardwareThreads() / 2, 1, 8); }

}  // namespace modescope::cuda
