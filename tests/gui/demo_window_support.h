// For GUI tests: open the embedded demo recording in a MainWindow and wait until it is open.
// Header-only; shared by the main-window and workflow tests.
#pragma once

#include <QSignalSpy>
#include <QString>
#include <QTest>

#include "app/gui/main_window.h"
#include "widgets/job_list_widget.h"

namespace modescope::gui_test {

// Opens the demo and waits up to `timeoutMs` (the BioSig fallback converts it in a child
// process: MODESCOPE_CLI must name modescope-cli). Returns "" once it is open, else why not.
inline QString openDemoAndWait(MainWindow& w, int timeoutMs = 60000) {
  QSignalSpy opened(&w, &MainWindow::recordingOpened);
  QSignalSpy failed(&w, &MainWindow::openFailed);
  w.openDemo();
  if (!QTest::qWaitFor([&] { return opened.count() + failed.count() > 0; }, timeoutMs))
    return QStringLiteral("the demo did not open within %1 ms").arg(timeoutMs);
  return failed.isEmpty() ? QString() : failed.at(0).at(1).toString();
}

// Shows `w` at 1500 x 980 (room for the result docks), waits until it is on screen and opens the
// demo (openDemoAndWait). Returns "" once the demo is open, else why not.
inline QString showWithDemo(MainWindow& w) {
  w.resize(1500, 980);
  w.show();
  if (!QTest::qWaitForWindowExposed(&w)) return QStringLiteral("the window was not exposed");
  return openDemoAndWait(w);
}

// Whether job `id` of `w`'s job list has left the queue (succeeded, failed or cancelled).
inline bool jobFinished(MainWindow& w, JobId id) {
  const auto s = w.jobList()->jobState(id);
  return s && *s != JobState::Queued && *s != JobState::Running;
}

}  // namespace modescope::gui_test
