#include "engine/io/sample_plausibility.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>

namespace modescope {
namespace {

enum Failure : unsigned { kPinned = 1, kBeyondRange = 2, kRough = 4, kJump = 8 };

const char* failureText(unsigned bit) {
  switch (bit) {
    case kPinned:
      return "values pinned at the digital limit";
    case kBeyondRange:
      return "values beyond the physical range of the header";
    case kRough:
      return "noise across the whole physical range";
    default:
      return "an amplitude jump of more than 20 times";
  }
}

bool physiological(ChannelType t) {
  return t == ChannelType::EEG || t == ChannelType::EOG || t == ChannelType::ECG ||
         t == ChannelType::EMG;
}

struct CheckedChannel {
  std::size_t index = 0;
  int64_t perRecord = 0;  // samples of one record
  double low = 0, high = 0, tolerance = 0;
  bool digitised = false;  // stored as integers with a digital range (EDF, BDF, GDF)
};

// The failures of one record of one channel (without kJump, which needs the other records);
// *roughness receives the standard deviation of the sample-to-sample differences.
unsigned judgeRecord(const CheckedChannel& c, const float* x, int64_t n, double* roughness) {
  const double range = c.high - c.low;
  int64_t pinned = 0, beyond = 0;
  const double margin = 0.01 * range;
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    if (std::abs(v - c.high) <= c.tolerance || std::abs(v - c.low) <= c.tolerance) ++pinned;
    if (v > c.high + margin || v < c.low - margin || !std::isfinite(v)) ++beyond;
  }
  double sum = 0, sumSq = 0;
  for (int64_t i = 1; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - x[i - 1];
    if (!std::isfinite(d)) continue;
    sum += d;
    sumSq += d * d;
  }
  const double m = n > 1 ? static_cast<double>(n - 1) : 1.0;
  const double mean = sum / m;
  *roughness = std::sqrt(std::max(0.0, sumSq / m - mean * mean));
  unsigned f = 0;
  if (pinned >= kPinnedFraction * static_cast<double>(n) && c.digitised) f |= kPinned;
  if (beyond > kBeyondRangeFraction * static_cast<double>(n)) f |= kBeyondRange;
  // A float-stored channel's range is what its writer measured, not an amplifier's span: a
  // noisy but real channel (EMG on T7) then spans it, so roughness says nothing there.
  if (*roughness > kRoughnessOfRange * range && c.digitised) f |= kRough;
  return f;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// The failure most frequent in `bits` (one entry per record), as text.
std::string mostFrequentFailure(const std::vector<unsigned>& bits) {
  std::map<unsigned, int> counts;
  for (unsigned b : bits) {
    for (unsigned bit : {kPinned, kBeyondRange, kRough, kJump}) {
      if (b & bit) ++counts[bit];
    }
  }
  unsigned best = kRough;
  int bestCount = -1;
  for (const auto& [bit, n] : counts) {
    if (n > bestCount) best = bit, bestCount = n;
  }
  return failureText(best);
}

}  // namespace

PlausibilityReport checkSamplePlausibility(const Recording& rec,
                                           const PlausibilityOptions& options) {
  PlausibilityReport report;
  if (!rec.source) return report;
  const double recordSeconds = options.recordSeconds > 0 ? options.recordSeconds : 1.0;
  std::vector<CheckedChannel> channels;
  int64_t records = -1;
  for (std::size_t i = 0; i < rec.channels.size(); ++i) {
    const ChannelInfo& info = rec.channels[i];
    if (!physiological(info.type) || !(info.physicalMax > info.physicalMin)) continue;
    const auto perRecord = static_cast<int64_t>(std::llround(info.sampleRate * recordSeconds));
    if (perRecord < 2 || info.sampleCount < perRecord) continue;
    CheckedChannel c;
    c.index = i;
    c.perRecord = perRecord;
    c.low = info.physicalMin;
    c.high = info.physicalMax;
    const double range = c.high - c.low;
    const int steps = info.digitalMax - info.digitalMin;
    // Half a quantisation step; a float-stored channel without digital range gets 1e-6 of range.
    c.tolerance = steps > 0 ? 0.5 * range / steps : 1e-6 * range;
    c.digitised = steps > 0;
    channels.push_back(c);
    const int64_t n = info.sampleCount / perRecord;
    records = records < 0 ? n : std::min(records, n);
  }
  if (channels.empty() || records <= 0) return report;

  int64_t samplesPerRecord = 0;
  for (const auto& c : channels) samplesPerRecord += c.perRecord;
  const int64_t affordable = std::max<int64_t>(1, options.sampleBudget / samplesPerRecord);
  const int64_t stride = std::max<int64_t>(1, (records + affordable - 1) / affordable);
  std::vector<int64_t> checked;
  for (int64_t r = 0; r < records; r += stride) checked.push_back(r);
  const auto k = static_cast<int>(checked.size());
  report.recordsChecked = k;
  report.recordStride = static_cast<int>(stride);
  report.channelsChecked = static_cast<int>(channels.size());

  // failures[c][j]: the failures of channel c in checked record j.
  std::vector<std::vector<unsigned>> failures(channels.size(), std::vector<unsigned>(k, 0));
  std::vector<float> buffer;
  for (std::size_t ci = 0; ci < channels.size(); ++ci) {
    const CheckedChannel& c = channels[ci];
    std::vector<double> roughness(static_cast<std::size_t>(k), 0.0);
    // Consecutive records are read together (one call per 64 records) when every record is
    // checked; spaced ones one by one.
    const int group = stride == 1 ? 64 : 1;
    for (int j = 0; j < k; j += group) {
      const int count = std::min(group, k - j);
      buffer.resize(static_cast<std::size_t>(count * c.perRecord));
      rec.source->read(c.index, checked[static_cast<std::size_t>(j)] * c.perRecord,
                       count * c.perRecord, buffer.data());
      for (int g = 0; g < count; ++g) {
        failures[ci][static_cast<std::size_t>(j + g)] =
            judgeRecord(c, buffer.data() + g * c.perRecord, c.perRecord,
                        &roughness[static_cast<std::size_t>(j + g)]);
      }
    }
    // The channel's own scale before each record: the median roughness of the (up to)
    // kJumpBaselineRecords preceding records that passed every test, so a jump is measured
    // against what came before it and stays flagged while it lasts.
    std::deque<double> recent;
    for (int j = 0; j < k; ++j) {
      unsigned& f = failures[ci][static_cast<std::size_t>(j)];
      const double r = roughness[static_cast<std::size_t>(j)];
      const double scale = median(std::vector<double>(recent.begin(), recent.end()));
      if (scale > 0 && r > kJumpFactor * scale) f |= kJump;
      if (f == 0 && r > 0) {
        recent.push_back(r);
        if (static_cast<int>(recent.size()) > kJumpBaselineRecords) recent.pop_front();
      }
    }
  }

  std::vector<bool> damaged(static_cast<std::size_t>(k), false);
  for (int j = 0; j < k; ++j) {
    int failing = 0;
    for (const auto& f : failures) failing += f[static_cast<std::size_t>(j)] != 0 ? 1 : 0;
    damaged[static_cast<std::size_t>(j)] = 2 * failing >= report.channelsChecked;
    report.damagedRecords += damaged[static_cast<std::size_t>(j)] ? 1 : 0;
  }
  // The first damaged record after which at least 80 % of the checked records are damaged.
  int after = 0;  // damaged records in [j, k)
  int first = -1;
  for (int j = k - 1; j >= 0; --j) {
    after += damaged[static_cast<std::size_t>(j)] ? 1 : 0;
    if (damaged[static_cast<std::size_t>(j)] && 5 * after >= 4 * (k - j)) first = j;
  }
  if (first >= 0) {
    report.damagedFromRecord = checked[static_cast<std::size_t>(first)];
    report.damagedFromSeconds = static_cast<double>(report.damagedFromRecord) * recordSeconds;
    std::vector<unsigned> inDamage;
    for (int j = first; j < k; ++j) {
      if (!damaged[static_cast<std::size_t>(j)]) continue;
      for (const auto& f : failures) inDamage.push_back(f[static_cast<std::size_t>(j)]);
    }
    report.damageReason = mostFrequentFailure(inDamage);
    return report;
  }
  for (std::size_t ci = 0; ci < channels.size(); ++ci) {
    // A channel is named for what is wrong in itself (pinned, beyond range, noise); a jump alone
    // may be a channel that started quiet (an electrode connected late).
    const auto failing = std::count_if(failures[ci].begin(), failures[ci].end(),
                                       [](unsigned f) { return (f & ~unsigned{kJump}) != 0; });
    if (2 * failing > k) {
      const ChannelInfo& info = rec.channels[channels[ci].index];
      report.implausibleChannels.push_back((info.name.empty() ? info.label : info.name) + " (" +
                                           mostFrequentFailure(failures[ci]) + ")");
    }
  }
  return report;
}

void addPlausibilityDiagnostics(const PlausibilityReport& report, Diagnostics& diagnostics) {
  if (report.damagedFromRecord >= 0) {
    char when[64];
    std::snprintf(when, sizeof when, "%.3g s", report.damagedFromSeconds);
    const std::string about = report.recordStride > 1 ? "about " : "";
    // Why, and what to do, by what the damaged records show.
    const std::string& why = report.damageReason;
    const std::string remedy =
        why == failureText(kPinned)
            ? "a saturated amplifier, or samples outside the digital range the header declares "
              "(the reader clips them to it); check the recording or re-export it"
        : why == failureText(kJump)
            ? "the scale changes abruptly; the file may have lost or gained bytes (copy it again "
              "from its source)"
            : "the file may have lost or gained bytes (copy it again from its source)";
    addDiagnostic(diagnostics, Severity::Warning, "data.damaged",
                  "The data of this file look damaged from " + about + "record " +
                      std::to_string(report.damagedFromRecord + 1) + " (" + when +
                      "): most channels show " + why + ". What is drawn from there is not the " +
                      "recording: " + remedy + ".");
  }
  if (!report.implausibleChannels.empty()) {
    std::string list;
    for (const auto& c : report.implausibleChannels) list += (list.empty() ? "" : ", ") + c;
    addDiagnostic(diagnostics, Severity::Warning, "data.implausibleChannels",
                  "Implausible samples in most records of " +
                      std::to_string(report.implausibleChannels.size()) + " channel" +
                      (report.implausibleChannels.size() == 1 ? "" : "s") + ": " + list +
                      ". Check the electrodes, or mark them bad.");
  }
}

}  // namespace modescope
