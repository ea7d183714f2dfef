// EMD results in HDF5, schema "modescope-emd/1" (docs/hdf5-schema.md, "EMD result files").
#include "engine/io/hdf5_emd.h"

#include <H5Cpp.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/hdf5_params.h"
#include "engine/io/hdf5_provenance.h"
#include "engine/io/hdf5_schema.h"
#include "engine/io/hdf5_util.h"

namespace modescope {
namespace {

constexpr const char* kEmdSchemaPrefix = "modescope-emd/";
constexpr const char* kEmdSchema = "modescope-emd/1";
constexpr int kEmdSchemaVersion = 1;

// As the recording writer: 64 Ki samples per chunk, shuffle + deflate 4 + Fletcher-32.
constexpr hsize_t kChunkValues = 65536;
constexpr int kDeflateLevel = 4;

// Names under /hht that are datasets of the grid, not channel groups.
const std::set<std::string>& reservedHhtNames() {
  static const std::set<std::string> kNames = {"frequency_edges", "time_edges", "time_edges_s",
                                               "imf_selection"};
  return kNames;
}

const char* kRewriteRemedy = "Run the decomposition again to write a new file";

// "IMF 1", ..., "IMF K", "residue".
std::vector<std::string> rowNames(int rows) {
  std::vector<std::string> names;
  for (int r = 0; r + 1 < rows; ++r) names.push_back("IMF " + std::to_string(r + 1));
  if (rows > 0) names.push_back("residue");
  return names;
}

// A group name for each channel: its name ('/' is the HDF5 path separator, "." and ".." are
// links to groups), unique among the channels and distinct from the grid datasets under /hht.
std::vector<std::string> groupNames(const std::vector<EmdFileChannel>& channels) {
  std::set<std::string> used = reservedHhtNames();
  std::vector<std::string> out;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    std::string base = channels[i].name.empty() ? channels[i].label : channels[i].name;
    if (base.empty()) base = "channel " + std::to_string(channels[i].recordingIndex + 1);
    std::replace(base.begin(), base.end(), '/', '_');
    if (base == "." || base == "..") base = "_" + base;
    std::string name = base;
    for (int k = 2; used.count(name); ++k) name = base + "_" + std::to_string(k);
    used.insert(name);
    out.push_back(name);
  }
  return out;
}

H5::DataSet createFloatMatrix(H5::Group& g, const std::string& name, hsize_t rows, hsize_t cols) {
  const hsize_t dims[2] = {rows, cols};
  H5::DSetCreatPropList dcpl;
  if (rows > 0 && cols > 0) {
    // Whole rows per chunk (one IMF, or enough spectrum rows for ~64 Ki values), so reading one
    // IMF or one spectrum band decompresses little else.
    const hsize_t colChunk = std::min(cols, kChunkValues);
    const hsize_t rowChunk = std::clamp<hsize_t>(kChunkValues / colChunk, 1, rows);
    const hsize_t chunk[2] = {rowChunk, colChunk};
    dcpl.setChunk(2, chunk);
    dcpl.setShuffle();
    dcpl.setDeflate(kDeflateLevel);
    dcpl.setFletcher32();
  }
  return g.createDataSet(name, H5::PredType::IEEE_F32LE, H5::DataSpace(2, dims), dcpl);
}

void writeMatrixRow(H5::DataSet& ds, hsize_t row, hsize_t cols, const float* values) {
  if (cols == 0) return;
  H5::DataSpace fileSpace = ds.getSpace();
  const hsize_t start[2] = {row, 0}, count[2] = {1, cols};
  fileSpace.selectHyperslab(H5S_SELECT_SET, count, start);
  H5::DataSpace memSpace(2, count);
  ds.write(values, H5::PredType::NATIVE_FLOAT, memSpace, fileSpace);
}

void writeDiagnosticsTable(H5::Group& parent, const Diagnostics& emd, const Diagnostics* hht) {
  H5::Group g = parent.createGroup("diagnostics");
  std::vector<std::string> stage, severity, code, message;
  auto add = [&](const Diagnostics& d, const char* s) {
    for (const Diagnostic& x : d) {
      stage.push_back(s);
      severity.push_back(severityName(x.severity));
      code.push_back(x.code);
      message.push_back(x.message);
    }
  };
  add(emd, "emd");
  if (hht) add(*hht, "hht");
  h5::writeStrings(g, "stage", stage);
  h5::writeStrings(g, "severity", severity);
  h5::writeStrings(g, "code", code);
  h5::writeStrings(g, "message", message);
}

// The rule in words beside its declared fields (written by writeParamAttributes).
void writeStopDescription(H5::Group& g, const std::string& prefix, const StopRule& r) {
  h5::setAttribute(g, prefix + "description", describeStopRule(r));
}

void checkArguments(const Recording& rec, const EmdResult& modes, const HhtResult* hht) {
  for (const EmdChannelModes& c : modes.channels) {
    if (c.channel >= rec.channelCount()) {
      throw InvalidParameterError(
          "modes channel", std::to_string(c.channel),
          "a channel index of the recording (0.." + std::to_string(rec.channelCount()) + ")");
    }
    if (c.rows < 1 ||
        c.data.size() != static_cast<std::size_t>(c.rows) *
                             static_cast<std::size_t>(std::max<int64_t>(modes.samples, 0))) {
      throw InvalidParameterError(
          "modes of channel " + rec.channels[c.channel].name,
          std::to_string(c.data.size()) + " values in " + std::to_string(c.rows) + " rows",
          "rows x " + std::to_string(modes.samples) + " samples");
    }
  }
  if (!hht) return;
  if (hht->channels.size() != modes.channels.size() || hht->samples != modes.samples) {
    throw InvalidParameterError("Hilbert-Huang result",
                                std::to_string(hht->channels.size()) + " channels of " +
                                    std::to_string(hht->samples) + " samples",
                                "the modes' " + std::to_string(modes.channels.size()) +
                                    " channels of " + std::to_string(modes.samples) + " samples");
  }
  const std::size_t bins = hht->frequencyEdges.size() > 0 ? hht->frequencyEdges.size() - 1 : 0;
  const std::size_t cols = hht->timeEdges.size() > 0 ? hht->timeEdges.size() - 1 : 0;
  for (std::size_t i = 0; i < hht->channels.size(); ++i) {
    const HhtChannel& c = hht->channels[i];
    if (c.channel != modes.channels[i].channel || c.spectrum.size() != bins * cols ||
        c.marginal.size() != bins) {
      throw InvalidParameterError("Hilbert-Huang result of channel " + std::to_string(i + 1),
                                  "a channel or grid that differs from the modes",
                                  "the modes' channels in order, spectrum bins x time bins");
    }
  }
}

void writeEmdGroup(H5::Group& root, const EmdResult& modes, const std::vector<EmdFileChannel>& ch,
                   const std::function<void()>& rowDone) {
  H5::Group g = root.createGroup("emd");
  const EmdParams& p = modes.params;
  h5::writeParamAttributes(g, emdParamTable(), p);
  writeStopDescription(g, "stop_", p.stop);
  writeStopDescription(g, "noise_stop_", p.noiseStop);
  h5::setAttribute(g, "sample_rate", modes.sampleRate);
  h5::setAttribute(g, "first_sample", modes.firstSample);
  h5::setAttribute(
      g, "start_s",
      modes.sampleRate > 0 ? static_cast<double>(modes.firstSample) / modes.sampleRate : 0.0);
  h5::setAttribute(g, "samples", modes.samples);
  h5::setAttribute(g, "channel_count", static_cast<int64_t>(modes.channels.size()));

  const hsize_t n = static_cast<hsize_t>(std::max<int64_t>(modes.samples, 0));
  for (std::size_t i = 0; i < modes.channels.size(); ++i) {
    const EmdChannelModes& m = modes.channels[i];
    H5::Group cg = g.createGroup(ch[i].group);
    h5::setAttribute(cg, "name", ch[i].name);
    h5::setAttribute(cg, "label", ch[i].label);
    h5::setAttribute(cg, "unit", ch[i].unit);
    h5::setAttribute(cg, "recording_index", static_cast<int64_t>(ch[i].recordingIndex));
    h5::setAttribute(cg, "imf_count", static_cast<int64_t>(m.imfCount()));
    h5::setAttribute(cg, "degenerate_members", m.degenerateMembers);
    H5::DataSet ds = createFloatMatrix(cg, "modes", static_cast<hsize_t>(m.rows), n);
    h5::setAttribute(ds, "units", ch[i].unit);
    for (int r = 0; r < m.rows; ++r) {
      writeMatrixRow(ds, static_cast<hsize_t>(r), n, m.row(r, modes.samples));
      rowDone();
    }
    h5::writeStrings(cg, "row_names", rowNames(m.rows));
    // One count per IMF (the residue is not sifted); a backend that reports fewer is padded
    // with 0, one that reports a count for the residue too has it left out.
    std::vector<int32_t> sifts(static_cast<std::size_t>(m.imfCount()), 0);
    for (std::size_t k = 0; k < sifts.size() && k < m.sifts.size(); ++k) sifts[k] = m.sifts[k];
    h5::writeInt32s(cg, "sifts", sifts);
  }
}

std::string squaredUnit(const std::string& unit) {
  return unit.empty() ? std::string() : unit + "^2";
}

void writeHhtGroup(H5::Group& root, const HhtResult& hht, const std::vector<EmdFileChannel>& ch,
                   const std::function<void()>& rowDone) {
  H5::Group g = root.createGroup("hht");
  const HhtParams& p = hht.params;
  const bool energy = p.quantity == HhtQuantity::Energy;
  const std::string quantity = std::get<std::string>(hhtParamTable().find("quantity")->get(p));
  h5::writeParamAttributes(g, hhtParamTable(), p);
  h5::setAttribute(g, "sample_rate", hht.sampleRate);
  h5::setAttribute(g, "first_sample", hht.firstSample);
  h5::setAttribute(g, "samples", hht.samples);
  h5::writeInt64s(g, "imf_selection", std::vector<int64_t>(p.imfs.begin(), p.imfs.end()));
  h5::writeDoubles(g, "frequency_edges", hht.frequencyEdges);
  h5::writeInt64s(g, "time_edges", hht.timeEdges);
  std::vector<double> edgesSeconds;
  for (int64_t e : hht.timeEdges) {
    edgesSeconds.push_back(
        hht.sampleRate > 0 ? static_cast<double>(hht.firstSample + e) / hht.sampleRate : 0.0);
  }
  h5::writeDoubles(g, "time_edges_s", edgesSeconds);

  const hsize_t bins = hht.frequencyEdges.empty() ? 0 : hht.frequencyEdges.size() - 1;
  const hsize_t cols = hht.timeEdges.empty() ? 0 : hht.timeEdges.size() - 1;
  const hsize_t n = static_cast<hsize_t>(std::max<int64_t>(hht.samples, 0));
  for (std::size_t i = 0; i < hht.channels.size(); ++i) {
    const HhtChannel& c = hht.channels[i];
    const std::string& unit = ch[i].unit;
    H5::Group cg = g.createGroup(ch[i].group);
    h5::setAttribute(cg, "name", ch[i].name);
    h5::setAttribute(cg, "recording_index", static_cast<int64_t>(ch[i].recordingIndex));
    H5::DataSet spec = createFloatMatrix(cg, "spectrum", bins, cols);
    h5::setAttribute(spec, "quantity", quantity);
    h5::setAttribute(spec, "units", energy ? squaredUnit(unit) : unit);
    if (bins > 0 && cols > 0) spec.write(c.spectrum.data(), H5::PredType::NATIVE_FLOAT);
    h5::writeDoubles(cg, "marginal", c.marginal);
    H5::DataSet marg = cg.openDataSet("marginal");
    h5::setAttribute(marg, "units", (energy ? squaredUnit(unit) : unit) + "*s");

    std::vector<int64_t> rows;
    std::vector<double> meanFrequency, imfEnergy;
    bool instantaneous = !c.imfs.empty();
    for (const HhtImf& imf : c.imfs) {
      rows.push_back(imf.row);
      meanFrequency.push_back(imf.meanFrequencyHz);
      imfEnergy.push_back(imf.energy);
      instantaneous = instantaneous && imf.amplitude.size() == n && imf.frequencyHz.size() == n;
    }
    h5::writeInt64s(cg, "imf_rows", rows);
    h5::writeDoubles(cg, "mean_frequency", meanFrequency);
    H5::DataSet mf = cg.openDataSet("mean_frequency");
    h5::setAttribute(mf, "units", "Hz");
    h5::writeDoubles(cg, "energy", imfEnergy);
    H5::DataSet en = cg.openDataSet("energy");
    h5::setAttribute(en, "units", squaredUnit(unit) + "*s");
    if (instantaneous) {
      const hsize_t m = c.imfs.size();
      H5::DataSet amp = createFloatMatrix(cg, "instantaneous_amplitude", m, n);
      h5::setAttribute(amp, "units", unit);
      H5::DataSet fr = createFloatMatrix(cg, "instantaneous_frequency", m, n);
      h5::setAttribute(fr, "units", "Hz");
      for (hsize_t k = 0; k < m; ++k) {
        writeMatrixRow(amp, k, n, c.imfs[k].amplitude.data());
        writeMatrixRow(fr, k, n, c.imfs[k].frequencyHz.data());
        rowDone();
      }
    }
  }
}

std::vector<EmdFileChannel> channelsOf(const Recording& rec, const EmdResult& modes) {
  std::vector<EmdFileChannel> out;
  for (const EmdChannelModes& m : modes.channels) {
    const ChannelInfo& c = rec.channels[m.channel];
    out.push_back({m.channel, c.name, c.label, c.unit, ""});
  }
  const std::vector<std::string> groups = groupNames(out);
  for (std::size_t i = 0; i < out.size(); ++i) out[i].group = groups[i];
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reading

std::vector<float> readFloatMatrix(const h5::Reader& r, const H5::Group& g, const std::string& name,
                                   int64_t rows, int64_t cols) {
  const std::string path = h5::childPath(g, name);
  H5::DataSet ds = r.dataset(g, name);
  H5::DataSpace space = ds.getSpace();
  if (space.getSimpleExtentNdims() != 2) {
    r.fail(path, "a dataset of rank " + std::to_string(space.getSimpleExtentNdims()),
           "a 2-D dataset", kRewriteRemedy);
  }
  hsize_t dims[2] = {0, 0};
  space.getSimpleExtentDims(dims);
  if (ds.getTypeClass() != H5T_FLOAT) r.fail(path, "non-float values", "float32", kRewriteRemedy);
  if ((rows >= 0 && static_cast<int64_t>(dims[0]) != rows) ||
      (cols >= 0 && static_cast<int64_t>(dims[1]) != cols)) {
    r.fail(path, std::to_string(dims[0]) + " x " + std::to_string(dims[1]),
           (rows >= 0 ? std::to_string(rows) : std::string("any")) + " x " +
               (cols >= 0 ? std::to_string(cols) : std::string("any")),
           kRewriteRemedy);
  }
  std::vector<float> v(static_cast<std::size_t>(dims[0] * dims[1]));
  if (!v.empty()) ds.read(v.data(), H5::PredType::NATIVE_FLOAT);
  return v;
}

int64_t rowsOf(const h5::Reader& r, const H5::Group& g, const std::string& name) {
  H5::DataSet ds = r.dataset(g, name);
  H5::DataSpace space = ds.getSpace();
  if (space.getSimpleExtentNdims() != 2) {
    r.fail(h5::childPath(g, name),
           "a dataset of rank " + std::to_string(space.getSimpleExtentNdims()),
           "a 2-D dataset (rows x samples)", kRewriteRemedy);
  }
  hsize_t dims[2] = {0, 0};
  space.getSimpleExtentDims(dims);
  return static_cast<int64_t>(dims[0]);
}

Diagnostics readDiagnostics(const h5::Reader& r, const H5::Group& root, const std::string& stage) {
  Diagnostics d;
  if (!r.hasChild(root, "diagnostics")) return d;
  H5::Group g = r.group(root, "diagnostics");
  const auto st = r.strings(g, "stage");
  const auto n = static_cast<int64_t>(st.size());
  const auto sev = r.strings(g, "severity", n);
  const auto code = r.strings(g, "code", n);
  const auto msg = r.strings(g, "message", n);
  for (std::size_t i = 0; i < st.size(); ++i) {
    if (st[i] != stage) continue;
    d.push_back({sev[i] == "warning" ? Severity::Warning : Severity::Info, code[i], msg[i]});
  }
  return d;
}

EmdFile parseEmdFile(const h5::Reader& r, const H5::Group& root) {
  checkResultSchema(r, root,
                    {kEmdSchema, kEmdSchemaPrefix, kEmdSchemaVersion,
                     "no schema attribute (not a ModeScope EMD result)",
                     "Open recordings with File > Open; this reader takes files written by "
                     "'modescope-cli emd' or the decomposition dialog",
                     "This is another kind of ModeScope file; open it with the matching command"});

  EmdFile f;
  f.inputFile = r.stringAttribute(root, "input_file", "");
  // Channel table.
  H5::Group ct = r.group(root, "channels");
  const auto idx = r.int64s(ct, "recording_index");
  const auto n = static_cast<int64_t>(idx.size());
  const auto names = r.strings(ct, "name", n);
  const auto labels = r.strings(ct, "label", n);
  const auto units = r.strings(ct, "unit", n);
  const auto groups = r.strings(ct, "group", n);
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (idx[k] < 0) {
      r.fail(h5::childPath(ct, "recording_index"), std::to_string(idx[k]), ">= 0", kRewriteRemedy);
    }
    f.channels.push_back(
        {static_cast<std::size_t>(idx[k]), names[k], labels[k], units[k], groups[k]});
  }

  // Modes and parameters.
  H5::Group eg = r.group(root, "emd");
  EmdResult& m = f.modes;
  EmdParams& p = m.params;
  // Every declared parameter, with the declared default where an older file lacks one.
  p = h5::readParamAttributes(r, eg, emdParamTable(), EmdParams{});
  m.sampleRate = r.doubleAttribute(eg, "sample_rate");
  if (!(m.sampleRate > 0)) {
    r.fail(h5::childPath(eg, "@sample_rate"), formatNumber(m.sampleRate), "a rate > 0 Hz",
           kRewriteRemedy);
  }
  m.firstSample = r.intAttribute(eg, "first_sample");
  m.samples = r.intAttribute(eg, "samples");
  if (m.samples < 0) {
    r.fail(h5::childPath(eg, "@samples"), std::to_string(m.samples), ">= 0", kRewriteRemedy);
  }
  f.startSeconds = static_cast<double>(m.firstSample) / m.sampleRate;
  for (const EmdFileChannel& c : f.channels) {
    H5::Group cg = r.group(eg, c.group);
    EmdChannelModes cm;
    cm.channel = c.recordingIndex;
    const int64_t rows = rowsOf(r, cg, "modes");
    if (rows < 1) {
      r.fail(h5::childPath(cg, "modes"), "no rows", "IMF rows and a residue row", kRewriteRemedy);
    }
    cm.rows = static_cast<int>(rows);
    cm.data = readFloatMatrix(r, cg, "modes", rows, m.samples);
    for (int64_t s : r.int64s(cg, "sifts", rows - 1)) cm.sifts.push_back(static_cast<int>(s));
    cm.degenerateMembers = r.intAttribute(cg, "degenerate_members", 0);
    m.channels.push_back(std::move(cm));
  }
  m.diagnostics = readDiagnostics(r, root, "emd");
  m.provenance = h5::readProvenance(r, root);

  if (!r.hasChild(root, "hht")) return f;
  H5::Group hg = r.group(root, "hht");
  HhtResult h;
  HhtParams& hp = h.params;
  hp = h5::readParamAttributes(r, hg, hhtParamTable(), HhtParams{});
  for (int64_t v : r.int64s(hg, "imf_selection")) hp.imfs.push_back(static_cast<int>(v));
  h.sampleRate = r.doubleAttribute(hg, "sample_rate");
  h.firstSample = r.intAttribute(hg, "first_sample");
  h.samples = r.intAttribute(hg, "samples");
  if (h.samples != m.samples) {
    r.fail(h5::childPath(hg, "@samples"), std::to_string(h.samples),
           std::to_string(m.samples) + " (the modes' length)", kRewriteRemedy);
  }
  if (hp.frequencyBins < 1 || hp.timeBins < 1) {
    r.fail(h5::childPath(hg, "@frequency_bins"),
           std::to_string(hp.frequencyBins) + " x " + std::to_string(hp.timeBins) + " bins",
           "at least 1 x 1", kRewriteRemedy);
  }
  h.frequencyEdges = r.doubles(hg, "frequency_edges", hp.frequencyBins + 1);
  h.timeEdges = r.int64s(hg, "time_edges", hp.timeBins + 1);
  for (std::size_t i = 0; i < f.channels.size(); ++i) {
    const EmdFileChannel& c = f.channels[i];
    H5::Group cg = r.group(hg, c.group);
    HhtChannel hc;
    hc.channel = c.recordingIndex;
    hc.spectrum = readFloatMatrix(r, cg, "spectrum", hp.frequencyBins, hp.timeBins);
    hc.marginal = r.doubles(cg, "marginal", hp.frequencyBins);
    const auto rows = r.int64s(cg, "imf_rows");
    const auto k = static_cast<int64_t>(rows.size());
    const auto mf = r.doubles(cg, "mean_frequency", k);
    const auto en = r.doubles(cg, "energy", k);
    std::vector<float> amp, fr;
    const bool inst = r.hasChild(cg, "instantaneous_amplitude");
    if (inst) {
      amp = readFloatMatrix(r, cg, "instantaneous_amplitude", k, m.samples);
      fr = readFloatMatrix(r, cg, "instantaneous_frequency", k, m.samples);
    }
    const auto n1 = static_cast<std::size_t>(m.samples);
    for (std::size_t j = 0; j < rows.size(); ++j) {
      if (rows[j] < 0 || rows[j] >= m.channels[i].imfCount()) {
        r.fail(h5::childPath(cg, "imf_rows"), std::to_string(rows[j]),
               "an IMF row 0.." + std::to_string(m.channels[i].imfCount() - 1), kRewriteRemedy);
      }
      HhtImf imf;
      imf.row = static_cast<int>(rows[j]);
      imf.meanFrequencyHz = mf[j];
      imf.energy = en[j];
      if (inst) {
        imf.amplitude.assign(amp.begin() + static_cast<std::ptrdiff_t>(j * n1),
                             amp.begin() + static_cast<std::ptrdiff_t>((j + 1) * n1));
        imf.frequencyHz.assign(fr.begin() + static_cast<std::ptrdiff_t>(j * n1),
                               fr.begin() + static_cast<std::ptrdiff_t>((j + 1) * n1));
      }
      hc.imfs.push_back(std::move(imf));
    }
    h.channels.push_back(std::move(hc));
  }
  h.diagnostics = readDiagnostics(r, root, "hht");
  f.hht = std::move(h);
  return f;
}

}  // namespace

