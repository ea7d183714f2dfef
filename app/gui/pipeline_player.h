// File > Apply pipeline: runs a pipeline's steps (app/core/pipeline.h) on the workspace's current
// document one after another, as the user would through the dialogs: a filter step (the host's
// runPreprocess) adds a derived document, which later steps read (as `modescope-cli run` does);
// the method steps go to their workflows, whose results open in their docks. It needs the
// Workspace, the WorkflowHost and the workflows, not the window. A step starts when the previous
// one has finished; a failed or cancelled job, or a step that cannot be mapped onto the recording
// (a channel it lacks), stops the rest.
//
// Thread rules: GUI thread. The player deletes itself when it is done.
#pragma once

#include <QObject>
#include <QString>

#include "app/core/pipeline.h"
#include "engine/core/job_queue.h"

namespace modescope {

class BadMarksWorkflow;
class EmdWorkflow;
class EntropyWorkflow;
class EpochWorkflow;
class IcaWorkflow;
class MemdWorkflow;
class MontageWorkflow;
class WorkflowHost;
class Workspace;

// The workflows whose runs a pipeline's steps repeat (null: a step of that kind stops the
// pipeline with "could not be started").
struct PipelineWorkflows {
  EmdWorkflow* emd = nullptr;
  MemdWorkflow* memd = nullptr;
  IcaWorkflow* ica = nullptr;
  EntropyWorkflow* entropy = nullptr;
  BadMarksWorkflow* badMarks = nullptr;
  EpochWorkflow* epochs = nullptr;
  MontageWorkflow* montage = nullptr;
};

class PipelinePlayer : public QObject {
  Q_OBJECT

 public:
  // A child of host.hostWindow(); `name` (the file's) begins the failure messages.
  PipelinePlayer(Workspace& workspace, WorkflowHost& host, PipelineWorkflows workflows,
                 Pipeline pipeline, QString name);
  void start();

 signals:
  void stepStarted(int index, const QString& label);
  void finished();                      // every step done
  void failed(const QString& message);  // which step, and why

 private:
  void runStep();
  void onJobFinished(JobId id, const JobOutcome& outcome);
  void stop(const QString& message);

  Workspace& workspace_;
  WorkflowHost& host_;
  PipelineWorkflows workflows_;
  Pipeline pipeline_;
  QString name_;  // the file, for messages
  std::size_t next_ = 0;
  JobId running_ = 0;
};

}  // namespace modescope
