// The time-frequency view in the main window (issue 18, item 3; docs/time-frequency.md):
//
//  - Analysis > Time-frequency... opens a TfView for the current tab's channel (the first
//    selected channel of the browser, else the first channel on screen) as a tab of the
//    "Time-frequency" dock, following that browser's page as it scrolls. The current tab may be a
//    file or a derived recording (filtered, cleaned, the ridge modes);
//  - the ICA component browser's activations get a context menu entry "Time-frequency of this
//    component": the view of the current component's activation, following that browser;
//  - the EMD results' IMF stack gets a context menu entry "Time-frequency of IMF k" on each row:
//    the view of that IMF (imfRecording: on the recording's time axis) following the browser the
//    decomposition came from;
//  - the view's worker has a backend of its own, of the Compute menu's choice (the GPU when
//    there is one), renewed when that choice changes;
//  - its images get the CUDA-OpenGL interop pixel writer (the host path where the OpenGL context
//    is not on a CUDA device);
//  - "Export figure..." asks for a PNG, SVG or PDF file; "Reconstruct ridges..." runs
//    tfModesRecording for the page as a window job and opens the modes as an undoable derived
//    recording tab.
//
// Thread rules: GUI thread. MainWindow owns it.
#pragma once

#include <QObject>
#include <memory>

#include "app/core/tf_modes_recording.h"
#include "engine/core/job_queue.h"

class QDockWidget;
class QTabWidget;

namespace modescope {

class EmdResultsPane;
class IcaResultsPane;
class EmdWorkflow;
class IcaWorkflow;
class WorkflowHost;
class Workspace;
class ResultDock;
class SignalBrowser;
class TfView;

class TfWorkflow : public QObject {
  Q_OBJECT

 public:
  // Offers itself in the context menus of `ica`'s component browsers and `emd`'s IMF stacks.
  TfWorkflow(Workspace& workspace, WorkflowHost& host, IcaWorkflow* ica, EmdWorkflow* emd);

  QDockWidget* dock() const;
  QTabWidget* viewTabs() const;

  // Opens the view for the current tab's current channel; nullptr (and a status message) when
  // nothing is open.
  TfView* openForCurrentChannel();
  // Opens the view for `channel` of `recording` (`sourceTitle` names it), following `browser`.
  TfView* openFor(std::shared_ptr<const Recording> recording, std::size_t channel,
                  const QString& sourceTitle, SignalBrowser* browser);
  // Opens the view for the current component of an ICA result's activations.
  TfView* openForComponent(IcaResultsPane* pane);
  // Opens the view for row `row` (IMF row + 1; the last, the residue) of the pane's current
  // channel, following `browser`.
  TfView* openForImf(EmdResultsPane* pane, int row, SignalBrowser* browser);
  // Runs the reconstruction of `request` on the recording `view` shows; the derived recording
  // opens as a tab (modesOpened).
  JobId reconstruct(TfView* view, const TfModesRequest& request);

 signals:
  void viewOpened(TfView* view);
  void modesOpened(int tabIndex);

 private:
  Workspace& workspace_;
  WorkflowHost& host_;
  ResultDock* views_ = nullptr;
};

}  // namespace modescope
