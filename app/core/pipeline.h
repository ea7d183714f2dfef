// Versioned pipeline files (docs/pipelines.md): a list of steps (filter, interpolation, EMD-family
// decomposition, MEMD, ICA, entropy matrices, epochs, time-frequency images) with their selections
// and parameters, replayed headless by `modescope-cli run PIPELINE --input REC -o OUTDIR` and
// written from a GUI session's history.
//
// Every parameter is read through the method's declarations (engine/method/param_table.h), so a
// pipeline accepts and refuses exactly what the CLI options and the dialogs do.
//
// Error rule: every problem found in the file itself (malformed JSON, a version other than 1, an
// unknown step kind, field or parameter key, a wrong JSON type, a value out of range, a missing
// required field, parameters that contradict each other) is an InvalidInputError (exit code 2)
// whose message is
//   'FILE', step N (KIND), field FIELD: found X, expected Y. At line L, column C. HELP
// ("'FILE', field FIELD: ..." for the top-level fields). Problems that need the recording (a
// channel that is not there, a range outside it, a filter edge above Nyquist) are found by
// `run` after opening the recording and before writing anything; they keep the engine's error
// type (InvalidParameterError, exit code 1) inside a PipelineStepError naming the file and step.
//
// Thread rules: plain values; every function here is pure.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/dsp/preprocess.h"
#include "engine/emd/emd_params.h"
#include "engine/entropy/entropy_params.h"
#include "engine/epochs/epoch_params.h"
#include "engine/ica/ica_flags.h"
#include "engine/ica/ica_params.h"
#include "engine/memd/memd_params.h"
#include "engine/montage/derivations.h"
#include "engine/spatial/channel_interpolation.h"
#include "engine/tf/tf_params.h"
#include "engine/tf/tf_readout_params.h"

namespace modescope {

class JsonValue;

// The format version this build reads and writes ("modescope_pipeline": 1).
inline constexpr int kPipelineVersion = 1;

// The selection and backend fields every step has.
struct StepSelection {
  // `channels` as `--channels` items: names or labels, 1-based indices ("5"), index ranges
  // ("1-8"). Absent: the method's default channels (every non-trigger channel at the common rate).
  std::optional<std::vector<std::string>> channels;
  double start = 0.0;      // s from the start of the step's input recording
  double duration = -1.0;  // s; < 0 = to the end
  // Absent: the run's --backend (default auto).
  std::optional<BackendChoice> backend;

