// The CPU backend: FFT convolution against direct convolution, re-referencing against the formula,
// MNE-Python's filter_data as an independent reference, threading, cancel, progress, errors.
#include "engine/compute/cpu_backend.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stop_token>
#include <thread>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/dsp/preprocess.h"

namespace modescope {
namespace {

// A fresh seed per run (printed on failure) so the tests see new inputs over time.
unsigned freshSeed() {
  static const unsigned seed = std::random_device{}();
  return seed;
}

SignalBlock randomBlock(std::size_t rows, int64_t samples, std::mt19937& rng, double rate = 250.0) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  SignalBlock b;
  b.sampleRate = rate;
  b.samples = samples;
  for (std::size_t r = 0; r < rows; ++r) b.channels.push_back(r);
  b.data.resize(rows * static_cast<std::size_t>(samples));
  // A random offset per channel too: the odd reflection must handle non-zero edge values.
  for (std::size_t r = 0; r < rows; ++r) {
    const float offset = 10.0f * dist(rng);
    for (int64_t t = 0; t < samples; ++t) b.channel(r)[t] = offset + dist(rng);
  }
  return b;
}

// The specification written out the way MNE-Python states it: pad n_edge = min(taps, n) - 1
// samples at each end with 2 x[0] - x[k] (k = n_edge..1) and 2 x[n-1] - x[n-1-k], convolve fully
// in double, drop (taps - 1) / 2 + n_edge samples of delay and padding.
std::vector<double> directZeroPhase(const float* x, std::size_t n, const std::vector<double>& h) {
  const std::size_t taps = h.size();
  const std::size_t edge = std::min(taps, n) - 1;
  std::vector<double> p;
  for (std::size_t k = edge; k >= 1; --k) p.push_back(2.0 * x[0] - x[k]);
  for (std::size_t i = 0; i < n; ++i) p.push_back(x[i]);
  for (std::size_t k = 1; k <= edge; ++k) p.push_back(2.0 * x[n - 1] - x[n - 1 - k]);
  const std::size_t shift = (taps - 1) / 2 + edge;
  std::vector<double> y(n, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t full = j + shift;  // index into the full convolution
    double s = 0.0;
    for (std::size_t k = 0; k < taps; ++k) {
      if (full >= k && full - k < p.size()) s += h[k] * p[full - k];
    }
    y[j] = s;
  }
  return y;
}

TEST(CpuBackend, FftConvolutionEqualsDirectConvolution) {
  SCOPED_TRACE("seed " + std::to_string(freshSeed()));
  std::mt19937 rng(freshSeed());
  auto backend = makeCpuBackend(3);
  std::normal_distribution<double> tap(0.0, 1.0);
  // Odd and even signal lengths around the tap counts, shorter than the half-length (reflection
  // runs out, zeros beyond) and long enough for several overlap-save segments.
  for (std::size_t taps : {1u, 3u, 83u, 529u}) {
    std::vector<double> h(taps);
    for (double& v : h) v = tap(rng);  // arbitrary (not symmetric) taps: the identity is general
    for (int64_t n : {1, 2, 7, 8, 40, 41, 264, 265, 528, 529, 530, 1000, 4097, 20001}) {
      SCOPED_TRACE("taps " + std::to_string(taps) + ", samples " + std::to_string(n));
      SignalBlock b = randomBlock(3, n, rng);
      const SignalBlock in = b;
      FirKernel k;
      k.taps = h;
      k.sampleRate = 250.0;
      JobContext ctx;
      backend->applyFir(b, k, ctx);
      double scaleH = 0.0;
      for (double v : h) scaleH += std::abs(v);
      for (std::size_t r = 0; r < 3; ++r) {
        const auto ref = directZeroPhase(in.channel(r), static_cast<std::size_t>(n), h);
        double maxIn = 0.0;
        for (int64_t t = 0; t < n; ++t) maxIn = std::max(maxIn, std::abs(double(in.channel(r)[t])));
        for (int64_t t = 0; t < n; ++t) {
          // The result is rounded to float32 (half an ulp: 6e-8 relative); double FFT round-off
          // is ~1e-15 of sum|h| * max|x| (the padding reaches 3 max|x|).
          const double tol = 6e-8 * std::abs(ref[t]) + 1e-12 * scaleH * 3.0 * maxIn;
          ASSERT_NEAR(b.channel(r)[t], ref[t], tol) << "row " << r << " sample " << t;
        }
      }
    }
  }
}

TEST(CpuBackend, ThreadCountDoesNotChangeResults) {
  std::mt19937 rng(freshSeed());
  const SignalBlock in = randomBlock(7, 3001, rng);
  const auto k = designFir(parseFilterSpec("bandpass:1-40"), 250.0);
  SignalBlock one = in, four = in;
  JobContext ctx;
  makeCpuBackend(1)->applyFir(one, k, ctx);
  makeCpuBackend(4)->applyFir(four, k, ctx);
  EXPECT_EQ(one.data, four.data);  // each channel is computed the same way on any thread
  EXPECT_NE(one.data, in.data);
}

TEST(CpuBackend, ReferenceEqualsFormulaInDouble) {
  SCOPED_TRACE("seed " + std::to_string(freshSeed()));
  std::mt19937 rng(freshSeed());
  for (int64_t n : {1, 5, 32768, 32769, 100001}) {
    SignalBlock b = randomBlock(6, n, rng);
    const SignalBlock in = b;
    ReferencePlan plan{{0, 2, 5}, {0.25, -1.5, 0.125}, {0, 1, 2, 3}};  // sources overlap targets
    JobContext ctx;
    makeCpuBackend(2)->applyReference(b, plan, ctx);
    for (int64_t t = 0; t < n; ++t) {
      double r = 0.0;
      for (std::size_t k = 0; k < plan.sources.size(); ++k) {
        r += plan.weights[k] * in.channel(plan.sources[k])[t];
      }
      for (std::size_t row = 0; row < 6; ++row) {
        const bool target = row <= 3;
        const double expected = target ? in.channel(row)[t] - r : in.channel(row)[t];
        // Double accumulation, one rounding to float32 at the end.
        ASSERT_NEAR(b.channel(row)[t], expected, 6e-8 * std::abs(expected) + 1e-30)
            << "row " << row << " sample " << t;
      }
    }
  }
}

TEST(CpuBackend, RejectsBadKernelsPlansAndBlocks) {
  std::mt19937 rng(1);
  SignalBlock b = randomBlock(2, 100, rng);
  auto backend = makeCpuBackend(1);
  JobContext ctx;
  FirKernel even;
  even.taps = {0.5, 0.5};
  EXPECT_THROW(backend->applyFir(b, even, ctx), InvalidParameterError);
  FirKernel empty;
  EXPECT_THROW(backend->applyFir(b, empty, ctx), InvalidParameterError);
  FirKernel nan;
  nan.taps = {NAN};
  EXPECT_THROW(backend->applyFir(b, nan, ctx), InvalidParameterError);
  EXPECT_THROW(backend->applyReference(b, ReferencePlan{{2}, {1.0}, {0}}, ctx),
               InvalidParameterError);
  EXPECT_THROW(backend->applyReference(b, ReferencePlan{{0}, {}, {1}}, ctx), InvalidParameterError);
  SignalBlock broken = b;
  broken.data.pop_back();
  FirKernel id;
  id.taps = {1.0};
  EXPECT_THROW(backend->applyFir(broken, id, ctx), InvalidParameterError);
}

TEST(CpuBackend, CancelThrowsCancelled) {
  std::mt19937 rng(2);
  SignalBlock b = randomBlock(16, 20000, rng);
  const auto k = designFir(parseFilterSpec("highpass:0.5"), 250.0);
  auto backend = makeCpuBackend(2);
  std::stop_source before;
  before.request_stop();
  JobContext stopped(before.get_token(), nullptr);
  EXPECT_THROW(backend->applyFir(b, k, stopped), Cancelled);
  EXPECT_THROW(backend->applyReference(b, ReferencePlan{{0}, {1.0}, {1}}, stopped), Cancelled);

  // A stop requested from the progress sink, which the backend calls as it starts (the app's
  // cancel button acts the same way from the GUI thread).
  std::stop_source during;
  JobContext ctx(during.get_token(), [&](double, std::string_view) { during.request_stop(); });
  EXPECT_THROW(backend->applyFir(b, k, ctx), Cancelled);
}

TEST(CpuBackend, ReportsMonotoneProgressToOne) {
  std::mt19937 rng(3);
  SignalBlock b = randomBlock(8, 50000, rng);
  std::vector<double> seen;
  JobContext ctx(std::stop_token{}, [&](double f, std::string_view) { seen.push_back(f); });
  makeCpuBackend(2)->applyFir(b, designFir(parseFilterSpec("bandpass:1-40"), 250.0), ctx);
  ASSERT_FALSE(seen.empty());
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]);
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
}

