// The main window: the signal browser (one tab per recording: the opened one first, derived
// results after it), the view tool bar, docks for channels, annotations, recording information
// and jobs, the menus, and the status bar (backend, file, cursor time). What it shows (the
// documents, job records, marks, undo stack and history) belongs to its Workspace
// (app/gui/workspace.h); the window makes a tab per document on the workspace's signals and is
// the workflows' WorkflowHost.
//
// Everything slow runs as an engine job through EngineBridge (opening, generating, filtering,
// exporting, sessions), so the window never freezes; the public actions below return the job's
// id at once and report through signals. GUI thread only.
#pragma once

#include <QMainWindow>
#include <QStringList>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "app/core/pipeline.h"
#include "app/gui/preprocess_dialog.h"
#include "app/gui/workflow_host.h"
#include "app/gui/workspace.h"
#include "engine/core/job_queue.h"
#include "engine/io/session.h"
#include "engine/synth/synthetic_eeg.h"

class QActionGroup;
class QLabel;
class QLineEdit;
class QMenu;
class QTabWidget;
class QTableView;
class QUndoStack;

namespace modescope {

class AnnotationFilterModel;
class AnnotationWorkflow;
class ArWorkflow;
class BadMarksWorkflow;
class BrowserActions;
class AnnotationModel;
class BrowserPane;
class BrowserToolbar;
class ChannelTableModel;
class EmdWorkflow;
class EntropyWorkflow;
class EpochWorkflow;
class EngineBridge;
class IcaWorkflow;
class MemdWorkflow;
class InfoBar;
class JobListWidget;
class MontageWorkflow;
class RecordingInfoWidget;
class SignalBrowser;
class TfWorkflow;
struct DerivedRecording;
struct LoadedSession;
struct OpenedRecording;

class MainWindow : public QMainWindow, public WorkflowHost {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Asynchronous actions (menus call them after their dialogs; tests call them directly). Each
  // returns the engine job's id.
  JobId openFile(const QString& path);
  JobId openDemo();
  JobId newSyntheticRecording(const SynthParams& params);
  JobId runPreprocess(const PreprocessRequest& request) override;  // the current tab's
  JobId exportRecording(const QString& path);                      // the current tab's recording
  JobId saveSession(const QString& path);
  JobId loadSession(const QString& path);
  // Synchronous: the current page as PNG/SVG/PDF (by extension).
  bool exportPage(const QString& path, QString* error = nullptr);
  void setBackendChoice(BackendChoice choice);

  // Unsaved work that replacing the recording or quitting would discard: derived recordings not
  // exported, and open result tabs. One line each; empty when nothing would be lost.
  QStringList unsavedWork() const;
  // Asks before `action` ("Quit", "Open another recording") discards unsavedWork(); true when
  // there is none or the user agrees. The question is a message box unless a test replaced it.
  bool confirmDiscard(const QString& action);
  void setDiscardQuestion(std::function<bool(const QString& action, const QStringList& lost)> ask) {
    discardQuestion_ = std::move(ask);
  }
  // The window's geometry and dock layout, kept across runs (QSettings "mainWindow/..."). The
  // restored geometry is clamped to the screen; result docks start hidden (their results are gone).
  void saveLayout() const;
  void restoreLayout();

  // The steps run on the current recording (filters, decompositions, ICA), with their full
  // parameters and seeds, as a pipeline (docs/pipelines.md). Cleared when another recording
  // becomes the first tab; saved with the session.
  // (Workspace::history.)
  const Pipeline& history() const { return workspace_->history(); }
  std::size_t recordStep(PipelineStep step) { return workspace_->recordStep(std::move(step)); }
  void replaceRecordedStep(std::size_t index, PipelineStep step) {
    workspace_->replaceRecordedStep(index, std::move(step));
  }
  // File > Export pipeline: the history as a pipeline file (written atomically). False with
  // `error` set when it cannot be written.
  bool exportPipeline(const QString& path, QString* error = nullptr);
  // File > Apply pipeline: reads the file (false with `error` naming the file, step and field
  // when it is not a valid pipeline) and runs its steps on the current recording one after
  // another; pipelineApplied / pipelineFailed report the end.
  bool applyPipeline(const QString& path, QString* error = nullptr);

