#include "engine/synth/synthetic_eeg.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numbers>
#include <string>

#include "engine/core/error.h"
#include "engine/core/philox.h"
#include "engine/core/text.h"
#include "engine/montage/channel_names.h"

namespace modescope {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr int kMaxChannels = 128;
constexpr int kMaxSources = 64;
constexpr double kMaxSampleRate = 100000.0;
// Samples live in memory (channels + sources, float32): 2 GiB is 128 channels at 1 kHz for about
// an hour, and still leaves room on an 8 GiB laptop.
constexpr double kMaxGeneratedBytes = 2.0 * 1024 * 1024 * 1024;
// A chunk of channels between checkpoints: up to 8 channels, fewer for long recordings so one
// chunk stays near 1M samples (~0.1-0.3 s with the pink background: the ~100 ms chunk of
// engine/core/job_context.h).
constexpr std::size_t kMaxChannelsPerChunk = 8;
constexpr double kSamplesPerChunk = 1e6;

// Philox streams (see engine/core/philox.h for the (seed, stream, index) mapping). Per-channel and
// per-event streams put the channel/event number in the stream id, so every draw is addressed and
// the result does not depend on chunking or on generation order.
constexpr uint64_t kStreamSources = 1;
constexpr uint64_t kStreamMixing = 2;
constexpr uint64_t kStreamBlinks = 3;
constexpr uint64_t kStreamMuscleEvents = 4;
constexpr uint64_t kStreamLine = 5;
constexpr uint64_t kStreamHeart = 6;
constexpr uint64_t kStreamSaccades = 7;
uint64_t backgroundStream(std::size_t channel, int component) {
  return (uint64_t{1} << 40) | (static_cast<uint64_t>(channel) << 8) |
         static_cast<uint64_t>(component);
}
uint64_t muscleNoiseStream(std::size_t burst, std::size_t side) {
  return (uint64_t{2} << 40) | (static_cast<uint64_t>(burst) << 8) | static_cast<uint64_t>(side);
}

// ---------------------------------------------------------------------------------------------
// Channel sets. Taking the first n of this list gives the 10-20 set (19), a 32-channel set
// (BioSemi's 32-channel cap), the 64 10-10 sites of the PhysioNet/BCI2000 cap, then the remaining
// 10-10 sites and 10-05 half-way sites around the centre of the head up to 128.

const char* const kSitePriority[] = {
    // 10-20 (19)
    "Fp1", "Fp2", "F7", "F3", "Fz", "F4", "F8", "T7", "C3", "Cz", "C4", "T8", "P7", "P3", "Pz",
    "P4", "P8", "O1", "O2",
    // to 32: BioSemi 32
    "AF3", "AF4", "FC1", "FC2", "FC5", "FC6", "CP1", "CP2", "CP5", "CP6", "PO3", "PO4", "Oz",
    // to 64: PhysioNet EEG Motor Movement/Imagery (BCI2000) cap
    "FC3", "FCz", "FC4", "C5", "C1", "C2", "C6", "CP3", "CPz", "CP4", "Fpz", "AF7", "AFz", "AF8",
    "F5", "F1", "F2", "F6", "FT7", "FT8", "T9", "T10", "TP7", "TP8", "P5", "P1", "P2", "P6", "PO7",
    "POz", "PO8", "Iz",
    // to 75: the rest of the 10-10 table
    "F9", "F10", "FT9", "FT10", "P9", "P10", "PO9", "PO10", "I1", "I2", "Nz",
    // to 128: 10-05 sites
    "AFp1", "AFp2", "AFF1h", "AFF2h", "AFF5h", "AFF6h", "FFC1h", "FFC2h", "FFC3h", "FFC4h", "FFC5h",
    "FFC6h", "FFT7h", "FFT8h", "FCC1h", "FCC2h", "FCC3h", "FCC4h", "FCC5h", "FCC6h", "FTT7h",
    "FTT8h", "CCP1h", "CCP2h", "CCP3h", "CCP4h", "CCP5h", "CCP6h", "TTP7h", "TTP8h", "CPP1h",
    "CPP2h", "CPP3h", "CPP4h", "CPP5h", "CPP6h", "TPP7h", "TPP8h", "PPO1h", "PPO2h", "PPO5h",
    "PPO6h", "POO1", "POO2", "TP9", "TP10", "OI1h", "OI2h", "FTT9h", "FTT10h", "FCCz", "CCPz",
    "PPOz"};
static_assert(std::size(kSitePriority) == kMaxChannels);

// Display order: front to back by 10-05 row, then left to right.
int rowRank(const std::string& name) {
  std::string row;
  for (char c : name) {
    if (std::isdigit(static_cast<unsigned char>(c))) break;
    row += c;
  }
  if (!row.empty() && row.back() == 'z') row.pop_back();
  static const std::map<std::string, int> kRanks = {
      {"N", 0},   {"NFp", 1},  {"Fp", 2},   {"AFp", 3},  {"AF", 4},  {"AFF", 5},  {"F", 6},
      {"FFC", 7}, {"FFT", 7},  {"FC", 8},   {"FT", 8},   {"FCC", 9}, {"FTT", 9},  {"C", 10},
      {"T", 10},  {"CCP", 11}, {"TTP", 11}, {"CP", 12},  {"TP", 12}, {"CPP", 13}, {"TPP", 13},
      {"P", 14},  {"PPO", 15}, {"PO", 16},  {"POO", 17}, {"O", 18},  {"OI", 19},  {"I", 20}};
  const auto it = kRanks.find(row);
  return it == kRanks.end() ? 21 : it->second;
}

std::vector<std::string> channelSet(int n) {
  std::vector<std::string> names(kSitePriority, kSitePriority + n);
  std::stable_sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    const int ra = rowRank(a), rb = rowRank(b);
    if (ra != rb) return ra < rb;
    return standardPosition(a)->x < standardPosition(b)->x;
  });
  return names;
}

