#include "app/gui/workspace.h"

#include <QFile>
#include <QUndoStack>
#include <algorithm>

#include "app/gui/engine_bridge.h"
#include "app/gui/error_presenter.h"
#include "engine/core/bad_marks.h"
#include "engine/core/corrected_annotations.h"

namespace modescope {
namespace {

// An undo step made of two closures.
class StepCommand : public QUndoCommand {
 public:
  StepCommand(const QString& text, std::function<void()> redo, std::function<void()> undo)
      : redo_(std::move(redo)), undo_(std::move(undo)) {
    setText(text);
  }
  void redo() override { redo_(); }
  void undo() override { undo_(); }

 private:
  std::function<void()> redo_, undo_;
};

}  // namespace

std::string documentInputFile(const Document& doc) {
  return doc.path.isEmpty() ? doc.title.toStdString() : QFile::encodeName(doc.path).toStdString();
}

Workspace::Workspace(EngineBridge* engine, QWidget* errorParent, QObject* parent)
    : QObject(parent), engine_(engine), errorParent_(errorParent) {
  undo_ = new QUndoStack(this);
  // A saved session carries each job's final state and time.
  connect(engine_, &EngineBridge::jobFinished, this, [this](JobId id, const JobOutcome& out) {
    if (auto it = jobRecords_.find(id); it != jobRecords_.end()) {
      it->second.state = jobStateName(out.state);
      it->second.message = out.message;
      it->second.provenance.wallSeconds = out.wallSeconds;
    }
  });
}

Workspace::~Workspace() = default;

const Document* Workspace::document(int index) const {
  if (index < 0 || index >= documentCount()) return nullptr;
  return &documents_[static_cast<std::size_t>(index)];
}

int Workspace::indexOf(int documentId) const {
  for (int i = 0; i < documentCount(); ++i)
    if (documents_[static_cast<std::size_t>(i)].id == documentId) return i;
  return -1;
}

void Workspace::setCurrentIndex(int index) {
  current_ = document(index) ? index : -1;
  emit currentDocumentChanged();
}

int Workspace::addDocument(Document doc) {
  doc.id = nextId_++;
  documents_.push_back(std::move(doc));
  const int index = documentCount() - 1;
  emit documentAdded(index);
  return index;
}

void Workspace::removeDocument(int index) {
  if (index <= 0 || index >= documentCount()) return;
  documents_.erase(documents_.begin() + index);
  if (current_ >= documentCount()) current_ = documentCount() - 1;
  emit documentRemoved(index);
}

void Workspace::clearDocuments() {
  documents_.clear();
  current_ = -1;
  emit documentsCleared();
}

void Workspace::startNew(Marks marks) {
  undo_->clear();  // its steps refer to the documents of the previous recording
  jobRecords_.clear();
  marks_ = std::move(marks);
  setHistory(Pipeline{});
  clearDocuments();
}

int Workspace::openPrimary(Document doc, const QString& path) {
  startNew();
  const int index = addDocument(std::move(doc));
  emit recordingOpened(path);
  return index;
}

int Workspace::addDerivedDocument(Document doc, JobId id, JobRecord record,
                                  const QString& undoText) {
  // The document made by each redo, so undo removes it wherever it has moved.
  auto added = std::make_shared<int>(0);
  undo_->push(new StepCommand(
      undoText,
      [this, doc, record, id, added] {
        jobRecords_[id] = record;
        const int index = addDocument(doc);
        *added = documents_[static_cast<std::size_t>(index)].id;
      },
      [this, id, added] {
        jobRecords_.erase(id);
        removeDocument(indexOf(*added));
      }));
  return indexOf(*added);
}

void Workspace::markExported(const std::shared_ptr<const Recording>& recording) {
  for (Document& d : documents_)
    if (d.recording == recording) d.exported = true;
}

QStringList Workspace::unsavedWork() const {
  QStringList lost;
  for (const Document& d : documents_) {
    if (d.derived && !d.exported)
      lost << tr("the derived recording \"%1\" (not exported)").arg(d.title);
  }
  return lost;
}

void Workspace::setMarks(Marks marks) {
  const auto byOnset = [](const Annotation& a, const Annotation& b) { return a.onset < b.onset; };
  std::stable_sort(marks.userAnnotations.begin(), marks.userAnnotations.end(), byOnset);
  if (marks.fileAnnotations)
    std::stable_sort(marks.fileAnnotations->begin(), marks.fileAnnotations->end(), byOnset);
  marks_ = std::move(marks);
  if (!documents_.empty() && !documents_.front().derived) {
    Document& primary = documents_.front();
    // A recording opened since the last call (copies made here share its samples' source).
    if (!unmarkedPrimary_ || unmarkedPrimary_->source != primary.recording->source)
      unmarkedPrimary_ = primary.recording;
    // The file's annotations as corrected replace the file's own for every method and export.
    primary.recording =
        withBadMarks(*withFileAnnotations(*unmarkedPrimary_, marks_.fileAnnotations),
                     marks_.badChannels, marks_.userAnnotations);
  }
  emit marksChanged();
}

void Workspace::setUserAnnotations(std::vector<Annotation> annotations) {
  setAnnotations(marks_.fileAnnotations, std::move(annotations));
}

void Workspace::setAnnotations(std::optional<std::vector<Annotation>> file,
                               std::vector<Annotation> user) {
  // Through setMarks: an annotation starting with "bad" is a bad segment, which the recording
  // that methods read must carry too, and the corrected file annotations replace the file's.
  Marks marks = marks_;
  marks.fileAnnotations = std::move(file);
  marks.userAnnotations = std::move(user);
  setMarks(std::move(marks));
  emit userAnnotationsChanged();
}

const std::vector<Annotation>& Workspace::fileAnnotations(const Document& doc) const {
  const bool marked = !doc.derived && !documents_.empty() && &doc == &documents_.front() &&
                      unmarkedPrimary_ && unmarkedPrimary_->source == doc.recording->source;
  if (marked && marks_.fileAnnotations) return *marks_.fileAnnotations;
  return marked ? unmarkedPrimary_->annotations : doc.recording->annotations;
}

JobId Workspace::submitErased(const QString& title, JobFunction fn,
                              std::function<void(const JobOutcome&)> onFinished) {
  return engine_->submit(title, std::move(fn), std::move(onFinished));
}

void Workspace::showJobError(const QString& heading, const QString& text, const QString& message) {
  showError(errorParent_, heading, text, message);
}

void Workspace::setHistory(Pipeline history) {
  history_ = std::move(history);
  emit historyChanged();
}

std::size_t Workspace::recordStep(PipelineStep step) {
  history_.steps.push_back(std::move(step));
  emit historyChanged();
  return history_.steps.size() - 1;
}

void Workspace::replaceRecordedStep(std::size_t index, PipelineStep step) {
  if (index < history_.steps.size() && history_.steps[index].index() == step.index()) {
    history_.steps[index] = std::move(step);
    emit historyChanged();
  }
}

}  // namespace modescope
