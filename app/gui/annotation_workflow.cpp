#include "app/gui/annotation_workflow.h"

#include <QAction>
#include <QColorDialog>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QStatusBar>
#include <QTableView>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>

#include "app/gui/annotation_drag_tool.h"
#include "app/gui/error_presenter.h"
#include "app/gui/workflow_host.h"
#include "app/gui/workspace.h"
#include "engine/core/error.h"
#include "engine/io/annotation_files.h"
#include "widgets/annotation_colours.h"
#include "widgets/annotation_model.h"
#include "widgets/event_type_model.h"
#include "widgets/signal_browser.h"

namespace modescope {
namespace {

// One change of the recording's annotations as the user sees them: the file's as corrected and
// the user's, whole lists before and after (a few hundred rows at most; a list replaced whole
// cannot drift from what undo restores).
class AnnotationsCommand : public QUndoCommand {
 public:
  AnnotationsCommand(Workspace& workspace, AnnotationLists before, AnnotationLists after,
                     const QString& text)
      : workspace_(workspace), before_(std::move(before)), after_(std::move(after)) {
    setText(text);
  }
  void redo() override { workspace_.setAnnotations(after_.file, after_.user); }
  void undo() override { workspace_.setAnnotations(before_.file, before_.user); }

 private:
  Workspace& workspace_;
  AnnotationLists before_, after_;
};

std::vector<Annotation> sortedByOnset(std::vector<Annotation> v) {
  std::stable_sort(v.begin(), v.end(),
                   [](const Annotation& a, const Annotation& b) { return a.onset < b.onset; });
  return v;
}

// Onset, duration and text of one annotation.
class AnnotationEditDialog : public QDialog {
 public:
  AnnotationEditDialog(QWidget* parent, const Annotation& a, double maxSeconds,
                       const QStringList& types)
      : QDialog(parent) {
    setWindowTitle(tr("Edit annotation"));
    setObjectName(QStringLiteral("annotationEditDialog"));
    onset_ = new QDoubleSpinBox;
    onset_->setObjectName(QStringLiteral("annotationOnset"));
    onset_->setRange(0.0, maxSeconds);
    onset_->setDecimals(4);
    onset_->setSuffix(tr(" s"));
    onset_->setValue(a.onset);
    duration_ = new QDoubleSpinBox;
    duration_->setObjectName(QStringLiteral("annotationDuration"));
    duration_->setRange(0.0, maxSeconds);
    duration_->setDecimals(4);
    duration_->setSuffix(tr(" s"));
    duration_->setValue(a.duration);
    text_ = new QComboBox;
    text_->setObjectName(QStringLiteral("annotationText"));
    text_->setEditable(true);
    text_->addItems(types);
    text_->setCurrentText(QString::fromStdString(a.text));
    auto* form = new QFormLayout;
    form->addRow(tr("Onset"), onset_);
    form->addRow(tr("Duration"), duration_);
    form->addRow(tr("Text"), text_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(
        new QLabel(tr("Texts beginning with \"bad\" mark bad segments: epochs "
                      "that overlap them are rejected.")));
    layout->addWidget(buttons);
  }
  Annotation value() const {
    return {onset_->value(), duration_->value(), text_->currentText().trimmed().toStdString()};
  }

 private:
  QDoubleSpinBox *onset_, *duration_;
  QComboBox* text_;
};

// Delete in the annotation table removes the selected annotation (the file's as a correction
// kept in the session).
class DeleteKeyFilter : public QObject {
 public:
  DeleteKeyFilter(AnnotationWorkflow* flow, QObject* parent) : QObject(parent), flow_(flow) {}
  bool eventFilter(QObject*, QEvent* e) override {
    if (e->type() != QEvent::KeyPress) return false;
    const int key = static_cast<QKeyEvent*>(e)->key();
    if (key != Qt::Key_Delete && key != Qt::Key_Backspace) return false;
    flow_->removeSelected();
    return true;
  }

