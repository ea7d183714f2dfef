// Frames per second of the time-frequency view (docs/time-frequency.md, "The time-frequency
// view"): the issue's target, a 10 s page of one channel at 512 Hz with FFT 512, recomputed and
// redrawn as the browser scrolls. Each frame moves the page on by 1 s (the browser's arrow step,
// a tenth of a page) and does what the view does for a new page: computeTfPage (the page plus
// half a window either side, the spectrogram and the synchrosqueezed image side by side, 2
// ridges), then colours both power grids with a log scale 50 dB deep:
//
//  --draw host     on the host into memory (renderSpectrumImage), as the view's QPainter path;
//  --draw host-gl  on the host, then uploaded into an OpenGL pixel buffer and texture of a
//                  headless EGL context (glBufferSubData + glTexSubImage2D), as the view's OpenGL
//                  path without interop;
//  --draw interop  by the CUDA colouring kernel straight into that pixel buffer
//                  (SpectrumGlWriter, CUDA-OpenGL interop), as the view's path when its OpenGL
//                  context runs on the CUDA device.
//
// The GL modes need a build with CUDA and EGL (no Qt: the GPU server builds with the GUI off)
// and a GPU EGL driver; glFinish ends every frame, so the time is the frame's, not the queue's.
// Rows: orders 0-4 with the hop that fits 1000 screen pixels (6 samples; what the view computes
// on a 1000-pixel plot) and with hop 1 (every sample a column). fps = frames / wall time; compute
// and draw are medians per frame.
//
// Usage: tf_view_bench [--backend cpu|cuda] [--draw host|host-gl|interop] [--threads T]
//                      [--min-seconds S] [--pixels P]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "app/core/tf_page.h"
#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/hht/spectrum_image.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif
#if defined(MODESCOPE_HAVE_CUDA) && defined(MODESCOPE_HAVE_EGL)
#include "cuda/spectrum_gl_writer.h"
#include "tests/gpu/headless_gl.h"
#define TF_VIEW_BENCH_GL 1
#endif

using namespace modescope;

namespace {

constexpr double kRate = 512.0;
constexpr double kPageSeconds = 10.0;
constexpr double kRecordingSeconds = 120.0;
constexpr double kDbFloor = 50.0;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// EEG-like: a waxing and waning 10 Hz rhythm, a 4-40 Hz chirp every 20 s, 1/f-ish noise.
std::shared_ptr<const Recording> eegLike() {
  const auto n = static_cast<int64_t>(kRecordingSeconds * kRate);
  std::mt19937 rng(3);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<float> x(static_cast<std::size_t>(n));
  double brown = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double t = i / kRate;
    const double alpha = 20.0 * (1.0 + std::sin(2 * M_PI * 0.1 * t)) * std::sin(2 * M_PI * 10 * t);
    const double u = std::fmod(t, 20.0) / 20.0;
    const double chirp = 10.0 * std::sin(2 * M_PI * (4 * 20.0 * u + 36 * 20.0 * u * u / 2));
    brown = 0.98 * brown + g(rng);
    x[static_cast<std::size_t>(i)] = static_cast<float>(alpha + chirp + 3.0 * brown + g(rng));
  }
  auto rec = std::make_shared<Recording>();
  ChannelInfo c;
  c.label = c.name = "Cz";
  c.unit = "uV";
  c.sampleRate = kRate;
  c.sampleCount = n;
  rec->channels.push_back(c);
  rec->source = std::make_shared<InMemorySource>(std::vector<std::vector<float>>{x});
  return rec;
}

std::vector<uint32_t> greyTable() {
  std::vector<uint32_t> t(kSpectrumTableSize);
  for (int i = 0; i < kSpectrumTableSize; ++i) {
    const auto v = static_cast<uint32_t>(i);
    t[static_cast<std::size_t>(i)] = 0xFF000000u | (v << 16) | (v << 8) | v;
  }
  return t;
}

