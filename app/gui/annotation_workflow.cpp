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

// One change of the user's annotations: the whole list before and after (a user's marks are a
// few hundred at most, and a list replaced whole cannot drift from what undo restores).
class AnnotationsCommand : public QUndoCommand {
 public:
  AnnotationsCommand(Workspace& workspace, std::vector<Annotation> before,
                     std::vector<Annotation> after, const QString& text)
      : workspace_(workspace), before_(std::move(before)), after_(std::move(after)) {
    setText(text);
  }
  void redo() override { workspace_.setUserAnnotations(after_); }
  void undo() override { workspace_.setUserAnnotations(before_); }

 private:
  Workspace& workspace_;
  std::vector<Annotation> before_, after_;
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

// Delete in the annotation table removes the selected annotation of yours.
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
  // Double-click edits a row of yours (the file's rows keep jumping to their time).
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
  QAction* del =
      edit->addAction(tr("&Delete annotation"), this, &AnnotationWorkflow::removeSelected);
  del->setObjectName(QStringLiteral("deleteAnnotation"));
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

void AnnotationWorkflow::apply(std::vector<Annotation> after, const QString& undoText) {
  workspace_.undoStack()->push(new AnnotationsCommand(
      workspace_, workspace_.marks().userAnnotations, sortedByOnset(std::move(after)), undoText));
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
  std::vector<Annotation> after = workspace_.marks().userAnnotations;
  if (index < 0 || index >= static_cast<int>(after.size())) return;
  const QString text = tr("edit annotation '%1'").arg(QString::fromStdString(a.text));
  after[static_cast<std::size_t>(index)] = std::move(a);
  apply(std::move(after), text);
}

void AnnotationWorkflow::remove(int index) {
  std::vector<Annotation> after = workspace_.marks().userAnnotations;
  if (index < 0 || index >= static_cast<int>(after.size())) return;
  const QString text =
      tr("delete annotation '%1'")
          .arg(QString::fromStdString(after[static_cast<std::size_t>(index)].text));
  after.erase(after.begin() + index);
  apply(std::move(after), text);
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

int AnnotationWorkflow::selectedUserIndex() const {
  const QModelIndexList rows = annotationView_->selectionModel()
                                   ? annotationView_->selectionModel()->selectedRows()
                                   : QModelIndexList{};
  const QModelIndex current = rows.isEmpty() ? annotationView_->currentIndex() : rows.first();
  if (!current.isValid()) return -1;
  return annotationFilter_->userIndexAt(current.row());
}

void AnnotationWorkflow::askEditSelected() {
  const int index = selectedUserIndex();
  const auto& user = workspace_.marks().userAnnotations;
  if (index < 0 || index >= static_cast<int>(user.size())) {
    host_.showStatus(
        tr("Only your annotations (bold) can be edited; the file's are kept as recorded"), 5000);
    return;
  }
  const Document* doc = workspace_.currentDocument();
  const double end = doc && doc->recording ? doc->recording->duration() : 1e9;
  AnnotationEditDialog dialog(host_.hostWindow(), user[static_cast<std::size_t>(index)], end,
                              knownTypes());
  if (dialog.exec() != QDialog::Accepted) return;
  const Annotation a = dialog.value();
  if (a.text.empty()) return;
  edit(index, a);
}

void AnnotationWorkflow::removeSelected() {
  const int index = selectedUserIndex();
  if (index < 0) {
    host_.showStatus(
        tr("Only your annotations (bold) can be deleted; the file's are kept as recorded"), 5000);
    return;
  }
  remove(index);
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