TEST(CpuBackend, InfoNamesTheCpu) {
  const auto i = makeCpuBackend(3)->info();
  EXPECT_EQ(i.kind, BackendKind::Cpu);
  EXPECT_EQ(i.threads, 3);
  EXPECT_FALSE(i.deviceName.empty());
  EXPECT_EQ(i.describe(), "CPU, 3 threads");
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(makeCpuBackend(0)->info().threads, static_cast<int>(hw));
}

TEST(CpuBackend, FftSizeCoversTheTapsAndStaysBounded) {
  for (std::size_t taps : {1u, 3u, 529u, 6601u}) {
    for (int64_t n : {1, 100, 460800, 3600000}) {
      const std::size_t m = overlapSaveFftSize(taps, n);
      EXPECT_GE(m, taps);
      EXPECT_EQ(m & (m - 1), 0u) << "power of two";
      EXPECT_LE(m, std::size_t{1} << 20);
    }
  }
}

// ---- MNE-Python's filter_data as an independent reference --------------------------------------

TEST(CpuBackend, MatchesMnePythonFilterData) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("modescope_cpu_backend_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::mt19937 rng(freshSeed());
  struct Case {
    std::string filter, mneArgs;
    double rate;
    int64_t samples;
  };
  // 200 samples is shorter than the 825-tap band-pass: MNE and we both pad min(taps, n) - 1.
  const std::vector<Case> cases = {
      {"bandpass:1-40", "l_freq=1., h_freq=40.", 250.0, 5000},
      {"bandpass:1-40", "l_freq=1., h_freq=40.", 250.0, 200},
      {"highpass:0.5", "l_freq=0.5, h_freq=None", 100.0, 3001},
      {"lowpass:30", "l_freq=None, h_freq=30.", 512.0, 2048},
  };
  // One Python run for all cases (importing MNE takes seconds).
  std::vector<SignalBlock> blocks;
  std::ostringstream py;
  py << "import sys\ntry:\n    import mne, numpy as np\nexcept ImportError:\n    sys.exit(3)\n";
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const auto& tc = cases[c];
    blocks.push_back(randomBlock(2, tc.samples, rng, tc.rate));
    const auto in = (dir / ("in" + std::to_string(c) + ".f32")).string();
    const auto out = (dir / ("out" + std::to_string(c) + ".f64")).string();
    std::ofstream f(in, std::ios::binary);
    f.write(reinterpret_cast<const char*>(blocks.back().data.data()),
            static_cast<std::streamsize>(blocks.back().data.size() * sizeof(float)));
    py << "x = np.fromfile('" << in << "', dtype='<f4').astype(np.float64).reshape(2, "
       << tc.samples << ")\n"
       << "y = mne.filter.filter_data(x, " << tc.rate << ", " << tc.mneArgs
       << ", method='fir', phase='zero', fir_window='hamming', fir_design='firwin',"
       << " pad='reflect_limited', verbose='ERROR')\n"
       << "y.astype('<f8').tofile('" << out << "')\n";
  }
  const auto script = (dir / "run.py").string();
  {
    std::ofstream f(script);
    f << py.str();
  }
  const int status = std::system(("/usr/bin/python3 " + script + " >/dev/null 2>&1").c_str());
  if (status != 0) {
    std::filesystem::remove_all(dir);
    GTEST_SKIP() << "/usr/bin/python3 with MNE is not available (status " << status << ")";
  }
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const auto& tc = cases[c];
    SCOPED_TRACE(tc.filter + " at " + std::to_string(tc.rate) +
                 " Hz, n=" + std::to_string(tc.samples));
    SignalBlock& b = blocks[c];
    std::vector<double> mne(b.data.size());
    {
      std::ifstream f((dir / ("out" + std::to_string(c) + ".f64")).string(), std::ios::binary);
      f.read(reinterpret_cast<char*>(mne.data()),
             static_cast<std::streamsize>(mne.size() * sizeof(double)));
      ASSERT_TRUE(f) << "MNE output missing";
    }
    JobContext ctx;
    makeCpuBackend(2)->applyFir(b, designFir(parseFilterSpec(tc.filter), tc.rate), ctx);
    double err = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < mne.size(); ++i) {
      err += (b.data[i] - mne[i]) * (b.data[i] - mne[i]);
      norm += mne[i] * mne[i];
    }
    // Same filter and padding; we round to float32 (relative 6e-8 per sample), MNE keeps double.
    EXPECT_LT(std::sqrt(err / norm), 1e-7);
  }
  std::filesystem::remove_all(dir);
}

// --threads reaches the CPU whichever way it was chosen: asked for, or Auto falling back because
// there is no GPU (until this stop the fallback took all cores whatever the user had asked).
TEST(CpuBackend, SelectionKeepsTheThreadCountAlsoWhenAutoFallsBack) {
  std::string note;
  const auto fallback = selectBackend(BackendChoice::Auto, nullptr, &note, 3);
  EXPECT_EQ(fallback->info().kind, BackendKind::Cpu);
  EXPECT_EQ(fallback->info().threads, 3);
  EXPECT_NE(note.find("computing on the CPU"), std::string::npos) << note;
  EXPECT_EQ(selectBackend(BackendChoice::Cpu, nullptr, nullptr, 5)->info().threads, 5);
  EXPECT_THROW(selectBackend(BackendChoice::Cuda, nullptr, nullptr, 5), DeviceError);
}

}  // namespace
}  // namespace modescope
