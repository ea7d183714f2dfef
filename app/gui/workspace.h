// The workspace: what a ModeScope session is made of, apart from the widgets that show it. It
// sits between MainWindow and the method workflows (docs/architecture.md, "The workspace"):
//
//  - the documents: the opened recording first, then the derived recordings (filtered,
//    re-referenced, cleaned, interpolated, a montage applied). The window shows each as a tab
//    with a browser pane, linked by index (the tab's index is the document's index) and by the
//    document's id (stable while the document is open);
//  - the records of the jobs run on the current recording (saved with a session);
//  - the user's marks (bad channels, user annotations) and the recording as opened, before the
//    marks were put into it;
//  - the one undo stack (Edit > Undo/Redo) and the history of steps (a Pipeline,
//    docs/pipelines.md);
//  - the one way a job is submitted from the GUI (submitTyped): success reaches the caller as an
//    immutable typed result, failure an error box and the caller's failure handler.
//
// Workflows get a Workspace& (and a WorkflowHost&, app/gui/workflow_host.h, for the window's
// widgets) and never MainWindow. Thread rules: GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "app/core/pipeline.h"
#include "engine/core/job_queue.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/io/session.h"

class QUndoStack;
class QWidget;

namespace modescope {

class EngineBridge;

// One document (a tab of the window): a recording and how it came to be.
struct Document {
  std::shared_ptr<const Recording> recording;
  QString path;   // file it was read from; "" for generated or derived data
  QString title;  // tab text
  bool demo = false;
  bool derived = false;   // a job's result, not a file
  bool exported = false;  // a derived recording written to a file (nothing lost on closing it)
  QString origin;         // one line for the information panel ("" for a file opened as is)
  Provenance provenance;
  int id = 0;  // given by Workspace::addDocument, unique in the workspace's life
};

// How provenance names the document's input: its file (in the local 8-bit encoding) or, for
// generated and derived data, its title.
std::string documentInputFile(const Document& doc);

class Workspace : public QObject {
  Q_OBJECT

 public:
  // `engine` runs the jobs; `errorParent` is the parent of the error boxes of failed jobs.
  Workspace(EngineBridge* engine, QWidget* errorParent, QObject* parent = nullptr);
  ~Workspace() override;

  EngineBridge* engine() const { return engine_; }

  // --- Documents --------------------------------------------------------------------------
  const std::vector<Document>& documents() const { return documents_; }
  int documentCount() const { return static_cast<int>(documents_.size()); }
  const Document* document(int index) const;
  int indexOf(int documentId) const;  // -1 when the document is gone
  // The current document is the window's current tab (the window sets it).
  int currentIndex() const { return current_; }
  const Document* currentDocument() const { return document(current_); }
  void setCurrentIndex(int index);
  // Appends `doc` (documentAdded(index) follows, for the window to make its tab) and returns
  // its index.
  int addDocument(Document doc);
  // Removes the derived document at `index` (not the first: that is "open another").
  void removeDocument(int index);
  void clearDocuments();
  // Forgets the previous recording's documents, jobs, marks, undo steps and history; `marks`
  // (a session's) are the new recording's, already in the recording when it is added.
  void startNew(Marks marks = {});
  // A new recording becomes the first document (after startNew); recordingOpened(path) follows.
  int openPrimary(Document doc, const QString& path);
  // A session has been restored into the workspace (startNew, addDocument...): sessionLoaded.
  void finishSessionLoad(const QString& path) { emit sessionLoaded(path); }
  // Opens a job's derived recording as an undoable step `undoText` ("filter ..."): undo removes
  // the document and forgets its job record, redo adds it again. Returns its index.
  int addDerivedDocument(Document doc, JobId id, JobRecord record, const QString& undoText);
  // The derived documents showing `recording` are now in a file: closing them loses nothing.
  void markExported(const std::shared_ptr<const Recording>& recording);
  // The derived recordings that closing would discard, one line each.
  QStringList unsavedWork() const;

