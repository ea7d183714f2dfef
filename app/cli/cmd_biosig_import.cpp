// `biosig-import IN OUT.h5`: the child-process side of openRecording's BioSig fallback (hidden
// from the main help). BioSig can crash or hang on damaged files, so it never runs inside the
// process that asked for the file (engine/io/recording_io.h).
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/common.h"

#ifdef MODESCOPE_HAVE_BIOSIG
#include "engine/io/biosig_converter.h"
#endif

namespace modescope::cli {

CommandSpec biosigImportSpec() {
  CommandSpec s;
  s.name = "biosig-import";
  s.usage = "IN OUT.h5";
  s.brief = "Internal: BioSig import in a child process";
  s.summary =
      "Internal: convert IN with BioSig into a ModeScope HDF5 file (run by the readers in "
      "a child process; use 'convert' instead).";
  s.options = {helpOption()};
  s.minPositionals = 2;
  s.maxPositionals = 2;
  return s;
}

int runBiosigImportCommand(const Args& argv) {
  const CommandSpec spec = biosigImportSpec();
  const ParsedArgs args = parseArgs(spec, argv);
#ifdef MODESCOPE_HAVE_BIOSIG
  return modescope::runBiosigImport(args.positionals[0], args.positionals[1]);
#else
  printError(
      "this build of modescope-cli has no BioSig support (libbiosig was not found when it "
      "was built), so '" +
      args.positionals[0] + "' cannot be imported; install libbiosig-dev and rebuild");
  return 2;
#endif
}

}  // namespace modescope::cli
