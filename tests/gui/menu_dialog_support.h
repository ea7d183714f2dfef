// For GUI tests: trigger a menu action that opens a modal dialog, fill the dialog from a timer
// inside its event loop (a modal exec() does not return until it closes), and accept it when its
// validation allows. Header-only; shared by the workflow tests (EMD, ICA).
#pragma once

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QTimer>
#include <QWidget>
#include <functional>

#include "engine/compute/backend.h"

namespace modescope::gui_test {

// Triggers the enabled action of `window` whose text is `actionText` and waits for a modal
// `Dialog`; `fill` sets its fields and returns its validation message. An empty message accepts
// the dialog, any other rejects it. Returns the message, or why the dialog never opened.
template <class Dialog>
QString runMenuDialog(QWidget& window, const QString& actionText,
                      const std::function<QString(Dialog&)>& fill) {
  QAction* action = nullptr;
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text() == actionText) action = a;
  if (!action || !action->isEnabled()) return QStringLiteral("no enabled action ") + actionText;
  QString problem = QStringLiteral("the dialog did not open");
  QTimer poll;
  poll.setInterval(20);
  QObject::connect(&poll, &QTimer::timeout, &window, [&] {
    auto* d = qobject_cast<Dialog*>(QApplication::activeModalWidget());
    if (!d) return;
    poll.stop();
    problem = fill(*d);
    if (problem.isEmpty()) {
      d->accept();
    } else {
      d->reject();
    }
  });
  poll.start();
  action->trigger();
  return problem;
}

// Fills a dialog's "Time range and backend" group (app/gui/range_backend_box.h): durationSeconds
// < 0 ticks "to the end".
inline void fillRangeAndBackend(QWidget& dialog, double startSeconds, double durationSeconds,
                                BackendChoice backend) {
  dialog.findChild<QDoubleSpinBox*>(QStringLiteral("start"))->setValue(startSeconds);
  dialog.findChild<QCheckBox*>(QStringLiteral("toEnd"))->setChecked(durationSeconds < 0);
  if (durationSeconds >= 0)
    dialog.findChild<QDoubleSpinBox*>(QStringLiteral("duration"))->setValue(durationSeconds);
  auto* combo = dialog.findChild<QComboBox*>(QStringLiteral("backend"));
  combo->setCurrentIndex(combo->findData(static_cast<int>(backend)));
}

}  // namespace modescope::gui_test
