// MEMD result files (hdf5_memd.h); the layout is documented in docs/memd.md, "File".
#include "engine/io/hdf5_memd.h"

#include <vector>

#include "engine/core/error.h"
#include "engine/io/hdf5_channel_table.h"
#include "engine/io/hdf5_diagnostics.h"
#include "engine/io/hdf5_params.h"
#include "engine/io/hdf5_provenance.h"
#include "engine/io/hdf5_schema.h"
#include "engine/io/hdf5_util.h"

namespace modescope {
namespace {

void checkArguments(const Recording& rec, const MemdResult& m) {
  const int rows = m.channels.empty() ? 0 : m.channels.front().rows;
  for (const EmdChannelModes& c : m.channels) {
    if (c.channel >= rec.channels.size())
      throw InvalidParameterError(
          "modes", "channel index " + std::to_string(c.channel),
          "a channel of the recording (" + std::to_string(rec.channels.size()) + " channels)");
    if (c.rows != rows ||
        c.data.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(m.samples))
      throw InvalidParameterError("modes", std::to_string(c.rows) + " rows",
                                  "the same rows x samples on every channel");
  }
  if (m.channels.empty())
    throw InvalidParameterError("modes", "no channels", "at least one decomposed channel");
}

}  // namespace

void writeMemdFile(const std::string& path, const Recording& rec, const MemdResult& m,
                   JobContext& ctx) {
  checkArguments(rec, m);
  std::vector<ResultFileChannel> channels;
  for (const EmdChannelModes& c : m.channels) {
    const ChannelInfo& info = rec.channels[c.channel];
    channels.push_back(
        {c.channel, info.name, info.label, channelTypeName(info.type), info.unit, info.position});
  }
  const auto rows = static_cast<hsize_t>(m.channels.front().rows);
  const auto chans = static_cast<hsize_t>(m.channels.size());
  const auto n = static_cast<hsize_t>(m.samples);
  writeHdf5FileAtomically(path, "the MEMD modes", [&](H5::Group& root) {
    h5::setAttribute(root, kSchemaAttribute, kMemdSchema);
    h5::setAttribute(root, "modescope_version", softwareVersion());
    h5::setAttribute(root, "input_file",
                     m.provenance.inputFile.empty() ? rec.sourcePath : m.provenance.inputFile);
    writeChannelTable(root, channels, ChannelPositions::Store);
    H5::Group g = root.createGroup("memd");
    h5::setAttribute(g, "sample_rate", m.sampleRate);
    h5::setAttribute(g, "first_sample", static_cast<int64_t>(m.firstSample));
    h5::setAttribute(g, "start_s",
                     m.sampleRate > 0 ? static_cast<double>(m.firstSample) / m.sampleRate : 0.0);
    h5::setAttribute(g, "samples", static_cast<int64_t>(m.samples));
    h5::setAttribute(g, "imf_count", static_cast<int64_t>(m.imfCount()));
    h5::setAttribute(g, "direction_count", static_cast<int64_t>(m.directions));
    h5::setAttribute(g, "dims", static_cast<int64_t>(m.dims));
    // Every declared parameter, from memdParamTable() (engine/io/hdf5_params.h).
    h5::writeParamAttributes(g, memdParamTable(), m.params);
    // modes: rows x channels x samples, float32, chunked by one (IMF, channel) row.
    const hsize_t dims[3] = {rows, chans, n};
    H5::DataSpace space(3, dims);
    H5::DSetCreatPropList props;
    const hsize_t chunk[3] = {1, 1, n};
    props.setChunk(3, chunk);
    H5::DataSet ds = g.createDataSet("modes", H5::PredType::NATIVE_FLOAT, space, props);
    const hsize_t count[3] = {1, 1, n};
    H5::DataSpace mem(3, count);
    for (hsize_t k = 0; k < rows; ++k) {
      for (hsize_t c = 0; c < chans; ++c) {
        const hsize_t start[3] = {k, c, 0};
        H5::DataSpace file = ds.getSpace();
        file.selectHyperslab(H5S_SELECT_SET, count, start);
        ds.write(m.channels[c].row(static_cast<int>(k), m.samples), H5::PredType::NATIVE_FLOAT, mem,
                 file);
      }
      ctx.progress(static_cast<double>(k + 1) / static_cast<double>(rows), "writing the modes");
      ctx.checkpoint();
    }
    h5::setAttribute(ds, "axes", "imf (last = residue), channel, sample");
    std::vector<int32_t> sifts(m.sifts.begin(), m.sifts.end());
    h5::writeInt32s(g, "sifts", sifts);
    // directions: K x dims float64, as used (Hammersley or supplied).
    const hsize_t ddims[2] = {static_cast<hsize_t>(m.directions), static_cast<hsize_t>(m.dims)};
    H5::DataSpace dspace(2, ddims);
    H5::DataSet dd = g.createDataSet("directions", H5::PredType::NATIVE_DOUBLE, dspace);
    dd.write(m.directionSet.data(), H5::PredType::NATIVE_DOUBLE);
    h5::writeDiagnostics(root, m.diagnostics);
    h5::writeProvenance(root, m.provenance);
  });
}

bool isMemdFile(const std::string& path) { return rootSchemaHasPrefix(path, "modescope-memd/"); }

}  // namespace modescope