  // The items joined with commas: the `--channels` text (parseChannelSelection).
  std::string channelsText() const;
};

// The step types carry a "Pipeline" prefix: engine/ica/ica_result.h already has an IcaStep (one
// step of the Infomax iterations).
struct PipelineFilterStep {
  StepSelection selection;
  PreprocessSpec spec;  // reference first, then the filters in order (as `filter`)
};

struct PipelineEmdStep {
  StepSelection selection;
  std::string preset;  // "" = the defaults of EmdParams (as `emd` without --preset)
  EmdParams params;    // the preset's values with the file's params written over them
  bool hht = true;     // the Hilbert-Huang transform too (the emd command's default)
};

// MEMD / NA-MEMD of the selection's channels together (as `memd`; supplied direction and noise
// files are not part of pipeline version 1).
struct PipelineMemdStep {
  StepSelection selection;
  std::string preset;  // "" = memd.m's defaults (as `memd` without --preset)
  MemdParams params;
};

// An ica step's automatic flags: {"params": {...}, "reject": ["eye", "heart"],
// "min_confidence": 0.5}. The thresholds as `ica-flags` options (icaFlagParamTable()); the
// rejected components are those labelled one of `reject` with at least `minConfidence`, as the
// component browser's "Mark flagged" and `ica-apply --reject-flagged` choose them.
struct PipelineIcaFlags {
  IcaFlagParams params;
  std::vector<IcaFlagLabel> reject;  // empty: the flags are only written
  double minConfidence = 0.5;
};

struct PipelineIcaStep {
  StepSelection selection;
  std::string preset;  // "" = eeglab-runica (as `ica` without --preset)
  IcaParams params;
  // "flags" also writes the automatic artifact flags beside the ICA file (OUT_components.tsv, as
  // `ica-flags`; engine/ica/ica_flags.h): `true` at the default thresholds, or an object with
  // the thresholds the session chose and the labels whose flagged components it rejected.
  std::optional<PipelineIcaFlags> flags;
};

// ApEn / Cross-ApEn / SampEn matrices of the selection's channels (as `xapen` on one recording;
// params.rows is ignored: the matrix has exactly the selected channels). No presets.
struct PipelineEntropyStep {
  StepSelection selection;
  EntropyParams params;
};

// Spectrograms or synchrosqueezing of the selection's channels (as `tfr`): a result file, not a
// recording; the next step reads what this one read. params.rows is ignored. No presets.
struct PipelineTfStep {
  StepSelection selection;
  TfParams params;
  TfReadoutParams readout;  // the file's "readout" object: ridges, reconstruction, storage
};

// Spherical-spline interpolation of bad channels (as `interpolate`). `selection.channels` names
// the channels to interpolate (absent: those the input marks bad); the step works on the whole
// recording, so it has no start or duration.
struct PipelineInterpolateStep {
  StepSelection selection;
  SplineInterpolationParams params;
};

// Epochs around events and their averages (as `epoch`, or `average` when epochs is false): a
// result file, not a recording; the next step reads what this one read. The selection is the
// channels and the backend (epochs are cut from the whole recording: no start or duration).
struct PipelineEpochStep {
  StepSelection selection;
  std::vector<std::string> events;       // annotation texts, each a condition
  std::vector<std::string> differences;  // "A-B"
  bool epochs = true;                    // false: the averages only
  EpochParams params;
};

// A derivation montage applied as a new recording (as `montage`; app/core/montage_job.h): a
// built-in montage formed for the step's input, or the derivations themselves. The whole
// recording: no channels, start, duration or backend (the selection stays empty).
struct PipelineMontageStep {
  StepSelection selection;
  std::string builtin;        // "double-banana", "laplacian", ...; "" = `montage`
  DerivationMontage montage;  // its name and rows, when builtin is ""
};

using PipelineStep = std::variant<PipelineFilterStep, PipelineEmdStep, PipelineIcaStep,
                                  PipelineMemdStep, PipelineEntropyStep, PipelineInterpolateStep,
                                  PipelineEpochStep, PipelineMontageStep, PipelineTfStep>;

struct Pipeline {
  int version = kPipelineVersion;
  std::string description;
  std::vector<PipelineStep> steps;
};

// Same steps, selections and parameter values (every declared field compared).
bool operator==(const StepSelection& a, const StepSelection& b);
bool operator==(const PipelineFilterStep& a, const PipelineFilterStep& b);
bool operator==(const PipelineEmdStep& a, const PipelineEmdStep& b);
bool operator==(const PipelineIcaFlags& a, const PipelineIcaFlags& b);
bool operator==(const PipelineIcaStep& a, const PipelineIcaStep& b);
bool operator==(const PipelineMemdStep& a, const PipelineMemdStep& b);
bool operator==(const PipelineEntropyStep& a, const PipelineEntropyStep& b);
bool operator==(const PipelineInterpolateStep& a, const PipelineInterpolateStep& b);
bool operator==(const PipelineEpochStep& a, const PipelineEpochStep& b);
bool operator==(const PipelineTfStep& a, const PipelineTfStep& b);
bool operator==(const PipelineMontageStep& a, const PipelineMontageStep& b);
bool operator==(const Pipeline& a, const Pipeline& b);

// "filter", "interpolate", "emd", "ica", "memd", "xapen", "epoch", "tfr", "montage".
const char* stepKind(const PipelineStep& step);
const StepSelection& stepSelection(const PipelineStep& step);
// "step 2 (emd)" for the 0-based `index`.
std::string stepLabel(std::size_t index, const PipelineStep& step);
// The file a step writes in the output folder: "01-filter.h5", "02-emd.h5" (two digits at
// least, the 1-based step number).
std::string stepOutputName(std::size_t index, const PipelineStep& step);

// The parameters a step starts from: the preset, else the command's default.
EmdParams emdStepBase(const std::string& preset);
IcaParams icaStepBase(const std::string& preset);
MemdParams memdStepBase(const std::string& preset);
// The preset name recorded in the provenance: the CLI's ("" for EMD, eeglab-runica for ICA).
std::string emdStepPresetName(const PipelineEmdStep& step);
std::string icaStepPresetName(const PipelineIcaStep& step);

// The `--filter` / `--reference` spelling that parseFilterSpec / parseReferenceSpec read back to
// the same spec ("bandpass:1-40", "notch:50", "average", "channel:Cz"). Throws
// InvalidParameterError for what that syntax cannot say (a transition width, a notch without
// harmonics); a pipeline file writes such a filter as an object of filterParamTable()'s keys.
std::string filterSpecText(const FilterSpec& spec);
std::string referenceSpecText(const ReferenceSpec& spec);

// Reads a parsed pipeline file; `path` names it in messages. Throws InvalidInputError (see the
// error rule above). `notes` (optional) receives one line per parameter that has no effect with
// the step's other parameters (a stop rule field of another rule, EEMD's pairedNoise for
// ICEEMDAN), which the methods ignore as the CLI does.
Pipeline readPipeline(const JsonValue& root, const std::string& path,
                      std::vector<std::string>* notes = nullptr);
// readJsonFile(path) then readPipeline.
Pipeline readPipelineFile(const std::string& path, std::vector<std::string>* notes = nullptr);

// The file text (pretty JSON, newline-terminated) of `pipeline`: each step's parameters written
// only where they differ from the step's base (emdStepBase / icaStepBase), numbers exactly, so
// readPipeline(parseJson(writePipelineJson(p))) == p.
std::string writePipelineJson(const Pipeline& pipeline);

// An error of one step of a run, with the file and the step in front of the cause's message
// ("'p.json', step 2 (emd): parameter 'channels': got 'C9', ..."); the exit code is the
// cause's.
class PipelineStepError : public Error {
 public:
  PipelineStepError(const std::string& where, const Error& cause)
      : Error(where + ": " + cause.what()), exitCode_(cause.exitCode()) {}
  int exitCode() const noexcept override { return exitCode_; }

 private:
  int exitCode_;
};

}  // namespace modescope