// The view's log colouring: the grid's peak at the top, kDbFloor below it at the bottom.
SpectrumColouring logColouring(const std::vector<float>& grid, const uint32_t* table) {
  float peak = 0.0f;
  for (float v : grid)
    if (std::isfinite(v)) peak = std::max(peak, v);
  SpectrumColouring c;
  c.logScale = true;
  c.high = peak > 0 ? peak : 1.0;
  c.low = c.high * std::pow(10.0, -kDbFloor / 10.0);
  c.table = table;
  return c;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

enum class Draw { Host, HostGl, Interop };

// One image's drawing target: host pixels, or a GL pixel buffer and texture.
struct Target {
  std::vector<uint32_t> pixels;
#ifdef TF_VIEW_BENCH_GL
  GLuint pbo = 0, texture = 0;
  int rows = 0, cols = 0;
  std::unique_ptr<SpectrumGlWriter> writer;
#endif
};

#ifdef TF_VIEW_BENCH_GL
void ensureGl(Target& t, int rows, int cols) {
  if (t.pbo && t.rows == rows && t.cols == cols) return;
  if (t.writer && t.pbo) t.writer->forgetBuffer(t.pbo);
  if (!t.pbo) glGenBuffers(1, &t.pbo);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, t.pbo);
  glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(rows) * cols * 4, nullptr,
               GL_DYNAMIC_DRAW);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  if (!t.texture) glGenTextures(1, &t.texture);
  glBindTexture(GL_TEXTURE_2D, t.texture);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, cols, rows, 0, GL_BGRA, GL_UNSIGNED_BYTE, nullptr);
  glBindTexture(GL_TEXTURE_2D, 0);
  t.rows = rows;
  t.cols = cols;
}

void textureFromBuffer(const Target& t) {
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, t.pbo);
  glBindTexture(GL_TEXTURE_2D, t.texture);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, t.cols, t.rows, GL_BGRA, GL_UNSIGNED_BYTE, nullptr);
  glBindTexture(GL_TEXTURE_2D, 0);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}
#endif

void drawImage(Draw draw, Target& t, const std::vector<float>& grid, int rows, int cols,
               const uint32_t* table) {
  const SpectrumColouring c = logColouring(grid, table);
  if (draw == Draw::Host) {
    t.pixels.resize(grid.size());
    renderSpectrumImage(grid.data(), rows, cols, c, t.pixels.data());
    return;
  }
#ifdef TF_VIEW_BENCH_GL
  ensureGl(t, rows, cols);
  if (draw == Draw::HostGl) {
    t.pixels.resize(grid.size());
    renderSpectrumImage(grid.data(), rows, cols, c, t.pixels.data());
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, t.pbo);
    glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(grid.size() * 4),
                    t.pixels.data());
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  } else {
    t.writer->setGrid(grid.data(), rows, cols);
    t.writer->write(t.pbo, c);
  }
  textureFromBuffer(t);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  std::string backendName = "cpu", drawName = "host";
  int threads = 0, pixels = 1000;
  double minSeconds = 3.0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--backend" && i + 1 < argc) {
      backendName = argv[++i];
    } else if (a == "--draw" && i + 1 < argc) {
      drawName = argv[++i];
    } else if (a == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (a == "--min-seconds" && i + 1 < argc) {
      minSeconds = std::atof(argv[++i]);
    } else if (a == "--pixels" && i + 1 < argc) {
      pixels = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr,
                   "usage: tf_view_bench [--backend cpu|cuda] [--draw host|host-gl|interop] "
                   "[--threads T] [--min-seconds S] [--pixels P]\n");
      return 2;
    }
  }
  const Draw draw = drawName == "interop"   ? Draw::Interop
                    : drawName == "host-gl" ? Draw::HostGl
                                            : Draw::Host;
  if (drawName != "host" && drawName != "host-gl" && drawName != "interop") {
    std::fprintf(stderr, "tf_view_bench: --draw takes host, host-gl or interop, not %s\n",
                 drawName.c_str());
    return 2;
  }

  std::unique_ptr<ComputeBackend> backend;
  if (backendName == "cuda") {
    std::string reason = "this build has no CUDA backend";
#ifdef MODESCOPE_HAVE_CUDA
    backend = makeCudaBackend(reason);
#endif
    if (!backend) {
      std::fprintf(stderr, "tf_view_bench: no CUDA backend: %s\n", reason.c_str());
      return 1;
    }
  } else {
    backend = makeCpuBackend(threads);
  }

  Target images[2];