  // The session's data (documents, job records, marks, undo stack, history) and the one way jobs
  // are submitted; the window shows it. The forwarding functions below are its parts.
  Workspace& workspace() const { return *workspace_; }
  // The documents (tabs) in order, the first being the opened recording, and the marks (bad
  // channels, user annotations) of that recording.
  const std::vector<Document>& documents() const { return workspace_->documents(); }
  const Marks& marks() const { return workspace_->marks(); }
  // Workspace::setMarks; the opened recording's browsers are redrawn (main_window_marks.cpp).
  // BadMarksWorkflow makes the changes undoable.
  void setMarks(Marks marks) { workspace_->setMarks(std::move(marks)); }
  BadMarksWorkflow* badMarksWorkflow() const { return badMarks_; }  // bad channels and segments
  // Replaces the user's annotations (sorted by onset): the recording's browser, the Annotations
  // dock and the event types follow. Not an undo step itself (AnnotationWorkflow pushes those).
  void setUserAnnotations(std::vector<Annotation> annotations) {
    workspace_->setUserAnnotations(std::move(annotations));
  }
  // Replaces both: the file's annotations as corrected (nullopt: as read) and the user's.
  void setAnnotations(std::optional<std::vector<Annotation>> file, std::vector<Annotation> user) {
    workspace_->setAnnotations(std::move(file), std::move(user));
  }
  const std::vector<Annotation>& fileAnnotations(const Document& doc) const {
    return workspace_->fileAnnotations(doc);
  }
  AnnotationWorkflow* annotationWorkflow() const { return annotations_; }
  EpochWorkflow* epochWorkflow() const { return epochs_; }  // Analysis > Epochs and averages
  // Workspace::submitTyped.
  template <class T>
  JobId submitTyped(const QString& title, std::function<T(JobContext&)> fn,
                    const QString& failHeading, const QString& failText,
                    std::function<void(JobId, std::shared_ptr<const T>)> onSuccess) {
    return workspace_->submitTyped<T>(title, std::move(fn), failHeading, failText,
                                      std::move(onSuccess));
  }

  // The one undo stack of the window (Edit > Undo/Redo): derived recordings (filtered,
  // re-referenced, EMD- and ICA-cleaned) and the component browser's marks. Cleared when another
  // recording becomes the first tab.
  QUndoStack* undoStack() const { return workspace_->undoStack(); }
  // Workspace::addDerivedDocument: undo closes its tab, redo opens it again. Returns the tab
  // index.
  int addDerivedDocument(Document doc, JobId id, JobRecord record, const QString& undoText) {
    return workspace_->addDerivedDocument(std::move(doc), id, std::move(record), undoText);
  }

  // Parts, for the menus' helpers and for tests.
  EngineBridge* engine() const { return engine_; }
  JobListWidget* jobList() const { return jobList_; }
  BrowserToolbar* browserToolbar() const { return toolbar_; }
  QTabWidget* tabs() const { return tabs_; }
  QTableView* channelView() const { return channelView_; }
  ChannelTableModel* channelModel() const { return channelModel_; }
  QTableView* annotationView() const { return annotationView_; }
  AnnotationFilterModel* annotationFilter() const { return annotationFilter_; }
  QLineEdit* annotationFilterEdit() const { return annotationFilterEdit_; }
  RecordingInfoWidget* recordingInfo() const { return info_; }
  InfoBar* infoBar() const { return infoBar_; }
  EmdWorkflow* emdWorkflow() const { return emd_; }  // Analysis > Decompose, its dock
  IcaWorkflow* icaWorkflow() const { return ica_; }  // Analysis > Independent components
  ArWorkflow* arWorkflow() const { return ar_; }     // Analysis > Event-related spectra (AR)
  EntropyWorkflow* entropyWorkflow() const { return entropy_; }  // Analysis > Entropy matrices
  MemdWorkflow* memdWorkflow() const { return memd_; }           // Analysis > Multivariate EMD
  TfWorkflow* tfWorkflow() const { return tf_; }                 // Analysis > Time-frequency
  MontageWorkflow* montageWorkflow() const { return montage_; }  // View > Montage
  QLabel* backendLabel() const { return backendLabel_; }
  QLabel* fileLabel() const { return fileLabel_; }
  QLabel* cursorLabel() const { return cursorLabel_; }
  BrowserActions* browserActions() const { return browserActions_; }  // Navigate menu
  int documentCount() const { return workspace_->documentCount(); }
  const Document* currentDocument() const;
  BrowserPane* currentPane() const;
  SignalBrowser* currentBrowser() const;  // nullptr while nothing is open

