#include "app/gui/main_window.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <set>

#include "app/gui/annotation_workflow.h"
#include "app/gui/ar_workflow.h"
#include "app/gui/bad_marks_workflow.h"
#include "app/gui/browser_actions.h"
#include "app/gui/cursor_time.h"
#include "app/gui/emd_workflow.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/epoch_workflow.h"
#include "app/gui/first_show.h"
#include "app/gui/ica_workflow.h"
#include "app/gui/memd_workflow.h"
#include "app/gui/result_dock.h"
#include "widgets/annotation_model.h"
#include "widgets/browser_pane.h"
#include "widgets/browser_toolbar.h"
#include "widgets/channel_table_model.h"
#include "widgets/info_bar.h"
#include "widgets/job_list_widget.h"
#include "widgets/recording_info_widget.h"
#include "widgets/signal_browser.h"
#include "widgets/time_format.h"

namespace modescope {
namespace {

// The dock layout's version (QMainWindow::saveState / restoreState): raised when the default
// layout changes, so that a layout saved by an earlier build is not restored over it. Version 1:
// the Jobs dock opens four rows high (before, a saved layout kept its one-row dock). The window's
// size and position are still restored.
constexpr int kDockLayoutVersion = 1;

// Tables with thousands of rows stay fast with fixed row heights (no per-row size hints).
void makeFastTable(QTableView* view) {
  view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
  view->verticalHeader()->hide();
  view->horizontalHeader()->setStretchLastSection(true);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setWordWrap(false);
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("modescopeMainWindow"));
  setWindowTitle(QStringLiteral("ModeScope"));
  setAcceptDrops(true);
  engine_ = new EngineBridge(BackendChoice::Auto, this);
  workspace_ = new Workspace(engine_, this, this);
  buildCentralArea();
  // Before the workflows are made: the tabs must follow the documents before they hear of them.
  connectWorkspace();
  buildDocks();
  buildStatusBar();
  buildMenus();
  connectEngine();
  onCurrentTabChanged(-1);
  resize(1400, 900);
}

MainWindow::~MainWindow() {
  // Stop the engine first: its handlers refer to the widgets deleted below.
  delete engine_;
  engine_ = nullptr;
}

void MainWindow::buildCentralArea() {
  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  infoBar_ = new InfoBar(central);
  tabs_ = new QTabWidget(central);
  tabs_->setObjectName(QStringLiteral("documentTabs"));
  tabs_->setDocumentMode(true);
  tabs_->setTabsClosable(true);
  layout->addWidget(infoBar_);
  layout->addWidget(tabs_, 1);
  setCentralWidget(central);
  connect(tabs_, &QTabWidget::currentChanged, this, &MainWindow::onCurrentTabChanged);
  connect(tabs_, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);

  toolbar_ = new BrowserToolbar(this);
  addToolBar(Qt::TopToolBarArea, toolbar_);
}

void MainWindow::buildDocks() {
  channelModel_ = new ChannelTableModel(this);
  channelView_ = new QTableView;
  channelView_->setObjectName(QStringLiteral("channelTable"));
  channelView_->setModel(channelModel_);
  makeFastTable(channelView_);
  channelView_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  connect(channelView_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &MainWindow::syncChannelSelectionToBrowser);
  connect(channelModel_, &ChannelTableModel::visibilityChanged, this,
          [this](const std::vector<bool>& visible) {
            if (BrowserPane* pane = currentPane()) pane->setChannelVisibility(visible);
          });
  auto* channelDock = new QDockWidget(tr("Channels"), this);
  channelDock->setObjectName(QStringLiteral("channelDock"));
  channelDock->setWidget(channelView_);

  annotationModel_ = new AnnotationModel(this);
  annotationFilter_ = new AnnotationFilterModel(this);
  annotationFilter_->setSourceModel(annotationModel_);
  annotationView_ = new QTableView;
  annotationView_->setObjectName(QStringLiteral("annotationTable"));
  annotationView_->setModel(annotationFilter_);
  makeFastTable(annotationView_);
  annotationView_->setSelectionMode(QAbstractItemView::SingleSelection);
  annotationView_->setToolTip(tr("Double-click an annotation to show it in the browser"));
  connect(annotationView_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    if (SignalBrowser* b = currentBrowser()) b->jumpTo(annotationFilter_->onsetAt(index.row()));
  });
  annotationFilterEdit_ = new QLineEdit;
  annotationFilterEdit_->setObjectName(QStringLiteral("annotationFilter"));
  annotationFilterEdit_->setPlaceholderText(tr("Filter annotations by text"));
  annotationFilterEdit_->setClearButtonEnabled(true);
  connect(annotationFilterEdit_, &QLineEdit::textChanged, annotationFilter_,
          &AnnotationFilterModel::setFilterText);
  auto* annotationPanel = new QWidget;
  auto* annotationLayout = new QVBoxLayout(annotationPanel);
  annotationLayout->setContentsMargins(2, 2, 2, 2);
  annotationLayout->addWidget(annotationFilterEdit_);
  annotationLayout->addWidget(annotationView_, 1);
  auto* annotationDock = new QDockWidget(tr("Annotations"), this);
  annotationDock->setObjectName(QStringLiteral("annotationDock"));
  annotationDock->setWidget(annotationPanel);

