// MainWindow's menus and the dialogs in front of its actions.
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>
#include <functional>
#include <map>
#include <string>

#include "app/core/method_registry.h"
#include "app/gui/about_dialog.h"
#include "app/gui/annotation_workflow.h"
#include "app/gui/ar_workflow.h"
#include "app/gui/bad_marks_workflow.h"
#include "app/gui/browser_actions.h"
#include "app/gui/emd_workflow.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/entropy_workflow.h"
#include "app/gui/epoch_workflow.h"
#include "app/gui/error_presenter.h"
#include "app/gui/file_filters.h"
#include "app/gui/help_browser.h"
#include "app/gui/ica_workflow.h"
#include "app/gui/main_window.h"
#include "app/gui/memd_workflow.h"
#include "app/gui/montage_chooser.h"
#include "app/gui/montage_workflow.h"
#include "app/gui/recent_files.h"
#include "app/gui/replay_window.h"
#include "app/gui/synthetic_dialog.h"
#include "app/gui/tf_workflow.h"
#include "widgets/browser_pane.h"
#include "widgets/browser_toolbar.h"

namespace modescope {
namespace {

const char kLastDirKey[] = "lastDirectory";

QString lastDirectory() { return QSettings().value(QLatin1String(kLastDirKey)).toString(); }

void rememberDirectory(const QString& path) {
  QSettings().setValue(QLatin1String(kLastDirKey), QFileInfo(path).absolutePath());
}

}  // namespace

void MainWindow::buildMenus() {
  // The entropy matrices' dock, made here (after the other docks) so the View menu lists it.
  entropy_ = new EntropyWorkflow(*workspace_, *this);
  tf_ = new TfWorkflow(*workspace_, *this, ica_, emd_);  // its dock, likewise
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::chooseAndOpenFile);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  rebuildRecentMenu();
  file->addAction(tr("Open &demo recording"), this, [this] {
    if (confirmDiscard(tr("Open another recording"))) openDemo();
  });
  file->addAction(tr("New &synthetic recording..."), this, &MainWindow::askSyntheticRecording);
  file->addSeparator();
  file->addAction(tr("Open session..."), this, &MainWindow::chooseAndLoadSession);
  documentActions_ << file->addAction(tr("&Save session..."), QKeySequence::Save, this,
                                      &MainWindow::chooseAndSaveSession);
  file->addSeparator();
  documentActions_ << file->addAction(tr("Export &page (PNG, SVG, PDF)..."), this,
                                      &MainWindow::chooseAndExportPage);
  documentActions_ << file->addAction(tr("Export &recording (HDF5, EDF+, BDF+)..."), this,
                                      &MainWindow::chooseAndExportRecording);
  file->addSeparator();
  documentActions_ << file->addAction(tr("E&xport pipeline (the steps run so far)..."), this,
                                      &MainWindow::chooseAndExportPipeline);
  documentActions_ << file->addAction(tr("&Apply pipeline..."), this,
                                      &MainWindow::chooseAndApplyPipeline);
  file->addSeparator();
  documentActions_ << file->addAction(tr("Open &ICA result..."), this,
                                      [this] { ica_->chooseAndOpenIcaFile(); });
  QAction* saveIca =
      file->addAction(tr("Save ICA res&ult..."), this, [this] { ica_->chooseAndSaveIcaFile(); });
  saveIca->setEnabled(false);
  // Enabled while the component browser has a tab (the current tab's decomposition is saved).
  connect(ica_->resultTabs(), &QTabWidget::currentChanged, saveIca,
          [saveIca](int index) { saveIca->setEnabled(index >= 0); });
  file->addSeparator();
  annotations_->addFileActions(file);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  edit->addAction(undo);
  edit->addAction(redo);
  annotations_->addEditActions(edit);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(toolbar_->toggleViewAction());
  for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
  browserActions_ = new BrowserActions(this, [this] { return currentBrowser(); });
  QMenu* navigate = menuBar()->addMenu(tr("&Navigate"));
  navigate->addActions(browserActions_->actions());
  documentActions_ << browserActions_->actions();
  // Derivation montages (bipolar, Laplacian, the editor's) beside the re-reference.
  auto* montages = new MontageChooser(this, [this] { return currentPane(); });
  toolbar_->addWidget(montages);
  connect(this, &MainWindow::currentDocumentChanged, montages, &MontageChooser::syncFromPane);
  montages->syncFromPane();
  view->addAction(montages->editorAction());
  documentActions_ << montages->editorAction();

