// Process > Apply montage as new recording (docs/montages.md, "Applying a montage"): the
// derivation montage shown on the current tab (else one chosen from the built-in ones or a
// montage file) computed by a background job (app/core/montage_job.h) into a new, undoable tab,
// as the window's other derived recordings. The history records a pipeline step "montage" (the
// built-in's name when the montage is one, else its derivations), which a replay in the window or
// `modescope-cli run` reproduces bit for bit.
//
// Thread rules: GUI thread. MainWindow owns it (MainWindow::montageWorkflow).
#pragma once

#include <QObject>
#include <QString>
#include <string>

#include "app/core/pipeline.h"
#include "engine/core/job_queue.h"
#include "engine/montage/derivations.h"

namespace modescope {

class WorkflowHost;
class Workspace;

class MontageWorkflow : public QObject {
  Q_OBJECT

 public:
  MontageWorkflow(Workspace& workspace, WorkflowHost& host);

  // The menu action: the current tab's montage, else a choice (built-in or file).
  void askApply();
  // Applies `montage` to the current tab's recording; `source` for the provenance ("laplacian",
  // a file, "" = made in the window). Returns the job, 0 when nothing was started.
  JobId apply(const DerivationMontage& montage, const std::string& source);
  // A pipeline step on the current tab (File > Apply pipeline). Throws what the built-in
  // montage's formation throws.
  JobId applyStep(const PipelineMontageStep& step);

 signals:
  void applied(int tab);  // the derived recording's tab

 private:
  Workspace& workspace_;
  WorkflowHost& host_;
};

}  // namespace modescope
