// The recording model every reader produces and every view and method reads.
//
// Samples stay where they are until asked for: a SignalSource reads any channel's sample range on
// demand (a paged EDF reader, an HDF5 hyperslab, or memory), so a one-hour 256-channel file opens
// without reading its samples. Channels keep their own sample rates (mixed rates are real);
// methods that need one rate say so when a selection mixes them (see extractBlock).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/diagnostics.h"

namespace modescope {

enum class ChannelType { EEG, EOG, ECG, EMG, STIM, MISC };

const char* channelTypeName(ChannelType t);
std::optional<ChannelType> parseChannelType(const std::string& name);

// Electrode position on the unit sphere of the bundled 10-05 montage (x right, y nose, z up).
struct Position3 {
  double x = 0, y = 0, z = 0;
};

struct ChannelInfo {
  std::string label;  // as stored in the file, trimmed
  std::string name;   // normalised 10-05 name ("EEG Fp1-REF" -> "Fp1"), or the cleaned label
  ChannelType type = ChannelType::MISC;
  std::string unit;         // physical dimension as stored, e.g. "uV"
  double sampleRate = 0.0;  // Hz
  int64_t sampleCount = 0;
  double physicalMin = 0.0, physicalMax = 0.0;
  int digitalMin = 0, digitalMax = 0;
  std::string prefilter, transducer;
  std::optional<Position3> position;  // from the montage when the name is a known site
  // Marked bad by the user (MNE's info["bads"], BIDS channels.tsv status "bad"): methods leave
  // it out of their default selection and say so in their provenance; interpolation replaces it.
  bool bad = false;
};

// Onset and duration in seconds from the recording start; duration 0 for an instant event.
struct Annotation {
  double onset = 0.0;
  double duration = 0.0;
  std::string text;
};

struct RecordingInfo {
  std::string format;  // "EDF+", "BDF", "GDF", "HDF5 (ModeScope)", "synthetic", ...
  std::string reader;  // which library read it: "EDFlib", "BioSig", "HDF5", "memory"
  std::string patient, patientCode, sex, birthdate;
  std::string recordingId, technician, equipment, adminCode;
  std::string startDateTime;  // ISO 8601, local time as written in the file, "" if unknown
};

// Reads samples on demand. Implementations must be safe to call from several threads.
class SignalSource {
 public:
  virtual ~SignalSource() = default;
  // Physical values of channel `channel`, samples [first, first + count), into out[0..count).
  // The range is clipped by the caller; implementations may throw InvalidInputError on I/O errors.
  virtual void read(std::size_t channel, int64_t first, int64_t count, float* out) const = 0;
};

// Samples held in memory, channel-major, one vector per channel (rates may differ).
class InMemorySource final : public SignalSource {
 public:
  explicit InMemorySource(std::vector<std::vector<float>> channels);
  void read(std::size_t channel, int64_t first, int64_t count, float* out) const override;
  const std::vector<float>& channel(std::size_t i) const { return channels_[i]; }

 private:
  std::vector<std::vector<float>> channels_;
};

struct Recording {
  std::string sourcePath;  // the file it came from, "" for generated data
  RecordingInfo info;
  std::vector<ChannelInfo> channels;
  std::vector<Annotation> annotations;  // sorted by onset
  Diagnostics diagnostics;              // what the reader noticed (fallbacks, non-compliance)
  std::shared_ptr<const SignalSource> source;

  std::size_t channelCount() const { return channels.size(); }
  double duration() const;  // seconds: the longest channel
  // Samples of one channel in [first, first + count), clipped to the channel's length.
  std::vector<float> readChannel(std::size_t channel, int64_t first, int64_t count) const;
  // Index of the channel whose name or label matches (case-insensitive), or -1.
  int findChannel(const std::string& nameOrLabel) const;
};

// A selection cut out of a recording for a method: equal sample rate, channel-major float32.
struct SignalBlock {
  std::vector<std::size_t> channels;  // indices into the recording
  double sampleRate = 0.0;
  int64_t firstSample = 0;  // where the block starts in the recording
  int64_t samples = 0;      // per channel
  std::vector<float> data;  // channels.size() * samples, channel-major

  float* channel(std::size_t i) { return data.data() + i * static_cast<std::size_t>(samples); }
  const float* channel(std::size_t i) const {
    return data.data() + i * static_cast<std::size_t>(samples);
  }
};

// Reads the selected channels over [startSeconds, startSeconds + durationSeconds) into a block.
// durationSeconds < 0 means "to the end". Throws InvalidParameterError when the selection mixes
// sample rates, is empty, or lies outside the recording.
SignalBlock extractBlock(const Recording& rec, const std::vector<std::size_t>& channels,
                         double startSeconds, double durationSeconds);

// A new in-memory recording: `base`'s metadata and annotations with the block's samples. The
// rvalue form takes the block's buffer over instead of copying it (a 1-hour, 256-channel block is
// 3.7 GB).
std::shared_ptr<const Recording> recordingFromBlock(const Recording& base,
                                                    const SignalBlock& block);
std::shared_ptr<const Recording> recordingFromBlock(const Recording& base, SignalBlock&& block);

// Samples of a SignalBlock (one rate, channel-major, contiguous) served as a SignalSource.
class BlockSource final : public SignalSource {
 public:
  BlockSource(std::vector<float> data, int64_t samplesPerChannel);
  void read(std::size_t channel, int64_t first, int64_t count, float* out) const override;

 private:
  std::vector<float> data_;
  int64_t samples_;
};

// Adds a diagnostic unless one with the same code and message is already there.
void addDiagnostic(Diagnostics& d, Severity s, std::string code, std::string message);

}  // namespace modescope
