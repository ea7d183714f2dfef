// FIR design: lengths, frequency responses evaluated from the taps, parameter checking, parsing,
// and MNE-Python's own taps as an independent reference.
#include "engine/dsp/fir_design.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/dsp/preprocess.h"

namespace modescope {
namespace {

// |H(f)| by direct evaluation of the DTFT of the taps (independent of the design code).
double gainAt(const std::vector<double>& h, double freqHz, double fs) {
  std::complex<double> s = 0.0;
  const double w = 2.0 * std::numbers::pi * freqHz / fs;
  for (std::size_t k = 0; k < h.size(); ++k)
    s += h[k] * std::polar(1.0, -w * static_cast<double>(k));
  return std::abs(s);
}

// Largest |gain - target| over [f0, f1], sampled every `step` Hz (plus f1 itself).
double maxDeviation(const std::vector<double>& h, double fs, double f0, double f1, double target,
                    double step = 0.05) {
  double worst = 0.0;
  for (double f = f0; f < f1 + step; f += step) {
    worst = std::max(worst, std::abs(gainAt(h, std::min(f, f1), fs) - target));
  }
  return worst;
}

// The Hamming window's side lobes are -53 dB (MNE: "53 dB stopband attenuation", 0.0194 dB
// pass-band ripple): a deviation of 10^(-53/20) = 0.0022 from the ideal gain once a band is about
// 3.3 / N away from the cutoff. That width is a rule of thumb: exactly at the band edges the
// deviation reaches 0.0044 (MNE's own, identical, taps show the same). Bands are therefore checked
// edge to edge against 0.005 (-46 dB), still far below the 0.01 (-40 dB) the filters promise.
constexpr double kBandDeviation = 0.005;
constexpr double kOnePieceRipple = kBandDeviation;
constexpr double kTwoPieceRipple = kBandDeviation;
// At a transition's centre the windowed sinc passes through half the gain (-6 dB), as firwin does;
// the other piece's ripple is the only deviation.
constexpr double kHalfGainTolerance = 0.005;

void expectSymmetricOdd(const FirKernel& k) {
  ASSERT_EQ(k.taps.size() % 2, 1u);
  for (std::size_t i = 0; i < k.taps.size() / 2; ++i) {
    EXPECT_EQ(k.taps[i], k.taps[k.taps.size() - 1 - i]) << "tap " << i;
  }
}

TEST(FirDesign, AutomaticLengthsMatchMnesPublishedValues) {
  // Lengths MNE 1.3 prints for filter_length='auto' (Hamming, firwin):
  // 1-40 Hz at 160 Hz: 529; 0.5 Hz high-pass at 1000 Hz: 6601; 40 Hz low-pass at 250 Hz: 83;
  // 1-40 Hz at 512 Hz: 1691.
  EXPECT_EQ(designFir(parseFilterSpec("bandpass:1-40"), 160).taps.size(), 529u);
  EXPECT_EQ(designFir(parseFilterSpec("highpass:0.5"), 1000).taps.size(), 6601u);
  EXPECT_EQ(designFir(parseFilterSpec("lowpass:40"), 250).taps.size(), 83u);
  EXPECT_EQ(designFir(parseFilterSpec("bandpass:1-40"), 512).taps.size(), 1691u);
  // Notch: transition 1 Hz -> 3.3 s of taps.
  EXPECT_EQ(designFir(parseFilterSpec("notch:50"), 1000).taps.size(), 3301u);
}

TEST(FirDesign, AutomaticTransitionsFollowMnesRules) {
  EXPECT_DOUBLE_EQ(autoLowTransitionHz(1.0), 1.0);   // min(max(0.25, 2), 1)
  EXPECT_DOUBLE_EQ(autoLowTransitionHz(4.0), 2.0);   // min(max(1, 2), 4)
  EXPECT_DOUBLE_EQ(autoLowTransitionHz(20.0), 5.0);  // 0.25 * 20
  EXPECT_DOUBLE_EQ(autoHighTransitionHz(40.0, 250.0), 10.0);
  EXPECT_DOUBLE_EQ(autoHighTransitionHz(4.0, 250.0), 2.0);
  EXPECT_DOUBLE_EQ(autoHighTransitionHz(120.0, 250.0), 5.0);  // capped by Nyquist - edge
}

TEST(FirDesign, HammingWindowClosedForm) {
  const auto w = hammingWindow(5);
  ASSERT_EQ(w.size(), 5u);
  EXPECT_NEAR(w[0], 0.08, 1e-15);
  EXPECT_NEAR(w[1], 0.54, 1e-15);  // 0.54 - 0.46 cos(pi / 2)
  EXPECT_NEAR(w[2], 1.0, 1e-15);
  EXPECT_NEAR(w[4], 0.08, 1e-15);
}

TEST(FirDesign, BandPassResponse) {
  const double fs = 250.0;
  const auto k = designFir(parseFilterSpec("bandpass:1-40"), fs);
  expectSymmetricOdd(k);
  // Pass band [1, 40] Hz; -6 dB at 1 - 1/2 = 0.5 Hz and 40 + 10/2 = 45 Hz; stop band from 50 Hz
  // and at DC (the low transition spans 0-1 Hz).
  EXPECT_LE(maxDeviation(k.taps, fs, 1.0, 40.0, 1.0), kTwoPieceRipple);
  EXPECT_NEAR(gainAt(k.taps, 0.5, fs), 0.5, kHalfGainTolerance);
  EXPECT_NEAR(gainAt(k.taps, 45.0, fs), 0.5, kHalfGainTolerance);
  EXPECT_LE(maxDeviation(k.taps, fs, 50.0, 125.0, 0.0), kTwoPieceRipple);
  EXPECT_LE(gainAt(k.taps, 0.0, fs), kTwoPieceRipple);
  // ceil(3.3 / 1 Hz * 250 Hz) = 825 taps.
  EXPECT_EQ(k.description, "band-pass 1-40 Hz, 825 taps, Hamming");
}

TEST(FirDesign, HighPassResponse) {
  const double fs = 1000.0;
  const auto k = designFir(parseFilterSpec("highpass:0.5"), fs);
  expectSymmetricOdd(k);
  EXPECT_LE(maxDeviation(k.taps, fs, 0.5, 500.0, 1.0, 0.25), kOnePieceRipple);
  EXPECT_NEAR(gainAt(k.taps, 0.25, fs), 0.5, kHalfGainTolerance);
  EXPECT_LE(gainAt(k.taps, 0.0, fs), kOnePieceRipple);
}

TEST(FirDesign, LowPassResponse) {
  const double fs = 250.0;
  const auto k = designFir(parseFilterSpec("lowpass:40"), fs);
  expectSymmetricOdd(k);
  EXPECT_LE(maxDeviation(k.taps, fs, 0.0, 40.0, 1.0), kOnePieceRipple);
  EXPECT_NEAR(gainAt(k.taps, 45.0, fs), 0.5, kHalfGainTolerance);
  EXPECT_LE(maxDeviation(k.taps, fs, 50.0, 125.0, 0.0), kOnePieceRipple);
  // Unit DC gain exactly (the pieces are normalised at DC).
  double sum = 0.0;
  for (double t : k.taps) sum += t;
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

TEST(FirDesign, NotchRemovesMainsAndHarmonicsBelowNyquist) {
  const double fs = 1000.0;
  const auto k = designFir(parseFilterSpec("notch:50"), fs);
  expectSymmetricOdd(k);
  // 18 pieces (9 notches): each piece's ripple decays away from its cutoff, so only the notch's
  // own two pieces matter at any frequency.
  for (int m = 1; m <= 9; ++m) {
    const double f = 50.0 * m;
    EXPECT_LE(maxDeviation(k.taps, fs, f - 0.5, f + 0.5, 0.0, 0.02), kTwoPieceRipple) << f << " Hz";
    EXPECT_NEAR(gainAt(k.taps, f - 1.0, fs), 0.5, kHalfGainTolerance) << f << " Hz";
    EXPECT_NEAR(gainAt(k.taps, f + 1.0, fs), 0.5, kHalfGainTolerance) << f << " Hz";
    // Pass band between notches.
    EXPECT_LE(maxDeviation(k.taps, fs, f - 48.5, f - 1.5, 1.0, 0.1), kTwoPieceRipple) << f << " Hz";
  }
  EXPECT_LE(maxDeviation(k.taps, fs, 451.5, 500.0, 1.0, 0.1), kTwoPieceRipple);
  EXPECT_EQ(k.description, "notch 50 Hz and harmonics, 3301 taps, Hamming");

  // 60 Hz at 256 Hz sampling: 60 and 120 Hz (120 + 1.5 <= 128), nothing at 180 Hz.
  const auto k60 = designFir(parseFilterSpec("notch:60"), 256.0);
  EXPECT_LE(gainAt(k60.taps, 60.0, 256.0), kTwoPieceRipple);
  EXPECT_LE(gainAt(k60.taps, 120.0, 256.0), kTwoPieceRipple);
  EXPECT_NEAR(gainAt(k60.taps, 127.0, 256.0), 1.0, kTwoPieceRipple);

  FilterSpec single = parseFilterSpec("notch:50");
  single.notchHarmonics = false;
  const auto k1 = designFir(single, fs);
  EXPECT_LE(gainAt(k1.taps, 50.0, fs), kOnePieceRipple * 2);
  EXPECT_NEAR(gainAt(k1.taps, 100.0, fs), 1.0, kTwoPieceRipple);
}

TEST(FirDesign, ExplicitTransitionWidth) {
  FilterSpec s = parseFilterSpec("lowpass:40");
  s.transitionHz = 2.0;
  const auto k = designFir(s, 250.0);
  EXPECT_EQ(k.taps.size(), 413u);  // ceil(3.3 / 2 * 250) = 413
  EXPECT_NEAR(gainAt(k.taps, 41.0, 250.0), 0.5, kHalfGainTolerance);
  EXPECT_LE(gainAt(k.taps, 42.0, 250.0), kOnePieceRipple);
}

template <class F>
void expectInvalid(F f, const std::string& mustMention) {
  try {
    f();
    ADD_FAILURE() << "no InvalidParameterError; expected one mentioning " << mustMention;
  } catch (const InvalidParameterError& e) {
    EXPECT_NE(std::string(e.what()).find(mustMention), std::string::npos) << e.what();
  }
}

TEST(FirDesign, InvalidParametersThrowWithFoundAndExpected) {
  auto spec = [](FilterKind kind, double lo, double hi) {
    FilterSpec s;
    s.kind = kind;
    s.lowHz = lo;
    s.highHz = hi;
    return s;
  };
  expectInvalid([&] { designFir(spec(FilterKind::BandPass, 1, 80), 160); }, "80 Hz");  // = Nyquist
  expectInvalid([&] { designFir(spec(FilterKind::BandPass, 1, 100), 160); }, "below the Nyquist");
  expectInvalid([&] { designFir(spec(FilterKind::BandPass, 0, 40), 160); }, "band-pass low edge");
  expectInvalid([&] { designFir(spec(FilterKind::BandPass, -1, 40), 160); }, "-1 Hz");
  expectInvalid([&] { designFir(spec(FilterKind::BandPass, 40, 1), 160); },
                "low edge below high edge");
  expectInvalid([&] { designFir(spec(FilterKind::BandPass, 10, 10), 160); }, "band-pass edges");
  expectInvalid([&] { designFir(spec(FilterKind::HighPass, NAN, 0), 160); }, "high-pass edge");
  expectInvalid([&] { designFir(spec(FilterKind::LowPass, 0, 90), 160); }, "low-pass edge");
  expectInvalid([&] { designFir(spec(FilterKind::LowPass, 0, 40), 0); }, "sample rate");
  FilterSpec notch;
  notch.kind = FilterKind::Notch;
  notch.notchHz = 50;
  expectInvalid([&] { designFir(notch, 100); }, "notch frequency");  // 50 Hz = Nyquist
  expectInvalid([&] { designFir(notch, 102); }, "Nyquist");          // 51.5 > 51
  EXPECT_NO_THROW(designFir(notch, 103));                            // 51.5 <= 51.5
  FilterSpec wide = spec(FilterKind::HighPass, 1, 0);
  wide.transitionHz = 2;  // stop band would start below 0 Hz
  expectInvalid([&] { designFir(wide, 160); }, "transition width");
}

TEST(FilterSpecText, ParsesAndDescribes) {
  auto bp = parseFilterSpec("bandpass:1-40");
  EXPECT_EQ(bp.kind, FilterKind::BandPass);
  EXPECT_DOUBLE_EQ(bp.lowHz, 1.0);
  EXPECT_DOUBLE_EQ(bp.highHz, 40.0);
  EXPECT_EQ(describe(bp), "band-pass 1-40 Hz");
  auto hp = parseFilterSpec(" HighPass:0.5Hz ");
  EXPECT_EQ(hp.kind, FilterKind::HighPass);
  EXPECT_DOUBLE_EQ(hp.lowHz, 0.5);
  EXPECT_EQ(describe(hp), "high-pass 0.5 Hz");
  auto lp = parseFilterSpec("lowpass:40");
  EXPECT_EQ(lp.kind, FilterKind::LowPass);
  EXPECT_DOUBLE_EQ(lp.highHz, 40.0);
  auto n60 = parseFilterSpec("notch:60");
  EXPECT_EQ(n60.kind, FilterKind::Notch);
  EXPECT_DOUBLE_EQ(n60.notchHz, 60.0);
  EXPECT_EQ(describe(n60), "notch 60 Hz and harmonics");

  for (const char* bad : {"bandpass", "bandpass:40", "bandpass:40-1", "bandpass:a-b", "lowpass:",
                          "lowpass:-3", "lowpass:inf", "highpass:1.5.2", "smooth:3", "notch:0"}) {
    EXPECT_THROW(parseFilterSpec(bad), InvalidParameterError) << bad;
  }
}

TEST(ReferenceSpecText, ParsesAndDescribes) {
  EXPECT_EQ(parseReferenceSpec("none").kind, ReferenceKind::AsRecorded);
  EXPECT_EQ(parseReferenceSpec("Average").kind, ReferenceKind::Average);
  EXPECT_EQ(parseReferenceSpec("mastoids").kind, ReferenceKind::LinkedMastoids);
  const auto c = parseReferenceSpec("channel:Cz");
  EXPECT_EQ(c.kind, ReferenceKind::Channel);
  EXPECT_EQ(c.channel, "Cz");
  EXPECT_EQ(describe(c), "reference to Cz");
  EXPECT_EQ(describe(parseReferenceSpec("average")), "average reference");
  for (const char* bad : {"", "avg2", "channel:", "channel: ", "mastoid"}) {
    EXPECT_THROW(parseReferenceSpec(bad), InvalidParameterError) << "'" << bad << "'";
  }
}

// ---- MNE-Python as an independent reference ----------------------------------------------------

// Runs a Python snippet with Debian's python3 (which has MNE); returns false when it is missing.
bool runPython(const std::string& script, std::string& output) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto path = dir / ("modescope_fir_" + std::to_string(::getpid()) + ".py");
  {
    std::ofstream f(path);
    f << script;
  }
  const std::string cmd = "/usr/bin/python3 " + path.string() + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return false;
  char buf[4096];
  while (fgets(buf, sizeof buf, p)) output += buf;
  const int status = pclose(p);
  std::filesystem::remove(path);
  return status == 0;
}

TEST(FirDesign, TapsEqualMnePythonsCreateFilter) {
  // create_filter with MNE's defaults (firwin, Hamming, zero phase, automatic widths); our notch
  // is MNE's band-stop with pass edges f -/+ 1.5 Hz and 1 Hz transitions.
  const std::string script = R"(
import sys
try:
    import mne, numpy as np
except ImportError:
    print("NO_MNE"); sys.exit(0)
mne.set_log_level("ERROR")
def show(tag, h):
    print(tag, len(h), " ".join(repr(float(v)) for v in h))
show("bp", mne.filter.create_filter(None, 250., 1., 40., fir_design="firwin"))
show("hp", mne.filter.create_filter(None, 1000., 0.5, None, fir_design="firwin"))
show("lp", mne.filter.create_filter(None, 512., None, 30., fir_design="firwin"))
f = np.arange(50., 125., 50.)
show("notch", mne.filter.create_filter(None, 256., f + 1.5, f - 1.5, l_trans_bandwidth=1.,
                                       h_trans_bandwidth=1., fir_design="firwin"))
)";
  std::string out;
  if (!runPython(script, out) || out.find("NO_MNE") != std::string::npos) {
    GTEST_SKIP() << "/usr/bin/python3 with MNE is not available: " << out;
  }
  std::istringstream in(out);
  std::string tag;
  std::size_t n = 0;
  int compared = 0;
  while (in >> tag >> n) {
    std::vector<double> mne(n);
    for (auto& v : mne) in >> v;
    FirKernel ours;
    if (tag == "bp") ours = designFir(parseFilterSpec("bandpass:1-40"), 250);
    if (tag == "hp") ours = designFir(parseFilterSpec("highpass:0.5"), 1000);
    if (tag == "lp") ours = designFir(parseFilterSpec("lowpass:30"), 512);
    if (tag == "notch") ours = designFir(parseFilterSpec("notch:50"), 256);
    ASSERT_EQ(ours.taps.size(), n) << tag;
    double worst = 0.0;
    for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, std::abs(ours.taps[i] - mne[i]));
    // Same construction in double precision; only summation order and libm differ.
    EXPECT_LT(worst, 1e-13) << tag;
    ++compared;
  }
  EXPECT_EQ(compared, 4) << out;
}

}  // namespace
}  // namespace modescope
