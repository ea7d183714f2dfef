#include "app/cli/imf_cleaning_options.h"

#include "app/cli/common.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/atomic_file.h"

namespace modescope::cli {

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::string cur;
  for (char c : text) {
    if (c == ',') {
      items.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  items.push_back(trim(cur));
  return items;
}

std::vector<OptionSpec> imfCleaningOptions() {
  return {{"drop-imfs", 0, "LIST",
           "IMFs to remove for --cleaned: 1-based IMF numbers, comma-separated, and 'residue' for "
           "the trend (1,2 or 1,residue)."},
          {"cleaned", 0, "OUT",
           "Also write the recording with the dropped modes removed from the decomposed channels "
           "over the decomposed range (.h5, .edf or .bdf)."}};
}

std::optional<EmdCleaning> readImfCleaning(const ParsedArgs& args) {
  const auto drop = args.value("drop-imfs");
  const auto cleaned = args.value("cleaned");
  if (!drop && !cleaned) return std::nullopt;
  if (!drop || !cleaned) {
    throw UsageError(
        "--drop-imfs and --cleaned go together: --drop-imfs LIST says which modes to "
        "remove, --cleaned OUT where to write the cleaned recording");
  }
  EmdCleaning c;
  for (const std::string& item : splitList(*drop)) {
    if (equalsIgnoreCase(item, "residue") || equalsIgnoreCase(item, "r")) {
      c.dropResidue = true;
      continue;
    }
    const int k = static_cast<int>(parseInteger("--drop-imfs", item, 1, 1000));
    for (int seen : c.dropImfs) {
      if (seen == k) {
        throw InvalidParameterError("--drop-imfs", "'" + *drop + "'",
                                    "each IMF number once (IMF " + std::to_string(k) + " twice)");
      }
    }
    c.dropImfs.push_back(k);
  }
  return c;
}

void checkCleaningAgainstMaxImfs(const EmdCleaning& cleaning, int maxImfs) {
  if (maxImfs <= 0) return;
  for (int k : cleaning.dropImfs) {
    if (k > maxImfs) {
      throw InvalidParameterError("--drop-imfs", "IMF " + std::to_string(k),
                                  "IMF numbers up to --max-imfs " + std::to_string(maxImfs));
    }
  }
}

CleanedOutput checkCleanedOutput(const ParsedArgs& args, const std::string& input,
                                 const std::string& output) {
  CleanedOutput c;
  c.path = *args.value("cleaned");
  c.format = outputFormatForPath(c.path);
  checkOutputPath(c.path, input);
  if (c.path == output)
    throw InvalidParameterError("--cleaned", "'" + c.path + "'", "a file other than the -o output");
  return c;
}

void writeResultAndCleaned(const std::string& output, const CleanedOutput& cleaned,
                           const std::shared_ptr<const Recording>& rec, const EmdResult& modes,
                           const EmdCleaning& cleaning, const std::string& decomposition,
                           const std::function<void(const std::string&)>& writeResult,
                           ProgressDisplay& display, std::vector<std::string>& notes,
                           JobContext& ctx) {
  AtomicOutput modesOut(output), cleanedOut(cleaned.path);
  writeResult(modesOut.temporaryPath());
  const DroppedRows dropped = droppedRowsFor(*rec, modes, cleaning, &notes);
  for (const auto& n : notes) display.message(std::string(kProgram) + ": note: " + n);
  const auto cleanedRec = cleanedRecording(rec, modes, dropped);
  Provenance prov = cleaningProvenance(*rec, modes, dropped);
  if (!decomposition.empty())
    for (auto& [key, value] : prov.parameters)
      if (key == "decomposition") value = decomposition;
  writeRecording(*cleanedRec, cleanedOut.temporaryPath(), cleaned.format, prov, ctx);
  ctx.checkpoint();
  modesOut.commit();
  cleanedOut.commit();
}

}  // namespace modescope::cli
