// The processing methods ModeScope offers, listed once. The GUI's Process and Analysis menus
// are built from this list, the pipeline reader names its step kinds from it, and
// tests/integration/method_registry_test.cpp checks that the command line has a subcommand and
// pipeline files a step kind for every entry that says so. Adding a method starts here
// (docs/architecture.md, "What a new method adds").
//
// Thread rules: the list is built once and read-only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace modescope {

struct MethodEntry {
  std::string id;        // the CLI subcommand ("emd") and, where pipelineStep, the step kind
  std::string menu;      // the GUI menu that offers it: "Process" or "Analysis"; "" = none yet
  std::string menuText;  // the action's text, with its accelerator: "&Decompose (EMD family)..."
  bool pipelineStep = false;  // a step kind of pipeline files (docs/pipelines.md)
  std::string summary;        // one line
};

const std::vector<MethodEntry>& methodRegistry();
// The entry with this id; nullptr when none.
const MethodEntry* findMethod(std::string_view id);
// "filter, emd or ica": the step kinds of pipeline files, for messages.
std::string pipelineStepKinds();

}  // namespace modescope
