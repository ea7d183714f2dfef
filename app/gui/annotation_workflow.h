// Annotating in the main window (issue 19, item 1):
//
//  - add: Shift + drag on the traces (or a plain drag in annotate mode, Edit > Annotate mode, A)
//    marks a span; a click marks an instant; Edit > Add annotation at cursor (Ctrl+Shift+A) marks
//    the time last under the mouse (the page's centre when none). The text is asked for, with the
//    known event types offered;
//  - edit onset, duration and text (Edit annotation..., F2, of the row selected in the
//    Annotations dock; a double-click on a row of yours) and delete (the Delete key in the dock, or
//    Delete annotation): yours and the file's;
//  - every change is one step of the window's undo stack (Edit > Undo), as the ICA marks are;
//  - the Events dock lists the event types with their counts (the file's and yours) and colours
//    (the browser draws each type in its colour; double-click a type to change its colour);
//  - File > Import annotations / Export annotations read and write CSV and BIDS events.tsv
//    (engine/io/annotation_files.h).
//
// The recording's annotations as the user sees them are two lists of the session's marks: the
// file's own as corrected (Marks::fileAnnotations, absent until the first correction; Edit >
// Restore the file's annotations brings back the file's as read) and yours (Marks::
// userAnnotations). The file itself is never changed. Both are saved in sessions, read by the
// methods (MainWindow::setMarks) and written into exported recordings (EDF+/BDF+ annotations,
// HDF5) and annotation tables.
//
// Thread rules: GUI thread. MainWindow owns it.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>
#include <vector>

#include "engine/core/recording.h"

class QAction;
class QDockWidget;
class QMenu;
class QTableView;

namespace modescope {

class AnnotationDragTool;
class AnnotationFilterModel;
class EventTypeModel;
class WorkflowHost;
class Workspace;
class SignalBrowser;

// The file's annotations as corrected (nullopt: as read) and the user's.
struct AnnotationLists {
  std::optional<std::vector<Annotation>> file;
  std::vector<Annotation> user;
};

// One annotation of the recording's tab: an index into the file's (as corrected) or the user's.
struct AnnotationRef {
  enum Origin { File, User } origin = User;
  int index = -1;
};

class AnnotationWorkflow : public QObject {
  Q_OBJECT

 public:
  // Creates the Events dock; `annotationView` is the window's Annotations table, whose rows
  // `annotationFilter` maps to the user's annotations.
  AnnotationWorkflow(Workspace& workspace, WorkflowHost& host, QTableView* annotationView,
                     AnnotationFilterModel* annotationFilter);

  // Lets the user annotate on `browser` (the recording's own tab).
  void attach(SignalBrowser* browser);
  // Edit-menu actions (annotate mode, add at cursor, edit, delete) and File-menu ones (import,
  // export).
  void addEditActions(QMenu* edit);
  void addFileActions(QMenu* file);

  // Undoable changes of the user's annotations; `index` into MainWindow::marks().userAnnotations.
  void add(Annotation a);
  void edit(int index, Annotation a);
  void remove(int index);
  void addAll(const std::vector<Annotation>& added, const QString& what);
  // Undoable changes of either list (a file index into MainWindow::fileAnnotations of the first
  // tab); the first change of the file's starts the corrected copy.
  void edit(const AnnotationRef& ref, Annotation a);
  void remove(const AnnotationRef& ref);
  // Drops the corrections of the file's annotations (one undo step).
  void restoreFileAnnotations();

  // Interactive: asks for the text (add), for every field (edit), or a file name.
  void addAtCursor();
  void askAdd(double onset, double duration);
  void askEditSelected();
  void removeSelected();
  bool importFile(const QString& path, QString* error = nullptr);
  bool exportFile(const QString& path, QString* error = nullptr) const;

  // The text asked for the next annotation: the last one used, or the first free "Mark N".
  QString nextText() const { return nextText_; }
  // Tests set an answer instead of the dialog (empty function: the dialog).
  void setTextQuestion(std::function<QString(const QString& proposed)> ask) {
    askText_ = std::move(ask);
  }

  EventTypeModel* eventTypes() const { return types_; }
  QDockWidget* dock() const { return dock_; }
  QTableView* typeView() const { return typeView_; }
  AnnotationDragTool* dragTool() const { return drag_; }
  QAction* annotateModeAction() const { return annotateMode_; }

  // Recomputes the event type list (after the recording or the marks changed).
  void refresh();

 private:
  AnnotationLists current() const;
  void apply(AnnotationLists after, const QString& undoText);
  void apply(std::vector<Annotation> user, const QString& undoText);
  std::vector<Annotation>* listOf(AnnotationLists& lists, const AnnotationRef& ref) const;
  std::optional<AnnotationRef> selectedRow() const;
  QStringList knownTypes() const;

  Workspace& workspace_;
  WorkflowHost& host_;
  QTableView* annotationView_;
  AnnotationFilterModel* annotationFilter_;
  EventTypeModel* types_ = nullptr;
  QTableView* typeView_ = nullptr;
  QDockWidget* dock_ = nullptr;
  AnnotationDragTool* drag_ = nullptr;
  QAction* annotateMode_ = nullptr;
  QString nextText_ = QStringLiteral("Mark");
  std::function<QString(const QString&)> askText_;
};

}  // namespace modescope