// ---------------------------------------------------------------------------------------------
// Geometry on the unit sphere (x right, y nose, z up).

Position3 normalised(double x, double y, double z) {
  const double r = std::sqrt(x * x + y * y + z * z);
  return {x / r, y / r, z / r};
}

double angleBetween(const Position3& a, const Position3& b) {
  const double c = a.x * b.x + a.y * b.y + a.z * b.z;
  return std::acos(std::clamp(c, -1.0, 1.0));
}

// Gaussian fall-off with the angle: a smooth stand-in for volume conduction through the head.
double gaussianGain(double angle, double width) {
  return std::exp(-angle * angle / (2.0 * width * width));
}

// Source sites: alpha over the occipital pole, beta over both motor strips, theta at the frontal
// midline (the classic rhythms and where they are largest), further sources at random.
constexpr double kSourceWidth = 0.6;  // rad (34 deg): alpha reaches O1/O2/Pz, not Fz
// Eyes: below the nasion in front. Blinks fall off from there; gains are relative to Fp1/Fp2.
const Position3 kEyes = normalised(0.0, 0.94, -0.34);
constexpr double kBlinkWidth = 0.6;  // rad: Fz gets ~1/3 of Fp1's blink, Cz ~1 %
// Temporalis muscles: just above and in front of the ears.
const Position3 kLeftTemporalis = normalised(-0.99, 0.1, 0.05);
const Position3 kRightTemporalis = normalised(0.99, 0.1, 0.05);
constexpr double kMuscleWidth = 0.35;  // rad: T7 ~0.7, C3 ~0.04, Cz ~0
// The cardiac field reaches the scalp from below and to the left (the heart's axis points down
// and left): a broad left-right gradient, largest at left inferior sites and reversed on the
// right, as the ECG artifact of referenced EEG looks (Dirlich et al. 1997).
const Position3 kHeartDirection = normalised(-0.8, -0.3, -0.5);
// Horizontal eye movements: the corneo-retinal dipoles turn together, so sites left and right of
// the eyes see the gaze with opposite signs, falling off with the distance from the eyes.
constexpr double kSaccadeWidth = 0.6;        // rad, as the blink field
constexpr double kSaccadeDuration = 0.04;    // s: a 10-20 deg saccade lasts 40-60 ms
constexpr double kExgNoiseMicrovolts = 2.0;  // pink noise on the EOG and ECG channels

// ---------------------------------------------------------------------------------------------

struct Source {
  double frequency, amplitude, phase, modulationHz, modulationPhase, modulationDepth;
  Position3 site;
};

std::vector<Source> makeSources(const SynthParams& p, const Philox4x32& rng) {
  // Below Nyquist with margin: a 20 Hz beta at a 32 Hz sample rate would alias.
  const double fMax = 0.4 * p.sampleRate;
  std::vector<Source> out;
  for (int j = 0; j < p.sources; ++j) {
    auto u = [&](int k) {
      return rng.uniformDouble(kStreamSources, static_cast<uint64_t>(j) * 16 + k);
    };
    Source s{};
    switch (j) {
      case 0:  // alpha
        s.frequency = 9.0 + 2.0 * u(0), s.amplitude = 20.0, s.site = normalised(0, -0.85, 0.5);
        break;
      case 1:  // beta, left motor
        s.frequency = 18.0 + 4.0 * u(0), s.amplitude = 8.0, s.site = normalised(-0.55, 0, 0.83);
        break;
      case 2:  // theta, frontal midline
        s.frequency = 5.0 + 2.0 * u(0), s.amplitude = 10.0, s.site = normalised(0, 0.6, 0.8);
        break;
      case 3:  // beta, right motor
        s.frequency = 18.0 + 4.0 * u(0), s.amplitude = 8.0, s.site = normalised(0.55, 0, 0.83);
        break;
      default: {  // 4-30 Hz anywhere on the upper head
        s.frequency = 4.0 + 26.0 * u(0);
        s.amplitude = 5.0 + 10.0 * u(1);
        const double azimuth = 2.0 * kPi * u(2);
        const double z = 0.2 + 0.8 * u(3);  // uniform on the spherical cap z > 0.2
        const double r = std::sqrt(1.0 - z * z);
        s.site = {r * std::cos(azimuth), r * std::sin(azimuth), z};
      }
    }
    s.frequency = std::min(s.frequency, fMax);
    s.phase = 2.0 * kPi * u(4);
    s.modulationHz = 0.05 + 0.25 * u(5);
    s.modulationPhase = 2.0 * kPi * u(6);
    s.modulationDepth = 0.5;
    out.push_back(s);
  }
  return out;
}

