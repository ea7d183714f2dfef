// A synthetic EEG generator with known ground truth, for demos and tests.
//
// Sources: oscillators (alpha ~10 Hz occipital, beta ~20 Hz central, theta ~6 Hz frontal, with
// slow amplitude modulation) placed on the head sphere and mixed to the electrodes through a
// smooth spherical head model (gain falls with the angular distance between source and electrode)
// or a random mixing matrix; pink background noise per channel; eye blinks (frontal, decaying with
// distance from the eyes); line noise at 50/60 Hz; muscle bursts (20-100 Hz noise of the
// temporalis muscles, one source per side, largest on the temporal channels); heartbeats (an
// ECG-shaped source with a broad left-right field, as the cardiac field reaches the scalp);
// horizontal saccades (gaze steps seen with opposite polarity at F7 and F8). Every random number
// comes from Philox-4x32-10 keyed by `seed`, so the same seed gives the same recording on every
// machine. Blinks, bursts and saccades are also written as annotations. Heartbeats and saccades are
// off by default. Muscle bursts are one source per side (they were independent noise per channel,
// which no independent component could hold), so recordings with bursts differ from earlier
// versions' for the same seed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"

namespace modescope {

enum class MixingModel { HeadModel, RandomMatrix };

struct SynthParams {
  int channels = 32;          // 19 (10-20), 32, 64 (10-10 sites), up to 128 (10-05 sites)
  double sampleRate = 256.0;  // Hz
  double duration = 60.0;     // s
  int sources = 4;            // oscillatory sources
  MixingModel mixing = MixingModel::HeadModel;
  double blinkRatePerMinute = 12.0;
  double lineNoiseHz = 50.0;  // 0 disables
  double lineNoiseMicrovolts = 5.0;
  double muscleBurstsPerMinute = 4.0;
  double backgroundMicrovolts = 5.0;  // pink noise RMS
  double heartRatePerMinute = 0.0;    // 0 disables; 40 to 180 beats per minute
  double heartMicrovolts = 15.0;      // R-peak amplitude at the electrode the field reaches most
  double saccadesPerMinute = 0.0;     // 0 disables; gaze steps per minute, up to 120
  double saccadeMicrovolts = 40.0;    // at F7/F8 for a full gaze step to one side
  // Adds channels VEOG (above the right eye: blinks), HEOG (outer canthi: saccades) and ECG (lead
  // I, 1 mV R peaks) after the EEG channels, typed EOG/ECG, each with 2 uV of its own pink noise.
  bool exgChannels = false;
  std::uint64_t seed = 1;
};

// The generated recording plus what went into it.
struct SyntheticEeg {
  std::shared_ptr<const Recording> recording;
  std::vector<std::vector<float>> sources;  // sources x samples, uV at unit gain
  std::vector<double> sourceFrequencies;    // Hz
  std::vector<std::vector<double>> mixing;  // channels x sources
  std::vector<double> blinkOnsets;          // s
  std::vector<double> muscleBurstOnsets;    // s
  std::vector<double> heartbeatTimes;       // s, the R peaks
  std::vector<double> saccadeOnsets;        // s
  std::vector<float> blinkSource;           // the blinks at Fp1 (uV), if any
  std::vector<float> heartSource;           // the cardiac waveform (uV at unit gain), if any
  std::vector<float> gazeSource;            // horizontal gaze, -1 (left) to 1 (right), if any
};

// Throws InvalidParameterError for out-of-range parameters.
SyntheticEeg generateSyntheticEeg(const SynthParams& params, JobContext& ctx);

}  // namespace modescope