void writeEmdFile(const std::string& path, const Recording& rec, const EmdResult& modes,
                  const HhtResult* hht, JobContext& ctx) {
  checkArguments(rec, modes, hht);
  const std::vector<EmdFileChannel> channels = channelsOf(rec, modes);
  int64_t totalRows = 0;
  for (const auto& c : modes.channels) totalRows += c.rows;
  if (hht) {
    for (const auto& c : hht->channels) totalRows += static_cast<int64_t>(c.imfs.size());
  }
  int64_t doneRows = 0;
  const auto rowDone = [&] {
    ++doneRows;
    ctx.progress(
        totalRows > 0 ? static_cast<double>(doneRows) / static_cast<double>(totalRows) : 1.0,
        "writing the modes and spectra");
    ctx.checkpoint();
  };

  writeHdf5FileAtomically(path, "the decomposition", [&](H5::Group& root) {
    h5::setAttribute(root, kSchemaAttribute, kEmdSchema);
    h5::setAttribute(root, "modescope_version", softwareVersion());
    h5::setAttribute(
        root, "input_file",
        modes.provenance.inputFile.empty() ? rec.sourcePath : modes.provenance.inputFile);
    {
      H5::Group ct = root.createGroup("channels");
      std::vector<int64_t> idx;
      std::vector<std::string> name, label, unit, type, group;
      for (const EmdFileChannel& c : channels) {
        idx.push_back(static_cast<int64_t>(c.recordingIndex));
        name.push_back(c.name);
        label.push_back(c.label);
        unit.push_back(c.unit);
        type.push_back(channelTypeName(rec.channels[c.recordingIndex].type));
        group.push_back(c.group);
      }
      h5::writeInt64s(ct, "recording_index", idx);
      h5::writeStrings(ct, "name", name);
      h5::writeStrings(ct, "label", label);
      h5::writeStrings(ct, "unit", unit);
      h5::writeStrings(ct, "type", type);
      h5::writeStrings(ct, "group", group);
    }
    writeEmdGroup(root, modes, channels, rowDone);
    if (hht) writeHhtGroup(root, *hht, channels, rowDone);
    writeDiagnosticsTable(root, modes.diagnostics, hht ? &hht->diagnostics : nullptr);
    h5::writeProvenance(root, modes.provenance);
  });
}

bool isEmdFile(const std::string& path) { return rootSchemaHasPrefix(path, kEmdSchemaPrefix); }

EmdFile readEmdFile(const std::string& path) {
  return readHdf5FileAs(
      path,
      {"file", "a readable ModeScope EMD result (docs/hdf5-schema.md)", kRewriteRemedy, "/emd"},
      parseEmdFile);
}

}  // namespace modescope