  info_ = new RecordingInfoWidget;
  auto* infoDock = new QDockWidget(tr("Recording"), this);
  infoDock->setObjectName(QStringLiteral("recordingDock"));
  infoDock->setWidget(info_);

  jobList_ = new JobListWidget;
  // The list scrolls; it must not claim the height of all its rows from the signal browser.
  jobList_->setMinimumHeight(60);
  auto* jobDock = new QDockWidget(tr("Jobs"), this);
  jobDock->setObjectName(QStringLiteral("jobDock"));
  jobDock->setWidget(jobList_);

  addDockWidget(Qt::RightDockWidgetArea, channelDock);
  addDockWidget(Qt::RightDockWidgetArea, annotationDock);
  tabifyDockWidget(channelDock, infoDock);
  channelDock->raise();
  addDockWidget(Qt::BottomDockWidgetArea, jobDock);
  resizeDocks({channelDock}, {430}, Qt::Horizontal);
  // The Jobs list shows a few rows (JobListWidget::sizeHint) unless a saved layout was restored.
  onFirstShow(this, [this, jobDock] {
    if (!layoutRestored_) resizeDocks({jobDock}, {jobDock->sizeHint().height()}, Qt::Vertical);
  });
  Workspace& ws = *workspace_;
  emd_ = new EmdWorkflow(ws, *this);            // its dock, hidden until a result arrives
  ica_ = new IcaWorkflow(ws, *this);            // the same for the component browser
  ar_ = new ArWorkflow(ws, *this);              // and for the event-related AR spectra
  memd_ = new MemdWorkflow(ws, *this);          // and for multivariate EMD
  badMarks_ = new BadMarksWorkflow(ws, *this);  // its dock beside the channels
  tabifyDockWidget(channelDock, badMarks_->dock());
  channelDock->raise();
  annotations_ = new AnnotationWorkflow(ws, *this, annotationView_,
                                        annotationFilter_);  // the Events dock, annotation editing
  tabifyDockWidget(annotationDock, annotations_->dock());
  annotationDock->raise();
  epochs_ = new EpochWorkflow(ws, *this);  // the Epochs and averages dock, hidden until a result
}

void MainWindow::buildStatusBar() {
  backendLabel_ = new QLabel(this);
  backendLabel_->setObjectName(QStringLiteral("backendLabel"));
  backendLabel_->setToolTip(tr("Compute backend (Compute menu)"));
  fileLabel_ = new QLabel(this);
  fileLabel_->setObjectName(QStringLiteral("fileLabel"));
  cursorLabel_ = new QLabel(this);
  cursorLabel_->setObjectName(QStringLiteral("cursorLabel"));
  cursorLabel_->setMinimumWidth(cursorLabel_->fontMetrics().horizontalAdvance(
      QStringLiteral("Cursor: 00:00:00.000 (00000.000 s)")));
  statusBar()->addWidget(fileLabel_, 1);
  statusBar()->addPermanentWidget(cursorLabel_);
  statusBar()->addPermanentWidget(backendLabel_);
  backendLabel_->setText(engine_->backendDescription());
}

