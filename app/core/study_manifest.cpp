#include "app/core/study_manifest.h"

#include <sys/stat.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>

#include "app/core/json_writer.h"
#include "engine/core/error.h"
#include "engine/core/fnv1a.h"
#include "engine/core/json_value.h"
#include "engine/core/provenance.h"
#include "engine/core/version.h"
#include "engine/io/atomic_file.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

constexpr int kManifestVersion = 1;

std::string taskName(int index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "task-%04d", index);
  return buf;
}

// What identifies the recording's content without reading it: size and modification time.
std::string fileIdentity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "missing";
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

std::string outputSuffix(const std::string& kind, const StudyRecording& r) {
  if (kind == "emd" || kind == "memd") return "imf";  // modes of the EMD family or MEMD
  if (kind == "ica") return "ica";
  if (kind == "xapen") return "xapen";         // entropy matrices of the channels
  if (kind == "tfr") return "tfr";             // time-frequency images of the channels
  return r.suffix.empty() ? "eeg" : r.suffix;  // a filtered recording keeps its data type
}

void createFolder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw OutputError(dir.string(), "the folder could not be created (" + ec.message() +
                                        "); choose an output folder you can write to");
  }
}

const JsonValue& member(const JsonValue& obj, const char* key, JsonValue::Kind kind,
                        const std::string& path) {
  const JsonValue* v = obj.kind() == JsonValue::Kind::Object ? obj.find(key) : nullptr;
  if (!v || v->kind() != kind) {
    throw InvalidInputError(path, key, v ? v->kindName() : "nothing", JsonValue::kindName(kind),
                            "The study files are damaged; start the study again with "
                            "'modescope-cli study PIPELINE ...'");
  }
  return *v;
}

}  // namespace

std::string studyDir(const std::string& root) { return (fs::path(root) / "study").string(); }
std::string manifestPath(const std::string& root) {
  return (fs::path(studyDir(root)) / "manifest.json").string();
}
std::string studyPipelinePath(const std::string& root) {
  return (fs::path(studyDir(root)) / "pipeline.json").string();
}
std::string taskStatusPath(const std::string& root, int index) {
  return (fs::path(studyDir(root)) / "status" / (taskName(index) + ".json")).string();
}
std::string taskLogPath(const std::string& root, int index) {
  return (fs::path(studyDir(root)) / "logs" / (taskName(index) + ".log")).string();
}
std::string taskRunSummaryPath(const std::string& root, int index) {
  return (fs::path(studyDir(root)) / "runs" / (taskName(index) + ".json")).string();
}
std::string taskWorkDir(const std::string& root, int index) {
  return (fs::path(studyDir(root)) / "work" / taskName(index)).string();
}

std::string studyDescLabel(const std::string& wanted) {
  std::string label;
  for (char c : wanted) {
    if (std::isalnum(static_cast<unsigned char>(c))) label += c;
  }
  if (label.empty()) {
    throw InvalidParameterError("--desc", "'" + wanted + "'",
                                "a label with letters or digits (BIDS labels are alphanumeric)",
                                "Give e.g. --desc iceemdan");
  }
  return label;
}

std::string fnv1aHex(const std::string& text) { return hex16(fnv1a64(text)); }

StudyManifest planStudy(const Pipeline& pipeline, const std::string& pipelineText,
                        std::vector<StudyRecording> recordings, const std::string& root,
                        const std::string& desc, const std::string& backend) {
  StudyManifest m;
  m.root = root;
  m.description = pipeline.description;
  m.desc = desc;
  m.backend = backend;
  std::map<std::string, int> kindCount;
  for (const PipelineStep& s : pipeline.steps) ++kindCount[stepKind(s)];
  for (std::size_t r = 0; r < recordings.size(); ++r) {
    StudyTask t;
    t.index = static_cast<int>(r);
    t.recording = std::move(recordings[r]);
    int lastFilter = 0;
    for (std::size_t i = 0; i < pipeline.steps.size(); ++i) {
      StudyOutput o;
      o.step = static_cast<int>(i + 1);
      o.kind = stepKind(pipeline.steps[i]);
      o.runName = stepOutputName(i, pipeline.steps[i]);
      o.inputStep = lastFilter;
      const std::string label = kindCount[o.kind] > 1 ? desc + std::to_string(o.step) : desc;
      const std::string name =
          t.recording.stem + "_desc-" + label + "_" + outputSuffix(o.kind, t.recording);
      const fs::path folder(t.recording.folder);
      o.file = (folder / (name + ".h5")).generic_string();
      o.sidecar = (folder / (name + ".json")).generic_string();
      if (o.kind == "filter") lastFilter = o.step;
      t.outputs.push_back(std::move(o));
    }
    // Equal hash = same pipeline, backend, build and recording file: the result would be the same.
    t.hash = fnv1aHex(pipelineText + "\n" + backend + "\n" + softwareVersion() + "\n" +
                      t.recording.path + "\n" + fileIdentity(t.recording.path));
    m.tasks.push_back(std::move(t));
  }
  return m;
}

