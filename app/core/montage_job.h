// A derivation montage applied as a processing step (docs/montages.md, "Applying a montage"): the
// bipolar chains, the Laplacian, a montage file or the editor's montage computed into a new
// recording whose channels are the derivations, for both front ends (`modescope-cli montage`,
// Process > Apply montage as new recording, the pipeline step "montage"). The browser shows a
// montage lazily (engine/montage/derivations.h); this job computes the same sums once, with the
// same code (derivedRecording's source), so a replay or a second front end gives the same samples
// bit for bit.
//
// Thread rules: plain values and re-entrant functions; runMontageJob reads `rec` through its
// thread-safe source.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/montage/derivations.h"

namespace modescope {

// The built-in montages by the names `--montage` and pipeline files use.
struct BuiltinMontage {
  const char* name;         // "double-banana"
  const char* description;  // one line for help texts
};
const std::vector<BuiltinMontage>& builtinMontages();
// "double-banana, transverse, laplacian, average or mastoids".
std::string builtinMontageNames();

// The built-in montage `name` (any case) formed for `rec` (the Laplacian, the average and the
// mastoids depend on its channels); nullopt when `name` is not built in. Throws what the
// montage's function throws (linked mastoids without mastoid channels).
std::optional<DerivationMontage> builtinMontage(const std::string& name, const Recording& rec);
// The name of the built-in montage that, formed for `rec`, has exactly `montage`'s rows; "" when
// none has (a montage from a file or the editor).
std::string builtinMontageName(const DerivationMontage& montage, const Recording& rec);
// Throws resolveMontage's InvalidParameterError for `nameOrFile` without a recording (before one
// is read).
void checkMontageArgument(const std::string& nameOrFile, const std::string& option = "--montage");
// `--montage` text: a built-in name, else a montage file (engine/io/montage_file.h). Throws
// InvalidParameterError naming `option` when it is neither a built-in name nor an existing file,
// and the file reader's InvalidInputError for a malformed file.
DerivationMontage resolveMontage(const std::string& nameOrFile, const Recording& rec,
                                 const std::string& option = "--montage");

struct MontageJobSpec {
  DerivationMontage montage;
  std::string source;     // for provenance: the built-in name or the file; "" = made in the window
  std::string inputFile;  // for provenance; "" = the recording's sourcePath
};

struct MontageJobResult {
  // One channel per derivation that could be formed, in the montage's order, with its samples in
  // memory; the input's annotations (bad segments too). A derivation that uses a channel marked
  // bad is marked bad itself, so the methods after it leave it out as they leave out its input.
  std::shared_ptr<const Recording> recording;
  std::vector<std::string> skipped;  // "F7-T7: no channel T7"
  Provenance provenance;             // method "montage": the montage's name, source and rows
  double wallSeconds = 0.0;
};

// The recording `montage` gives on `rec`, samples still computed on read: the derivations that can
// be formed (the others described in *skipped), each marked bad when it uses a bad channel. What a
// pipeline plans its later steps on. Throws InvalidParameterError ("montage") when none can be
// formed, naming the first reason.
std::shared_ptr<const Recording> montageRecording(const std::shared_ptr<const Recording>& rec,
                                                  const DerivationMontage& montage,
                                                  std::vector<std::string>* skipped = nullptr);

// montageRecording, then every sample computed into memory. Throws InvalidParameterError
// ("montage") when no derivation can be formed on `rec` (naming the
// first reason), Cancelled on a stop request. Progress over the derivations.
MontageJobResult runMontageJob(const std::shared_ptr<const Recording>& rec,
                               const MontageJobSpec& spec, JobContext& ctx);

}  // namespace modescope
