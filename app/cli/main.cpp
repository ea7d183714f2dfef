// modescope-cli: everything the GUI runs, without a window (docs/cli.md). No Qt, so
// it runs on headless GPU servers.
//
// Exit codes: 0 done, 1 bad usage or parameter, 2 unreadable or invalid input (and output write
// errors), 3 out of memory or device error, 130 cancelled.
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/core/gpu_backend.h"
#include "engine/core/version.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      {infoSpec, runInfo, false},
      {convertSpec, runConvert, false},
      {filterSpec, runFilter, false},
      {emdSpec, runEmd, false},
      {memdSpec, runMemd, false},
      {icaSpec, runIca, false},
      {icaApplySpec, runIcaApply, false},
      {runSpec, runRun, false},
      {studySpec, runStudy, false},
      {arSpec, runAr, false},
      {xapenSpec, runXapen, false},
      {tfrSpec, runTfr, false},
      {interpolateSpec, runInterpolate, false},
      {montageSpec, runMontage, false},
      {epochSpec, runEpoch, false},
      {averageSpec, runAverage, false},
      {annotationsSpec, runAnnotations, false},
      {synthSpec, runSynth, false},
      {demoSpec, runDemo, false},
      {backendsSpec, runBackends, false},
      {biosigImportSpec, runBiosigImportCommand, true},
      {icaFlagsSpec, runIcaFlags, false},
  };
  return kCommands;
}

namespace {

std::string mainHelp() {
  std::string s = std::string("Usage: ") + kProgram + " COMMAND [ARGS] [options]\n" + "       " +
                  kProgram + " COMMAND --help\n\n" +
                  "ModeScope on the command line: inspect, convert, filter, decompose and generate "
                  "EEG/MEG recordings.\n\nCommands:\n";
  for (const auto& c : commands()) {
    if (c.hidden) continue;
    const CommandSpec spec = c.spec();
    std::string name = "  " + spec.name;
    name.append(name.size() < 14 ? 14 - name.size() : 1, ' ');
    s += name + spec.brief + "\n";
  }
  s += "\nCommon options (where they apply): --channels LIST, --start SECONDS, --duration "
       "SECONDS,\n--backend auto|cpu|cuda, --seed N, --json, --quiet, -o/--output OUT, --help.\n";
  s += "\nGlobal options:\n  -h, --help    Show this help.\n  --version     Show the version "
       "and the build's features.\n";
  s += "\nExit codes: 0 done, 1 bad usage or parameter, 2 unreadable or invalid input or output "
       "not writable,\n3 out of memory or device error, 130 cancelled (Ctrl-C).\n";
  s += "\nInput formats: ";
  std::string formats;
  for (const auto& f : supportedInputFormats()) formats += (formats.empty() ? "" : "; ") + f;
  s += formats + "\nDocumentation: docs/cli.md\n";
  return s;
}

std::string versionText() {
  std::string s = std::string(kProgram) + " " + kVersionString + "\n";
#ifdef MODESCOPE_HAVE_EDFLIB
  s += "EDFlib: yes\n";
#else
  s += "EDFlib: no\n";
#endif
#ifdef MODESCOPE_HAVE_BIOSIG
  s += "BioSig: yes\n";
#else
  s += "BioSig: no\n";
#endif
  s += std::string("CUDA: ") + (gpuFactory() ? "yes" : "no") + "\n";
  return s;
}

const Command* findCommand(const std::string& name) {
  for (const auto& c : commands()) {
    if (c.spec().name == name) return &c;
  }
  return nullptr;
}

int usageError(const std::string& message) {
  printError(message);
  std::fprintf(stderr, "Usage: %s COMMAND [ARGS] [options]\nRun '%s --help' for the commands.\n",
               kProgram, kProgram);
  return 1;
}

int dispatch(const std::vector<std::string>& all) {
  if (all.empty()) return usageError("no command given");
  const std::string& first = all.front();
  if (first == "-h" || first == "--help") {
    std::fputs(mainHelp().c_str(), stdout);
    return 0;
  }
  if (first == "--version") {
    std::fputs(versionText().c_str(), stdout);
    return 0;
  }
  if (first == "help") {
    if (all.size() < 2) {
      std::fputs(mainHelp().c_str(), stdout);
      return 0;
    }
    const Command* c = findCommand(all[1]);
    if (!c) return usageError("unknown command '" + all[1] + "'");
    std::fputs(formatCommandHelp(c->spec()).c_str(), stdout);
    return 0;
  }
  if (!first.empty() && first[0] == '-') return usageError("unknown option '" + first + "'");
  const Command* c = findCommand(first);
  if (!c) return usageError("unknown command '" + first + "'");
  const std::vector<std::string> args(all.begin() + 1, all.end());
  const CommandSpec spec = c->spec();
  if (wantsHelp(args)) {
    std::fputs(formatCommandHelp(spec).c_str(), stdout);
    return 0;
  }
  try {
    return c->run(args);
  } catch (const UsageError& e) {
    printError(e.what());
    std::fputs(formatUsageHint(spec).c_str(), stderr);
    return 1;
  }
}

}  // namespace
}  // namespace modescope::cli

int main(int argc, char** argv) {
  using namespace modescope;
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    const int code = cli::dispatch(args);
    if (std::fflush(stdout) != 0) {
      cli::printError("could not write to standard output");
      return code == 0 ? 2 : code;
    }
    return code;
  } catch (const Error& e) {
    cli::printError(e.what());
    return e.exitCode();
  } catch (const std::bad_alloc&) {
    cli::printError("out of host memory: select fewer channels or a shorter time range");
    return 3;
  } catch (const std::exception& e) {
    cli::printError(std::string("internal error: ") + e.what());
    return 1;
  } catch (...) {
    cli::printError("internal error: an unknown exception");
    return 1;
  }
}