  // The methods' actions come from the one method list (app/core/method_registry.h); each id
  // opens its workflow's dialog.
  montage_ = new MontageWorkflow(*workspace_, *this);
  const std::map<std::string, std::function<void()>> openDialog = {
      {"filter", [this] { askPreprocess(); }},
      {"emd", [this] { emd_->askDecompose(); }},
      {"memd", [this] { memd_->askMemd(); }},
      {"ica", [this] { ica_->askIca(); }},
      {"ar", [this] { ar_->askAr(); }},
      {"xapen", [this] { entropy_->askEntropy(); }},
      {"interpolate", [this] { badMarks_->askInterpolate(); }},
      {"epoch", [this] { epochs_->askEpochs(); }},
      {"tfr", [this] { tf_->openForCurrentChannel(); }},
      {"montage", [this] { montage_->askApply(); }},
  };
  std::map<std::string, QMenu*> methodMenus;
  methodMenus["Process"] = menuBar()->addMenu(tr("&Process"));
  methodMenus["Analysis"] = menuBar()->addMenu(tr("&Analysis"));
  for (const MethodEntry& m : methodRegistry()) {
    if (m.menu.empty()) continue;  // command line (and pipelines) only, no dialog yet
    const auto handler = openDialog.find(m.id);
    QMenu* menu = methodMenus[m.menu];
    if (handler == openDialog.end() || !menu) {
      qWarning("ModeScope: the method '%s' has no dialog in this window", m.id.c_str());
      continue;
    }
    QAction* a = menu->addAction(tr(m.menuText.c_str()), this, handler->second);
    a->setStatusTip(QString::fromStdString(m.summary));
    a->setObjectName(QStringLiteral("method_") + QString::fromStdString(m.id));
    documentActions_ << a;
  }
  // Not a method of its own: what the marks for interpolation and every method come from.
  documentActions_ << methodMenus["Process"]->addAction(tr("&Suggest bad channels..."), this,
                                                        [this] { badMarks_->suggest(); });
  // Welch spectra of what the browser shows (the epochs' spectrum is in their results).
  QAction* pageSpectrum = methodMenus["Analysis"]->addAction(
      tr("Power spectrum of the &page"), this, [this] { epochs_->showPageSpectrum(false); });
  pageSpectrum->setObjectName(QStringLiteral("pageSpectrum"));
  QAction* selectedSpectrum =
      methodMenus["Analysis"]->addAction(tr("Power spectrum of the &selected channels"), this,
                                         [this] { epochs_->showPageSpectrum(true); });
  selectedSpectrum->setObjectName(QStringLiteral("selectedSpectrum"));
  documentActions_ << pageSpectrum << selectedSpectrum;
  // Not a method of its own: the AR pipeline replayed live.
  documentActions_ << methodMenus["Analysis"]->addAction(
      tr("&Live replay (AR features)..."), this,
      [this] { ReplayWindow::showFor(*workspace_, *this); });

  QMenu* compute = menuBar()->addMenu(tr("&Compute"));
  backendGroup_ = new QActionGroup(this);
  backendGroup_->setExclusive(true);
  const std::pair<QString, BackendChoice> choices[] = {
      {tr("&Auto (GPU when available)"), BackendChoice::Auto},
      {tr("&CPU"), BackendChoice::Cpu},
      {tr("C&UDA"), BackendChoice::Cuda}};
  for (const auto& [text, choice] : choices) {
    QAction* a = compute->addAction(text);
    a->setCheckable(true);
    a->setData(static_cast<int>(choice));
    a->setChecked(choice == engine_->backendChoice());
    backendGroup_->addAction(a);
    connect(a, &QAction::triggered, this, [this, c = choice] { setBackendChoice(c); });
  }
  connect(engine_, &EngineBridge::backendChoiceFailed, this, [this](const QString& message) {
    // The engine kept the previous backend: show that in the menu too.
    for (QAction* a : backendGroup_->actions()) {
      a->setChecked(a->data().toInt() == static_cast<int>(engine_->backendChoice()));
    }
    showError(this, tr("Backend not available"), tr("The compute backend could not be changed."),
              message);
  });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&User guide"), QKeySequence::HelpContents, this,
                  [this] { HelpBrowser::showPage(this, QStringLiteral("user-guide.md")); });
  help->addAction(tr("&Keyboard shortcuts"), this, [this] {
    QList<QMenu*> menus;  // the menu bar's own, in its order
    for (QAction* a : menuBar()->actions()) {
      if (a->menu()) menus << a->menu();
    }
    HelpBrowser::showShortcuts(this, shortcutTable(menus));
  });
  HelpBrowser::installDialogF1();
  help->addSeparator();
  help->addAction(tr("&About ModeScope"), this, &MainWindow::showAbout);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::updateActions() {
  const bool open = currentDocument() != nullptr;
  for (QAction* a : documentActions_) a->setEnabled(open);
}

