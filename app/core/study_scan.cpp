#include "app/core/study_scan.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "engine/core/error.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

// BIDS data types that hold recordings ModeScope reads, and their file suffixes.
const std::set<std::string> kDataTypes = {"eeg", "meg", "ieeg"};
// The recording files among a data folder's files (BIDS EEG: .edf, .bdf, .vhdr, .set; plus the
// ModeScope HDF5 recording and what BioSig reads). Sidecars (.json, .tsv) and the data halves of
// BrainVision (.eeg, .vmrk) are not recordings.
const std::set<std::string> kRecordingExtensions = {".edf", ".bdf", ".vhdr", ".gdf",
                                                    ".cnt", ".h5",  ".hdf5"};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string dropPrefix(const std::string& value, const std::string& key) {
  const std::string p = key + "-";
  return value.rfind(p, 0) == 0 ? value.substr(p.size()) : value;
}

bool keeps(const std::vector<std::string>& wanted, const std::string& key,
           const std::string& value) {
  if (wanted.empty()) return true;
  for (const std::string& w : wanted) {
    if (dropPrefix(w, key) == value) return true;
  }
  return false;
}

std::string joinValues(const std::set<std::string>& values) {
  std::string s;
  for (const std::string& v : values) s += (s.empty() ? "" : ", ") + v;
  return s.empty() ? "none" : s;
}

std::string stemOf(const std::vector<std::pair<std::string, std::string>>& entities) {
  std::string s;
  for (const auto& [k, v] : entities) s += (s.empty() ? "" : "_") + k + "-" + v;
  return s;
}

}  // namespace

std::string StudyRecording::entity(const std::string& key) const {
  for (const auto& [k, v] : entities) {
    if (k == key) return v;
  }
  return {};
}

bool StudyFilter::empty() const {
  return subjects.empty() && sessions.empty() && tasks.empty() && runs.empty();
}

std::string StudyFilter::describe() const {
  std::string s;
  auto add = [&](const char* what, const std::vector<std::string>& values) {
    if (values.empty()) return;
    std::string v;
    for (const std::string& x : values) v += (v.empty() ? "" : ", ") + x;
    s += (s.empty() ? "" : "; ") + std::string(what) + " " + v;
  };
  add("subject", subjects);
  add("session", sessions);
  add("task", tasks);
  add("run", runs);
  return s.empty() ? "no filter" : s;
}

bool parseBidsName(const std::string& fileName,
                   std::vector<std::pair<std::string, std::string>>* entities,
                   std::string* suffix) {
  const std::string stem = fs::path(fileName).stem().string();
  std::vector<std::string> parts;
  std::size_t from = 0;
  while (true) {
    const std::size_t us = stem.find('_', from);
    parts.push_back(stem.substr(from, us == std::string::npos ? std::string::npos : us - from));
    if (us == std::string::npos) break;
    from = us + 1;
  }
  if (parts.size() < 2) return false;
  std::vector<std::pair<std::string, std::string>> found;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::size_t dash = parts[i].find('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == parts[i].size()) return false;
    found.emplace_back(parts[i].substr(0, dash), parts[i].substr(dash + 1));
  }
  if (found.front().first != "sub") return false;
  if (entities) *entities = std::move(found);
  if (suffix) *suffix = parts.back();
  return true;
}

