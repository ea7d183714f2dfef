// The one method list (app/core/method_registry.h) and the front ends that enumerate it: every
// method is a subcommand of the real command line, and exactly the entries marked as pipeline
// steps are step kinds of pipeline files. (The GUI's menus are checked in
// tests/gui/workspace_layout_test.cpp.)
#include "app/core/method_registry.h"

#include <gtest/gtest.h>

#include "app/core/pipeline.h"
#include "cli_support.h"
#include "engine/core/error.h"
#include "engine/core/json_value.h"

namespace modescope {
namespace {

TEST(MethodRegistry, EveryMethodIsACommandWithHelp) {
  ASSERT_FALSE(methodRegistry().empty());
  for (const MethodEntry& m : methodRegistry()) {
    const cli_support::RunResult r = cli_support::runCli({m.id, "--help"});
    EXPECT_EQ(r.exitCode, 0) << m.id << ": " << r.err;
    EXPECT_NE(r.out.find("modescope-cli " + m.id), std::string::npos) << r.out;
  }
}

TEST(MethodRegistry, PipelineStepKindsAreTheMarkedEntries) {
  for (const MethodEntry& m : methodRegistry()) {
    const std::string text = R"({"modescope_pipeline": 1, "steps": [{"step": ")" + m.id + R"("}]})";
    std::string message;
    try {
      readPipeline(parseJson(text, "p.json"), "p.json");
    } catch (const Error& e) {
      message = e.what();
    }
    const bool kindRefused = message.find("field step:") != std::string::npos;
    EXPECT_EQ(kindRefused, !m.pipelineStep) << m.id << ": " << message;
    if (!m.pipelineStep) {
      EXPECT_NE(message.find("modescope-cli " + m.id), std::string::npos) << message;
    }
  }
  EXPECT_EQ(pipelineStepKinds(),
            "filter, interpolate, montage, emd, memd, ica, xapen, epoch or tfr");
}

}  // namespace
}  // namespace modescope