struct Blink {
  double onset, duration, amplitude;  // s, s, uV at Fp1/Fp2
};

struct MuscleBurst {
  double onset, duration, rms;  // s, s, uV at the focus
  bool left, right;
};

std::vector<Blink> scheduleBlinks(const SynthParams& p, const Philox4x32& rng) {
  std::vector<Blink> out;
  if (p.blinkRatePerMinute <= 0) return out;
  const double mean = 60.0 / p.blinkRatePerMinute;
  uint64_t n = 0;
  // Intervals uniform in [0.5, 1.5] x mean: the rate as asked, never two blinks overlapping
  // (at most 60/min gives >= 0.5 s between onsets, blinks last <= 0.4 s).
  double t = mean * rng.uniformDouble(kStreamBlinks, n++);
  while (true) {
    Blink b{};
    b.onset = t;
    b.duration = 0.2 + 0.2 * rng.uniformDouble(kStreamBlinks, n++);
    b.amplitude = 100.0 + 100.0 * rng.uniformDouble(kStreamBlinks, n++);
    if (b.onset + b.duration > p.duration) break;
    out.push_back(b);
    t += mean * (0.5 + rng.uniformDouble(kStreamBlinks, n++));
  }
  return out;
}

std::vector<MuscleBurst> scheduleMuscle(const SynthParams& p, const Philox4x32& rng) {
  std::vector<MuscleBurst> out;
  if (p.muscleBurstsPerMinute <= 0) return out;
  const double mean = 60.0 / p.muscleBurstsPerMinute;
  uint64_t n = 0;
  double t = mean * rng.uniformDouble(kStreamMuscleEvents, n++);
  while (true) {
    MuscleBurst b{};
    b.onset = t;
    b.duration = 0.5 + 1.5 * rng.uniformDouble(kStreamMuscleEvents, n++);
    b.rms = 10.0 + 20.0 * rng.uniformDouble(kStreamMuscleEvents, n++);
    const double side = rng.uniformDouble(kStreamMuscleEvents, n++);
    b.left = side < 2.0 / 3.0;
    b.right = side >= 1.0 / 3.0;
    if (b.onset + b.duration > p.duration) break;
    out.push_back(b);
    t += std::max(mean * (0.5 + rng.uniformDouble(kStreamMuscleEvents, n++)), b.duration + 0.2);
  }
  return out;
}

// R-peak times: the mean interval of the rate with +-5 % beat-to-beat variation.
std::vector<double> scheduleHeartbeats(const SynthParams& p, const Philox4x32& rng) {
  std::vector<double> out;
  if (p.heartRatePerMinute <= 0) return out;
  const double mean = 60.0 / p.heartRatePerMinute;
  uint64_t n = 0;
  for (double t = mean * rng.uniformDouble(kStreamHeart, n++); t < p.duration;
       t += mean * (0.95 + 0.1 * rng.uniformDouble(kStreamHeart, n++))) {
    out.push_back(t);
  }
  return out;
}

// One beat around its R peak (t in s from the peak), R = 1: the P, Q, R, S and T waves as Gaussian
// bumps at the extrema of McSharry et al. 2003's ECG model (IEEE TBME 50:289), their angles
// turned into times at 60 beats per minute.
double heartbeatShape(double t) {
  struct Wave {
    double at, amplitude, width;
  };
  static constexpr Wave kWaves[] = {{-0.20, 0.12, 0.025},
                                    {-0.035, -0.12, 0.008},
                                    {0.0, 1.0, 0.010},
                                    {0.035, -0.25, 0.010},
                                    {0.28, 0.30, 0.045}};
  double v = 0.0;
  for (const Wave& w : kWaves) {
    const double d = (t - w.at) / w.width;
    v += w.amplitude * std::exp(-0.5 * d * d);
  }
  return v;
}

std::vector<float> heartWaveform(const std::vector<double>& beats, int64_t samples, double fs) {
  std::vector<float> out(static_cast<std::size_t>(samples), 0.0f);
  const auto reach = static_cast<int64_t>(std::ceil(0.5 * fs));  // every wave is within 0.5 s
  for (double beat : beats) {
    const auto centre = static_cast<int64_t>(std::llround(beat * fs));
    for (int64_t n = std::max<int64_t>(0, centre - reach);
         n <= std::min<int64_t>(samples - 1, centre + reach); ++n) {
      out[static_cast<std::size_t>(n)] += static_cast<float>(heartbeatShape(n / fs - beat));
    }
  }
  return out;
}

