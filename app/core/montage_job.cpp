#include "app/core/montage_job.h"

#include <chrono>
#include <filesystem>
#include <system_error>

#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/montage_file.h"

namespace modescope {
namespace {

DerivationMontage formBuiltin(std::size_t index, const Recording& rec) {
  switch (index) {
    case 0:
      return longitudinalBipolar1020();
    case 1:
      return transverseBipolar1020();
    case 2:
      return laplacianDerivations(rec);
    case 3:
      return averageDerivations(rec);
    default:
      return linkedMastoidDerivations(rec);
  }
}

}  // namespace

const std::vector<BuiltinMontage>& builtinMontages() {
  // In formBuiltin's order.
  static const std::vector<BuiltinMontage> kMontages = {
      {"double-banana", "10-20 longitudinal bipolar chains (ACNS 'double banana')"},
      {"transverse", "10-20 transverse bipolar chains, front to back"},
      {"laplacian", "Hjorth's nearest-neighbour Laplacian (4 neighbours)"},
      {"average", "each EEG channel minus the mean of all EEG channels"},
      {"mastoids", "each EEG channel minus the mean of the mastoids (M1/M2, A1/A2 or TP9/TP10)"},
  };
  return kMontages;
}

std::string builtinMontageNames() {
  std::string s;
  const auto& all = builtinMontages();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i) s += i + 1 == all.size() ? " or " : ", ";
    s += all[i].name;
  }
  return s;
}

std::optional<DerivationMontage> builtinMontage(const std::string& name, const Recording& rec) {
  const auto& all = builtinMontages();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (equalsIgnoreCase(trim(name), all[i].name)) return formBuiltin(i, rec);
  return std::nullopt;
}

std::string builtinMontageName(const DerivationMontage& montage, const Recording& rec) {
  const auto& all = builtinMontages();
  for (std::size_t i = 0; i < all.size(); ++i) {
    try {
      if (formBuiltin(i, rec).rows == montage.rows) return all[i].name;
    } catch (const InvalidParameterError&) {
      // Not formable on this recording (no mastoids): not this one.
    }
  }
  return {};
}

void checkMontageArgument(const std::string& nameOrFile, const std::string& option) {
  for (const BuiltinMontage& m : builtinMontages())
    if (equalsIgnoreCase(trim(nameOrFile), m.name)) return;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(nameOrFile, ec)) {
    throw InvalidParameterError(
        option, "'" + nameOrFile + "'",
        "a built-in montage (" + builtinMontageNames() + ") or a montage file that exists",
        "Montage files are made in the window's montage editor (View > Montage editor) or by "
        "hand (docs/montages.md)");
  }
}

DerivationMontage resolveMontage(const std::string& nameOrFile, const Recording& rec,
                                 const std::string& option) {
  checkMontageArgument(nameOrFile, option);
  if (auto m = builtinMontage(nameOrFile, rec)) return *m;
  return readMontageFile(nameOrFile);
}

std::shared_ptr<const Recording> montageRecording(const std::shared_ptr<const Recording>& rec,
                                                  const DerivationMontage& montage,
                                                  std::vector<std::string>* skipped) {
  // The samples: the browser's own lazy derived source, so the sums are the ones it draws.
  auto out = std::make_shared<Recording>(*derivedRecording(rec, montage));
  out->channels.clear();
  // The channels row by row, to know which montage row each one is (its bad flag).
  for (const Derivation& row : montage.rows) {
    const auto one = derivedRecording(rec, DerivationMontage{montage.name, {row}}, skipped);
    if (one->channels.empty()) continue;
    ChannelInfo info = one->channels.front();
    for (const DerivationTerm& t : row.terms) {
      const int c = rec->findChannel(t.channel);
      if (c >= 0 && rec->channels[static_cast<std::size_t>(c)].bad) info.bad = true;
    }
    out->channels.push_back(std::move(info));
  }
  if (out->channels.empty()) {
    throw InvalidParameterError(
        "montage",
        "'" + montage.name + "': none of its " + std::to_string(montage.rows.size()) +
            " derivations can be formed on this recording" +
            (skipped && !skipped->empty() ? " (" + skipped->front() + ")" : std::string()),
        "a montage whose channels the recording has, at one sample rate per derivation",
        "Check the channel names with 'modescope-cli info' or choose another montage");
  }
  return out;
}

MontageJobResult runMontageJob(const std::shared_ptr<const Recording>& rec,
                               const MontageJobSpec& spec, JobContext& ctx) {
  const auto t0 = std::chrono::steady_clock::now();
  MontageJobResult out;
  const std::shared_ptr<const Recording> lazy = montageRecording(rec, spec.montage, &out.skipped);
  auto result = std::make_shared<Recording>(*lazy);
  std::vector<std::vector<float>> samples;
  std::vector<std::string> badRows;
  const std::size_t n = lazy->channelCount();
  for (std::size_t c = 0; c < n; ++c) {
    ctx.checkpoint();
    ctx.progress(static_cast<double>(c) / static_cast<double>(n), "deriving");
    const ChannelInfo& info = lazy->channels[c];
    std::vector<float> x(static_cast<std::size_t>(info.sampleCount));
    lazy->source->read(c, 0, info.sampleCount, x.data());
    samples.push_back(std::move(x));
    if (info.bad) badRows.push_back(info.label);
  }
  result->source = std::make_shared<InMemorySource>(std::move(samples));
  out.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  Provenance& prov = out.provenance;
  prov.method = "montage";
  prov.parameters.emplace_back("montage",
                               spec.montage.name.empty() ? "(unnamed)" : spec.montage.name);
  prov.parameters.emplace_back("montage.source",
                               spec.source.empty() ? "made in the window" : spec.source);
  for (const Derivation& row : spec.montage.rows)
    prov.parameters.emplace_back("derivation", formatDerivation(row));
  prov.parameters.emplace_back(
      "ran.derivations",
      std::to_string(n) + " of " + std::to_string(spec.montage.rows.size()) + " formed");
  for (const std::string& s : out.skipped) prov.parameters.emplace_back("ran.skipped", s);
  for (const std::string& b : badRows)
    prov.parameters.emplace_back("ran.bad", b + " (uses a channel marked bad)");
  std::vector<std::size_t> all(rec->channelCount());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  stampJobProvenance(prov, "CPU", spec.inputFile.empty() ? rec->sourcePath : spec.inputFile, *rec,
                     all, 0.0, -1.0, out.wallSeconds);
  out.recording = std::move(result);
  ctx.progress(1.0, "derived");
  return out;
}

}  // namespace modescope
