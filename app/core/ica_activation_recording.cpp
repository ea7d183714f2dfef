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
      : base_(std::move(base)), file_(std::move(file)) {
    pages_.reserve(kPages);
  }

  void read(std::size_t component, int64_t first, int64_t count, float* out) const override {
    const IcaResult& r = file_->result;
    const std::size_t c = file_->channels.size();
    std::lock_guard lock(mutex_);
    const std::vector<float>& centred = centredChannels(first, count);
    std::vector<double> acc(static_cast<std::size_t>(count), 0.0);
    for (std::size_t i = 0; i < c; ++i) {
      const double w = r.unmixing(static_cast<int>(component), static_cast<int>(i));
      const float* row = centred.data() + i * static_cast<std::size_t>(count);
      for (int64_t t = 0; t < count; ++t) acc[static_cast<std::size_t>(t)] += w * row[t];
    }
    for (int64_t t = 0; t < count; ++t)
      out[t] = static_cast<float>(acc[static_cast<std::size_t>(t)]);
  }

 private:
  struct Page {
    int64_t first = -1, count = -1;
    std::vector<float> centred;  // channels x count, channel-major, mean removed
    uint64_t used = 0;
  };
  // A few pages: the browser's page and its read-ahead (another thread) alternate, and each
  // page is needed once per component; with one entry they would evict each other.
  static constexpr std::size_t kPages = 4;

  // Call with mutex_ held.
  const std::vector<float>& centredChannels(int64_t first, int64_t count) const {
    ++clock_;
    for (Page& p : pages_) {
      if (p.first == first && p.count == count) {
        p.used = clock_;
        return p.centred;
      }
    }
    Page* slot = nullptr;
    if (pages_.size() < kPages) {
      slot = &pages_.emplace_back();
    } else {
      slot = &*std::min_element(pages_.begin(), pages_.end(),
                                [](const Page& a, const Page& b) { return a.used < b.used; });
    }
    const std::size_t c = file_->channels.size();
    slot->centred.assign(c * static_cast<std::size_t>(count), 0.0f);
    for (std::size_t i = 0; i < c; ++i) {
      const std::vector<float> x =
          base_->readChannel(file_->channels[i].recordingIndex, first, count);
      const auto mean = static_cast<float>(file_->result.mean[i]);
      float* row = slot->centred.data() + i * static_cast<std::size_t>(count);
      for (std::size_t t = 0; t < x.size(); ++t) row[t] = x[t] - mean;
    }
    slot->first = first;
    slot->count = count;
    slot->used = clock_;
    return slot->centred;
  }

  std::shared_ptr<const Recording> base_;
  std::shared_ptr<const IcaFile> file_;
  mutable std::mutex mutex_;
  mutable std::vector<Page> pages_;
  mutable uint64_t clock_ = 0;
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