  // WorkflowHost: the window, the tab (browser pane) of each document, the status bar.
  QMainWindow* hostWindow() override { return this; }
  BrowserPane* paneAt(int documentIndex) const override;
  void showStatus(const QString& message, int milliseconds) override;

 signals:
  void recordingOpened(const QString& path);  // a file (or the demo) became the first tab
  void openFailed(const QString& path, const QString& message);
  void documentAdded(int index);
  void currentDocumentChanged();  // another tab became current, or none is left
  void pageDrawn();               // the first page of a newly added tab has been painted
  void sessionSaved(const QString& path);
  void sessionLoaded(const QString& path);
  void pipelineApplied(const QString& path);
  void pipelineFailed(const QString& path, const QString& message);
  void marksChanged();  // setMarks ran
  void userAnnotationsChanged();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // main_window.cpp: layout, documents, docks.
  void buildCentralArea();
  void buildDocks();
  void buildStatusBar();
  void connectEngine();
  void connectWorkspace();
  // The workspace's documentAdded/Removed/Cleared: the tabs follow its documents.
  void addTabFor(int index);  // the new tab becomes current
  void removeTabAt(int index);
  void removeAllTabs();
  void closeTab(int index);
  void showMarks();  // main_window_marks.cpp
  void onCurrentTabChanged(int index);
  void syncChannelSelectionToBrowser();
  void syncChannelSelectionFromBrowser();
  void updateInfoBar();
  void updateCursorTime(const QPoint& pos);

  // main_window_menus.cpp: menus and their dialog front-ends.
  void buildMenus();
  void rebuildRecentMenu();
  void chooseAndOpenFile();
  void chooseAndSaveSession();
  void chooseAndLoadSession();
  void chooseAndExportPage();
  void chooseAndExportRecording();
  void chooseAndExportPipeline();
  void chooseAndApplyPipeline();
  void askSyntheticRecording();
  void askPreprocess();
  void showAbout();
  void updateActions();

  // main_window_jobs.cpp: what happens when jobs finish.
  void onOpened(const OpenedRecording& opened);
  void onOpenFailed(const QString& path, const QString& message, bool demo);
  void onSyntheticReady(JobId id, const DerivedRecording& result, const QString& title);
  void onDerivedReady(JobId id, const DerivedRecording& result, const QString& sourceTitle);
  void onSessionLoaded(const QString& path, const LoadedSession& loaded);
  Session collectSession() const;

  EngineBridge* engine_ = nullptr;
  Workspace* workspace_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  InfoBar* infoBar_ = nullptr;
  BrowserToolbar* toolbar_ = nullptr;
  ChannelTableModel* channelModel_ = nullptr;
  QTableView* channelView_ = nullptr;
  AnnotationModel* annotationModel_ = nullptr;
  AnnotationFilterModel* annotationFilter_ = nullptr;
  QTableView* annotationView_ = nullptr;
  QLineEdit* annotationFilterEdit_ = nullptr;
  RecordingInfoWidget* info_ = nullptr;
  JobListWidget* jobList_ = nullptr;
  QLabel* backendLabel_ = nullptr;
  QLabel* fileLabel_ = nullptr;
  QLabel* cursorLabel_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QActionGroup* backendGroup_ = nullptr;
  EmdWorkflow* emd_ = nullptr;
  IcaWorkflow* ica_ = nullptr;
  ArWorkflow* ar_ = nullptr;
  EntropyWorkflow* entropy_ = nullptr;
  MemdWorkflow* memd_ = nullptr;
  TfWorkflow* tf_ = nullptr;
  BrowserActions* browserActions_ = nullptr;
  AnnotationWorkflow* annotations_ = nullptr;
  EpochWorkflow* epochs_ = nullptr;
  MontageWorkflow* montage_ = nullptr;
  QList<QAction*> documentActions_;  // enabled only while a recording is open

  std::map<const BrowserPane*, QStringList> displayProblems_;  // the browsers' own messages
  BadMarksWorkflow* badMarks_ = nullptr;
  bool syncingSelection_ = false;
  std::function<bool(const QString&, const QStringList&)> discardQuestion_;
  bool layoutRestored_ = false;  // restoreLayout found a saved dock layout
};

}  // namespace modescope