struct Saccade {
  double onset, from, to;  // s; gaze before and after, -1 (left) to 1 (right)
};

// Fixations of 0.5-1.5 x the mean interval, each ending in a step to a gaze drawn uniformly in
// [-1, 1].
std::vector<Saccade> scheduleSaccades(const SynthParams& p, const Philox4x32& rng) {
  std::vector<Saccade> out;
  if (p.saccadesPerMinute <= 0) return out;
  const double mean = 60.0 / p.saccadesPerMinute;
  uint64_t n = 0;
  double gaze = 0.0;
  for (double t = mean * rng.uniformDouble(kStreamSaccades, n++); t + kSaccadeDuration < p.duration;
       t += mean * (0.5 + rng.uniformDouble(kStreamSaccades, n++))) {
    const double to = 2.0 * rng.uniformDouble(kStreamSaccades, n++) - 1.0;
    out.push_back({t, gaze, to});
    gaze = to;
  }
  return out;
}

// The gaze over time: constant during fixations, a raised-cosine step during each saccade.
std::vector<float> gazeWaveform(const std::vector<Saccade>& saccades, int64_t samples, double fs) {
  std::vector<float> out(static_cast<std::size_t>(samples), 0.0f);
  std::size_t next = 0;
  double gaze = 0.0;
  for (int64_t n = 0; n < samples; ++n) {
    const double t = n / fs;
    while (next < saccades.size() && t >= saccades[next].onset + kSaccadeDuration) {
      gaze = saccades[next++].to;
    }
    double v = gaze;
    if (next < saccades.size() && t >= saccades[next].onset) {
      const Saccade& s = saccades[next];
      const double tau = (t - s.onset) / kSaccadeDuration;
      v = s.from + (s.to - s.from) * 0.5 * (1.0 - std::cos(kPi * tau));
    }
    out[static_cast<std::size_t>(n)] = static_cast<float>(v);
  }
  return out;
}

// Asymmetric bump, 0 at both ends and 1 at 40 % of the duration: lids close faster than they open.
double blinkShape(double tau) {
  constexpr double kRise = 0.4;
  if (tau <= 0.0 || tau >= 1.0) return 0.0;
  if (tau < kRise) {
    const double s = std::sin(0.5 * kPi * tau / kRise);
    return s * s;
  }
  const double c = std::cos(0.5 * kPi * (tau - kRise) / (1.0 - kRise));
  return c * c;
}

// Second-order Butterworth section from the bilinear transform with pre-warping.
struct Biquad {
  double b0, b1, b2, a1, a2;
  double x1 = 0, x2 = 0, y1 = 0, y2 = 0;
  double step(double x) {
    const double y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
    x2 = x1, x1 = x, y2 = y1, y1 = y;
    return y;
  }
};

Biquad butterworth(double cutoff, double fs, bool highpass) {
  const double k = std::tan(kPi * cutoff / fs);
  const double q = std::numbers::sqrt2 / 2.0;
  const double norm = 1.0 / (1.0 + k / q + k * k);
  Biquad f{};
  if (highpass) {
    f.b0 = norm, f.b1 = -2.0 * norm, f.b2 = norm;
  } else {
    f.b0 = k * k * norm, f.b1 = 2.0 * f.b0, f.b2 = f.b0;
  }
  f.a1 = 2.0 * (k * k - 1.0) * norm;
  f.a2 = (1.0 - k / q + k * k) * norm;
  return f;
}

// Tukey window with 25 % cosine tapers: bursts swell and fade instead of switching on.
double tukey(double tau) {
  constexpr double kTaper = 0.25;
  if (tau <= 0.0 || tau >= 1.0) return 0.0;
  if (tau < kTaper) return 0.5 * (1.0 - std::cos(kPi * tau / kTaper));
  if (tau > 1.0 - kTaper) return 0.5 * (1.0 - std::cos(kPi * (1.0 - tau) / kTaper));
  return 1.0;
}

// ---------------------------------------------------------------------------------------------
// Parameter validation: the messages name the parameter, the value and the range.

void require(bool ok, const char* parameter, double value, const std::string& expected,
             const std::string& remedy) {
  if (!ok) throw InvalidParameterError(parameter, formatNumber(value), expected, remedy);
}

