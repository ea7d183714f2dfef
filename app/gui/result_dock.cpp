#include "app/gui/result_dock.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QMainWindow>
#include <QPointer>
#include <QScrollArea>
#include <QTabWidget>
#include <algorithm>

#include "app/gui/file_filters.h"
#include "widgets/signal_browser.h"

namespace modescope {
namespace {

constexpr double kMaxResultHeightFraction = 0.4;

}  // namespace

ResultDock::ResultDock(QMainWindow* window, const QString& title, const QString& name)
    : QObject(window), window_(window) {
  dock_ = new QDockWidget(title, window);
  dock_->setObjectName(name + QStringLiteral("Dock"));
  tabs_ = new QTabWidget(dock_);
  tabs_->setObjectName(name + QStringLiteral("Tabs"));
  tabs_->setDocumentMode(true);
  tabs_->setTabsClosable(true);
  connect(tabs_, &QTabWidget::tabCloseRequested, this, [this](int index) {
    QWidget* w = tabs_->widget(index);
    tabs_->removeTab(index);
    delete w;
    if (tabs_->count() == 0) dock_->hide();
    emit tabClosed();
  });
  // The tabs scroll inside the dock instead of imposing their pages' minimum height on the
  // window: a tall result page must never push the window past the screen.
  auto* scroll = new QScrollArea(dock_);
  scroll->setObjectName(name + QStringLiteral("Scroll"));
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(tabs_);
  dock_->setWidget(scroll);
  dock_->setProperty(kResultDockProperty, true);
  // Above the job list, which stays a thin strip at the bottom.
  window->addDockWidget(Qt::BottomDockWidgetArea, dock_, Qt::Vertical);
  if (auto* jobs = window->findChild<QDockWidget*>(QStringLiteral("jobDock")))
    window->splitDockWidget(dock_, jobs, Qt::Vertical);
  dock_->hide();
}

void ResultDock::addResult(QWidget* page, const QString& title, const QString& toolTip,
                           double heightFraction) {
  const int index = tabs_->addTab(page, title);
  tabs_->setTabToolTip(index, toolTip);
  tabs_->setCurrentIndex(index);
  if (!dock_->isVisible()) {
    // Every method's results share one area: the first result dock on screen takes the others
    // as tabs, so they never stack up and squeeze the signal browser.
    QDockWidget* shown = nullptr;
    for (QDockWidget* d : window_->findChildren<QDockWidget*>()) {
      if (d != dock_ && d->property(kResultDockProperty).toBool() && !d->isHidden()) {
        shown = d;
        break;
      }
    }
    dock_->show();
    if (shown) {
      window_->tabifyDockWidget(shown, dock_);
    } else {
      // At most 40 % of the window: the browser above must keep showing its channels.
      const double fraction = std::min(heightFraction, kMaxResultHeightFraction);
      QList<QDockWidget*> docks{dock_};
      QList<int> heights{static_cast<int>(window_->height() * fraction)};
      // The job list keeps its few rows (JobListWidget::sizeHint, the default layout's).
      if (auto* jobs = window_->findChild<QDockWidget*>(QStringLiteral("jobDock"))) {
        docks << jobs;
        heights << jobs->sizeHint().height();
      }
      window_->resizeDocks(docks, heights, Qt::Vertical);
    }
  }
  dock_->raise();
}

void ResultDock::closeAll() {
  while (tabs_->count() > 0) {
    QWidget* w = tabs_->widget(0);
    tabs_->removeTab(0);
    delete w;
  }
  dock_->hide();
}

void showBrowserPage(SignalBrowser* browser, double startSeconds, double seconds) {
  if (!browser) return;
  browser->setPageLength(std::max(seconds, SignalBrowser::kMinPageLength));
  browser->setPageStart(startSeconds);
}

void followBrowserPage(SignalBrowser* browser, QObject* context,
                       std::function<void(double startSeconds, double seconds)> follow) {
  if (!browser) return;
  QPointer<SignalBrowser> guard(browser);
  QObject::connect(browser, &SignalBrowser::viewChanged, context, [guard, follow] {
    if (guard) follow(guard->pageStart(), guard->pageLength());
  });
}

QString askFigurePath(QWidget* parent, const QString& what) {
  QString filter;
  const QString path =
      QFileDialog::getSaveFileName(parent, QObject::tr("Export %1").arg(what), QString(),
                                   pageExportFilters().join(QStringLiteral(";;")), &filter);
  return path.isEmpty() ? path : withSuffixFromFilter(path, filter);
}

}  // namespace modescope
