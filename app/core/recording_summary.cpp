#include "app/core/recording_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "engine/core/text.h"

namespace modescope {
namespace {

// Groups values by count, most frequent first (ties keep the order of first appearance).
template <typename T>
std::vector<std::pair<T, std::size_t>> countGroups(const std::vector<T>& values) {
  std::vector<std::pair<T, std::size_t>> groups;
  for (const auto& v : values) {
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == v; });
    if (it == groups.end())
      groups.emplace_back(v, 1);
    else
      ++it->second;
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return groups;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Terminal columns a UTF-8 string takes (one per code point; wide CJK glyphs are rare in labels).
std::size_t displayWidth(std::string_view s) {
  std::size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

std::string padRight(std::string s, std::size_t width) {
  const std::size_t w = displayWidth(s);
  if (w < width) s.append(width - w, ' ');
  return s;
}

std::string padLeft(std::string s, std::size_t width) {
  const std::size_t w = displayWidth(s);
  if (w < width) s.insert(0, width - w, ' ');
  return s;
}

std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string line(const char* label, const std::string& value) {
  return padRight(std::string(label) + ":", 13) + value + "\n";
}

// A labelled line whose value is word-wrapped at 100 columns under the value column.
std::string wrappedLine(const char* label, const std::string& value) {
  constexpr std::size_t kWidth = 100, kIndent = 13;
  std::string out = padRight(std::string(label) + ":", kIndent);
  std::size_t col = kIndent, pos = 0;
  bool firstWord = true;
  while (pos < value.size()) {
    std::size_t end = value.find(' ', pos);
    if (end == std::string::npos) end = value.size();
    const std::string word = value.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    const std::size_t w = displayWidth(word);
    if (!firstWord && col + 1 + w > kWidth) {
      out += "\n" + std::string(kIndent, ' ');
      col = kIndent;
    } else if (!firstWord) {
      out += ' ';
      ++col;
    }
    out += word;
    col += w;
    firstWord = false;
  }
  return out + "\n";
}

std::string annotationLine(const Annotation& a) {
  std::string s = "  " + padLeft(fixed(a.onset, 3), 10) + " s";
  s += a.duration > 0 ? "  " + padLeft(fixed(a.duration, 3), 8) + " s  " : std::string(13, ' ');
  // One line per annotation: keep multi-line texts on the line.
  std::string text = a.text;
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  text = sanitizeUtf8(text);
  s += text.empty() ? "(no text)" : text;
  return s + "\n";
}

std::string channelTable(const Recording& rec) {
  const std::vector<std::string> header = {"#",    "label",   "name",  "type",    "unit",
                                           "rate", "samples", "range", "position"};
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < rec.channels.size(); ++i) {
    const ChannelInfo& c = rec.channels[i];
    std::string pos = "-";
    if (c.position) {
      pos = fixed(c.position->x, 3) + " " + fixed(c.position->y, 3) + " " + fixed(c.position->z, 3);
    }
    std::string range = "-";
    if (c.physicalMin != 0.0 || c.physicalMax != 0.0) {
      range = formatNumber(c.physicalMin) + ".." + formatNumber(c.physicalMax);
    }
    rows.push_back({std::to_string(i + 1), sanitizeUtf8(c.label), sanitizeUtf8(c.name),
                    channelTypeName(c.type), c.unit.empty() ? "-" : sanitizeUtf8(c.unit),
                    formatNumber(c.sampleRate), std::to_string(c.sampleCount), range, pos});
  }
  std::vector<std::size_t> widths(header.size());
  for (std::size_t k = 0; k < header.size(); ++k) widths[k] = displayWidth(header[k]);
  for (const auto& r : rows) {
    for (std::size_t k = 0; k < r.size(); ++k) widths[k] = std::max(widths[k], displayWidth(r[k]));
  }
  // Numbers right-aligned, text left-aligned.
  const std::vector<bool> rightAlign = {true, false, false, false, false, true, true, false, false};
  auto render = [&](const std::vector<std::string>& r) {
    std::string s;
    for (std::size_t k = 0; k < r.size(); ++k) {
      const bool last = k + 1 == r.size();
      s += "  ";
      s += rightAlign[k] ? padLeft(r[k], widths[k]) : last ? r[k] : padRight(r[k], widths[k]);
    }
    return s + "\n";
  };
  std::string out = render(header);
  for (const auto& r : rows) out += render(r);
  return out;
}

}  // namespace

std::string formatClockDuration(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  const auto totalMs = static_cast<long long>(std::llround(seconds * 1000.0));
  const long long h = totalMs / 3600000, m = totalMs / 60000 % 60, s = totalMs / 1000 % 60,
                  ms = totalMs % 1000;
  char buf[64];
  if (ms == 0)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", h, m, s);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld.%03lld", h, m, s, ms);
  return buf;
}

std::string describeSampleRates(const Recording& rec) {
  std::vector<double> rates;
  for (const auto& c : rec.channels) rates.push_back(c.sampleRate);
  std::string out;
  for (const auto& [rate, n] : countGroups(rates)) {
    if (!out.empty()) out += ", ";
    out += formatNumber(rate) + " Hz (" + plural(n, "channel", "channels") + ")";
  }
  return out.empty() ? "-" : out;
}

