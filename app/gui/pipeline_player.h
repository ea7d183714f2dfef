// File > Apply pipeline: runs a pipeline's steps (app/core/pipeline.h) on the window's current
// recording one after another, as the user would through the dialogs: a filter step adds a
// derived tab, which later steps read (as `modescope-cli run` does); decompositions open their
// result tabs. A step starts when the previous one has finished; a failed or cancelled job, or a
// step that cannot be mapped onto the recording (a channel it lacks), stops the rest.
//
// Thread rules: GUI thread. The player deletes itself when it is done.
#pragma once

#include <QObject>
#include <QString>

#include "app/core/pipeline.h"
#include "engine/core/job_queue.h"

namespace modescope {

class MainWindow;

class PipelinePlayer : public QObject {
  Q_OBJECT

 public:
  PipelinePlayer(MainWindow* window, Pipeline pipeline, QString name);
  void start();

 signals:
  void stepStarted(int index, const QString& label);
  void finished();                      // every step done
  void failed(const QString& message);  // which step, and why

 private:
  void runStep();
  void onJobFinished(JobId id, const JobOutcome& outcome);
  void stop(const QString& message);

  MainWindow* window_;
  Pipeline pipeline_;
  QString name_;  // the file, for messages
  std::size_t next_ = 0;
  JobId running_ = 0;
};

}  // namespace modescope
