// Recordings in HDF5, ModeScope schema "modescope-recording/1" (docs/hdf5-schema.md).
#include "engine/io/hdf5_recording.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/hdf5_diagnostics.h"
#include "engine/io/hdf5_provenance.h"
#include "engine/io/hdf5_schema.h"
#include "engine/io/hdf5_util.h"

namespace modescope {
namespace {

// 64 Ki samples (256 KiB of float32) per chunk: large enough for deflate to pay off, small enough
// that a browser page (a few seconds of one channel) decompresses little more than it shows.
constexpr hsize_t kChunkSamples = 65536;
// Samples per channel per write call; progress and cancellation are checked between calls.
constexpr int64_t kWriteBlockSamples = 1 << 18;
constexpr int kDeflateLevel = 4;  // most of level 9's gain on EEG at a fraction of its time

const char* kRewriteRemedy = "Write the file again from the original recording";

// ---------------------------------------------------------------------------------------------
// Writing

void writeInfo(H5::Group& g, const Recording& rec) {
  const RecordingInfo& i = rec.info;
  h5::setAttribute(g, "source_path", rec.sourcePath);
  h5::setAttribute(g, "source_format", i.format);
  h5::setAttribute(g, "source_reader", i.reader);
  h5::setAttribute(g, "patient", i.patient);
  h5::setAttribute(g, "patient_code", i.patientCode);
  h5::setAttribute(g, "sex", i.sex);
  h5::setAttribute(g, "birthdate", i.birthdate);
  h5::setAttribute(g, "recording_id", i.recordingId);
  h5::setAttribute(g, "technician", i.technician);
  h5::setAttribute(g, "equipment", i.equipment);
  h5::setAttribute(g, "admin_code", i.adminCode);
  h5::setAttribute(g, "start_datetime", i.startDateTime);
  // Informational copies for people browsing the file; readers use the tables.
  h5::setAttribute(g, "channel_count", static_cast<int64_t>(rec.channels.size()));
  h5::setAttribute(g, "duration_s", rec.duration());
}

void writeChannelTable(H5::Group& parent, const Recording& rec) {
  H5::Group g = parent.createGroup("channels");
  std::vector<std::string> label, name, type, unit, prefilter, transducer, status;
  std::vector<double> rate, pmin, pmax, px, py, pz;
  std::vector<int64_t> count;
  std::vector<int32_t> dmin, dmax;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const ChannelInfo& c : rec.channels) {
    label.push_back(c.label);
    name.push_back(c.name);
    type.push_back(channelTypeName(c.type));
    unit.push_back(c.unit);
    prefilter.push_back(c.prefilter);
    transducer.push_back(c.transducer);
    status.push_back(c.bad ? "bad" : "good");
    rate.push_back(c.sampleRate);
    count.push_back(c.sampleCount);
    pmin.push_back(c.physicalMin);
    pmax.push_back(c.physicalMax);
    dmin.push_back(c.digitalMin);
    dmax.push_back(c.digitalMax);
    px.push_back(c.position ? c.position->x : nan);
    py.push_back(c.position ? c.position->y : nan);
    pz.push_back(c.position ? c.position->z : nan);
  }
  h5::writeStrings(g, "label", label);
  h5::writeStrings(g, "name", name);
  h5::writeStrings(g, "type", type);
  h5::writeStrings(g, "unit", unit);
  h5::writeDoubles(g, "sample_rate", rate);
  h5::writeInt64s(g, "sample_count", count);
  h5::writeDoubles(g, "physical_min", pmin);
  h5::writeDoubles(g, "physical_max", pmax);
  h5::writeInt32s(g, "digital_min", dmin);
  h5::writeInt32s(g, "digital_max", dmax);
  h5::writeStrings(g, "prefilter", prefilter);
  h5::writeStrings(g, "transducer", transducer);
  h5::writeStrings(g, "status", status);
  h5::writeDoubles(g, "position_x", px);
  h5::writeDoubles(g, "position_y", py);
  h5::writeDoubles(g, "position_z", pz);
}

void writeAnnotations(H5::Group& parent, const std::vector<Annotation>& annotations) {
  H5::Group g = parent.createGroup("annotations");
  std::vector<double> onset, duration;
  std::vector<std::string> text;
  for (const Annotation& a : annotations) {
    onset.push_back(a.onset);
    duration.push_back(a.duration);
    text.push_back(sanitizeUtf8(a.text));
  }
  h5::writeDoubles(g, "onset", onset);
  h5::writeDoubles(g, "duration", duration);
  h5::writeStrings(g, "text", text);
}

void writeSignals(H5::Group& parent, const Recording& rec, JobContext& ctx) {
  H5::Group g = parent.createGroup("signals");
  int64_t total = 0;
  for (const auto& c : rec.channels) total += std::max<int64_t>(c.sampleCount, 0);
  int64_t done = 0;
  std::vector<float> buffer;
  const std::size_t n = rec.channels.size();
  for (std::size_t i = 0; i < n; ++i) {
    const ChannelInfo& c = rec.channels[i];
    const hsize_t length = static_cast<hsize_t>(std::max<int64_t>(c.sampleCount, 0));
    H5::DSetCreatPropList dcpl;
    if (length > 0) {
      const hsize_t chunk = std::min(length, kChunkSamples);
      dcpl.setChunk(1, &chunk);
      dcpl.setShuffle();
      dcpl.setDeflate(kDeflateLevel);
      // A checksum per chunk: damaged samples become a read error, not silently wrong values.
      dcpl.setFletcher32();
    }
    H5::DataSpace fileSpace(1, &length);
    H5::DataSet ds = g.createDataSet(std::to_string(i), H5::PredType::IEEE_F32LE, fileSpace, dcpl);
    h5::setAttribute(ds, "label", c.label);
    h5::setAttribute(ds, "name", c.name);
    h5::setAttribute(ds, "unit", c.unit);
    h5::setAttribute(ds, "sample_rate", c.sampleRate);
    const std::string stage =
        "writing channel " + std::to_string(i + 1) + " of " + std::to_string(n);
    for (int64_t first = 0; first < static_cast<int64_t>(length); first += kWriteBlockSamples) {
      const int64_t count = std::min<int64_t>(kWriteBlockSamples, length - first);
      buffer.resize(static_cast<std::size_t>(count));
      rec.source->read(i, first, count, buffer.data());
      const hsize_t offset = static_cast<hsize_t>(first), cnt = static_cast<hsize_t>(count);
      H5::DataSpace slab = ds.getSpace();
      slab.selectHyperslab(H5S_SELECT_SET, &cnt, &offset);
      H5::DataSpace memSpace(1, &cnt);
      ds.write(buffer.data(), H5::PredType::NATIVE_FLOAT, memSpace, slab);
      done += count;
      ctx.progress(total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0, stage);
      ctx.checkpoint();
    }
    if (length == 0) {
      ctx.progress(total > 0 ? static_cast<double>(done) / static_cast<double>(total)
                             : static_cast<double>(i + 1) / static_cast<double>(n),
                   stage);
      ctx.checkpoint();
    }
  }
}

std::string fileNameOf(const H5::H5Location& g) {
  try {
    return g.getFileName();
  } catch (const H5::Exception&) {
    return "(HDF5 file)";
  }
}

// ---------------------------------------------------------------------------------------------
// Reading

struct ParsedRecording {
  std::shared_ptr<Recording> recording;
  std::vector<H5::DataSet> signals;  // one per channel, validated against the table
};

ParsedRecording parseRecording(const h5::Reader& r, const H5::Group& g) {
  checkRecordingSchema(r, g);
  ParsedRecording out;
  out.recording = std::make_shared<Recording>();
  Recording& rec = *out.recording;

  RecordingInfo& info = rec.info;
  rec.sourcePath = r.stringAttribute(g, "source_path", "");
  info.format = r.stringAttribute(g, "source_format", "");
  info.reader = r.stringAttribute(g, "source_reader", "");
  info.patient = r.stringAttribute(g, "patient", "");
  info.patientCode = r.stringAttribute(g, "patient_code", "");
  info.sex = r.stringAttribute(g, "sex", "");
  info.birthdate = r.stringAttribute(g, "birthdate", "");
  info.recordingId = r.stringAttribute(g, "recording_id", "");
  info.technician = r.stringAttribute(g, "technician", "");
  info.equipment = r.stringAttribute(g, "equipment", "");
  info.adminCode = r.stringAttribute(g, "admin_code", "");
  info.startDateTime = r.stringAttribute(g, "start_datetime", "");

  // Channel table: parallel 1-D datasets, one row per channel; "label" fixes the row count.
  H5::Group ch = r.group(g, "channels");
  const auto label = r.strings(ch, "label");
  const auto n = static_cast<int64_t>(label.size());
  const auto name = r.strings(ch, "name", n);
  const auto type = r.strings(ch, "type", n);
  const auto unit = r.strings(ch, "unit", n);
  const auto rate = r.doubles(ch, "sample_rate", n);
  const auto count = r.int64s(ch, "sample_count", n);
  const auto pmin = r.doubles(ch, "physical_min", n);
  const auto pmax = r.doubles(ch, "physical_max", n);
  const auto dmin = r.int64s(ch, "digital_min", n);
  const auto dmax = r.int64s(ch, "digital_max", n);
  const auto prefilter = r.strings(ch, "prefilter", n);
  const auto transducer = r.strings(ch, "transducer", n);
  const auto px = r.doubles(ch, "position_x", n);
  const auto py = r.doubles(ch, "position_y", n);
  const auto pz = r.doubles(ch, "position_z", n);
  // Added in ModeScope 0.6 (the user's bad-channel marks); older files have every channel good.
  const auto status = r.hasChild(ch, "status") ? r.strings(ch, "status", n)
                                               : std::vector<std::string>(label.size(), "good");

  H5::Group sig = r.group(g, "signals");
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    ChannelInfo c;
    c.label = label[k];
    c.name = name[k];
    if (auto t = parseChannelType(type[k])) {
      c.type = *t;
    } else {
      c.type = ChannelType::MISC;
      addDiagnostic(rec.diagnostics, Severity::Warning, "hdf5.channelType",
                    "Channel " + std::to_string(i + 1) + " (" + c.label +
                        ") has the unknown type '" + type[k] + "'; it is treated as MISC.");
    }
    c.unit = unit[k];
    c.sampleRate = rate[k];
    if (!(std::isfinite(c.sampleRate) && c.sampleRate > 0)) {
      r.fail(h5::childPath(ch, "sample_rate"),
             formatNumber(c.sampleRate) + " for channel " + std::to_string(i + 1),
             "a positive sample rate in Hz", kRewriteRemedy);
    }
    c.sampleCount = count[k];
    c.physicalMin = pmin[k];
    c.physicalMax = pmax[k];
    constexpr int64_t lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
    if (dmin[k] < lo || dmin[k] > hi || dmax[k] < lo || dmax[k] > hi) {
      r.fail(h5::childPath(ch, "digital_min"),
             std::to_string(dmin[k]) + ".." + std::to_string(dmax[k]) + " for channel " +
                 std::to_string(i + 1),
             "32-bit integers", kRewriteRemedy);
    }
    c.digitalMin = static_cast<int>(dmin[k]);
    c.digitalMax = static_cast<int>(dmax[k]);
    c.prefilter = prefilter[k];
    c.transducer = transducer[k];
    c.bad = status[k] == "bad";
    if (std::isfinite(px[k]) && std::isfinite(py[k]) && std::isfinite(pz[k])) {
      c.position = Position3{px[k], py[k], pz[k]};
    }

    const std::string dsName = std::to_string(i);
    const std::string dsPath = h5::childPath(sig, dsName);
    H5::DataSet ds = r.dataset(sig, dsName);
    const int64_t length = r.length1d(ds, dsPath);
    if (length != c.sampleCount) {
      r.fail(dsPath, std::to_string(length) + " samples",
             std::to_string(c.sampleCount) + " samples (channels/sample_count of channel " +
                 std::to_string(i + 1) + ")",
             kRewriteRemedy);
    }
    H5T_class_t cls = H5T_NO_CLASS;
    try {
      cls = ds.getTypeClass();
    } catch (const H5::Exception& e) {
      r.fail(dsPath, "an unreadable datatype (HDF5: " + e.getDetailMsg() + ")", "float32 samples",
             kRewriteRemedy);
    }
    if (cls != H5T_FLOAT && cls != H5T_INTEGER) {
      r.fail(dsPath, "non-numeric samples", "float32 samples", kRewriteRemedy);
    }
    rec.channels.push_back(std::move(c));
    out.signals.push_back(std::move(ds));
  }