 private:
  AnnotationWorkflow* flow_;
};

}  // namespace

AnnotationWorkflow::AnnotationWorkflow(Workspace& workspace, WorkflowHost& host,
                                       QTableView* annotationView,
                                       AnnotationFilterModel* annotationFilter)
    : QObject(host.hostWindow()),
      workspace_(workspace),
      host_(host),
      annotationView_(annotationView),
      annotationFilter_(annotationFilter) {
  types_ = new EventTypeModel(this);
  typeView_ = new QTableView;
  typeView_->setObjectName(QStringLiteral("eventTypeTable"));
  typeView_->setModel(types_);
  typeView_->verticalHeader()->hide();
  typeView_->horizontalHeader()->setStretchLastSection(false);
  typeView_->horizontalHeader()->setSectionResizeMode(EventTypeModel::TypeColumn,
                                                      QHeaderView::Stretch);
  typeView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  typeView_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  connect(typeView_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const std::string type = types_->type(index.row());
    const QColor c = QColorDialog::getColor(annotationColour(type), host_.hostWindow(),
                                            tr("Colour of %1").arg(QString::fromStdString(type)));
    if (!c.isValid()) return;
    setAnnotationColour(type, c);
    types_->coloursChanged();
    if (SignalBrowser* b = browserAt(host_, workspace_.currentIndex())) b->update();
  });
  dock_ = new QDockWidget(tr("Events"), host.hostWindow());
  dock_->setObjectName(QStringLiteral("eventTypeDock"));
  dock_->setWidget(typeView_);
  host.hostWindow()->addDockWidget(Qt::RightDockWidgetArea, dock_);

  drag_ = new AnnotationDragTool(this);
  connect(drag_, &AnnotationDragTool::spanMarked, this,
          [this](double onset, double duration) { askAdd(onset, duration); });
  annotationView->installEventFilter(new DeleteKeyFilter(this, this));
  // Double-click shows the annotation (MainWindow); on a row of yours it also opens it for
  // editing. The file's rows are corrected with Edit annotation... (F2): a reviewer
  // double-clicks through a technician's events to look at them, which must not open a dialog.
  connect(annotationView, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    if (annotationFilter_->userIndexAt(index.row()) >= 0) askEditSelected();
  });
  connect(&workspace, &Workspace::userAnnotationsChanged, this, &AnnotationWorkflow::refresh);
}

void AnnotationWorkflow::attach(SignalBrowser* browser) { drag_->attach(browser); }

void AnnotationWorkflow::addEditActions(QMenu* edit) {
  edit->addSeparator();
  annotateMode_ = edit->addAction(tr("&Annotate mode (drag marks a span)"));
  annotateMode_->setObjectName(QStringLiteral("annotateMode"));
  annotateMode_->setCheckable(true);
  annotateMode_->setShortcut(QKeySequence(Qt::Key_A));
  annotateMode_->setStatusTip(
      tr("A drag on the traces marks an annotation; without it, Shift + drag does"));
  connect(annotateMode_, &QAction::toggled, this, [this](bool on) { drag_->setAnnotateMode(on); });
  QAction* add =
      edit->addAction(tr("Add annotation at &cursor"), this, &AnnotationWorkflow::addAtCursor);
  add->setObjectName(QStringLiteral("addAnnotation"));
  add->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
  QAction* editAction =
      edit->addAction(tr("&Edit annotation..."), this, &AnnotationWorkflow::askEditSelected);
  editAction->setObjectName(QStringLiteral("editAnnotation"));
  editAction->setShortcut(QKeySequence(Qt::Key_F2));
  editAction->setStatusTip(
      tr("Edit the annotation selected in the Annotations dock (the file's: corrected in the "
         "session, the file is not changed)"));
  QAction* del =
      edit->addAction(tr("&Delete annotation"), this, &AnnotationWorkflow::removeSelected);
  del->setObjectName(QStringLiteral("deleteAnnotation"));
  QAction* restore = edit->addAction(tr("&Restore the file's annotations"), this,
                                     &AnnotationWorkflow::restoreFileAnnotations);
  restore->setObjectName(QStringLiteral("restoreFileAnnotations"));
  restore->setStatusTip(tr("Undo every correction of the file's own annotations in one step"));
}

void AnnotationWorkflow::addFileActions(QMenu* file) {
  QAction* in = file->addAction(tr("&Import annotations..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        host_.hostWindow(), tr("Import annotations"), QString(),
        tr("Annotation tables (*.csv *.tsv);;BIDS events (*_events.tsv *.tsv);;CSV (*.csv)"));
    QString error;
    if (!path.isEmpty() && !importFile(path, &error))
      showError(host_.hostWindow(), tr("Import failed"), tr("Could not import %1.").arg(path),
                error);
  });
  in->setObjectName(QStringLiteral("importAnnotations"));
  QAction* out = file->addAction(tr("E&xport annotations..."), this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(host_.hostWindow(), tr("Export annotations"), QString(),
                                     tr("BIDS events (*_events.tsv *.tsv);;CSV (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportFile(path, &error))
      showError(host_.hostWindow(), tr("Export failed"), tr("Could not write %1.").arg(path),
                error);
  });
  out->setObjectName(QStringLiteral("exportAnnotations"));
}

