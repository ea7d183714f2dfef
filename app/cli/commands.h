// The subcommands of modescope-cli. Each lives in its own cmd_<name>.cpp with its CommandSpec
// (options and help text) and its run function, which returns the process exit code and may
// throw modescope::Error (main.cpp maps it to the error's exit code).
#pragma once

#include <string>
#include <vector>

#include "app/cli/args.h"

namespace modescope::cli {

using Args = std::vector<std::string>;

struct Command {
  CommandSpec (*spec)();
  int (*run)(const Args& args);
  bool hidden;  // left out of the main help (internal helpers)
};

CommandSpec infoSpec();
int runInfo(const Args& args);
CommandSpec convertSpec();
int runConvert(const Args& args);
CommandSpec filterSpec();
int runFilter(const Args& args);
CommandSpec emdSpec();
int runEmd(const Args& args);
CommandSpec memdSpec();
int runMemd(const Args& args);
CommandSpec icaSpec();
int runIca(const Args& args);
CommandSpec icaApplySpec();
int runIcaApply(const Args& args);
CommandSpec icaFlagsSpec();
int runIcaFlags(const Args& args);
std::string defaultFlagsPath(const std::string& icaPath);  // rec-ica.h5 -> rec-ica_components.tsv
CommandSpec arSpec();
int runAr(const Args& args);
CommandSpec xapenSpec();
int runXapen(const Args& args);
CommandSpec tfrSpec();
int runTfr(const Args& args);
CommandSpec interpolateSpec();
int runInterpolate(const Args& args);
CommandSpec montageSpec();
int runMontage(const Args& args);
CommandSpec epochSpec();
int runEpoch(const Args& args);
CommandSpec averageSpec();
int runAverage(const Args& args);
CommandSpec annotationsSpec();
int runAnnotations(const Args& args);
CommandSpec synthSpec();
int runSynth(const Args& args);
CommandSpec demoSpec();
int runDemo(const Args& args);
CommandSpec backendsSpec();
int runBackends(const Args& args);
CommandSpec biosigImportSpec();
int runBiosigImportCommand(const Args& args);
CommandSpec runSpec();
int runRun(const Args& args);
CommandSpec studySpec();
int runStudy(const Args& args);

// In the order the main help lists them.
const std::vector<Command>& commands();

}  // namespace modescope::cli