  // Annotations and diagnostics may be absent (then there are none).
  if (r.hasChild(g, "annotations")) {
    H5::Group a = r.group(g, "annotations");
    const auto onset = r.doubles(a, "onset");
    const auto m = static_cast<int64_t>(onset.size());
    const auto duration = r.doubles(a, "duration", m);
    const auto text = r.strings(a, "text", m);
    for (std::size_t i = 0; i < onset.size(); ++i) {
      rec.annotations.push_back({onset[i], duration[i], text[i]});
    }
    std::stable_sort(rec.annotations.begin(), rec.annotations.end(),
                     [](const Annotation& x, const Annotation& y) { return x.onset < y.onset; });
  }
  for (Diagnostic& d : h5::readDiagnostics(r, g)) rec.diagnostics.push_back(std::move(d));
  return out;
}

void readSamples(const h5::Reader& r, const H5::DataSet& ds, const std::string& object,
                 int64_t first, int64_t count, float* out) {
  try {
    const hsize_t offset = static_cast<hsize_t>(first), cnt = static_cast<hsize_t>(count);
    H5::DataSpace slab = ds.getSpace();
    slab.selectHyperslab(H5S_SELECT_SET, &cnt, &offset);
    H5::DataSpace memSpace(1, &cnt);
    ds.read(out, H5::PredType::NATIVE_FLOAT, memSpace, slab);
  } catch (const H5::Exception& e) {
    r.fail(object,
           "samples " + std::to_string(first) + ".." + std::to_string(first + count) +
               " that HDF5 cannot read (" + e.getDetailMsg() + ")",
           "readable, complete sample data",
           "The file is probably truncated or damaged; " + std::string(kRewriteRemedy));
  }
}

