// The one shape of a method run from the GUI, shared by the workflows (EMD family, MEMD, AR
// spectra, entropy matrices): after the dialog has made the request, a job runs the method on
// the request's backend (the dialog's choice, else the Compute menu's: EngineBridge::backendFor)
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

#include "app/core/gpu_backend.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/workspace.h"

namespace modescope {

struct MethodRunText {
  QString job;          // the job list's line: "EMD of Cz (4 s from 0 s) in rec.edf"
  QString failHeading;  // the error box's title: "Decomposition failed"
  QString failText;     // its first line: "Could not compute the EMD of Cz (...)."
};

template <class Result>
JobId submitMethodRun(Workspace& workspace, const MethodRunText& text,
                      std::optional<BackendChoice> backend,
                      std::function<Result(ComputeBackend&, JobContext&)> run,
                      std::function<void(std::shared_ptr<const Result>)> show,
                      std::function<void(const QString& message)> failed = {}) {
  EngineBridge* engine = workspace.engine();
  return workspace.submitTyped<Result>(
      text.job,
      [engine, backend, run = std::move(run)](JobContext& ctx) -> Result {
        return run(*engine->backendFor(backend), ctx);
      },
      text.failHeading, text.failText,
      [show = std::move(show)](JobId, std::shared_ptr<const Result> result) {
        show(std::move(result));
      },
      std::move(failed));
}

}  // namespace modescope
