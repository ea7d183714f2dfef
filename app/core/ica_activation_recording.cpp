#include "app/core/ica_activation_recording.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <vector>

#include "app/core/ica_cleaning.h"

namespace modescope {
namespace {

class ActivationSource final : public SignalSource {
 public:
  ActivationSource(std::shared_ptr<const Recording> base, std::shared_ptr<const IcaFile> file)
      : base_(std::move(base)), file_(std::move(file)) {}

  void read(std::size_t component, int64_t first, int64_t count, float* out) const override {
    const IcaResult& r = file_->result;
    const std::size_t c = file_->channels.size();
    std::lock_guard lock(mutex_);
    if (first != cachedFirst_ || count != cachedCount_) {
      // Centred channels of the requested range, channel-major.
      cache_.assign(c * static_cast<std::size_t>(count), 0.0f);
      for (std::size_t i = 0; i < c; ++i) {
        const std::vector<float> x =
            base_->readChannel(file_->channels[i].recordingIndex, first, count);
        const auto mean = static_cast<float>(r.mean[i]);
        float* row = cache_.data() + i * static_cast<std::size_t>(count);
        for (std::size_t t = 0; t < x.size(); ++t) row[t] = x[t] - mean;
      }
      cachedFirst_ = first;
      cachedCount_ = count;
    }
    std::vector<double> acc(static_cast<std::size_t>(count), 0.0);
    for (std::size_t i = 0; i < c; ++i) {
      const double w = r.unmixing(static_cast<int>(component), static_cast<int>(i));
      const float* row = cache_.data() + i * static_cast<std::size_t>(count);
      for (int64_t t = 0; t < count; ++t) acc[static_cast<std::size_t>(t)] += w * row[t];
    }
    for (int64_t t = 0; t < count; ++t)
      out[t] = static_cast<float>(acc[static_cast<std::size_t>(t)]);
  }

 private:
  std::shared_ptr<const Recording> base_;
  std::shared_ptr<const IcaFile> file_;
  mutable std::mutex mutex_;
  mutable std::vector<float> cache_;
  mutable int64_t cachedFirst_ = -1, cachedCount_ = -1;
};

}  // namespace

std::shared_ptr<const Recording> icaActivationRecording(std::shared_ptr<const Recording> base,
                                                        std::shared_ptr<const IcaFile> file) {
  checkIcaMatchesRecording(*base, *file, file->inputFile);
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = base->sourcePath;
  rec->info = base->info;
  rec->annotations = base->annotations;
  int64_t length = std::numeric_limits<int64_t>::max();
  for (const IcaFileChannel& c : file->channels)
    length = std::min(length, base->channels[c.recordingIndex].sampleCount);
  for (int k = 0; k < file->result.components; ++k) {
    ChannelInfo info;
    info.label = info.name = "IC " + std::to_string(k + 1);
    info.type = ChannelType::MISC;
    info.unit = "a.u.";
    info.sampleRate = file->sampleRate;
    info.sampleCount = length;
    rec->channels.push_back(std::move(info));
  }
  addDiagnostic(rec->diagnostics, Severity::Info, "ica.activations",
                "Activations of " + std::to_string(file->result.components) +
                    " independent components (unmixing x (channels - mean)).");
  rec->source = std::make_shared<ActivationSource>(std::move(base), std::move(file));
  return rec;
}

}  // namespace modescope