// Reads hyperslabs on demand. The file stays open while the source lives; every HDF5 call,
// including closing, happens under the global HDF5 lock.
class Hdf5FileSource final : public SignalSource {
 public:
  struct State {
    H5::H5File file;
    std::vector<H5::DataSet> signals;
    std::vector<int64_t> lengths;
  };
  Hdf5FileSource(std::string path, std::unique_ptr<State> state)
      : reader_(std::move(path)), state_(std::move(state)) {}
  ~Hdf5FileSource() override {
    h5::Lock lock(h5::hdf5Mutex());
    state_.reset();
  }
  void read(std::size_t channel, int64_t first, int64_t count, float* out) const override {
    if (channel >= state_->signals.size() || first < 0 || count < 0 ||
        first + count > state_->lengths[channel]) {
      throw std::out_of_range("Hdf5FileSource::read outside the channel");
    }
    if (count == 0) return;
    h5::Lock lock(h5::hdf5Mutex());
    readSamples(reader_, state_->signals[channel], "/signals/" + std::to_string(channel), first,
                count, out);
  }

 private:
  h5::Reader reader_;
  std::unique_ptr<State> state_;
};

bool fileExists(const std::string& path, bool& isDirectory) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  isDirectory = S_ISDIR(st.st_mode);
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

