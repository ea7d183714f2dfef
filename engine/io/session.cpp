// Session files: HDF5, schema "modescope-session/1" (docs/hdf5-schema.md, "Session files").
#include "engine/io/session.h"

#include <H5Cpp.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/job_context.h"
#include "engine/io/hdf5_ica.h"
#include "engine/io/hdf5_provenance.h"
#include "engine/io/hdf5_recording.h"
#include "engine/io/hdf5_schema.h"
#include "engine/io/hdf5_util.h"

namespace modescope {
namespace {

void writeAnnotationTable(H5::Group& parent, const std::string& name,
                          const std::vector<Annotation>& annotations) {
  H5::Group g = parent.createGroup(name);
  std::vector<double> onset, duration;
  std::vector<std::string> text;
  for (const Annotation& a : annotations) {
    onset.push_back(a.onset);
    duration.push_back(a.duration);
    text.push_back(a.text);
  }
  h5::writeDoubles(g, "onset", onset);
  h5::writeDoubles(g, "duration", duration);
  h5::writeStrings(g, "text", text);
}

std::vector<Annotation> readAnnotationTable(const h5::Reader& r, const H5::Group& parent,
                                            const std::string& name) {
  std::vector<Annotation> out;
  if (!r.hasChild(parent, name)) return out;
  H5::Group g = r.group(parent, name);
  const auto onset = r.doubles(g, "onset");
  const auto n = static_cast<int64_t>(onset.size());
  const auto duration = r.doubles(g, "duration", n);
  const auto text = r.strings(g, "text", n);
  for (std::size_t i = 0; i < onset.size(); ++i) out.push_back({onset[i], duration[i], text[i]});
  return out;
}

// /ica_results/<i>: the decomposition (the ICA file's layout) with the title, the rejected
// components (0-based) and the ICA file's path as attributes and a dataset.
void writeIcaResults(H5::Group& root, const std::vector<IcaSessionEntry>& entries) {
  H5::Group all = root.createGroup("ica_results");
  h5::setAttribute(all, "count", static_cast<int64_t>(entries.size()));
  JobContext quiet;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const IcaSessionEntry& e = entries[i];
    if (!e.file) {
      throw InvalidParameterError("session ICA result " + std::to_string(i + 1), "no decomposition",
                                  "a decomposition to save");
    }
    H5::Group g = all.createGroup(std::to_string(i));
    writeIcaToGroup(*e.file, g, quiet);
    h5::setAttribute(g, "title", e.title);
    h5::setAttribute(g, "ica_path", e.icaPath);
    h5::writeInt32s(g, "rejected_components",
                    std::vector<int32_t>(e.rejected.begin(), e.rejected.end()));
  }
}

std::vector<IcaSessionEntry> readIcaResults(const h5::Reader& r, const H5::Group& root) {
  std::vector<IcaSessionEntry> out;
  if (!r.hasChild(root, "ica_results")) return out;
  H5::Group all = r.group(root, "ica_results");
  const int64_t count = r.intAttribute(all, "count");
  if (count < 0 || count > 10000) {
    r.fail("/ica_results/@count", std::to_string(count), "a count from 0 to 10000",
           "The session file is damaged; save the session again");
  }
  for (int64_t i = 0; i < count; ++i) {
    H5::Group g = r.group(all, std::to_string(i));
    IcaSessionEntry e;
    auto file = std::make_shared<IcaFile>(readIcaFromGroup(g, r.file()));
    e.title = r.stringAttribute(g, "title", "");
    e.icaPath = r.stringAttribute(g, "ica_path", "");
    for (int64_t k : r.int64s(g, "rejected_components")) {
      if (k < 0 || k >= file->result.components) {
        r.fail(h5::childPath(g, "rejected_components"), std::to_string(k),
               "component indices 0.." + std::to_string(file->result.components - 1),
               "The session file is damaged; save the session again");
      }
      e.rejected.push_back(static_cast<int>(k));
    }
    e.file = std::move(file);
    out.push_back(std::move(e));
  }
  return out;
}

void writeSession(const Session& s, H5::Group& root) {
  h5::setAttribute(root, kSchemaAttribute, kSessionSchema);
  h5::setAttribute(root, "modescope_version", softwareVersion());
  h5::setAttribute(root, "recording_path", s.recordingPath);

  H5::Group view = root.createGroup("view");
  const ViewState& v = s.view;
  h5::setAttribute(view, "page_start_s", v.pageStart);
  h5::setAttribute(view, "page_length_s", v.pageLength);
  h5::setAttribute(view, "microvolts_per_division", v.microvoltsPerDivision);
  h5::setAttribute(view, "first_visible_channel", static_cast<int64_t>(v.firstVisibleChannel));
  h5::setAttribute(view, "visible_channel_count", static_cast<int64_t>(v.visibleChannelCount));
  h5::setAttribute(view, "montage", v.montage);
  h5::setAttribute(view, "display_filter", v.displayFilter);
  h5::writeStrings(view, "selected_channels", v.selectedChannels);

  H5::Group marks = root.createGroup("marks");
  h5::writeStrings(marks, "bad_channels", s.marks.badChannels);
  writeAnnotationTable(marks, "annotations", s.marks.userAnnotations);
  if (s.marks.fileAnnotations)
    writeAnnotationTable(marks, "file_annotations", *s.marks.fileAnnotations);

  H5::Group jobs = root.createGroup("jobs");
  h5::setAttribute(jobs, "count", static_cast<int64_t>(s.jobs.size()));
  JobContext quiet;
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const JobRecord& j = s.jobs[i];
    H5::Group g = jobs.createGroup(std::to_string(i));
    h5::setAttribute(g, "title", j.title);
    h5::setAttribute(g, "state", j.state);
    h5::setAttribute(g, "message", j.message);
    h5::writeProvenance(g, j.provenance);
    if (j.resultRecording) {
      H5::Group result = g.createGroup("result");
      writeRecordingGroup(*j.resultRecording, result, j.provenance, quiet);
    }
  }
  writeIcaResults(root, s.icaResults);
  if (!s.historyPipeline.empty()) h5::setAttribute(root, "history_pipeline", s.historyPipeline);
  h5::writeProvenance(root, s.provenance);
}