AnnotationLists AnnotationWorkflow::current() const {
  return {workspace_.marks().fileAnnotations, workspace_.marks().userAnnotations};
}

void AnnotationWorkflow::apply(AnnotationLists after, const QString& undoText) {
  after.user = sortedByOnset(std::move(after.user));
  if (after.file) after.file = sortedByOnset(std::move(*after.file));
  workspace_.undoStack()->push(
      new AnnotationsCommand(workspace_, current(), std::move(after), undoText));
}

void AnnotationWorkflow::apply(std::vector<Annotation> user, const QString& undoText) {
  apply(AnnotationLists{workspace_.marks().fileAnnotations, std::move(user)}, undoText);
}

void AnnotationWorkflow::add(Annotation a) {
  nextText_ = QString::fromStdString(a.text);
  std::vector<Annotation> after = workspace_.marks().userAnnotations;
  const QString text = tr("add annotation '%1'").arg(QString::fromStdString(a.text));
  after.push_back(std::move(a));
  apply(std::move(after), text);
}

void AnnotationWorkflow::addAll(const std::vector<Annotation>& added, const QString& what) {
  std::vector<Annotation> after = workspace_.marks().userAnnotations;
  after.insert(after.end(), added.begin(), added.end());
  apply(std::move(after), what);
}

void AnnotationWorkflow::edit(int index, Annotation a) {
  edit({AnnotationRef::User, index}, std::move(a));
}

void AnnotationWorkflow::remove(int index) { remove({AnnotationRef::User, index}); }

std::vector<Annotation>* AnnotationWorkflow::listOf(AnnotationLists& lists,
                                                    const AnnotationRef& ref) const {
  if (ref.origin == AnnotationRef::User) return &lists.user;
  // The first correction starts from the file's annotations as read.
  const Document* primary = workspace_.document(0);
  if (!primary || primary->derived) return nullptr;
  if (!lists.file) lists.file = workspace_.fileAnnotations(*primary);
  return &*lists.file;
}

void AnnotationWorkflow::edit(const AnnotationRef& ref, Annotation a) {
  AnnotationLists after = current();
  std::vector<Annotation>* list = listOf(after, ref);
  if (!list || ref.index < 0 || ref.index >= static_cast<int>(list->size())) return;
  const QString text = ref.origin == AnnotationRef::File ? tr("correct the file's annotation '%1'")
                                                         : tr("edit annotation '%1'");
  (*list)[static_cast<std::size_t>(ref.index)] = a;
  apply(std::move(after), text.arg(QString::fromStdString(a.text)));
}

void AnnotationWorkflow::remove(const AnnotationRef& ref) {
  AnnotationLists after = current();
  std::vector<Annotation>* list = listOf(after, ref);
  if (!list || ref.index < 0 || ref.index >= static_cast<int>(list->size())) return;
  const QString text = ref.origin == AnnotationRef::File ? tr("delete the file's annotation '%1'")
                                                         : tr("delete annotation '%1'");
  const std::string removed = (*list)[static_cast<std::size_t>(ref.index)].text;
  list->erase(list->begin() + ref.index);
  apply(std::move(after), text.arg(QString::fromStdString(removed)));
}

void AnnotationWorkflow::restoreFileAnnotations() {
  if (!workspace_.marks().fileAnnotations) {
    host_.showStatus(tr("The file's annotations are as recorded"), 5000);
    return;
  }
  apply(AnnotationLists{std::nullopt, workspace_.marks().userAnnotations},
        tr("restore the file's annotations"));
}

QStringList AnnotationWorkflow::knownTypes() const {
  QStringList out;
  for (int r = 0; r < types_->rowCount(); ++r) out << QString::fromStdString(types_->type(r));
  return out;
}

void AnnotationWorkflow::askAdd(double onset, double duration) {
  const Document* doc = workspace_.currentDocument();
  if (!doc || doc->derived) {
    host_.showStatus(tr("Annotations belong to the recording: switch to its tab to annotate"),
                     5000);
    return;
  }
  QString text;
  if (askText_) {
    text = askText_(nextText_);
  } else {
    bool ok = false;
    QStringList items = knownTypes();
    items.removeAll(nextText_);
    items.prepend(nextText_);
    text = QInputDialog::getItem(
        host_.hostWindow(), tr("Add annotation"),
        duration > 0 ? tr("Text for %1 s from %2 s").arg(duration, 0, 'f', 3).arg(onset, 0, 'f', 3)
                     : tr("Text for the event at %1 s").arg(onset, 0, 'f', 3),
        items, 0, true, &ok);
    if (!ok) return;
  }
  text = text.trimmed();
  if (text.isEmpty()) return;
  add({onset, duration, text.toStdString()});
}