int64_t validate(const SynthParams& p) {
  require(p.channels >= 1 && p.channels <= kMaxChannels, "channels", p.channels,
          "1 to 128 (19 = 10-20, 32, 64 = 10-10, up to 128 = 10-05 sites)",
          "choose a channel count in that range");
  require(std::isfinite(p.sampleRate) && p.sampleRate > 0 && p.sampleRate <= kMaxSampleRate,
          "sampleRate", p.sampleRate, "a rate in Hz above 0 and at most 100000",
          "EEG is usually sampled at 128 to 2048 Hz");
  require(std::isfinite(p.duration) && p.duration > 0, "duration", p.duration,
          "a duration in seconds above 0", "give a positive duration such as 60");
  require(p.sources >= 0 && p.sources <= kMaxSources, "sources", p.sources, "0 to 64",
          "use fewer oscillatory sources");
  const double samples = std::round(p.duration * p.sampleRate);
  require(samples >= 1, "duration", p.duration,
          "at least one sample period (" + formatNumber(1.0 / p.sampleRate) + " s)",
          "lengthen the duration or raise the sample rate");
  const double bytes = samples * (p.channels + p.sources) * sizeof(float);
  require(bytes <= kMaxGeneratedBytes, "duration", p.duration,
          "at most " +
              formatNumber(kMaxGeneratedBytes /
                           (p.sampleRate * (p.channels + p.sources) * sizeof(float))) +
              " s at this rate and channel count (2 GiB of samples in memory)",
          "shorten the duration, or lower the sample rate or the channel count");
  require(std::isfinite(p.blinkRatePerMinute) && p.blinkRatePerMinute >= 0 &&
              p.blinkRatePerMinute <= 60,
          "blinkRatePerMinute", p.blinkRatePerMinute, "0 (none) to 60 per minute",
          "people blink 10 to 20 times a minute");
  require(std::isfinite(p.muscleBurstsPerMinute) && p.muscleBurstsPerMinute >= 0 &&
              p.muscleBurstsPerMinute <= 30,
          "muscleBurstsPerMinute", p.muscleBurstsPerMinute, "0 (none) to 30 per minute",
          "use a lower burst rate");
  require(std::isfinite(p.lineNoiseHz) &&
              (p.lineNoiseHz == 0 || (p.lineNoiseHz > 0 && p.lineNoiseHz < p.sampleRate / 2)),
          "lineNoiseHz", p.lineNoiseHz,
          "0 (none) or a frequency below half the sample rate (" + formatNumber(p.sampleRate / 2) +
              " Hz)",
          "use 50 or 60 Hz with a sample rate above 120 Hz, or 0 to disable");
  require(std::isfinite(p.lineNoiseMicrovolts) && p.lineNoiseMicrovolts >= 0 &&
              p.lineNoiseMicrovolts <= 1e4,
          "lineNoiseMicrovolts", p.lineNoiseMicrovolts, "0 to 10000 uV", "use a few uV");
  require(std::isfinite(p.backgroundMicrovolts) && p.backgroundMicrovolts >= 0 &&
              p.backgroundMicrovolts <= 1e4,
          "backgroundMicrovolts", p.backgroundMicrovolts, "0 to 10000 uV RMS", "use a few uV");
  require(std::isfinite(p.heartRatePerMinute) &&
              (p.heartRatePerMinute == 0 ||
               (p.heartRatePerMinute >= 40 && p.heartRatePerMinute <= 180)),
          "heartRatePerMinute", p.heartRatePerMinute, "0 (none) or 40 to 180 beats per minute",
          "a resting heart beats 60 to 80 times a minute");
  require(std::isfinite(p.heartMicrovolts) && p.heartMicrovolts >= 0 && p.heartMicrovolts <= 1e4,
          "heartMicrovolts", p.heartMicrovolts, "0 to 10000 uV", "use a few uV");
  require(
      std::isfinite(p.saccadesPerMinute) && p.saccadesPerMinute >= 0 && p.saccadesPerMinute <= 120,
      "saccadesPerMinute", p.saccadesPerMinute, "0 (none) to 120 per minute",
      "use a lower saccade rate");
  require(
      std::isfinite(p.saccadeMicrovolts) && p.saccadeMicrovolts >= 0 && p.saccadeMicrovolts <= 1e4,
      "saccadeMicrovolts", p.saccadeMicrovolts, "0 to 10000 uV", "use tens of uV");
  return static_cast<int64_t>(samples);
}

// ---------------------------------------------------------------------------------------------
// Per-channel generators. Each one adds into `acc` (double, one channel).

// Pink (1/f) background: equal-variance AR(1) processes with corner frequencies one octave apart
// from 0.25 Hz to a quarter of the sample rate. A first-order process has a Lorentzian spectrum
// ~ (1/f_k) / (1 + (f/f_k)^2); summing those over log-spaced f_k gives ~ 1/f between the lowest
// and highest corners. Each process starts in its stationary distribution, so there is no
// start-up transient.
void addPinkNoise(std::vector<double>& acc, std::size_t channel, double rms, double fs,
                  uint64_t seed, const JobContext& ctx) {
  const double fLow = 0.25, fHigh = std::max(fLow, fs / 4.0);
  const int components = 1 + static_cast<int>(std::floor(std::log2(fHigh / fLow)));
  const double scale = rms / std::sqrt(static_cast<double>(components));
  for (int k = 0; k < components; ++k) {
    ctx.checkpoint();  // the background dominates the run time: keep cancel prompt
    const double fk = fLow * std::exp2(k);
    const double a = std::exp(-2.0 * kPi * fk / fs);
    const double b = std::sqrt(1.0 - a * a);
    // Normal 0 of the stream is the initial state, normal n + 1 drives sample n.
    PhiloxStream draws(seed, backgroundStream(channel, k));
    double x = draws.nextNormal();
    for (std::size_t n = 0; n < acc.size(); ++n) {
      x = a * x + b * draws.nextNormal();
      acc[n] += scale * x;
    }
  }
}

