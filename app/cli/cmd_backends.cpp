// `backends [--json]`: what this build and machine can compute on, and what `auto` picks.
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/core/gpu_backend.h"
#include "app/core/json_writer.h"

namespace modescope::cli {

CommandSpec backendsSpec() {
  CommandSpec s;
  s.name = "backends";
  s.usage = "[--json]";
  s.brief = "List the compute backends and what --backend auto picks";
  s.summary =
      "List the compute backends (CPU, and the CUDA GPU when this build and machine have "
      "one) and which one --backend auto picks.";
  s.options = {jsonOption("the list"), helpOption()};
  s.examples = "  modescope-cli backends\n  modescope-cli backends --json\n";
  s.maxPositionals = 0;
  return s;
}

int runBackends(const Args& argv) {
  const CommandSpec spec = backendsSpec();
  const ParsedArgs args = parseArgs(spec, argv);
  if (!args.positionals.empty()) {
    throw UsageError("'backends' takes no arguments (found '" + args.positionals.front() + "')");
  }
  const std::string cpu = makeCpuBackend()->info().describe();
  std::string gpu, reason = "this build has no CUDA backend";
  if (GpuBackendFactory factory = gpuFactory()) {
    if (auto b = factory(reason)) gpu = b->info().describe();
  }
  const bool haveGpu = !gpu.empty();
  const char* autoPick = haveGpu ? "cuda" : "cpu";

  if (args.has("json")) {
    JsonWriter w;
    w.beginObject().key("backends").beginArray();
    w.beginObject().field("name", "cpu").field("available", true).field("description", cpu);
    w.nullField("reason").endObject();
    w.beginObject().field("name", "cuda").field("available", haveGpu);
    if (haveGpu)
      w.field("description", gpu).nullField("reason");
    else
      w.nullField("description").field("reason", reason);
    w.endObject();
    w.endArray().field("auto", autoPick).endObject();
    std::fputs(w.str().c_str(), stdout);
    return 0;
  }
  std::printf("cpu   available      %s\n", cpu.c_str());
  if (haveGpu)
    std::printf("cuda  available      %s\n", gpu.c_str());
  else
    std::printf("cuda  not available  %s\n", reason.c_str());
  std::printf("auto  picks %s\n", autoPick);
  return 0;
}

}  // namespace modescope::cli