  // --- Marks ------------------------------------------------------------------------------
  const Marks& marks() const { return marks_; }
  // Replaces the marks (user annotations sorted by onset) and gives the first document's
  // recording the marks (withBadMarks, engine/core/bad_marks.h), so that every method and
  // export sees the bad channels and segments. marksChanged follows.
  void setMarks(Marks marks);
  // Replaces the user's annotations through setMarks; userAnnotationsChanged follows.
  void setUserAnnotations(std::vector<Annotation> annotations);
  // Replaces both: the file's annotations as corrected (nullopt: as read) and the user's.
  void setAnnotations(std::optional<std::vector<Annotation>> file, std::vector<Annotation> user);
  // The annotations of `doc`'s file (for the first document: as the user corrected them,
  // Marks::fileAnnotations): the first document's recording also carries the user's bad
  // segments (setMarks), which are listed with the user's annotations instead.
  const std::vector<Annotation>& fileAnnotations(const Document& doc) const;

  // --- Jobs -------------------------------------------------------------------------------
  // The records of the current recording's jobs, saved with the session.
  const std::map<JobId, JobRecord>& jobRecords() const { return jobRecords_; }
  void recordJob(JobId id, JobRecord record) { jobRecords_[id] = std::move(record); }
  // The one way the GUI submits a job: `fn` (engine thread) returns the job's result T, which
  // reaches `onSuccess` (GUI thread, with the job's id) as an immutable std::shared_ptr<const T>;
  // a failure reaches `onFailure` with the engine's message; a cancel only the job list. The
  // engine's queue carries the result type-erased: this is the only function that looks inside.
  template <class T>
  JobId submitJob(const QString& title, std::function<T(JobContext&)> fn,
                  std::function<void(JobId, std::shared_ptr<const T>)> onSuccess,
                  std::function<void(const QString& message)> onFailure) {
    auto id = std::make_shared<JobId>(0);
    *id = submitErased(
        title, [fn = std::move(fn)](JobContext& ctx) { return JobResult::of<T>(fn(ctx)); },
        [id, onSuccess = std::move(onSuccess),
         onFailure = std::move(onFailure)](const JobOutcome& out) {
          if (out.state == JobState::Succeeded) {
            onSuccess(*id, out.result.get<T>());
          } else if (out.state == JobState::Failed && onFailure) {
            onFailure(QString::fromStdString(out.message));
          }
        });
    return *id;
  }
  // The same with the common failure: an error box headed `failHeading` (`failText` its first
  // line, the engine's message below), then `onFailure` when given.
  template <class T>
  JobId submitTyped(const QString& title, std::function<T(JobContext&)> fn,
                    const QString& failHeading, const QString& failText,
                    std::function<void(JobId, std::shared_ptr<const T>)> onSuccess,
                    std::function<void(const QString& message)> onFailure = {}) {
    return submitJob<T>(
        title, std::move(fn), std::move(onSuccess),
        [this, failHeading, failText, onFailure = std::move(onFailure)](const QString& message) {
          showJobError(failHeading, failText, message);
          if (onFailure) onFailure(message);
        });
  }

  // --- History and undo -------------------------------------------------------------------
  // The steps run on the current recording, with their full parameters and seeds.
  const Pipeline& history() const { return history_; }
  void setHistory(Pipeline history);
  // Returns the step's index, for replaceRecordedStep.
  std::size_t recordStep(PipelineStep step);
  // A recorded step's later choices; ignored when `index` is not a step of that kind.
  void replaceRecordedStep(std::size_t index, PipelineStep step);
  // The one undo stack: derived recordings, marks, annotations, component marks.
  QUndoStack* undoStack() const { return undo_; }

 signals:
  void documentAdded(int index);
  void documentRemoved(int index);
  void documentsCleared();
  void currentDocumentChanged();
  void recordingOpened(const QString& path);  // a file (or the demo) became the first document
  void sessionLoaded(const QString& path);
  void marksChanged();
  void userAnnotationsChanged();
  void historyChanged();

 private:
  JobId submitErased(const QString& title, JobFunction fn,
                     std::function<void(const JobOutcome&)> onFinished);
  void showJobError(const QString& heading, const QString& text, const QString& message);

  EngineBridge* engine_;
  QWidget* errorParent_;
  std::vector<Document> documents_;
  int current_ = -1;
  int nextId_ = 1;
  std::map<JobId, JobRecord> jobRecords_;
  Marks marks_;
  std::shared_ptr<const Recording> unmarkedPrimary_;  // the first document as opened
  Pipeline history_;
  QUndoStack* undo_ = nullptr;
};

}  // namespace modescope
