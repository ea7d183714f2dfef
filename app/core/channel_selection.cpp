#include "app/core/channel_selection.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

std::optional<std::size_t> parseIndex(std::string_view s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  std::size_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

[[noreturn]] void badItem(const Recording& rec, const std::string& item, const std::string& why) {
  throw InvalidParameterError("channels", "'" + item + "' (" + why + ")",
                              "channel names or labels, or 1-based indices/ranges within 1-" +
                                  std::to_string(rec.channelCount()) +
                                  " (for example C3,C4,Cz or 1-8)",
                              "List the channels with 'modescope-cli info FILE --channels-table'");
}

}  // namespace

std::vector<std::size_t> parseChannelSelection(const Recording& rec, const std::string& text) {
  const std::size_t n = rec.channelCount();
  std::vector<std::size_t> out;
  std::vector<bool> taken(n, false);
  auto add = [&](std::size_t index, const std::string& item) {
    if (taken[index]) {
      badItem(rec, item,
              "channel " + std::to_string(index + 1) + " (" + rec.channels[index].name +
                  ") is already selected");
    }
    taken[index] = true;
    out.push_back(index);
  };
  if (trim(text).empty()) badItem(rec, text, "an empty selection");
  for (const std::string& raw : split(text, ',')) {
    const std::string item = trim(raw);
    if (item.empty()) badItem(rec, text, "an empty item between commas");
    if (auto index = parseIndex(item)) {
      if (*index < 1 || *index > n) badItem(rec, item, "no channel with this index");
      add(*index - 1, item);
      continue;
    }
    if (int found = rec.findChannel(item); found >= 0) {
      add(static_cast<std::size_t>(found), item);
      continue;
    }
    const std::size_t dash = item.find('-');
    if (dash != std::string::npos) {
      auto first = parseIndex(trim(item.substr(0, dash)));
      auto last = parseIndex(trim(item.substr(dash + 1)));
      if (first && last) {
        if (*first < 1 || *last > n || *first > *last) {
          badItem(rec, item, "not an increasing range of existing indices");
        }
        for (std::size_t i = *first; i <= *last; ++i) add(i - 1, item);
        continue;
      }
    }
    badItem(rec, item, "no channel with this name or label");
  }
  return out;
}

std::string describeTimeRange(double startSeconds, double durationSeconds) {
  return durationSeconds < 0
             ? "from " + formatNumber(startSeconds) + " s to the end"
             : formatNumber(durationSeconds) + " s from " + formatNumber(startSeconds) + " s";
}

std::string describeChannels(const Recording& rec, const std::vector<std::size_t>& channels) {
  if (channels.empty()) return "no channels";
  auto name = [&](std::size_t i) {
    return sanitizeUtf8(i < rec.channels.size() ? rec.channels[i].name : "?");
  };
  if (channels.size() <= 8) {
    std::string s;
    for (std::size_t i : channels) s += (s.empty() ? "" : ", ") + name(i);
    return s;
  }
  return std::to_string(channels.size()) + " channels (" + name(channels.front()) + " ... " +
         name(channels.back()) + ")";
}

std::vector<std::size_t> defaultMethodChannels(const Recording& rec, std::string* note,
                                               BadChannels badChannels) {
  std::map<double, std::size_t> perRate;
  std::size_t stim = 0;
  for (const auto& c : rec.channels) {
    if (c.type == ChannelType::STIM)
      ++stim;
    else
      ++perRate[c.sampleRate];
  }
  // Most channels win; among equals the higher rate (the data channels, not housekeeping ones).
  double rate = 0.0;
  std::size_t best = 0;
  for (const auto& [r, count] : perRate) {
    if (count >= best) best = count, rate = r;
  }
  std::vector<std::size_t> out, bad;
  for (std::size_t i = 0; i < rec.channels.size(); ++i) {
    const auto& c = rec.channels[i];
    if (c.type == ChannelType::STIM || c.sampleRate != rate) continue;
    // Marked bad: left out, as MNE's pick_types(exclude="bads").
    (c.bad && badChannels == BadChannels::LeaveOut ? bad : out).push_back(i);
  }
  if (note) {
    note->clear();
    const std::size_t otherRate = rec.channelCount() - stim - out.size() - bad.size();
    if (stim > 0 || otherRate > 0 || !bad.empty()) {
      *note =
          "using the " + std::to_string(out.size()) + " channels at " + formatNumber(rate) + " Hz";
      if (stim > 0) *note += "; left out " + std::to_string(stim) + " trigger/status channel(s)";
      if (otherRate > 0) {
        *note += "; left out " + std::to_string(otherRate) + " channel(s) at other sample rates";
      }
      if (!bad.empty()) *note += "; left out the bad channels " + describeChannels(rec, bad);
      *note += " (select channels with --channels)";
    }
  }
  return out;
}

}  // namespace modescope
