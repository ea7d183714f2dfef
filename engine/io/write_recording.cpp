// writeRecording and outputFormatForPath (engine/io/recording_io.h): the one place that picks a
// writer. Every writer goes through AtomicOutput, so a failed or cancelled write leaves nothing
// under the final name.
#include <H5Cpp.h>

#include <memory>

#include "engine/core/bad_marks.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/bids_channels.h"
#include "engine/io/hdf5_schema.h"
#include "engine/io/hdf5_util.h"
#include "engine/io/recording_io.h"
#ifdef MODESCOPE_HAVE_EDFLIB
#include "engine/io/edflib_writer.h"
#endif

namespace modescope {
namespace {

void writeHdf5File(const Recording& rec, const std::string& path, const Provenance& provenance,
                   JobContext& ctx) {
  writeHdf5FileAtomically(path, "the recording", [&](H5::Group& root) {
    writeRecordingGroup(rec, root, provenance, ctx);
  });
}

}  // namespace

OutputFormat outputFormatForPath(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = name.find_last_of('.');
  const std::string ext = dot == std::string::npos ? std::string() : toLower(name.substr(dot));
  if (ext == ".h5" || ext == ".hdf5") return OutputFormat::Hdf5;
  if (ext == ".edf") return OutputFormat::EdfPlus;
  if (ext == ".bdf") return OutputFormat::BdfPlus;
  throw InvalidParameterError(
      "output file",
      "'" + path + "'" + (ext.empty() ? " (no extension)" : " (extension " + ext + ")"),
      "a name ending in .h5, .hdf5, .edf or .bdf", "Add the extension of the format you want");
}

void writeRecording(const Recording& rec, const std::string& path, OutputFormat format,
                    const Provenance& provenance, JobContext& ctx) {
  switch (format) {
    case OutputFormat::Hdf5:
      writeHdf5File(rec, path, provenance, ctx);
      return;
    case OutputFormat::EdfPlus:
    case OutputFormat::BdfPlus:
#ifdef MODESCOPE_HAVE_EDFLIB
      // EDF has no place for provenance beyond the header fields; HDF5 keeps it.
      writeEdfPlus(rec, path, format == OutputFormat::BdfPlus, ctx);
      // Nor for a channel's status: the BIDS sidecar carries it (read back by openRecording).
      if (!badChannelIndices(rec).empty()) writeBidsChannelsTsv(rec, bidsChannelsPathFor(path));
      return;
#else
      throw InvalidParameterError(
          "output format", format == OutputFormat::BdfPlus ? "BDF+" : "EDF+",
          "a format this build can write (HDF5)",
          "This build has no EDFlib; install libedf-dev and rebuild, or save as .h5");
#endif
  }
  throw InvalidParameterError("output format", "an unknown value", "HDF5, EDF+ or BDF+");
}

}  // namespace modescope