void MainWindow::connectEngine() {
  connect(engine_, &EngineBridge::jobSubmitted, jobList_, &JobListWidget::addJob);
  connect(engine_, &EngineBridge::jobStarted, jobList_,
          [this](JobId id, const QString&) { jobList_->markStarted(id); });
  connect(engine_, &EngineBridge::jobProgressed, jobList_, &JobListWidget::setProgress);
  connect(engine_, &EngineBridge::jobFinished, this, [this](JobId id, const JobOutcome& out) {
    jobList_->markFinished(id, out.state, QString::fromStdString(out.message), out.wallSeconds);
  });
  connect(jobList_, &JobListWidget::cancelRequested, engine_, &EngineBridge::cancel);
  connect(engine_, &EngineBridge::backendChanged, this,
          [this](const QString& description, const QString& note) {
            backendLabel_->setText(description);
            backendLabel_->setToolTip(note.isEmpty() ? tr("Compute backend") : note);
            if (!note.isEmpty()) statusBar()->showMessage(note, 8000);
          });
}

void MainWindow::connectWorkspace() {
  connect(workspace_, &Workspace::documentAdded, this, &MainWindow::addTabFor);
  connect(workspace_, &Workspace::documentRemoved, this, &MainWindow::removeTabAt);
  connect(workspace_, &Workspace::documentsCleared, this, &MainWindow::removeAllTabs);
  connect(workspace_, &Workspace::marksChanged, this, &MainWindow::showMarks);
  connect(workspace_, &Workspace::userAnnotationsChanged, this, [this] {
    const Document* doc = currentDocument();
    annotationModel_->setUserAnnotations(doc && !doc->derived ? workspace_->marks().userAnnotations
                                                              : std::vector<Annotation>{});
    emit userAnnotationsChanged();
  });
  connect(workspace_, &Workspace::recordingOpened, this, &MainWindow::recordingOpened);
  connect(workspace_, &Workspace::sessionLoaded, this, &MainWindow::sessionLoaded);
}

const Document* MainWindow::currentDocument() const {
  return workspace_->document(tabs_->currentIndex());
}

BrowserPane* MainWindow::paneAt(int documentIndex) const {
  if (!workspace_->document(documentIndex)) return nullptr;
  return qobject_cast<BrowserPane*>(tabs_->widget(documentIndex));
}

BrowserPane* MainWindow::currentPane() const { return paneAt(tabs_->currentIndex()); }

void MainWindow::showStatus(const QString& message, int milliseconds) {
  statusBar()->showMessage(message, milliseconds);
}

SignalBrowser* MainWindow::currentBrowser() const {
  BrowserPane* p = currentPane();
  return p ? p->browser() : nullptr;
}

void MainWindow::addTabFor(int index) {
  const Document& doc = *workspace_->document(index);
  auto* pane = new BrowserPane;
  pane->setRecording(doc.recording);
  SignalBrowser* browser = pane->browser();
  browser->setMouseTracking(true);
  browser->installEventFilter(this);
  browserActions_->attach(browser);  // ruler, cursor read-out, context menus
  const Marks& marks = workspace_->marks();
  browser->setBadChannels(doc.derived ? std::vector<std::string>{} : marks.badChannels);
  if (!doc.derived) {
    browser->setUserAnnotations(marks.userAnnotations);
    browser->setFileAnnotations(marks.fileAnnotations);
    annotations_->attach(browser);
  }
  connect(pane, &BrowserPane::selectionChanged, this, [this, pane] {
    if (pane == currentPane()) syncChannelSelectionFromBrowser();
  });
  connect(browser, &SignalBrowser::displayProblem, this, [this, pane](const QString& message) {
    displayProblems_[pane] = QStringList{message};
    if (pane == currentPane()) updateInfoBar();
  });
  connect(browser, &SignalBrowser::viewChanged, this, [this, pane] {
    // A later successful redraw clears a montage/filter problem message.
    if (displayProblems_.erase(pane) && pane == currentPane()) updateInfoBar();
  });
  {
    // One explicit update below instead of one per tab-widget signal.
    const QSignalBlocker block(tabs_);
    tabs_->insertTab(index, pane, doc.title);
    tabs_->setTabToolTip(index, doc.path.isEmpty() ? doc.origin : doc.path);
    if (index == 0) {
      // The recording itself: closing it is "open another"; only derived tabs close.
      tabs_->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr);
      tabs_->tabBar()->setTabButton(0, QTabBar::LeftSide, nullptr);
    }
    tabs_->setCurrentIndex(index);
  }
  onCurrentTabChanged(index);
  emit documentAdded(index);
}

