// Rehman and Mandic's hexavariate example (the memd.m header's syn_hex_inp) and the check of mode
// alignment on it, shared by the CPU test (memd_test.cpp) and the GPU test
// (tests/gpu/memd_parity_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "engine/core/recording.h"
#include "engine/memd/memd.h"

namespace modescope::memd_test {

constexpr double kPi = 3.14159265358979323846;

// 2 Hz on channels 1, 2, 4; 8 Hz on 1-3, 5; 16 Hz on all; 32 Hz on 1, 3, 4, 6 (0-based below);
// white noise (std 0.3) on 1-3.
inline const std::vector<std::pair<double, std::vector<int>>>& hexTones() {
  static const std::vector<std::pair<double, std::vector<int>>> tones = {
      {2.0, {0, 1, 3}}, {8.0, {0, 1, 2, 4}}, {16.0, {0, 1, 2, 3, 4, 5}}, {32.0, {0, 2, 3, 5}}};
  return tones;
}

inline SignalBlock hexavariate(double rate, int64_t n) {
  SignalBlock b;
  for (std::size_t c = 0; c < 6; ++c) b.channels.push_back(c);
  b.sampleRate = rate;
  b.samples = n;
  b.data.assign(6 * static_cast<std::size_t>(n), 0.0f);
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.3);
  for (const auto& [f, chans] : hexTones())
    for (int c : chans)
      for (int64_t i = 0; i < n; ++i)
        b.channel(static_cast<std::size_t>(c))[i] +=
            static_cast<float>(std::sin(2 * kPi * f * static_cast<double>(i) / rate + c));
  for (std::size_t c = 0; c < 3; ++c)
    for (int64_t i = 0; i < n; ++i) b.channel(c)[i] += static_cast<float>(noise(rng));
  return b;
}

// Amplitude of the f Hz component of row r (least-squares sine and cosine fit).
inline double toneAmplitude(const EmdChannelModes& m, int r, int64_t n, double rate, double f) {
  double s = 0, c = 0;
  const float* x = m.row(r, n);
  for (int64_t i = 0; i < n; ++i) {
    const double ph = 2 * kPi * f * static_cast<double>(i) / rate;
    s += x[i] * std::sin(ph);
    c += x[i] * std::cos(ph);
  }
  return 2 * std::hypot(s, c) / static_cast<double>(n);
}

// The IMF (0-based) holding most of the f Hz tone on channel c, and that amplitude.
inline std::pair<int, double> dominantImf(const MemdResult& r, std::size_t c, double f) {
  int best = 0;
  double bestA = -1;
  for (int k = 0; k < r.channels[c].rows - 1; ++k) {
    const double a = toneAmplitude(r.channels[c], k, r.samples, r.sampleRate, f);
    if (a > bestA) {
      bestA = a;
      best = k;
    }
  }
  return {best, bestA};
}

// Every tone in one IMF index on every channel that carries it, most of its amplitude there, and
// the scales ordered (faster tones in earlier IMFs).
inline void expectModeAlignment(const MemdResult& r) {
  ASSERT_EQ(r.channels.size(), 6u);
  for (const auto& m : r.channels) ASSERT_EQ(m.rows, r.channels[0].rows);
  std::vector<int> imfOf;
  for (const auto& [f, chans] : hexTones()) {
    const auto [first, firstA] = dominantImf(r, static_cast<std::size_t>(chans[0]), f);
    for (int c : chans) {
      const auto [k, a] = dominantImf(r, static_cast<std::size_t>(c), f);
      EXPECT_EQ(k, first) << f << " Hz: channel " << c + 1 << " has it in IMF " << k + 1
                          << ", channel " << chans[0] + 1 << " in IMF " << first + 1;
      EXPECT_GT(a, 0.6) << f << " Hz on channel " << c + 1 << " spread over IMFs";
    }
    imfOf.push_back(first);
  }
  // hexTones() lists 2, 8, 16, 32 Hz: the IMF index falls as the frequency rises.
  for (std::size_t i = 1; i < imfOf.size(); ++i) EXPECT_LT(imfOf[i], imfOf[i - 1]);
}

}  // namespace modescope::memd_test