void addBlinks(std::vector<double>& acc, double gain, const std::vector<Blink>& blinks, double fs) {
  for (const auto& b : blinks) {
    const auto first = static_cast<int64_t>(std::ceil(b.onset * fs));
    const auto last =
        std::min<int64_t>(static_cast<int64_t>(std::floor((b.onset + b.duration) * fs)),
                          static_cast<int64_t>(acc.size()) - 1);
    for (int64_t n = std::max<int64_t>(first, 0); n <= last; ++n) {
      acc[n] += gain * b.amplitude * blinkShape((n / fs - b.onset) / b.duration);
    }
  }
}

// Each burst is one band-limited noise per active side (the left and the right temporalis are
// separate muscles): every electrode sees the same series scaled by its gain, as volume
// conduction carries one source to all sites, so the burst is one independent component per
// side.
void addMuscle(std::vector<double>& acc, const Position3& site,
               const std::vector<MuscleBurst>& bursts, double fs, uint64_t seed) {
  // 20-100 Hz, narrowed at low sample rates to stay below Nyquist.
  const double fHigh = std::min(100.0, 0.45 * fs);
  const double fLow = std::min(20.0, 0.5 * fHigh);
  const double sideGain[2] = {gaussianGain(angleBetween(site, kLeftTemporalis), kMuscleWidth),
                              gaussianGain(angleBetween(site, kRightTemporalis), kMuscleWidth)};
  for (std::size_t i = 0; i < bursts.size(); ++i) {
    const auto& b = bursts[i];
    const bool active[2] = {b.left, b.right};
    const auto first = static_cast<int64_t>(std::ceil(b.onset * fs));
    const auto last =
        std::min<int64_t>(static_cast<int64_t>(std::floor((b.onset + b.duration) * fs)),
                          static_cast<int64_t>(acc.size()) - 1);
    if (last < first) continue;
    for (std::size_t side = 0; side < 2; ++side) {
      const double gain = active[side] ? sideGain[side] : 0.0;
      if (gain < 1e-3) continue;  // far from the muscle: below 0.03 uV, not worth the filtering
      // Band-limited noise: white noise through high-pass and low-pass Butterworth sections,
      // after a 0.2 s pre-roll so the filters have settled, then scaled to the burst's RMS.
      const auto preroll = static_cast<int64_t>(std::ceil(0.2 * fs));
      const auto length = last - first + 1;
      Biquad hp = butterworth(fLow, fs, true), lp = butterworth(fHigh, fs, false);
      std::vector<double> noise(static_cast<std::size_t>(length));
      PhiloxStream draws(seed, muscleNoiseStream(i, side));
      double sumSq = 0.0;
      for (int64_t n = 0; n < preroll + length; ++n) {
        const double y = lp.step(hp.step(draws.nextNormal()));
        if (n >= preroll) {
          noise[static_cast<std::size_t>(n - preroll)] = y;
          sumSq += y * y;
        }
      }
      const double norm = sumSq > 0 ? b.rms * gain / std::sqrt(sumSq / length) : 0.0;
      for (int64_t n = first; n <= last; ++n) {
        acc[n] += norm * noise[static_cast<std::size_t>(n - first)] *
                  tukey((n / fs - b.onset) / b.duration);
      }
    }
  }
}

