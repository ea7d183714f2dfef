#include "engine/io/bids_channels.h"

#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/atomic_file.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

// BIDS's type codes are ModeScope's names except for trigger channels (BIDS "TRIG").
std::string bidsType(ChannelType t) { return t == ChannelType::STIM ? "TRIG" : channelTypeName(t); }

// Tabs and line breaks would break the table; BIDS cells hold neither.
std::string cell(const std::string& s) {
  std::string out = sanitizeUtf8(s);
  for (char& c : out)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return out.empty() ? "n/a" : out;
}

}  // namespace

std::string bidsChannelsPathFor(const std::string& recordingPath) {
  const fs::path p(recordingPath);
  std::string stem = p.stem().string();
  for (const char* suffix : {"_eeg", "_ieeg", "_meg"}) {
    const std::string s(suffix);
    if (stem.size() > s.size() && stem.compare(stem.size() - s.size(), s.size(), s) == 0) {
      stem.resize(stem.size() - s.size());
      break;
    }
  }
  return (p.parent_path() / (stem + "_channels.tsv")).string();
}

std::string bidsChannelsTsv(const Recording& rec) {
  std::string t =
      "name\ttype\tunits\tsampling_frequency\tlow_cutoff\thigh_cutoff\tstatus\t"
      "status_description\n";
  for (const ChannelInfo& c : rec.channels) {
    t += cell(c.name.empty() ? c.label : c.name) + '\t' + bidsType(c.type) + '\t' + cell(c.unit) +
         '\t' + formatNumber(c.sampleRate) + "\tn/a\tn/a\t" + (c.bad ? "bad" : "good") + '\t' +
         (c.bad ? "marked bad in ModeScope" : "n/a") + '\n';
  }
  return t;
}

void writeBidsChannelsTsv(const Recording& rec, const std::string& path) {
  writeTextAtomically(path, bidsChannelsTsv(rec), "the BIDS channels table");
}

std::vector<std::string> readBidsBadChannels(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw InvalidInputError(path, "file", "cannot be read", "a readable BIDS channels.tsv");
  }
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(trim(line), '\t');
  int nameColumn = -1, statusColumn = -1;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "name") nameColumn = static_cast<int>(i);
    if (header[i] == "status") statusColumn = static_cast<int>(i);
  }
  if (nameColumn < 0) {
    throw InvalidInputError(path, "line 1", "no \"name\" column",
                            "a BIDS channels.tsv header (name, type, units, ...)");
  }
  std::vector<std::string> bad;
  if (statusColumn < 0) return bad;  // optional in BIDS: every channel good
  int lineNumber = 1;
  while (std::getline(in, line)) {
    ++lineNumber;
    if (trim(line).empty()) continue;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> cells = split(line, '\t');
    if (static_cast<int>(cells.size()) <= std::max(nameColumn, statusColumn)) {
      throw InvalidInputError(path, "line " + std::to_string(lineNumber),
                              std::to_string(cells.size()) + " cells",
                              std::to_string(header.size()) + " tab-separated cells");
    }
    if (toLower(trim(cells[static_cast<std::size_t>(statusColumn)])) == "bad")
      bad.push_back(trim(cells[static_cast<std::size_t>(nameColumn)]));
  }
  return bad;
}

std::size_t applyBidsChannelStatus(Recording& rec, const std::string& path) {
  std::size_t flagged = 0;
  for (const std::string& name : readBidsBadChannels(path)) {
    const int i = rec.findChannel(name);
    if (i < 0 || rec.channels[static_cast<std::size_t>(i)].bad) continue;
    rec.channels[static_cast<std::size_t>(i)].bad = true;
    ++flagged;
  }
  return flagged;
}

void applyBidsSidecarIfPresent(Recording& rec, const std::string& recordingPath) {
  const std::string sidecar = bidsChannelsPathFor(recordingPath);
  std::error_code ec;
  if (!fs::is_regular_file(sidecar, ec)) return;
  try {
    const std::size_t n = applyBidsChannelStatus(rec, sidecar);
    if (n > 0) {
      addDiagnostic(
          rec.diagnostics, Severity::Info, "bids.channelStatus",
          std::to_string(n) + " channel(s) marked bad by " + fs::path(sidecar).filename().string());
    }
  } catch (const Error& e) {
    addDiagnostic(rec.diagnostics, Severity::Warning, "bids.channelStatus",
                  std::string("the channel status of ") + fs::path(sidecar).filename().string() +
                      " was not applied: " + e.what());
  }
}

}  // namespace modescope
