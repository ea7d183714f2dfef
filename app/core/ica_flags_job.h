// The automatic artifact flags of an ICA file (engine/ica/ica_flags.h) for both front ends:
// the detectors' input read from the recording the file was computed on, and the flags as
// mne-icalabel's components.tsv (BIDS derivatives: component, type, description, status,
// status_description, annotate_method, annotate_author, ic_type, pred_prob).
//
// Thread rules: pure functions on values; the recording's source is thread-safe, so
// flagIcaFile runs on a worker thread.
#pragma once

#include <string>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/ica/ica_flags.h"
#include "engine/io/hdf5_ica.h"

namespace modescope {

// Activations over the decomposed range of `rec`, the mixing matrix, channel names and sites,
// and the EOG/ECG reference channels (or the frontal proxy sites, app/core/ica_metrics.h, with
// the bipolar F8-F7 or AF8-AF7 as a horizontal EOG stand-in).
// Throws InvalidParameterError when `rec` is not the recording `file` was computed on.
IcaFlagInput icaFlagInput(const Recording& rec, const IcaFile& file);
// The same with the activations already computed (icaActivations over the decomposed range).
IcaFlagInput icaFlagInput(const Recording& rec, const IcaFile& file,
                          std::vector<float> activations);

IcaFlags flagIcaFile(const Recording& rec, const IcaFile& file, const IcaFlagParams& params,
                     JobContext& ctx);

// The TSV text: one row per component (0-based as mne-icalabel numbers them), status "bad" for
// a flagged label, ic_type mne-icalabel's name, pred_prob the confidence, status_description the
// flagged rules' reasons separated by "; ".
std::string icaFlagsTsv(const IcaFlags& flags);

// Written atomically (engine/io/atomic_file.h).
void writeIcaFlagsTsv(const std::string& path, const IcaFlags& flags);

// Reads a components.tsv back (ours or mne-icalabel's: the columns component and ic_type, and
// pred_prob when present, else 1): labels and confidences, no verdicts. Throws InvalidInputError
// naming the file and line for a missing column, an unknown ic_type ("other" reads as brain),
// or a component count other than `components`.
IcaFlags readIcaFlagsTsv(const std::string& path, int components);

// The components (0-based) to remove for `labels`: flagged with one of them at confidence >= 0.5.
std::vector<int> rejectedByFlags(const IcaFlags& flags, const std::vector<IcaFlagLabel>& labels);

}  // namespace modescope