void MainWindow::setBackendChoice(BackendChoice choice) {
  engine_->setBackendChoice(choice);
  for (QAction* a : backendGroup_->actions()) {
    a->setChecked(a->data().toInt() == static_cast<int>(engine_->backendChoice()));
  }
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList files = RecentFiles::list();
  for (int i = 0; i < files.size(); ++i) {
    const QString& path = files[i];
    // &1..&9, &0 as keyboard accelerators for the first ten.
    const QString text = QStringLiteral("&%1 %2").arg((i + 1) % 10).arg(QFileInfo(path).fileName());
    QAction* a = recentMenu_->addAction(text, this, [this, path] {
      if (confirmDiscard(tr("Open another recording"))) openFile(path);
    });
    a->setToolTip(path);
    a->setStatusTip(path);
  }
  if (files.isEmpty()) {
    recentMenu_->addAction(tr("(none)"))->setEnabled(false);
  } else {
    recentMenu_->addSeparator();
    recentMenu_->addAction(tr("Clear list"), this, [] { RecentFiles::clear(); });
  }
}

void MainWindow::chooseAndOpenFile() {
  if (!confirmDiscard(tr("Open another recording"))) return;
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open recording"), lastDirectory(),
                                   recordingOpenFilters().join(QStringLiteral(";;")));
  if (path.isEmpty()) return;
  rememberDirectory(path);
  openFile(path);
}

void MainWindow::chooseAndLoadSession() {
  if (!confirmDiscard(tr("Open a session"))) return;
  const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), lastDirectory(),
                                                    sessionFilters().join(QStringLiteral(";;")));
  if (path.isEmpty()) return;
  rememberDirectory(path);
  loadSession(path);
}

void MainWindow::chooseAndExportPipeline() {
  if (history().steps.empty()) {
    showError(this, tr("Export pipeline"), tr("Nothing to export yet."),
              tr("The pipeline records the filters, decompositions and ICA runs made on this "
                 "recording; run one first."));
    return;
  }
  QString path = QFileDialog::getSaveFileName(this, tr("Export pipeline"), lastDirectory(),
                                              tr("Pipeline (*.json)"));
  if (path.isEmpty()) return;
  if (!path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) path += QStringLiteral(".json");
  rememberDirectory(path);
  QString error;
  if (!exportPipeline(path, &error))
    showError(this, tr("Export pipeline"), tr("Could not write %1.").arg(path), error);
}

void MainWindow::chooseAndApplyPipeline() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Apply pipeline"), lastDirectory(),
                                                    tr("Pipeline (*.json)"));
  if (path.isEmpty()) return;
  rememberDirectory(path);
  QString error;
  if (!applyPipeline(path, &error))
    showError(this, tr("Apply pipeline"), tr("Could not apply %1.").arg(path), error);
}

void MainWindow::chooseAndSaveSession() {
  QString filter;
  QString path = QFileDialog::getSaveFileName(this, tr("Save session"), lastDirectory(),
                                              sessionFilters().join(QStringLiteral(";;")), &filter);
  if (path.isEmpty()) return;
  path = withSuffixFromFilter(path, filter);
  rememberDirectory(path);
  saveSession(path);
}

void MainWindow::chooseAndExportPage() {
  QString filter;
  QString path =
      QFileDialog::getSaveFileName(this, tr("Export page"), lastDirectory(),
                                   pageExportFilters().join(QStringLiteral(";;")), &filter);
  if (path.isEmpty()) return;
  path = withSuffixFromFilter(path, filter);
  rememberDirectory(path);
  QString error;
  if (!exportPage(path, &error)) {
    showError(this, tr("Export failed"), tr("Could not write %1.").arg(path), error);
  } else {
    statusBar()->showMessage(tr("Page written to %1").arg(path), 5000);
  }
}

void MainWindow::chooseAndExportRecording() {
  QString filter;
  QString path =
      QFileDialog::getSaveFileName(this, tr("Export recording"), lastDirectory(),
                                   recordingExportFilters().join(QStringLiteral(";;")), &filter);
  if (path.isEmpty()) return;
  path = withSuffixFromFilter(path, filter);
  rememberDirectory(path);
  exportRecording(path);
}

void MainWindow::askSyntheticRecording() {
  SyntheticDialog dialog(this);
  if (dialog.exec() == QDialog::Accepted) newSyntheticRecording(dialog.params());
}

void MainWindow::askPreprocess() {
  const Document* doc = currentDocument();
  if (!doc) return;
  PreprocessDialog dialog(doc->recording, currentPane()->selectedChannels(), this);
  if (dialog.exec() == QDialog::Accepted) runPreprocess(dialog.request());
}

void MainWindow::showAbout() {
  AboutDialog dialog(engine_->backendDescription(), this);
  dialog.exec();
}

}  // namespace modescope
