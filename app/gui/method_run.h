// The one shape of a method run from the GUI, shared by the workflows (EMD family, MEMD, ICA, AR
// spectra, entropy matrices, epochs): after the dialog has made the request, a job runs the method
// on the request's backend (the dialog's choice with its thread count, else the Compute menu's: the
// one rule, backendForRun in app/core/gpu_backend.h, through EngineBridge::backendFor)
// with progress and cancel in the job list; success hands the immutable typed result to the
// result view, failure shows the engine's message in an error box and then `failed`.
//
// Thread rules: call on the GUI thread; `run` runs on the engine thread and must only read what
// it captured.
#pragma once

#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "app/core/gpu_backend.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/workspace.h"

namespace modescope {

struct MethodRunText {
  QString job;          // the job list's line: "EMD of Cz (4 s from 0 s) in rec.edf"
  QString failHeading;  // the error box's title: "Decomposition failed"
  QString failText;     // its first line: "Could not compute the EMD of Cz (...)."
};

// The backend a run asks for: its own choice (the dialog's; nullopt: the Compute menu's) and, for
// a backend of its own on the CPU, its thread count (<= 0: all cores; recorded in the provenance
// through BackendInfo::describe, "CPU, 8 threads").
struct MethodBackend {
  MethodBackend(std::optional<BackendChoice> own = std::nullopt, int threads = 0)
      : choice(own), cpuThreads(threads) {}
  MethodBackend(std::nullopt_t) {}
  std::optional<BackendChoice> choice;
  int cpuThreads = 0;
};

// `run` is called as run(ComputeBackend&, JobContext&), or, where it also wants to keep why an
// own auto choice fell back to the CPU, as run(ComputeBackend&, const std::string& note,
// JobContext&) (note "" otherwise).
template <class Result, class Run>
JobId submitMethodRun(Workspace& workspace, const MethodRunText& text, MethodBackend backend,
                      Run run, std::function<void(std::shared_ptr<const Result>)> show,
                      std::function<void(const QString& message)> failed = {}) {
  EngineBridge* engine = workspace.engine();
  return workspace.submitTyped<Result>(
      text.job,
      [engine, backend, run = std::move(run)](JobContext& ctx) -> Result {
        std::string note;
        const std::shared_ptr<ComputeBackend> compute =
            engine->backendFor(backend.choice, backend.cpuThreads, &note);
        if constexpr (std::is_invocable_v<const Run&, ComputeBackend&, JobContext&>) {
          return run(*compute, ctx);
        } else {
          return run(*compute, std::as_const(note), ctx);
        }
      },
      text.failHeading, text.failText,
      [show = std::move(show)](JobId, std::shared_ptr<const Result> result) {
        show(std::move(result));
      },
      std::move(failed));
}

}  // namespace modescope