void MainWindow::removeAllTabs() {
  // Remove tabs before their documents so currentChanged never sees a stale index.
  const QSignalBlocker block(tabs_);
  while (tabs_->count() > 0) {
    QWidget* w = tabs_->widget(0);
    tabs_->removeTab(0);
    delete w;
  }
  displayProblems_.clear();
  onCurrentTabChanged(-1);
}

void MainWindow::closeTab(int index) { workspace_->removeDocument(index); }

void MainWindow::removeTabAt(int index) {
  auto* pane = qobject_cast<BrowserPane*>(tabs_->widget(index));
  {
    const QSignalBlocker block(tabs_);
    tabs_->removeTab(index);
  }
  displayProblems_.erase(pane);
  delete pane;
  onCurrentTabChanged(tabs_->currentIndex());
}

void MainWindow::onCurrentTabChanged(int index) {
  workspace_->setCurrentIndex(index);
  const Document* doc = workspace_->document(index);
  BrowserPane* pane = paneAt(index);
  if (!doc || !pane) {
    channelModel_->setRecording(nullptr);
    annotationModel_->setAnnotations({});
    info_->setRecording(nullptr);
    toolbar_->setBrowser(nullptr);
    fileLabel_->setText(tr("No recording open"));
    cursorLabel_->clear();
    setWindowTitle(QStringLiteral("ModeScope"));
    updateInfoBar();
    updateActions();
    emit currentDocumentChanged();
    return;
  }
  channelModel_->setRecording(doc->recording);
  channelModel_->setVisibility(pane->channelVisibility());
  annotationModel_->setAnnotations(fileAnnotations(*doc));
  annotationModel_->setUserAnnotations(doc->derived ? std::vector<Annotation>{}
                                                    : workspace_->marks().userAnnotations);
  annotations_->refresh();
  info_->setRecording(doc->recording, doc->origin);
  toolbar_->setBrowser(pane->browser());
  fileLabel_->setText(doc->path.isEmpty() ? doc->title : doc->path);
  setWindowTitle(doc->title + QStringLiteral(" - ModeScope"));
  syncChannelSelectionFromBrowser();
  updateInfoBar();
  updateActions();
  emit currentDocumentChanged();
}

void MainWindow::syncChannelSelectionToBrowser() {
  if (syncingSelection_) return;
  BrowserPane* pane = currentPane();
  if (!pane) return;
  std::set<int> rows;
  for (const QModelIndex& i : channelView_->selectionModel()->selectedIndexes())
    rows.insert(i.row());
  syncingSelection_ = true;
  pane->setSelectedChannels(std::vector<int>(rows.begin(), rows.end()));
  syncingSelection_ = false;
}

void MainWindow::syncChannelSelectionFromBrowser() {
  if (syncingSelection_) return;
  BrowserPane* pane = currentPane();
  if (!pane) return;
  syncingSelection_ = true;
  QItemSelection selection;
  const int lastColumn = channelModel_->columnCount() - 1;
  for (int row : pane->selectedChannels()) {
    selection.select(channelModel_->index(row, 0), channelModel_->index(row, lastColumn));
  }
  channelView_->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
  syncingSelection_ = false;
}

void MainWindow::updateInfoBar() {
  QList<InfoBar::Message> messages;
  if (const Document* doc = currentDocument()) {
    // Findings about the data ("data.*", the plausibility check) first: they say whether what
    // is drawn can be trusted. The demo is ModeScope's own file: how its reader read it is no
    // news on the first screen (the Recording panel lists it); findings about its data would
    // still show.
    for (const bool data : {true, false}) {
      for (const Diagnostic& d : doc->recording->diagnostics) {
        if ((d.code.rfind("data.", 0) == 0) != data || (doc->demo && !data)) continue;
        messages.append({d.severity, QString::fromStdString(d.message)});
      }
    }
    if (auto it = displayProblems_.find(currentPane()); it != displayProblems_.end()) {
      for (const QString& p : it->second) messages.append({Severity::Warning, p});
    }
  }
  infoBar_->setMessages(messages);
}