std::string formatRecordingSummary(const Recording& rec, const std::string& displayPath,
                                   const SummaryOptions& options) {
  std::string out;
  out += line("File", sanitizeUtf8(displayPath));
  std::string format = rec.info.format.empty() ? "unknown" : rec.info.format;
  if (!rec.info.reader.empty()) format += " (read by " + rec.info.reader + ")";
  out += line("Format", format);
  for (const auto& d : rec.diagnostics) {
    out += wrappedLine(d.severity == Severity::Warning ? "Warning" : "Note",
                       sanitizeUtf8(d.message) + (d.code.empty() ? "" : " [" + d.code + "]"));
  }

  const RecordingInfo& info = rec.info;
  std::vector<std::string> patient;
  if (!info.patient.empty()) patient.push_back(sanitizeUtf8(info.patient));
  if (!info.patientCode.empty()) patient.push_back("code " + sanitizeUtf8(info.patientCode));
  if (!info.sex.empty()) patient.push_back("sex " + sanitizeUtf8(info.sex));
  if (!info.birthdate.empty()) patient.push_back("born " + sanitizeUtf8(info.birthdate));
  if (!patient.empty()) {
    std::string joined;
    for (const auto& p : patient) joined += (joined.empty() ? "" : ", ") + p;
    out += line("Patient", joined);
  }
  std::vector<std::string> recording;
  if (!info.recordingId.empty()) recording.push_back(sanitizeUtf8(info.recordingId));
  if (!info.technician.empty()) recording.push_back("technician " + sanitizeUtf8(info.technician));
  if (!info.equipment.empty()) recording.push_back("equipment " + sanitizeUtf8(info.equipment));
  if (!info.adminCode.empty()) recording.push_back("admin code " + sanitizeUtf8(info.adminCode));
  if (!recording.empty()) {
    std::string joined;
    for (const auto& p : recording) joined += (joined.empty() ? "" : ", ") + p;
    out += line("Recording", joined);
  }
  out += line("Start", info.startDateTime.empty() ? "unknown" : sanitizeUtf8(info.startDateTime));
  const double duration = rec.duration();
  out += line("Duration", formatNumber(duration) + " s (" + formatClockDuration(duration) + ")");

  std::vector<std::string> types, units;
  for (const auto& c : rec.channels) {
    types.emplace_back(channelTypeName(c.type));
    units.push_back(c.unit.empty() ? "(none)" : sanitizeUtf8(c.unit));
  }
  std::string typeText;
  for (const auto& [t, n] : countGroups(types)) {
    typeText += (typeText.empty() ? "" : ", ") + t + " " + std::to_string(n);
  }
  out += line("Channels",
              std::to_string(rec.channelCount()) + (typeText.empty() ? "" : " (" + typeText + ")"));
  out += line("Rates", describeSampleRates(rec));
  std::string unitText;
  for (const auto& [u, n] : countGroups(units)) {
    unitText += (unitText.empty() ? "" : ", ") + u + " (" + std::to_string(n) + ")";
  }
  out += line("Units", unitText.empty() ? "-" : unitText);

  out += line("Annotations", std::to_string(rec.annotations.size()));
  const std::size_t shown = options.allAnnotations
                                ? rec.annotations.size()
                                : std::min(rec.annotations.size(), options.annotationPreview);
  for (std::size_t i = 0; i < shown; ++i) out += annotationLine(rec.annotations[i]);
  if (shown < rec.annotations.size()) {
    out += "  ... " + std::to_string(rec.annotations.size() - shown) +
           " more (--annotations lists all)\n";
  }
  if (options.channelTable && !rec.channels.empty()) {
    out += "Channel table:\n";
    out += channelTable(rec);
  }
  return out;
}

void writeRecordingJson(JsonWriter& w, const Recording& rec, const std::string& displayPath) {
  const RecordingInfo& info = rec.info;
  w.beginObject();
  w.field("info_version", 1);
  w.field("file", displayPath);
  w.field("format", info.format);
  w.field("reader", info.reader);
  if (info.startDateTime.empty())
    w.nullField("start_time");
  else
    w.field("start_time", info.startDateTime);
  w.field("duration_s", rec.duration());
  w.key("patient").beginObject();
  w.field("name", info.patient).field("code", info.patientCode);
  w.field("sex", info.sex).field("birthdate", info.birthdate);
  w.endObject();
  w.key("recording").beginObject();
  w.field("id", info.recordingId).field("technician", info.technician);
  w.field("equipment", info.equipment).field("admin_code", info.adminCode);
  w.endObject();
  w.field("channel_count", rec.channelCount());
  w.field("annotation_count", rec.annotations.size());

  w.key("channels").beginArray();
  for (std::size_t i = 0; i < rec.channels.size(); ++i) {
    const ChannelInfo& c = rec.channels[i];
    w.beginObject();
    w.field("index", i + 1);
    w.field("label", c.label).field("name", c.name);
    w.field("type", channelTypeName(c.type)).field("unit", c.unit);
    w.field("sample_rate", c.sampleRate).field("samples", c.sampleCount);
    w.field("physical_min", c.physicalMin).field("physical_max", c.physicalMax);
    w.field("prefilter", c.prefilter).field("transducer", c.transducer);
    if (c.position) {
      w.key("position").beginObject();
      w.field("x", c.position->x).field("y", c.position->y).field("z", c.position->z);
      w.endObject();
    } else {
      w.nullField("position");
    }
    w.endObject();
  }
  w.endArray();

  w.key("annotations").beginArray();
  for (const auto& a : rec.annotations) {
    w.beginObject().field("onset", a.onset).field("duration", a.duration).field("text", a.text);
    w.endObject();
  }
  w.endArray();

  w.key("diagnostics").beginArray();
  for (const auto& d : rec.diagnostics) {
    w.beginObject().field("severity", severityName(d.severity)).field("code", d.code);
    w.field("message", d.message).endObject();
  }
  w.endArray();
  w.endObject();
}

}  // namespace modescope