void writeStudyFiles(const StudyManifest& m, const std::string& pipelineText) {
  createFolder(fs::path(studyDir(m.root)) / "status");
  createFolder(fs::path(studyDir(m.root)) / "logs");
  createFolder(fs::path(studyDir(m.root)) / "runs");

  JsonWriter d;
  d.beginObject();
  d.field("Name", "ModeScope derivatives");
  d.field("BIDSVersion", "1.9.0");
  d.field("DatasetType", "derivative");
  d.key("GeneratedBy").beginArray().beginObject();
  // The first GeneratedBy name is part of the folder name (derivatives/modescope/).
  d.field("Name", "modescope");
  d.field("Version", kVersionString);
  d.field("Description", "modescope-cli study: " + m.description);
  d.endObject().endArray();
  if (m.inputKind == "bids") {
    d.key("DatasetLinks").beginObject();
    d.field("raw", fs::relative(m.bidsRoot, m.root).generic_string());
    d.endObject();
  }
  d.endObject();
  writeTextAtomically((fs::path(m.root) / "dataset_description.json").string(), d.str() + "\n",
                      "dataset_description.json");
  writeTextAtomically(studyPipelinePath(m.root), pipelineText, "the study's pipeline copy");

  JsonWriter w;
  w.beginObject();
  w.field("modescope_study", kManifestVersion);
  w.field("root", m.root);
  w.field("pipeline_source", m.pipelineSource);
  w.field("description", m.description);
  w.field("desc", m.desc);
  w.field("backend", m.backend);
  w.field("timeout_s", m.timeoutSeconds);
  w.field("input_kind", m.inputKind);
  w.field("bids_root", m.bidsRoot);
  w.field("software_version", softwareVersion());
  w.key("tasks").beginArray();
  for (const StudyTask& t : m.tasks) {
    w.beginObject();
    w.field("index", t.index);
    w.field("input", t.recording.path);
    w.field("source", t.recording.source);
    w.field("folder", t.recording.folder);
    w.field("stem", t.recording.stem);
    w.field("suffix", t.recording.suffix);
    w.key("entities").beginObject();
    for (const auto& [k, v] : t.recording.entities) w.field(k, v);
    w.endObject();
    w.field("hash", t.hash);
    w.key("outputs").beginArray();
    for (const StudyOutput& o : t.outputs) {
      w.beginObject();
      w.field("step", o.step);
      w.field("kind", o.kind);
      w.field("run_name", o.runName);
      w.field("file", o.file);
      w.field("sidecar", o.sidecar);
      w.field("input_step", o.inputStep);
      w.endObject();
    }
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.endObject();
  writeTextAtomically(manifestPath(m.root), w.str() + "\n", "the study manifest");
}

StudyManifest readManifest(const std::string& root) {
  const std::string path = manifestPath(root);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw InvalidInputError(root, "study/manifest.json", "no study here",
                            "the output folder of an earlier 'modescope-cli study' run",
                            "Start the study with 'modescope-cli study PIPELINE.json --bids ROOT' "
                            "or '--inputs LIST'");
  }
  const JsonValue j = readJsonFile(path);
  using K = JsonValue::Kind;
  StudyManifest m;
  m.root = fs::absolute(root).lexically_normal().string();
  while (m.root.size() > 1 && m.root.back() == '/') m.root.pop_back();
  m.pipelineSource = member(j, "pipeline_source", K::String, path).asString();
  m.description = member(j, "description", K::String, path).asString();
  m.desc = member(j, "desc", K::String, path).asString();
  m.backend = member(j, "backend", K::String, path).asString();
  m.timeoutSeconds = member(j, "timeout_s", K::Number, path).asDouble();
  m.inputKind = member(j, "input_kind", K::String, path).asString();
  m.bidsRoot = member(j, "bids_root", K::String, path).asString();
  for (const JsonValue& tj : member(j, "tasks", K::Array, path).asArray()) {
    StudyTask t;
    t.index = static_cast<int>(member(tj, "index", K::Number, path).asInt64());
    t.recording.path = member(tj, "input", K::String, path).asString();
    t.recording.source = member(tj, "source", K::String, path).asString();
    t.recording.folder = member(tj, "folder", K::String, path).asString();
    t.recording.stem = member(tj, "stem", K::String, path).asString();
    t.recording.suffix = member(tj, "suffix", K::String, path).asString();
    for (const auto& [k, v] : member(tj, "entities", K::Object, path).members())
      t.recording.entities.emplace_back(k, v.kind() == K::String ? v.asString() : "");
    t.hash = member(tj, "hash", K::String, path).asString();
    for (const JsonValue& oj : member(tj, "outputs", K::Array, path).asArray()) {
      StudyOutput o;
      o.step = static_cast<int>(member(oj, "step", K::Number, path).asInt64());
      o.kind = member(oj, "kind", K::String, path).asString();
      o.runName = member(oj, "run_name", K::String, path).asString();
      o.file = member(oj, "file", K::String, path).asString();
      o.sidecar = member(oj, "sidecar", K::String, path).asString();
      o.inputStep = static_cast<int>(member(oj, "input_step", K::Number, path).asInt64());
      t.outputs.push_back(std::move(o));
    }
    if (t.index != static_cast<int>(m.tasks.size())) {
      throw InvalidInputError(path, "tasks", "task index " + std::to_string(t.index),
                              "index " + std::to_string(m.tasks.size()),
                              "The manifest is damaged; start the study again");
    }
    m.tasks.push_back(std::move(t));
  }
  return m;
}

}  // namespace modescope