void MainWindow::updateCursorTime(const QPoint& pos) {
  const SignalBrowser* browser = currentBrowser();
  const std::optional<double> t = browser ? cursorTimeAt(*browser, pos) : std::nullopt;
  cursorLabel_->setText(t ? tr("Cursor: %1 (%2 s)").arg(formatClock(*t)).arg(*t, 0, 'f', 3)
                          : QString());
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Paint) {
    for (int i = 0; i < tabs_->count(); ++i) {
      BrowserPane* pane = paneAt(i);
      // A property of the pane: the workspace's documents know nothing of painting.
      if (pane && watched == pane->browser() && !pane->property("modescopePageDrawn").toBool()) {
        pane->setProperty("modescopePageDrawn", true);
        // After this paint event has been handled, i.e. once the page is on screen.
        QTimer::singleShot(0, this, [this] { emit pageDrawn(); });
      }
    }
  } else if (event->type() == QEvent::MouseMove) {
    if (watched == currentBrowser()) {
      updateCursorTime(static_cast<QMouseEvent*>(event)->position().toPoint());
    }
  } else if (event->type() == QEvent::Leave) {
    if (watched == currentBrowser()) cursorLabel_->clear();
  }
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!confirmDiscard(tr("Quit"))) {
    event->ignore();
    return;
  }
  saveLayout();
  // Running jobs stop at their next checkpoint; the engine thread is joined in the destructor.
  engine_->cancelAll();
  QMainWindow::closeEvent(event);
}

QStringList MainWindow::unsavedWork() const {
  QStringList lost = workspace_->unsavedWork();
  for (const QDockWidget* dock : findChildren<QDockWidget*>()) {
    if (!dock->property(kResultDockProperty).toBool()) continue;
    const auto* tabs = dock->findChild<QTabWidget*>();
    for (int i = 0; tabs && i < tabs->count(); ++i)
      lost << tr("the result \"%1\" (%2)").arg(tabs->tabText(i), dock->windowTitle());
  }
  return lost;
}

bool MainWindow::confirmDiscard(const QString& action) {
  const QStringList lost = unsavedWork();
  if (lost.isEmpty()) return true;
  if (discardQuestion_) return discardQuestion_(action, lost);
  QMessageBox box(QMessageBox::Question, action,
                  tr("%1 discards work that is not saved:").arg(action), QMessageBox::NoButton,
                  this);
  box.setObjectName(QStringLiteral("discardQuestion"));
  box.setInformativeText(QStringLiteral("\u2022 ") + lost.join(QStringLiteral("\n\u2022 ")) +
                         tr("\n\nExport derived recordings (File > Export recording) or save the "
                            "session first to keep them."));
  QPushButton* discard =
      box.addButton(tr("Discard and %1").arg(action.toLower()), QMessageBox::DestructiveRole);
  box.addButton(QMessageBox::Cancel);
  box.setDefaultButton(QMessageBox::Cancel);
  box.exec();
  return box.clickedButton() == discard;
}

void MainWindow::saveLayout() const {
  QSettings settings;
  settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("mainWindow/state"), saveState(kDockLayoutVersion));
}

void MainWindow::restoreLayout() {
  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray());
  layoutRestored_ = restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray(),
                                 kDockLayoutVersion);
  for (QDockWidget* dock : findChildren<QDockWidget*>()) {
    if (dock->property(kResultDockProperty).toBool()) dock->hide();
  }
  // A layout saved on a larger screen must not open the window beyond this one.
  if (const QScreen* screen = this->screen()) {
    const QRect room = screen->availableGeometry();
    if (width() > room.width() || height() > room.height())
      resize(std::min(width(), room.width()), std::min(height(), room.height()));
  }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const QMimeData* mime = event->mimeData();
  if (mime->hasUrls() && !mime->urls().isEmpty() && mime->urls().front().isLocalFile()) {
    event->acceptProposedAction();
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (urls.isEmpty() || !urls.front().isLocalFile()) return;
  if (!confirmDiscard(tr("Open another recording"))) return;
  openFile(urls.front().toLocalFile());
  event->acceptProposedAction();
}

}  // namespace modescope
