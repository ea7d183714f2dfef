// CUDA-OpenGL interop of the spectrum views, for real, headless: an EGL context on the GPU's
// device platform (no display), a GL pixel buffer written by SpectrumGlWriter's kernel through
// the CUDA registration, read back with glGetBufferSubData and compared pixel by pixel with the
// host path (renderSpectrumImage). Skips loudly without a CUDA device, without EGL in this build,
// or when EGL offers no device the driver can render on.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/hht/spectrum_image.h"
#include "tests/gpu/gpu_test_support.h"
#if defined(MODESCOPE_HAVE_CUDA) && defined(MODESCOPE_HAVE_EGL)
#include "cuda/spectrum_gl_writer.h"
#include "tests/gpu/headless_gl.h"
#endif

namespace modescope {
namespace {

#if defined(MODESCOPE_HAVE_CUDA) && defined(MODESCOPE_HAVE_EGL)

// A table whose entries are all different, so a pixel tells which entry was picked.
std::vector<uint32_t> distinctTable() {
  std::vector<uint32_t> t(kSpectrumTableSize);
  for (int i = 0; i < kSpectrumTableSize; ++i) {
    t[i] = 0xFF000000u | (static_cast<uint32_t>(i) << 16) | (static_cast<uint32_t>(255 - i) << 8) |
           static_cast<uint32_t>((i * 7) & 0xFF);
  }
  return t;
}

int entryOf(uint32_t pixel) { return static_cast<int>((pixel >> 16) & 0xFF); }

class SpectrumInterop : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!gpu_test::gpuBackend(why)) GTEST_SKIP() << "GPU test skipped: " << why;
    if (!gl_.open(why)) GTEST_SKIP() << "GPU test skipped (headless OpenGL): " << why;
    std::cout << "[ GL       ] " << glGetString(GL_RENDERER) << ", OpenGL "
              << glGetString(GL_VERSION) << "\n";
    writer_ = SpectrumGlWriter::forCurrentContext(why);
    ASSERT_TRUE(writer_) << why;
    std::cout << "[ writer   ] " << writer_->describe() << "\n";
  }
  void TearDown() override { writer_.reset(); }

  unsigned makeBuffer(std::size_t bytes) {
    GLuint id = 0;
    glGenBuffers(1, &id);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, id);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    return id;
  }
  std::vector<uint32_t> readBuffer(unsigned id, std::size_t pixels) {
    std::vector<uint32_t> out(pixels, 0xDEADBEEFu);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, id);
    glGetBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(pixels * 4), out.data());
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    return out;
  }

  gpu_test::HeadlessGl gl_;
  std::unique_ptr<SpectrumGlWriter> writer_;
};

TEST_F(SpectrumInterop, KernelWritesTheHostPixelsIntoTheGlBuffer) {
  std::mt19937 rng(std::random_device{}());
  std::exponential_distribution<float> amp(1.0f);
  const auto table = distinctTable();
  struct Size {
    int rows, cols;
  };
  for (const Size sz : {Size{1, 1}, Size{257, 1000}, Size{64, 4097}}) {
    std::vector<float> grid(static_cast<std::size_t>(sz.rows) * sz.cols);
    for (auto& v : grid) v = amp(rng);
    grid[0] = 0.0f;  // a cell no IMF reached
    if (grid.size() > 2) grid[1] = std::nanf(""), grid[2] = INFINITY;
    writer_->setGrid(grid.data(), sz.rows, sz.cols);
    const unsigned buffer = makeBuffer(grid.size() * 4);
    for (bool logScale : {false, true}) {
      SpectrumColouring c;
      c.logScale = logScale;
      c.low = logScale ? 1e-2 : 0.0;
      c.high = 3.0;
      c.table = table.data();
      writer_->write(buffer, c);
      const std::vector<uint32_t> gpu = readBuffer(buffer, grid.size());
      std::vector<uint32_t> host(grid.size());
      renderSpectrumImage(grid.data(), sz.rows, sz.cols, c, host.data());
      std::size_t differ = 0;
      for (std::size_t i = 0; i < grid.size(); ++i) {
        if (gpu[i] == host[i]) continue;
        ++differ;
        // Linear colouring is +, -, / in IEEE double on both sides: identical. Log goes through
        // the device's and the host's log(), which may differ in the last ulp: a value right at
        // the boundary between two table entries may take the neighbouring entry.
        ASSERT_TRUE(logScale) << "pixel " << i << " of " << sz.rows << "x" << sz.cols;
        ASSERT_LE(std::abs(entryOf(gpu[i]) - entryOf(host[i])), 1) << "pixel " << i;
      }
      EXPECT_LE(differ, grid.size() / 10000 + 1) << (logScale ? "log" : "linear");
    }
    writer_->forgetBuffer(buffer);
    GLuint id = buffer;
    glDeleteBuffers(1, &id);
  }
}

TEST_F(SpectrumInterop, TooSmallBufferIsRefusedAndLeftUsable) {
  const auto table = distinctTable();
  std::vector<float> grid(100 * 100, 1.0f);
  writer_->setGrid(grid.data(), 100, 100);
  const unsigned small = makeBuffer(100 * 99 * 4);
  SpectrumColouring c;
  c.table = table.data();
  EXPECT_THROW(writer_->write(small, c), InvalidParameterError);
  // The failed write unmapped the buffer: GL can use it again.
  const auto back = readBuffer(small, 10);
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  (void)back;
  writer_->forgetBuffer(small);
}

#else

TEST(SpectrumInterop, SkippedInThisBuild) {
  GTEST_SKIP() << "GPU test skipped: this build has no CUDA backend or no EGL/OpenGL libraries "
                  "(MODESCOPE_HAVE_CUDA / MODESCOPE_HAVE_EGL undefined)";
}

#endif

}  // namespace
}  // namespace modescope