void checkRecordingSchema(const h5::Reader& r, const H5::Group& g) {
  const std::string where = h5::childPath(g, "@" + std::string(kSchemaAttribute));
  if (!r.hasAttribute(g, kSchemaAttribute)) {
    r.fail(where, "no attribute 'modescope_schema' (this HDF5 file was not written by ModeScope)",
           std::string("the attribute modescope_schema = \"") + kRecordingSchema + "\"",
           "Open the original recording (EDF, BDF, ...) instead, or lay the data out as "
           "docs/hdf5-schema.md describes");
  }
  const std::string schema = r.stringAttribute(g, kSchemaAttribute);
  const SchemaVersion v = parseSchema(schema);
  if (v.kind == SchemaKind::Session) {
    r.fail(where, "\"" + schema + "\" (a ModeScope session file)",
           std::string("a recording (\"") + kRecordingSchema + "\")",
           "Open it as a session (File > Open Session) instead of as a recording");
  }
  if (v.kind != SchemaKind::Recording) {
    r.fail(where, "\"" + schema + "\"", std::string("\"") + kRecordingSchema + "\"",
           "This HDF5 file follows another schema; open the original recording instead");
  }
  checkSchemaNotNewer(r, where, schema, v.version, kRecordingSchemaVersion,
                      "Update ModeScope to read this file");
}