void checkSessionSchema(const h5::Reader& r, const H5::Group& root) {
  const std::string where = "/@" + std::string(kSchemaAttribute);
  const std::string expected = std::string("modescope_schema = \"") + kSessionSchema + "\"";
  if (!r.hasAttribute(root, kSchemaAttribute)) {
    r.fail(where, "no attribute 'modescope_schema' (not a ModeScope file)", expected,
           "Choose a session file saved by ModeScope (File > Save Session)");
  }
  const std::string schema = r.stringAttribute(root, kSchemaAttribute);
  const SchemaVersion v = parseSchema(schema);
  if (v.kind == SchemaKind::Recording) {
    r.fail(where, "\"" + schema + "\" (a ModeScope recording, not a session)", expected,
           "Open it as a recording (File > Open) instead of as a session");
  }
  if (v.kind != SchemaKind::Session) {
    r.fail(where, "\"" + schema + "\"", expected,
           "Choose a session file saved by ModeScope (File > Save Session)");
  }
  checkSchemaNotNewer(r, where, schema, v.version, kSessionSchemaVersion,
                      "Update ModeScope to open this session");
}

Session readSession(const h5::Reader& r, const H5::Group& root) {
  checkSessionSchema(r, root);
  Session s;
  s.recordingPath = r.stringAttribute(root, "recording_path", "");

  H5::Group view = r.group(root, "view");
  ViewState& v = s.view;
  v.pageStart = r.doubleAttribute(view, "page_start_s", v.pageStart);
  v.pageLength = r.doubleAttribute(view, "page_length_s", v.pageLength);
  v.microvoltsPerDivision =
      r.doubleAttribute(view, "microvolts_per_division", v.microvoltsPerDivision);
  v.firstVisibleChannel =
      static_cast<int>(r.intAttribute(view, "first_visible_channel", v.firstVisibleChannel));
  v.visibleChannelCount =
      static_cast<int>(r.intAttribute(view, "visible_channel_count", v.visibleChannelCount));
  v.montage = r.stringAttribute(view, "montage", v.montage);
  v.displayFilter = r.stringAttribute(view, "display_filter", v.displayFilter);
  if (r.hasChild(view, "selected_channels")) {
    v.selectedChannels = r.strings(view, "selected_channels");
  }

  if (r.hasChild(root, "marks")) {
    H5::Group marks = r.group(root, "marks");
    if (r.hasChild(marks, "bad_channels")) s.marks.badChannels = r.strings(marks, "bad_channels");
    s.marks.userAnnotations = readAnnotationTable(r, marks, "annotations");
    if (r.hasChild(marks, "file_annotations"))
      s.marks.fileAnnotations = readAnnotationTable(r, marks, "file_annotations");
  }

  H5::Group jobs = r.group(root, "jobs");
  const int64_t count = r.intAttribute(jobs, "count");
  if (count < 0 || count > 1000000) {
    r.fail("/jobs/@count", std::to_string(count), "a job count from 0 to 1000000",
           "The session file is damaged; save the session again");
  }
  for (int64_t i = 0; i < count; ++i) {
    H5::Group g = r.group(jobs, std::to_string(i));
    JobRecord j;
    j.title = r.stringAttribute(g, "title", "");
    j.state = r.stringAttribute(g, "state", "");
    j.message = r.stringAttribute(g, "message", "");
    j.provenance = h5::readProvenance(r, g);
    if (r.hasChild(g, "result")) {
      H5::Group result = r.group(g, "result");
      j.resultRecording = readRecordingFromGroup(result, r.file());
    }
    s.jobs.push_back(std::move(j));
  }
  s.icaResults = readIcaResults(r, root);
  s.historyPipeline = r.stringAttribute(root, "history_pipeline", "");
  s.provenance = h5::readProvenance(r, root);
  return s;
}

}  // namespace

void saveSession(const Session& session, const std::string& path) {
  writeHdf5FileAtomically(path, "the session",
                          [&](H5::Group& root) { writeSession(session, root); });
}

Session loadSession(const std::string& path) {
  // No dataObject: a session is small, so memory failures keep their own type as before.
  return readHdf5FileAs(path,
                        {"session", "a readable ModeScope session",
                         "The file may be damaged; save the session again", ""},
                        readSession);
}

}  // namespace modescope
