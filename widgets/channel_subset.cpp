#include "widgets/channel_subset.h"

#include <algorithm>

namespace modescope {
namespace {

// Forwards reads to the full recording's source with the channel index translated.
class SubsetSource final : public SignalSource {
 public:
  SubsetSource(std::shared_ptr<const Recording> full, std::vector<int> toFull)
      : full_(std::move(full)), toFull_(std::move(toFull)) {}
  void read(std::size_t channel, int64_t first, int64_t count, float* out) const override {
    full_->source->read(static_cast<std::size_t>(toFull_.at(channel)), first, count, out);
  }

 private:
  std::shared_ptr<const Recording> full_;
  std::vector<int> toFull_;
};

}  // namespace

int ChannelSubset::toSubset(int fullIndex) const {
  const auto it = std::find(toFull.begin(), toFull.end(), fullIndex);
  return it == toFull.end() ? -1 : static_cast<int>(it - toFull.begin());
}

ChannelSubset makeChannelSubset(std::shared_ptr<const Recording> full,
                                const std::vector<bool>& keep) {
  ChannelSubset subset;
  if (!full) return subset;
  const int n = static_cast<int>(full->channelCount());
  for (int i = 0; i < n; ++i) {
    if (static_cast<size_t>(i) >= keep.size() || keep[static_cast<size_t>(i)]) {
      subset.toFull.push_back(i);
    }
  }
  if (static_cast<int>(subset.toFull.size()) == n) {
    subset.recording = std::move(full);
    return subset;
  }
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = full->sourcePath;
  rec->info = full->info;
  rec->annotations = full->annotations;
  rec->diagnostics = full->diagnostics;
  for (int i : subset.toFull) rec->channels.push_back(full->channels[static_cast<size_t>(i)]);
  rec->source = std::make_shared<SubsetSource>(full, subset.toFull);
  subset.recording = std::move(rec);
  return subset;
}

}  // namespace modescope
