// Montages as derivations: each displayed trace is a weighted sum of recorded channels. This is
// what the clinical bipolar montages (the 10-20 "double banana"), the Hjorth Laplacian and
// user-defined montages are; the common references (average, linked mastoids, one channel)
// are re-references (ReferenceSpec in engine/dsp/preprocess.h, applied by the browser's page
// cache) and are also expressible here, so a montage file can hold any of them.
//
// Derivations are applied lazily: derivedRecording() returns a Recording whose SignalSource reads
// the terms of a row from the base source on demand and sums them, so a montage costs nothing
// until a page is drawn (and then the terms of the visible rows only).
//
// Montage files (".montage", UTF-8 text; docs/montages.md):
//   # comment
//   name: Double banana (longitudinal)
//   Fp1-F7: Fp1 - F7
//   C3 Lap: C3 - 0.25*F3 - 0.25*T7 - 0.25*Cz - 0.25*P3
// One derivation per line, "label: expression"; an expression is a sum of terms
// "[+|-] [weight*]channel", channel names matched as Recording::findChannel does (name or label,
// case-insensitive; quote names with spaces or signs: "EEG Fp1-REF"). A line without ':' is its
// own label ("Fp1 - F7").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

struct DerivationTerm {
  std::string channel;
  double weight = 1.0;
  bool operator==(const DerivationTerm&) const = default;
};

struct Derivation {
  std::string label;
  std::vector<DerivationTerm> terms;
  bool operator==(const Derivation&) const = default;
};

struct DerivationMontage {
  std::string name;
  std::vector<Derivation> rows;
  bool operator==(const DerivationMontage&) const = default;
};

// The 10-20 bipolar chains (ACNS Guideline 3 / 6, 2006: "standard longitudinal bipolar" or double
// banana: left temporal, right temporal, left parasagittal, right parasagittal, midline; and the
// transverse chains front to back). Channel names are 10-10 (T7/T8/P7/P8); the older T3/T4/T5/T6
// are found as aliases when the recording uses them (derivedRecording resolves them).
DerivationMontage longitudinalBipolar1020();
DerivationMontage transverseBipolar1020();
// Each EEG channel of `rec` minus the mean of all EEG channels (common average).
DerivationMontage averageDerivations(const Recording& rec);
// Each EEG channel minus the mean of the two mastoids (M1/M2, else A1/A2, else TP9/TP10); throws
// InvalidParameterError when the recording has none of these pairs.
DerivationMontage linkedMastoidDerivations(const Recording& rec);
// Hjorth's nearest-neighbour Laplacian (Hjorth 1975, Electroenceph clin Neurophysiol 39:526):
// each EEG channel with a position minus the mean of its `neighbours` nearest positioned EEG
// channels (by angle on the sphere). Channels without a position are left out.
DerivationMontage laplacianDerivations(const Recording& rec, int neighbours = 4);

// The montage file's text, and the montage read back from it. parseMontageText throws
// InvalidInputError naming the source, the line, what was found and what was expected. Reading
// and writing files: engine/io/montage_file.h.
std::string formatMontageText(const DerivationMontage& montage);
DerivationMontage parseMontageText(const std::string& text, const std::string& sourceName);
// One derivation as a line of that text ("Fp1-F7: Fp1 - F7", "C3: C3 - 0.25*F3 - ..."), weights
// as the shortest decimals that read back to the same doubles.
std::string formatDerivation(const Derivation& row);

// A recording that shows `montage` over `base`: one channel per derivation whose channels all
// exist and share one sample rate (its label, the rate, the first term's unit, the shortest
// length; the position of the first positive term). Rows that cannot be formed are left out and
// described in *skipped ("F7-T7: no channel T7"). Samples are computed on read.
std::shared_ptr<const Recording> derivedRecording(std::shared_ptr<const Recording> base,
                                                  const DerivationMontage& montage,
                                                  std::vector<std::string>* skipped = nullptr);

}  // namespace modescope