std::vector<StudyRecording> scanBids(const std::string& rootText, const StudyFilter& filter) {
  std::error_code ec;
  const fs::path root = fs::absolute(fs::path(rootText), ec).lexically_normal();
  if (!fs::is_directory(root, ec)) {
    throw InvalidInputError(rootText, "BIDS root", fs::exists(root, ec) ? "a file" : "no folder",
                            "the folder of a BIDS dataset (with sub-<label> folders)",
                            "Give the dataset's top folder, or list the recordings with --inputs");
  }
  std::vector<StudyRecording> all;
  bool anySubject = false;
  for (const auto& sub : fs::directory_iterator(root, ec)) {
    const std::string subName = sub.path().filename().string();
    if (!sub.is_directory() || subName.rfind("sub-", 0) != 0) continue;
    anySubject = true;
    // sub-XX/<type>/ and sub-XX/ses-YY/<type>/
    std::vector<fs::path> typeParents = {sub.path()};
    for (const auto& ses : fs::directory_iterator(sub.path(), ec)) {
      if (ses.is_directory() && ses.path().filename().string().rfind("ses-", 0) == 0)
        typeParents.push_back(ses.path());
    }
    for (const fs::path& parent : typeParents) {
      for (const auto& type : fs::directory_iterator(parent, ec)) {
        if (!type.is_directory() || !kDataTypes.count(type.path().filename().string())) continue;
        for (const auto& f : fs::directory_iterator(type.path(), ec)) {
          if (!f.is_regular_file()) continue;
          const std::string name = f.path().filename().string();
          if (!kRecordingExtensions.count(lower(f.path().extension().string()))) continue;
          StudyRecording r;
          if (!parseBidsName(name, &r.entities, &r.suffix)) continue;
          if (!kDataTypes.count(r.suffix)) continue;
          r.path = f.path().string();
          const fs::path rel = f.path().lexically_relative(root);
          r.source = "bids:raw:" + rel.generic_string();
          r.folder = rel.parent_path().generic_string();
          r.stem = stemOf(r.entities);
          all.push_back(std::move(r));
        }
      }
    }
  }
  if (!anySubject) {
    throw InvalidInputError(rootText, "BIDS root", "no sub-<label> folder",
                            "a BIDS dataset: sub-<label>/[ses-<label>/]eeg/ folders",
                            "Give the dataset's top folder, or list the recordings with --inputs");
  }
  std::sort(all.begin(), all.end(),
            [](const StudyRecording& a, const StudyRecording& b) { return a.path < b.path; });
  std::vector<StudyRecording> kept;
  std::map<std::string, std::set<std::string>> present;
  for (StudyRecording& r : all) {
    for (const char* key : {"sub", "ses", "task", "run"}) {
      const std::string v = r.entity(key);
      if (!v.empty()) present[key].insert(v);
    }
    if (keeps(filter.subjects, "sub", r.entity("sub")) &&
        keeps(filter.sessions, "ses", r.entity("ses")) &&
        keeps(filter.tasks, "task", r.entity("task")) && keeps(filter.runs, "run", r.entity("run")))
      kept.push_back(std::move(r));
  }
  if (kept.empty()) {
    const std::string there = "subjects " + joinValues(present["sub"]) + "; sessions " +
                              joinValues(present["ses"]) + "; tasks " +
                              joinValues(present["task"]) + "; runs " + joinValues(present["run"]);
    throw InvalidInputError(
        rootText, "recordings",
        all.empty() ? std::string("no EEG/MEG/iEEG recording (sub-*/[ses-*/]eeg/*_eeg.edf, ...)")
                    : "no recording with " + filter.describe() + " (" + std::to_string(all.size()) +
                          " recordings have " + there + ")",
        "at least one recording with the entities asked for",
        "Check --subject, --session, --task and --run against the values listed");
  }
  return kept;
}

std::vector<StudyRecording> listRecordings(const std::vector<std::string>& files) {
  std::vector<StudyRecording> out;
  std::map<std::string, std::string> stems;
  for (const std::string& file : files) {
    std::error_code ec;
    const fs::path p = fs::absolute(fs::path(file), ec).lexically_normal();
    if (!fs::is_regular_file(p, ec)) {
      throw InvalidInputError(file, "recording", fs::exists(p, ec) ? "not a file" : "no such file",
                              "an existing recording file", "Check the list of recordings");
    }
    StudyRecording r;
    r.path = p.string();
    r.source = p.string();
    if (!parseBidsName(p.filename().string(), &r.entities, &r.suffix)) {
      std::string label;
      for (char c : p.stem().string()) {
        if (std::isalnum(static_cast<unsigned char>(c))) label += c;
      }
      if (label.empty()) label = "recording";
      r.entities = {{"rec", label}};
      r.suffix.clear();
    }
    r.stem = stemOf(r.entities);
    const auto [it, fresh] = stems.emplace(r.stem, file);
    if (!fresh) {
      throw InvalidInputError(file, "recording name",
                              "the same derivative name '" + r.stem + "' as '" + it->second + "'",
                              "recordings whose names differ in letters or digits",
                              "Rename one of them, or give them in a BIDS layout");
    }
    out.push_back(std::move(r));
  }
  if (out.empty()) {
    throw InvalidInputError("--inputs", "recordings", "an empty list", "at least one recording");
  }
  return out;
}

std::vector<std::string> readRecordingList(const std::string& listFile) {
  std::ifstream in(listFile);
  if (!in) {
    throw InvalidInputError(listFile, "file", "cannot be opened",
                            "a text file, one recording a line");
  }
  const fs::path base = fs::path(listFile).parent_path();
  std::vector<std::string> files;
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    std::size_t i = 0;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    line.erase(0, i);
    if (line.empty() || line[0] == '#') continue;
    const fs::path p(line);
    files.push_back(p.is_absolute() ? line : (base / p).string());
  }
  return files;
}

}  // namespace modescope