// The reference channels a recording with EOG and ECG electrodes has: VEOG above the right eye
// (1.5 x Fp1's blink), HEOG across the outer canthi (2.5 x F8's saccade field, bipolar), ECG in
// lead I (1 mV R peaks), each with its own pink noise.
void addExgChannels(const SynthParams& p, const std::vector<Blink>& blinks, const SyntheticEeg& out,
                    std::vector<ChannelInfo>& channels, std::vector<std::vector<float>>& data,
                    const JobContext& ctx) {
  const double fs = p.sampleRate;
  const std::size_t ns = data.empty() ? 0 : data.front().size();
  struct Exg {
    const char* name;
    ChannelType type;
  };
  const Exg kExg[] = {
      {"VEOG", ChannelType::EOG}, {"HEOG", ChannelType::EOG}, {"ECG", ChannelType::ECG}};
  for (std::size_t j = 0; j < std::size(kExg); ++j) {
    std::vector<double> acc(ns, 0.0);
    const std::size_t index = channels.size();
    addPinkNoise(acc, index, kExgNoiseMicrovolts, fs, p.seed, ctx);
    if (j == 0) addBlinks(acc, 1.5, blinks, fs);
    if (j == 1 && !out.gazeSource.empty()) {
      for (std::size_t n = 0; n < ns; ++n) acc[n] += 2.5 * p.saccadeMicrovolts * out.gazeSource[n];
    }
    if (j == 2 && !out.heartSource.empty()) {
      for (std::size_t n = 0; n < ns; ++n) acc[n] += 1000.0 * out.heartSource[n];
    }
    ChannelInfo ch = channels.front();
    ch.label = ch.name = kExg[j].name;
    ch.type = kExg[j].type;
    ch.position.reset();
    std::vector<float> d(ns);
    double lo = 0.0, hi = 0.0;
    for (std::size_t n = 0; n < ns; ++n) {
      d[n] = static_cast<float>(acc[n]);
      lo = std::min(lo, acc[n]);
      hi = std::max(hi, acc[n]);
    }
    ch.physicalMin = std::floor(lo) - 1.0;
    ch.physicalMax = std::ceil(hi) + 1.0;
    channels.push_back(ch);
    data.push_back(std::move(d));
  }
}

}  // namespace

