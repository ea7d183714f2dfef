#include "app/cli/ica_file_inputs.h"

#include "app/cli/common.h"
#include "app/core/ica_flags_job.h"
#include "engine/core/error.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {

IcaWithRecording readIcaWithRecording(const std::string& icaPath, const std::string& input,
                                      JobContext& ctx) {
  ctx.progress(0.0, "reading " + icaPath);
  IcaWithRecording out;
  out.ica = readIcaFile(icaPath);
  out.input = input.empty() ? out.ica.inputFile : input;
  if (out.input.empty())
    throw UsageError("the ICA file names no recording (generated data): give --input REC");
  out.recording = openRecording(out.input);
  ctx.checkpoint();
  return out;
}

void refuseOutputOverIcaFile(const std::string& output, const std::string& icaPath) {
  if (output == icaPath)
    throw InvalidParameterError("--output", "'" + output + "'", "a file other than the ICA file");
}

IcaFlags icaFlagsOf(const IcaWithRecording& loaded, const std::optional<std::string>& tsvPath,
                    const IcaFlagParams& params, JobContext& ctx) {
  if (tsvPath) return readIcaFlagsTsv(*tsvPath, loaded.ica.result.components);
  return flagIcaFile(*loaded.recording, loaded.ica, params, ctx);
}

}  // namespace modescope::cli
