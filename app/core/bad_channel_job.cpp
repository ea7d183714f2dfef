#include "app/core/bad_channel_job.h"

#include "app/core/channel_selection.h"

namespace modescope {

BadChannelReport suggestBadChannelsOf(const Recording& rec, const BadChannelCriteria& criteria,
                                      ComputeBackend& backend, JobContext& ctx, double startSeconds,
                                      double durationSeconds) {
  const std::vector<std::size_t> candidates = defaultMethodChannels(rec);
  std::vector<std::size_t> eeg;
  for (std::size_t i : candidates)
    if (rec.channels[i].type == ChannelType::EEG) eeg.push_back(i);
  const std::vector<std::size_t>& measured = eeg.empty() ? candidates : eeg;
  ctx.progress(0.0, "reading the channels");
  const SignalBlock block = extractBlock(rec, measured, startSeconds, durationSeconds);
  ctx.checkpoint();
  JobContext measureCtx = ctx.sub(0.1, 1.0);
  return suggestBadChannels(block, criteria, backend, measureCtx);
}

}  // namespace modescope