SyntheticEeg generateSyntheticEeg(const SynthParams& params, JobContext& ctx) {
  const int64_t samples = validate(params);
  const double fs = params.sampleRate;
  const Philox4x32 rng(params.seed);
  const auto ns = static_cast<std::size_t>(samples);

  ctx.checkpoint();
  ctx.progress(0.0, "synthetic EEG: sources");

  // Channels and their sites.
  std::vector<ChannelInfo> channels(static_cast<std::size_t>(params.channels));
  const std::vector<std::string> names = channelSet(params.channels);
  for (std::size_t i = 0; i < channels.size(); ++i) {
    auto& ch = channels[i];
    ch.label = names[i];
    ch.unit = "uV";
    ch.sampleRate = fs;
    ch.sampleCount = samples;
    ch.transducer = "synthetic";
    ch.digitalMin = -32768;
    ch.digitalMax = 32767;
  }
  applyStandardNames(channels);
  std::vector<Position3> sites(channels.size());
  for (std::size_t i = 0; i < channels.size(); ++i) sites[i] = standardPosition(names[i]).value();

  // Sources (double precision, stored as float: the stored values are the ground truth the
  // channels are mixed from, so data == A * sources holds to float rounding).
  const std::vector<Source> sources = makeSources(params, rng);
  SyntheticEeg out;
  out.sources.assign(sources.size(), std::vector<float>(ns));
  for (std::size_t j = 0; j < sources.size(); ++j) {
    const Source& s = sources[j];
    out.sourceFrequencies.push_back(s.frequency);
    auto& v = out.sources[j];
    for (std::size_t n = 0; n < ns; ++n) {
      const double t = static_cast<double>(n) / fs;
      const double envelope =
          1.0 + s.modulationDepth * std::sin(2.0 * kPi * s.modulationHz * t + s.modulationPhase);
      v[n] = static_cast<float>(s.amplitude * envelope *
                                std::sin(2.0 * kPi * s.frequency * t + s.phase));
    }
    ctx.checkpoint();
  }

  // Mixing matrix, channels x sources.
  out.mixing.assign(channels.size(), std::vector<double>(sources.size()));
  for (std::size_t i = 0; i < channels.size(); ++i) {
    for (std::size_t j = 0; j < sources.size(); ++j) {
      out.mixing[i][j] = params.mixing == MixingModel::HeadModel
                             ? gaussianGain(angleBetween(sites[i], sources[j].site), kSourceWidth)
                             : rng.normalDouble(kStreamMixing, (static_cast<uint64_t>(i) << 8) | j);
    }
  }

  const std::vector<Blink> blinks = scheduleBlinks(params, rng);
  const std::vector<MuscleBurst> bursts = scheduleMuscle(params, rng);
  const Position3 fp1 = standardPosition("Fp1").value();
  const double fp1Angle = angleBetween(fp1, kEyes);
  const std::vector<double> beats = scheduleHeartbeats(params, rng);
  const std::vector<Saccade> saccades = scheduleSaccades(params, rng);
  if (!blinks.empty()) {
    std::vector<double> fp1Blinks(ns, 0.0);
    addBlinks(fp1Blinks, 1.0, blinks, fs);
    out.blinkSource.assign(fp1Blinks.begin(), fp1Blinks.end());
  }
  if (!beats.empty()) out.heartSource = heartWaveform(beats, samples, fs);
  if (!saccades.empty()) out.gazeSource = gazeWaveform(saccades, samples, fs);
  // Saccade gains relative to F8's (the site right of the eyes): x times the eye fall-off.
  auto saccadeField = [](const Position3& site) {
    const double a = angleBetween(site, kEyes);
    return site.x * gaussianGain(a, kSaccadeWidth);
  };
  const double f8Field = saccadeField(standardPosition("F8").value());
  const bool line = params.lineNoiseHz > 0 && params.lineNoiseMicrovolts > 0;
  const double linePhase = 2.0 * kPi * rng.uniformDouble(kStreamLine, 0);
  ctx.progress(0.1, "synthetic EEG: channels");

  // Channels, in chunks with a checkpoint and progress between them.
  std::vector<std::vector<float>> data(channels.size());
  std::vector<double> acc(ns);
  const std::size_t perChunk = std::clamp<std::size_t>(
      static_cast<std::size_t>(kSamplesPerChunk / static_cast<double>(samples)), 1,
      kMaxChannelsPerChunk);
  for (std::size_t c0 = 0; c0 < channels.size(); c0 += perChunk) {
    ctx.checkpoint();
    const std::size_t c1 = std::min(channels.size(), c0 + perChunk);
    for (std::size_t i = c0; i < c1; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::size_t j = 0; j < sources.size(); ++j) {
        const double a = out.mixing[i][j];
        const auto& s = out.sources[j];
        for (std::size_t n = 0; n < ns; ++n) acc[n] += a * static_cast<double>(s[n]);
      }
      if (params.backgroundMicrovolts > 0) {
        addPinkNoise(acc, i, params.backgroundMicrovolts, fs, params.seed, ctx);
      }
      if (line) {
        // Mains pick-up differs with electrode impedance: amplitude 0.5-1.5x, phase within 0.1 rad.
        const double amp = params.lineNoiseMicrovolts *
                           (0.5 + rng.uniformDouble(kStreamLine, 1 + 2 * static_cast<uint64_t>(i)));
        const double phase =
            linePhase +
            0.2 * (rng.uniformDouble(kStreamLine, 2 + 2 * static_cast<uint64_t>(i)) - 0.5);
        for (std::size_t n = 0; n < ns; ++n) {
          acc[n] +=
              amp * std::sin(2.0 * kPi * params.lineNoiseHz * static_cast<double>(n) / fs + phase);
        }
      }
      if (!blinks.empty()) {
        const double a = angleBetween(sites[i], kEyes);
        const double gain =
            std::exp(-(a * a - fp1Angle * fp1Angle) / (2.0 * kBlinkWidth * kBlinkWidth));
        addBlinks(acc, gain, blinks, fs);
      }
      if (!bursts.empty()) addMuscle(acc, sites[i], bursts, fs, params.seed);
      if (!out.heartSource.empty()) {
        const Position3& u = kHeartDirection;
        const double gain =
            params.heartMicrovolts * (sites[i].x * u.x + sites[i].y * u.y + sites[i].z * u.z);
        for (std::size_t n = 0; n < ns; ++n) acc[n] += gain * out.heartSource[n];
      }
      if (!out.gazeSource.empty()) {
        const double gain = params.saccadeMicrovolts * saccadeField(sites[i]) / f8Field;
        for (std::size_t n = 0; n < ns; ++n) acc[n] += gain * out.gazeSource[n];
      }

      auto& d = data[i];
      d.resize(ns);
      double lo = 0.0, hi = 0.0;
      for (std::size_t n = 0; n < ns; ++n) {
        d[n] = static_cast<float>(acc[n]);
        lo = std::min(lo, acc[n]);
        hi = std::max(hi, acc[n]);
      }
      // Physical range for 16/24-bit export: the data's range rounded outward, never empty.
      channels[i].physicalMin = std::floor(lo) - 1.0;
      channels[i].physicalMax = std::ceil(hi) + 1.0;
    }
    ctx.progress(0.1 + 0.9 * static_cast<double>(c1) / channels.size(),
                 "synthetic EEG: " + std::to_string(c1) + "/" + std::to_string(channels.size()) +
                     " channels");
  }

  if (params.exgChannels) addExgChannels(params, blinks, out, channels, data, ctx);

  auto rec = std::make_shared<Recording>();
  rec->info.format = "synthetic";
  rec->info.reader = "ModeScope generator";
  rec->info.recordingId = "synthetic EEG, seed " + std::to_string(params.seed);
  rec->channels = std::move(channels);
  for (const auto& b : blinks) {
    rec->annotations.push_back({b.onset, b.duration, "blink"});
    out.blinkOnsets.push_back(b.onset);
  }
  for (const auto& b : bursts) {
    rec->annotations.push_back({b.onset, b.duration, "muscle"});
    out.muscleBurstOnsets.push_back(b.onset);
  }
  for (const Saccade& s : saccades) {
    rec->annotations.push_back({s.onset, kSaccadeDuration, "saccade"});
    out.saccadeOnsets.push_back(s.onset);
  }
  out.heartbeatTimes = beats;
  std::stable_sort(rec->annotations.begin(), rec->annotations.end(),
                   [](const Annotation& a, const Annotation& b) { return a.onset < b.onset; });
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  out.recording = std::move(rec);
  ctx.progress(1.0, "synthetic EEG: done");
  return out;
}

}  // namespace modescope
