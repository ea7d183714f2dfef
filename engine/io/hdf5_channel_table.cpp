// The shared channel table of result files (hdf5_channel_table.h).
#include "engine/io/hdf5_channel_table.h"

#include <H5Cpp.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace modescope {
namespace {

const char* kPositionDescription =
    "x right, y nose, z up on the unit sphere; NaN rows: position unknown";

std::vector<double> readPositions(const h5::Reader& r, const H5::Group& ct, std::size_t channels,
                                  const std::string& remedy) {
  const std::string path = h5::childPath(ct, "position");
  H5::DataSet ds = r.dataset(ct, "position");
  H5::DataSpace space = ds.getSpace();
  if (space.getSimpleExtentNdims() != 2)
    r.fail(path, "a dataset of rank " + std::to_string(space.getSimpleExtentNdims()),
           "a 2-D dataset", remedy);
  hsize_t dims[2] = {0, 0};
  space.getSimpleExtentDims(dims);
  if (ds.getTypeClass() != H5T_FLOAT) r.fail(path, "non-float values", "float64", remedy);
  if (dims[0] != channels || dims[1] != 3)
    r.fail(path, std::to_string(dims[0]) + " x " + std::to_string(dims[1]),
           std::to_string(channels) + " x 3", remedy);
  std::vector<double> v(channels * 3);
  if (!v.empty()) ds.read(v.data(), H5::PredType::NATIVE_DOUBLE);
  return v;
}

}  // namespace

void writeChannelTable(H5::Group& parent, const std::vector<ResultFileChannel>& channels,
                       ChannelPositions positions) {
  H5::Group ct = parent.createGroup("channels");
  std::vector<int64_t> idx;
  std::vector<std::string> name, label, type, unit;
  std::vector<double> pos;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const ResultFileChannel& c : channels) {
    idx.push_back(static_cast<int64_t>(c.recordingIndex));
    name.push_back(c.name);
    label.push_back(c.label);
    type.push_back(c.type);
    unit.push_back(c.unit);
    pos.push_back(c.position ? c.position->x : nan);
    pos.push_back(c.position ? c.position->y : nan);
    pos.push_back(c.position ? c.position->z : nan);
  }
  h5::writeInt64s(ct, "recording_index", idx);
  h5::writeStrings(ct, "name", name);
  h5::writeStrings(ct, "label", label);
  h5::writeStrings(ct, "type", type);
  h5::writeStrings(ct, "unit", unit);
  if (positions == ChannelPositions::Omit) return;
  const hsize_t dims[2] = {static_cast<hsize_t>(channels.size()), 3};
  H5::DataSet ds = ct.createDataSet("position", H5::PredType::IEEE_F64LE, H5::DataSpace(2, dims));
  if (!pos.empty()) ds.write(pos.data(), H5::PredType::NATIVE_DOUBLE);
  h5::setAttribute(ds, "description", kPositionDescription);
}

std::vector<ResultFileChannel> readChannelTable(const h5::Reader& r, const H5::Group& parent,
                                                ChannelPositions positions,
                                                const std::string& remedy) {
  H5::Group ct = r.group(parent, "channels");
  const auto idx = r.int64s(ct, "recording_index");
  const auto c = static_cast<int64_t>(idx.size());
  if (c < 1) r.fail(h5::childPath(ct, "recording_index"), "no channels", ">= 1", remedy);
  const auto names = r.strings(ct, "name", c);
  const auto labels = r.strings(ct, "label", c);
  const auto types = r.strings(ct, "type", c);
  const auto units = r.strings(ct, "unit", c);
  const std::vector<double> pos = positions == ChannelPositions::Store
                                      ? readPositions(r, ct, idx.size(), remedy)
                                      : std::vector<double>();
  std::vector<ResultFileChannel> out;
  for (std::size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] < 0)
      r.fail(h5::childPath(ct, "recording_index"), std::to_string(idx[i]), ">= 0", remedy);
    ResultFileChannel ch{
        static_cast<std::size_t>(idx[i]), names[i], labels[i], types[i], units[i], std::nullopt};
    if (!pos.empty() && std::isfinite(pos[3 * i]))
      ch.position = Position3{pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]};
    out.push_back(std::move(ch));
  }
  return out;
}

}  // namespace modescope