#ifdef TF_VIEW_BENCH_GL
  gpu_test::HeadlessGl gl;
  if (draw != Draw::Host) {
    std::string why;
    if (!gl.open(why)) {
      std::fprintf(stderr, "tf_view_bench: no headless OpenGL: %s\n", why.c_str());
      return 1;
    }
    std::printf("OpenGL: %s, %s\n", glGetString(GL_RENDERER), glGetString(GL_VERSION));
    if (draw == Draw::Interop)
      for (Target& t : images) {
        t.writer = SpectrumGlWriter::forCurrentContext(why);
        if (!t.writer) {
          std::fprintf(stderr, "tf_view_bench: no CUDA-OpenGL interop: %s\n", why.c_str());
          return 1;
        }
      }
  }
#else
  if (draw != Draw::Host) {
    std::fprintf(stderr,
                 "tf_view_bench: --draw %s needs a build with CUDA and EGL (MODESCOPE_HAVE_CUDA, "
                 "MODESCOPE_HAVE_EGL)\n",
                 drawName.c_str());
    return 1;
  }
#endif

  const auto rec = eegLike();
  const auto table = greyTable();
  std::printf(
      "Time-frequency view: %g s page of one channel at %g Hz, FFT 512, window 256, "
      "spectrogram + synchrosqueezed side by side, 2 ridges, log colour %g dB; each frame "
      "scrolls 1 s\nbackend: %s; draw: %s; at least %g s per row\n\n",
      kPageSeconds, kRate, kDbFloor, backend->info().describe().c_str(), drawName.c_str(),
      minSeconds);
  std::printf("%-5s %5s %8s %6s %9s %9s %8s\n", "order", "hop", "columns", "frames", "compute",
              "draw", "fps");
  const int fitHop = tfDisplayHop(kRate, kPageSeconds, pixels);
  for (TfOrder order :
       {TfOrder::Spectrogram, TfOrder::First, TfOrder::Second, TfOrder::Third, TfOrder::Fourth}) {
    for (int hop : {fitHop, 1}) {
      TfPageRequest req;
      req.seconds = kPageSeconds;
      req.params.order = order;
      req.params.windowLength = 256;
      req.params.fftLength = 512;
      req.params.hop = hop;
      req.readout.ridges = 2;
      JobContext ctx;
      std::vector<double> compute, drawing;
      int frames = 0, cols = 0;
      double start = 0.0;
      const double t0 = now();
      try {
        while (now() - t0 < minSeconds || frames < 3) {
          const double a = now();
          const TfPage page = computeTfPage(*rec, req, *backend, ctx);
          const double b = now();
          int i = 0;
          for (const std::vector<float>* grid : {&page.spectrogram, &page.squeezed}) {
            if (!grid->empty())
              drawImage(draw, images[i], *grid, page.rows, page.cols, table.data());
            ++i;
          }
#ifdef TF_VIEW_BENCH_GL
          if (draw != Draw::Host) glFinish();
#endif
          drawing.push_back(now() - b);
          compute.push_back(b - a);
          cols = page.cols;
          ++frames;
          start += 1.0;
          if (start + kPageSeconds > kRecordingSeconds) start = 0.0;
          req.startSeconds = start;
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "tf_view_bench: order %s hop %d: %s\n", tfOrderName(order), hop,
                     e.what());
        return 1;
      }
      const double wall = now() - t0;
      std::printf("%-5s %5d %8d %6d %7.1f ms %6.1f ms %8.1f\n", tfOrderName(order), hop, cols,
                  frames, 1e3 * median(compute), 1e3 * median(drawing), frames / wall);
      std::fflush(stdout);
    }
  }
  return 0;
}
