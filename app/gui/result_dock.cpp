#include "app/gui/result_dock.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QMainWindow>
#include <QPointer>
#include <QTabWidget>
#include <algorithm>

#include "app/gui/file_filters.h"
#include "widgets/signal_browser.h"

namespace modescope {

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
  dock_->setWidget(tabs_);
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
    dock_->show();
    window_->resizeDocks({dock_}, {static_cast<int>(window_->height() * heightFraction)},
                         Qt::Vertical);
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