void AnnotationWorkflow::addAtCursor() {
  const SignalBrowser* b = browserAt(host_, workspace_.currentIndex());
  if (!b) return;
  const auto t = drag_->lastCursorTime();
  askAdd(t ? *t : b->pageStart() + b->pageLength() / 2, 0.0);
}

std::optional<AnnotationRef> AnnotationWorkflow::selectedRow() const {
  const Document* doc = workspace_.currentDocument();
  if (!doc || doc->derived) return std::nullopt;  // a derived tab's annotations are its own
  const QModelIndexList rows = annotationView_->selectionModel()
                                   ? annotationView_->selectionModel()->selectedRows()
                                   : QModelIndexList{};
  const QModelIndex current = rows.isEmpty() ? annotationView_->currentIndex() : rows.first();
  if (!current.isValid()) return std::nullopt;
  if (const int user = annotationFilter_->userIndexAt(current.row()); user >= 0)
    return AnnotationRef{AnnotationRef::User, user};
  if (const int file = annotationFilter_->fileIndexAt(current.row()); file >= 0)
    return AnnotationRef{AnnotationRef::File, file};
  return std::nullopt;
}

void AnnotationWorkflow::askEditSelected() {
  const std::optional<AnnotationRef> ref = selectedRow();
  const Document* doc = workspace_.currentDocument();
  if (!ref || !doc) {
    host_.showStatus(
        tr("Select an annotation of the recording's tab in the Annotations dock to edit it"), 5000);
    return;
  }
  const std::vector<Annotation>& list = ref->origin == AnnotationRef::User
                                            ? workspace_.marks().userAnnotations
                                            : workspace_.fileAnnotations(*doc);
  if (ref->index >= static_cast<int>(list.size())) return;
  const double end = doc->recording ? doc->recording->duration() : 1e9;
  AnnotationEditDialog dialog(host_.hostWindow(), list[static_cast<std::size_t>(ref->index)], end,
                              knownTypes());
  if (ref->origin == AnnotationRef::File)
    dialog.setWindowTitle(tr("Correct the file's annotation (the file is not changed)"));
  if (dialog.exec() != QDialog::Accepted) return;
  const Annotation a = dialog.value();
  if (a.text.empty()) return;
  edit(*ref, a);
}

void AnnotationWorkflow::removeSelected() {
  const std::optional<AnnotationRef> ref = selectedRow();
  if (!ref) {
    host_.showStatus(
        tr("Select an annotation of the recording's tab in the Annotations dock to delete it"),
        5000);
    return;
  }
  remove(*ref);
}

bool AnnotationWorkflow::importFile(const QString& path, QString* error) {
  try {
    const Document* doc = workspace_.currentDocument();
    if (!doc || doc->derived) throw InvalidParameterError("recording", "none", "an open recording");
    std::vector<Annotation> added = readAnnotationFile(path.toStdString());
    const double end = doc->recording->duration();
    for (const Annotation& a : added)
      if (a.onset > end)
        throw InvalidInputError(path.toStdString(), "onset",
                                std::to_string(a.onset) + " s ('" + a.text + "')",
                                "an onset within the recording's " + std::to_string(end) + " s",
                                "check that the table belongs to this recording");
    addAll(added,
           tr("import %1 annotations from %2").arg(added.size()).arg(QFileInfo(path).fileName()));
    host_.showStatus(tr("%1 annotation(s) imported from %2").arg(added.size()).arg(path), 5000);
    return true;
  } catch (const Error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool AnnotationWorkflow::exportFile(const QString& path, QString* error) const {
  try {
    const Document* doc = workspace_.currentDocument();
    if (!doc) throw InvalidParameterError("recording", "none", "an open recording");
    std::vector<Annotation> all = workspace_.fileAnnotations(*doc);
    if (!doc->derived) all = mergeAnnotations(all, workspace_.marks().userAnnotations);
    double fs = 0;
    for (const ChannelInfo& c : doc->recording->channels) fs = std::max(fs, c.sampleRate);
    writeAnnotationFile(path.toStdString(), all, fs);
    return true;
  } catch (const Error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

void AnnotationWorkflow::refresh() {
  const Document* doc = workspace_.currentDocument();
  if (!doc) {
    types_->setAnnotations({}, {});
    return;
  }
  types_->setAnnotations(
      workspace_.fileAnnotations(*doc),
      doc->derived ? std::vector<Annotation>{} : workspace_.marks().userAnnotations);
}

}  // namespace modescope