bool isModeScopeHdf5(const std::string& path) {
  bool isDir = false;
  if (!fileExists(path, isDir) || isDir) return false;
  const std::optional<std::string> s = rootSchemaAttribute(path);
  return s && parseSchema(*s).kind == SchemaKind::Recording;
}

std::shared_ptr<Recording> openHdf5Recording(const std::string& path) {
  h5::Lock lock(h5::hdf5Mutex());
  h5::initialiseHdf5();
  h5::Reader r(path);
  auto state = std::make_unique<Hdf5FileSource::State>();
  openHdf5ForReading(r, state->file);
  ParsedRecording parsed;
  try {
    H5::Group root = state->file.openGroup("/");
    parsed = parseRecording(r, root);
  } catch (const H5::Exception& e) {
    r.fail("/", "a file HDF5 cannot read (" + e.getDetailMsg() + ")",
           "a readable ModeScope HDF5 file", kRewriteRemedy);
  }
  std::shared_ptr<Recording> rec = parsed.recording;
  for (const auto& c : rec->channels) state->lengths.push_back(c.sampleCount);
  state->signals = std::move(parsed.signals);

  // The file is now the source; where it came from is kept as a diagnostic.
  if (!rec->info.format.empty() || !rec->sourcePath.empty()) {
    addDiagnostic(rec->diagnostics, Severity::Info, "hdf5.source",
                  "Written by ModeScope from " +
                      (rec->info.format.empty() ? std::string("a recording")
                                                : "a " + rec->info.format + " recording") +
                      (rec->info.reader.empty() ? "" : " read by " + rec->info.reader) +
                      (rec->sourcePath.empty() ? "" : " ('" + rec->sourcePath + "')") + ".");
  }
  rec->sourcePath = path;
  rec->info.format = "HDF5 (ModeScope)";
  rec->info.reader = "HDF5";
  rec->source = std::make_shared<Hdf5FileSource>(path, std::move(state));
  return rec;
}

void writeRecordingGroup(const Recording& rec, H5::Group& group, const Provenance& provenance,
                         JobContext& ctx) {
  h5::Lock lock(h5::hdf5Mutex());
  h5::initialiseHdf5();
  bool hasSamples = false;
  for (const auto& c : rec.channels) hasSamples = hasSamples || c.sampleCount > 0;
  if (hasSamples && !rec.source) {
    throw InvalidParameterError("recording", "channels with samples but no sample source",
                                "a recording whose SignalSource is set");
  }
  h5::setAttribute(group, kSchemaAttribute, kRecordingSchema);
  h5::setAttribute(group, "modescope_version", softwareVersion());
  writeInfo(group, rec);
  writeChannelTable(group, rec);
  writeAnnotations(group, rec.annotations);
  h5::writeDiagnostics(group, rec.diagnostics);
  h5::writeProvenance(group, provenance);
  writeSignals(group, rec, ctx);
}

void writeRecordingToGroup(const Recording& rec, H5::Group& group, const Provenance& provenance,
                           JobContext& ctx) {
  h5::Lock lock(h5::hdf5Mutex());
  try {
    writeRecordingGroup(rec, group, provenance, ctx);
  } catch (const H5::Exception& e) {
    throw OutputError(fileNameOf(group),
                      "HDF5 could not write the recording (" + e.getFuncName() + ": " +
                          e.getDetailMsg() +
                          "). Check free disk space and that the folder is writable");
  }
}

std::shared_ptr<Recording> readRecordingFromGroup(const H5::Group& group, const std::string& path) {
  h5::Lock lock(h5::hdf5Mutex());
  h5::initialiseHdf5();
  h5::Reader r(path);
  try {
    ParsedRecording parsed = parseRecording(r, group);
    std::vector<std::vector<float>> data;
    data.reserve(parsed.signals.size());
    for (std::size_t i = 0; i < parsed.signals.size(); ++i) {
      const int64_t n = parsed.recording->channels[i].sampleCount;
      std::vector<float> v(static_cast<std::size_t>(n));
      if (n > 0) {
        readSamples(r, parsed.signals[i], h5::childPath(group, "signals/" + std::to_string(i)), 0,
                    n, v.data());
      }
      data.push_back(std::move(v));
    }
    parsed.recording->source = std::make_shared<InMemorySource>(std::move(data));
    return parsed.recording;
  } catch (const H5::Exception& e) {
    r.fail(h5::childPath(group, ""), "a group HDF5 cannot read (" + e.getDetailMsg() + ")",
           "a readable ModeScope recording group", kRewriteRemedy);
  } catch (const std::bad_alloc&) {
    r.fail(h5::childPath(group, "signals"), "more samples than the memory available holds",
           "a recording that fits in memory",
           "If the file is not damaged, open the recording file itself, which is read in pages");
  }
}

// ---------------------------------------------------------------------------------------------

H5::FileAccPropList readAccess() {
  H5::FileAccPropList fapl;
  // Keep HDF5's file locking, but do not fail on file systems that cannot lock (NFS, some
  // container mounts): our writers never share a file (they write a fresh temporary one).
  H5Pset_file_locking(fapl.getId(), true, true);
  return fapl;
}

H5::FileAccPropList writeAccess() {
  H5::FileAccPropList fapl = readAccess();
  // The HDF5 1.8 file format: its superblock and object headers carry checksums, so damaged
  // metadata is reported instead of misread, and HDF5 1.8 or newer (MATLAB, h5py) reads it.
  fapl.setLibverBounds(H5F_LIBVER_V18, H5F_LIBVER_V18);
  return fapl;
}

void openHdf5ForReading(const h5::Reader& r, H5::H5File& file) {
  const std::string& path = r.file();
  bool isDir = false;
  if (!fileExists(path, isDir)) {
    throw InvalidInputError(path, "", "no such file", "an existing HDF5 file",
                            "Check the path and the file name");
  }
  if (isDir) {
    throw InvalidInputError(path, "", "a folder", "an HDF5 file", "Choose a file, not a folder");
  }
  const htri_t isHdf5 = H5Fis_hdf5(path.c_str());
  if (isHdf5 == 0) {
    throw InvalidInputError(path, "file signature", "no HDF5 signature",
                            "an HDF5 file (signature \\x89HDF\\r\\n\\x1a\\n)",
                            "Open the file with the reader for its own format");
  }
  if (isHdf5 < 0) {
    throw InvalidInputError(path, "", "a file that cannot be read", "a readable HDF5 file",
                            "Check that the file exists and that you may read it");
  }
  try {
    file.openFile(path, H5F_ACC_RDONLY, readAccess());
  } catch (const H5::Exception& e) {
    throw InvalidInputError(path, "HDF5 superblock",
                            "a file HDF5 cannot open (" + e.getDetailMsg() + ")",
                            "a complete HDF5 file",
                            "The file is probably truncated or damaged; write it again from the "
                            "original recording");
  }
}

}  // namespace modescope
